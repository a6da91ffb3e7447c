// DistributedDataParallel (issue 18, part 2): one replica of a module per
// rank, kept identical by starting from rank 0's parameters and averaging the
// gradients of every backward across ranks before the optimizer step.
//
//   distributed::DistributedDataParallel ddp(model);   // broadcasts from rank 0
//   Tensor loss = cross_entropy(ddp(x_of_this_rank), y_of_this_rank);
//   loss.backward();
//   ddp.sync_gradients();                               // all_reduce mean, per bucket
//   opt.step();
//
// Gradients travel in buckets of about bucket_cap_mb, each flattened into one
// buffer and reduced by one MPI_Iallreduce; all buckets are started before
// any is waited on. This slice syncs after backward: Tensor::register_hook
// runs before the gradient is accumulated into .grad (once per use of the
// parameter), so it cannot tell when a parameter's gradient is final; the
// overlap with backward needs a post-accumulate hook (docs/distributed.md).
//
// A parameter with no gradient on a rank (unused in its forward) counts as a
// zero gradient there, so every rank makes the same MPI calls and none hangs;
// after sync_gradients() every bucketed parameter has a gradient.
#pragma once
#include <memory>
#include <vector>

#include "nabla/distributed/process_group.h"
#include "nabla/nn/module.h"

namespace nabla::distributed {

class DistributedDataParallel {
 public:
  // module's parameters and buffers: contiguous CPU tensors (the MPI backend's reach).
  explicit DistributedDataParallel(std::shared_ptr<nn::Module> module, double bucket_cap_mb = 25.0,
                                   ProcessGroup group = ProcessGroup::world());

  Tensor forward(const Tensor& x) { return module_->forward(x); }
  Tensor operator()(const Tensor& x) { return forward(x); }
  nn::Module& module() { return *module_; }
  const ProcessGroup& process_group() const { return group_; }

  // Averages the gradients over ranks (a no-op inside no_sync()). Every rank
  // must call it after the same number of backward passes.
  void sync_gradients();

  // Within the scope, sync_gradients() does nothing: gradients accumulate
  // locally and the first sync after it reduces their sum (PyTorch's no_sync).
  class NoSync {
   public:
    explicit NoSync(DistributedDataParallel& d) : ddp_(&d), was_(d.sync_enabled_) { d.sync_enabled_ = false; }
    ~NoSync() { ddp_->sync_enabled_ = was_; }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DistributedDataParallel* ddp_;
    bool was_;
  };
  [[nodiscard]] NoSync no_sync() { return NoSync(*this); }

  // Parameters per bucket, in the order they are reduced (for tests and logs).
  std::vector<int64_t> bucket_sizes() const;

 private:
  struct Bucket {
    std::vector<Tensor> params;  // one dtype
    Tensor flat;                 // their gradients, end to end
  };
  std::shared_ptr<nn::Module> module_;
  ProcessGroup group_;
  std::vector<Bucket> buckets_;
  bool sync_enabled_ = true;
};

}  // namespace nabla::distributed
