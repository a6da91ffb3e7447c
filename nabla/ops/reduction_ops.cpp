// Reductions. sum/prod/amax/amin/all/any/max(dim)/cumsum/cumprod have
// kernels; mean, var, std, norm and logsumexp are composites of them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {

Shape reduction_dims(const Tensor& x, IntList dims, std::string_view op) {
  NABLA_CHECK(x.defined(), op, ": input 0 is an undefined tensor");
  Shape out;
  if (dims.empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, x.dim(), op);
    if (x.dim() == 0) continue;
    NABLA_CHECK(std::find(out.begin(), out.end(), w) == out.end(), op, ": dim ", w, " appears more than once in ",
                dims);
    out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Shape reduced_shape(const Shape& sizes, const Shape& dims, bool keepdim) {
  Shape out;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
    if (!reduced) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

namespace {

// attrs: dims (normalized, sorted), keepdim
OutputMetas infer_reduce(const OpDef& op, Inputs in, const Attrs& a) {
  DType t = in[0].dtype();
  if (op.name == "sum" || op.name == "prod") t = is_floating(t) ? t : kInt64;
  if (op.name == "all" || op.name == "any") t = kBool;
  if (op.name == "amax" || op.name == "amin") {
    for (int64_t d : a.ints(0))
      NABLA_CHECK(in[0].sizes()[d] > 0, op.name, ": cannot reduce over dim ", d, " of size 0 (shape ",
                  in[0].sizes(), "); the reduction has no identity");
  }
  return {{reduced_shape(in[0].sizes(), a.ints(0), a.b(1)), t}};
}

// The gradient of a reduction, broadcast back to the input's shape.
Tensor expand_back(const Tensor& g, GradCtx& c) {
  Tensor gk = g;
  if (!c.attrs().b(1)) gk = reshape(g, reduced_shape(c.input_sizes(0), c.attrs().ints(0), true));
  return expand(gk, c.input_sizes(0));
}

TensorList amax_grad(GradCtx& c) {
  Tensor x = c.input(0);
  Tensor out = c.output(0);
  if (!c.attrs().b(1)) out = reshape(out, reduced_shape(x.sizes(), c.attrs().ints(0), true));
  Tensor mask = (x == out).to(x.dtype());
  Tensor count = sum(mask, c.attrs().ints(0), true);
  return {expand_back(c.grad(), c) * mask / count};
}

// max/min along one dim: attrs dim, keepdim; outputs values, indices.
OutputMetas infer_arg_reduce(const OpDef& op, Inputs in, const Attrs& a) {
  int64_t d = a.i(0);
  NABLA_CHECK(in[0].dim() == 0 || in[0].sizes()[d] > 0, op.name, ": cannot reduce dim ", d,
              " of size 0 (shape ", in[0].sizes(), ")");
  Shape s = in[0].dim() == 0 ? Shape{} : reduced_shape(in[0].sizes(), Shape{d}, a.b(1));
  return {{s, in[0].dtype()}, {s, kInt64}};
}
TensorList arg_reduce_grad(GradCtx& c) {
  const Shape& in_sizes = c.input_sizes(0);
  if (in_sizes.empty()) return {c.grad()};
  int64_t d = c.attrs().i(0);
  Tensor g = c.grad(0), idx = c.output(1);
  if (!c.attrs().b(1)) {
    g = unsqueeze(g, d);
    idx = unsqueeze(idx, d);
  }
  Shape pos_shape(in_sizes.size(), 1);
  pos_shape[d] = in_sizes[d];
  Tensor pos = reshape(arange(in_sizes[d], TensorOptions(kInt64).device(g.device())), pos_shape);
  return {where(pos == idx, expand(g, in_sizes), zeros({}, TensorOptions(g.dtype()).device(g.device())))};
}

// cumsum/cumprod: attrs dim
OutputMetas infer_scan(const OpDef&, Inputs in, const Attrs&) {
  DType t = is_floating(in[0].dtype()) ? in[0].dtype() : kInt64;
  return {{in[0].sizes(), t}};
}
// sum_{j >= i} g_j along dim. Through flips, not total - cumsum + g, which
// cancels: inf - inf is NaN, and small terms after a large one lose digits.
Tensor reverse_cumsum(const Tensor& g, int64_t dim) {
  return flip(cumsum(flip(g, {dim}), dim), {dim});
}

// PyTorch's cumprod_backward, zeros included. Along dim, with z the first zero:
//   i < z:  sum_{z > k >= i} g_k out_k / x_i     (out_k is 0 from z on)
//   i = z:  sum_{k >= z} g_k prod_{j <= k, j != z} x_j
//   i > z:  0                                     (every product through i has x_z)
TensorList cumprod_grad(GradCtx& c) {
  const int64_t d = c.attrs().i(0);
  Tensor x = c.input(0), out = c.output(0);
  const Tensor& g = c.grad();
  Tensor zero = zeros({}, TensorOptions(g.dtype()).device(g.device()));
  Tensor is_zero = x == 0.0;
  Tensor zeros_so_far = cumsum(is_zero.to(x.dtype()), d);
  Tensor before = zeros_so_far == 0.0;
  Tensor first = logical_and(is_zero, zeros_so_far == 1.0);
  Tensor grad_before = reverse_cumsum(where(before, g * out, zero), d) / where(before, x, ones_like(x));
  Tensor grad_first = reverse_cumsum(g * cumprod(where(first, ones_like(x), x), d), d);
  return {where(before, grad_before, where(first, grad_first, zero))};
}

// ---- composites --------------------------------------------------------
// attrs: dims (as given), keepdim
TensorList mean_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  NABLA_CHECK(is_floating(x.dtype()), "mean: expected a floating point input, got ", x.dtype(),
              "; convert it with .to(kFloat32)");
  Shape dims = reduction_dims(x, a.ints(0), "mean");
  int64_t n = 1;
  for (int64_t d : dims) n *= x.sizes()[d];
  return {sum(x, dims, a.b(1)) / static_cast<double>(n)};
}
}  // namespace

// var: a kernel (the mean, then the summed squared deviations, as the
// composite it replaces computed them) and PyTorch's rule 2 g (x - mean) /
// (n - correction). Autograd through the composite added -mean(2 g c) / n,
// which is 0 in exact arithmetic but NaN for a slice holding an infinity
// (PyTorch: NaN only at the infinity). attrs: dims (normalized), correction, keepdim.
int64_t reduced_count(const Shape& sizes, const Shape& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes[d];
  return n;
}

double var_denominator(const Shape& sizes, const Attrs& a) {
  return std::max<double>(0.0, static_cast<double>(reduced_count(sizes, a.ints(0)) - a.i(1)));
}

namespace {
OutputMetas infer_var(const OpDef&, Inputs in, const Attrs& a) {
  NABLA_CHECK(is_floating(in[0].dtype()), "var: expected a floating point input, got ", in[0].dtype());
  return {{reduced_shape(in[0].sizes(), a.ints(0), a.b(2)), in[0].dtype()}};
}
TensorList var_grad(GradCtx& c) {
  Tensor x = c.input(0);
  const Shape& dims = c.attrs().ints(0);
  Tensor g = c.grad();
  if (!c.attrs().b(2)) g = reshape(g, reduced_shape(x.sizes(), dims, true));
  return {g * (x - mean(x, dims, true)) * (2.0 / var_denominator(x.sizes(), c.attrs()))};
}
// Whether a gradient through x may be asked for: recorded now (eager
// autograd) or later (a graph value's gradients() come from its nodes). The
// composites below pick their gradient-shaping form only then: their values
// are the same either way, and the plain form costs fewer ops.
bool may_need_grad(const Tensor& x) { return x.is_symbolic() || (GradMode::is_enabled() && x.requires_grad()); }

// Note [Subgradient at zero]: s^e (e = 1/2 for sqrt) with the gradient taken
// as 0 where s == 0, where the true one is infinite (e < 1) and would turn
// into NaN further back (inf * 0). PyTorch's norm and std backward give 0
// there, the subgradient that keeps a zero row (padding, a zero-initialized
// bias) from poisoning training. The double where keeps every branch finite,
// so second derivatives stay finite too; NaN inputs still give NaN.
Tensor pow_zero_grad_at_zero(const Tensor& s, double e) {
  if (!may_need_grad(s)) return e == 0.5 ? sqrt(s) : pow(s, e);
  Tensor is_zero = s == 0.0;
  Tensor safe = where(is_zero, ones_like(s), s);
  Tensor r = e == 0.5 ? sqrt(safe) : pow(safe, e);
  return where(is_zero, zeros_like(s), r);
}

// attrs: p, dims, keepdim
TensorList norm_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  double p = a.f(0);
  const Shape& dims = a.ints(1);
  bool keep = a.b(2);
  if (std::isinf(p)) {
    if (!may_need_grad(x)) return {p > 0 ? amax(abs(x), dims, keep) : amin(abs(x), dims, keep)};
    // A slice holding NaN has norm NaN and, as in PyTorch (whose mask picks
    // the NaNs and whose sgn(NaN) is 0), gradient 0: the where() gives its
    // elements none, where amax/amin's own rule would give NaN.
    Tensor ax = abs(x);
    Tensor nan_slice = any(isnan(x), dims, keep);
    Tensor finite_part = where(isnan(ax), zeros_like(ax), ax);
    Tensor m = p > 0 ? amax(finite_part, dims, keep) : amin(finite_part, dims, keep);
    return {where(nan_slice, full_like(m, std::numeric_limits<double>::quiet_NaN()), m)};
  }
  if (p == 1.0) return {sum(abs(x), dims, keep)};
  if (p == 2.0) return {pow_zero_grad_at_zero(sum(x * x, dims, keep), 0.5)};
  NABLA_CHECK(p > 0, "norm: p must be positive or inf, got ", p);
  // |x|^p for p < 1 has an infinite slope at 0: there the value is |x| itself
  // (0, slope sign(0) = 0), so the gradient is 0 * upstream, as PyTorch's
  // masked x |x|^(p-2) times g / norm^(p-1) (NaN only in a row with an inf).
  Tensor ax = abs(x);
  Tensor powered;
  if (p < 1.0 && may_need_grad(x)) {
    Tensor at_zero = ax == 0.0;
    powered = where(at_zero, ax, pow(where(at_zero, ones_like(ax), ax), p));
  } else {
    powered = pow(ax, p);
  }
  return {pow_zero_grad_at_zero(sum(powered, dims, keep), 1.0 / p)};
}
// attrs: dims, keepdim
TensorList logsumexp_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  Shape dims = reduction_dims(x, a.ints(0), "logsumexp");
  // Nothing to reduce: log(0) = -inf where a reduced dim is empty, as in PyTorch
  // (amax, used below for stability, has no value there).
  if (x.numel() == 0) return {log(sum(exp(x), dims, a.b(1)))};
  Tensor m = amax(x, dims, true).detach();
  m = where(isinf(m), zeros_like(m), m);  // all -inf rows stay -inf, no nan
  Tensor r = log(sum(exp(x - m), dims, true)) + m;
  return {a.b(1) ? r : reshape(r, reduced_shape(x.sizes(), dims, false))};
}

}  // namespace

