// DistributedDataParallel (issue 18, part 2): one replica of a module per
// rank, kept identical by starting from rank 0's parameters and averaging the
// gradients of every backward across ranks before the optimizer step.
//
//   distributed::DistributedDataParallel ddp(model);   // broadcasts from rank 0
//   Tensor loss = cross_entropy(ddp(x_of_this_rank), y_of_this_rank);
//   loss.backward();                                    // buckets reduced as they fill
//   ddp.sync_gradients();                               // waits for them (see below)
//   opt.step();
//
// Gradients travel in buckets of about bucket_cap_mb, each flattened into one
// buffer and reduced by one MPI_Iallreduce (mean). With overlap (the
// default) a post-accumulate hook on every parameter (autograd/hooks.h) marks
// its gradient final during backward; a bucket whose gradients are all final
// is started at once while backward goes on, buckets always in the same order
// on every rank (MPI matches collectives by order). When backward ends, a
// queued callback starts the buckets left (gradients that never came count
// as zero), waits for all and writes the means into .grad. overlap = false
// does it all in sync_gradients() after backward instead.
//
// A parameter with no gradient on a rank (unused in its forward) counts as a
// zero gradient there, so every rank makes the same MPI calls and none hangs;
// after the reduction every bucketed parameter has a gradient. Its bucket
// waits for the end of backward unless find_unused_parameters finds it in
// forward (DataParallelOptions).
#pragma once
#include <memory>
#include <vector>

#include "nabla/distributed/process_group.h"
#include "nabla/nn/module.h"

namespace nabla::distributed {

struct DataParallelOptions {
  double bucket_cap_mb = 25.0;  // PyTorch's default
  // Reduce buckets during backward (true) or in sync_gradients() after it.
  bool overlap = true;
  // PyTorch's find_unused_parameters: forward walks the autograd graph from
  // its output, and the parameters it does not reach count as ready (zero
  // gradient) when backward starts, so their buckets need not wait for the
  // end of backward. Costs a walk of the graph per forward.
  bool find_unused_parameters = false;
};

class DistributedDataParallel {
 public:
  // module's parameters and buffers: contiguous CPU tensors (the MPI backend's reach).
  explicit DistributedDataParallel(std::shared_ptr<nn::Module> module, double bucket_cap_mb = 25.0,
                                   ProcessGroup group = ProcessGroup::world(), bool overlap = true);
  DistributedDataParallel(std::shared_ptr<nn::Module> module, const DataParallelOptions& options,
                          ProcessGroup group = ProcessGroup::world());

  Tensor forward(const Tensor& x);
  Tensor operator()(const Tensor& x) { return forward(x); }
  nn::Module& module() { return *module_; }
  const ProcessGroup& process_group() const { return group_; }
  bool overlap() const;

  // Makes .grad the mean over ranks (a no-op inside no_sync()). With overlap,
  // when a backward since the last call already reduced the gradients, there
  // is nothing left to do; when none did (this rank's backward did not reach
  // the model, or it ran under no_sync()), it reduces now, as the other ranks'
  // backward did. So: every rank calls it after the same backward passes.
  void sync_gradients();

  // Within the scope neither backward nor sync_gradients() reduces:
  // gradients accumulate locally and the first backward (or sync) after it
  // reduces their sum (PyTorch's no_sync).
  class NoSync {
   public:
    explicit NoSync(DistributedDataParallel& d);
    ~NoSync();
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
  struct Reducer;  // the buckets and their state in this backward; shared with the hooks
  std::shared_ptr<nn::Module> module_;
  ProcessGroup group_;
  std::shared_ptr<Reducer> reducer_;
};

}  // namespace nabla::distributed
