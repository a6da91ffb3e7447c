// Data-parallel fit() (issue 18): train::Trainer::fit over MPI ranks.
//
//   distributed::init();
//   train::Trainer trainer(model, {.optimizer = ..., .metrics = {"accuracy"}});
//   trainer.fit(x, y, {.epochs = 5, .batch_size = 32,   // per rank
//                      .distributed = std::make_shared<distributed::FitDataParallel>()});
//   distributed::finalize();
//
// FitDataParallel is nabla/train's DataParallel interface (train/data_parallel.h)
// implemented with this library: setup() wraps the model in a
// DistributedDataParallel (parameters and buffers broadcast from rank 0),
// sync_gradients() is DDP's, and the logged values are summed with an
// all_reduce over the ProcessGroup. nabla/train itself stays free of MPI:
// libnabla.so does not link it (docs/distributed.md, "fit()").
#pragma once
#include <memory>
#include <vector>

#include "nabla/distributed/data_parallel.h"
#include "nabla/distributed/process_group.h"
#include "nabla/train/data_parallel.h"

namespace nabla::distributed {

class FitDataParallel : public train::DataParallel {
 public:
  // The group's processes train together (distributed::init() first);
  // bucket_cap_mb is DistributedDataParallel's.
  explicit FitDataParallel(double bucket_cap_mb = 25.0, ProcessGroup group = ProcessGroup::world());
  int rank() const override { return group_.rank(); }
  int world_size() const override { return group_.size(); }
  // Wraps `model` in a DistributedDataParallel (broadcast from rank 0); a
  // later fit() of the same model keeps it (the replicas are still equal).
  void setup(const nn::ModulePtr& model) override;
  void sync_gradients() override;
  void all_reduce_sum(std::vector<double>& values) override;
  // The DDP of the last setup() (nullptr before).
  DistributedDataParallel* ddp() { return ddp_.get(); }

 private:
  double bucket_cap_mb_;
  ProcessGroup group_;
  nn::Module* wrapped_ = nullptr;
  std::unique_ptr<DistributedDataParallel> ddp_;
};

}  // namespace nabla::distributed
