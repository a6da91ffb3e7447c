// Attrs: the non-tensor arguments of an op (dims, flags, scalars), stored by
// position; each OpDef names them. Small and copyable: autograd nodes and graph
// nodes keep a copy.
#pragma once
#include <cstdint>
#include <string>
#include <variant>

#include "nabla/core/dtype.h"
#include "nabla/core/error.h"
#include "nabla/core/scalar.h"
#include "nabla/core/small_vector.h"

namespace nabla {

using AttrValue = std::variant<std::monostate, int64_t, double, bool, Shape, DType, Scalar, std::string>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<AttrValue> v) : values_(v) {}

  std::size_t size() const { return values_.size(); }
  const AttrValue& operator[](std::size_t k) const { return values_[k]; }
  void push_back(AttrValue v) { values_.push_back(std::move(v)); }

  int64_t i(std::size_t k) const { return get<int64_t>(k); }
  double f(std::size_t k) const {
    if (auto* s = std::get_if<Scalar>(&values_[k])) return s->to_double();
    if (auto* n = std::get_if<int64_t>(&values_[k])) return static_cast<double>(*n);
    return get<double>(k);
  }
  bool b(std::size_t k) const { return get<bool>(k); }
  const Shape& ints(std::size_t k) const { return get<Shape>(k); }
  DType dtype(std::size_t k) const { return get<DType>(k); }
  const Scalar& scalar(std::size_t k) const { return get<Scalar>(k); }
  const std::string& str(std::size_t k) const { return get<std::string>(k); }
  bool is_none(std::size_t k) const { return k >= values_.size() || std::holds_alternative<std::monostate>(values_[k]); }

 private:
  template <class T>
  const T& get(std::size_t k) const {
    NABLA_CHECK(k < values_.size(), "Attrs: attribute #", k, " missing (op has ", values_.size(), ")");
    const T* p = std::get_if<T>(&values_[k]);
    NABLA_CHECK(p, "Attrs: attribute #", k, " has the wrong kind");
    return *p;
  }
  SmallVector<AttrValue, 4> values_;
};

}  // namespace nabla
