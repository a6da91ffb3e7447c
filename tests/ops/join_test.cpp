// OpInfo entries for joining and rearranging: cat, stack, split,
// split_with_sizes, chunk, repeat, tile, flip, roll, tril, triu. References
// compute each output element from its multi-index with naive loops.
#include "ops/index_test_util.h"

namespace nabla::testing {
namespace {

OpInfo join_entry(const std::string& name, const std::string& op, std::function<Tensors(const Tensors&)> run,
                  std::function<std::vector<Tensors>()> samples, std::function<Tensors(const Tensors&)> reference) {
  return make_op_info(name, op, std::move(run), std::move(samples), std::move(reference));
}

std::vector<Tensor> vec(const Tensors& in) { return std::vector<Tensor>(in.begin(), in.end()); }
Tensors list(const std::vector<Tensor>& v) { return Tensors(v.begin(), v.end()); }

// ---- references -------------------------------------------------------------------

Tensor ref_cat(const Tensors& in, int64_t dim) {
  std::vector<Tensor> parts;
  for (const Tensor& t : in)
    if (!(t.dim() == 1 && t.numel() == 0)) parts.push_back(t);
  Shape s = parts[0].sizes();
  s[dim] = 0;
  for (const Tensor& t : parts) s[dim] += t.sizes()[dim];
  std::vector<double> out(static_cast<std::size_t>(numel_of(s)));
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), s);
    for (const Tensor& t : parts) {
      if (p[dim] < t.sizes()[dim]) {
        out[i] = values(t)[ravel(p, t.sizes())];
        break;
      }
      p[dim] -= t.sizes()[dim];
    }
  }
  return from_values(out, s);
}

Tensor ref_stack(const Tensors& in, int64_t dim) {
  Shape s = in[0].sizes();
  s.insert(s.begin() + dim, static_cast<int64_t>(in.size()));
  std::vector<double> out(static_cast<std::size_t>(numel_of(s)));
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), s);
    int64_t which = p[dim];
    p.erase(p.begin() + dim);
    out[i] = values(in[which])[ravel(p, in[which].sizes())];
  }
  return from_values(out, s);
}

// Pieces of x along dim with the given lengths.
Tensors ref_pieces(const Tensor& x, int64_t dim, const std::vector<int64_t>& lengths) {
  Tensors r;
  int64_t at = 0;
  auto xv = values(x);
  for (int64_t len : lengths) {
    Shape s = x.sizes();
    s[dim] = len;
    std::vector<double> out(static_cast<std::size_t>(numel_of(s)));
    for (std::size_t i = 0; i < out.size(); ++i) {
      auto p = unravel(static_cast<int64_t>(i), s);
      p[dim] += at;
      out[i] = xv[ravel(p, x.sizes())];
    }
    r.push_back(from_values(out, s));
    at += len;
  }
  return r;
}

Tensor ref_repeat(const Tensor& x, const std::vector<int64_t>& reps) {
  std::size_t lead = reps.size() - static_cast<std::size_t>(x.dim());
  Shape s;
  for (std::size_t d = 0; d < reps.size(); ++d) s.push_back(reps[d] * (d < lead ? 1 : x.sizes()[d - lead]));
  auto xv = values(x);
  std::vector<double> out(static_cast<std::size_t>(numel_of(s)));
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), s);
    std::vector<int64_t> q(p.begin() + static_cast<int64_t>(lead), p.end());
    for (std::size_t d = 0; d < q.size(); ++d) q[d] %= x.sizes()[d];
    out[i] = xv[ravel(q, x.sizes())];
  }
  return from_values(out, s);
}

Tensor ref_flip(const Tensor& x, const std::vector<int64_t>& dims) {
  auto xv = values(x);
  std::vector<double> out(xv.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), x.sizes());
    for (int64_t d : dims) p[d] = x.sizes()[d] - 1 - p[d];
    out[i] = xv[ravel(p, x.sizes())];
  }
  return from_values(out, x.sizes());
}

// out[p] = x[p - shift (mod n)] along each rolled dim.
Tensor ref_roll(const Tensor& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
  auto xv = values(x);
  std::vector<double> out(xv.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), x.sizes());
    for (std::size_t k = 0; k < dims.size(); ++k) {
      int64_t n = x.sizes()[dims[k]];
      p[dims[k]] = ((p[dims[k]] - shifts[k]) % n + n) % n;
    }
    out[i] = xv[ravel(p, x.sizes())];
  }
  return from_values(out, x.sizes());
}

Tensor ref_triangle(const Tensor& x, int64_t k, bool lower) {
  auto xv = values(x);
  int64_t nd = x.dim();
  for (std::size_t i = 0; i < xv.size(); ++i) {
    auto p = unravel(static_cast<int64_t>(i), x.sizes());
    int64_t r = p[nd - 2], c = p[nd - 1];
    if (lower ? c - r > k : c - r < k) xv[i] = 0;
  }
  return from_values(xv, x.sizes());
}

// ---- cat, stack ------------------------------------------------------------------------

