// OpInfo entries for the pooling ops and their backward primitives. The
// references loop over every output window on host values; output sizes
// follow PyTorch's formula (ceil_mode drops a last window that would start in
// the right padding). Max-pool samples are continuous random values, so ties
// (where the gradient is not defined) do not occur.
#include <cmath>
#include <limits>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

struct Pool {
  std::vector<int64_t> kernel{2, 2}, stride{}, padding{0, 0}, dilation{1, 1};
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;
  std::vector<int64_t> st() const { return stride.empty() ? kernel : stride; }
};

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  double span = static_cast<double>(in + 2 * p - d * (k - 1) - 1) / static_cast<double>(s);
  int64_t out = static_cast<int64_t>(ceil_mode ? std::ceil(span) : std::floor(span)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// Batched [N, C, H, W] view of a 3-D or 4-D input's shape.
Shape as4(const Tensor& x) {
  Shape s = x.sizes();
  if (s.size() == 3) s.insert(s.begin(), 1);
  return s;
}
Shape unbatch_like(const Tensor& x, Shape s) {
  if (x.dim() == 3) s.erase(s.begin());
  return s;
}

// values and int64 indices (h * W + w, first maximum wins).
Tensors ref_max_pool(const Tensor& x, const Pool& c) {
  Shape s = as4(x);
  std::vector<double> v = values(x);
  int64_t planes = s[0] * s[1], H = s[2], W = s[3];
  int64_t OH = out_size(H, c.kernel[0], c.st()[0], c.padding[0], c.dilation[0], c.ceil_mode);
  int64_t OW = out_size(W, c.kernel[1], c.st()[1], c.padding[1], c.dilation[1], c.ceil_mode);
  std::vector<double> vals, idx;
  for (int64_t q = 0; q < planes; ++q)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double best = -std::numeric_limits<double>::infinity();
        int64_t arg = -1;
        for (int64_t ki = 0; ki < c.kernel[0]; ++ki)
          for (int64_t kj = 0; kj < c.kernel[1]; ++kj) {
            int64_t h = oh * c.st()[0] - c.padding[0] + ki * c.dilation[0];
            int64_t w = ow * c.st()[1] - c.padding[1] + kj * c.dilation[1];
            if (h < 0 || h >= H || w < 0 || w >= W) continue;
            if (arg < 0 || v[q * H * W + h * W + w] > best) best = v[q * H * W + h * W + w], arg = h * W + w;
          }
        vals.push_back(best);
        idx.push_back(static_cast<double>(arg));
      }
  Shape os = unbatch_like(x, {s[0], s[1], OH, OW});
  return {from_values(vals, os), from_values(idx, os, kInt64)};
}

// The averaging window of output (oh, ow) along one axis: [lo, hi) clipped to
// the input, and the window's size within the padded input.
struct Span {
  int64_t lo, hi, padded;
};
Span avg_span(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p) {
  int64_t lo = o * s - p, hi = std::min(lo + k, in + p);
  return {std::max<int64_t>(lo, 0), std::min(hi, in), hi - lo};
}
double avg_divisor(const Span& a, const Span& b, const Pool& c) {
  if (c.divisor_override) return static_cast<double>(c.divisor_override);
  if (c.count_include_pad) return static_cast<double>(a.padded * b.padded);
  return static_cast<double>((a.hi - a.lo) * (b.hi - b.lo));
}

Tensor ref_avg_pool(const Tensor& x, const Pool& c) {
  Shape s = as4(x);
  std::vector<double> v = values(x), out;
  int64_t planes = s[0] * s[1], H = s[2], W = s[3];
  int64_t OH = out_size(H, c.kernel[0], c.st()[0], c.padding[0], 1, c.ceil_mode);
  int64_t OW = out_size(W, c.kernel[1], c.st()[1], c.padding[1], 1, c.ceil_mode);
  for (int64_t q = 0; q < planes; ++q)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        Span a = avg_span(oh, H, c.kernel[0], c.st()[0], c.padding[0]);
        Span b = avg_span(ow, W, c.kernel[1], c.st()[1], c.padding[1]);
        double acc = 0;
        for (int64_t h = a.lo; h < a.hi; ++h)
          for (int64_t w = b.lo; w < b.hi; ++w) acc += v[q * H * W + h * W + w];
        out.push_back(acc / avg_divisor(a, b, c));
      }
  return from_values(out, unbatch_like(x, {s[0], s[1], OH, OW}));
}

