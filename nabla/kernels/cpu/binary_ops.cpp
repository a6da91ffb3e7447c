// The CPU kernels of the binary elementwise ops (ops/binary_ops.cpp): one
// scalar functor per op, run by the loops of kernels/cpu/elementwise.h.
#include <cmath>
#include <type_traits>

#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef add_op, sub_op, mul_op, div_op, floor_divide_op, trunc_divide_op, remainder_op, maximum_op,
    minimum_op, pow_op, copy_op, threshold_backward_op;

namespace cpu {
namespace {

template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Integer arithmetic wraps around (two's complement), as PyTorch's does in
// practice; done in the unsigned type, where wrapping is defined (a signed
// overflow is undefined behaviour: int64 constants of a model file are folded
// on import). The same instructions as the signed forms.
template <class T>
using Wrap = std::conditional_t<is_int<T>, std::make_unsigned_t<std::conditional_t<is_int<T>, T, int>>, T>;
struct AddFn { const Attrs& a; template <class T> T operator()(T x, T y) const { return static_cast<T>(Wrap<T>(x) + Wrap<T>(y)); } };
struct SubFn { const Attrs& a; template <class T> T operator()(T x, T y) const { return static_cast<T>(Wrap<T>(x) - Wrap<T>(y)); } };
struct MulFn { const Attrs& a; template <class T> T operator()(T x, T y) const { return static_cast<T>(Wrap<T>(x) * Wrap<T>(y)); } };
// x / -1 without the overflow (and x86's SIGFPE) of INT_MIN / -1: the wrapped negation.
template <class T>
T negated(T x) { return static_cast<T>(Wrap<T>(0) - Wrap<T>(x)); }
struct DivFn { const Attrs& a; template <class T> T operator()(T x, T y) const { return x / y; } };
struct FloorDivFn {
  const Attrs& a;
  template <class T> T operator()(T x, T y) const {
    if constexpr (is_int<T>) {
      if (y == 0) fail("floor_divide: integer division by zero");
      if (y == -1) return negated(x);
      T q = static_cast<T>(x / y);
      return (x % y != 0 && ((x < 0) != (y < 0))) ? static_cast<T>(q - 1) : q;
    } else if constexpr (std::is_same_v<T, bool>) {
      fail("floor_divide: not defined for bool tensors");
    } else {
      // PyTorch's div_floor_floating (Python's float //): through fmod, so
      // -inf // 1 is NaN and 3 // -inf is -1, not floor(x / y).
      if (y == T(0)) return x / y;
      T mod = std::fmod(x, y);
      T div = (x - mod) / y;
      if (mod != T(0) && (y < T(0)) != (mod < T(0))) div -= T(1);
      if (div == T(0)) return std::copysign(T(0), x / y);
      T floordiv = std::floor(div);
      return div - floordiv > T(0.5) ? floordiv + T(1) : floordiv;
    }
  }
};
struct TruncDivFn {
  const Attrs& a;
  template <class T> T operator()(T x, T y) const {
    if constexpr (is_int<T>) {
      if (y == 0) fail("div: integer division by zero");
      if (y == -1) return negated(x);
      return static_cast<T>(x / y);
    } else if constexpr (std::is_same_v<T, bool>) {
      fail("div: not defined for bool tensors");
    } else {
      return std::trunc(x / y);
    }
  }
};
struct RemainderFn {
  const Attrs& a;
  template <class T> T operator()(T x, T y) const {
    if constexpr (is_int<T>) {
      if (y == 0) fail("remainder: integer division by zero");
      if (y == -1) return T(0);
      T r = static_cast<T>(x % y);
      return (r != 0 && ((r < 0) != (y < 0))) ? static_cast<T>(r + y) : r;
    } else if constexpr (std::is_same_v<T, bool>) {
      fail("remainder: not defined for bool tensors");
    } else {
      T r = std::fmod(x, y);
      return (r != T(0) && ((r < T(0)) != (y < T(0)))) ? r + y : r;
    }
  }
};
struct MaximumFn {
  const Attrs& a;
  template <class T> T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) if (std::isnan(x) || std::isnan(y)) return x + y;
    return x > y ? x : y;
  }
};
struct MinimumFn {
  const Attrs& a;
  template <class T> T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) if (std::isnan(x) || std::isnan(y)) return x + y;
    return x < y ? x : y;
  }
};
struct PowFn {
  const Attrs& a;
  template <class T> T operator()(T x, T y) const {
    if constexpr (is_int<T>) {
      // A negative exponent (only reachable with a tensor exponent: a number
      // exponent is refused in pow(x, Scalar)) truncates as PyTorch's powi:
      // 1 stays 1, -1 alternates, anything else becomes 0 (0 too).
      if (y < 0) return x == 1 ? T(1) : x == -1 ? ((-y) % 2 ? T(-1) : T(1)) : T(0);
      Wrap<T> r = 1;
      Wrap<T> base = Wrap<T>(x);
      for (T e = y; e > 0; e >>= 1, base = static_cast<Wrap<T>>(base * base))
        if (e & 1) r = static_cast<Wrap<T>>(r * base);
      return static_cast<T>(r);
    } else {
      return static_cast<T>(std::pow(x, y));
    }
  }
};
// copy: the result is input 1 converted to input 0's dtype and shape.
void copy_kernel(Inputs in, const Attrs& attrs, std::span<Tensor> out) {
  const Tensor src[1] = {in[1]};
  cast_kernel(src, attrs, out);
}

// threshold_backward(g, x): g where x > threshold, else 0 (relu's backward in
// one pass; `x <= t` is false for a NaN x, which passes g, as in PyTorch).
// float16/bfloat16 (kNativeReducedFloat): compared in float32 and g rounded
// back through float32 (exact; a NaN gets its quiet bit), the float32
// fallback's results without its three passes.
void threshold_backward_kernel(Inputs in, const Attrs& attrs, std::span<Tensor> out) {
  const double threshold = attrs.f(0);
  auto run = [&]<class T>() {
    const T t = static_cast<T>(threshold);
    map2<T, T>(out[0], in[0], in[1], [t](T g, T x) { return x <= t ? T(0) : g; });
  };
  auto reduced = [&]<class T>() {
    const float t = static_cast<float>(threshold);
    map2<T, T>(out[0], in[0], in[1],
               [t](T g, T x) { return static_cast<float>(x) <= t ? T(0.0f) : T(static_cast<float>(g)); });
  };
  if (out[0].dtype() == kFloat64) run.operator()<double>();
  else if (out[0].dtype() == kFloat32) run.operator()<float>();
  else if (out[0].dtype() == kBFloat16) reduced.operator()<BFloat16>();
  else if (out[0].dtype() == kFloat16) reduced.operator()<Half>();
  else fail("threshold_backward: expected a floating point result, got ", out[0].dtype());
}

const KernelRegistrar kBinaryKernels{DeviceType::CPU, {
    {add_op, binary_same<AddFn>},
    {sub_op, binary_same<SubFn>},
    {mul_op, binary_same<MulFn>},
    {div_op, binary_same<DivFn>},
    {floor_divide_op, binary_same<FloorDivFn>},
    {trunc_divide_op, binary_same<TruncDivFn>},
    {remainder_op, binary_same<RemainderFn>},
    {maximum_op, binary_same<MaximumFn>},
    {minimum_op, binary_same<MinimumFn>},
    {pow_op, binary_same<PowFn>},
    {copy_op, copy_kernel},
    {threshold_backward_op, threshold_backward_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla
