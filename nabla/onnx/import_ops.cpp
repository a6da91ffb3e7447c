// ONNX operator -> nabla ops, one converter per op type (default domain,
// opsets 7 to 17: where an attribute became an input (axes, pads, split,
// min/max) both forms are read). Converters use only nabla's public ops, so
// the same code builds graph nodes or, on known inputs, computes the value.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "nabla/graph/graph.h"
#include "nabla/onnx/import_ops.h"
#include "nabla/ops/ops.h"

namespace nabla::onnx::detail {

namespace {
using Outs = std::vector<Tensor>;
using ::nabla::detail::concat;

Outs one(Tensor t) { return {std::move(t)}; }

ImportConverter unary(Tensor (*f)(const Tensor&)) {
  return [f](NodeContext& c) { return one(f(c.in(0))); };
}
ImportConverter binary(Tensor (*f)(const Tensor&, const Tensor&)) {
  return [f](NodeContext& c) { return one(f(c.in(0), c.in(1))); };
}
// Max/Min/Sum/Mean take any number of inputs.
ImportConverter variadic(Tensor (*f)(const Tensor&, const Tensor&), bool mean = false) {
  return [f, mean](NodeContext& c) {
    Tensor r = c.in(0);
    for (std::size_t k = 1; k < c.num_inputs(); ++k) r = f(r, c.in(k));
    if (mean) r = div(r, static_cast<double>(c.num_inputs()));
    return one(r);
  };
}

Tensor add2(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor sub2(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor mul2(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor max2(const Tensor& a, const Tensor& b) { return maximum(a, b); }
Tensor min2(const Tensor& a, const Tensor& b) { return minimum(a, b); }
Tensor pow2(const Tensor& a, const Tensor& b) { return pow(a, cast(b, a.dtype())); }
Tensor eq2(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor lt2(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor le2(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor gt2(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor ge2(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor and2(const Tensor& a, const Tensor& b) { return logical_and(a, b); }
Tensor or2(const Tensor& a, const Tensor& b) { return logical_or(a, b); }
Tensor xor2(const Tensor& a, const Tensor& b) { return logical_xor(a, b); }
Tensor relu1(const Tensor& x) { return relu(x); }

// ONNX's integer Div truncates; float Div is true division.
Outs div_op(NodeContext& c) {
  const Tensor &a = c.in(0), &b = c.in(1);
  if (!is_floating(a.dtype()) && !is_floating(b.dtype())) return one(div(a, b, "trunc"));
  return one(div(a, b));
}

Outs leaky_relu_op(NodeContext& c) { return one(leaky_relu(c.in(0), c.attr_float("alpha", 0.01))); }
Outs elu_op(NodeContext& c) { return one(elu(c.in(0), c.attr_float("alpha", 1.0))); }
Outs hard_sigmoid_op(NodeContext& c) {
  double alpha = c.attr_float("alpha", 0.2), beta = c.attr_float("beta", 0.5);
  return one(clamp(add(mul(c.in(0), alpha), beta), Scalar(0.0), Scalar(1.0)));
}
Outs hard_swish_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  return one(mul(x, clamp(add(mul(x, 1.0 / 6.0), 0.5), Scalar(0.0), Scalar(1.0))));
}
Outs prelu_op(NodeContext& c) {
  const Tensor &x = c.in(0), &slope = c.in(1);
  return one(add(relu(x), mul(slope, minimum(x, 0.0))));
}
Outs softplus_op(NodeContext& c) { return one(softplus(c.in(0))); }

Outs gemm_op(NodeContext& c) {
  Tensor a = c.in(0), b = c.in(1);
  if (a.dim() != 2 || b.dim() != 2) c.fail(concat("A and B must be 2-D, got ", a.sizes(), " and ", b.sizes()));
  if (c.attr_int("transA", 0)) a = t(a);
  if (c.attr_int("transB", 0)) b = t(b);
  double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
  Tensor y = matmul(a, b);
  if (alpha != 1.0) y = mul(y, alpha);
  if (c.has(2)) y = add(y, beta == 1.0 ? c.in(2) : mul(c.in(2), beta));
  return one(y);
}

Outs matmul_op(NodeContext& c) { return one(matmul(c.in(0), c.in(1))); }

// Spatial attributes of Conv/ConvTranspose/pools for `n` spatial dims.
struct Spatial {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
};
Spatial spatial(NodeContext& c, std::size_t n, const std::vector<int64_t>& kernel_from_weight) {
  Spatial s;
  s.kernel = c.attr_ints("kernel_shape", kernel_from_weight);
  if (s.kernel.size() != n) c.fail(concat("kernel_shape must have ", n, " values"));
  if (!kernel_from_weight.empty() && s.kernel != kernel_from_weight)
    c.fail(concat("kernel_shape ", Shape(s.kernel), " does not match the weight's ", Shape(kernel_from_weight)));
  s.strides = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  s.dilations = c.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (s.strides.size() != n || s.dilations.size() != n || pads.size() != 2 * n)
    c.fail(concat("strides, dilations and pads must have ", n, ", ", n, " and ", 2 * n, " values"));
  for (std::size_t i = 0; i < n; ++i) {
    if (s.kernel[i] <= 0 || s.strides[i] <= 0 || s.dilations[i] <= 0 || pads[i] < 0 || pads[n + i] < 0)
      c.fail("kernel_shape, strides and dilations must be positive and pads non-negative");
    s.pads_begin.push_back(pads[i]);
    s.pads_end.push_back(pads[n + i]);
  }
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID")
    c.fail("auto_pad " + auto_pad + " is not supported (export with explicit pads)");
  return s;
}

// Asymmetric pads as an explicit pad (value `fill`) before the op; returns
// the symmetric pads left for the op itself.
std::vector<int64_t> symmetric_pads(Tensor& x, const Spatial& s, double fill) {
  if (s.pads_begin == s.pads_end) return s.pads_begin;
  std::vector<int64_t> torch_pads;  // last dim first
  for (std::size_t i = s.pads_begin.size(); i-- > 0;) {
    torch_pads.push_back(s.pads_begin[i]);
    torch_pads.push_back(s.pads_end[i]);
  }
  x = pad(x, torch_pads, "constant", fill);
  return std::vector<int64_t>(s.pads_begin.size(), 0);
}

Outs conv_op(NodeContext& c) {
  Tensor x = c.in(0);
  const Tensor& w = c.in(1);
  if (w.dim() != 3 && w.dim() != 4) c.fail(concat("only 1-D and 2-D convolutions are supported (weight ", w.sizes(), ")"));
  std::size_t n = static_cast<std::size_t>(w.dim() - 2);
  std::vector<int64_t> k(w.sizes().begin() + 2, w.sizes().end());
  Spatial s = spatial(c, n, k);
  std::vector<int64_t> p = symmetric_pads(x, s, 0.0);
  Tensor b = c.has(2) ? c.in(2) : Tensor();
  int64_t group = c.attr_int("group", 1);
  if (group <= 0) c.fail("group must be positive");
  if (n == 1) return one(conv1d(x, w, b, s.strides, p, s.dilations, group));
  return one(conv2d(x, w, b, s.strides, p, s.dilations, group));
}

Outs conv_transpose_op(NodeContext& c) {
  const Tensor &x = c.in(0), &w = c.in(1);
  if (w.dim() != 4) c.fail(concat("only 2-D transposed convolutions are supported (weight ", w.sizes(), ")"));
  Spatial s = spatial(c, 2, {w.sizes()[2], w.sizes()[3]});
  if (s.pads_begin != s.pads_end) c.fail("asymmetric pads are not supported");
  if (c.has_attr("output_shape")) c.fail("output_shape is not supported (give pads and output_padding)");
  std::vector<int64_t> op = c.attr_ints("output_padding", {0, 0});
  if (op.size() != 2) c.fail("output_padding must have 2 values");
  int64_t group = c.attr_int("group", 1);
  if (group <= 0) c.fail("group must be positive");
  return one(conv_transpose2d(x, w, c.has(2) ? c.in(2) : Tensor(), s.strides, s.pads_begin, op, group, s.dilations));
}

Outs max_pool_op(NodeContext& c) {
  Tensor x = c.in(0);
  if (x.dim() != 4) c.fail(concat("only 2-D pooling (4-D input) is supported, got ", x.sizes()));
  if (c.output_used(1)) c.fail("the Indices output is not supported");
  Spatial s = spatial(c, 2, {});
  std::vector<int64_t> p = symmetric_pads(x, s, -std::numeric_limits<double>::infinity());
  return one(max_pool2d(x, s.kernel, s.strides, p, s.dilations, c.attr_int("ceil_mode", 0) != 0));
}

Outs average_pool_op(NodeContext& c) {
  Tensor x = c.in(0);
  if (x.dim() != 4) c.fail(concat("only 2-D pooling (4-D input) is supported, got ", x.sizes()));
  Spatial s = spatial(c, 2, {});
  if (s.pads_begin != s.pads_end) c.fail("asymmetric pads are not supported");
  return one(avg_pool2d(x, s.kernel, s.strides, s.pads_begin, c.attr_int("ceil_mode", 0) != 0,
                        c.attr_int("count_include_pad", 0) != 0));
}

std::vector<int64_t> spatial_dims(NodeContext& c, const Tensor& x) {
  if (x.dim() < 3) c.fail(concat("input must be [N, C, spatial...], got ", x.sizes()));
  std::vector<int64_t> d;
  for (int64_t i = 2; i < x.dim(); ++i) d.push_back(i);
  return d;
}
Outs global_average_pool_op(NodeContext& c) { return one(mean(c.in(0), spatial_dims(c, c.in(0)), true)); }
Outs global_max_pool_op(NodeContext& c) { return one(amax(c.in(0), spatial_dims(c, c.in(0)), true)); }

Outs batch_norm_op(NodeContext& c) {
  if (c.attr_int("training_mode", 0) != 0 || c.output_used(1) || c.output_used(2))
    c.fail("training mode is not supported (export the model in eval mode)");
  return one(batch_norm(c.in(0), c.in(3), c.in(4), c.in(1), c.in(2), false, 0.1, c.attr_float("epsilon", 1e-5)));
}

// Channel vector [C] shaped to broadcast over [N, C, spatial...].
Tensor per_channel(const Tensor& v, int64_t rank) {
  std::vector<int64_t> shape(static_cast<std::size_t>(rank - 1), 1);
  shape[0] = -1;
  return reshape(v, shape);
}

Outs instance_norm_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> dims = spatial_dims(c, x);
  double eps = c.attr_float("epsilon", 1e-5);
  Tensor m = mean(x, dims, true);
  Tensor v = var(x, dims, false, true);
  Tensor y = div(sub(x, m), sqrt(add(v, eps)));
  return one(add(mul(y, per_channel(c.in(1), x.dim())), per_channel(c.in(2), x.dim())));
}

Outs layer_norm_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  if (c.output_used(1) || c.output_used(2)) c.fail("the Mean and InvStdDev outputs are not supported");
  int64_t axis = c.axis(c.attr_int("axis", -1), x.dim(), "axis");
  std::vector<int64_t> shape(x.sizes().begin() + axis, x.sizes().end());
  for (int64_t d : shape)
    if (d < 0) c.fail("the normalized dims must be known");
  return one(layer_norm(x, shape, c.in(1), c.has(2) ? c.in(2) : Tensor(), c.attr_float("epsilon", 1e-5)));
}

// Softmax before opset 13 works on the input flattened to 2-D at `axis`.
ImportConverter softmax_like(Tensor (*f)(const Tensor&, int64_t)) {
  return [f](NodeContext& c) {
    const Tensor& x = c.in(0);
    if (c.opset() >= 13) return one(f(x, c.axis(c.attr_int("axis", -1), x.dim(), "axis")));
    int64_t axis = c.axis(c.attr_int("axis", 1), x.dim(), "axis");
    if (axis == x.dim() - 1) return one(f(x, -1));
    Tensor flat = axis == 0 ? reshape(x, {1, -1}) : flatten(flatten(x, axis, -1), 0, axis - 1);
    return one(reshape(f(flat, 1), x.sizes()));
  };
}
Tensor softmax_f(const Tensor& x, int64_t d) { return softmax(x, d); }
Tensor log_softmax_f(const Tensor& x, int64_t d) { return log_softmax(x, d); }

Outs flatten_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  int64_t r = x.dim();
  int64_t a = c.attr_int("axis", 1);
  if (a < -r || a > r) c.fail(concat("axis ", a, " is out of range for rank ", r));
  if (a < 0) a += r;
  if (a == 0) return one(unsqueeze(flatten(x), 0));
  if (a == r) return one(unsqueeze(flatten(x), 1));
  return one(flatten(flatten(x, a, -1), 0, a - 1));
}

Outs reshape_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> shape = c.known_ints(1, "shape");
  bool allowzero = c.attr_int("allowzero", 0) != 0;
  int minus_ones = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (static_cast<int64_t>(i) >= x.dim()) c.fail("a 0 in shape copies a dim the input lacks");
      shape[i] = x.sizes()[i];
    }
    if (shape[i] < -1) c.fail(concat("shape ", Shape(shape), " has a dim below -1"));
    minus_ones += shape[i] == -1;
  }
  if (minus_ones > 1) c.fail(concat("shape ", Shape(shape), " has more than one unknown (-1) dim"));
  return one(reshape(x, shape));
}

Outs transpose_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> perm = c.attr_ints("perm");
  if (perm.empty())
    for (int64_t i = x.dim() - 1; i >= 0; --i) perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != x.dim()) c.fail(concat("perm has ", perm.size(), " values for rank ", x.dim()));
  return one(permute(x, perm));
}

// Axes from input `k` (newer opsets) or attribute "axes".
std::vector<int64_t> axes_of(NodeContext& c, std::size_t k) {
  if (c.has(k)) return c.known_ints(k, "axes");
  return c.attr_ints("axes");
}

Outs squeeze_op(NodeContext& c) {
  Tensor x = c.in(0);
  std::vector<int64_t> axes = axes_of(c, 1);
  if (axes.empty()) return one(squeeze(x));
  for (auto& a : axes) a = c.axis(a, x.dim(), "axis");
  std::sort(axes.rbegin(), axes.rend());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) c.fail("repeated axis");
  for (int64_t a : axes) {
    if (x.sizes()[static_cast<std::size_t>(a)] != 1) c.fail(concat("dim ", a, " of ", x.sizes(), " is not 1"));
    x = squeeze(x, a);
  }
  return one(x);
}