NABLA_OP_INFO(with_squared(join_entry(
    "cat_dim0", "cat", [](const Tensors& in) { return Tensors{cat(vec(in), 0)}; },
    [] {
      return std::vector<Tensors>{{sample({2, 3}, -2, 2, 1), sample({4, 3}, -2, 2, 2), sample({1, 3}, -2, 2, 3)},
                                  {sample({3}, -2, 2, 4)},
                                  {sample({2, 2}, -2, 2, 5), sample({0, 2}, -2, 2, 6), sample({1, 2}, -2, 2, 7)}};
    },
    [](const Tensors& in) { return Tensors{ref_cat(in, 0)}; })));
NABLA_OP_INFO(join_entry(
    "cat_dim_last", "cat", [](const Tensors& in) { return Tensors{cat(vec(in), -1)}; },
    [] {
      return std::vector<Tensors>{{sample({2, 3, 1}, -2, 2, 1), sample({2, 3, 4}, -2, 2, 2)},
                                  // A 1-D empty tensor is skipped, whatever the others' shape.
                                  {sample({2, 2}, -2, 2, 3), sample({0}, -2, 2, 4), sample({2, 3}, -2, 2, 5)}};
    },
    [](const Tensors& in) { return Tensors{ref_cat(in, in[0].dim() - 1)}; }));
NABLA_OP_INFO(with_squared(join_entry(
    "stack_dim0", "stack", [](const Tensors& in) { return Tensors{stack(vec(in), 0)}; },
    [] {
      return std::vector<Tensors>{{sample({2, 3}, -2, 2, 1), sample({2, 3}, -2, 2, 2), sample({2, 3}, -2, 2, 3)},
                                  {sample({}, -2, 2, 4), sample({}, -2, 2, 5)}};
    },
    [](const Tensors& in) { return Tensors{ref_stack(in, 0)}; })));
NABLA_OP_INFO(join_entry(
    "stack_dim_last", "stack", [](const Tensors& in) { return Tensors{stack(vec(in), -1)}; },
    [] {
      return std::vector<Tensors>{{sample({2, 3}, -2, 2, 6), sample({2, 3}, -2, 2, 7)}};
    },
    [](const Tensors& in) { return Tensors{ref_stack(in, 2)}; }));

// ---- split, chunk --------------------------------------------------------------------

NABLA_OP_INFO(with_squared(join_entry(
    "split_size", "split", [](const Tensors& in) { return list(split(in[0], 2, 1)); },
    [] {
      return std::vector<Tensors>{{sample({3, 5}, -2, 2, 1)}, {sample({2, 4, 2}, -2, 2, 2)}};
    },
    [](const Tensors& in) {
      int64_t n = in[0].sizes()[1];
      std::vector<int64_t> lens;
      for (int64_t at = 0; at < n; at += 2) lens.push_back(std::min<int64_t>(2, n - at));
      return ref_pieces(in[0], 1, lens);
    })));
NABLA_OP_INFO(join_entry(
    "split_sizes", "split_with_sizes",
    [](const Tensors& in) {
      return list(split(in[0], {1, 0, 3}, 0));
    },
    [] {
      return std::vector<Tensors>{{sample({4, 3}, -2, 2, 3)}};
    },
    [](const Tensors& in) {
      return ref_pieces(in[0], 0, {1, 0, 3});
    }));
NABLA_OP_INFO(with_squared(join_entry(
    "chunk", "chunk", [](const Tensors& in) { return list(chunk(in[0], 3, -1)); },
    [] {
      return std::vector<Tensors>{{sample({2, 7}, -2, 2, 4)}, {sample({3, 6}, -2, 2, 5)}};
    },
    [](const Tensors& in) {
      int64_t n = in[0].sizes()[1], size = (n + 2) / 3;
      std::vector<int64_t> lens;
      for (int64_t at = 0; at < n; at += size) lens.push_back(std::min(size, n - at));
      return ref_pieces(in[0], 1, lens);
    })));
NABLA_OP_INFO(join_entry(
    "chunk_fewer", "chunk", [](const Tensors& in) { return list(chunk(in[0], 4, 0)); },
    [] {
      return std::vector<Tensors>{{sample({6, 2}, -2, 2, 6)}};
    },  // 6 in chunks of 2: only 3 pieces
    [](const Tensors& in) {
      return ref_pieces(in[0], 0, {2, 2, 2});
    }));

// ---- repeat, tile ----------------------------------------------------------------------

NABLA_OP_INFO(with_squared(join_entry(
    "repeat", "repeat",
    [](const Tensors& in) {
      return Tensors{repeat(in[0], {2, 1, 3})};
    },
    [] {
      return std::vector<Tensors>{{sample({2, 3}, -2, 2, 1)}, {sample({3, 1, 2}, -2, 2, 2)}};
    },
    [](const Tensors& in) {
      return Tensors{ref_repeat(in[0], {2, 1, 3})};
    })));
