#include "nabla/ops/elementwise_common.h"

namespace nabla {

Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    NABLA_CHECK(da == db || da == 1 || db == 1, op, ": shapes ", a, " and ", b,
                " cannot be broadcast together (dim ", i, ": ", da, " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool is_expandable_to(const Shape& shape, const Shape& target) {
  if (shape.size() > target.size()) return false;
  std::size_t off = target.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && shape[i] != target[i + off]) return false;
  return true;
}

namespace detail {

OutputMetas infer_unary(const OpDef&, Inputs in, const Attrs&) { return {{in[0].sizes(), in[0].dtype()}}; }
OutputMetas infer_unary_bool(const OpDef&, Inputs in, const Attrs&) { return {{in[0].sizes(), kBool}}; }

OutputMetas infer_binary(const OpDef& op, Inputs in, const Attrs&) {
  return {{broadcast_shapes(in[0].sizes(), in[1].sizes(), op.name), in[0].dtype()}};
}
OutputMetas infer_binary_bool(const OpDef& op, Inputs in, const Attrs&) {
  return {{broadcast_shapes(in[0].sizes(), in[1].sizes(), op.name), kBool}};
}

}  // namespace detail
}  // namespace nabla