Outs unsqueeze_op(NodeContext& c) {
  Tensor x = c.in(0);
  std::vector<int64_t> axes = axes_of(c, 1);
  int64_t out_rank = x.dim() + static_cast<int64_t>(axes.size());
  for (auto& a : axes) a = c.axis(a, out_rank, "axis");
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) c.fail("repeated axis");
  for (int64_t a : axes) x = unsqueeze(x, a);
  return one(x);
}

Outs concat_op(NodeContext& c) {
  std::vector<Tensor> xs;
  if (c.num_inputs() == 0) c.fail("at least one input is required");
  for (std::size_t k = 0; k < c.num_inputs(); ++k) xs.push_back(c.in(k));
  if (!c.has_attr("axis")) c.fail("attribute 'axis' is required");
  return one(cat(xs, c.axis(c.attr_int("axis", 0), xs.at(0).dim(), "axis")));
}

Outs split_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  int64_t axis = c.axis(c.attr_int("axis", 0), x.dim(), "axis");
  std::vector<int64_t> sizes = c.has(1) ? c.known_ints(1, "split") : c.attr_ints("split");
  int64_t n = static_cast<int64_t>(c.num_outputs());
  if (sizes.empty()) {
    int64_t d = x.sizes()[static_cast<std::size_t>(axis)];
    if (n <= 0 || d < 0 || d % n != 0) c.fail(concat("dim ", d, " does not split into ", n, " equal parts"));
    return split(x, d / n, axis);
  }
  if (static_cast<int64_t>(sizes.size()) != n) c.fail(concat("split has ", sizes.size(), " sizes for ", n, " outputs"));
  return split_with_sizes(x, sizes, axis);
}