extern constinit const OpDef sum_op{.name = "sum", .attr_names = "dims,keepdim", .infer = infer_reduce,
                   .grad = [](GradCtx& c) -> TensorList { return {expand_back(c.grad(), c)}; },
                   .flags = kNativeReducedFloat,  // float16/bfloat16 widened in the loops (kernels/cpu/reduce.cpp)
                   .save_inputs = 0};
extern constinit const OpDef prod_op{.name = "prod", .attr_names = "dims,keepdim", .infer = infer_reduce,
                    .grad = [](GradCtx& c) -> TensorList {
                      // Product of the others: out / x, with care where x == 0.
                      Tensor x = c.input(0);
                      const Shape& dims = c.attrs().ints(0);
                      Tensor is_zero = x == 0.0;
                      Tensor zeros_count = sum(is_zero.to(x.dtype()), dims, true);
                      Tensor nonzero_prod = prod(where(is_zero, ones_like(x), x), dims, true);
                      Tensor out = c.output(0);
                      if (!c.attrs().b(1)) out = reshape(out, reduced_shape(x.sizes(), dims, true));
                      Tensor others = where(is_zero, where(zeros_count == 1.0, nonzero_prod, zeros_like(nonzero_prod)),
                                            out / where(is_zero, ones_like(x), x));
                      return {expand_back(c.grad(), c) * others};
                    },
                    .flags = kSaveOutputs};
