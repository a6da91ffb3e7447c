// pybind11 conversions for the small nabla value types that cross the Python
// boundary: IntList (an int or a sequence of ints), Scalar (bool, int, float)
// and Device (a string such as "cpu" or "cuda:0"). Tensors are a bound class.
#pragma once
#include <pybind11/pybind11.h>

#include "nabla/nabla.h"

namespace pybind11::detail {

template <>
struct type_caster<nabla::IntList> {
  PYBIND11_TYPE_CASTER(nabla::IntList, const_name("Sequence[int]"));
  bool load(handle src, bool) {
    if (PyLong_Check(src.ptr()) && !PyBool_Check(src.ptr())) {
      value = nabla::IntList(src.cast<int64_t>());
      return true;
    }
    if (!PyTuple_Check(src.ptr()) && !PyList_Check(src.ptr())) return false;
    std::vector<int64_t> v;
    for (handle item : reinterpret_borrow<sequence>(src)) {
      if (!PyLong_Check(item.ptr()) || PyBool_Check(item.ptr())) return false;
      v.push_back(item.cast<int64_t>());
    }
    value = nabla::IntList(v);
    return true;
  }
  static handle cast(const nabla::IntList& src, return_value_policy, handle) {
    tuple t(src.size());
    for (std::size_t i = 0; i < src.size(); ++i) t[i] = int_(src.data()[i]);
    return t.release();
  }
};

// Python ints stay integers (an int tensor plus 2 stays int, as in PyTorch);
// floats are doubles; bools are bools.
template <>
struct type_caster<nabla::Scalar> {
  PYBIND11_TYPE_CASTER(nabla::Scalar, const_name("float | int | bool"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) value = nabla::Scalar(o == Py_True);
    else if (PyLong_Check(o)) value = nabla::Scalar(src.cast<int64_t>());
    else if (PyFloat_Check(o)) value = nabla::Scalar(PyFloat_AsDouble(o));
    else return false;
    return true;
  }
  static handle cast(const nabla::Scalar& s, return_value_policy, handle) {
    return float_(s.to_double()).release();
  }
};

template <>
struct type_caster<nabla::Device> {
  PYBIND11_TYPE_CASTER(nabla::Device, const_name("str"));
  bool load(handle src, bool) {
    if (!PyUnicode_Check(src.ptr())) return false;
    value = nabla::Device(src.cast<std::string>());
    return true;
  }
  static handle cast(const nabla::Device& d, return_value_policy, handle) { return str(d.str()).release(); }
};

}  // namespace pybind11::detail
