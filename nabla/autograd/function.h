// Custom autograd functions: a forward written with any code and the
// backward you give (torch.autograd.Function; the C++ form follows libtorch's
// torch::autograd::Function<T>). The lecture's "new autograd function":
//
//   struct MyReLU : nabla::autograd::Function<MyReLU> {
//     static Tensor forward(FunctionCtx* ctx, const Tensor& x) {
//       ctx->save_for_backward({x});
//       return x.clamp_min(0);
//     }
//     static TensorList backward(FunctionCtx* ctx, const TensorList& grad_outputs) {
//       Tensor x = ctx->saved_tensors()[0];
//       return {grad_outputs[0].masked_fill(x < 0, 0)};
//     }
//   };
//   Tensor y = MyReLU::apply(x);
//
// forward runs with gradient recording off and returns a Tensor or a
// TensorList; its arguments may be tensors (an undefined Tensor() for an
// optional one, PyTorch's None) or anything else. backward gets
// one gradient per output (zeros for an output no gradient reached) and
// returns one gradient per forward argument (an undefined Tensor() for an
// argument that is not a tensor or needs none); returning one per tensor
// argument is accepted too. backward is written with nabla ops, so under
// create_graph it is differentiated again like any other rule.
//
// Eager tensors only: a graph value (placeholder, variable) is refused, since
// a graph's symbolic gradients are built from the op table (see graph.md).
#pragma once
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nabla/autograd/node.h"
#include "nabla/core/grad_mode.h"

namespace nabla::autograd {

class FunctionNode;

// What forward hands to backward.
class FunctionCtx {
 public:
  // Tensors backward reads; an in-place change to one of them before
  // backward runs is an error there (as for the built-in ops).
  void save_for_backward(const TensorList& tensors);
  // The saved tensors, in the order given (throws after the graph was freed).
  TensorList saved_tensors() const;
  // Whether forward argument i (counting every argument) needs a gradient.
  bool needs_input_grad(std::size_t i) const;
  // Anything else backward needs: numbers by name (libtorch's saved_data).
  std::unordered_map<std::string, Scalar> saved_data;

 private:
  friend class FunctionNode;
  std::vector<SavedTensor> saved_;
  std::vector<bool> needs_input_grad_;
  std::weak_ptr<Node> node_;
  std::string name_;
  bool released_ = false;
};

// The graph node of one call of a custom function.
class FunctionNode final : public Node {
 public:
  using BackwardFn = TensorList (*)(FunctionCtx*, const TensorList&);
  FunctionNode(std::string name, BackwardFn backward);
  TensorList apply(TensorList& grads) override;
  std::string name() const override { return ctx.name_; }
  void release_saved() override;
  // Before forward: checks the inputs and records which need a gradient.
  void begin(const std::vector<Tensor>& inputs);
  // After forward: connects the outputs to `node` when an input needs a gradient.
  static TensorList finish(const std::shared_ptr<FunctionNode>& node, const std::vector<Tensor>& inputs,
                           TensorList outputs);

  FunctionCtx ctx;
  BackwardFn backward;
  std::vector<std::size_t> tensor_args;  // forward argument position of each tensor input
  std::vector<bool> input_defined;       // per tensor input: false for an optional one left out
  std::size_t num_args = 0;
};

namespace detail {
std::string function_name(const std::type_info& type);  // demangled
}  // namespace detail

template <class F>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    // Through a lambda, so backward may take its gradients by value or by reference.
    auto node = std::make_shared<FunctionNode>(
        detail::function_name(typeid(F)),
        [](FunctionCtx* ctx, const TensorList& grads) -> TensorList { return F::backward(ctx, grads); });
    std::vector<Tensor> inputs;
    std::size_t position = 0;
    auto collect = [&](const auto& arg) {
      if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, Tensor>) {
        inputs.push_back(arg);
        node->tensor_args.push_back(position);
      }
      ++position;
    };
    (collect(args), ...);
    node->num_args = sizeof...(Args);
    node->begin(inputs);
    using Result = decltype(F::forward(&node->ctx, std::forward<Args>(args)...));
    static_assert(std::is_same_v<Result, Tensor> || std::is_same_v<Result, TensorList>,
                  "autograd::Function: forward must return a Tensor or a TensorList");
    if constexpr (std::is_same_v<Result, Tensor>) {
      Tensor out;
      {
        NoGradGuard no_grad;
        out = F::forward(&node->ctx, std::forward<Args>(args)...);
      }
      return FunctionNode::finish(node, inputs, TensorList{out})[0];
    } else {
      TensorList outs;
      {
        NoGradGuard no_grad;
        outs = F::forward(&node->ctx, std::forward<Args>(args)...);
      }
      return FunctionNode::finish(node, inputs, std::move(outs));
    }
  }
};

}  // namespace nabla::autograd