extern constinit const OpDef amax_op{.name = "amax", .attr_names = "dims,keepdim", .infer = infer_reduce,
                    .grad = amax_grad, .flags = kSaveOutputs};
extern constinit const OpDef amin_op{.name = "amin", .attr_names = "dims,keepdim", .infer = infer_reduce,
                    .grad = amax_grad, .flags = kSaveOutputs};
extern constinit const OpDef all_op{.name = "all", .attr_names = "dims,keepdim", .infer = infer_reduce,
                   .flags = kNonDifferentiable};
extern constinit const OpDef any_op{.name = "any", .attr_names = "dims,keepdim", .infer = infer_reduce,
                   .flags = kNonDifferentiable};
extern constinit const OpDef max_dim_op{.name = "max_dim", .attr_names = "dim,keepdim", .infer = infer_arg_reduce,
                       .grad = arg_reduce_grad, .flags = kSaveOutputs,
                       .save_inputs = 0, .num_differentiable_outputs = 1};
extern constinit const OpDef min_dim_op{.name = "min_dim", .attr_names = "dim,keepdim", .infer = infer_arg_reduce,
                       .grad = arg_reduce_grad, .flags = kSaveOutputs,
                       .save_inputs = 0, .num_differentiable_outputs = 1};
extern constinit const OpDef cumsum_op{.name = "cumsum", .attr_names = "dim", .infer = infer_scan,
                      .grad = [](GradCtx& c) -> TensorList { return {reverse_cumsum(c.grad(), c.attrs().i(0))}; },
                      .save_inputs = 0};
