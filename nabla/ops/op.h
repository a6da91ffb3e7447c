// The op table. Every op is declared once as an OpDef: its name, inputs,
// attributes, shape/dtype inference and gradient rule (or, for a composite op,
// the function that builds it from other ops). Kernels are not part of the
// entry: each backend registers its own (ops/kernel_registry.h; the CPU's in
// kernels/cpu). Public
// functions (nabla::add, Tensor::mm, operators) only wrap `call(op, ...)`.
// Tests, graph passes and serializers enumerate `op_table()`.
// See DESIGN.md, "One source of truth per op".
#pragma once
#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/ops/attrs.h"

namespace nabla {

struct OutputMeta {
  Shape sizes;
  DType dtype;
};
using OutputMetas = SmallVector<OutputMeta, 2>;
using Inputs = std::span<const Tensor>;

class GradCtx;
struct OpDef;

// Shape and dtype inference; throws nabla::Error (naming the op) on bad input.
using InferFn = OutputMetas (*)(const OpDef& op, Inputs inputs, const Attrs& attrs);
// Computes outputs (already allocated from the inferred metas, or, for view
// ops, left undefined for the kernel to set).
using KernelFn = void (*)(Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs);
// Gradient rule, written with nabla ops: one gradient per input (undefined = none).
using GradFn = TensorList (*)(GradCtx& ctx);
// A composite op: built from other ops, so it needs no kernel and no rule.
using CompositeFn = TensorList (*)(Inputs inputs, const Attrs& attrs);

// How inputs are brought to one dtype before inference.
enum class Promote : uint8_t {
  None,         // inputs are taken as they are
  Common,       // all inputs (from promote_from on) cast to their result type
  CommonFloat,  // same, and integral/bool results become float32
};

enum OpFlags : uint32_t {
  kNoFlags = 0,
  kElementwise = 1u << 0,     // output i depends on input i only (fusable)
  kView = 1u << 1,            // output aliases input 0's storage
  kSaveOutputs = 1u << 2,     // the gradient rule reads outputs
  kNonDifferentiable = 1u << 3,
  kRandom = 1u << 4,          // draws from the generator (not CSE-able)
  kNativeReducedFloat = 1u << 5,  // kernel handles float16/bfloat16 itself
  kInplaceOk = 1u << 6,       // output may be written into input 0's memory
};

// Saves every input, including those past the 32nd of a variadic op.
inline constexpr uint32_t kSaveAllInputs = ~0u;

struct OpDef {
  std::string_view name;
  int num_inputs = 1;  // -1: any number
  std::string_view attr_names = "";  // comma-separated, for printing and serializing
  InferFn infer = nullptr;
  GradFn grad = nullptr;
  CompositeFn composite = nullptr;
  uint32_t flags = 0;
  Promote promote = Promote::None;
  int8_t promote_from = 0;
  uint32_t save_inputs = kSaveAllInputs;  // bit i: the rule reads input i
  int8_t num_differentiable_outputs = -1;  // -1: all floating outputs
  // Per output (up to 4): the input whose memory it may be computed in (-1:
  // none). The kernel reads each element of that input before writing the
  // same element of the output. Sessions use it to update variables in place
  // (graph/passes/variable_writes.h); adam_update's outputs 0, 1, 2 update
  // its inputs 0, 2, 3.
  std::array<int8_t, 4> updates_input = {-1, -1, -1, -1};
  // Ops that choose where their outputs live: the index of the string attr
  // naming the device ("opencl:0"): factories (which have no inputs) and
  // to_device. -1: outputs live on input 0's device (the CPU without inputs).
  // A factory may leave the attr out (none, or past the last attr given) for
  // the CPU, which keeps a CPU factory's attrs small (no heap, no parsing).
  int8_t device_attr = -1;
  // The op's row in the kernel registry (ops/kernel_registry.h), given when
  // its first kernel is registered; -1 until then. Registrations in other
  // translation units may run before this file's initializers, so every
  // OpDef is defined `constinit` (initialized before any code runs).
  mutable int16_t kernel_slot = -1;

  bool has(OpFlags f) const { return (flags & f) != 0; }
};

// Registers an op in the table (called by the static initializers in ops/*.cpp).
struct OpRegistrar {
  explicit OpRegistrar(const OpDef& op);
};
const std::vector<const OpDef*>& op_table();
const OpDef* find_op(std::string_view name);

// ---- running ops ---------------------------------------------------------

// Runs an op eagerly (or adds a node when an input is symbolic) and records
// autograd history. Returns all outputs.
TensorList call(const OpDef& op, Inputs inputs, const Attrs& attrs = {});
inline Tensor call1(const OpDef& op, Inputs inputs, const Attrs& attrs = {}) {
  return std::move(call(op, inputs, attrs)[0]);
}
inline Tensor call1(const OpDef& op, std::initializer_list<Tensor> inputs, const Attrs& attrs = {}) {
  return std::move(call(op, std::span<const Tensor>(inputs.begin(), inputs.size()), attrs)[0]);
}
// Runs op writing its single output into `self` (which is also input 0).
Tensor& call_inplace(const OpDef& op, Tensor& self, Inputs inputs, const Attrs& attrs = {});

// Runs op's CPU kernel on CPU tensors, outputs already allocated (or, for
// views, left undefined), computing float16/bfloat16 in float32 as eager
// dispatch does. For backends that run some ops on host copies.
void run_cpu_kernel(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs);

// Hook through which the graph layer takes over ops on symbolic tensors.
using SymbolicHook = TensorList (*)(const OpDef& op, Inputs inputs, const Attrs& attrs, const OutputMetas& metas);
void set_symbolic_hook(SymbolicHook hook);
// Hook for ops on graph values with unknown dims (-1, a placeholder's batch,
// say): called before promotion, composite expansion and inference, which
// the graph layer does itself with stand-in sizes (graph/unknown_dims.h).
using UnknownDimsHook = TensorList (*)(const OpDef& op, Inputs inputs, const Attrs& attrs);
void set_unknown_dims_hook(UnknownDimsHook hook);

// The dtype PyTorch's type promotion gives these tensors (0-dim tensors only
// count when they are of a higher category than the dimensioned ones).
DType result_type(Inputs inputs);

// The gradient context a rule sees: saved inputs/outputs, gradients of outputs.
class GradCtx {
 public:
  virtual ~GradCtx() = default;
  virtual const Tensor& grad(int output = 0) = 0;  // zeros if the output got no gradient
  virtual Tensor input(int i) = 0;
  virtual Tensor output(int i = 0) = 0;
  virtual const Shape& input_sizes(int i) = 0;
  virtual DType input_dtype(int i) = 0;
  virtual bool needs_grad(int i) = 0;
  virtual int num_inputs() = 0;
  virtual const Attrs& attrs() = 0;
};

}  // namespace nabla
