// Records autograd history for ops the dispatcher ran: the hook installed into
// ops/dispatch.cpp. Outputs get the new node as grad_fn (for in-place ops this
// re-bases the target's history onto the new node).
#include "nabla/autograd/node.h"
#include "nabla/ops/autograd_hook.h"

namespace nabla::autograd {
namespace {

bool is_differentiable_output(const OpDef& op, std::size_t i, const Tensor& out) {
  if (!is_floating(out.dtype())) return false;
  return op.num_differentiable_outputs < 0 || i < static_cast<std::size_t>(op.num_differentiable_outputs);
}

void record(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs, const uint32_t* versions) {
  bool any_out = false;
  for (std::size_t i = 0; i < outputs.size(); ++i) any_out |= is_differentiable_output(op, i, outputs[i]);
  if (!any_out) return;
  NABLA_CHECK(op.grad, op.name, ": has no gradient rule, but an input requires grad");

  auto node = std::make_shared<OpNode>(op, attrs);
  node->input_device = inputs.empty() ? kCPU : inputs[0].device();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    node->next_edges.push_back(is_floating(in.dtype()) ? gradient_edge(in) : Edge{});
    node->input_meta.push_back({in.sizes(), in.dtype()});
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    bool save = op.save_inputs == kSaveAllInputs || (i < 32 && ((op.save_inputs >> i) & 1u));
    if (!save) {
      node->saved_inputs.push_back(SavedTensor());
      continue;
    }
    // The target of an in-place op is also its output, whose grad_fn is this
    // node: keeping that tensor would make a cycle (node -> tensor -> node)
    // that is never freed. Keep a plain alias of its storage instead; the
    // storage's version counter still catches a read of the overwritten value.
    Tensor in = inputs[i];
    for (const Tensor& out : outputs)
      if (out.is_same(in)) in = make_view(in, in.sizes(), in.strides(), in.storage_offset());
    node->saved_inputs.push_back(SavedTensor(in, false, versions ? versions[i] : in.version()));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    node->output_meta.push_back({out.sizes(), out.dtype()});
    if (!is_differentiable_output(op, i, out)) continue;
    AutogradMeta& m = autograd_meta(out);
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = static_cast<uint32_t>(i);
  }
  if (op.has(kSaveOutputs))
    for (Tensor& out : outputs) node->saved_outputs.push_back(SavedTensor(out, true, out.version()));
}

struct InstallHook {
  InstallHook() { set_autograd_hook(&record); }
} install_hook;

}  // namespace
}  // namespace nabla::autograd
