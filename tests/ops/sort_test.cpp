// OpInfo entries for sort, argsort and topk. Samples are continuous random
// values, so there are no ties and the gradient (scattered back through the
// indices) is well defined; ties, NaN and integer dtypes get focused tests.
#include <limits>

#include "ops/index_test_util.h"

namespace nabla::testing {
namespace {

OpInfo entry(const std::string& name, const std::string& op, std::function<Tensors(const Tensors&)> run,
             std::function<std::vector<Tensors>()> samples, std::function<Tensors(const Tensors&)> reference) {
  return make_op_info(name, op, std::move(run), std::move(samples), std::move(reference), {0});
}

// For each row along dim: the positions of the first k elements in order
// (descending or not), by a stable insertion sort; keep_order = true lists the
// chosen positions in input order instead (topk with sorted = false).
Tensors ref_select(const Tensor& x, int64_t dim, int64_t k, bool descending, bool keep_order = false) {
  auto xv = values(x);
  if (x.dim() == 0) return {x.clone(), ints({0}, {})};
  int64_t n = x.sizes()[dim];
  Shape s = x.sizes();
  s[dim] = k;
  std::vector<double> vals(static_cast<std::size_t>(numel_of(s))), idx(vals.size());
  Shape rows = x.sizes();
  rows[dim] = 1;
  for (int64_t r = 0; r < numel_of(rows); ++r) {
    auto p = unravel(r, rows);
    std::vector<int64_t> order;
    for (int64_t i = 0; i < n; ++i) {
      p[dim] = i;
      double v = xv[ravel(p, x.sizes())];
      std::size_t at = order.size();
      auto value_at = [&](int64_t j) { auto q = p; q[dim] = j; return xv[ravel(q, x.sizes())]; };
      while (at > 0 && (descending ? value_at(order[at - 1]) < v : value_at(order[at - 1]) > v)) --at;
      order.insert(order.begin() + static_cast<int64_t>(at), i);
    }
    order.resize(static_cast<std::size_t>(k));
    if (keep_order) std::sort(order.begin(), order.end());
    for (int64_t j = 0; j < k; ++j) {
      auto q = p;
      q[dim] = order[j];
      double v = xv[ravel(q, x.sizes())];
      q[dim] = j;
      vals[ravel(q, s)] = v;
      idx[ravel(q, s)] = static_cast<double>(order[j]);
    }
  }
  return {from_values(vals, s), from_values(idx, s, kInt64)};
}

Tensors pair(const std::pair<Tensor, Tensor>& p) { return {p.first, p.second}; }

NABLA_OP_INFO(with_squared(entry(
    "sort", "sort", [](const Tensors& in) { return pair(sort(in[0])); },
    [] { return std::vector<Tensors>{{sample({3, 5}, -2, 2, 1)}, {sample({2, 3, 4}, -2, 2, 2)}, {sample({}, -2, 2, 3)}}; },
    [](const Tensors& in) { return ref_select(in[0], in[0].dim() - 1, in[0].dim() ? in[0].sizes().back() : 1, false); })));
NABLA_OP_INFO(entry(
    "sort_dim0_descending", "sort", [](const Tensors& in) { return pair(in[0].sort(0, true)); },
    [] { return std::vector<Tensors>{{sample({4, 3}, -2, 2, 4)}, {sample({3, 2, 2}, -2, 2, 5)}}; },
    [](const Tensors& in) { return ref_select(in[0], 0, in[0].sizes()[0], true); }));
OpInfo argsort_entry() {
  OpInfo info = entry(
      "argsort", "argsort", [](const Tensors& in) { return Tensors{argsort(in[0], 1, true)}; },
      [] { return std::vector<Tensors>{{sample({3, 4}, -2, 2, 6)}, {sample({2, 5, 2}, -2, 2, 7)}}; },
      [](const Tensors& in) { return Tensors{ref_select(in[0], 1, in[0].sizes()[1], true)[1]}; });
  info.differentiable = false;  // indices only
  return info;
}
NABLA_OP_INFO(argsort_entry());
NABLA_OP_INFO(with_squared(entry(
    "topk_largest", "topk", [](const Tensors& in) { return pair(topk(in[0], 2)); },
    [] { return std::vector<Tensors>{{sample({3, 5}, -2, 2, 8)}, {sample({2, 3, 4}, -2, 2, 9)}}; },
    [](const Tensors& in) { return ref_select(in[0], in[0].dim() - 1, 2, true); })));
NABLA_OP_INFO(entry(
    "topk_smallest_dim0", "topk", [](const Tensors& in) { return pair(in[0].topk(3, 0, false)); },
    [] { return std::vector<Tensors>{{sample({4, 3}, -2, 2, 10)}, {sample({3, 2, 2}, -2, 2, 11)}}; },
    [](const Tensors& in) { return ref_select(in[0], 0, 3, false); }));
NABLA_OP_INFO(entry(
    "topk_unsorted", "topk", [](const Tensors& in) { return pair(topk(in[0], 3, -1, true, false)); },
    [] { return std::vector<Tensors>{{sample({3, 6}, -2, 2, 12)}}; },
    [](const Tensors& in) { return ref_select(in[0], 1, 3, true, /*keep_order=*/true); }));

// ---- focused tests -------------------------------------------------------------------

TEST(Sort, StableOnTies) {
  Tensor x = tensor({2.0, 1.0, 2.0, 1.0, 3.0});
  auto [v, i] = sort(x);
  EXPECT_EQ(v.to_vector<double>(), (std::vector<double>{1, 1, 2, 2, 3}));
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 0, 2, 4}));
  auto [vd, id] = sort(x, 0, true, true);
  EXPECT_EQ(id.to_vector<int64_t>(), (std::vector<int64_t>{4, 0, 2, 1, 3}));
  EXPECT_EQ(topk(x, 2, 0, false).second.to_vector<int64_t>(), (std::vector<int64_t>{1, 3}));
}