Outs slice_op(NodeContext& c) {
  Tensor x = c.in(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.attr_ints("starts");
    ends = c.attr_ints("ends");
    axes = c.attr_ints("axes");
  } else {
    starts = c.known_ints(1, "starts");
    ends = c.known_ints(2, "ends");
    if (c.has(3)) axes = c.known_ints(3, "axes");
    if (c.has(4)) steps = c.known_ints(4, "steps");
  }
  if (ends.size() != starts.size()) c.fail("starts and ends differ in length");
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) c.fail("axes and steps must match starts");
  for (std::size_t i = 0; i < starts.size(); ++i) {
    int64_t a = c.axis(axes[i], x.dim(), "axis");
    int64_t d = x.sizes()[static_cast<std::size_t>(a)];
    if (steps[i] <= 0) c.fail("only positive steps are supported");
    if (d < 0) c.fail(concat("slicing unknown dim ", a, " is not supported"));
    auto clampi = [d](int64_t v) { return std::clamp(v < 0 ? v + d : v, int64_t{0}, d); };
    int64_t s = clampi(starts[i]), e = std::max(clampi(ends[i]), s);
    x = slice(x, a, s, e, steps[i]);
  }
  return one(x);
}

Outs gather_op(NodeContext& c) {
  const Tensor &x = c.in(0), &idx = c.in(1);
  int64_t axis = c.axis(c.attr_int("axis", 0), x.dim(), "axis");
  if (idx.dtype() != kInt64 && idx.dtype() != kInt32) c.fail(concat("indices must be int64 or int32, got ", idx.dtype()));
  int64_t d = x.sizes()[static_cast<std::size_t>(axis)];
  Tensor index;
  if (c.is_known(1)) {  // known indices: checked here, negatives made positive
    Tensor k = c.known(1, "indices");
    std::vector<int64_t> v = k.to_vector<int64_t>();
    for (int64_t& i : v) {
      if (d < 0 || i < -d || i >= d) c.fail(concat("index ", i, " is out of range for dim ", axis, " of size ", d));
      if (i < 0) i += d;
    }
    index = tensor(v, k.sizes(), TensorOptions(kInt64));
    if (x.is_symbolic()) index = graph::Graph::of(x).constant(index, "gather_indices");
  } else {
    index = cast(idx, kInt64);
    // Negative indices count from the end: index + d * (index < 0), so that no
    // index near INT64_MAX has d added to it (where() would compute both sides).
    index = add(index, mul(cast(lt(index, 0), kInt64), d));
  }
  if (index.dim() == 0) return one(squeeze(index_select(x, axis, reshape(index, {1})), axis));
  Tensor flat = index_select(x, axis, flatten(index));
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().begin() + axis);
  for (int64_t s : index.sizes()) shape.push_back(s);
  shape.insert(shape.end(), x.sizes().begin() + axis + 1, x.sizes().end());
  return one(reshape(flat, shape));
}

