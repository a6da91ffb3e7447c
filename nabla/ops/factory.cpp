#include "nabla/ops/factory.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <numbers>

#include "nabla/core/parallel.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// Fills a fresh CPU tensor by calling fn(i) for each flat index i.
template <class Fn>
Tensor generate(IntList sizes, DType t, const char* api, Fn&& fn) {
  Tensor out = make_empty(sizes, t, kCPU, api);
  visit_dtype(t, [&]<class T>() {
    T* p = static_cast<T*>(out.raw_data());
    parallel_for(0, out.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        double v = fn(i);
        if constexpr (std::is_same_v<T, bool>) p[i] = v != 0.0;
        else p[i] = static_cast<T>(static_cast<std::conditional_t<std::is_integral_v<T>, double, float>>(v));
      }
    });
  });
  return out;
}

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.device_ != kCPU) t = t.to(o.device_);
  if (o.requires_grad_) {
    NABLA_CHECK(is_floating(t.dtype()), "requires_grad: only floating point tensors can require gradients, got ",
                t.dtype());
    t.requires_grad_(true);
  }
  return t;
}

// What a *_like factory makes: the options given, and the input's dtype and
// device where they do not say (PyTorch's ones_like(x, dtype=torch.bool)
// stays on x's device).
TensorOptions like(const Tensor& x, const std::optional<TensorOptions>& o) {
  TensorOptions r = o ? *o : TensorOptions();
  if (!r.dtype_set_) r = r.dtype(x.dtype());
  if (!r.device_set_) r = r.device(x.device());
  return r;
}

// The tensor a *_like factory copies the shape of (the API names it if undefined).
const Tensor& like_source(const Tensor& x, const char* api) {
  NABLA_CHECK(x.defined(), api, ": input 0 is an undefined tensor");
  return x;
}

void check_float(DType t, const char* api) {
  NABLA_CHECK(is_floating(t), api, ": expected a floating point dtype, got ", t);
}

}  // namespace

Tensor empty(IntList sizes, TensorOptions o) { return finish(make_empty(sizes, o.dtype_, kCPU), o); }
Tensor full(IntList sizes, const Scalar& v, TensorOptions o) {
  Tensor t = make_empty(sizes, o.dtype_, kCPU, "full");
  visit_dtype(o.dtype_, [&]<class T>() {
    T val = v.to<T>();
    T* p = static_cast<T*>(t.raw_data());
    std::fill(p, p + t.numel(), val);
  });
  return finish(t, o);
}
Tensor zeros(IntList sizes, TensorOptions o) {
  Tensor t = make_empty(sizes, o.dtype_, kCPU, "zeros");
  std::memset(t.raw_data(), 0, static_cast<std::size_t>(t.numel()) * itemsize(t.dtype()));
  return finish(t, o);
}
Tensor ones(IntList sizes, TensorOptions o) { return full(sizes, 1, o); }

Tensor arange(const Scalar& end, TensorOptions o) { return arange(0, end, 1, o); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions o) {
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  NABLA_CHECK(std::isfinite(s) && std::isfinite(e) && !std::isnan(st), "arange: the range [", start, ", ", end,
              ") with step ", step, " is not a range of numbers; expected finite start and end (and a step that "
              "is not nan)");
  NABLA_CHECK(st != 0.0, "arange: step must be nonzero");
  NABLA_CHECK((e - s) / st >= 0 || s == e, "arange: the range [", start, ", ", end, ") with step ", step,
              " is empty in the wrong direction; expected sign(step) == sign(end - start)");
  if (!start.is_floating() && !end.is_floating() && !step.is_floating() && !o.dtype_set_)
    o.dtype_ = kInt64;  // integer ranges give int64, as in PyTorch
  const double count = std::ceil((e - s) / st);
  NABLA_CHECK(count < 9.2e18, "arange: the range [", start, ", ", end, ") with step ", step, " has ", count,
              " elements, more than a tensor can hold (at most 2^63 - 1)");
  int64_t n = static_cast<int64_t>(count);
  return finish(generate({n}, o.dtype_, "arange", [&](int64_t i) { return s + st * static_cast<double>(i); }), o);
}
Tensor linspace(double start, double end, int64_t steps, TensorOptions o) {
  NABLA_CHECK(steps >= 0, "linspace: steps must be >= 0, got ", steps);
  double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  return finish(generate({steps}, o.dtype_, "linspace", [&](int64_t i) {
                  // Symmetric like PyTorch: the second half counts back from `end`.
                  return i < steps / 2 ? start + step * static_cast<double>(i)
                                       : end - step * static_cast<double>(steps - 1 - i);
                }),
                o);
}
Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions o) {
  int64_t cols = m.value_or(n);
  return finish(generate({n, cols}, o.dtype_, "eye", [&](int64_t i) { return i / cols == i % cols ? 1.0 : 0.0; }), o);
}

