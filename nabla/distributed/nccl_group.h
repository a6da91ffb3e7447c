// Internal to libnabla_distributed: the NCCL side of a ProcessGroup made by
// ProcessGroup::nccl(). One communicator on one CUDA device per process;
// each collective is one NCCL call enqueued on the device's compute stream
// (queue 0, where nabla's ops run: ordered after the ops that computed its
// tensors and before the ones that read them), and its Work is a CUDA event
// recorded after it. libnabla_distributed links no CUDA library: NCCL is
// opened with dlopen, the stream comes from libnabla_cuda through
// cuda::detail::enter_compute_stream, the event from the CUDA Backend.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "nabla/core/tensor.h"
#include "nabla/distributed/nccl_api.h"
#include "nabla/distributed/process_group.h"

namespace nabla::distributed {

struct WorkState;

struct NcclGroup : std::enable_shared_from_this<NcclGroup> {
  Device device;
  int rank = 0;
  int size = 1;
  int version = 0;  // ncclGetVersion: 22809 for 2.28.9
  nccl_api::Comm comm = nullptr;
  bool aborted = false;  // ncclCommAbort was called (a timeout or an NCCL error): the group is unusable
  std::mutex mu;         // one thread at a time issues calls on the communicator
  Tensor barrier_buffer;  // barrier(): an all-reduce of this one element, as PyTorch's NCCL barrier

  ~NcclGroup();

  Work all_reduce(const Tensor& t, ReduceOp op);
  Work broadcast(const Tensor& t, int root);
  Work all_gather(const Tensor& output, const Tensor& t);
  Work reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op);
  Work barrier();
};

// Loads NCCL (an Error naming `api` and why when it cannot), checks that
// `device` is a CUDA device present here, makes the unique id on rank 0,
// passes it through `share` (which must broadcast its 128 bytes from rank 0
// to every rank; not called when size is 1) and joins the communicator.
std::shared_ptr<NcclGroup> make_nccl_group(Device device, int rank, int size,
                                           const std::function<void(nccl_api::UniqueId&)>& share);

// Work's side (work.cpp): whether the collective's event has completed; an
// Error (after aborting the communicator) when NCCL reports an asynchronous
// error, such as a peer that failed.
bool nccl_work_done(WorkState& s);
// After a timeout: ncclCommAbort, so that the kernels waiting for a peer end.
void nccl_abort(NcclGroup& group);

}  // namespace nabla::distributed
