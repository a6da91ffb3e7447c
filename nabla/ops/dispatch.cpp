// The dispatcher: promote dtypes, infer shapes, pick the kernel for the
// device, allocate outputs, run, and hand the call to autograd when an input
// requires grad. This is the whole eager overhead of an op, so it stays lean:
// no heap allocation beyond the outputs for ops with few inputs.
#include <mutex>
#include <new>
#include <unordered_map>

#include "nabla/core/grad_mode.h"
#include "nabla/core/trace_context.h"
#include "nabla/core/user_op.h"
#include "nabla/ops/autocast_dispatch.h"
#include "nabla/ops/autograd_hook.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/memory_format_rules.h"
#include "nabla/ops/op.h"
#include "nabla/ops/reduced_float.h"

namespace nabla {

extern const OpDef cast_op;  // ops/elementwise_ops.cpp

namespace {

std::vector<const OpDef*>& mutable_table() {
  static std::vector<const OpDef*> table;
  return table;
}

SymbolicHook g_symbolic_hook = nullptr;
UnknownDimsHook g_unknown_dims_hook = nullptr;

// Whether a graph value among the inputs has an unknown (-1) dim.
bool has_unknown_dims(Inputs inputs) {
  for (const Tensor& t : inputs)
    if (t.is_symbolic())
      for (int64_t d : t.sizes())
        if (d < 0) return true;
  return false;
}
AutogradHook g_autograd_hook = nullptr;

bool any_requires_grad(Inputs inputs) {
  for (const Tensor& t : inputs) {
    const auto& m = t.impl()->autograd;
    if (m && m->requires_grad) return true;
  }
  return false;
}

bool needs_float32_compute(const OpDef& op, Inputs inputs, const OutputMetas& metas) {
  if (op.has(kNativeReducedFloat)) return false;
  for (const Tensor& t : inputs)
    if (is_reduced_float(t.dtype())) return true;
  for (const OutputMeta& m : metas)
    if (is_reduced_float(m.dtype)) return true;
  return false;
}

// suffix: "_" for the in-place form, which the messages name.
void check_arity(const OpDef& op, Inputs inputs, const char* suffix = "") {
  if (op.num_inputs >= 0)
    NABLA_CHECK(static_cast<int>(inputs.size()) == op.num_inputs, op.name, suffix, ": expected ", op.num_inputs,
                " tensor inputs, got ", inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    NABLA_CHECK(inputs[i].defined(), op.name, suffix, ": input ", i, " is an undefined tensor");
}

// Casts inputs to one dtype when the op asks for it. Returns true if it did.
bool promote_inputs(const OpDef& op, Inputs inputs, TensorList& out) {
  if (op.promote == Promote::None || inputs.size() <= static_cast<std::size_t>(op.promote_from)) return false;
  Inputs tail = inputs.subspan(static_cast<std::size_t>(op.promote_from));
  DType target = result_type(tail);
  if (op.promote == Promote::CommonFloat && !is_floating(target)) target = kFloat32;
  bool differs = false;
  for (const Tensor& t : tail) differs |= t.dtype() != target;
  if (!differs) return false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    bool cast = i >= static_cast<std::size_t>(op.promote_from) && t.dtype() != target;
    out.push_back(cast ? call1(cast_op, {t}, Attrs{target}) : t);
  }
  return true;
}

// Where an op's outputs live: the device its attrs name (factories,
// to_device; the CPU where a factory leaves it out), else input 0's, else the
// CPU.
Device output_device(const OpDef& op, Inputs inputs, const Attrs& attrs) {
  if (op.device_attr >= 0) [[unlikely]] {
    const auto k = static_cast<std::size_t>(op.device_attr);
    return attrs.is_none(k) ? kCPU : Device(attrs.str(k));
  }
  return inputs.empty() || !inputs[0].defined() ? kCPU : inputs[0].impl()->device;
}

// Graph values (symbolic) have no device until a Session runs them: only
// concrete inputs must agree.
void check_devices(const OpDef& op, Inputs inputs) {
  std::size_t first = 0;
  while (first < inputs.size() && inputs[first].is_symbolic()) ++first;
  for (std::size_t i = first + 1; i < inputs.size(); ++i)
    NABLA_CHECK(inputs[i].is_symbolic() || inputs[i].device() == inputs[first].device(), op.name,
                ": expected all inputs on one device, got input ", first, " on ", inputs[first].device(),
                " and input ", i, " on ", inputs[i].device(), "; move them with .to(device)");
}

}  // namespace

// float16/bfloat16 on CPU: compute in float32 and round the results back.
void run_in_float32(const OpDef& op, KernelFn kernel, Inputs inputs, const Attrs& attrs,
                    std::span<Tensor> outputs) {
  KernelFn cast_kernel = find_kernel(cast_op, DeviceType::CPU);
  TensorList wide_in;
  for (const Tensor& t : inputs) {
    if (is_reduced_float(t.dtype())) {
      Tensor w = make_empty(t.sizes(), kFloat32, t.device());
      const Tensor src[1] = {t};
      Tensor dst[1] = {w};
      cast_kernel(Inputs(src, 1), Attrs{kFloat32}, std::span<Tensor>(dst, 1));
      wide_in.push_back(w);
    } else {
      wide_in.push_back(t);
    }
  }
  TensorList wide_out;
  for (const Tensor& o : outputs)
    wide_out.push_back(is_reduced_float(o.dtype()) ? make_empty(o.sizes(), kFloat32, o.device()) : o);
  kernel(std::span<const Tensor>(wide_in.data(), wide_in.size()), attrs,
         std::span<Tensor>(wide_out.data(), wide_out.size()));
  (void)op;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (wide_out[i].is_same(outputs[i])) continue;
    const Tensor src[1] = {wide_out[i]};
    cast_kernel(Inputs(src, 1), Attrs{outputs[i].dtype()}, std::span<Tensor>(&outputs[i], 1));
  }
}

