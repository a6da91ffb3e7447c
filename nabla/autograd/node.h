// Autograd graph nodes. Each recorded op becomes an OpNode that keeps what its
// gradient rule reads (saved inputs/outputs, with their versions) and an edge
// per input to the node that produced it. Leaves get an AccumulateGrad node.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "nabla/ops/op.h"

namespace nabla::autograd {

class Node;

struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;  // which gradient slot of `node`
  bool valid() const { return static_cast<bool>(node); }
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  // Releases the nodes of next_edges from a loop, not recursively (Note
  // [Iterative teardown] in node.cpp); never throws.
  virtual ~Node();
  // Gradients of the outputs -> gradients of the inputs (one per next edge).
  virtual TensorList apply(TensorList& grads) = 0;
  virtual std::string name() const = 0;
  virtual void release_saved() {}

  SmallVector<Edge, 2> next_edges;         // one per input
  SmallVector<OutputMeta, 2> input_meta;   // shape/dtype of each input
  SmallVector<OutputMeta, 1> output_meta;  // shape/dtype of each output
  uint64_t sequence_nr;                    // creation order: later nodes run first
  Device input_device;                     // where its gradients live
  std::vector<std::pair<uint32_t, TensorHook>> pre_hooks;  // (output, hook)
};

// A tensor kept for the backward pass, with the version it had when saved.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output, uint32_t version);
  // Throws if the tensor was modified in place since it was saved.
  Tensor unpack(const std::shared_ptr<Node>& owner, const char* op, int index) const;
  bool defined() const { return data_.defined(); }
  void reset() { data_ = Tensor(); }

 private:
  Tensor data_;  // inputs: the tensor itself; outputs: a detached alias (no cycle)
  uint32_t version_ = 0;
  bool is_output_ = false;
  uint32_t output_nr_ = 0;
};

class OpNode final : public Node {
 public:
  OpNode(const OpDef& op, Attrs attrs) : op(op), attrs(std::move(attrs)) {}
  TensorList apply(TensorList& grads) override;
  std::string name() const override { return std::string(op.name); }
  void release_saved() override;

  const OpDef& op;
  Attrs attrs;
  SmallVector<SavedTensor, 2> saved_inputs;
  SmallVector<SavedTensor, 1> saved_outputs;
  bool released = false;
};

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(std::weak_ptr<AutogradMeta> meta) : meta(std::move(meta)) {}
  TensorList apply(TensorList& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  std::weak_ptr<AutogradMeta> meta;
};

// The edge through which a gradient reaches `t`: its grad_fn, or its
// AccumulateGrad node when it is a leaf that requires grad; invalid otherwise.
Edge gradient_edge(const Tensor& t);

// Autograd meta of t, created on demand.
AutogradMeta& autograd_meta(const Tensor& t);

}  // namespace nabla::autograd
