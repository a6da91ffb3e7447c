#include "nabla/kernels/accel/strided.h"

#include "nabla/kernels/accel/programs.h"

#include "nabla/core/grad_mode.h"

namespace nabla::accel {
namespace {

constexpr int kMaxDims = device_c::kMaxDims;

// The device C integer as wide as one element of `t`.
const char* item_type(DType t) {
  switch (itemsize(t)) {
    case 1:
      return "uchar";
    case 2:
      return "ushort";
    case 4:
      return "uint";
    default:
      return "ulong";
  }
}

}  // namespace

StridedOperands::StridedOperands(const char* op, const Shape& sizes, std::initializer_list<Shape> strides) {
  // Keep the dims of size != 1, merging dim d into the kept one before it
  // when every operand steps over d exactly as one step of that dim.
  std::vector<int64_t> kept_sizes;
  std::vector<std::vector<int64_t>> kept(strides.size());
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    numel_ *= sizes[d];
    if (sizes[d] == 1) continue;
    bool merge = !kept_sizes.empty();
    std::size_t k = 0;
    for (const Shape& s : strides) merge = merge && kept[k++].back() == s[d] * sizes[d];
    k = 0;
    if (merge) {
      kept_sizes.back() *= sizes[d];
      for (const Shape& s : strides) kept[k++].back() = s[d];
    } else {
      kept_sizes.push_back(sizes[d]);
      for (const Shape& s : strides) kept[k++].push_back(s[d]);
    }
  }
  if (numel_ == 0) return;  // nothing runs: any rank will do
  NABLA_CHECK(kept_sizes.size() <= static_cast<std::size_t>(kMaxDims), op, ": accelerator kernels take up to ", kMaxDims,
              " dims after merging contiguous ones; got shape ", sizes);
  // Right-aligned: leading dims of size 1, stride 0.
  const std::size_t lead = kMaxDims - kept_sizes.size();
  sizes_.fill(1);
  for (std::size_t d = 0; d < kept_sizes.size(); ++d) sizes_[lead + d] = kept_sizes[d];
  for (const std::vector<int64_t>& s : kept) {
    Dims dims{};
    for (std::size_t d = 0; d < s.size(); ++d) dims[lead + d] = s[d];
    strides_.push_back(dims);
  }
}

void StridedOperands::add_to(Launch& k) const {
  for (int64_t s : sizes_) k.arg(s);
  for (const Dims& st : strides_)
    for (int64_t s : st) k.arg(s);
}

Program move_program(DType t) {
  std::string body = "typedef " + std::string(item_type(t)) + " U;\n#define NB_COMBINE(d, s) (s)\n";
  body += device_c::kStridedHelpers;
  body += device_c::kScatterKernel;
  body += device_c::kMoveKernels;
  return program({}, body);
}

Program accumulate_program(DType t) {
  // As the CPU's T(d + s): bool's sum is `or`, the narrow integers wrap.
  std::string body = t == kBool ? "#define NB_ADD(a, b) (U)((a) | (b))\n" : "#define NB_ADD(a, b) (U)((a) + (b))\n";
  body += "#define NB_COMBINE(d, s) NB_ADD(d, s)\n";
  body += device_c::kStridedHelpers;
  body += device_c::kScatterKernel;
  body += device_c::kAccumulateKernels;
  return program({{"U", t}}, body);
}

// Keys name the kernel too: program_cache.h keeps one kernel per key (the
// kernels of one program share its binary on disk, which is keyed by source).
Launch move_kernel(DeviceRef dev, DType t, const char* name, const char* op) {
  return Launch(dev, std::string("index_move|") + item_type(t) + '|' + name, name, [t] { return move_program(t); },
                op);
}

Launch accumulate_kernel(DeviceRef dev, DType t, const char* name, const char* op) {
  check_dtype(op, t, dev);
  return Launch(dev, std::string("index_accumulate|") + std::string(dtype_name(t)) + '|' + name, name,
                [t] { return accumulate_program(t); }, op);
}

void copy_items(const Tensor& dst, const Tensor& src, const char* op) {
  const StridedOperands s(op, dst.sizes(), {dst.strides(), src.strides()});
  if (s.numel() == 0) return;
  Launch k = move_kernel(device_ref(dst.device(), op), dst.dtype(), "nb_copy", op);
  k.arg(dst).arg(src).arg(s.numel());
  s.add_to(k);
  k.run(static_cast<std::size_t>(s.numel()));
}

Tensor contiguous_items(const Tensor& t, const char* op) {
  if (t.is_contiguous()) return t;
  Tensor out = make_empty(t.sizes(), t.dtype(), t.device(), op);
  copy_items(out, t, op);
  return out;
}

BadIndexFlag::BadIndexFlag(Device device, const char* op) : flag_(make_empty({1}, kInt64, device, op)), op_(op) {
  zero_fill(flag_, op);
}

bool BadIndexFlag::raised() {
  int64_t v = 0;
  read_items(flag_, &v, sizeof v, op_);
  return v != 0;
}

bool first_index_outside(const Tensor& index, int64_t lo, int64_t hi, int64_t& value, int64_t& position) {
  NoGradGuard no_grad;
  const std::vector<int64_t> v = index.to_vector<int64_t>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] >= lo && v[i] < hi) continue;
    value = v[i];
    position = static_cast<int64_t>(i);
    return true;
  }
  return false;
}

}  // namespace nabla::accel