Outs expand_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> shape = c.known_ints(1, "shape");
  // Bidirectional broadcast of x's shape and `shape`.
  std::size_t r = std::max(shape.size(), static_cast<std::size_t>(x.dim()));
  std::vector<int64_t> out(r);
  for (std::size_t i = 0; i < r; ++i) {
    int64_t a = i + static_cast<std::size_t>(x.dim()) >= r ? x.sizes()[i + x.dim() - r] : 1;
    int64_t b = i + shape.size() >= r ? shape[i + shape.size() - r] : 1;
    if (b < -1) c.fail(concat("shape ", Shape(shape), " has a dim below -1"));
    if (a != b && a != 1 && b != 1) c.fail(concat("shape ", Shape(shape), " does not broadcast with ", x.sizes()));
    out[i] = a == 1 ? b : a;
  }
  Tensor y = x;
  while (static_cast<std::size_t>(y.dim()) < r) y = unsqueeze(y, 0);
  return one(expand(y, out));
}

Outs shape_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  int64_t r = x.dim();
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", r);
  start = std::clamp(start < 0 ? start + r : start, int64_t{0}, r);
  end = std::clamp(end < 0 ? end + r : end, int64_t{0}, r);
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) {
    int64_t d = x.sizes()[static_cast<std::size_t>(i)];
    if (d < 0) c.fail(concat("the shape of a value with unknown dims (", x.sizes(), ") is not supported"));
    dims.push_back(d);
  }
  return one(tensor(dims, {static_cast<int64_t>(dims.size())}, TensorOptions(kInt64)));
}

