// ModuleVariables: swaps each parameter's TensorImpl to a symbolic value of a
// graph variable and back. The handle is changed in place (as Module::to
// does), so the module's own members (Linear::weight) see the variable.
#include "nabla/nn/module_variables.h"

#include <memory>

#include "nabla/core/grad_mode.h"
#include "nabla/core/tensor_impl.h"

namespace nabla::nn {

ModuleVariables::ModuleVariables(graph::Graph& g, Module& module, std::source_location loc) {
  NamedTensors params = module.named_parameters();
  for (const auto& [name, p] : params) {
    NABLA_CHECK(!p.is_symbolic(), "ModuleVariables: parameter '", name,
                "' is already symbolic (a graph value); is another ModuleVariables alive for this module?");
    NABLA_CHECK(p.device().is_cpu(), "ModuleVariables: parameter '", name, "' is on ", p.device(),
                "; graphs hold their variables on the CPU in this version");
  }
  // Make every variable first: a failure leaves the module untouched.
  for (const auto& [name, p] : params) {
    // "fc1.weight" -> name scopes "fc1", then the variable "weight".
    std::string rest = name;
    std::vector<std::unique_ptr<graph::Graph::NameScope>> live;
    for (std::size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1))
      live.push_back(std::make_unique<graph::Graph::NameScope>(g, rest.substr(0, dot)));
    variables_.emplace_back(name, g.variable(p.detach(), rest, p.requires_grad(), loc));
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    Tensor handle = params[i].second;
    TensorImpl* impl = handle.impl();
    Saved s{handle,
            Tensor(make_ref<TensorImpl>(impl->storage, impl->sizes, impl->strides, impl->offset, impl->dtype,
                                        impl->device)),
            impl->autograd, impl->strides, impl->offset, impl->is_view};
    const Tensor& var = variables_[i].second;
    impl->storage = Ref<Storage>();
    impl->strides = var.impl()->strides;
    impl->offset = 0;
    impl->is_view = false;
    impl->autograd.reset();  // a graph value records no eager autograd
    impl->symbolic = var.impl()->symbolic;
    saved_.push_back(std::move(s));
  }
}

ModuleVariables::~ModuleVariables() {
  for (Saved& s : saved_) {
    TensorImpl* impl = s.handle.impl();
    impl->symbolic = Ref<RefCounted>();
    impl->storage = s.data.impl()->storage;
    impl->strides = s.strides;
    impl->offset = s.offset;
    impl->is_view = s.is_view;
    impl->autograd = s.autograd;
  }
}

Tensor ModuleVariables::variable(const std::string& parameter_name) const {
  std::string known;
  for (const auto& [name, v] : variables_) {
    if (name == parameter_name) return v;
    known += (known.empty() ? "" : ", ") + name;
  }
  NABLA_CHECK(false, "ModuleVariables::variable: no parameter named '", parameter_name, "'; the module has: ", known);
  return Tensor();
}

std::vector<Tensor> ModuleVariables::trainable_variables() const {
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < variables_.size(); ++i)
    if (saved_[i].autograd && saved_[i].autograd->requires_grad) out.push_back(variables_[i].second);
  return out;
}

void ModuleVariables::copy_to_module(const graph::Session& sess) const {
  std::vector<Tensor> values;
  for (const auto& [name, v] : variables_) values.push_back(sess.variable_value(v));
  NoGradGuard no_grad;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Tensor data = saved_[i].data;  // a handle: copy_ writes the shared storage
    data.copy_(values[i]);
  }
}

}  // namespace nabla::nn