TEST(Sort, NanIsLargest) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = tensor({1.0, nan, -1.0}, dtype(kFloat64));
  EXPECT_EQ(sort(x).second.to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(sort(x, -1, true).second.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(topk(x, 1).second.item<int64_t>(), 1);
}

TEST(Sort, IntegersAndHalf) {
  Tensor x = ints({3, -1, 2});
  auto [v, i] = sort(x, 0, true);
  EXPECT_EQ(v.dtype(), kInt64);
  EXPECT_EQ(v.to_vector<int64_t>(), (std::vector<int64_t>{3, 2, -1}));
  Tensor h = tensor({0.5, -2.0, 1.0}).to(kBFloat16);
  auto [hv, hi] = topk(h, 2);
  EXPECT_EQ(hv.dtype(), kBFloat16);
  EXPECT_EQ(hv.to_vector<double>(), (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(hi.to_vector<int64_t>(), (std::vector<int64_t>{2, 0}));
}

TEST(Sort, EmptyAndZeroK) {
  auto [v, i] = topk(sample({3, 4}), 0, 1);
  EXPECT_EQ(v.sizes(), (Shape{3, 0}));
  auto [sv, si] = sort(sample({0, 4}), 0);
  EXPECT_EQ(si.sizes(), (Shape{0, 4}));
}

TEST(Sort, ManyRowsSplitAcrossThreads) {
  // Enough rows that the kernel splits them over the thread pool.
  Tensor x = sample({600, 50}, -2, 2, 5);
  auto [v, i] = sort(x, 1, true);
  auto xv = values(x), vv = values(v);
  auto iv = int_values(i);
  for (int64_t r = 0; r < 600; ++r) {
    for (int64_t c = 0; c < 50; ++c) {
      ASSERT_EQ(vv[r * 50 + c], xv[r * 50 + iv[r * 50 + c]]);
      if (c) ASSERT_GE(vv[r * 50 + c - 1], vv[r * 50 + c]);
    }
  }
  EXPECT_TRUE(compare(topk(x, 5, 1).first, v.narrow(1, 0, 5), 0, 0).empty());
}

TEST(Sort, IndicesCarryNoGradient) {
  Tensor x = sample({4}).requires_grad_();
  auto [v, i] = sort(x);
  EXPECT_TRUE(v.requires_grad());
  EXPECT_FALSE(i.requires_grad());
}

}  // namespace
}  // namespace nabla::testing