// Scatter of gy / divisor over each window (the adjoint, written directly).
Tensor ref_avg_pool_backward(const Tensor& gy, const Shape& is, const Pool& c) {
  std::vector<double> g = values(gy), out(static_cast<std::size_t>(is[0] * is[1] * is[2] * is[3]));
  int64_t H = is[2], W = is[3], OH = gy.sizes()[2], OW = gy.sizes()[3];
  for (int64_t q = 0; q < is[0] * is[1]; ++q)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        Span a = avg_span(oh, H, c.kernel[0], c.st()[0], c.padding[0]);
        Span b = avg_span(ow, W, c.kernel[1], c.st()[1], c.padding[1]);
        for (int64_t h = a.lo; h < a.hi; ++h)
          for (int64_t w = b.lo; w < b.hi; ++w)
            out[q * H * W + h * W + w] += g[(q * OH + oh) * OW + ow] / avg_divisor(a, b, c);
      }
  return from_values(out, is);
}

// Adaptive windows: [floor(i * in / out), ceil((i + 1) * in / out)).
int64_t a_lo(int64_t i, int64_t in, int64_t out) { return static_cast<int64_t>(std::floor(double(i * in) / out)); }
int64_t a_hi(int64_t i, int64_t in, int64_t out) {
  return static_cast<int64_t>(std::ceil(double((i + 1) * in) / out));
}

Tensor ref_adaptive(const Tensor& x, int64_t OH, int64_t OW) {
  Shape s = as4(x);
  std::vector<double> v = values(x), out;
  int64_t H = s[2], W = s[3];
  for (int64_t q = 0; q < s[0] * s[1]; ++q)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double acc = 0;
        int64_t n = 0;
        for (int64_t h = a_lo(oh, H, OH); h < a_hi(oh, H, OH); ++h)
          for (int64_t w = a_lo(ow, W, OW); w < a_hi(ow, W, OW); ++w, ++n) acc += v[q * H * W + h * W + w];
        out.push_back(acc / static_cast<double>(n));
      }
  return from_values(out, unbatch_like(x, {s[0], s[1], OH, OW}));
}

Tensor ref_adaptive_backward(const Tensor& gy, const Shape& is) {
  std::vector<double> g = values(gy), out(static_cast<std::size_t>(is[0] * is[1] * is[2] * is[3]));
  int64_t H = is[2], W = is[3], OH = gy.sizes()[2], OW = gy.sizes()[3];
  for (int64_t q = 0; q < is[0] * is[1]; ++q)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t h0 = a_lo(oh, H, OH), h1 = a_hi(oh, H, OH), w0 = a_lo(ow, W, OW), w1 = a_hi(ow, W, OW);
        double share = g[(q * OH + oh) * OW + ow] / static_cast<double>((h1 - h0) * (w1 - w0));
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) out[q * H * W + h * W + w] += share;
      }
  return from_values(out, is);
}

std::function<std::vector<Tensors>()> one_sample(Shape xs, uint64_t seed = 31) {
  return [=] { return std::vector<Tensors>{{sample(xs, -2, 2, seed)}}; };
}

// ---- max_pool2d

