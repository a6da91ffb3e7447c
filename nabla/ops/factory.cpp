#include "nabla/ops/factory.h"

#include <cmath>
#include <cstring>

#include "nabla/core/backend.h"
#include "nabla/core/user_op.h"
#include "nabla/core/memory_format.h"
#include "nabla/ops/memory_format.h"
#include "nabla/ops/ops.h"

namespace nabla {

extern const OpDef full_op, arange_op, linspace_op, eye_op;  // ops/factory_ops.cpp
extern const OpDef rand_op, normal_op, randint_op, bernoulli_scalar_op, bernoulli_op, randperm_op;  // random_ops.cpp

namespace {

// A clear error naming the API for a device that is not present.
void check_device(const TensorOptions& o, const char* api) {
  if (!o.device_.is_cpu()) [[unlikely]]
    backend_for(o.device_, api);
}
// A factory op's attrs with the options' device as its `device` attr (the
// last). Left out for the CPU (OpDef::device_attr): CPU factories stay about
// as cheap as they were. Returns `attrs` itself (a temporary of the caller's
// expression: not moved, not copied).
const Attrs& on_device(Attrs&& attrs, const OpDef& op, const TensorOptions& o, const char* api) {
  if (o.device_.is_cpu()) [[likely]]
    return attrs;
  check_device(o, api);
  while (attrs.size() < static_cast<std::size_t>(op.device_attr)) attrs.push_back(AttrValue());
  attrs.push_back(o.device_.str());
  return attrs;
}

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad_) {
    NABLA_CHECK(is_floating(t.dtype()), "requires_grad: only floating point tensors can require gradients, got ",
                t.dtype());
    t.requires_grad_(true);
  }
  return t;
}
// Host data (tensor(), from a C++ container) moved to the options' device.
Tensor finish_host(Tensor t, const TensorOptions& o) {
  if (o.device_ != kCPU) t = t.to(o.device_);
  return finish(std::move(t), o);
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

// The format a *_like factory gives: `format`, or with Preserve the input's
// (channels-last CPU tensors only; everything else is contiguous).
MemoryFormat like_format(const Tensor& x, MemoryFormat format, const TensorOptions& o) {
  if (format != MemoryFormat::Preserve) return format;
  if (x.is_symbolic() || !x.device().is_cpu() || !o.device_.is_cpu() || x.dim() != 4 || x.is_contiguous())
    return MemoryFormat::Contiguous;
  return suggest_memory_format(x);
}

void check_factory_format(IntList sizes, MemoryFormat format, const TensorOptions& o, const char* api) {
  NABLA_CHECK(format != MemoryFormat::Preserve, api, ": preserve_format needs a tensor to preserve the format of; "
              "use ", api, "_like, or contiguous_format / channels_last");
  NABLA_CHECK(format == MemoryFormat::Contiguous || sizes.size() == 4, api, ": channels_last needs 4 sizes (N, C, H, "
              "W), got ", sizes);
  NABLA_CHECK(format == MemoryFormat::Contiguous || o.device_.is_cpu(), api,
              ": channels_last tensors are supported on the CPU only, got device ", o.device_);
}

// A factory's tensor in `format`: filled (value given) or uninitialized.
Tensor make_in_format(IntList sizes, const std::optional<Scalar>& value, const TensorOptions& o, MemoryFormat format,
                      const char* api) try {
  check_factory_format(sizes, format, o, api);
  if (format == MemoryFormat::Contiguous)
    return value ? full(sizes, *value, o) : empty(sizes, o);
  Tensor t = make_empty(sizes, o.dtype_, o.device_, format, api);
  if (value) t.fill_(*value);
  return finish(std::move(t), o);
} catch (const Error&) {
  detail::rethrow_naming(api);
}

void check_floating(DType t, const char* api) {
  NABLA_CHECK(is_floating(t), api, ": expected a floating point dtype, got ", t);
}

// Reserves the Philox counters of one draw: (seed, offset) for the op's attrs.
std::pair<int64_t, int64_t> reserve_draw(uint64_t counters) {
  Generator& g = default_generator();
  const uint64_t seed = g.seed(), offset = g.reserve(counters);
  return {static_cast<int64_t>(seed), static_cast<int64_t>(offset)};
}

// Counters a draw of `sizes` uses: rand's layout puts two elements in one.
uint64_t counters_for(IntList sizes, const char* api, bool two_per_counter) {
  const auto n = static_cast<uint64_t>(checked_numel(sizes, api));
  return two_per_counter ? (n + 1) / 2 : n;
}

}  // namespace

