// Datasets: a Dataset maps an index in [0, size()) to an Example, a pair of
// tensors {data, target} (target may be undefined for unlabelled data).
// TensorDataset slices tensors along dim 0; Subset picks indices of another
// dataset; ConcatDataset chains datasets; random_split cuts a dataset into
// disjoint random subsets, the same ones for the same seed.
//
// get() must be safe to call from several threads at once (DataLoader workers
// do): a dataset should not change after it is handed to a loader.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::data {

// One sample, or (after collation) one batch: data and, optionally, target.
struct Example {
  Tensor data;
  Tensor target;  // undefined for unlabelled data
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Example get(int64_t index) const = 0;
};
using DatasetPtr = std::shared_ptr<const Dataset>;

// Sample i is {data[i], target[i]}; both tensors share dim 0.
class TensorDataset : public Dataset {
 public:
  explicit TensorDataset(Tensor data, Tensor target = Tensor());
  int64_t size() const override { return size_; }
  Example get(int64_t index) const override;
  const Tensor& data() const { return data_; }
  const Tensor& target() const { return target_; }

 private:
  Tensor data_, target_;
  int64_t size_;
};

// Sample i is dataset[indices[i]].
class Subset : public Dataset {
 public:
  Subset(DatasetPtr dataset, std::vector<int64_t> indices);
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Example get(int64_t index) const override;
  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  DatasetPtr dataset_;
  std::vector<int64_t> indices_;
};

// The samples of each dataset in turn.
class ConcatDataset : public Dataset {
 public:
  explicit ConcatDataset(std::vector<DatasetPtr> datasets);
  int64_t size() const override { return ends_.empty() ? 0 : ends_.back(); }
  Example get(int64_t index) const override;

 private:
  std::vector<DatasetPtr> datasets_;
  std::vector<int64_t> ends_;  // cumulative sizes
};

// Disjoint random subsets with the given lengths (which must sum to
// dataset->size()); the same seed gives the same split.
std::vector<std::shared_ptr<Subset>> random_split(DatasetPtr dataset, const std::vector<int64_t>& lengths,
                                                  uint64_t seed);

}  // namespace nabla::data