OpInfo max_pool_info(const std::string& name, Shape xs, Pool c) {
  OpInfo info;
  info.name = name;
  info.covers = {"max_pool2d"};
  info.run = [c](const Tensors& in) {
    auto [v, i] = max_pool2d_with_indices(in[0], c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
    return Tensors{v, i};
  };
  info.samples = one_sample(xs);
  info.reference = [c](const Tensors& in) { return ref_max_pool(in[0], c); };
  return info;
}
NABLA_OP_INFO(max_pool_info("max_pool2d", {2, 3, 6, 6}, {}));
NABLA_OP_INFO(max_pool_info("max_pool2d_k3_s2_pad1", {2, 2, 7, 6}, {.kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}}));
NABLA_OP_INFO(max_pool_info("max_pool2d_ceil_mode", {1, 2, 8, 7}, {.kernel = {3, 3}, .stride = {2, 2}, .ceil_mode = true}));
NABLA_OP_INFO(max_pool_info("max_pool2d_dilation2", {2, 2, 6, 5}, {.kernel = {2, 2}, .stride = {1, 1}, .dilation = {2, 2}}));
NABLA_OP_INFO(max_pool_info("max_pool2d_rect_pad_ceil", {2, 1, 7, 5},
                            {.kernel = {3, 2}, .stride = {2, 1}, .padding = {1, 1}, .ceil_mode = true}));
NABLA_OP_INFO(max_pool_info("max_pool2d_unbatched", {2, 5, 5}, {}));

// The plain (no-indices) entry point returns the same values.
OpInfo max_pool_values_info() {
  Pool c{.kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}};
  OpInfo info = max_pool_info("max_pool2d_values_only", {2, 2, 5, 5}, c);
  info.run = [c](const Tensors& in) { return Tensors{max_pool2d(in[0], c.kernel, c.stride, c.padding)}; };
  info.reference = [c](const Tensors& in) { return Tensors{ref_max_pool(in[0], c)[0]}; };
  return info;
}
NABLA_OP_INFO(max_pool_values_info());

// Backward primitives: grad_output is differentiable, indices are fixed
// (random positions, with repeats, so accumulation is exercised).
Tensor sample_indices(Shape s, int64_t plane, uint64_t seed) {
  manual_seed(seed);
  return randint(0, plane, s);
}

OpInfo max_backward_info() {
  Shape is{2, 2, 5, 4}, gs{2, 2, 3, 3};
  OpInfo info;
  info.name = "max_pool2d_backward";
  info.covers = {"max_pool2d_backward"};
  info.run = [is](const Tensors& in) { return Tensors{max_pool2d_backward(in[0], in[1], is)}; };
  info.samples = [=] { return std::vector<Tensors>{{sample(gs, -2, 2, 41), sample_indices(gs, 20, 42)}}; };
  info.reference = [is](const Tensors& in) {
    std::vector<double> g = values(in[0]), idx = values(in[1]), out(2 * 2 * 20);
    for (std::size_t p = 0; p < g.size(); ++p) out[(p / 9) * 20 + static_cast<std::size_t>(idx[p])] += g[p];
    return Tensors{from_values(out, is)};
  };
  info.grad_inputs = {0};
  return info;
}
NABLA_OP_INFO(max_backward_info());

OpInfo max_gather_info() {
  Shape ss{2, 2, 5, 4}, is{2, 2, 3, 3};
  OpInfo info;
  info.name = "max_pool2d_gather";
  info.covers = {"max_pool2d_gather"};
  info.run = [](const Tensors& in) { return Tensors{max_pool2d_gather(in[0], in[1])}; };
  info.samples = [=] { return std::vector<Tensors>{{sample(ss, -2, 2, 43), sample_indices(is, 20, 44)}}; };
  info.reference = [is](const Tensors& in) {
    std::vector<double> s = values(in[0]), idx = values(in[1]), out;
    for (std::size_t p = 0; p < idx.size(); ++p) out.push_back(s[(p / 9) * 20 + static_cast<std::size_t>(idx[p])]);
    return Tensors{from_values(out, is)};
  };
  info.grad_inputs = {0};
  return info;
}
NABLA_OP_INFO(max_gather_info());

// ---- avg_pool2d

