// The graph walk of the ONNX importer: parse and check the model, make a
// placeholder per graph input, keep initializers as known values (a variable
// or constant is made the first time a node uses one as data), then hand
// each node, in the model's (topological) order, to its converter
// (import_ops.cpp) — on concrete tensors when all its inputs are known and
// none is a trainable initializer, so shape arithmetic is done here.
#include "nabla/onnx/import.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "nabla/core/error.h"
#include "nabla/onnx/import_ops.h"
#include "nabla/ops/ops.h"
#include "onnx/checker.h"

namespace nabla::onnx {

namespace onnxpb = ::onnx;

namespace detail {

DType dtype_from_onnx(int64_t t, const std::string& where) {
  switch (t) {
    case onnxpb::TensorProto::FLOAT: return kFloat32;
    case onnxpb::TensorProto::DOUBLE: return kFloat64;
    case onnxpb::TensorProto::FLOAT16: return kFloat16;
    case onnxpb::TensorProto::BFLOAT16: return kBFloat16;
    case onnxpb::TensorProto::INT64: return kInt64;
    case onnxpb::TensorProto::INT32: return kInt32;
    case onnxpb::TensorProto::UINT8: return kUInt8;
    case onnxpb::TensorProto::BOOL: return kBool;
    default: break;
  }
  NABLA_CHECK(false, "onnx import: ", where, ": element type ", t,
              " is not supported (nabla has float32/64, float16, bfloat16, int64, int32, uint8, bool)");
  return kFloat32;
}

namespace {
// Largest tensor the importer accepts from a file (elements): a bound that
// keeps a corrupted dim from asking for exabytes.
constexpr int64_t kMaxElements = int64_t{1} << 34;

template <class Src, class Dst>
void copy_typed(const Src& src, Tensor& t) {
  auto* p = static_cast<Dst*>(t.raw_data());
  for (int i = 0; i < src.size(); ++i) p[i] = static_cast<Dst>(src.Get(i));
}
}  // namespace

Tensor tensor_from_proto(const onnxpb::TensorProto& p, const std::string& where) {
  NABLA_CHECK(p.data_location() != onnxpb::TensorProto::EXTERNAL, "onnx import: ", where,
              ": external data is not supported (save the model with its tensors inside)");
  NABLA_CHECK(!p.has_segment(), "onnx import: ", where, ": segmented tensors are not supported");
  DType dt = dtype_from_onnx(p.data_type(), where);
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (int64_t d : p.dims()) {
    NABLA_CHECK(d >= 0 && d <= kMaxElements, "onnx import: ", where, ": dim ", d, " out of range");
    NABLA_CHECK(d == 0 || n <= kMaxElements / d, "onnx import: ", where, ": tensor of more than ", kMaxElements,
                " elements");
    n *= d;
    dims.push_back(d);
  }
  std::size_t bytes = static_cast<std::size_t>(n) * itemsize(dt);
  auto count_check = [&](int size, const char* field) {
    NABLA_CHECK(size == n, "onnx import: ", where, ": ", field, " has ", size, " values but dims ", Shape(dims),
                " need ", n);
  };
  if (p.has_raw_data()) {
    // Checked before allocating, so a corrupted dim cannot ask for more memory than the file holds.
    NABLA_CHECK(p.raw_data().size() == bytes, "onnx import: ", where, ": raw_data has ", p.raw_data().size(),
                " bytes but dims ", Shape(dims), " of ", dt, " need ", bytes);
    Tensor t = empty(dims, TensorOptions(dt));
    if (bytes) std::memcpy(t.raw_data(), p.raw_data().data(), bytes);
    if (dt == kBool) {  // a bool byte other than 0/1 is undefined behaviour in C++
      auto* b = static_cast<uint8_t*>(t.raw_data());
      for (int64_t i = 0; i < n; ++i) b[i] = b[i] != 0;
    }
    return t;
  }
  switch (dt) {
    case kFloat32: count_check(p.float_data_size(), "float_data"); break;
    case kFloat64: count_check(p.double_data_size(), "double_data"); break;
    case kInt64: count_check(p.int64_data_size(), "int64_data"); break;
    case kInt32: case kUInt8: case kBool: count_check(p.int32_data_size(), "int32_data"); break;
    default: NABLA_CHECK(false, "onnx import: ", where, ": ", dt, " data must be in raw_data");
  }
  Tensor t = empty(dims, TensorOptions(dt));
  switch (dt) {
    case kFloat32: copy_typed<decltype(p.float_data()), float>(p.float_data(), t); break;
    case kFloat64: copy_typed<decltype(p.double_data()), double>(p.double_data(), t); break;
    case kInt64: copy_typed<decltype(p.int64_data()), int64_t>(p.int64_data(), t); break;
    case kInt32: copy_typed<decltype(p.int32_data()), int32_t>(p.int32_data(), t); break;
    case kUInt8: copy_typed<decltype(p.int32_data()), uint8_t>(p.int32_data(), t); break;
    case kBool: {
      auto* b = static_cast<bool*>(t.raw_data());
      for (int i = 0; i < p.int32_data_size(); ++i) b[i] = p.int32_data(i) != 0;
      break;
    }
    default: break;
  }
  return t;
}

// ---- NodeContext --------------------------------------------------------------

std::string NodeContext::where() const {
  return ::nabla::detail::concat(source_, ": ", node_.op_type(), " node '", node_.name(), "' (opset ", opset_, ")");
}

void NodeContext::fail(const std::string& why) const {
  NABLA_CHECK(false, "onnx import: ", where(), ": ", why);
  std::abort();
}

const Tensor& NodeContext::in(std::size_t k) const {
  if (!has(k)) fail(::nabla::detail::concat("input ", k, " is required but missing"));
  return in_[k];
}

const Tensor& NodeContext::known(std::size_t k, const std::string& what) const {
  in(k);
  if (k >= known_.size() || !known_[k].defined())
    fail(::nabla::detail::concat("input ", k, " (", what,
                                 ") must be known while importing (an initializer, a Constant or computed "
                                 "from them); a value computed at run time is not supported"));
  return known_[k];
}

std::vector<int64_t> NodeContext::known_ints(std::size_t k, const std::string& what) const {
  const Tensor& t = known(k, what);
  if (t.dtype() != kInt64 && t.dtype() != kInt32)
    fail(::nabla::detail::concat("input ", k, " (", what, ") must be int64 or int32, got ", t.dtype()));
  if (t.dim() > 1) fail(::nabla::detail::concat("input ", k, " (", what, ") must be 1-D, got shape ", t.sizes()));
  return t.to_vector<int64_t>();
}

const onnxpb::AttributeProto* NodeContext::find(const std::string& name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

const onnxpb::AttributeProto& NodeContext::typed(const std::string& name, int type, const char* type_name) const {
  const auto* a = find(name);
  if (a->type() != type) fail(::nabla::detail::concat("attribute '", name, "' must be ", type_name));
  return *a;
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) const {
  if (!find(name)) return fallback;
  return typed(name, onnxpb::AttributeProto::INT, "an int").i();
}
double NodeContext::attr_float(const std::string& name, double fallback) const {
  if (!find(name)) return fallback;
  return typed(name, onnxpb::AttributeProto::FLOAT, "a float").f();
}
std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) const {
  if (!find(name)) return fallback;
  return typed(name, onnxpb::AttributeProto::STRING, "a string").s();
}
std::vector<int64_t> NodeContext::attr_ints(const std::string& name, const std::vector<int64_t>& fallback) const {
  if (!find(name)) return fallback;
  const auto& a = typed(name, onnxpb::AttributeProto::INTS, "a list of ints");
  return std::vector<int64_t>(a.ints().begin(), a.ints().end());
}
std::vector<double> NodeContext::attr_floats(const std::string& name) const {
  if (!find(name)) return {};
  const auto& a = typed(name, onnxpb::AttributeProto::FLOATS, "a list of floats");
  return std::vector<double>(a.floats().begin(), a.floats().end());
}
Tensor NodeContext::attr_tensor(const std::string& name) const {
  if (!find(name)) fail("attribute '" + name + "' is required but missing");
  return tensor_from_proto(typed(name, onnxpb::AttributeProto::TENSOR, "a tensor").t(),
                           where() + " attribute '" + name + "'");
}

int64_t NodeContext::axis(int64_t a, int64_t rank, const std::string& what) const {
  if (a < -rank || a >= rank)
    fail(::nabla::detail::concat(what, " ", a, " is out of range for rank ", rank));
  return a < 0 ? a + rank : a;
}

}  // namespace detail

namespace {

// Graph names may not hold ':' (it names output k) or '/' (scopes); ONNX's
// often do ("onnx::Conv_12", "/layer1/Add"): both become '_'.
std::string graph_name(const std::string& onnx_name) {
  std::string s = onnx_name.empty() ? "value" : onnx_name;
  for (char& c : s)
    if (c == ':' || c == '/') c = '_';
  return s;
}

struct Value {
  Tensor symbolic;          // the graph value (made on first use for initializers and known values)
  Tensor known;             // the concrete value when known while importing
  bool trainable = false;   // a float initializer: becomes a variable, is not folded through
};

class Importer {
 public:
  Importer(const onnxpb::ModelProto& model, std::string source, const InputShapes& shapes)
      : model_(model), source_(std::move(source)), shapes_(shapes) {}

  ImportedModel run() {
    ImportedModel out;
    out.opset = opset();
    for (const auto& p : model_.metadata_props()) out.metadata.emplace_back(p.key(), p.value());
    const onnxpb::GraphProto& gp = model_.graph();
    for (int i = 0; i < gp.initializer_size(); ++i) {
      const auto& p = gp.initializer(i);
      NABLA_CHECK(!p.name().empty(), "onnx import: ", source_, ": initializer ", i, " has no name");
      Value v;
      v.known = detail::tensor_from_proto(p, source_ + ": initializer '" + p.name() + "'");
      v.trainable = is_floating(v.known.dtype());
      values_[p.name()] = std::move(v);
    }
    std::string input_names;
    for (const auto& vi : gp.input()) {
      if (values_.count(vi.name())) continue;  // an initializer listed as an input (IR < 4): a default
      Tensor ph = placeholder(vi);
      values_[vi.name()].symbolic = ph;
      out.inputs.emplace_back(vi.name(), ph);
      input_names += (input_names.empty() ? "" : ", ") + vi.name();
    }
    for (const auto& [name, dims] : shapes_) {
      bool found = false;
      for (const auto& in : out.inputs) found = found || in.first == name;
      NABLA_CHECK(found, "onnx import: ", source_, ": '", name, "' is not an input of the model (its inputs: ",
                  input_names, "); a shape ", Shape(dims), " was given for it");
    }
    for (const auto& node : gp.node()) convert(node, out.opset);
    for (const auto& vi : gp.output()) {
      auto it = values_.find(vi.name());
      NABLA_CHECK(it != values_.end(), "onnx import: ", source_, ": graph output '", vi.name(),
                  "' is not computed by any node");
      Tensor t = symbolic(it->first, it->second);
      t = name_output(t, vi.name());
      out.outputs.emplace_back(vi.name(), t);
    }
    out.graph = g_;
    return out;
  }

 private:
  int64_t opset() const {
    int64_t v = -1;
    for (const auto& o : model_.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") v = o.version();
    NABLA_CHECK(v >= 7 && v <= 17, "onnx import: ", source_, ": the model's default-domain opset is ", v,
                "; nabla imports opsets 7 to 17");
    return v;
  }

  Tensor placeholder(const onnxpb::ValueInfoProto& vi) {
    std::string where = source_ + ": input '" + vi.name() + "'";
    NABLA_CHECK(vi.type().has_tensor_type(), "onnx import: ", where, ": only tensor inputs are supported");
    const auto& tt = vi.type().tensor_type();
    DType dt = detail::dtype_from_onnx(tt.elem_type(), where);
    NABLA_CHECK(tt.has_shape(), "onnx import: ", where, ": the input has no shape (its rank must be known)");
    std::vector<int64_t> dims;
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() != -1) {  // Paddle2ONNX writes -1 for an unknown dim
        NABLA_CHECK(d.dim_value() >= 0 && d.dim_value() <= (int64_t{1} << 34), "onnx import: ", where, ": dim ",
                    d.dim_value(), " out of range");
        dims.push_back(d.dim_value());
      } else {
        dims.push_back(-1);  // symbolic or absent: unknown until fed
      }
    }
    auto given = shapes_.find(vi.name());
    if (given != shapes_.end()) {
      const std::vector<int64_t>& want = given->second;
      bool fits = want.size() == dims.size();
      for (std::size_t k = 0; fits && k < dims.size(); ++k)
        fits = want[k] >= 0 && want[k] <= (int64_t{1} << 34) && (dims[k] == -1 || dims[k] == want[k]);
      NABLA_CHECK(fits, "onnx import: ", where, ": the shape given for it, ", Shape(want),
                  ", does not fit the model's ", Shape(dims), " (same rank, the same fixed dims; -1 is any)");
      dims = want;
    }
    // The known dims together, bounded as an initializer's are (each dim alone
    // is, but [2^34, 2^34, 2^34] would overflow the value's element count).
    int64_t n = 1;
    for (int64_t d : dims)
      if (d > 0) {
        NABLA_CHECK(n <= detail::kMaxElements / d, "onnx import: ", where, ": shape ", Shape(dims), " has more than ",
                    detail::kMaxElements, " elements");
        n *= d;
      }
    return g_.placeholder(dt, dims, graph_name(vi.name()));
  }

