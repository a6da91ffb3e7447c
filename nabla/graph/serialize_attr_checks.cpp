// Range checks of a loaded op node's attributes, by the attribute names of
// the op table (OpDef::attr_names). The public op functions check and wrap
// their arguments (dims, strides, ...) before they reach the table, so some
// ops' inference trusts its attributes; a loaded file bypasses the public
// functions and must not be trusted the same way. These checks cover the
// attribute names ops share; they are not a proof that every inference is safe.
#include <string_view>

#include "nabla/graph/serialize_format.h"

namespace nabla::graph::nbg {

namespace {

bool is_one_of(std::string_view n, std::initializer_list<std::string_view> names) {
  for (std::string_view x : names)
    if (n == x) return true;
  return false;
}

}  // namespace

void check_attrs(const OpDef& op, Inputs ins, const Attrs& attrs, const std::string& at) {
  const int64_t nd = ins.empty() ? 0 : ins[0].dim();
  const int64_t dim_limit = nd > 0 ? nd : 1;  // a 0-dim tensor takes dim 0
  std::string_view names = op.attr_names;
  int64_t dim = -1;  // the "dim" attribute, once seen
  for (std::size_t k = 0; !names.empty() && k < attrs.size(); ++k) {
    std::size_t comma = names.find(',');
    std::string_view name = names.substr(0, comma);
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
    const AttrValue& v = attrs[k];
    const auto* i = std::get_if<int64_t>(&v);
    const auto* s = std::get_if<Shape>(&v);
    if (name == "dim" && i) {
      NABLA_CHECK(*i >= 0 && *i < dim_limit, at, ": attribute 'dim' of op '", op.name, "' is ", *i,
                  " for an input of ", nd, " dims; expected 0..", dim_limit - 1);
      dim = *i;
    } else if (name == "dims" && s) {
      for (int64_t d : *s)
        NABLA_CHECK(d >= 0 && d < dim_limit, at, ": attribute 'dims' of op '", op.name, "' holds ", d,
                    " for an input of ", nd, " dims; expected 0..", dim_limit - 1);
    } else if (is_one_of(name, {"chunks", "split_size", "step", "num_classes", "num_groups", "groups"}) && i) {
      NABLA_CHECK(*i > 0, at, ": attribute '", name, "' of op '", op.name, "' is ", *i, "; expected > 0");
    } else if (is_one_of(name, {"size", "k", "count", "num_weights"}) && i) {
      NABLA_CHECK(*i >= 0, at, ": attribute '", name, "' of op '", op.name, "' is ", *i, "; expected >= 0");
    } else if (is_one_of(name, {"kernel_size", "stride", "dilation"}) && s) {
      for (int64_t d : *s)
        NABLA_CHECK(d > 0, at, ": attribute '", name, "' of op '", op.name, "' holds ", d, "; expected > 0");
    } else if (is_one_of(name, {"padding", "output_padding", "repeats", "reps", "split_sizes", "output_size",
                                "input_sizes", "weight_sizes"}) && s) {
      for (int64_t d : *s)
        NABLA_CHECK(d >= 0, at, ": attribute '", name, "' of op '", op.name, "' holds ", d, "; expected >= 0");
    } else if (is_one_of(name, {"index", "start", "stop"}) && i && dim >= 0 && nd > 0) {
      const int64_t size = ins[0].sizes()[static_cast<std::size_t>(dim)];
      const int64_t hi = name == "index" ? size - 1 : size;
      NABLA_CHECK(*i >= 0 && *i <= hi, at, ": attribute '", name, "' of op '", op.name, "' is ", *i,
                  " for a dim of size ", size, "; expected 0..", hi);
    }
  }
}

}  // namespace nabla::graph::nbg