OpInfo avg_pool_info(const std::string& name, Shape xs, Pool c) {
  OpInfo info;
  info.name = name;
  info.covers = {"avg_pool2d"};
  info.run = [c](const Tensors& in) {
    return Tensors{avg_pool2d(in[0], c.kernel, c.stride, c.padding, c.ceil_mode, c.count_include_pad,
                              c.divisor_override)};
  };
  info.samples = one_sample(xs);
  info.reference = [c](const Tensors& in) { return Tensors{ref_avg_pool(in[0], c)}; };
  return info;
}
NABLA_OP_INFO(avg_pool_info("avg_pool2d", {2, 3, 6, 6}, {}));
NABLA_OP_INFO(avg_pool_info("avg_pool2d_pad_include", {2, 2, 7, 6}, {.kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}}));
NABLA_OP_INFO(avg_pool_info("avg_pool2d_pad_exclude_ceil", {2, 2, 7, 6},
                            {.kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}, .ceil_mode = true,
                             .count_include_pad = false}));
NABLA_OP_INFO(avg_pool_info("avg_pool2d_rect_divisor", {1, 2, 6, 5},
                            {.kernel = {3, 2}, .stride = {2, 1}, .padding = {1, 1}, .ceil_mode = true,
                             .divisor_override = 5}));
NABLA_OP_INFO(avg_pool_info("avg_pool2d_unbatched", {2, 5, 5}, {.kernel = {2, 2}, .stride = {1, 1}}));

OpInfo avg_backward_info() {
  Pool c{.kernel = {3, 3}, .stride = {2, 2}, .padding = {1, 1}, .ceil_mode = true, .count_include_pad = false};
  Shape is{2, 2, 7, 6}, gs{2, 2, 4, 4};
  OpInfo info;
  info.name = "avg_pool2d_backward";
  info.covers = {"avg_pool2d_backward"};
  info.run = [=](const Tensors& in) {
    return Tensors{avg_pool2d_backward(in[0], is, c.kernel, c.stride, c.padding, c.ceil_mode, c.count_include_pad,
                                       c.divisor_override)};
  };
  info.samples = one_sample(gs, 45);
  info.reference = [=](const Tensors& in) { return Tensors{ref_avg_pool_backward(in[0], is, c)}; };
  return info;
}
NABLA_OP_INFO(avg_backward_info());

// ---- adaptive_avg_pool2d

OpInfo adaptive_info(const std::string& name, Shape xs, std::vector<int64_t> os) {
  OpInfo info;
  info.name = name;
  info.covers = {"adaptive_avg_pool2d"};
  info.run = [os](const Tensors& in) { return Tensors{adaptive_avg_pool2d(in[0], os)}; };
  info.samples = one_sample(xs);
  info.reference = [os](const Tensors& in) { return Tensors{ref_adaptive(in[0], os[0], os.back())}; };
  return info;
}
NABLA_OP_INFO(adaptive_info("adaptive_avg_pool2d", {2, 3, 7, 5}, {3, 2}));
NABLA_OP_INFO(adaptive_info("adaptive_avg_pool2d_divides", {2, 2, 6, 6}, {3, 3}));
NABLA_OP_INFO(adaptive_info("adaptive_avg_pool2d_global", {2, 3, 4, 5}, {1}));
NABLA_OP_INFO(adaptive_info("adaptive_avg_pool2d_upsample", {1, 2, 3, 3}, {5, 4}));
NABLA_OP_INFO(adaptive_info("adaptive_avg_pool2d_unbatched", {2, 5, 7}, {4}));

OpInfo adaptive_backward_info() {
  Shape is{2, 2, 7, 5}, gs{2, 2, 3, 2};
  OpInfo info;
  info.name = "adaptive_avg_pool2d_backward";
  info.covers = {"adaptive_avg_pool2d_backward"};
  info.run = [is](const Tensors& in) { return Tensors{adaptive_avg_pool2d_backward(in[0], is)}; };
  info.samples = one_sample(gs, 46);
  info.reference = [is](const Tensors& in) { return Tensors{ref_adaptive_backward(in[0], is)}; };
  return info;
}
NABLA_OP_INFO(adaptive_backward_info());

}  // namespace
}  // namespace nabla::testing