  Tensor symbolic(const std::string& name, Value& v) {
    if (!v.symbolic.defined()) {
      if (v.trainable)
        v.symbolic = g_.variable(v.known, graph_name(name), /*trainable=*/true);
      else
        v.symbolic = g_.constant(v.known, graph_name(name));
    }
    return v.symbolic;
  }

  Tensor name_output(Tensor t, const std::string& onnx_name) {
    std::string name = graph_name(onnx_name);
    if (g_.node_of(t).name == name) return t;
    if (g_.node_of(t).kind != graph::NodeKind::Op) t = clone(t);  // keep the input's or variable's own name
    try {
      return g_.set_name(t, name);
    } catch (const Error&) {
      return t;  // the name is taken by another node: keep the generated one
    }
  }

  void convert(const onnxpb::NodeProto& node, int64_t opset) {
    std::string where = ::nabla::detail::concat(node.op_type(), " node '", node.name(), "' (opset ", opset, ")");
    NABLA_CHECK(node.domain().empty() || node.domain() == "ai.onnx", "onnx import: ", source_, ": ", where,
                ": operator domain '", node.domain(), "' is not supported (only the default ONNX domain)");
    const detail::ImportConverter* conv = detail::find_import_converter(node.op_type());
    NABLA_CHECK(conv, "onnx import: ", source_, ": unsupported operator ", node.op_type(), " (node '", node.name(),
                "', opset ", opset, ")");
    std::vector<Value*> ins;
    bool all_known = true;
    for (const std::string& name : node.input()) {
      if (name.empty()) {
        ins.push_back(nullptr);
        continue;
      }
      auto it = values_.find(name);
      NABLA_CHECK(it != values_.end(), "onnx import: ", source_, ": ", where, ": input '", name,
                  "' is not defined before the node");
      ins.push_back(&it->second);
      if (!it->second.known.defined() || it->second.trainable) all_known = false;
    }
    bool fold = all_known && !detail::never_fold(node.op_type());
    std::vector<Tensor> inputs, known;
    for (std::size_t k = 0; k < ins.size(); ++k) {
      Value* v = ins[k];
      known.push_back(v ? v->known : Tensor());
      inputs.push_back(!v ? Tensor() : fold ? v->known : symbolic(node.input(static_cast<int>(k)), *v));
    }
    detail::NodeContext ctx(source_, node, opset, inputs, known);
    std::vector<Tensor> outs;
    try {
      graph::LocationScope loc;
      outs = (*conv)(ctx);
    } catch (const Error& e) {
      std::string msg = e.what();
      if (msg.rfind("onnx import:", 0) == 0) throw;
      NABLA_CHECK(false, "onnx import: ", source_, ": ", where, ": ", msg);
    }
    for (int k = 0; k < node.output_size(); ++k) {
      const std::string& name = node.output(k);
      if (name.empty()) continue;
      NABLA_CHECK(static_cast<std::size_t>(k) < outs.size() && outs[static_cast<std::size_t>(k)].defined(),
                  "onnx import: ", source_, ": ", where, ": output ", k, " ('", name, "') is not supported");
      Value v;
      const Tensor& t = outs[static_cast<std::size_t>(k)];
      if (t.is_symbolic())
        v.symbolic = t;
      else
        v.known = t;  // computed while importing (folded, or a Shape of known dims)
      values_[name] = std::move(v);
    }
  }

  const onnxpb::ModelProto& model_;
  std::string source_;
  const InputShapes& shapes_;
  graph::Graph g_;
  std::unordered_map<std::string, Value> values_;
};

}  // namespace

ImportedModel import_model_bytes(const std::string& bytes, const std::string& source, const InputShapes& shapes) {
  onnxpb::ModelProto model;
  NABLA_CHECK(bytes.size() < (std::size_t{1} << 31), "onnx import: ", source, ": ", bytes.size(),
              " bytes; ONNX files are at most 2 GiB");
  NABLA_CHECK(model.ParseFromString(bytes), "onnx import: ", source,
              ": not an ONNX model (the protobuf could not be parsed)");
  try {
    onnxpb::checker::check_model(model);
  } catch (const std::exception& e) {
    NABLA_CHECK(false, "onnx import: ", source, ": the ONNX checker refused the model: ", e.what());
  }
  return Importer(model, source, shapes).run();
}

ImportedModel import_model(const std::string& path, const InputShapes& shapes) {
  std::ifstream f(path, std::ios::binary);
  NABLA_CHECK(f, "onnx import: cannot open '", path, "'");
  std::ostringstream ss;
  ss << f.rdbuf();
  return import_model_bytes(ss.str(), path, shapes);
}

std::vector<std::string> imported_op_types() { return detail::import_op_types(); }

}  // namespace nabla::onnx