Outs size_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  for (int64_t d : x.sizes())
    if (d < 0) c.fail("the size of a value with unknown dims is not supported");
  return one(scalar_tensor(Scalar(x.numel()), TensorOptions(kInt64)));
}

Outs constant_op(NodeContext& c) {
  if (c.has_attr("value")) return one(c.attr_tensor("value"));
  if (c.has_attr("value_float")) return one(scalar_tensor(Scalar(c.attr_float("value_float", 0)), TensorOptions(kFloat32)));
  if (c.has_attr("value_int")) return one(scalar_tensor(Scalar(c.attr_int("value_int", 0)), TensorOptions(kInt64)));
  if (c.has_attr("value_ints")) {
    std::vector<int64_t> v = c.attr_ints("value_ints");
    return one(tensor(v, {static_cast<int64_t>(v.size())}, TensorOptions(kInt64)));
  }
  if (c.has_attr("value_floats")) {
    std::vector<double> d = c.attr_floats("value_floats");
    std::vector<float> v(d.begin(), d.end());
    return one(tensor(v, {static_cast<int64_t>(v.size())}, TensorOptions(kFloat32)));
  }
  c.fail("only value, value_float(s) and value_int(s) are supported");
}

Outs constant_of_shape_op(NodeContext& c) {
  std::vector<int64_t> shape = c.known_ints(0, "shape");
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || d > (int64_t{1} << 28) || (d && n > (int64_t{1} << 28) / d)) c.fail(concat("shape ", Shape(shape), " out of range"));
    n *= d;
  }
  Tensor v = c.has_attr("value") ? c.attr_tensor("value") : zeros({1}, TensorOptions(kFloat32));
  if (v.numel() != 1) c.fail("attribute 'value' must hold one element");
  return one(full(shape, Scalar(v.to_vector<double>()[0]), TensorOptions(v.dtype())));
}

Outs range_op(NodeContext& c) {
  const Tensor &s = c.known(0, "start"), &l = c.known(1, "limit"), &d = c.known(2, "delta");
  if (s.numel() != 1 || l.numel() != 1 || d.numel() != 1) c.fail("start, limit and delta must be scalars");
  double sv = s.to_vector<double>()[0], lv = l.to_vector<double>()[0], dv = d.to_vector<double>()[0];
  // Folded here, on import: at most 2^24 values (a billion took 8 GB, 2^27 over 10 s in the fuzzer).
  if (dv == 0 || !std::isfinite(sv) || !std::isfinite(lv) || std::abs((lv - sv) / dv) > double(int64_t{1} << 24))
    c.fail(concat("the range [", sv, ", ", lv, ") with delta ", dv,
                  " must have a non-zero delta, a finite start and limit and at most 2^24 values"));
  return one(arange(Scalar(sv), Scalar(lv), Scalar(dv), TensorOptions(s.dtype())));
}

// Reductions: axes from an input (ReduceSum since 13) or the attribute.
ImportConverter reduce(int kind) {
  return [kind](NodeContext& c) {
    const Tensor& x = c.in(0);
    std::vector<int64_t> axes = axes_of(c, 1);
    bool keep = c.attr_int("keepdims", 1) != 0;
    if (axes.empty() && c.attr_int("noop_with_empty_axes", 0) != 0) return one(x);
    for (auto& a : axes) a = c.axis(a, x.dim(), "axis");
    switch (kind) {
      case 0: return one(sum(x, axes, keep));
      case 1: return one(mean(x, axes, keep));
      case 2: return one(amax(x, axes, keep));
      case 3: return one(amin(x, axes, keep));
      default: return one(prod(x, axes, keep));
    }
  };
}

Outs clip_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  if (c.opset() < 11) {
    return one(clamp(x, Scalar(c.attr_float("min", -std::numeric_limits<double>::infinity())),
                     Scalar(c.attr_float("max", std::numeric_limits<double>::infinity()))));
  }
  Tensor y = x;
  if (c.has(1)) y = maximum(y, c.in(1));
  if (c.has(2)) y = minimum(y, c.in(2));
  return one(y);
}

