// Datasets: TensorDataset, Subset, ConcatDataset, random_split.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "nabla/nabla.h"

namespace nabla::data {
namespace {

// n rows [2i, 2i + 1] with targets i.
std::shared_ptr<TensorDataset> pair_rows_dataset(int64_t n) {
  return std::make_shared<TensorDataset>(arange(n * 2).view({n, 2}), arange(n));
}

TEST(Dataset, TensorDatasetSlicesDimZero) {
  auto ds = pair_rows_dataset(5);
  EXPECT_EQ(ds->size(), 5);
  Example e = ds->get(3);
  EXPECT_EQ(e.data.sizes(), (Shape{2}));
  EXPECT_EQ(e.data.to_vector<int64_t>(), (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(e.target.item<int64_t>(), 3);
  EXPECT_EQ(ds->get(-1).target.item<int64_t>(), 4);
  EXPECT_THROW(ds->get(5), Error);
  EXPECT_FALSE(TensorDataset(ones({3, 2})).get(0).target.defined());
  EXPECT_THROW(TensorDataset(ones({3, 2}), ones({4})), Error);
}

TEST(Dataset, SubsetAndConcat) {
  auto ds = pair_rows_dataset(5);
  Subset sub(ds, {4, 0});
  EXPECT_EQ(sub.size(), 2);
  EXPECT_EQ(sub.get(0).target.item<int64_t>(), 4);
  EXPECT_EQ(sub.get(1).target.item<int64_t>(), 0);
  EXPECT_THROW(Subset(ds, {5}), Error);
  ConcatDataset cat({ds, std::make_shared<Subset>(sub), pair_rows_dataset(0), pair_rows_dataset(1)});
  EXPECT_EQ(cat.size(), 8);
  std::vector<int64_t> targets;
  for (int64_t i = 0; i < cat.size(); ++i) targets.push_back(cat.get(i).target.item<int64_t>());
  EXPECT_EQ(targets, (std::vector<int64_t>{0, 1, 2, 3, 4, 4, 0, 0}));
  EXPECT_THROW(cat.get(8), Error);
}

TEST(Dataset, RandomSplitIsDisjointCoveringAndSeeded) {
  auto ds = pair_rows_dataset(100);
  auto parts = random_split(ds, {70, 20, 10}, 7);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0]->size(), 70);
  EXPECT_EQ(parts[1]->size(), 20);
  EXPECT_EQ(parts[2]->size(), 10);
  std::set<int64_t> seen;
  for (const auto& p : parts)
    for (int64_t i = 0; i < p->size(); ++i) seen.insert(p->get(i).target.item<int64_t>());
  EXPECT_EQ(seen.size(), 100u);  // disjoint and covering
  EXPECT_EQ(random_split(ds, {70, 20, 10}, 7)[1]->indices(), parts[1]->indices());
  EXPECT_NE(random_split(ds, {70, 20, 10}, 8)[1]->indices(), parts[1]->indices());
  EXPECT_FALSE(std::is_sorted(parts[0]->indices().begin(), parts[0]->indices().end()));
  EXPECT_THROW(random_split(ds, {70, 20}, 7), Error);
  EXPECT_THROW(random_split(ds, {110, -10}, 7), Error);
}

}  // namespace
}  // namespace nabla::data
