// Collectives over a group of processes (every process of the job), on
// contiguous tensors of dtype float32, float64, int32, int64 or uint8.
// Each has a blocking form and an _async form that returns a Work to wait on.
// Two backends (docs/distributed.md): world() over MPI (MPI_Iallreduce and
// friends) for tensors on any device, those on an accelerator staged through
// pinned host memory; nccl() over NCCL for tensors on one CUDA device per
// process. The tensors given to an _async call must not be read or written
// until its wait().
#pragma once
#include <memory>

#include "nabla/core/tensor.h"

namespace nabla::distributed {

// PyTorch's ReduceOp: Mean is Sum divided by the world size (floating dtypes only).
enum class ReduceOp { Sum, Mean, Max };

struct WorkState;  // the MPI request or CUDA event and what it keeps alive (mpi_detail.h)
struct NcclGroup;  // the NCCL communicator (nccl_group.h)

// A collective under way. wait() blocks until it is done (then its output
// tensors hold the result) or until distributed::timeout() has passed: then
// it throws nabla::Error naming the collective and the timeout, and the
// process should end (finalize() aborts the MPI job).
class Work {
 public:
  Work() = default;
  explicit Work(std::shared_ptr<WorkState> s) : state_(std::move(s)) {}
  void wait();
  bool is_completed();  // done, without blocking (MPI_Test, or NCCL's CUDA event queried)
 private:
  std::shared_ptr<WorkState> state_;
};

class ProcessGroup {
 public:
  // Every process of the job over MPI (needs distributed::init()).
  static ProcessGroup world();
  // Every process of the job over NCCL (PyTorch's init_process_group("nccl")),
  // each on its CUDA device `device` (one GPU per process; with several on a
  // machine, pass cuda:<local rank>); collectives take tensors on that device
  // only. After distributed::init(), rank 0 makes NCCL's unique id and MPI
  // broadcasts it; without init() it is a world of one process (no MPI
  // needed). NCCL (libnccl.so.2) is loaded here, at the first call: an Error
  // says why when it, the CUDA backend or the device is absent.
  static ProcessGroup nccl(Device device);
  int rank() const { return rank_; }
  int size() const { return size_; }
  const char* backend() const { return nccl_ ? "nccl" : "mpi"; }  // PyTorch's get_backend()

  // t (every rank the same shape and dtype) becomes the reduction over ranks, in place.
  void all_reduce(const Tensor& t, ReduceOp op = ReduceOp::Sum) { all_reduce_async(t, op).wait(); }
  Work all_reduce_async(const Tensor& t, ReduceOp op = ReduceOp::Sum);
  // t becomes root's t on every rank, in place.
  void broadcast(const Tensor& t, int root) { broadcast_async(t, root).wait(); }
  Work broadcast_async(const Tensor& t, int root);
  // Every rank's t stacked in rank order: a [size(), t's shape...] tensor.
  Tensor all_gather(const Tensor& t);
  // output: [size(), t's shape...], same dtype as t.
  Work all_gather_async(const Tensor& output, const Tensor& t);
  // input: [size() * k, ...]; the result is the reduction over ranks of this
  // rank's block of k rows (PyTorch's reduce_scatter_tensor).
  Tensor reduce_scatter(const Tensor& input, ReduceOp op = ReduceOp::Sum);
  // output: [k, ...] with input [size() * k, ...].
  Work reduce_scatter_async(const Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::Sum);
  void barrier() { barrier_async().wait(); }
  Work barrier_async();

  // Counters of this process's collectives on the group since the program
  // started (shared by every copy of world()): calls started, and bytes of
  // the tensors it handed them to send: all_reduce and all_gather their
  // input, reduce_scatter its input, broadcast the tensor on the root (0
  // elsewhere), barrier 0. That is the payload, not MPI's traffic, which
  // depends on its algorithm (a ring all-reduce sends about 2(n-1)/n of it).
  uint64_t collectives() const;
  uint64_t bytes_sent() const;

 private:
  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  int rank_ = 0;
  int size_ = 1;
  std::shared_ptr<NcclGroup> nccl_;  // null: MPI
};

}  // namespace nabla::distributed