Outs cast_op(NodeContext& c) {
  if (!c.has_attr("to")) c.fail("attribute 'to' is required");
  return one(cast(c.in(0), dtype_from_onnx(c.attr_int("to", 0), c.where())));
}

Outs where_op(NodeContext& c) { return one(where(cast(c.in(0), kBool), c.in(1), c.in(2))); }
Outs not_op(NodeContext& c) { return one(logical_not(c.in(0))); }

Outs dropout_op(NodeContext& c) {
  if (c.output_used(1)) c.fail("the mask output is not supported (inference only)");
  if (c.has(2) && c.known(2, "training_mode").to_vector<int64_t>().at(0) != 0)
    c.fail("training_mode is not supported (inference only)");
  return one(c.in(0));
}

Outs pad_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  std::string mode = c.attr_string("mode", "constant");
  std::vector<int64_t> pads = c.opset() < 11 ? c.attr_ints("pads") : c.known_ints(1, "pads");
  double value = c.opset() < 11 ? c.attr_float("value", 0.0) : 0.0;
  if (c.opset() >= 11 && c.has(2)) {
    const Tensor& v = c.known(2, "constant_value");
    if (v.numel() != 1) c.fail("constant_value must be a scalar");
    value = v.to_vector<double>()[0];
  }
  int64_t r = x.dim();
  if (static_cast<int64_t>(pads.size()) != 2 * r) c.fail(concat("pads has ", pads.size(), " values for rank ", r));
  std::vector<int64_t> torch_pads;
  // PyTorch's order: the last dim first; trailing all-zero dims can be left out.
  int64_t first = 0;
  while (first < r && pads[first] == 0 && pads[first + r] == 0) ++first;
  for (int64_t i = r - 1; i >= first; --i) {
    torch_pads.push_back(pads[i]);
    torch_pads.push_back(pads[i + r]);
  }
  if (torch_pads.empty()) return one(x);
  std::string m = mode == "edge" ? "replicate" : mode;
  if (m != "constant" && m != "reflect" && m != "replicate") c.fail("mode '" + mode + "' is not supported");
  return one(pad(x, torch_pads, m, value));
}

Outs resize_op(NodeContext& c) {
  const Tensor& x = c.in(0);
  if (x.dim() != 4) c.fail("only 4-D inputs are supported");
  std::string mode = c.attr_string("mode", "nearest");
  std::string ct = c.attr_string("coordinate_transformation_mode", "half_pixel");
  InterpolateOptions o;
  std::vector<int64_t> size;
  if (c.opset() >= 11 && c.has(3)) {
    size = c.known_ints(3, "sizes");
    if (size.size() != 4) c.fail("sizes must have 4 values");
    for (int k = 0; k < 2; ++k)
      if (x.sizes()[k] >= 0 && size[k] != x.sizes()[k])
        c.fail(concat("sizes ", Shape(size), " resize N or C of the input ", x.sizes(), " (only H and W are supported)"));
    o.size = {size[2], size[3]};
  } else {
    const Tensor& s = c.known(c.opset() < 11 ? 1 : 2, "scales");  // opset 10: (X, scales)
    std::vector<double> sc = s.to_vector<double>();
    if (sc.size() != 4 || sc[0] != 1 || sc[1] != 1) c.fail("scales must be 4 values, 1 for N and C");
    o.scale_factor = {sc[2], sc[3]};
  }
  if (mode == "nearest") {
    if (ct != "asymmetric" || c.attr_string("nearest_mode", "round_prefer_floor") != "floor")
      c.fail("nearest mode is supported with coordinate_transformation_mode asymmetric and nearest_mode floor (PyTorch's)");
    o.mode = "nearest";
  } else if (mode == "linear") {
    if (ct != "half_pixel" && ct != "pytorch_half_pixel" && ct != "align_corners")
      c.fail("linear mode with coordinate_transformation_mode " + ct + " is not supported");
    o.mode = "bilinear";
    o.align_corners = ct == "align_corners";
  } else {
    c.fail("mode " + mode + " is not supported");
  }
  return one(interpolate(x, o));
}


