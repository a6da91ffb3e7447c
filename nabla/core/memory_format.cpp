// MemoryFormat's stride rules and the Tensor methods that read them.
#include <algorithm>
#include <ostream>

#include "nabla/core/memory_format.h"

namespace nabla {

const char* memory_format_name(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return "contiguous_format";
    case MemoryFormat::ChannelsLast: return "channels_last";
    case MemoryFormat::Preserve: return "preserve_format";
  }
  return "unknown_format";
}

std::ostream& operator<<(std::ostream& os, MemoryFormat f) { return os << memory_format_name(f); }

Shape memory_format_strides(std::span<const int64_t> sizes, MemoryFormat format, const char* api) {
  if (format == MemoryFormat::Contiguous) return contiguous_strides(sizes);
  NABLA_CHECK(format == MemoryFormat::ChannelsLast, api, ": expected memory format contiguous_format or "
              "channels_last here, got ", format);
  NABLA_CHECK(sizes.size() == 4, api, ": channels_last needs a 4-d tensor (N, C, H, W), got ", sizes.size(),
              " dims (shape ", IntList(sizes), ")");
  auto at_least_1 = [](int64_t d) { return std::max<int64_t>(d, 1); };
  Shape s(4);
  s[1] = 1;
  s[3] = at_least_1(sizes[1]);
  s[2] = s[3] * at_least_1(sizes[3]);
  s[0] = s[2] * at_least_1(sizes[2]);
  return s;
}

namespace {
// Whether the strides are channels_last's: dense in the order C, W, H, N
// (innermost first), size-1 dims skipped (their strides do not matter), as
// TensorImpl::is_contiguous is in the order of the dims.
bool dense_channels_last(std::span<const int64_t> sizes, std::span<const int64_t> strides) {
  if (sizes.size() != 4) return false;
  int64_t expected = 1;
  for (int d : {1, 3, 2, 0}) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}
}  // namespace

bool strides_like_channels_last(std::span<const int64_t> sizes, std::span<const int64_t> strides) {
  if (sizes.size() != 4 || strides[1] == 0) return false;  // a trivial C dim: NCHW by default
  int64_t min = 0;
  for (int d : {1, 3, 2, 0}) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    // [N,1,1,1] with equal strides (contiguous, or sliced from N11W): ambiguous, NCHW.
    if (d == 0 && min == strides[1]) return false;
    // Tells N1H1 channels-last ([H,1,1,1]) from contiguous ([H,1,H,1]) strides.
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

MemoryFormat elementwise_memory_format(std::span<const Tensor> inputs, const Shape& out_sizes) {
  if (out_sizes.size() != 4) return MemoryFormat::Contiguous;
  for (const Tensor& t : inputs) {
    if (t.sizes() != out_sizes) continue;
    return suggest_memory_format(t);
  }
  return MemoryFormat::Contiguous;
}

bool is_contiguous(const Tensor& x, MemoryFormat format) {
  NABLA_CHECK(x.defined(), "is_contiguous: called on an undefined tensor");
  NABLA_CHECK(format != MemoryFormat::Preserve, "is_contiguous: preserve_format is not a format a tensor can be "
              "in; expected contiguous_format or channels_last");
  return format == MemoryFormat::ChannelsLast ? dense_channels_last(x.sizes(), x.strides()) : x.is_contiguous();
}

MemoryFormat suggest_memory_format(const Tensor& x) {
  NABLA_CHECK(x.defined(), "suggest_memory_format: called on an undefined tensor");
  return strides_like_channels_last(x.sizes(), x.strides()) ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
}

Tensor make_empty(IntList sizes, DType dtype, Device device, MemoryFormat format, const char* api) {
  Tensor t = make_empty(sizes, dtype, device, api);
  if (format != MemoryFormat::Contiguous) t.impl()->strides = memory_format_strides(t.sizes(), format, api);
  return t;
}

}  // namespace nabla
