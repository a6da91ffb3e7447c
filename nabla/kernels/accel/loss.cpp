// Accelerator kernels (OpenCL, CUDA) of cross_entropy (class-index targets), nll_loss and
// binary_cross_entropy (kernels/device/loss.h).
#include "nabla/kernels/accel/register.h"

#include <string>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/device/loss.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/ops.h"

namespace nabla {
extern const OpDef cross_entropy_op, nll_loss_op, binary_cross_entropy_op;  // ops/*_ops.cpp

namespace accel {
namespace {

enum class Reduction { None, Mean, Sum };
Reduction reduction_of(const std::string& s) {
  return s == "none" ? Reduction::None : s == "sum" ? Reduction::Sum : Reduction::Mean;
}

// The loss program's kernel `name` for data type t: one program per dtype
// (the accumulator is double where the device has it, as on the CPU).
struct LossProgram {
  DeviceRef dev;
  DType t, acc;
  const char* op;
  LossProgram(const char* op_name, DType dtype, Device d)
      : dev(device_ref(d, op_name)), t(dtype), acc(dev.fp64() ? kFloat64 : kFloat32), op(op_name) {
    check_dtype(op, t, dev);
  }
  Launch launch(const char* kernel) const {
    const std::string key = std::string("loss|") + std::string(dtype_name(t)) + '|' + kernel;
    const auto make_source = [&] { return program({{"T", t}, {"A", acc}}, device_c::loss_source()); };
    return Launch(dev, key, kernel, make_source, op);
  }
  Tensor scratch(int64_t n, DType dt) const { return make_empty({n}, dt, dev.device()); }
};

// A one-byte device flag, 0, that kernels set on bad data. raised() reads it
// back, which waits for the kernels before it: one synchronization per loss
// call, since a kernel cannot throw and the CPU fails before returning.
struct BadDataFlag {
  Tensor flag;
  explicit BadDataFlag(Device d) : flag(zeros({1}, TensorOptions(kBool).device(d))) {}
  bool raised() const { return flag.item<bool>(); }
};

// out = the per-sample losses (reduction none), or their sum or weighted mean
// over the CPU's blocks, added in the CPU's order. From `elems` (T, weight 1
// each) when it is defined, else from the A buffers loss and weight.
void reduce_losses(const LossProgram& p, Reduction red, const Tensor& loss, const Tensor& weight, const Tensor& elems,
                   int64_t samples, const Tensor& out) {
  if (red == Reduction::None) {
    if (elems.defined()) return;  // nb_bce wrote out itself
    p.launch("nb_loss_store").arg(out).arg(loss).arg(samples).run(static_cast<std::size_t>(samples));
    return;
  }
  const int64_t blocks = (samples + device_c::kLossBlock - 1) / device_c::kLossBlock;
  const Tensor loss_part = p.scratch(std::max<int64_t>(blocks, 1), p.acc);
  const Tensor weight_part = p.scratch(std::max<int64_t>(blocks, 1), p.acc);
  const bool from_elems = elems.defined();
  // Unused buffer arguments still need a valid buffer: the partials stand in.
  const Tensor& l = from_elems ? loss_part : loss;
  const Tensor& w = from_elems ? weight_part : weight;
  const Tensor& e = from_elems ? elems : out;
  {
    Launch k = p.launch("nb_loss_blocks");
    k.arg(loss_part).arg(weight_part).arg(l).arg(w).arg(e);
    k.arg_as(kInt32, from_elems ? 1 : 0).arg(samples).arg(int64_t{device_c::kLossBlock});
    k.run(static_cast<std::size_t>(blocks));
  }
  Launch k = p.launch("nb_loss_total");
  k.arg(out).arg(loss_part).arg(weight_part).arg(blocks).arg_as(kInt32, red == Reduction::Mean ? 1 : 0).run(1);
}

// The CPU's message for the first out-of-range target.
[[noreturn]] void report_target(const char* loss, const Tensor& target, int64_t classes, int64_t ignore_index) {
  const Tensor t = target.cpu();
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i)
    if (p[i] != ignore_index && (p[i] < 0 || p[i] >= classes))
      fail(loss, ": target ", p[i], " at position ", i, " is out of bounds: expected a class index in [0, ",
           classes - 1, "] or ignore_index (", ignore_index, ")");
  fail(loss, ": a target is out of bounds");  // not reached: the device flagged one
}

// cross_entropy attrs: ignore_index, label_smoothing, reduction; nll_loss:
// ignore_index, reduction. Inputs: input [N, C, d...] (or [C]: one sample),
// target int64, optional class weight [C].
void class_loss_kernel(const OpDef& op, Inputs in, const Attrs& a, std::span<Tensor> out) {
  NoGradGuard no_grad;
  const bool ce = &op == &cross_entropy_op;
  const char* name = op.name.data();
  const LossProgram p(name, in[0].dtype(), out[0].device());
  NABLA_CHECK(out[0].numel() == 0 || out[0].is_contiguous(), name, ": the OpenCL kernel writes a contiguous output");
  const Tensor x = dense(in[0]), target = dense(in[1]);
  const Tensor weight = in.size() > 2 ? dense(in[2]) : Tensor();
  const int64_t classes = x.dim() >= 2 ? x.sizes()[1] : x.numel();
  int64_t inner = 1;
  for (int64_t d = 2; d < x.dim(); ++d) inner *= x.sizes()[d];
  const int64_t samples = target.numel();
  const int64_t ignore_index = a.i(0);
  const Reduction red = reduction_of(a.str(ce ? 2 : 1));
  const Tensor loss = p.scratch(std::max<int64_t>(samples, 1), p.acc);
  const Tensor weights = p.scratch(std::max<int64_t>(samples, 1), p.acc);
  if (samples > 0) {
    BadDataFlag bad(out[0].device());
    Launch k = p.launch(ce ? "nb_cross_entropy" : "nb_nll_loss");
    k.arg(loss).arg(weights).arg(bad.flag).arg(x).arg(target);
    k.arg(weight.defined() ? weight : x).arg_as(kInt32, weight.defined() ? 1 : 0);
    k.arg(samples).arg(classes).arg(inner).arg(ignore_index);
    if (ce) k.arg_as(p.acc, a.f(1));
    k.run(static_cast<std::size_t>(samples));
    if (bad.raised()) report_target(name, target, classes, ignore_index);
  }
  reduce_losses(p, red, loss, weights, Tensor(), samples, out[0]);
}

// Attrs: reduction. Inputs: input, target (input's shape), optional weight
// (broadcast to the input's shape here).
void binary_cross_entropy_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  NoGradGuard no_grad;
  const char* name = "binary_cross_entropy";
  const LossProgram p(name, in[0].dtype(), out[0].device());
  NABLA_CHECK(out[0].numel() == 0 || out[0].is_contiguous(), name, ": the OpenCL kernel writes a contiguous output");
  const Tensor x = dense(in[0]), target = dense(in[1]);
  const Tensor weight = in.size() > 2 ? dense(in[2].expand(x.sizes())) : Tensor();
  const int64_t n = x.numel();
  const Reduction red = reduction_of(a.str(0));
  const Tensor elems = red == Reduction::None ? out[0] : p.scratch(std::max<int64_t>(n, 1), x.dtype());
  if (n > 0) {
    BadDataFlag bad(out[0].device());
    Launch k = p.launch("nb_bce");
    k.arg(elems).arg(bad.flag).arg(x).arg(target);
    k.arg(weight.defined() ? weight : x).arg_as(kInt32, weight.defined() ? 1 : 0).arg(n);
    k.run(static_cast<std::size_t>(n));
    if (bad.raised()) {
      const Tensor xs = x.cpu().to(kFloat64);
      const double* v = xs.data_ptr<double>();
      for (int64_t i = 0; i < n; ++i)
        if (!(v[i] >= 0.0 && v[i] <= 1.0))
          fail("binary_cross_entropy: all elements of input should be probabilities in [0, 1], got ", v[i],
               " at position ", i, "; apply sigmoid first or use binary_cross_entropy_with_logits");
    }
  }
  reduce_losses(p, red, Tensor(), Tensor(), elems, n, out[0]);
}

}  // namespace

void register_loss_kernels(DeviceType type) {
  for (const OpDef* op : {&cross_entropy_op, &nll_loss_op})
    register_boxed_kernel(*op, type, class_loss_kernel);
  register_kernel(binary_cross_entropy_op, type, binary_cross_entropy_kernel);
}

}  // namespace accel
}  // namespace nabla