extern constinit const OpDef cumprod_op{.name = "cumprod", .attr_names = "dim", .infer = infer_scan,
                       .grad = cumprod_grad, .flags = kSaveOutputs};
extern constinit const OpDef mean_op{.name = "mean", .attr_names = "dims,keepdim", .composite = mean_composite};
extern constinit const OpDef var_op{.name = "var", .attr_names = "dims,correction,keepdim", .infer = infer_var,
                                    .grad = var_grad};
extern constinit const OpDef norm_op{.name = "norm", .attr_names = "p,dims,keepdim", .composite = norm_composite};
extern constinit const OpDef logsumexp_op{.name = "logsumexp", .attr_names = "dims,keepdim",
                                          .composite = logsumexp_composite};

namespace {
detail::RegisterOps register_reduction{&sum_op,     &prod_op,    &amax_op,   &amin_op, &all_op, &any_op,
                                       &max_dim_op, &min_dim_op, &cumsum_op, &cumprod_op, &mean_op, &var_op,
                                       &norm_op,    &logsumexp_op};
}

Tensor sum(const Tensor& x, IntList dims, bool keepdim, std::optional<DType> dtype) {
  Tensor in = dtype ? cast(x, *dtype) : x;
  return call1(sum_op, {in}, {reduction_dims(in, dims, "sum"), keepdim});
}
Tensor mean(const Tensor& x, IntList dims, bool keepdim) { return call1(mean_op, {x}, {dims.shape(), keepdim}); }
Tensor prod(const Tensor& x, IntList dims, bool keepdim) {
  return call1(prod_op, {x}, {reduction_dims(x, dims, "prod"), keepdim});
}
Tensor amax(const Tensor& x, IntList dims, bool keepdim) {
  return call1(amax_op, {x}, {reduction_dims(x, dims, "amax"), keepdim});
}
Tensor amin(const Tensor& x, IntList dims, bool keepdim) {
  return call1(amin_op, {x}, {reduction_dims(x, dims, "amin"), keepdim});
}

namespace {
// max()/min() of all elements: amax/amin, except that with NaN present the
// value is NaN and the gradient is split between the NaN elements (PyTorch's
// evenly_distribute_backward), where amax's rule would give every element NaN.
Tensor extreme_of_all(const Tensor& x, bool is_max) {
  if (!is_floating(x.dtype()) || !may_need_grad(x)) return is_max ? amax(x) : amin(x);
  Tensor nan_mask = isnan(x);
  Tensor nan_count = sum(nan_mask.to(x.dtype()));
  Tensor numbers = where(nan_mask, zeros_like(x), x);  // amax/amin see no NaN
  Tensor extreme = is_max ? amax(numbers) : amin(numbers);
  Tensor nan_mean = sum(where(nan_mask, x, zeros_like(x))) / clamp_min(nan_count, 1.0);
  return where(nan_count > 0.0, nan_mean, extreme);
}
}  // namespace

