// Internal to the ONNX importer: what an operator converter sees of one ONNX
// node (its inputs as nabla tensors, its attributes checked for type), and
// the table of converters (import_ops.cpp). A converter is called either on
// symbolic graph values (it adds graph nodes through the ordinary ops) or,
// when every input is a known constant, on concrete tensors: then the node is
// computed while importing (shape arithmetic), with the same code.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/core/tensor.h"
#include "onnx/onnx_pb.h"

namespace nabla::onnx::detail {

// A TensorProto as a nabla tensor, after checking its type, dims and data
// size (`where` names it in errors).
Tensor tensor_from_proto(const ::onnx::TensorProto& p, const std::string& where);
// ONNX element type -> nabla dtype (an error for ones nabla lacks).
DType dtype_from_onnx(int64_t elem_type, const std::string& where);

class NodeContext {
 public:
  NodeContext(std::string source, const ::onnx::NodeProto& node, int64_t opset, std::vector<Tensor> inputs,
              std::vector<Tensor> known_inputs)
      : source_(std::move(source)), node_(node), opset_(opset), in_(std::move(inputs)), known_(std::move(known_inputs)) {}

  const ::onnx::NodeProto& node() const { return node_; }
  int64_t opset() const { return opset_; }
  std::size_t num_inputs() const { return in_.size(); }
  std::size_t num_outputs() const { return static_cast<std::size_t>(node_.output_size()); }
  // Whether output k is used (named) by the model.
  bool output_used(std::size_t k) const { return k < num_outputs() && !node_.output(static_cast<int>(k)).empty(); }
  bool has(std::size_t k) const { return k < in_.size() && in_[k].defined(); }
  // Input k (an error naming the node when it is missing).
  const Tensor& in(std::size_t k) const;
  // Input k's value, which must be known while importing (a shape, axes,
  // pads): an initializer, a Constant or computed from them.
  const Tensor& known(std::size_t k, const std::string& what) const;
  bool is_known(std::size_t k) const { return has(k) && k < known_.size() && known_[k].defined(); }
  std::vector<int64_t> known_ints(std::size_t k, const std::string& what) const;

  // Attributes, checked for their type; `fallback` when absent.
  bool has_attr(const std::string& name) const { return find(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  double attr_float(const std::string& name, double fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, const std::vector<int64_t>& fallback = {}) const;
  std::vector<double> attr_floats(const std::string& name) const;
  Tensor attr_tensor(const std::string& name) const;  // an error when absent

  // "model.onnx: Conv node 'conv1' (opset 17)" for errors.
  std::string where() const;
  // A dim index in [-rank, rank) made non-negative (an error otherwise).
  int64_t axis(int64_t a, int64_t rank, const std::string& what) const;
  [[noreturn]] void fail(const std::string& why) const;

 private:
  const ::onnx::AttributeProto* find(const std::string& name) const;
  const ::onnx::AttributeProto& typed(const std::string& name, int type, const char* type_name) const;

  std::string source_;  // the file, in errors
  const ::onnx::NodeProto& node_;
  int64_t opset_;
  std::vector<Tensor> in_;
  std::vector<Tensor> known_;
};

// One converter per ONNX op type (default domain); returns the node's
// outputs (as many as it has, undefined where not computed).
using ImportConverter = std::function<std::vector<Tensor>(NodeContext&)>;
const ImportConverter* find_import_converter(const std::string& op_type);
std::vector<std::string> import_op_types();
// Op types whose result must not be computed while importing even when the
// inputs are known (none so far need it; random ops would).
bool never_fold(const std::string& op_type);

}  // namespace nabla::onnx::detail
