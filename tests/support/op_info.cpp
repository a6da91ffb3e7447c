#include "op_info.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace nabla::testing {

std::vector<OpInfo>& op_infos() {
  static std::vector<OpInfo> infos;
  return infos;
}

std::vector<std::size_t> op_info_indices() {
  std::vector<std::size_t> r;
  for (std::size_t i = 0; i < op_infos().size(); ++i) r.push_back(i);
  return r;
}

OpInfo make_op_info(const std::string& name, const std::string& op, std::function<Tensors(const Tensors&)> run,
                    std::function<std::vector<Tensors>()> samples, std::function<Tensors(const Tensors&)> reference,
                    std::vector<int> grad_inputs) {
  OpInfo info;
  info.name = name;
  info.covers = {op};
  info.run = std::move(run);
  info.samples = std::move(samples);
  info.reference = std::move(reference);
  info.grad_inputs = std::move(grad_inputs);
  return info;
}

std::vector<double> values(const Tensor& t) { return t.detach().to_vector<double>(); }

Tensor from_values(const std::vector<double>& v, const Shape& shape, DType dtype) { return tensor(v, shape).to(dtype); }

std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

static Shape broadcast(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Index into a (possibly broadcast) operand of shape `s` for output index `idx`.
static int64_t broadcast_index(const std::vector<int64_t>& idx, const Shape& s) {
  std::vector<int64_t> sub(s.size());
  std::size_t off = idx.size() - s.size();
  for (std::size_t d = 0; d < s.size(); ++d) sub[d] = s[d] == 1 ? 0 : idx[d + off];
  return ravel(sub, s);
}

Tensor ref_unary(const Tensor& x, const std::function<double(double)>& f, DType out) {
  std::vector<double> v = values(x);
  for (double& e : v) e = f(e);
  return from_values(v, x.sizes(), out);
}

Tensor ref_binary(const Tensor& a, const Tensor& b, const std::function<double(double, double)>& f, DType out) {
  Shape s = broadcast(a.sizes(), b.sizes());
  std::vector<double> va = values(a), vb = values(b);
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  std::vector<double> r(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    auto idx = unravel(i, s);
    r[i] = f(va[broadcast_index(idx, a.sizes())], vb[broadcast_index(idx, b.sizes())]);
  }
  return from_values(r, s, out);
}

Tensor ref_reduce(const Tensor& x, std::vector<int64_t> dims, bool keepdim,
                  const std::function<double(const std::vector<double>&)>& f) {
  int64_t nd = x.dim();
  if (dims.empty())
    for (int64_t d = 0; d < nd; ++d) dims.push_back(d);
  for (auto& d : dims) d = d < 0 ? d + nd : d;
  std::vector<bool> red(static_cast<std::size_t>(nd));
  for (int64_t d : dims) red[d] = true;
  Shape kept_shape;  // keepdim shape
  for (int64_t d = 0; d < nd; ++d) kept_shape.push_back(red[d] ? 1 : x.sizes()[d]);
  int64_t out_n = 1;
  for (int64_t d : kept_shape) out_n *= d;
  std::vector<std::vector<double>> groups(static_cast<std::size_t>(out_n));
  std::vector<double> v = values(x);
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto idx = unravel(i, x.sizes());
    for (int64_t d = 0; d < nd; ++d)
      if (red[d]) idx[d] = 0;
    groups[ravel(idx, kept_shape)].push_back(v[i]);
  }
  std::vector<double> r;
  for (auto& g : groups) r.push_back(f(g));
  Shape out_shape;
  for (int64_t d = 0; d < nd; ++d)
    if (!red[d])
      out_shape.push_back(x.sizes()[d]);
    else if (keepdim)
      out_shape.push_back(1);
  return from_values(r, out_shape);
}

Tensor sample(IntList shape, double lo, double hi, uint64_t seed) {
  manual_seed(seed);
  return rand(shape, dtype(kFloat64)) * (hi - lo) + lo;
}

Tensor sample_positive(IntList shape, uint64_t seed) { return sample(shape, 0.5, 2.5, seed); }

bool covers_random_op(const OpInfo& info) {
  for (const std::string& name : info.covers) {
    const OpDef* op = find_op(name);
    if (op && op->has(kRandom)) return true;
  }
  return false;
}

Tensor noncontiguous_copy(const Tensor& x) {
  if (x.dim() == 0) return x.clone();
  Shape big = x.sizes();
  big.back() *= 2;
  Tensor buf = full(big, 777.0, TensorOptions(x.dtype()));
  Tensor view = buf.slice(-1, 0, std::nullopt, 2);
  {
    NoGradGuard g;
    view.copy_(x);
  }
  return view;
}

