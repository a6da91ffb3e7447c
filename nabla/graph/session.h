// graph::Session: runs a Graph. The Session optimizes a copy of the graph
// once per graph version (passes/optimize.h: constant folding, algebraic
// simplification, CSE, DCE) and builds one execution plan per distinct set of
// fetches and feeds: pruned to what the fetches need, elementwise chains
// fused into one loop, and a memory plan (values released after their last
// use, in-place ops where safe, result buffers reused from run to run). Op
// kernels are resolved when the plan is built and called directly where
// call() would add nothing but its checks (node_kernel.h); the others run
// eagerly through the op table (no autograd). The user's Graph is never
// modified. Variables live in the Session and persist across runs. A graph
// whose placeholders have unknown dims (-1) is specialized to the shapes fed
// (specialize.h) and optimized once per distinct set of them. See
// docs/graph.md.
#pragma once
#include <concepts>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nabla/core/allocator.h"
#include "nabla/core/random.h"
#include "nabla/graph/cuda_graphs.h"
#include "nabla/graph/graph.h"
#include "nabla/graph/placement.h"
#include "nabla/graph/transport.h"

namespace nabla::graph {

struct OptGraph;  // passes/opt_graph.h

// {placeholder, concrete value} pairs.
using Feeds = std::vector<std::pair<Tensor, Tensor>>;
// {value name, concrete value} pairs (names as Graph::tensor takes them).
using NamedFeeds = std::vector<std::pair<std::string, Tensor>>;

struct SessionOptions {
  // The graph passes (folding, simplification, CSE, DCE). When false, fusion
  // and memory planning are off too: nodes run as built, pruned to the fetches.
  bool optimize = true;
  bool fuse = true;         // fuse elementwise chains (needs optimize)
  // Fold eval-mode batch norm into the conv2d before it (passes/fold_conv_bn.h;
  // needs optimize and fuse). Off: the unfolded graph's values, bit for bit.
  bool fold_batch_norm = true;
  // Run convolution blocks channels-last (passes/conv_layout.h; needs
  // optimize): each float32/bfloat16 conv2d's NCHW input is converted to NHWC
  // once and the ops after it keep NHWC. Off (the default): activations stay
  // as the graph's ops make them, the values of eager NCHW code bit for bit.
  bool channels_last_convolutions = false;
  bool plan_memory = true;  // release values after their last use, run in place where safe (needs optimize)
  // Graphs with unknown dims: how many specializations (one per set of fed
  // shapes, each with its plans and buffers) are kept; past it the least
  // recently used is dropped and made again if those shapes come back.
  int max_specializations = 16;
  // Time each node of each run (two clock reads per node, tens of
  // nanoseconds): profile() and profile_text() say where a run's time goes.
  // On an accelerator each node waits for its kernels (so it is charged its
  // device time; the run is slower while profiled). Also switched by
  // Session::set_profiling.
  bool profile = false;
  // A session on a device copies fetched values to the host (TensorFlow's
  // session.run returns host arrays); compile() keeps them on the device,
  // as the eager function it replaces would.
  bool fetches_to_host = true;
  // Limits that keep a graph from a file one does not control (a corrupted
  // loop bound, a huge shape) from taking the process down: each is a
  // nabla::Error naming the node and the option (docs/graph.md, "Limits").
  // A while_loop may run its body at most this many times per run (-1: no limit).
  int64_t max_loop_iterations = int64_t(1) << 24;
  // The bytes a run may take from the CPU allocator, net of what it gives
  // back (tensor data and their small objects; -1: no limit). By default the
  // machine's physical memory: a run that needs more fails cleanly instead of
  // being killed by the system.
  int64_t max_run_bytes = physical_memory_bytes();
  // A graph placed over several processes ("rank:1/cpu"): how values cross
  // between them (distributed::graph_transport(), over MPI). Every process
  // makes the same graph and Session and calls run() with the same fetches;
  // each runs the nodes placed on it. Null: one process, rank 0.
  std::shared_ptr<Transport> transport;
  // CUDA graphs (CudaGraphs above); ignored on other devices.
  CudaGraphs cuda_graphs = CudaGraphs::Off;
  // Normal runs of a plan before it is captured (kernels compiled, cuBLAS
  // set up, the caching allocator filled, optimizer state made); at least 1.
  int cuda_graph_warmup = 2;
};

class Session {
 public:
  explicit Session(const Graph& graph, SessionOptions options = {});
  // A session on `device`, where its variables live and its ops run: feeds
  // are copied in, fetched values copied out to the host, and nothing else
  // crosses (Stats counts both directions). On a device other than the CPU
  // the plan runs each op through the device's kernels (no CPU elementwise
  // fusion, no CPU memory plan; see docs/devices.md).
  Session(const Graph& graph, Device device, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;  // variables and plans belong to one Session
  Session& operator=(const Session&) = delete;
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // Concrete values of `fetches`, in order; an undefined Tensor for a
  // no-value fetch (group, initializer). Values returned never alias a
  // variable, so later runs do not change them.
  std::vector<Tensor> run(const std::vector<Tensor>& fetches, const Feeds& feeds = {});
  // One fetch, one value. A template so that braces always mean a list:
  // run({loss}, feeds) returns a vector, as TensorFlow's sess.run([loss]).
  template <std::same_as<Tensor> T>
  Tensor run(const T& fetch, const Feeds& feeds = {}) {
    return run(std::vector<Tensor>{fetch}, feeds)[0];
  }
  // The same with values named ("y_pred", "split:1"; see Graph::tensor).
  std::vector<Tensor> run(const std::vector<std::string>& fetches, const NamedFeeds& feeds = {});

  Device device() const { return device_; }

  // The graph this session runs (a handle: find a loaded graph's values by name).
  Graph graph() const { return Graph(graph_); }

  // Saved graphs (serialize.h): save() writes the graph with this session's
  // current variable values; load() returns a session whose variables hold
  // the saved values, ready to run (on `device`: the file is the same
  // whichever device saved it).
  void save(const std::string& path) const;
  static Session load(const std::string& path, Device device = kCPU);

  // The current value of a variable (a copy); a clear error if uninitialized.
  Tensor variable_value(const Tensor& variable) const;

  // The whole optimized graph the Session runs from (to_text format), and the
  // plan for one set of fetches: pruned, fused, in run order.
  std::string optimized_graph_text();
  std::string plan_text(const std::vector<Tensor>& fetches, const Feeds& feeds = {});

  // Profiling (SessionOptions::profile). Per plan, that is per set of
  // fetches and feeds (and fed shapes, for unknown dims): the runs made
  // while profiling was on, their wall time from the call to the return,
  // and each node's share. A cond or while_loop counts as one node.
  struct NodeTime {
    std::string node;  // the node's line of plan_text()
    double ms = 0;     // over all profiled runs
  };
  struct Profile {
    int64_t runs = 0;
    double ms = 0;                // whole run() calls, over all profiled runs
    std::vector<NodeTime> nodes;  // in run order
  };
  void set_profiling(bool on) { options_.profile = on; }
  bool profiling() const { return options_.profile; }
  // Forgets the times of every plan's profiled runs.
  void reset_profile();
  Profile profile(const std::vector<Tensor>& fetches, const Feeds& feeds = {});
  // The profile as a table, slowest node first:
  //   profile of 300 runs: 0.391 ms per run (nodes 0.385, session 0.006)
  //        us/run      %  node
  //         164.2   42.0  mm = mm(input_0, permute) : float32[64, 100]  @ step.cpp:14
  std::string profile_text(const std::vector<Tensor>& fetches, const Feeds& feeds = {});

  struct Stats {
    int64_t runs = 0;
    int64_t nodes_executed = 0;  // all kinds of node, over all runs
    int64_t ops_executed = 0;    // Op nodes only (a fused chain counts once), over all runs
    int64_t fused_ops_executed = 0;    // fused chain nodes among ops_executed
    int64_t direct_ops_executed = 0;   // ops whose kernel the plan resolved, called without call()
    int64_t inplace_ops_executed = 0;  // ops that wrote into their input's buffer
    // Results computed straight into the variable an assign updates (an
    // elementwise chain, or an output of an updating op such as
    // adam_update; passes/variable_writes.h), instead of copied into it.
    int64_t variable_writes = 0;
    // Bytes of op results the Session allocated (fused scratch included; a
    // result written in place or into a buffer kept from an earlier run
    // allocates none), over all runs.
    int64_t bytes_allocated = 0;
    // Bytes of fetched values handed back to the caller (copied to the host
    // from a device session; on the CPU, the fetched tensors); what assigns
    // write into variables stays in the Session.
    int64_t device_to_host_bytes = 0;
    // Bytes a device session copied in: feeds, constants (once per plan),
    // initial variable values. 0 on the CPU.
    int64_t host_to_device_bytes = 0;
    // Placed graphs (graph::DeviceScope): values that crossed from one
    // placement to another. sent_*: copies to another device of this
    // process, and messages to other processes; received_*: messages from
    // other processes. One per crossing edge and run (a value read on one
    // other device by several nodes crosses once; a variable's value crosses
    // for each node that reads it there, since assigns may change it between).
    int64_t sent_tensors = 0;
    int64_t sent_bytes = 0;
    int64_t received_tensors = 0;
    int64_t received_bytes = 0;
    // CUDA graphs (SessionOptions::cuda_graphs): runs captured into a graph
    // (each also runs the step, by one replay), runs that replayed one, and
    // plans that gave up (cuda_graph_status says why). A replay counts in
    // `runs` but not in the node and op counts above.
    int64_t cuda_graph_captures = 0;
    int64_t cuda_graph_replays = 0;
    int64_t cuda_graph_fallbacks = 0;
    int64_t optimizations = 0;  // times the graph was optimized (once per graph version and set of fed shapes)
    int64_t plans_built = 0;    // execution plans made (once per fetch/feed set and graph version)
  };
  const Stats& stats() const { return stats_; }

  // Where the plan for these fetches and feeds stands with CUDA graphs:
  // "off" (not a CUDA session, or SessionOptions::cuda_graphs Off),
  // "warming up (1 of 2 runs)", "captured (replayed 8 times; pool 1.2 MiB)",
  // or "not captured: <why>" (then its runs are normal runs for good).
  std::string cuda_graph_status(const std::vector<Tensor>& fetches, const Feeds& feeds = {});

 private:
  struct Plan;
  // The graph optimized for one set of fed shapes, and its plans.
  struct Specialization {
    std::unique_ptr<OptGraph> opt;
    std::map<std::vector<int>, std::unique_ptr<Plan>> plans;  // by fetches and fed placeholders
    uint64_t last_used = 0;  // Session::uses_ at its last run
  };
  // Drops what was optimized when the graph has changed since.
  void ensure_optimized();
  // The placeholders with unknown dims, with the shapes fed to them (or -1:
  // not fed), as the key of their specialization.
  std::vector<int64_t> shape_key(const std::unordered_map<int, Tensor>& fed) const;
  Specialization& specialization(const std::unordered_map<int, Tensor>& fed);
  Plan& plan_for(Specialization& spec, const std::vector<ValueRef>& fetches, const std::vector<int>& fed);
  // The plan run(fetches, feeds) would run (made if new), without running it.
  Plan& plan_for(const std::vector<Tensor>& fetches, const Feeds& feeds);
  // The tensor op node `id` of `plan` writes output `o` into: its slot's
  // buffer when free, else a new one (counted in stats_.bytes_allocated).
  Tensor output_buffer(Plan& plan, std::size_t id, std::size_t o, Inputs ins);
  // Placement (placement.h): whether any node of the graph is placed (or the
  // session spans processes), and where a node of the user's graph runs.
  bool placed() const { return placed_; }
  int my_rank() const { return options_.transport ? options_.transport->rank() : 0; }
  Placement placement_of_user_node(int id) const;
  // Every placed node of the user's graph checked: known device, present
  // here (for this rank's nodes), rank within the job.
  void check_placements() const;
  // Where each node of a plan runs, and the values that cross (session_placement.cpp).
  void place_plan(Plan& plan) const;
  // Runs the nodes of `plan` (session.cpp): every node's values, by node.
  // `effects_called` (a capture) collects the Effect nodes called.
  std::vector<TensorList> run_nodes(Plan& plan, const std::unordered_map<int, Tensor>& fed, bool profiling,
                                    std::vector<const Node*>* effects_called);
  // The fetched values of a run, as run() returns them.
  std::vector<Tensor> fetch_results(const Plan& plan, const std::vector<TensorList>& values);
  // CUDA graphs (session_cuda_graph.cpp): the results of a run made by
  // capturing or replaying the plan's graph, or nullopt when this run is to
  // be a normal one (warm-up, fallback).
  std::optional<std::vector<Tensor>> run_cuda_graph(Plan& plan, const std::unordered_map<int, Tensor>& fed);
  std::optional<std::vector<Tensor>> capture_cuda_graph(Plan& plan, const std::unordered_map<int, Tensor>& fed);
  // Why `plan` cannot be captured, judged before running it ("" if it can).
  std::string cuda_graph_obstacle(const Plan& plan) const;
  // Moves a crossing value before node `id` of `plan` reads it.
  void run_transfers(Plan& plan, std::size_t id, const std::vector<TensorList>& values, std::vector<Tensor>& moved);

  std::shared_ptr<GraphData> graph_;
  Device device_ = kCPU;
  SessionOptions options_;
  // By shape_key (a single one, empty, for a graph without unknown dims).
  std::map<std::vector<int64_t>, Specialization> specializations_;
  std::size_t optimized_nodes_ = 0;  // graph size when specializations_ were made
  std::vector<int> unknown_placeholders_;  // ids of the placeholders with unknown dims
  uint64_t uses_ = 0;                      // specializations handed out, for least-recently-used
  std::unordered_map<int, Tensor> variables_;  // user graph node id -> current value
  // Graphs with a seed: user graph node id -> the generator its draws come
  // from (a variable's initializer, a random op), made on first use.
  std::unordered_map<int, Generator> node_generators_;
  bool placed_ = false;
  Stats stats_;
};

}  // namespace nabla::graph