// Factories run their op on the options' device; errors name the function
// called (zeros, not the op full): Note [User-facing op names].
Tensor empty(IntList sizes, TensorOptions o) try {
  return finish(make_empty(sizes, o.dtype_, o.device_, "empty"), o);
} catch (const Error&) {
  detail::rethrow_naming("empty");
}
static Tensor full_named(IntList sizes, const Scalar& v, const TensorOptions& o, const char* api) try {
  return finish(call1(full_op, {}, on_device({sizes.shape(), v, o.dtype_}, full_op, o, api)), o);
} catch (const Error&) {
  detail::rethrow_naming(api);
}
Tensor full(IntList sizes, const Scalar& v, TensorOptions o) { return full_named(sizes, v, o, "full"); }
Tensor zeros(IntList sizes, TensorOptions o) { return full_named(sizes, 0, o, "zeros"); }
Tensor ones(IntList sizes, TensorOptions o) { return full_named(sizes, 1, o, "ones"); }

Tensor arange(const Scalar& end, TensorOptions o) { return arange(0, end, 1, o); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions o) try {
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
  const auto n = static_cast<int64_t>(count);
  return finish(call1(arange_op, {}, on_device({s, st, n, o.dtype_}, arange_op, o, "arange")), o);
} catch (const Error&) {
  detail::rethrow_naming("arange");
}
Tensor linspace(double start, double end, int64_t steps, TensorOptions o) try {
  NABLA_CHECK(steps >= 0, "linspace: steps must be >= 0, got ", steps);
  return finish(call1(linspace_op, {}, on_device({start, end, steps, o.dtype_}, linspace_op, o, "linspace")), o);
} catch (const Error&) {
  detail::rethrow_naming("linspace");
}
Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions o) try {
  return finish(call1(eye_op, {}, on_device({n, m.value_or(n), o.dtype_}, eye_op, o, "eye")), o);
} catch (const Error&) {
  detail::rethrow_naming("eye");
}

// The *_like factories keep a channels-last input's format (PyTorch's
// default memory_format=torch.preserve_format).
Tensor empty_like(const Tensor& x, std::optional<TensorOptions> o) {
  return empty_like(like_source(x, "empty_like"), MemoryFormat::Preserve, o);
}
Tensor zeros_like(const Tensor& x, std::optional<TensorOptions> o) {
  return zeros_like(like_source(x, "zeros_like"), MemoryFormat::Preserve, o);
}
Tensor ones_like(const Tensor& x, std::optional<TensorOptions> o) {
  return ones_like(like_source(x, "ones_like"), MemoryFormat::Preserve, o);
}
Tensor full_like(const Tensor& x, const Scalar& v, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "full_like").sizes();  // before like(x, o) reads x
  const TensorOptions lo = like(x, o);
  const MemoryFormat format = like_format(x, MemoryFormat::Preserve, lo);
  if (format == MemoryFormat::Contiguous) return full(sizes, v, lo);
  return make_in_format(sizes, v, lo, format, "full_like");
}
Tensor rand_like(const Tensor& x, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "rand_like").sizes();  // before like(x, o) reads x
  const TensorOptions lo = like(x, o);
  const MemoryFormat format = like_format(x, MemoryFormat::Preserve, lo);
  if (format == MemoryFormat::Contiguous) return rand(sizes, lo);
  return finish(contiguous(rand(sizes, lo.requires_grad(false)), format), lo);  // a leaf in x's format
}
Tensor randn_like(const Tensor& x, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "randn_like").sizes();  // before like(x, o) reads x
  const TensorOptions lo = like(x, o);
  const MemoryFormat format = like_format(x, MemoryFormat::Preserve, lo);
  if (format == MemoryFormat::Contiguous) return randn(sizes, lo);
  return finish(contiguous(randn(sizes, lo.requires_grad(false)), format), lo);  // a leaf in x's format
}

