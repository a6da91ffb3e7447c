// contiguous/to/clone in a memory format (ops/memory_format.h). A
// channels-last copy is the NHWC permutation made contiguous and permuted
// back: existing differentiable ops, so autograd and graphs need nothing new.
#include "nabla/ops/memory_format.h"

#include "nabla/ops/shape.h"

namespace nabla {
namespace {

void check_format_arg(const Tensor& x, MemoryFormat format, const char* api) {
  NABLA_CHECK(x.defined(), api, ": input is an undefined tensor");
  NABLA_CHECK(format != MemoryFormat::ChannelsLast || x.dim() == 4, api, ": channels_last needs a 4-d tensor (N, C, "
              "H, W), got ", x.dim(), " dims (shape ", x.sizes(), ")");
  NABLA_CHECK(format != MemoryFormat::ChannelsLast || x.is_symbolic() || x.device().is_cpu(), api,
              ": channels_last tensors are supported on the CPU only, got a tensor on ", x.device());
}

Tensor channels_last_copy(const Tensor& x) {
  Tensor r = permute(clone(permute(x, {0, 2, 3, 1})), {0, 3, 1, 2});
  // The permuted view's base is the private copy made here: r is a new
  // tensor, free for in-place ops like any op result.
  r.impl()->is_view = false;
  return r;
}

}  // namespace

Tensor clone(const Tensor& x, MemoryFormat format) {
  check_format_arg(x, format, "clone");
  // Preserve: the suggested format (tensors on other devices are contiguous).
  if (format == MemoryFormat::Preserve)
    format = x.is_symbolic() || !x.device().is_cpu() ? MemoryFormat::Contiguous : suggest_memory_format(x);
  return format == MemoryFormat::ChannelsLast ? channels_last_copy(x) : clone(x);
}

Tensor contiguous(const Tensor& x, MemoryFormat format) {
  check_format_arg(x, format, "contiguous");
  if (format == MemoryFormat::Preserve || x.is_symbolic()) return format == MemoryFormat::ChannelsLast ? x : contiguous(x);
  if (is_contiguous(x, format)) return x;
  return clone(x, format);
}

// PyTorch's rule: x itself when its suggested format is the one asked for.
// That differs from contiguous(x, format) for tensors in both formats at
// once: a contiguous [N, 1, H, W] image batch becomes (N*H*W, 1, W, 1)-strided,
// which suggests channels-last, so the ops after it keep that format.
Tensor to(const Tensor& x, MemoryFormat format, bool copy) {
  check_format_arg(x, format, "to");
  if (copy) return clone(x, format);
  if (format == MemoryFormat::Preserve || x.is_symbolic() || suggest_memory_format(x) == format) return x;
  return clone(x, format);
}

}  // namespace nabla
