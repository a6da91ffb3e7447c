#include "nabla/graph/passes/attrs_equal.h"

#include <variant>

namespace nabla::graph {

namespace {

bool value_equal(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, std::monostate>) return true;
        else if constexpr (std::is_same_v<T, Scalar>)
          return x.kind() == y.kind() && x.to_int() == y.to_int() &&
                 (x.to_double() == y.to_double() || (x.to_double() != x.to_double() && y.to_double() != y.to_double()));
        else if constexpr (std::is_same_v<T, double>) return x == y || (x != x && y != y);
        else return x == y;
      },
      a);
}

}  // namespace

bool attrs_equal(const Attrs& a, const Attrs& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!value_equal(a[k], b[k])) return false;
  return true;
}

}  // namespace nabla::graph