Tensor empty(IntList sizes, TensorOptions o, MemoryFormat f) { return make_in_format(sizes, std::nullopt, o, f, "empty"); }
Tensor zeros(IntList sizes, TensorOptions o, MemoryFormat f) { return make_in_format(sizes, 0, o, f, "zeros"); }
Tensor ones(IntList sizes, TensorOptions o, MemoryFormat f) { return make_in_format(sizes, 1, o, f, "ones"); }
Tensor full(IntList sizes, const Scalar& v, TensorOptions o, MemoryFormat f) {
  return make_in_format(sizes, v, o, f, "full");
}
Tensor empty_like(const Tensor& x, MemoryFormat f, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "empty_like").sizes();  // before like(x, o) reads x
  const TensorOptions lo = like(x, o);
  const MemoryFormat format = like_format(x, f, lo);
  if (format == MemoryFormat::Contiguous) return empty(sizes, lo);  // the plain path, unchanged
  return make_in_format(sizes, std::nullopt, lo, format, "empty_like");
}
Tensor zeros_like(const Tensor& x, MemoryFormat f, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "zeros_like").sizes();  // before like(x, o) reads x
  const TensorOptions lo = like(x, o);
  const MemoryFormat format = like_format(x, f, lo);
  if (format == MemoryFormat::Contiguous) return zeros(sizes, lo);  // the plain path, unchanged
  return make_in_format(sizes, 0, lo, format, "zeros_like");
}
Tensor ones_like(const Tensor& x, MemoryFormat f, std::optional<TensorOptions> o) {
  const Shape& sizes = like_source(x, "ones_like").sizes();  // before like(x, o) reads x
  const TensorOptions lo = like(x, o);
  const MemoryFormat format = like_format(x, f, lo);
  if (format == MemoryFormat::Contiguous) return ones(sizes, lo);  // the plain path, unchanged
  return make_in_format(sizes, 1, lo, format, "ones_like");
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
  return finish_host(t, opts);
}
template <>
Tensor tensor(const std::vector<bool>& values, IntList sizes, std::optional<TensorOptions> o) {
  std::vector<uint8_t> bytes(values.begin(), values.end());
  Tensor t = tensor(bytes, sizes, TensorOptions(kUInt8));
  return finish_host(cast(t, o ? o->dtype_ : kBool), o.value_or(TensorOptions(kBool)));
}
template Tensor tensor(const std::vector<float>&, IntList, std::optional<TensorOptions>);
template Tensor tensor(const std::vector<double>&, IntList, std::optional<TensorOptions>);
template Tensor tensor(const std::vector<int32_t>&, IntList, std::optional<TensorOptions>);
template Tensor tensor(const std::vector<int64_t>&, IntList, std::optional<TensorOptions>);
template Tensor tensor(const std::vector<uint8_t>&, IntList, std::optional<TensorOptions>);

