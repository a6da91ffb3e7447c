// The pieces every converter uses: ONNX element types, initializers,
// attributes, and OpContext (inputs, outputs, attributes by name, casts,
// constants). The converters themselves are in op_converters.cpp.
#include "nabla/onnx/op_export.h"

#include <cstdlib>

#include "nabla/core/error.h"
#include "nabla/ops/factory.h"
#include "nabla/ops/op.h"

namespace nabla::onnx::detail {

namespace onnxpb = ::onnx;

int32_t onnx_type(DType t, const std::string& where) {
  switch (t) {
    case DType::Bool: return onnxpb::TensorProto::BOOL;
    case DType::UInt8: return onnxpb::TensorProto::UINT8;
    case DType::Int32: return onnxpb::TensorProto::INT32;
    case DType::Int64: return onnxpb::TensorProto::INT64;
    case DType::Float16: return onnxpb::TensorProto::FLOAT16;
    case DType::BFloat16: return onnxpb::TensorProto::BFLOAT16;
    case DType::Float32: return onnxpb::TensorProto::FLOAT;
    case DType::Float64: return onnxpb::TensorProto::DOUBLE;
  }
  NABLA_CHECK(false, "onnx export: ", where, ": dtype ", t, " has no ONNX element type");
  return 0;
}

void add_initializer(onnxpb::GraphProto& g, const std::string& name, const Tensor& t, const std::string& where) {
  NABLA_CHECK(t.defined() && !t.is_symbolic(), "onnx export: ", where, ": initializer '", name,
              "' has no concrete value");
  onnxpb::TensorProto* p = g.add_initializer();
  p->set_name(name);
  p->set_data_type(onnx_type(t.dtype(), where));
  for (int64_t d : t.sizes()) p->add_dims(d);
  Tensor c = t.cpu().contiguous();
  // raw_data is little-endian, as nabla's host memory is (.nbg asserts it).
  const auto* bytes = static_cast<const char*>(c.raw_data());
  p->set_raw_data(std::string(bytes, bytes + c.numel() * itemsize(c.dtype())));
}

// ---- attribute helpers ------------------------------------------------------


void set_int(onnxpb::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnxpb::AttributeProto::INT);
  a->set_i(v);
}
void set_float(onnxpb::NodeProto& n, const std::string& name, double v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnxpb::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(v));
}
void set_ints(onnxpb::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnxpb::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

// ---- OpContext --------------------------------------------------------------

const std::string& OpContext::in(std::size_t k) const {
  static const std::string none;
  return k < in_.size() ? in_[k] : none;
}

std::string OpContext::where() const {
  return ::nabla::detail::concat("op '", node_.op->name, "' (node ", graph::describe(node_), ")");
}

void OpContext::unsupported(const std::string& why) const {
  NABLA_CHECK(false, "onnx export: ", where(), " has no ONNX form: ", why);
  std::abort();
}

std::size_t OpContext::attr_index(const std::string& name) const {
  std::string_view names = node_.op->attr_names;
  std::size_t k = 0;
  while (!names.empty()) {
    std::size_t comma = names.find(',');
    if (names.substr(0, comma) == name) return k;
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
    ++k;
  }
  NABLA_CHECK(false, "onnx export: ", where(), ": the op has no attribute '", name, "' (it has: ",
              node_.op->attr_names, ")");
  return 0;
}
bool OpContext::attr_none(const std::string& name) const { return node_.attrs.is_none(attr_index(name)); }
const AttrValue& OpContext::attr(const std::string& name) const {
  std::size_t k = attr_index(name);
  NABLA_CHECK(k < node_.attrs.size(), "onnx export: ", where(), ": attribute '", name, "' is missing");
  return node_.attrs[k];
}
int64_t OpContext::attr_int(const std::string& name) const {
  const AttrValue& v = attr(name);
  if (auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  if (auto* s = std::get_if<Scalar>(&v)) return s->to_int();
  return node_.attrs.i(attr_index(name));
}
double OpContext::attr_double(const std::string& name) const { return node_.attrs.f(attr_index(name)); }
bool OpContext::attr_bool(const std::string& name) const {
  const AttrValue& v = attr(name);
  if (auto* i = std::get_if<int64_t>(&v)) return *i != 0;
  return node_.attrs.b(attr_index(name));
}
std::vector<int64_t> OpContext::attr_ints(const std::string& name) const {
  const Shape& s = node_.attrs.ints(attr_index(name));
  return std::vector<int64_t>(s.begin(), s.end());
}

onnxpb::NodeProto& OpContext::add(const std::string& op_type, const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& outputs) {
  onnxpb::NodeProto* n = g_.add_node();
  n->set_op_type(op_type);
  n->set_name(node_.name + "/" + op_type + "_" + std::to_string(g_.node_size()));
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return *n;
}

std::string OpContext::temp(const std::string& what) { return node_.name + "/" + what + "_" + std::to_string(temps_++); }

std::string OpContext::const_ints(const std::string& what, const std::vector<int64_t>& values) {
  std::string name = temp(what);
  onnxpb::TensorProto* p = g_.add_initializer();
  p->set_name(name);
  p->set_data_type(onnxpb::TensorProto::INT64);
  p->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) p->add_int64_data(v);
  return name;
}

std::string OpContext::const_tensor(const std::string& what, const Tensor& value) {
  std::string name = temp(what);
  add_initializer(g_, name, value, where());
  return name;
}

std::string OpContext::const_scalar(const std::string& what, DType dtype, double value) {
  return const_tensor(what, full({}, value, TensorOptions().dtype(dtype)));
}

std::string OpContext::in_as(std::size_t k, DType dtype) {
  if (in_dtype(k) == dtype) return in(k);
  std::string name = temp("cast");
  set_int(add("Cast", {in(k)}, {name}), "to", onnx_type(dtype, where()));
  return name;
}

}  // namespace nabla::onnx::detail
