// train::DataParallel: what a data-parallel fit() needs from the processes
// it runs in (FitOptions::distributed). nabla/train only knows this
// interface, so libnabla.so stays free of MPI; libnabla_distributed.so
// implements it over a ProcessGroup and DistributedDataParallel
// (distributed::FitDataParallel, nabla/distributed/fit.h).
//
// With it, fit() on every rank:
//   - calls setup(model) before training (DDP: parameters and buffers
//     broadcast from rank 0, so the replicas start equal);
//   - trains on this rank's shard of the training data (a
//     data::DistributedSampler over tensors and Datasets, reshuffled each
//     epoch from the seed; a DataLoader is used as given: give it one);
//   - calls sync_gradients() after each backward and before the optimizer
//     step (the gradients become their mean over ranks);
//   - logs values averaged over ranks, weighted by the samples each rank saw
//     (all_reduce_sum), so every rank logs, and its callbacks decide on, the
//     same numbers; validation data is split over the ranks the same way;
//   - runs the callbacks whose only effect is output (Callback::rank_zero_only:
//     progress bar, TensorBoard, CSVLogger, ModelCheckpoint) on rank 0 only,
//     and BackupAndRestore writes on rank 0 only (all ranks read it back).
// docs/distributed.md, "fit()".
#pragma once
#include <memory>
#include <vector>

#include "nabla/data/dataset.h"
#include "nabla/nn/module.h"

namespace nabla::train {

class DataParallel {
 public:
  virtual ~DataParallel() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // Once per fit(), before training: makes every replica of `model` equal.
  virtual void setup(const nn::ModulePtr& model) = 0;
  // After backward, before the optimizer step: gradients averaged over ranks.
  virtual void sync_gradients() = 0;
  // Every element becomes its sum over ranks (every rank the same length).
  virtual void all_reduce_sum(std::vector<double>& values) = 0;
};
using DataParallelPtr = std::shared_ptr<DataParallel>;

// Rank `rank` of `world`'s part of `dataset` for evaluation: samples rank,
// rank + world, ... without padding (shards may differ by one sample, so
// values reduced over ranks weighted by samples are the whole set's).
data::DatasetPtr evaluation_shard(const data::DatasetPtr& dataset, int rank, int world);

}  // namespace nabla::train