Tensor tensor(std::initializer_list<double> values, TensorOptions o) {
  Tensor t = tensor(std::vector<double>(values), TensorOptions(kFloat64));
  return finish_host(cast(t, o.dtype_), o);
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
  return finish_host(cast(t, o.dtype_), o);
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

// The random factories check their arguments and device before reserving
// counters, so a refused call leaves the generator where it was.
Tensor rand(IntList sizes, TensorOptions o) try {
  check_floating(o.dtype_, "rand");
  check_device(o, "rand");
  const auto [seed, offset] = reserve_draw(counters_for(sizes, "rand", true));
  return finish(call1(rand_op, {}, on_device({sizes.shape(), o.dtype_, seed, offset}, rand_op, o, "rand")), o);
} catch (const Error&) {
  detail::rethrow_naming("rand");
}

// randn leaves mean and std out (the op's defaults, 0 and 1).
static Tensor normal_named(std::optional<std::pair<double, double>> mean_std, IntList sizes, const TensorOptions& o,
                           const char* api) try {
  check_floating(o.dtype_, api);
  if (mean_std) NABLA_CHECK(mean_std->second >= 0, api, ": std must be >= 0, got ", mean_std->second);
  check_device(o, api);
  const auto [seed, offset] = reserve_draw(counters_for(sizes, api, false));
  Attrs attrs{sizes.shape(), o.dtype_, seed, offset};
  if (mean_std) {
    attrs.push_back(mean_std->first);
    attrs.push_back(mean_std->second);
  }
  return finish(call1(normal_op, {}, on_device(std::move(attrs), normal_op, o, api)), o);
} catch (const Error&) {
  detail::rethrow_naming(api);
}
Tensor normal(double mean, double std, IntList sizes, TensorOptions o) {
  return normal_named(std::pair{mean, std}, sizes, o, "normal");
}
Tensor randn(IntList sizes, TensorOptions o) { return normal_named(std::nullopt, sizes, o, "randn"); }

Tensor randint(int64_t low, int64_t high, IntList sizes, TensorOptions o) try {
  NABLA_CHECK(high > low, "randint: expected low < high, got low=", low, " high=", high);
  check_device(o, "randint");
  const auto [seed, offset] = reserve_draw(counters_for(sizes, "randint", false));
  return finish(call1(randint_op, {},
                      on_device({sizes.shape(), o.dtype_, seed, offset, low, high}, randint_op, o, "randint")),
                o);
} catch (const Error&) {
  detail::rethrow_naming("randint");
}

Tensor bernoulli(IntList sizes, double p, TensorOptions o) try {
  NABLA_CHECK(p >= 0.0 && p <= 1.0, "bernoulli: p must be in [0, 1], got ", p);
  check_device(o, "bernoulli");
  const auto [seed, offset] = reserve_draw(counters_for(sizes, "bernoulli", true));
  return finish(call1(bernoulli_scalar_op, {},
                      on_device({sizes.shape(), o.dtype_, seed, offset, p}, bernoulli_scalar_op, o, "bernoulli")),
                o);
} catch (const Error&) {
  detail::rethrow_naming("bernoulli");
}
// On p's device. No gradient flows to p (PyTorch's gradient is zero).
Tensor bernoulli(const Tensor& p) try {
  like_source(p, "bernoulli");
  const auto [seed, offset] = reserve_draw(counters_for(p.sizes(), "bernoulli", true));
  return call1(bernoulli_op, {p}, Attrs{seed, offset});
} catch (const Error&) {
  detail::rethrow_naming("bernoulli");
}

// Stable-sorts rand's n elements: the same counters as rand({n}).
Tensor randperm(int64_t n, TensorOptions o) try {
  NABLA_CHECK(n >= 0, "randperm: n must be >= 0, got ", n);
  check_device(o, "randperm");
  const auto [seed, offset] = reserve_draw((static_cast<uint64_t>(n) + 1) / 2);
  return finish(call1(randperm_op, {}, on_device({n, o.dtype_, seed, offset}, randperm_op, o, "randperm")), o);
} catch (const Error&) {
  detail::rethrow_naming("randperm");
}

Tensor scalar_tensor(const Scalar& s, TensorOptions o) { return full({}, s, o); }
Tensor scalar_tensor_like(const Scalar& s, const Tensor& x) {
  DType t = x.dtype();
  if (s.is_floating() && !is_floating(t)) t = kFloat32;
  else if (s.is_integral() && t == kBool) t = kInt64;
  return full({}, s, TensorOptions(t).device(x.device()));
}

}  // namespace nabla
