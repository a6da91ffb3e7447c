// Tensor's autograd methods.
#include "nabla/autograd/engine.h"
#include "nabla/autograd/node.h"
#include "nabla/ops/ops.h"

namespace nabla {

bool Tensor::requires_grad() const {
  const auto& m = checked("Tensor::requires_grad")->autograd;
  return m && m->requires_grad;
}

Tensor& Tensor::requires_grad_(bool r) {
  const auto& m = checked("Tensor::requires_grad_")->autograd;
  if (m && m->grad_fn) {
    NABLA_CHECK(r, "requires_grad_: can only change the flag of leaf tensors; this one was computed by ",
                m->grad_fn->name(), " (use detach() to get a leaf)");
    return *this;
  }
  NABLA_CHECK(!r || is_floating(dtype()), "requires_grad_: only floating point tensors can require gradients, got ",
              dtype());
  autograd::autograd_meta(*this).requires_grad = r;
  return *this;
}

Tensor Tensor::grad() const {
  const auto& m = checked("Tensor::grad")->autograd;
  return m ? m->grad : Tensor();
}

Tensor& Tensor::mutable_grad() { return autograd::autograd_meta(self("Tensor::mutable_grad")).grad; }

void Tensor::set_grad(const Tensor& g) {
  checked("Tensor::set_grad");
  NABLA_CHECK(!g.defined() || g.sizes() == sizes(), "set_grad: gradient of shape ", g.defined() ? g.sizes() : Shape{},
              " does not match the tensor's shape ", sizes());
  autograd::autograd_meta(*this).grad = g;
}

bool Tensor::is_leaf() const {
  const auto& m = checked("Tensor::is_leaf")->autograd;
  return !m || !m->grad_fn;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  const auto& m = checked("Tensor::grad_fn")->autograd;
  return m ? m->grad_fn : nullptr;
}

uint32_t Tensor::output_nr() const {
  const auto& m = checked("Tensor::output_nr")->autograd;
  return m ? m->output_nr : 0;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  checked("Tensor::backward");
  TensorList grads;
  if (gradient.defined()) grads.push_back(gradient);
  nabla::backward(TensorList{*this}, grads, retain_graph || create_graph, create_graph);
}

Tensor Tensor::detach() const {
  const TensorImpl* p = checked("Tensor::detach");
  Tensor t(make_ref<TensorImpl>(p->storage, p->sizes, p->strides, p->offset, p->dtype, p->device));
  t.impl()->symbolic = p->symbolic;
  return t;
}

Tensor& Tensor::detach_() {
  auto& m = checked("Tensor::detach_")->autograd;
  if (m) {
    m->grad_fn.reset();
    m->requires_grad = false;
  }
  return *this;
}

void Tensor::retain_grad() const {
  checked("Tensor::retain_grad");
  if (is_leaf()) return;  // leaves keep their grad anyway
  auto& m = autograd::autograd_meta(*this);
  if (m.retains_grad) return;
  m.retains_grad = true;
  std::weak_ptr<AutogradMeta> weak = impl()->autograd;
  m.grad_fn->pre_hooks.push_back({m.output_nr, [weak](const Tensor& g) {
                                    if (auto meta = weak.lock())
                                      meta->grad = meta->grad.defined() ? meta->grad + g : g.detach().clone();
                                    return Tensor();
                                  }});
}

void Tensor::register_hook(TensorHook hook) const {
  checked("Tensor::register_hook");
  NABLA_CHECK(requires_grad(), "register_hook: cannot register a hook on a tensor that doesn't require grad");
  auto& m = autograd::autograd_meta(*this);
  if (m.grad_fn) m.grad_fn->pre_hooks.push_back({m.output_nr, std::move(hook)});
  else m.hooks.push_back(std::move(hook));
}

}  // namespace nabla
