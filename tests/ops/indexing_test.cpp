// OpInfo entries for the indexing ops (gather, scatter, scatter_value,
// scatter_add, index_select, index_add, take, masked_fill, masked_select,
// one_hot), with references written as naive loops over multi-indices; and
// focused tests for what the table can't express (int32 indices, duplicates,
// Tensor::masked_fill agreeing with masked_fill).
#include "ops/index_test_util.h"

namespace nabla::testing {
namespace {

OpInfo indexing_entry(const std::string& name, const std::string& op, std::function<Tensors(const Tensors&)> run,
                      std::function<std::vector<Tensors>()> samples, std::function<Tensors(const Tensors&)> reference,
                      std::vector<int> grad_inputs = {0}) {
  return make_op_info(name, op, std::move(run), std::move(samples), std::move(reference), grad_inputs);
}

// ---- references ---------------------------------------------------------------

Tensor ref_gather(const Tensor& x, int64_t dim, const Tensor& index) {
  auto xv = values(x);
  auto iv = int_values(index);
  std::vector<double> out(iv.size());
  for (std::size_t i = 0; i < iv.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), index.sizes());
    p[dim] = iv[i];
    out[i] = xv[ravel(p, x.sizes())];
  }
  return from_values(out, index.sizes());
}

// out = x; out[p with p[dim] := index[p]] (=|+=) src[p]
Tensor ref_scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  auto out = values(x);
  auto iv = int_values(index);
  auto sv = values(src);
  for (std::size_t i = 0; i < iv.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), index.sizes());
    double s = src.dim() == 0 ? sv[0] : sv[ravel(p, src.sizes())];
    p[dim] = iv[i];
    double& t = out[ravel(p, x.sizes())];
    t = add ? t + s : s;
  }
  return from_values(out, x.sizes());
}

Tensor ref_index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  auto xv = values(x);
  auto iv = int_values(index);
  Shape s = x.sizes();
  s[dim] = static_cast<int64_t>(iv.size());
  std::vector<double> out(static_cast<std::size_t>(numel_of(s)));
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), s);
    p[dim] = iv[p[dim]];
    out[i] = xv[ravel(p, x.sizes())];
  }
  return from_values(out, s);
}

Tensor ref_index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, double alpha) {
  auto out = values(x);
  auto iv = int_values(index);
  auto sv = values(src);
  for (std::size_t i = 0; i < sv.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), src.sizes());
    p[dim] = iv[p[dim]];
    out[ravel(p, x.sizes())] += alpha * sv[i];
  }
  return from_values(out, x.sizes());
}

Tensor ref_take(const Tensor& x, const Tensor& index) {
  auto xv = values(x);
  auto iv = int_values(index);
  std::vector<double> out;
  int64_t n = static_cast<int64_t>(xv.size());
  for (int64_t i : iv) out.push_back(xv[i < 0 ? i + n : i]);
  return from_values(out, index.sizes());
}

Tensor ref_masked_select(const Tensor& x, const Tensor& mask) {
  // Broadcast by walking the broadcast shape and reading both operands.
  Tensor xb = ref_binary(x, mask, [](double a, double) { return a; });
  Tensor mb = ref_binary(x, mask, [](double, double m) { return m; });
  auto xv = values(xb), mv = values(mb);
  std::vector<double> out;
  for (std::size_t i = 0; i < xv.size(); ++i)
    if (mv[i] != 0) out.push_back(xv[i]);
  return from_values(out, {static_cast<int64_t>(out.size())});
}

Tensor ref_one_hot(const Tensor& index, int64_t classes) {
  auto iv = int_values(index);
  if (classes < 0) classes = *std::max_element(iv.begin(), iv.end()) + 1;
  std::vector<double> out(iv.size() * static_cast<std::size_t>(classes), 0.0);
  for (std::size_t i = 0; i < iv.size(); ++i) out[i * classes + iv[i]] = 1.0;
  Shape s = index.sizes();
  s.push_back(classes);
  return from_values(out, s, kInt64);
}

// ---- gather ---------------------------------------------------------------------

NABLA_OP_INFO(with_squared(indexing_entry(
    "gather_dim1", "gather", [](const Tensors& in) { return Tensors{gather(in[0], 1, in[1])}; },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 1), random_index({3, 6}, 4, 11)},
                                  {sample({3, 4}, -2, 2, 2), random_index({2, 2}, 4, 12)}};
    },
    [](const Tensors& in) { return Tensors{ref_gather(in[0], 1, in[1])}; })));