Tensor empty_like(const Tensor& x, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "empty_like").sizes();  // before like(x, o) reads x
  return empty(sizes, like(x, o));
}
Tensor zeros_like(const Tensor& x, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "zeros_like").sizes();  // before like(x, o) reads x
  return zeros(sizes, like(x, o));
}
Tensor ones_like(const Tensor& x, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "ones_like").sizes();  // before like(x, o) reads x
  return ones(sizes, like(x, o));
}
Tensor full_like(const Tensor& x, const Scalar& v, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "full_like").sizes();  // before like(x, o) reads x
  return full(sizes, v, like(x, o));
}
Tensor rand_like(const Tensor& x, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "rand_like").sizes();  // before like(x, o) reads x
  return rand(sizes, like(x, o));
}
Tensor randn_like(const Tensor& x, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "randn_like").sizes();  // before like(x, o) reads x
  return randn(sizes, like(x, o));
}

template <class T>
Tensor tensor(const std::vector<T>& values, IntList sizes, std::optional<TensorOptions> o) {
  int64_t n = checked_numel(sizes, "tensor");
  NABLA_CHECK(n == static_cast<int64_t>(values.size()), "tensor: ", values.size(), " values do not fill shape ",
              sizes, " (", n, " elements)");
  Tensor t = make_empty(sizes, dtype_v<T>, kCPU, "tensor");
  if (n > 0) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(T));
  TensorOptions opts = o.value_or(TensorOptions(dtype_v<T>));
  if (opts.dtype_ != dtype_v<T>) t = cast(t, opts.dtype_);
  return finish(t, opts);
}
template <>
Tensor tensor(const std::vector<bool>& values, IntList sizes, std::optional<TensorOptions> o) {
  std::vector<uint8_t> bytes(values.begin(), values.end());
  Tensor t = tensor(bytes, sizes, TensorOptions(kUInt8));
  return finish(cast(t, o ? o->dtype_ : kBool), o.value_or(TensorOptions(kBool)));
}
template Tensor tensor(const std::vector<float>&, IntList, std::optional<TensorOptions>);
template Tensor tensor(const std::vector<double>&, IntList, std::optional<TensorOptions>);
template Tensor tensor(const std::vector<int32_t>&, IntList, std::optional<TensorOptions>);
template Tensor tensor(const std::vector<int64_t>&, IntList, std::optional<TensorOptions>);
template Tensor tensor(const std::vector<uint8_t>&, IntList, std::optional<TensorOptions>);

Tensor tensor(std::initializer_list<double> values, TensorOptions o) {
  Tensor t = tensor(std::vector<double>(values), TensorOptions(kFloat64));
  return finish(cast(t, o.dtype_), o);
}
Tensor tensor(std::initializer_list<std::initializer_list<double>> rows, TensorOptions o) {
  std::vector<double> flat;
  int64_t cols = rows.size() ? static_cast<int64_t>(rows.begin()->size()) : 0;
  for (const auto& r : rows) {
    NABLA_CHECK(static_cast<int64_t>(r.size()) == cols, "tensor: ragged nested list: a row has ", r.size(),
                " values, expected ", cols);
    flat.insert(flat.end(), r.begin(), r.end());
  }
  Tensor t = tensor(flat, {static_cast<int64_t>(rows.size()), cols}, TensorOptions(kFloat64));
  return finish(cast(t, o.dtype_), o);
}

Tensor from_blob(void* data, IntList sizes, DType t, bool borrow) {
  int64_t n = checked_numel(sizes, "from_blob");
  NABLA_CHECK(data || n == 0, "from_blob: null data pointer for ", n, " elements");
  std::size_t bytes = static_cast<std::size_t>(n) * itemsize(t);
  if (borrow) {
    auto storage = make_ref<Storage>(data, bytes, kCPU);
    return Tensor(make_ref<TensorImpl>(storage, sizes.shape(), contiguous_strides(sizes), 0, t, kCPU));
  }
  Tensor out = make_empty(sizes, t, kCPU, "from_blob");
  if (bytes) std::memcpy(out.raw_data(), data, bytes);
  return out;
}