// The checks LSTM and GRU share; returns the number of directions.
int64_t rnn_checks(NodeContext& c, int64_t gates, const std::string& direction) {
  const Tensor &x = c.in(0), &w = c.in(1), &r = c.in(2);
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    c.fail("direction '" + direction + "' is not one of forward, reverse, bidirectional");
  if (c.attr_int("layout", 0) != 0) c.fail("layout 1 (batch first) is not supported");
  if (c.has_attr("clip")) c.fail("clip is not supported");
  if (c.has_attr("activations")) c.fail("activations other than the defaults are not supported");
  if (x.dim() != 3 || w.dim() != 3 || r.dim() != 3) c.fail("X, W and R must be 3-D");
  int64_t seq = x.sizes()[0], h = r.sizes()[2];
  if (seq <= 0) c.fail("the sequence length must be known and positive");
  // Bounded so that gates * h (and the bias slices 8 * h) cannot overflow.
  if (h < 0 || h > (int64_t{1} << 32)) c.fail(concat("the hidden size ", h, " (R's last dim) must be known and at most 2^32"));
  if (w.sizes()[0] != dirs || r.sizes()[0] != dirs || w.sizes()[1] != gates * h || r.sizes()[1] != gates * h)
    c.fail(concat("W ", w.sizes(), " and R ", r.sizes(), " do not match ", dirs, " direction(s) of hidden size ", h));
  if (c.attr_int("hidden_size", h) != h) c.fail("hidden_size does not match R");
  if (c.has(4)) {
    if (!c.is_known(4)) c.fail("sequence_lens must be known (all sequences full length)");
    for (int64_t len : c.known_ints(4, "sequence_lens"))
      if (len != seq) c.fail("sequences shorter than X are not supported");
  }
  return dirs;
}

// LSTM (ONNX's gate order i, o, f, c; forward, reverse or bidirectional),
// unrolled over the (known) sequence length: X [seq, batch, input], W
// [dirs, 4H, input], R [dirs, 4H, H], B [dirs, 8H]. Without initial states
// the first step leaves out the h @ R term and the f * c term (both zero).
Outs lstm_op(NodeContext& c) {
  std::string direction = c.attr_string("direction", "forward");
  int64_t dirs = rnn_checks(c, 4, direction);
  if (c.attr_int("input_forget", 0) != 0) c.fail("input_forget is not supported");
  if (c.has(7)) c.fail("peepholes (input P) are not supported");
  const Tensor &x = c.in(0), &w = c.in(1), &r = c.in(2);
  int64_t seq = x.sizes()[0], h = r.sizes()[2];
  std::vector<Tensor> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    Tensor wd = t(select(w, 0, d)), rd = t(select(r, 0, d));
    Tensor bias;
    if (c.has(3)) {
      Tensor b = select(c.in(3), 0, d);
      bias = add(slice(b, 0, 0, 4 * h), slice(b, 0, 4 * h, 8 * h));
    }
    Tensor hprev = c.has(5) ? select(c.in(5), 0, d) : Tensor();
    Tensor cprev = c.has(6) ? select(c.in(6), 0, d) : Tensor();
    bool reverse = direction == "reverse" || d == 1;
    std::vector<Tensor> steps(static_cast<std::size_t>(seq));
    for (int64_t k = 0; k < seq; ++k) {
      int64_t step = reverse ? seq - 1 - k : k;
      Tensor g = matmul(select(x, 0, step), wd);
      if (hprev.defined()) g = add(g, matmul(hprev, rd));
      if (bias.defined()) g = add(g, bias);
      std::vector<Tensor> gates = split(g, h, 1);
      Tensor i = sigmoid(gates[0]), o = sigmoid(gates[1]), f = sigmoid(gates[2]), cand = tanh(gates[3]);
      Tensor cnext = mul(i, cand);
      if (cprev.defined()) cnext = add(mul(f, cprev), cnext);
      hprev = mul(o, tanh(cnext));
      cprev = cnext;
      steps[static_cast<std::size_t>(step)] = hprev;
    }
    ys.push_back(stack(steps, 0));  // [seq, batch, H]
    hs.push_back(hprev);
    cs.push_back(cprev);
  }
  return {stack(ys, 1), stack(hs, 0), stack(cs, 0)};
}


// GRU (gate order z, r, h; linear_before_reset 0 or 1, PyTorch's is 1),
// unrolled like LSTM; without an initial state the first step's h terms are
// left out (zero).
Outs gru_op(NodeContext& c) {
  std::string direction = c.attr_string("direction", "forward");
  int64_t dirs = rnn_checks(c, 3, direction);
  const Tensor &x = c.in(0), &w = c.in(1), &r = c.in(2);
  int64_t seq = x.sizes()[0], h = r.sizes()[2];
  bool lbr = c.attr_int("linear_before_reset", 0) != 0;
  std::vector<Tensor> ys, hs;
  for (int64_t d = 0; d < dirs; ++d) {
    Tensor wd = t(select(w, 0, d));
    std::vector<Tensor> rd = split(select(r, 0, d), h, 0);  // Rz, Rr, Rh: [H, H] each
    std::vector<Tensor> wb(3), rb(3);
    if (c.has(3)) {
      Tensor b = select(c.in(3), 0, d);
      wb = split(slice(b, 0, 0, 3 * h), h, 0);
      rb = split(slice(b, 0, 3 * h, 6 * h), h, 0);
    }
    auto plus = [](const Tensor& a, const Tensor& b) { return !a.defined() ? b : !b.defined() ? a : add(a, b); };
    Tensor hprev = c.has(5) ? select(c.in(5), 0, d) : Tensor();
    bool reverse = direction == "reverse" || d == 1;
    std::vector<Tensor> steps(static_cast<std::size_t>(seq));
    for (int64_t k = 0; k < seq; ++k) {
      int64_t step = reverse ? seq - 1 - k : k;
      std::vector<Tensor> xg = split(matmul(select(x, 0, step), wd), h, 1);
      auto hterm = [&](int g) { return hprev.defined() ? plus(matmul(hprev, t(rd[g])), rb[g]) : rb[g]; };
      Tensor z = sigmoid(plus(plus(xg[0], wb[0]), hterm(0)));
      Tensor rr = sigmoid(plus(plus(xg[1], wb[1]), hterm(1)));
      Tensor hh;
      if (lbr) {
        Tensor ht = hterm(2);
        hh = ht.defined() ? mul(rr, ht) : Tensor();
      } else {
        hh = hprev.defined() ? plus(matmul(mul(rr, hprev), t(rd[2])), rb[2]) : rb[2];
      }
      Tensor cand = tanh(plus(plus(xg[2], wb[2]), hh));
      Tensor hnext = mul(sub(1.0, z), cand);
      if (hprev.defined()) hnext = add(hnext, mul(z, hprev));
      hprev = hnext;
      steps[static_cast<std::size_t>(step)] = hprev;
    }
    ys.push_back(stack(steps, 0));
    hs.push_back(hprev);
  }
  return {stack(ys, 1), stack(hs, 0)};
}

