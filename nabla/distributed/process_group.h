// Collectives over a group of processes (MPI_COMM_WORLD for now), on
// contiguous CPU tensors of dtype float32, float64, int32, int64 or uint8.
// Each has a blocking form and an _async form that returns a Work to wait on
// (MPI's non-blocking collectives: MPI_Iallreduce and friends). The tensors
// given to an _async call must not be read or written until its wait().
#pragma once
#include <memory>

#include "nabla/core/tensor.h"

namespace nabla::distributed {

// PyTorch's ReduceOp: Mean is Sum divided by the world size (floating dtypes only).
enum class ReduceOp { Sum, Mean, Max };

struct WorkState;  // the MPI request and what it keeps alive (process_group.cpp)

// A collective under way. wait() blocks until it is done (then its output
// tensors hold the result) or until distributed::timeout() has passed: then
// it throws nabla::Error naming the collective and the timeout, and the
// process should end (finalize() aborts the MPI job).
class Work {
 public:
  Work() = default;
  explicit Work(std::shared_ptr<WorkState> s) : state_(std::move(s)) {}
  void wait();
  bool is_completed();  // done, without blocking (MPI_Test)
 private:
  std::shared_ptr<WorkState> state_;
};

class ProcessGroup {
 public:
  // Every process of the job (needs distributed::init()).
  static ProcessGroup world();
  int rank() const { return rank_; }
  int size() const { return size_; }

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
};

}  // namespace nabla::distributed
