// nn::to(module, memory_format) (see memory_format.h).
#include "nabla/nn/memory_format.h"

#include "nabla/core/grad_mode.h"
#include "nabla/ops/memory_format.h"

namespace nabla::nn {

Module& to(Module& module, MemoryFormat format) {
  if (format == MemoryFormat::Preserve) return module;
  std::vector<Tensor> all = module.parameters();
  for (Tensor& t : module.buffers()) all.push_back(t);
  NoGradGuard no_grad;
  for (Tensor& t : all) {
    if (t.dim() != 4) continue;
    Tensor moved = nabla::to(t.detach(), format);
    if (moved.is_same(t) || moved.strides() == t.strides()) continue;
    // Point every handle of t at the restrided data (Module::to's adopt).
    TensorImpl* dst = t.impl();
    dst->storage = moved.impl()->storage;
    dst->strides = moved.impl()->strides;
    dst->offset = moved.impl()->offset;
    dst->is_view = false;
    if (t.requires_grad() && t.grad().defined()) t.set_grad(Tensor());
  }
  return module;
}

}  // namespace nabla::nn