Outs identity_op(NodeContext& c) { return one(c.in(0)); }

const std::map<std::string, ImportConverter>& table() {
  static const std::map<std::string, ImportConverter> t = {
      {"Add", binary(add2)}, {"Sub", binary(sub2)}, {"Mul", binary(mul2)}, {"Div", div_op},
      {"Pow", binary(pow2)}, {"Max", variadic(max2)}, {"Min", variadic(min2)}, {"Sum", variadic(add2)},
      {"Mean", variadic(add2, true)},
      {"Equal", binary(eq2)}, {"Less", binary(lt2)}, {"LessOrEqual", binary(le2)}, {"Greater", binary(gt2)},
      {"GreaterOrEqual", binary(ge2)}, {"And", binary(and2)}, {"Or", binary(or2)}, {"Xor", binary(xor2)},
      {"Not", not_op}, {"Where", where_op},
      {"Neg", unary(neg)}, {"Abs", unary(abs)}, {"Sqrt", unary(sqrt)}, {"Exp", unary(exp)}, {"Log", unary(log)},
      {"Reciprocal", unary(reciprocal)}, {"Floor", unary(floor)}, {"Ceil", unary(ceil)}, {"Round", unary(round)},
      {"Sin", unary(sin)}, {"Cos", unary(cos)}, {"Tan", unary(tan)}, {"Sign", unary(sign)},
      {"Relu", unary(relu1)}, {"Sigmoid", unary(sigmoid)}, {"Tanh", unary(tanh)}, {"Erf", unary(erf)},
      {"LeakyRelu", leaky_relu_op}, {"Elu", elu_op}, {"HardSigmoid", hard_sigmoid_op}, {"HardSwish", hard_swish_op},
      {"PRelu", prelu_op}, {"Softplus", softplus_op},
      {"Gemm", gemm_op}, {"MatMul", matmul_op}, {"Conv", conv_op}, {"ConvTranspose", conv_transpose_op},
      {"MaxPool", max_pool_op}, {"AveragePool", average_pool_op}, {"GlobalAveragePool", global_average_pool_op},
      {"GlobalMaxPool", global_max_pool_op}, {"BatchNormalization", batch_norm_op},
      {"InstanceNormalization", instance_norm_op}, {"LayerNormalization", layer_norm_op},
      {"Softmax", softmax_like(softmax_f)}, {"LogSoftmax", softmax_like(log_softmax_f)},
      {"Flatten", flatten_op}, {"Reshape", reshape_op}, {"Transpose", transpose_op}, {"Squeeze", squeeze_op},
      {"Unsqueeze", unsqueeze_op}, {"Concat", concat_op}, {"Split", split_op}, {"Slice", slice_op},
      {"Gather", gather_op}, {"Expand", expand_op}, {"Shape", shape_op}, {"Size", size_op},
      {"Constant", constant_op}, {"ConstantOfShape", constant_of_shape_op}, {"Range", range_op},
      {"ReduceSum", reduce(0)}, {"ReduceMean", reduce(1)}, {"ReduceMax", reduce(2)}, {"ReduceMin", reduce(3)},
      {"ReduceProd", reduce(4)}, {"Clip", clip_op}, {"Cast", cast_op}, {"Identity", identity_op},
      {"Dropout", dropout_op}, {"Pad", pad_op}, {"Resize", resize_op}, {"LSTM", lstm_op}, {"GRU", gru_op},
  };
  return t;
}

}  // namespace

const ImportConverter* find_import_converter(const std::string& op_type) {
  auto it = table().find(op_type);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> import_op_types() {
  std::vector<std::string> names;
  for (const auto& [k, v] : table()) names.push_back(k);
  return names;
}

bool never_fold(const std::string&) { return false; }

}  // namespace nabla::onnx::detail