std::string compare(const Tensor& actual, const Tensor& expected, double atol, double rtol) {
  std::ostringstream os;
  if (actual.sizes() != expected.sizes()) {
    os << "shape " << detail::concat(actual.sizes()) << " != expected " << detail::concat(expected.sizes());
    return os.str();
  }
  std::vector<double> a = values(actual), e = values(expected);
  for (std::size_t i = 0; i < a.size(); ++i) {
    bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
    bool same_inf = std::isinf(a[i]) && a[i] == e[i];
    if (both_nan || same_inf) continue;
    if (!(std::abs(a[i] - e[i]) <= atol + rtol * std::abs(e[i]))) {
      os << "element " << i << ": " << a[i] << " != expected " << e[i] << " (atol " << atol << ", rtol " << rtol << ")";
      return os.str();
    }
  }
  return "";
}

// ---- gradcheck -------------------------------------------------------------

namespace {

std::vector<int> grad_inputs(const OpInfo& info, const Tensors& inputs) {
  if (!info.grad_inputs.empty()) return info.grad_inputs;
  std::vector<int> r;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && is_floating(inputs[i].dtype())) r.push_back(static_cast<int>(i));
  return r;
}

// sum_k <w_k, out_k> over the differentiable outputs: a scalar whose gradient
// is a random vector-Jacobian product.
Tensor project(const Tensors& outs, const Tensors& weights) {
  Tensor total = zeros({}, dtype(kFloat64));
  for (std::size_t k = 0; k < outs.size(); ++k)
    if (weights[k].defined()) total = total + (outs[k] * weights[k]).sum();
  return total;
}

Tensors make_weights(const Tensors& outs, uint64_t seed) {
  Tensors w;
  manual_seed(seed);
  for (const Tensor& o : outs)
    w.push_back(is_floating(o.dtype()) ? rand(o.sizes(), dtype(kFloat64)) * 2.0 - 1.0 : Tensor());
  return w;
}

Tensors leaf_copies(const Tensors& inputs, const std::vector<int>& diff) {
  Tensors r;
  for (const Tensor& t : inputs) r.push_back(t.defined() ? t.detach().clone() : t);
  for (int i : diff) r[i].requires_grad_(true);
  return r;
}

// Numerical derivative of scalar_fn w.r.t. every element of every diff input.
std::vector<std::vector<double>> numerical(const std::function<double(const Tensors&)>& scalar_fn,
                                           const Tensors& inputs, const std::vector<int>& diff, double eps) {
  std::vector<std::vector<double>> grads;
  for (int i : diff) {
    std::vector<double> base = values(inputs[i]);
    std::vector<double> g(base.size());
    for (std::size_t e = 0; e < base.size(); ++e) {
      Tensors plus = inputs, minus = inputs;
      std::vector<double> vp = base, vm = base;
      vp[e] += eps;
      vm[e] -= eps;
      plus[i] = from_values(vp, inputs[i].sizes());
      minus[i] = from_values(vm, inputs[i].sizes());
      g[e] = (scalar_fn(plus) - scalar_fn(minus)) / (2 * eps);
    }
    grads.push_back(g);
  }
  return grads;
}

std::string compare_grads(const char* what, const std::vector<int>& diff, const Tensors& analytic,
                          const std::vector<std::vector<double>>& numeric, double atol, double rtol) {
  for (std::size_t k = 0; k < diff.size(); ++k) {
    std::vector<double> a = analytic[k].defined() ? values(analytic[k]) : std::vector<double>(numeric[k].size(), 0.0);
    for (std::size_t e = 0; e < a.size(); ++e) {
      double n = numeric[k][e];
      if (!(std::abs(a[e] - n) <= atol + rtol * std::abs(n))) {
        std::ostringstream os;
        os << what << ": input " << diff[k] << " element " << e << ": analytic " << a[e] << " vs numerical " << n;
        return os.str();
      }
    }
  }
  return "";
}

}  // namespace

std::string gradcheck(const OpInfo& info, const Tensors& inputs) {
  std::vector<int> diff = grad_inputs(info, inputs);
  if (diff.empty()) return "";
  Tensors leaves = leaf_copies(inputs, diff);
  Tensors outs = info.run(leaves);
  Tensors weights = make_weights(outs, 1234);
  Tensor y = project(outs, weights);
  TensorList xs;
  for (int i : diff) xs.push_back(leaves[i]);
  TensorList g = grad(TensorList{y}, xs, {}, std::nullopt, false, /*allow_unused=*/true);
  Tensors analytic(g.begin(), g.end());
  auto scalar = [&](const Tensors& in) {
    NoGradGuard ng;
    return project(info.run(in), weights).item<double>();
  };
  auto numeric = numerical(scalar, inputs, diff, info.grad_eps);
  return compare_grads("gradcheck", diff, analytic, numeric, info.grad_atol, info.grad_rtol);
}

Tensors vjp(const OpInfo& info, const Tensors& inputs) {
  std::vector<int> diff = grad_inputs(info, inputs);
  if (diff.empty()) return {};
  Tensors leaves = leaf_copies(inputs, diff);
  Tensors outs = info.run(leaves);
  Tensor y = project(outs, make_weights(outs, 1234));
  TensorList xs;
  for (int i : diff) xs.push_back(leaves[i]);
  TensorList g = grad(TensorList{y}, xs, {}, std::nullopt, false, /*allow_unused=*/true);
  return Tensors(g.begin(), g.end());
}

std::string gradgradcheck(const OpInfo& info, const Tensors& inputs) {
  std::vector<int> diff = grad_inputs(info, inputs);
  if (diff.empty()) return "";
  // h(x) = sum_k <u_k, d/dx_k <w, f(x)>>; check dh/dx analytically vs numerically.
  Tensors probe_outs;
  {
    NoGradGuard ng;
    probe_outs = info.run(inputs);
  }
  Tensors weights = make_weights(probe_outs, 99);
  Tensors us;
  manual_seed(7);
  for (int i : diff) us.push_back(rand(inputs[i].sizes(), dtype(kFloat64)) * 2.0 - 1.0);
  auto h = [&](const Tensors& in, bool create_graph) {
    Tensors leaves = leaf_copies(in, diff);
    if (create_graph)
      for (int i : diff) leaves[i] = in[i];
    Tensor y = project(info.run(leaves), weights);
    TensorList xs;
    for (int i : diff) xs.push_back(leaves[i]);
    TensorList g = grad(TensorList{y}, xs, {}, std::nullopt, /*create_graph=*/true, /*allow_unused=*/true);
    Tensor total = zeros({}, dtype(kFloat64));
    for (std::size_t k = 0; k < diff.size(); ++k)
      if (g[k].defined()) total = total + (g[k] * us[k]).sum();
    return total;
  };
  Tensors leaves = leaf_copies(inputs, diff);
  Tensor hv = h(leaves, true);
  TensorList xs;
  for (int i : diff) xs.push_back(leaves[i]);
  Tensors analytic;
  if (hv.requires_grad()) {
    TensorList g = grad(TensorList{hv}, xs, {}, std::nullopt, false, /*allow_unused=*/true);
    analytic.assign(g.begin(), g.end());
  } else {
    analytic.resize(diff.size());  // second derivative is zero everywhere
  }
  auto scalar = [&](const Tensors& in) { return h(in, false).item<double>(); };
  auto numeric = numerical(scalar, inputs, diff, info.grad_eps);
  return compare_grads("gradgradcheck", diff, analytic, numeric, info.grad_atol * 10, info.grad_rtol * 10);
}

Tensors cast_all(const Tensors& in, DType t) {
  Tensors r;
  for (const Tensor& x : in) r.push_back(x.defined() && is_floating(x.dtype()) ? x.to(t) : x);
  return r;
}

void check_forward(const OpInfo& info, DType t, bool noncontig) {
  auto samples = info.samples();
  for (std::size_t s = 0; s < samples.size(); ++s) {
    SCOPED_TRACE("sample " + std::to_string(s) + (t == kFloat32 ? " float32" : " float64") +
                 (noncontig ? " non-contiguous" : ""));
    Tensors in = cast_all(samples[s], t);
    if (noncontig)
      for (auto& x : in)
        if (x.defined() && x.dim() > 0) x = noncontiguous_copy(x);
    Tensors expected = info.reference(samples[s]);
    Tensors actual = info.run(in);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t k = 0; k < actual.size(); ++k) {
      // Floating results keep the dtype under test; others have the reference's.
      DType want = is_floating(expected[k].dtype()) ? t : expected[k].dtype();
      EXPECT_EQ(actual[k].dtype(), want) << info.name << " output " << k;
      double atol = t == kFloat32 ? info.atol32 : info.atol, rtol = t == kFloat32 ? info.rtol32 : info.rtol;
      std::string err = compare(actual[k], expected[k], atol, rtol);
      EXPECT_TRUE(err.empty()) << info.name << " output " << k << ": " << err;
    }
  }
}

OpInfo on_device(const OpInfo& info, Device dev) {
  OpInfo d = info;
  d.run = [run = info.run, dev](const Tensors& in) {
    Tensors moved;
    for (const Tensor& x : in) moved.push_back(x.defined() ? x.to(dev) : x);
    Tensors out = run(moved);
    for (Tensor& o : out) {
      if (!o.defined()) continue;
      EXPECT_EQ(o.device(), dev) << "an output is not on the inputs' device";
      o = o.cpu();
    }
    return out;
  };
  return d;
}

}  // namespace nabla::testing
