// OpInfo entries for matrix products, with references as triple loops.
#include "support/op_info.h"

namespace nabla::testing {
namespace {

// Naive [b, n, k] x [b, k, m] on host values (b may be absent).
Tensor ref_matmul3(const Tensor& a, const Tensor& b) {
  int64_t B = a.dim() == 3 ? a.sizes()[0] : 1;
  int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
  std::vector<double> va = values(a), vb = values(b), r(static_cast<std::size_t>(B * n * m));
  for (int64_t s = 0; s < B; ++s)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += va[(s * n + i) * k + p] * vb[(s * k + p) * m + j];
        r[(s * n + i) * m + j] = acc;
      }
  return a.dim() == 3 ? from_values(r, {B, n, m}) : from_values(r, {n, m});
}

OpInfo mm_info() {
  OpInfo info;
  info.name = "mm";
  info.covers = {"mm"};
  info.run = [](const Tensors& in) { return Tensors{mm(in[0], in[1]), in[0].t().mm(in[0])}; };
  info.samples = [] {
    return std::vector<Tensors>{{sample({3, 4}, -1, 1, 1), sample({4, 5}, -1, 1, 2)},
                                {sample({1, 2}, -1, 1, 3), sample({2, 1}, -1, 1, 4)}};
  };
  info.reference = [](const Tensors& in) {
    return Tensors{ref_matmul3(in[0], in[1]), ref_matmul3(from_values(values(in[0].t().contiguous()), {in[0].size(1), in[0].size(0)}), in[0])};
  };
  return info;
}
NABLA_OP_INFO(mm_info());

OpInfo bmm_info() {
  OpInfo info;
  info.name = "bmm";
  info.covers = {"bmm"};
  info.run = [](const Tensors& in) { return Tensors{bmm(in[0], in[1])}; };
  info.samples = [] { return std::vector<Tensors>{{sample({2, 3, 4}, -1, 1, 5), sample({2, 4, 2}, -1, 1, 6)}}; };
  info.reference = [](const Tensors& in) { return Tensors{ref_matmul3(in[0], in[1])}; };
  return info;
}
NABLA_OP_INFO(bmm_info());

OpInfo matmul_info() {
  OpInfo info;
  info.name = "matmul";
  info.covers = {"mm", "bmm"};
  // Batch broadcasting: [2,3,4] @ [4,5] and [1,3,4] @ [2,4,2]; vectors.
  info.run = [](const Tensors& in) {
    return Tensors{matmul(in[0], in[1]), matmul(in[0].narrow(0, 0, 1), in[2]), matmul(in[1].select(1, 0), in[1])};
  };
  info.samples = [] {
    return std::vector<Tensors>{{sample({2, 3, 4}, -1, 1, 7), sample({4, 5}, -1, 1, 8), sample({2, 4, 2}, -1, 1, 9)}};
  };
  info.reference = [](const Tensors& in) {
    Tensor a = in[0], b = in[1], c = in[2];
    Tensor r0 = from_values(values(ref_matmul3(a.select(0, 0), b)), {1, 3, 5});
    Tensor r0b = from_values(values(ref_matmul3(a.select(0, 1), b)), {1, 3, 5});
    std::vector<double> v0 = values(r0), v1 = values(r0b);
    v0.insert(v0.end(), v1.begin(), v1.end());
    Tensor first = from_values(v0, {2, 3, 5});
    Tensor a0 = a.select(0, 0);
    std::vector<double> s;
    for (int64_t bi = 0; bi < 2; ++bi) {
      auto r = values(ref_matmul3(a0, c.select(0, bi)));
      s.insert(s.end(), r.begin(), r.end());
    }
    Tensor second = from_values(s, {2, 3, 2});
    Tensor row = from_values(values(b.select(1, 0)), {1, 4});
    Tensor third = from_values(values(ref_matmul3(row, b)), {5});
    return Tensors{first, second, third};
  };
  return info;
}
NABLA_OP_INFO(matmul_info());

OpInfo composites_info() {
  OpInfo info;
  info.name = "addmm_linear_outer_dot";
  info.covers = {"mm"};
  info.run = [](const Tensors& in) {
    const Tensor &x = in[0], &w = in[1], &b = in[2];
    return Tensors{addmm(b, x, w.t(), 0.5, 2.0), linear(x, w, b), outer(b, x.select(0, 0)), dot(b, b)};
  };
  info.samples = [] {
    return std::vector<Tensors>{{sample({2, 3}, -1, 1, 10), sample({4, 3}, -1, 1, 11), sample({4}, -1, 1, 12)}};
  };
  info.reference = [](const Tensors& in) {
    std::vector<double> x = values(in[0]), w = values(in[1]), b = values(in[2]);
    std::vector<double> addmm_r, lin, out, dt{0};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        double acc = 0;
        for (int p = 0; p < 3; ++p) acc += x[i * 3 + p] * w[j * 3 + p];
        addmm_r.push_back(0.5 * b[j] + 2 * acc);
        lin.push_back(acc + b[j]);
      }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) out.push_back(b[i] * x[j]);
    for (double v : b) dt[0] += v * v;
    return Tensors{from_values(addmm_r, {2, 4}), from_values(lin, {2, 4}), from_values(out, {4, 3}),
                   from_values(dt, {})};
  };
  return info;
}
NABLA_OP_INFO(composites_info());

}  // namespace
}  // namespace nabla::testing