// The public functions below run other ops (max runs amax, argmax runs max
// along a dim, ...): errors name the function called (Note [User-facing op names]).
Tensor max(const Tensor& x) try {
  NABLA_CHECK(x.numel() > 0, "max: the input is empty (shape ", x.sizes(), "); specify a dim or give elements");
  return extreme_of_all(x, true);
} catch (const Error&) {
  detail::rethrow_naming("max");
}
Tensor min(const Tensor& x) try {
  NABLA_CHECK(x.numel() > 0, "min: the input is empty (shape ", x.sizes(), "); specify a dim or give elements");
  return extreme_of_all(x, false);
} catch (const Error&) {
  detail::rethrow_naming("min");
}
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) try {
  auto r = call(max_dim_op, std::span<const Tensor>(&x, 1), {wrap_dim(dim, x.dim(), "max"), keepdim});
  return {r[0], r[1]};
} catch (const Error&) {
  detail::rethrow_naming("max");
}
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) try {
  auto r = call(min_dim_op, std::span<const Tensor>(&x, 1), {wrap_dim(dim, x.dim(), "min"), keepdim});
  return {r[0], r[1]};
} catch (const Error&) {
  detail::rethrow_naming("min");
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) try {
  NABLA_CHECK(dim || x.numel() > 0, "argmax: the input is empty (shape ", x.sizes(), "); specify a dim to reduce");
  if (!dim) return max(reshape(x, {-1}), 0, false).second;
  return max(x, *dim, keepdim).second;
} catch (const Error&) {
  detail::rethrow_naming("argmax");
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) try {
  NABLA_CHECK(dim || x.numel() > 0, "argmin: the input is empty (shape ", x.sizes(), "); specify a dim to reduce");
  if (!dim) return min(reshape(x, {-1}), 0, false).second;
  return min(x, *dim, keepdim).second;
} catch (const Error&) {
  detail::rethrow_naming("argmin");
}
Tensor var(const Tensor& x, IntList dims, Correction correction, bool keepdim) {
  return call1(var_op, {x}, {reduction_dims(x, dims, "var"), correction.value, keepdim});
}
Tensor var(const Tensor& x, IntList dims, bool unbiased, bool keepdim) {
  return var(x, dims, Correction{unbiased ? 1 : 0}, keepdim);
}
Tensor std(const Tensor& x, IntList dims, Correction correction, bool keepdim) try {
  // A constant slice has std 0 and gradient 0 (See Note [Subgradient at zero]).
  return pow_zero_grad_at_zero(var(x, dims, correction, keepdim), 0.5);
} catch (const Error&) {
  detail::rethrow_naming("std");
}
Tensor std(const Tensor& x, IntList dims, bool unbiased, bool keepdim) {
  return std(x, dims, Correction{unbiased ? 1 : 0}, keepdim);
}
Tensor norm(const Tensor& x, double p, IntList dims, bool keepdim) {
  return call1(norm_op, {x}, {p, reduction_dims(x, dims, "norm"), keepdim});
}
Tensor logsumexp(const Tensor& x, IntList dims, bool keepdim) {
  return call1(logsumexp_op, {x}, {dims.shape(), keepdim});
}
Tensor all(const Tensor& x, IntList dims, bool keepdim) {
  return call1(all_op, {x}, {reduction_dims(x, dims, "all"), keepdim});
}
Tensor any(const Tensor& x, IntList dims, bool keepdim) {
  return call1(any_op, {x}, {reduction_dims(x, dims, "any"), keepdim});
}
Tensor cumsum(const Tensor& x, int64_t dim) {
  NABLA_CHECK(x.defined(), "cumsum: input 0 is an undefined tensor");
  return call1(cumsum_op, {x}, {wrap_dim(dim, x.dim(), "cumsum")});
}
Tensor cumprod(const Tensor& x, int64_t dim) {
  NABLA_CHECK(x.defined(), "cumprod: input 0 is an undefined tensor");
  return call1(cumprod_op, {x}, {wrap_dim(dim, x.dim(), "cumprod")});
}

}  // namespace nabla
