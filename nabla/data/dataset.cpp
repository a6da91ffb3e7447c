// Datasets: TensorDataset, Subset, ConcatDataset and random_split.
#include "nabla/data/dataset.h"

#include <algorithm>

#include "nabla/core/error.h"
#include "nabla/data/permutation.h"

namespace nabla::data {

namespace {
int64_t checked_index(int64_t index, int64_t size, const char* who) {
  NABLA_CHECK(index >= -size && index < size, who, "::get: index ", index, " is out of range for a dataset of size ",
              size);
  return index < 0 ? index + size : index;
}
}  // namespace

TensorDataset::TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
  NABLA_CHECK(data_.defined() && data_.dim() >= 1, "TensorDataset: data must be a tensor with at least one dim");
  size_ = data_.size(0);
  if (target_.defined()) {
    NABLA_CHECK(target_.dim() >= 1 && target_.size(0) == size_, "TensorDataset: data has ", size_,
                " samples (dim 0) but target has shape ", target_.sizes());
  }
}

Example TensorDataset::get(int64_t index) const {
  index = checked_index(index, size_, "TensorDataset");
  return {data_.select(0, index), target_.defined() ? target_.select(0, index) : Tensor()};
}

Subset::Subset(DatasetPtr dataset, std::vector<int64_t> indices)
    : dataset_(std::move(dataset)), indices_(std::move(indices)) {
  NABLA_CHECK(dataset_ != nullptr, "Subset: dataset is null");
  const int64_t n = dataset_->size();
  for (int64_t i : indices_)
    NABLA_CHECK(i >= 0 && i < n, "Subset: index ", i, " is out of range for a dataset of size ", n);
}

Example Subset::get(int64_t index) const { return dataset_->get(indices_[checked_index(index, size(), "Subset")]); }

ConcatDataset::ConcatDataset(std::vector<DatasetPtr> datasets) : datasets_(std::move(datasets)) {
  int64_t total = 0;
  for (const auto& d : datasets_) {
    NABLA_CHECK(d != nullptr, "ConcatDataset: a dataset is null");
    total += d->size();
    ends_.push_back(total);
  }
}

Example ConcatDataset::get(int64_t index) const {
  index = checked_index(index, size(), "ConcatDataset");
  const auto it = std::upper_bound(ends_.begin(), ends_.end(), index);
  const auto k = it - ends_.begin();
  return datasets_[k]->get(index - (k == 0 ? 0 : ends_[k - 1]));
}

std::vector<std::shared_ptr<Subset>> random_split(DatasetPtr dataset, const std::vector<int64_t>& lengths,
                                                  uint64_t seed) {
  NABLA_CHECK(dataset != nullptr, "random_split: dataset is null");
  int64_t total = 0;
  for (int64_t l : lengths) {
    NABLA_CHECK(l >= 0, "random_split: lengths must be non-negative, got ", lengths);
    total += l;
  }
  NABLA_CHECK(total == dataset->size(), "random_split: lengths ", lengths, " sum to ", total, " but the dataset has ",
              dataset->size(), " samples");
  const std::vector<int64_t> perm = detail::permutation(total, seed, 0);
  std::vector<std::shared_ptr<Subset>> out;
  int64_t start = 0;
  for (int64_t l : lengths) {
    out.push_back(
        std::make_shared<Subset>(dataset, std::vector<int64_t>(perm.begin() + start, perm.begin() + start + l)));
    start += l;
  }
  return out;
}

}  // namespace nabla::data
