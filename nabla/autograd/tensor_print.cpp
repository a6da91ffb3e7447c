// Printing like PyTorch: nested brackets, a common number format per tensor,
// "..." past 1000 elements (3 items at each edge of a long dim), then the
// metadata that isn't the default (shape, dtype, device, grad).
#include <cmath>
#include <iomanip>
#include <sstream>

#include "nabla/autograd/node.h"
#include "nabla/core/tensor.h"

namespace nabla {
namespace {

constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdge = 3;

struct Format {
  bool floating = false;
  bool integral_values = true;  // floats that are all whole numbers print as "1."
  bool scientific = false;
  int precision = 4;
};

std::string format_value(double v, const Format& f) {
  std::ostringstream os;
  if (!f.floating) {
    os << static_cast<int64_t>(v);
  } else if (std::isnan(v)) {
    os << "nan";
  } else if (std::isinf(v)) {
    os << (v > 0 ? "inf" : "-inf");
  } else if (f.scientific) {
    os << std::scientific << std::setprecision(f.precision) << v;
  } else if (f.integral_values) {
    os << std::fixed << std::setprecision(0) << v << '.';
  } else {
    os << std::fixed << std::setprecision(f.precision) << v;
  }
  return os.str();
}

void print_rec(std::ostream& os, const std::vector<double>& vals, const Shape& sizes, const Shape& strides,
               int64_t offset, std::size_t dim, bool summarize, const Format& f, std::size_t width, int indent,
               DType t) {
  if (dim == sizes.size()) {
    std::string s = t == kBool ? (vals[offset] != 0 ? "True" : "False") : format_value(vals[offset], f);
    os << std::string(width > s.size() ? width - s.size() : 0, ' ') << s;
    return;
  }
  os << '[';
  int64_t n = sizes[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdge && i == kEdge) {
      os << (dim + 1 == sizes.size() ? "..., " : "...,\n" + std::string(indent + 1, ' '));
      i = n - kEdge;
    }
    print_rec(os, vals, sizes, strides, offset + i * strides[dim], dim + 1, summarize, f, width, indent + 1, t);
    if (i + 1 < n) {
      if (dim + 1 == sizes.size()) os << ", ";
      else os << ',' << std::string(sizes.size() - dim - 1, '\n') << std::string(indent + 1, ' ');
    }
  }
  os << ']';
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  std::ostringstream os;
  os << "tensor(";
  if (is_symbolic()) {
    os << "<symbolic>, shape=" << detail::concat(sizes());
  } else {
    std::vector<double> vals = to_vector<double>();
    Format f;
    f.floating = is_floating(dtype());
    double max_abs = 0, min_abs = INFINITY;
    for (double v : vals) {
      if (!std::isfinite(v)) continue;
      if (v != std::floor(v)) f.integral_values = false;
      max_abs = std::max(max_abs, std::abs(v));
      if (v != 0) min_abs = std::min(min_abs, std::abs(v));
    }
    if (f.floating && (max_abs >= 1e8 || (min_abs < 1e-4 && min_abs != INFINITY && !f.integral_values) ||
                       (max_abs / std::max(min_abs, 1e-300) > 1e3 && !f.integral_values && min_abs != INFINITY)))
      f.scientific = true;
    std::size_t width = 0;
    for (double v : vals) width = std::max(width, dtype() == kBool ? (v != 0 ? 4u : 5u) : format_value(v, f).size());
    Shape st = contiguous_strides(sizes());
    if (dim() == 0) os << format_value(vals.empty() ? 0 : vals[0], f);
    else print_rec(os, vals, sizes(), st, 0, 0, numel() > kThreshold, f, width, 7, dtype());
    if (numel() == 0 || numel() > kThreshold) os << ", size=" << detail::concat(sizes());
  }
  if (dtype() != kFloat32 && dtype() != kInt64 && dtype() != kBool) os << ", dtype=" << dtype();
  if (!device().is_cpu()) os << ", device='" << device() << "'";
  if (auto fn = grad_fn()) os << ", grad_fn=<" << fn->name() << ">";
  else if (requires_grad()) os << ", requires_grad=True";
  os << ')';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace nabla
