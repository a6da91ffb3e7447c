// IntList owns its values (issue 14, ergonomics): one built from braces or a
// temporary vector and stored stays valid after the temporary is gone. Under
// the ASan build (preset `fuzz`) a dangling view would be a use-after-free here.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "nabla/nabla.h"

namespace {

using nabla::IntList;

std::vector<int64_t> values(const IntList& l) { return {l.begin(), l.end()}; }

// Builds the list from a temporary that is destroyed before the caller reads it.
IntList from_temporary_vector(int64_t n) {
  IntList kept = std::vector<int64_t>(static_cast<std::size_t>(n), 7);
  return kept;
}

struct Remembered {
  IntList dims;
};

TEST(IntList, StoredFromBracesStaysValid) {
  IntList d = {1};
  IntList two = {0, 1};
  Remembered r{{2, 0, 1}};
  // Overwrite the stack where the initializer_lists lived.
  std::vector<int64_t> noise(64, -99);
  EXPECT_EQ(values(d), (std::vector<int64_t>{1}));
  EXPECT_EQ(values(two), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(values(r.dims), (std::vector<int64_t>{2, 0, 1}));
  // ... and works as an op argument later.
  nabla::Tensor x = nabla::arange(6).reshape({2, 3});
  EXPECT_EQ(values(x.sum(d).sizes()), (std::vector<int64_t>{2}));
  EXPECT_EQ(x.sum(two).item<int64_t>(), 15);
  EXPECT_EQ(values(x.reshape({1, 2, 3}).permute(r.dims).sizes()), (std::vector<int64_t>{3, 1, 2}));
}

TEST(IntList, StoredFromTemporaryVectorStaysValid) {
  IntList small = from_temporary_vector(3);
  IntList large = from_temporary_vector(IntList::kInline + 5);  // past the inline storage
  std::vector<int64_t> noise(64, -99);
  EXPECT_EQ(values(small), (std::vector<int64_t>(3, 7)));
  EXPECT_EQ(values(large), (std::vector<int64_t>(IntList::kInline + 5, 7)));
  nabla::Tensor x = nabla::zeros(IntList{2, 3});
  IntList shape = std::vector<int64_t>{3, 2};
  EXPECT_EQ(values(x.view(shape).sizes()), (std::vector<int64_t>{3, 2}));
}

TEST(IntList, CopiesAndMovesOwnTheirValues) {
  for (std::size_t n : {std::size_t{0}, std::size_t{2}, IntList::kInline, IntList::kInline + 3}) {
    std::vector<int64_t> src(n);
    for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<int64_t>(i) * 10 - 5;
    IntList a(src.data(), src.size());
    src.assign(n, 0);  // the list copied its values; changing the source does not reach it
    IntList copy = a;
    IntList assigned = {42};
    assigned = copy;
    IntList moved = std::move(copy);
    IntList move_assigned = {1, 2, 3};
    move_assigned = std::move(assigned);
    std::vector<int64_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = static_cast<int64_t>(i) * 10 - 5;
    EXPECT_EQ(values(a), want) << n;
    EXPECT_EQ(values(moved), want) << n;
    EXPECT_EQ(values(move_assigned), want) << n;
    EXPECT_EQ(a.size(), n);
    EXPECT_EQ(a.empty(), n == 0);
    EXPECT_EQ(a.vec(), want);
    EXPECT_EQ(a.shape().vec(), want);
  }
}

TEST(IntList, BuildsFromEveryListKind) {
  nabla::Shape shape{4, 5};
  std::vector<int64_t> vec{6, 7, 8};
  const int64_t raw[] = {9, 10};
  EXPECT_EQ(values(IntList(shape)), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(values(IntList(vec)), (std::vector<int64_t>{6, 7, 8}));
  EXPECT_EQ(values(IntList(std::span<const int64_t>(raw))), (std::vector<int64_t>{9, 10}));
  EXPECT_EQ(values(IntList(raw, 2)), (std::vector<int64_t>{9, 10}));
  EXPECT_TRUE(IntList().empty());
  EXPECT_TRUE(IntList({}).empty());
  EXPECT_EQ(values(IntList(int64_t{3})), (std::vector<int64_t>{3}));
}

// One int is a list of one, as libtorch's IntArrayRef: the PyTorch spellings
// x.sum(1), x.view(-1), zeros(5) mean what they mean there.
TEST(IntList, OneIntIsAListOfOne) {
  using namespace nabla;
  Tensor x = arange(6, kFloat32).view({2, 3});
  EXPECT_EQ(x.sum(1).to_vector<float>(), x.sum({1}).to_vector<float>());
  EXPECT_EQ(x.mean(0, true).sizes(), (Shape{1, 3}));
  EXPECT_EQ(x.view(-1).sizes(), (Shape{6}));
  EXPECT_EQ(zeros(5).sizes(), (Shape{5}));
  EXPECT_EQ(x.flip(1).to_vector<float>(), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(nabla::std(x, 1).sizes(), (Shape{2}));
  // an int64 variable too, not only literals
  int64_t d = 1;
  EXPECT_EQ(x.amax(d).to_vector<float>(), (std::vector<float>{2, 5}));
}

}  // namespace