OpRegistrar::OpRegistrar(const OpDef& op) { mutable_table().push_back(&op); }

const std::vector<const OpDef*>& op_table() { return mutable_table(); }

const OpDef* find_op(std::string_view name) {
  static std::once_flag once;
  static std::unordered_map<std::string_view, const OpDef*> by_name;
  std::call_once(once, [] {
    for (const OpDef* op : op_table()) by_name.emplace(op->name, op);
  });
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

void set_symbolic_hook(SymbolicHook hook) { g_symbolic_hook = hook; }
void set_unknown_dims_hook(UnknownDimsHook hook) { g_unknown_dims_hook = hook; }
void set_autograd_hook(AutogradHook hook) { g_autograd_hook = hook; }

DType result_type(Inputs inputs) {
  auto category = [](DType t) { return t == kBool ? 0 : is_floating(t) ? 2 : 1; };
  bool have_dim = false, have_zero = false;
  DType dim_t = kBool, zero_t = kBool;
  for (const Tensor& t : inputs) {
    if (t.dim() > 0) {
      dim_t = have_dim ? promote_types(dim_t, t.dtype()) : t.dtype();
      have_dim = true;
    } else {
      zero_t = have_zero ? promote_types(zero_t, t.dtype()) : t.dtype();
      have_zero = true;
    }
  }
  if (!have_dim) return zero_t;
  if (!have_zero) return dim_t;
  return category(zero_t) > category(dim_t) ? promote_types(dim_t, zero_t) : dim_t;
}

namespace {

// An in-place op cannot write into a graph value, nor write a graph value
// (which has no data yet) into a concrete tensor. Inside compile()'s trace
// (core/trace_context.h) writing a traced value into a tensor that requires
// grad is a parameter update (`w.sub_(lr * w.grad())`), and any in-place
// change of a module's buffer (detail::is_state: batch norm's running
// statistics) is a state update: both are traced, and this returns true.
// Other cases are errors saying what to do instead.
bool check_inplace_operands(const OpDef& op, const Tensor& self, Inputs inputs) {
  bool symbolic_operand = false;
  for (const Tensor& t : inputs) symbolic_operand |= t.is_symbolic();
  const std::string* ctx = detail::trace_context();
  // Even from concrete operands (`num_batches_tracked.add_(1)`): done at trace
  // time, it would happen once instead of at every call.
  if (ctx && !self.is_symbolic() && detail::is_state(self)) return true;
  // With concrete operands only it would run once, at trace time, and never
  // in the compiled runs: for a parameter that is a silently skipped update.
  if (ctx && !self.is_symbolic() && !symbolic_operand && self.requires_grad())
    fail(*ctx, ": ", op.name, "_ modifies a tensor that requires grad (a parameter) in place with values that do "
         "not depend on the traced function's inputs or gradients; it would run once, while tracing, and not in "
         "later calls: do it outside the compiled function");
  if (!self.is_symbolic() && !symbolic_operand) return false;
  if (ctx) {
    if (self.is_symbolic())
      fail(*ctx, ": ", op.name, "_ modifies a traced tensor in place; compile() does not trace in-place ops on "
           "traced values: use the out-of-place op (", op.name, ")");
    if (self.requires_grad()) return true;
    fail(*ctx, ": ", op.name, "_ writes a traced value into a concrete tensor that neither requires grad nor is a "
         "module's buffer (a tensor closed over or made while tracing); compile() traces in-place updates of "
         "parameters (tensors that require grad), of buffers (Module::register_buffer) and optimizer steps only: "
         "register the tensor as a buffer, or return the value from the compiled function instead");
  }
  NABLA_CHECK(!self.is_symbolic(), op.name, "_: in-place ops on graph values are not supported; use assign()");
  fail(op.name, "_: writes a graph value into a concrete tensor in place, which a graph cannot do; "
       "keep the state in a graph variable and use graph::assign()");
}

// An op without inputs (a factory: zeros, rand, ...) is never a graph node
// nor recorded by autograd and has nothing to promote or check: only its
// output device, its inference and its kernel there. A lean path keeps a
// factory as cheap as the host loop it replaced.
TensorList run_factory(const OpDef& op, const Attrs& attrs) {
  const Device device = output_device(op, {}, attrs);
  OutputMetas metas = op.infer(op, {}, attrs);
  const KernelRef kernel = kernel_for(op, device, metas.empty() ? kFloat32 : metas[0].dtype);
  TensorList outputs;
  for (const OutputMeta& m : metas) outputs.push_back(make_empty(m.sizes, m.dtype, device, op.name.data()));
  std::span<Tensor> out_span(outputs.data(), outputs.size());
  if (device.is_cpu() && needs_float32_compute(op, {}, metas))
    run_in_float32(op, kernel.kernel, {}, attrs, out_span);
  else
    kernel(op, {}, attrs, out_span);
  return outputs;
}

}  // namespace

// Memory a kernel takes outside the tensor allocator (std::vector scratch)
// throws std::bad_alloc: made a nabla::Error naming the op (a try block costs
// nothing until something throws). Tensor memory fails earlier, in
// make_empty, with the op and the bytes.
TensorList call(const OpDef& op, Inputs inputs, const Attrs& attrs) try {
  if (op.num_inputs == 0 && inputs.empty() && !op.composite) [[unlikely]]
    return run_factory(op, attrs);
  if (detail::g_autocast_enabled) [[unlikely]]
    if (auto cast = detail::autocast_call(op, inputs, attrs)) return std::move(*cast);
  if (g_unknown_dims_hook && has_unknown_dims(inputs)) return g_unknown_dims_hook(op, inputs, attrs);
  const Device device = output_device(op, inputs, attrs);
  // A composite op runs as its parts unless the device has a kernel of its own.
  if (op.composite && !has_device_kernel(op, device.type)) {
    try {
      return op.composite(inputs, attrs);
    } catch (const Error&) {
      detail::rethrow_naming(op.name);  // not the ops it runs: Note [User-facing op names]
    }
  }
  check_arity(op, inputs);
  TensorList promoted;
  if (promote_inputs(op, inputs, promoted)) inputs = Inputs(promoted.data(), promoted.size());
  check_devices(op, inputs);

  OutputMetas metas = op.infer(op, inputs, attrs);
  // While compile() traces (core/trace_context.h), an op on a tensor that
  // requires grad (a module's parameter) or on a module's buffer (state)
  // becomes a graph node too, so values computed from them are recomputed at
  // each run instead of frozen.
  const bool lift = detail::trace_context() != nullptr;
  for (const Tensor& t : inputs) {
    if (t.is_symbolic() || (lift && t.defined() && (t.requires_grad() || detail::is_state(t)))) {
      NABLA_CHECK(g_symbolic_hook, op.name, ": symbolic input but no graph is being built");
      return g_symbolic_hook(op, inputs, attrs, metas);
    }
  }

  const KernelRef kernel =
      kernel_for(op, device, inputs.empty() ? (metas.empty() ? kFloat32 : metas[0].dtype) : inputs[0].dtype());

  TensorList outputs;
  if (op.has(kView)) {
    outputs.resize(metas.size());
  } else {
    for (const OutputMeta& m : metas) {
      // Channels-last outputs for channels-last inputs (memory_format_rules.h), CPU only.
      MemoryFormat format = device.is_cpu() ? detail::output_memory_format(op, inputs, m.sizes) : MemoryFormat::Contiguous;
      outputs.push_back(format == MemoryFormat::Contiguous ? make_empty(m.sizes, m.dtype, device, op.name.data())
                                                           : make_empty(m.sizes, m.dtype, device, format, op.name.data()));
    }
  }
  std::span<Tensor> out_span(outputs.data(), outputs.size());
  if (device.is_cpu() && needs_float32_compute(op, inputs, metas)) {
    run_in_float32(op, kernel.kernel, inputs, attrs, out_span);
  } else {
    kernel(op, inputs, attrs, out_span);
  }
  if (op.has(kView))
    for (Tensor& o : outputs) o.impl()->is_view = true;

  if (g_autograd_hook && !op.has(kNonDifferentiable) && GradMode::is_enabled() && any_requires_grad(inputs))
    g_autograd_hook(op, inputs, attrs, out_span, nullptr);
  return outputs;
} catch (const std::bad_alloc&) {
  fail(op.name, ": out of memory (std::bad_alloc) while running the op on inputs of shape ",
       inputs.empty() || !inputs[0].defined() ? Shape{} : inputs[0].sizes());
}

void run_cpu_kernel(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  const KernelRef kernel = kernel_for(op, kCPU, inputs.empty() ? outputs[0].dtype() : inputs[0].dtype());
  OutputMetas metas;
  for (const Tensor& o : outputs)
    if (o.defined()) metas.push_back({o.sizes(), o.dtype()});
  if (needs_float32_compute(op, inputs, metas))
    run_in_float32(op, kernel.kernel, inputs, attrs, outputs);
  else
    kernel(op, inputs, attrs, outputs);
}

Tensor& call_inplace(const OpDef& op, Tensor& self, Inputs inputs, const Attrs& attrs) try {
  check_arity(op, inputs, "_");
  const bool traced_update = check_inplace_operands(op, self, inputs);
  bool recording = g_autograd_hook && GradMode::is_enabled() && any_requires_grad(inputs);
  if (recording) {
    const auto& m = self.impl()->autograd;
    NABLA_CHECK(!(m && m->requires_grad && !m->grad_fn), op.name,
                "_: a leaf tensor that requires grad is being used in an in-place operation; "
                "do it under NoGradGuard or use the out-of-place op");
    NABLA_CHECK(!self.impl()->is_view, op.name,
                "_: in-place modification of a view while recording gradients is not supported; "
                "use the out-of-place op (or clone() the view first)");
  }
  if (traced_update) {
    // A parameter or buffer update inside compile()'s trace: the same in-place
    // op on the run-time values, each time the compiled function runs.
    Tensor target = self;
    Attrs at = attrs;
    std::vector<Tensor> operands(inputs.begin(), inputs.end());
    // A CUDA graph may replay it: its operands are run-time values and its
    // attributes fixed at trace time, so it depends on no host value (the
    // key: where the target's data lives, which replays write).
    detail::EffectReplay replay;
    replay.key = [target] { return std::to_string(reinterpret_cast<uintptr_t>(target.impl()->storage->handle())) + "+" +
                                   std::to_string(target.impl()->offset); };
    detail::current_tracer()->effect(std::string(op.name) + "_", operands, {self},
                                     [&op, target, at](const std::vector<Tensor>& values) mutable {
                                       call_inplace(op, target, Inputs(values.data(), values.size()), at);
                                     },
                                     std::move(replay));
    return self;
  }
  TensorList promoted;
  Inputs ins = inputs;
  if (promote_inputs(op, inputs, promoted)) ins = Inputs(promoted.data(), promoted.size());
  check_devices(op, ins);
  OutputMetas metas = op.infer(op, ins, attrs);
  NABLA_CHECK(metas.size() == 1 && metas[0].sizes == self.sizes(), op.name, "_: the result has shape ",
              metas[0].sizes, " but the in-place target has shape ", self.sizes(),
              "; the other operand must broadcast to the target's shape");
  DType rdt = metas[0].dtype;
  NABLA_CHECK(!(is_floating(rdt) && !is_floating(self.dtype())) && !(rdt != kBool && self.dtype() == kBool), op.name,
              "_: result type ", rdt, " can't be cast to the in-place target's dtype ", self.dtype());

  SmallVector<uint32_t, 4> versions;
  for (const Tensor& t : ins) versions.push_back(t.version());
  const KernelRef kernel = kernel_for(op, self.device(), self.dtype(), "_");
  bool direct = rdt == self.dtype() && op.has(kInplaceOk) && !needs_float32_compute(op, ins, metas) &&
                ins[0].impl()->storage == self.impl()->storage && ins[0].is_same(self);
  if (direct) {
    kernel(op, ins, attrs, std::span<Tensor>(&self, 1));
  } else {
    Tensor tmp = make_empty(metas[0].sizes, rdt, self.device(), op.name.data());
    if (self.device().is_cpu() && needs_float32_compute(op, ins, metas))
      run_in_float32(op, kernel.kernel, ins, attrs, std::span<Tensor>(&tmp, 1));
    else
      kernel(op, ins, attrs, std::span<Tensor>(&tmp, 1));
    const Tensor src[1] = {tmp};
    kernel_for(cast_op, self.device(), tmp.dtype(), "_")(cast_op, Inputs(src, 1), Attrs{self.dtype()},
                                                         std::span<Tensor>(&self, 1));
  }
  self.impl()->storage->bump_version();
  if (recording) g_autograd_hook(op, ins, attrs, std::span<Tensor>(&self, 1), versions.data());
  return self;
} catch (const std::bad_alloc&) {
  fail(op.name, "_: out of memory (std::bad_alloc) while running the op in place on a tensor of shape ",
       self.defined() ? self.sizes() : Shape{});
}

}  // namespace nabla
