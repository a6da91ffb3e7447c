// Session::Plan, shared by the files that implement graph::Session
// (session.cpp runs plans, session_profile.cpp reports their profiles).
// Internal: not installed for users.
#pragma once
#include <memory>
#include <vector>

#include "nabla/graph/node_kernel.h"
#include "nabla/graph/passes/fuse_elementwise.h"
#include "nabla/graph/passes/memory_plan.h"
#include "nabla/graph/passes/opt_graph.h"
#include "nabla/graph/passes/variable_writes.h"
#include "nabla/graph/session.h"

namespace nabla::graph {

struct CudaGraphState;  // session_cuda_graph.cpp

struct Session::Plan {
  OptGraph graph;                 // pruned (and fused); origins are user node ids
  std::vector<ValueRef> fetches;  // values of `graph`, one per fetch
  MemoryPlan memory;
  // Resolved once (node_kernel.h): per node, the CPU kernel to call directly
  // into given outputs, or nullptr (run through call()).
  std::vector<KernelFn> direct;
  std::vector<Tensor> slots;  // the buffers of memory.slot, made on first use, reused by later runs
  std::vector<std::unique_ptr<FusedScratch>> scratch;  // per fused node
  VariableWrites variable_writes;  // chains that write straight into a variable (passes/variable_writes.h)
  // Per node, per output: a contiguous copy of the value when it is a strided
  // view that fused chains read (made once per run, kept across runs).
  std::vector<std::vector<Tensor>> dense;
  // On a device session: each constant node's value copied to the device,
  // once (constants are host tensors in the graph).
  std::vector<Tensor> device_constants;
  // Placed graphs (session_placement.cpp): where each node runs, and the
  // values that cross placements, each moved once before `at` (its first
  // reader) runs: copied within the process, sent over the transport between
  // processes (tag: the transfer's index, the same in every process's plan).
  bool placed = false;
  std::vector<Placement> where;  // per node
  struct Transfer {
    ValueRef src;
    Placement from, to;
    int at = -1;
  };
  std::vector<Transfer> transfers;
  std::vector<std::vector<int>> transfers_at;    // per node: the transfers made just before it
  std::vector<std::vector<int>> input_transfer;  // per node, per input: the transfer it reads, or -1
  // CUDA graphs (SessionOptions::cuda_graphs): the plan's warm-up count, its
  // captured graph and buffers, or why it is not captured. Made at the
  // plan's first run on a CUDA session with graphs on.
  std::shared_ptr<CudaGraphState> cuda_graph;
  // Profiling: nanoseconds per node and of whole runs, over `profiled_runs`.
  std::vector<int64_t> node_ns;
  int64_t run_ns = 0;
  int64_t profiled_runs = 0;
};

}  // namespace nabla::graph
