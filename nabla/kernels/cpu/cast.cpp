#include "nabla/kernels/cpu/elementwise.h"

namespace nabla::cpu {

template <class To, class From>
static To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) return static_cast<float>(v) != 0.0f || (std::is_integral_v<From> && v != From(0));
  else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) return static_cast<To>(static_cast<float>(v));
  else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) return To(static_cast<float>(v));
  else return static_cast<To>(v);
}

void cast_kernel(std::span<const Tensor> in, const Attrs&, std::span<Tensor> out) {
  visit_dtype(out[0].dtype(), [&]<class To>() {
    visit_dtype(in[0].dtype(), [&]<class From>() {
      map1<To, From>(out[0], in[0], [](From v) { return convert<To, From>(v); });
    });
  });
}

}  // namespace nabla::cpu