Tensor rand(IntList sizes, TensorOptions o) {
  check_float(o.dtype_, "rand");
  int64_t n = checked_numel(sizes, "rand");
  Generator& g = default_generator();
  uint64_t seed = g.seed(), base = g.reserve(static_cast<uint64_t>((n + 1) / 2));
  return finish(generate(sizes, o.dtype_, "rand", [&](int64_t i) {
                  auto w = Philox::at(seed, base, static_cast<uint64_t>(i / 2));
                  int lane = static_cast<int>(i % 2) * 2;
                  return Philox::to_unit_double(w[lane], w[lane + 1]);
                }),
                o);
}

Tensor normal(double mean, double std, IntList sizes, TensorOptions o) {
  check_float(o.dtype_, "normal");
  NABLA_CHECK(std >= 0, "normal: std must be >= 0, got ", std);
  int64_t n = checked_numel(sizes, "normal");
  Generator& g = default_generator();
  uint64_t seed = g.seed(), base = g.reserve(static_cast<uint64_t>(n));
  return finish(generate(sizes, o.dtype_, "normal", [&](int64_t i) {
                  // Box-Muller on two 32-bit uniforms per element.
                  auto w = Philox::at(seed, base, static_cast<uint64_t>(i));
                  double u1 = Philox::to_unit_double(w[0], w[1]);
                  double u2 = Philox::to_unit_double(w[2], w[3]);
                  double r = std::sqrt(-2.0 * std::log(1.0 - u1));
                  return mean + std * r * std::cos(2.0 * std::numbers::pi * u2);
                }),
                o);
}
Tensor randn(IntList sizes, TensorOptions o) { return normal(0.0, 1.0, sizes, o); }

Tensor randint(int64_t low, int64_t high, IntList sizes, TensorOptions o) {
  NABLA_CHECK(high > low, "randint: expected low < high, got low=", low, " high=", high);
  int64_t n = checked_numel(sizes, "randint");
  Generator& g = default_generator();
  uint64_t seed = g.seed(), base = g.reserve(static_cast<uint64_t>(n));
  uint64_t range = static_cast<uint64_t>(high - low);
  return finish(generate(sizes, o.dtype_, "randint", [&](int64_t i) {
                  auto w = Philox::at(seed, base, static_cast<uint64_t>(i));
                  uint64_t r = (uint64_t(w[0]) << 32 | w[1]) % range;
                  return static_cast<double>(low + static_cast<int64_t>(r));
                }),
                o);
}

Tensor bernoulli(IntList sizes, double p, TensorOptions o) {
  NABLA_CHECK(p >= 0.0 && p <= 1.0, "bernoulli: p must be in [0, 1], got ", p);
  Tensor u = rand(sizes, TensorOptions(kFloat64));
  return finish(cast(lt(u, scalar_tensor(p, kFloat64)), o.dtype_), o);
}
Tensor bernoulli(const Tensor& p) {
  like_source(p, "bernoulli");
  Tensor u = rand(p.sizes(), TensorOptions(kFloat64).device(p.device()));
  return cast(lt(u, p.detach().to(kFloat64)), p.dtype());
}

Tensor randperm(int64_t n, TensorOptions o) {
  NABLA_CHECK(n >= 0, "randperm: n must be >= 0, got ", n);
  // Sort random keys: the permutation depends only on the generator state.
  std::vector<double> keys = rand({n}, TensorOptions(kFloat64)).to_vector<double>();
  std::vector<int64_t> perm(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  return finish(cast(tensor(perm), o.dtype_), o);
}

Tensor scalar_tensor(const Scalar& s, TensorOptions o) { return full({}, s, o); }
Tensor scalar_tensor_like(const Scalar& s, const Tensor& x) {
  DType t = x.dtype();
  if (s.is_floating() && !is_floating(t)) t = kFloat32;
  else if (s.is_integral() && t == kBool) t = kInt64;
  return full({}, s, TensorOptions(t).device(x.device()));
}

}  // namespace nabla
