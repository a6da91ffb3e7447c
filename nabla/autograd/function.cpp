#include "nabla/autograd/function.h"

#include <cxxabi.h>

#include <cstdlib>

#include "nabla/ops/ops.h"

namespace nabla::autograd {

void FunctionCtx::save_for_backward(const TensorList& tensors) {
  saved_.clear();
  for (const Tensor& t : tensors)
    saved_.push_back(t.defined() ? SavedTensor(t, false, t.version()) : SavedTensor());
}

TensorList FunctionCtx::saved_tensors() const {
  NABLA_CHECK(!released_, name_,
              ": trying to backward through the graph a second time (its saved tensors were freed); "
              "pass retain_graph=true to the first backward");
  TensorList out;
  std::shared_ptr<Node> owner = node_.lock();
  for (std::size_t i = 0; i < saved_.size(); ++i)
    out.push_back(saved_[i].defined() ? saved_[i].unpack(owner, name_.c_str(), static_cast<int>(i)) : Tensor());
  return out;
}

bool FunctionCtx::needs_input_grad(std::size_t i) const {
  NABLA_CHECK(i < needs_input_grad_.size(), name_, ": needs_input_grad(", i, ") but forward has ",
              needs_input_grad_.size(), " arguments");
  return needs_input_grad_[i];
}

FunctionNode::FunctionNode(std::string name, BackwardFn backward) : backward(backward) {
  ctx.name_ = std::move(name);
}

TensorList FunctionNode::apply(TensorList& grads) {
  // Like PyTorch (materialize_grads), an output no gradient reached gets zeros.
  TensorList grad_outputs;
  for (std::size_t i = 0; i < output_meta.size(); ++i) {
    const OutputMeta& m = output_meta[i];
    if (i < grads.size() && grads[i].defined()) grad_outputs.push_back(grads[i]);
    else grad_outputs.push_back(zeros(m.sizes, TensorOptions().dtype(m.dtype).device(input_device)));
  }
  TensorList returned = backward(&ctx, grad_outputs);
  const std::size_t n_tensors = tensor_args.size();
  NABLA_CHECK(returned.size() == num_args || returned.size() == n_tensors, name(), "::backward: returned ",
              returned.size(), " gradients, expected ", num_args, " (one per forward argument)",
              n_tensors != num_args ? " or " + std::to_string(n_tensors) + " (one per tensor argument)" : "");
  TensorList in_grads;
  for (std::size_t k = 0; k < n_tensors; ++k) {
    const std::size_t slot = returned.size() == num_args ? tensor_args[k] : k;
    Tensor g = returned[slot];
    if (g.defined()) {
      NABLA_CHECK(input_defined[k], name(), "::backward: returned a gradient for argument ", tensor_args[k],
                  ", which was an undefined tensor (return Tensor() there)");
      NABLA_CHECK(g.sizes() == input_meta[k].sizes, name(), "::backward: the gradient of argument ",
                  tensor_args[k], " has shape ", g.sizes(), " but that argument has shape ", input_meta[k].sizes);
      NABLA_CHECK(is_floating(g.dtype()), name(), "::backward: the gradient of argument ", tensor_args[k],
                  " has dtype ", g.dtype(), ", expected a floating dtype");
    }
    in_grads.push_back(std::move(g));
  }
  if (returned.size() == num_args && num_args != n_tensors) {
    for (std::size_t i = 0; i < num_args; ++i) {
      bool is_tensor = false;
      for (std::size_t p : tensor_args) is_tensor |= (p == i);
      NABLA_CHECK(is_tensor || !returned[i].defined(), name(), "::backward: returned a gradient for argument ", i,
                  ", which is not a tensor (return Tensor() there)");
    }
  }
  return in_grads;
}

void FunctionNode::release_saved() {
  for (auto& s : ctx.saved_) s.reset();
  ctx.released_ = true;
}

namespace detail {

std::string function_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  return name;
}

}  // namespace detail

void FunctionNode::begin(const std::vector<Tensor>& inputs) {
  ctx.needs_input_grad_.assign(num_args, false);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& in = inputs[k];
    if (!in.defined()) continue;  // an optional argument left out (PyTorch's None): no gradient
    NABLA_CHECK(!in.is_symbolic(), name(), "::apply: argument ", tensor_args[k],
                " is a graph value; custom autograd functions run on eager tensors only");
    ctx.needs_input_grad_[tensor_args[k]] =
        GradMode::is_enabled() && is_floating(in.dtype()) && gradient_edge(in).valid();
  }
}

TensorList FunctionNode::finish(const std::shared_ptr<FunctionNode>& node, const std::vector<Tensor>& inputs,
                           TensorList outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    NABLA_CHECK(outputs[i].defined(), node->name(), "::forward: output ", i, " is an undefined tensor");
  bool any_input_needs_grad = false;
  for (bool b : node->ctx.needs_input_grad_) any_input_needs_grad |= b;
  if (!any_input_needs_grad) return outputs;

  node->ctx.node_ = node;
  node->input_device = kCPU;
  for (const Tensor& in : inputs)
    if (in.defined()) {
      node->input_device = in.device();
      break;
    }
  for (const Tensor& in : inputs) {
    const bool differentiable = in.defined() && is_floating(in.dtype());
    node->next_edges.push_back(differentiable ? gradient_edge(in) : Edge{});
    node->input_meta.push_back(in.defined() ? OutputMeta{in.sizes(), in.dtype()} : OutputMeta{{}, kFloat32});
    node->input_defined.push_back(in.defined());
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    node->output_meta.push_back({out.sizes(), out.dtype()});
    if (!is_floating(out.dtype())) continue;
    // A fresh alias carries the history: forward may have returned an input
    // (or a tensor it saved), whose own history must stay as it is.
    out = make_view(out, out.sizes(), out.strides(), out.storage_offset());
    AutogradMeta& m = autograd_meta(out);
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = static_cast<uint32_t>(i);
  }
  return outputs;
}

}  // namespace nabla::autograd