NABLA_OP_INFO(join_entry(
    "repeat_scalar", "repeat", [](const Tensors& in) { return Tensors{repeat(in[0], {3})}; },
    [] {
      return std::vector<Tensors>{{sample({}, -2, 2, 3)}, {sample({2}, -2, 2, 4)}};
    },
    [](const Tensors& in) { return Tensors{ref_repeat(in[0].dim() ? in[0] : in[0].reshape({1}), {3})}; }));
NABLA_OP_INFO(join_entry(
    "tile", "tile", [](const Tensors& in) { return Tensors{tile(in[0], {2})}; },
    [] {
      return std::vector<Tensors>{{sample({2, 3}, -2, 2, 5)}, {sample({3}, -2, 2, 6)}};
    },
    [](const Tensors& in) {
      std::vector<int64_t> reps(static_cast<std::size_t>(in[0].dim()), 1);
      reps.back() = 2;
      return Tensors{ref_repeat(in[0], reps)};
    }));

// ---- flip, roll ------------------------------------------------------------------------

NABLA_OP_INFO(with_squared(join_entry(
    "flip", "flip",
    [](const Tensors& in) {
      return Tensors{flip(in[0], {0, -1})};
    },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 1)}, {sample({2, 3, 2}, -2, 2, 2)}};
    },
    [](const Tensors& in) {
      return Tensors{ref_flip(in[0], {0, in[0].dim() - 1})};
    })));
NABLA_OP_INFO(join_entry(
    "flip_middle", "flip", [](const Tensors& in) { return Tensors{in[0].flip({1})}; },
    [] {
      return std::vector<Tensors>{{sample({2, 3, 4}, -2, 2, 3)}};
    },
    [](const Tensors& in) { return Tensors{ref_flip(in[0], {1})}; }));
NABLA_OP_INFO(with_squared(join_entry(
    "roll_dims", "roll",
    [](const Tensors& in) {
      return Tensors{roll(in[0], {1, -5}, {0, 1})};
    },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 4)}, {sample({2, 3, 2}, -2, 2, 5)}};
    },
    [](const Tensors& in) {
      return Tensors{ref_roll(in[0], {1, -5}, {0, 1})};
    })));
NABLA_OP_INFO(join_entry(
    "roll_flat", "roll", [](const Tensors& in) { return Tensors{roll(in[0], {3})}; },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 6)}, {sample({5}, -2, 2, 7)}};
    },
    [](const Tensors& in) {
      Tensor flat = in[0].reshape({-1});
      return Tensors{ref_roll(flat, {3}, {0}).reshape(in[0].sizes())};
    }));

// ---- tril, triu ------------------------------------------------------------------------

NABLA_OP_INFO(with_squared(join_entry(
    "tril", "tril", [](const Tensors& in) { return Tensors{tril(in[0])}; },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 1)}, {sample({2, 4, 3}, -2, 2, 2)}};
    },
    [](const Tensors& in) { return Tensors{ref_triangle(in[0], 0, true)}; })));
NABLA_OP_INFO(join_entry(
    "tril_diagonal", "tril", [](const Tensors& in) { return Tensors{tril(in[0], -1)}; },
    [] {
      return std::vector<Tensors>{{sample({4, 4}, -2, 2, 3)}};
    },
    [](const Tensors& in) { return Tensors{ref_triangle(in[0], -1, true)}; }));
NABLA_OP_INFO(join_entry(
    "triu", "triu", [](const Tensors& in) { return Tensors{triu(in[0])}; },
    [] {
      return std::vector<Tensors>{{sample({3, 4}, -2, 2, 4)}, {sample({2, 4, 3}, -2, 2, 5)}};
    },
    [](const Tensors& in) { return Tensors{ref_triangle(in[0], 0, false)}; }));
NABLA_OP_INFO(join_entry(
    "triu_diagonal", "triu", [](const Tensors& in) { return Tensors{triu(in[0], 2)}; },
    [] {
      return std::vector<Tensors>{{sample({3, 5}, -2, 2, 6)}};
    },
    [](const Tensors& in) { return Tensors{ref_triangle(in[0], 2, false)}; }));

// ---- focused tests -----------------------------------------------------------------------

TEST(Join, CatPromotesDtypes) {
  Tensor a = ints({1, 2}), b = tensor({0.5});
  Tensor r = cat({a, b});
  EXPECT_EQ(r.dtype(), kFloat32);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{1, 2, 0.5}));
}

TEST(Join, SplitPiecesAreViews) {
  Tensor x = sample({4, 2});
  auto pieces = split(x, 2);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[1].impl()->storage, x.impl()->storage);
}

TEST(Join, RepeatAndRollCopy) {
  // Even when nothing moves, the result must not alias the input.
  Tensor x = sample({2, 2});
  EXPECT_NE(repeat(x, {1, 1}).impl()->storage, x.impl()->storage);
  EXPECT_NE(roll(x, {2}, {0}).impl()->storage, x.impl()->storage);
}

TEST(Join, TrilWorksOnInts) {
  Tensor x = ints({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(tril(x).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 3, 4}));
  EXPECT_EQ(triu(x, 1).dtype(), kInt64);
}

}  // namespace
}  // namespace nabla::testing
