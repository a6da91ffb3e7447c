// OpInfo entries for softmax and log_softmax: several dims (innermost, outer,
// middle of a 3-D tensor), a 0-dim input, and rows with large offsets that
// overflow exp() unless the row max is subtracted first. References are naive
// loops over each slice along the dim.
#include <cmath>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

// Softmax (or log-softmax) of every slice of x along dim, on host values.
Tensor ref_softmax(const Tensor& x, int64_t dim, bool log) {
  Shape s = x.sizes();
  std::vector<double> v = values(x), out(v.size());
  if (s.empty()) return from_values({log ? 0.0 : 1.0}, s);
  if (dim < 0) dim += x.dim();
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto idx = unravel(i, s);
    if (idx[dim] != 0) continue;  // visit each slice once, from its first element
    std::vector<int64_t> pos;
    for (int64_t k = 0; k < s[dim]; ++k) {
      idx[dim] = k;
      pos.push_back(ravel(idx, s));
    }
    double m = -INFINITY, total = 0;
    for (int64_t p : pos) m = std::max(m, v[p]);
    for (int64_t p : pos) total += std::exp(v[p] - m);
    for (int64_t p : pos) out[p] = log ? v[p] - m - std::log(total) : std::exp(v[p] - m) / total;
  }
  return from_values(out, s);
}

OpInfo softmax_info(const std::string& name, bool log, int64_t dim, std::vector<Shape> shapes, double offset = 0) {
  OpInfo info;
  info.name = name;
  info.covers = {log ? "log_softmax" : "softmax"};
  info.run = [log, dim](const Tensors& in) {
    return Tensors{log ? log_softmax(in[0], dim) : softmax(in[0], dim)};
  };
  info.samples = [shapes, offset] {
    std::vector<Tensors> r;
    uint64_t seed = 11;
    for (const Shape& s : shapes) r.push_back({sample(s, -3.0, 3.0, seed++) + offset});
    return r;
  };
  info.reference = [log, dim](const Tensors& in) { return Tensors{ref_softmax(in[0], dim, log)}; };
  return info;
}

NABLA_OP_INFO(softmax_info("softmax_lastdim", false, -1, {{3, 5}, {2, 3, 4}, {7}}));
NABLA_OP_INFO(softmax_info("softmax_dim0", false, 0, {{4, 3}, {3, 2, 2}, {}}));
NABLA_OP_INFO(softmax_info("softmax_middle_dim", false, 1, {{2, 4, 3}, {2, 1, 5}}));
NABLA_OP_INFO(softmax_info("softmax_large_values", false, -1, {{2, 6}}, 800.0));
NABLA_OP_INFO(softmax_info("log_softmax_lastdim", true, -1, {{3, 5}, {2, 3, 4}, {7}}));
NABLA_OP_INFO(softmax_info("log_softmax_dim0", true, 0, {{4, 3}, {3, 2, 2}, {}}));
NABLA_OP_INFO(softmax_info("log_softmax_middle_dim", true, 1, {{2, 4, 3}, {2, 1, 5}}));
NABLA_OP_INFO(softmax_info("log_softmax_large_values", true, -1, {{2, 6}}, -800.0));

}  // namespace
}  // namespace nabla::testing
