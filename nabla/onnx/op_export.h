// Internal to the ONNX exporter: how one nabla op node becomes ONNX nodes.
// The graph walk (export.cpp) names every value and calls convert_op for
// each op node; the converters read the op's attributes by name (OpDef's
// attr_names), so they follow the op table rather than attribute positions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nabla/graph/node.h"
#include "onnx/onnx_pb.h"

namespace nabla::onnx::detail {

// ONNX's element type for a nabla dtype (an error for ones ONNX lacks).
int32_t onnx_type(DType t, const std::string& where);

// Adds `t` (concrete) to the graph as initializer `name`.
void add_initializer(::onnx::GraphProto& g, const std::string& name, const Tensor& t, const std::string& where);

// Attributes of an ONNX node.
void set_int(::onnx::NodeProto& n, const std::string& name, int64_t v);
void set_float(::onnx::NodeProto& n, const std::string& name, double v);
void set_ints(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);

// What a converter sees of one op node.
class OpContext {
 public:
  OpContext(::onnx::GraphProto& g, const graph::Node& node, std::vector<std::string> inputs,
            std::vector<DType> input_dtypes, std::vector<Shape> input_sizes, std::vector<std::string> outputs)
      : g_(g), node_(node), in_(std::move(inputs)), in_dtypes_(std::move(input_dtypes)),
        in_sizes_(std::move(input_sizes)), out_(std::move(outputs)) {}

  const graph::Node& node() const { return node_; }
  ::onnx::GraphProto& graph() { return g_; }
  // Input k's ONNX value name ("" when the op was given no tensor there).
  const std::string& in(std::size_t k) const;
  std::size_t num_inputs() const { return in_.size(); }
  DType in_dtype(std::size_t k) const { return in_dtypes_.at(k); }
  const Shape& in_sizes(std::size_t k) const { return in_sizes_.at(k); }
  const std::string& out(std::size_t k = 0) const { return out_.at(k); }
  DType out_dtype(std::size_t k = 0) const { return node_.metas[k].dtype; }
  const Shape& out_sizes(std::size_t k = 0) const { return node_.metas[k].sizes; }

  // The index of attribute `name` in the op's attr_names (an error if absent).
  std::size_t attr_index(const std::string& name) const;
  const AttrValue& attr(const std::string& name) const;
  bool attr_none(const std::string& name) const;
  int64_t attr_int(const std::string& name) const;
  double attr_double(const std::string& name) const;
  bool attr_bool(const std::string& name) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;

  // Adds an ONNX node; returns it for attributes. Intermediate values get
  // fresh names from temp().
  ::onnx::NodeProto& add(const std::string& op_type, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs);
  std::string temp(const std::string& what);
  // Initializers made for this node: an int64 vector (shapes, axes, pads)
  // and a scalar of `dtype`.
  std::string const_ints(const std::string& what, const std::vector<int64_t>& values);
  std::string const_tensor(const std::string& what, const Tensor& value);
  std::string const_scalar(const std::string& what, DType dtype, double value);
  // Input k cast to `dtype` when it has another one.
  std::string in_as(std::size_t k, DType dtype);

  // "op 'name' (node 'n', created at file:line)" for errors.
  std::string where() const;
  [[noreturn]] void unsupported(const std::string& why) const;

 private:
  ::onnx::GraphProto& g_;
  const graph::Node& node_;
  std::vector<std::string> in_;
  std::vector<DType> in_dtypes_;
  std::vector<Shape> in_sizes_;
  std::vector<std::string> out_;
  int temps_ = 0;
};

// Emits the ONNX nodes for one op node, or throws nabla::Error naming the op
// and the node when it has no ONNX form.
void convert_op(OpContext& c);
// The op names that have a converter (sorted), for tests and docs.
std::vector<std::string> converted_op_names();

}  // namespace nabla::onnx::detail
