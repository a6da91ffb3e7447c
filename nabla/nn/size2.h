// Size2: a 2-D size argument of a layer (kernel_size, stride, padding, ...),
// given as one int used for both spatial dims or as {h, w} — PyTorch's
// `_pair`. Layers store it and hand it to the ops as an IntList.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "nabla/core/error.h"
#include "nabla/core/small_vector.h"

namespace nabla::nn {

struct Size2 {
  Size2(int64_t v) : v{v, v} {}  // NOLINT(google-explicit-constructor): `3` means {3, 3}
  Size2(int64_t h, int64_t w) : v{h, w} {}
  int64_t operator[](std::size_t i) const { return v[i]; }
  IntList list() const { return IntList(v.data(), 2); }
  bool all(int64_t x) const { return v[0] == x && v[1] == x; }
  bool positive() const { return v[0] > 0 && v[1] > 0; }
  bool non_negative() const { return v[0] >= 0 && v[1] >= 0; }
  // "(h, w)", as PyTorch prints tuples.
  std::string str() const { return detail::concat('(', v[0], ", ", v[1], ')'); }
  std::array<int64_t, 2> v;
};

}  // namespace nabla::nn