NABLA_OP_INFO(indexing_entry(
    "gather_dim0_neg", "gather", [](const Tensors& in) { return Tensors{gather(in[0], -3, in[1])}; },
    [] {
      return std::vector<Tensors>{{sample({4, 3, 2}, -2, 2, 3), random_index({5, 2, 2}, 4, 13)}};
    },
    [](const Tensors& in) { return Tensors{ref_gather(in[0], 0, in[1])}; }));
NABLA_OP_INFO(indexing_entry(
    "gather_scalar", "gather", [](const Tensors& in) { return Tensors{gather(in[0], 0, in[1])}; },
    [] {
      return std::vector<Tensors>{{sample({}, -2, 2, 4), ints({0}, {})}};
    },
    [](const Tensors& in) { return Tensors{in[0].clone()}; }));

// ---- scatter (tensor src and value), scatter_add --------------------------------

NABLA_OP_INFO(with_squared(indexing_entry(
    "scatter_dim1", "scatter", [](const Tensors& in) { return Tensors{scatter(in[0], 1, in[1], in[2])}; },
    [] {
      return std::vector<Tensors>{{sample({3, 5}, -2, 2, 1), unique_index({3, 3}, 1, 5, 21), sample({3, 4}, -2, 2, 2)},
                                  {sample({4, 5}, -2, 2, 3), unique_index({2, 5}, 1, 5, 22), sample({2, 5}, -2, 2, 4)}};
    },
    [](const Tensors& in) { return Tensors{ref_scatter(in[0], 1, in[1], in[2], false)}; }, {0, 2})));
NABLA_OP_INFO(indexing_entry(
    "scatter_dim0", "scatter", [](const Tensors& in) { return Tensors{scatter(in[0], 0, in[1], in[2])}; },
    [] {
      return std::vector<Tensors>{
          {sample({4, 3, 2}, -2, 2, 5), unique_index({3, 3, 2}, 0, 4, 23), sample({3, 3, 2}, -2, 2, 6)}};
    },
    [](const Tensors& in) { return Tensors{ref_scatter(in[0], 0, in[1], in[2], false)}; }, {0, 2}));
NABLA_OP_INFO(with_squared(indexing_entry(
    "scatter_value", "scatter_value", [](const Tensors& in) { return Tensors{scatter(in[0], -1, in[1], Scalar(1.5))}; },
    [] {
      return std::vector<Tensors>{{sample({3, 5}, -2, 2, 7), random_index({3, 4}, 5, 24)}};
    },
    [](const Tensors& in) { return Tensors{ref_scatter(in[0], 1, in[1], tensor({1.5}).reshape({}), false)}; })));
NABLA_OP_INFO(with_squared(indexing_entry(
    "scatter_add_dim1", "scatter_add", [](const Tensors& in) { return Tensors{scatter_add(in[0], 1, in[1], in[2])}; },
    [] {
      // Duplicate targets: they must add up.
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 8), random_index({3, 6}, 4, 25), sample({3, 6}, -2, 2, 9)},
                                  {sample({3, 4}, -2, 2, 10), random_index({2, 3}, 4, 26), sample({3, 5}, -2, 2, 11)}};
    },
    [](const Tensors& in) { return Tensors{ref_scatter(in[0], 1, in[1], in[2], true)}; }, {0, 2})));
NABLA_OP_INFO(indexing_entry(
    "scatter_add_dim0", "scatter_add", [](const Tensors& in) { return Tensors{scatter_add(in[0], 0, in[1], in[2])}; },
    [] {
      return std::vector<Tensors>{
          {sample({2, 3, 2}, -2, 2, 12), random_index({4, 3, 2}, 2, 27), sample({4, 3, 2}, -2, 2, 13)}};
    },
    [](const Tensors& in) { return Tensors{ref_scatter(in[0], 0, in[1], in[2], true)}; }, {0, 2}));

// ---- index_select, index_add -------------------------------------------------------

NABLA_OP_INFO(with_squared(indexing_entry(
    "index_select_dim0", "index_select", [](const Tensors& in) { return Tensors{index_select(in[0], 0, in[1])}; },
    [] {
      return std::vector<Tensors>{{sample({4, 3}, -2, 2, 1), ints({3, 0, 3, 1, 2})},
                                  {sample({3, 2, 2}, -2, 2, 2), ints({2})},
                                  {sample({3, 2}, -2, 2, 3), ints({1}, {})}};
    },
    [](const Tensors& in) {
      Tensor idx = in[1].dim() == 0 ? in[1].reshape({1}) : in[1];
      return Tensors{ref_index_select(in[0], 0, idx)};
    })));
NABLA_OP_INFO(indexing_entry(
    "index_select_dim_last", "index_select", [](const Tensors& in) { return Tensors{index_select(in[0], -1, in[1])}; },
    [] {
      return std::vector<Tensors>{{sample({2, 3, 4}, -2, 2, 4), random_index({6}, 4, 31)}};
    },
    [](const Tensors& in) { return Tensors{ref_index_select(in[0], 2, in[1])}; }));
NABLA_OP_INFO(indexing_entry(
    "index_add_dim0", "index_add", [](const Tensors& in) { return Tensors{index_add(in[0], 0, in[1], in[2])}; },
    [] {
      return std::vector<Tensors>{{sample({4, 3}, -2, 2, 5), ints({3, 0, 3}), sample({3, 3}, -2, 2, 6)},
                                  {sample({2, 2, 3}, -2, 2, 7), ints({1}), sample({1, 2, 3}, -2, 2, 8)}};
    },
    [](const Tensors& in) { return Tensors{ref_index_add(in[0], 0, in[1], in[2], 1.0)}; }, {0, 2}));
NABLA_OP_INFO(with_squared(indexing_entry(
    "index_add_dim1_alpha", "index_add",
    [](const Tensors& in) { return Tensors{index_add(in[0], 1, in[1], in[2], 2.5)}; },
    [] {
      return std::vector<Tensors>{
          {sample({3, 4, 2}, -2, 2, 9), random_index({5}, 4, 32), sample({3, 5, 2}, -2, 2, 10)}};
    },
    [](const Tensors& in) { return Tensors{ref_index_add(in[0], 1, in[1], in[2], 2.5)}; }, {0, 2})));

// ---- take ----------------------------------------------------------------------

NABLA_OP_INFO(with_squared(indexing_entry(
    "take", "take", [](const Tensors& in) { return Tensors{take(in[0], in[1])}; },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 1), random_index({2, 5}, 12, 41, -12)},
                                  {sample({2, 3, 2}, -2, 2, 2), ints({11, 0, -1, 5})},
                                  {sample({5}, -2, 2, 3), ints({2}, {})}};
    },
    [](const Tensors& in) { return Tensors{ref_take(in[0], in[1])}; })));

// ---- masked_fill, masked_select ------------------------------------------------------

NABLA_OP_INFO(indexing_entry(
    "masked_fill_scalar", "masked_fill",
    [](const Tensors& in) { return Tensors{masked_fill(in[0], in[1], Scalar(-0.75))}; },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 1), mask_of({1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1}, {3, 4})},
                                  {sample({2, 3, 2}, -2, 2, 2), mask_of({0, 1}, {2})}};  // mask broadcasts
    },
    [](const Tensors& in) {
      return Tensors{ref_binary(in[0], in[1], [](double x, double m) { return m != 0 ? -0.75 : x; })};
    }));
NABLA_OP_INFO(with_squared(indexing_entry(
    "masked_fill_tensor_value", "masked_fill",
    [](const Tensors& in) { return Tensors{masked_fill(in[0], in[1], in[2])}; },
    [] {
      return std::vector<Tensors>{
          {sample({3, 4}, -2, 2, 3), mask_of({1, 0, 1, 1}, {1, 4}), sample({}, -2, 2, 4)}};
    },
    [](const Tensors& in) {
      double v = values(in[2])[0];
      return Tensors{ref_binary(in[0], in[1], [v](double x, double m) { return m != 0 ? v : x; })};
    },
    {0, 2})));
NABLA_OP_INFO(with_squared(indexing_entry(
    "masked_select", "masked_select", [](const Tensors& in) { return Tensors{masked_select(in[0], in[1])}; },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 5), mask_of({1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1}, {3, 4})},
                                  {sample({2, 3}, -2, 2, 6), mask_of({1, 0}, {2, 1})},  // broadcasts
                                  {sample({4}, -2, 2, 7), mask_of({0, 0, 0, 0}, {4})},  // nothing selected
                                  {sample({3}, -2, 2, 8), mask_of({1, 0, 1, 1, 1, 0}, {2, 3})}};  // x broadcasts
    },
    [](const Tensors& in) { return Tensors{ref_masked_select(in[0], in[1])}; })));

