// The random ops: draws from the Philox generator (core/random.h) as table
// entries. The public function reserves the counters from the generator and
// passes (seed, offset) as attrs, and every kernel computes element i from
// (seed, offset, i) alone, so a draw is the same on every device and for any
// thread count: rand on an accelerator gives the CPU's numbers. Factories
// (no inputs) name their device in the `device` attr, their last (left out
// for the CPU: OpDef::device_attr); bernoulli(p) draws on p's device. The public functions are in factory.cpp, the CPU kernels in
// kernels/cpu/random.cpp. All are kRandom (a graph never merges, folds or
// fuses two draws) and not differentiable.
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

void check_floating(const OpDef& op, DType t) {
  NABLA_CHECK(is_floating(t), op.name, ": expected a floating point dtype, got ", t);
}

// (The sizes are checked where the output is made: make_empty names the op.)
// Attrs: size, dtype, seed, offset, device.
OutputMetas infer_rand(const OpDef& op, Inputs, const Attrs& a) {
  check_floating(op, a.dtype(1));
  return {{a.ints(0), a.dtype(1)}};
}

// Attrs: size, dtype, seed, offset, mean (none: 0), std (none: 1), device.
OutputMetas infer_normal(const OpDef& op, Inputs, const Attrs& a) {
  check_floating(op, a.dtype(1));
  NABLA_CHECK(a.is_none(5) || a.f(5) >= 0, op.name, ": std must be >= 0, got ", a.f(5));
  return {{a.ints(0), a.dtype(1)}};
}

// Attrs: size, dtype, seed, offset, low, high, device.
OutputMetas infer_randint(const OpDef& op, Inputs, const Attrs& a) {
  NABLA_CHECK(a.i(5) > a.i(4), op.name, ": expected low < high, got low=", a.i(4), " high=", a.i(5));
  return {{a.ints(0), a.dtype(1)}};
}

void check_probability(const OpDef& op, double p) {
  NABLA_CHECK(p >= 0.0 && p <= 1.0, op.name, ": p must be in [0, 1], got ", p);
}

// Attrs: size, dtype, seed, offset, p, device.
OutputMetas infer_bernoulli_scalar(const OpDef& op, Inputs, const Attrs& a) {
  check_probability(op, a.f(4));
  return {{a.ints(0), a.dtype(1)}};
}

// Input: the probabilities p. Attrs: seed, offset. The output has p's shape,
// dtype and device.
OutputMetas infer_bernoulli(const OpDef&, Inputs in, const Attrs&) { return {{in[0].sizes(), in[0].dtype()}}; }

// Attrs: n, dtype, seed, offset, device.
OutputMetas infer_randperm(const OpDef& op, Inputs, const Attrs& a) {
  NABLA_CHECK(a.i(0) >= 0, op.name, ": n must be >= 0, got ", a.i(0));
  return {{Shape{a.i(0)}, a.dtype(1)}};
}

constexpr uint32_t kDraw = kRandom | kNonDifferentiable | kNativeReducedFloat;

}  // namespace

extern constinit const OpDef rand_op{.name = "rand", .num_inputs = 0, .attr_names = "size,dtype,seed,offset,device",
                           .infer = infer_rand, .flags = kDraw, .device_attr = 4};
extern constinit const OpDef normal_op{.name = "normal", .num_inputs = 0,
                             .attr_names = "size,dtype,seed,offset,mean,std,device", .infer = infer_normal,
                             .flags = kDraw, .device_attr = 6};
extern constinit const OpDef randint_op{.name = "randint", .num_inputs = 0,
                              .attr_names = "size,dtype,seed,offset,low,high,device", .infer = infer_randint,
                              .flags = kDraw, .device_attr = 6};
extern constinit const OpDef bernoulli_scalar_op{.name = "bernoulli_scalar", .num_inputs = 0,
                                       .attr_names = "size,dtype,seed,offset,p,device",
                                       .infer = infer_bernoulli_scalar, .flags = kDraw, .device_attr = 5};
// float16/bfloat16 p is widened to float32 around the kernel (exact).
extern constinit const OpDef bernoulli_op{.name = "bernoulli", .attr_names = "seed,offset", .infer = infer_bernoulli,
                                .flags = kRandom | kNonDifferentiable};
extern constinit const OpDef randperm_op{.name = "randperm", .num_inputs = 0, .attr_names = "n,dtype,seed,offset,device",
                               .infer = infer_randperm, .flags = kDraw, .device_attr = 4};

namespace {
detail::RegisterOps register_random_ops{&rand_op, &normal_op, &randint_op, &bernoulli_scalar_op, &bernoulli_op,
                                        &randperm_op};
}

}  // namespace nabla
