// See data_parallel.h.
#include "nabla/train/data_parallel.h"

#include "nabla/core/error.h"

namespace nabla::train {

data::DatasetPtr evaluation_shard(const data::DatasetPtr& dataset, int rank, int world) {
  NABLA_CHECK(dataset != nullptr, "train::evaluation_shard: the dataset is null");
  NABLA_CHECK(world >= 1 && rank >= 0 && rank < world, "train::evaluation_shard: rank must be in [0, world=", world,
              "), got ", rank);
  if (world == 1) return dataset;
  std::vector<int64_t> mine;
  for (int64_t i = rank; i < dataset->size(); i += world) mine.push_back(i);
  return std::make_shared<data::Subset>(dataset, std::move(mine));
}

}  // namespace nabla::train