// ---- one_hot -----------------------------------------------------------------------

OpInfo one_hot_entry(const std::string& name, int64_t classes) {
  OpInfo info = indexing_entry(
      name, "one_hot", [classes](const Tensors& in) { return Tensors{one_hot(in[0], classes)}; },
      [] {
        return std::vector<Tensors>{{random_index({3, 4}, 5, 51)}, {ints({3, 0, 1})}, {ints({2}, {})}};
      },
      [classes](const Tensors& in) { return Tensors{ref_one_hot(in[0], classes)}; });
  info.differentiable = false;
  return info;
}
NABLA_OP_INFO(one_hot_entry("one_hot_explicit", 6));
NABLA_OP_INFO(one_hot_entry("one_hot_inferred", -1));

// ---- focused tests -----------------------------------------------------------------

TEST(Indexing, Int32IndicesAreAccepted) {
  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  Tensor i32 = tensor(std::vector<int32_t>{2, 0}, {2});
  EXPECT_EQ(index_select(x, 1, i32).to_vector<double>(), (std::vector<double>{3, 1, 6, 4}));
  EXPECT_EQ(gather(x, 1, tensor(std::vector<int32_t>{1, 1, 0, 2}, {2, 2})).to_vector<double>(),
            (std::vector<double>{2, 2, 4, 6}));
  EXPECT_EQ(take(x, tensor(std::vector<int32_t>{-1}, {1})).item<double>(), 6.0);
  EXPECT_EQ(one_hot(tensor(std::vector<int32_t>{1}, {1})).to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
}

TEST(Indexing, MaskedFillMethodMatchesFunction) {
  Tensor x = sample({2, 3});
  Tensor m = mask_of({1, 0, 1}, {3});
  EXPECT_TRUE(compare(x.masked_fill(m, 2.0), masked_fill(x, m, Scalar(2.0)), 0, 0).empty());
  EXPECT_ERROR((void)x.masked_fill(m.to(kFloat32), 2.0), "masked_fill", "bool", "float32");
}

TEST(Indexing, GradientsReachOnlyDataInputs) {
  Tensor x = sample({3, 4}).requires_grad_();
  Tensor idx = random_index({3, 2}, 4, 7);
  Tensor y = gather(x, 1, idx).sum();
  y.backward();
  EXPECT_FALSE(idx.requires_grad());
  // Each gathered position gets 1 per time it was picked.
  std::vector<double> expected(12, 0.0);
  auto iv = int_values(idx);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 2; ++c) expected[r * 4 + iv[r * 2 + c]] += 1;
  EXPECT_EQ(x.grad().to_vector<double>(), expected);
}

TEST(Indexing, WorksOnReducedFloat) {
  Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}}).to(kFloat16);
  EXPECT_EQ(index_select(x, 0, ints({1})).to_vector<double>(), (std::vector<double>{3, 4}));
  EXPECT_EQ(index_select(x, 0, ints({1})).dtype(), kFloat16);
  EXPECT_EQ(scatter_add(x, 0, ints({1, 1}, {1, 2}), x).to_vector<double>(), (std::vector<double>{1, 2, 4, 6}));
}

TEST(IndexingFamily, EveryOpHasAnEntry) {
  // The table-wide coverage test prints only the first names it misses; this
  // pins down this family's ops.
  std::set<std::string> covered;
  for (const OpInfo& info : op_infos()) covered.insert(info.covers.begin(), info.covers.end());
  for (const char* op : {"gather", "scatter", "scatter_value", "scatter_add", "index_select", "index_add", "take",
                         "masked_fill", "masked_select", "one_hot", "cat", "stack", "split", "split_with_sizes",
                         "chunk", "repeat", "tile", "flip", "roll", "tril", "triu", "sort", "argsort", "topk"}) {
    EXPECT_TRUE(find_op(op)) << op << " is not in the op table";
    EXPECT_TRUE(covered.count(op)) << op << " has no OpInfo entry";
  }
}

}  // namespace
}  // namespace nabla::testing
