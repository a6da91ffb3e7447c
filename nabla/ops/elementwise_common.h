// Shared pieces of the elementwise op definitions: shape inference with
// broadcasting and the constructors of table entries. Internal to nabla/ops.
#pragma once
#include "nabla/ops/elementwise.h"
#include "nabla/ops/op.h"

namespace nabla::detail {

OutputMetas infer_unary(const OpDef& op, Inputs in, const Attrs& attrs);        // same shape and dtype
OutputMetas infer_unary_bool(const OpDef& op, Inputs in, const Attrs& attrs);   // same shape, bool
OutputMetas infer_binary(const OpDef& op, Inputs in, const Attrs& attrs);       // broadcast, dtype of input 0
OutputMetas infer_binary_bool(const OpDef& op, Inputs in, const Attrs& attrs);  // broadcast, bool

// A unary float op (integer inputs promoted to float32). Its kernels are
// registered by the backends (the CPU's: kernels/cpu/unary_ops.cpp).
constexpr OpDef unary_float_op(std::string_view name, GradFn grad, bool saves_output = false,
                               std::string_view attr_names = "") {
  return OpDef{.name = name,
               .num_inputs = 1,
               .attr_names = attr_names,
               .infer = infer_unary,
               .grad = grad,
               .flags = kElementwise | kInplaceOk | (saves_output ? kSaveOutputs : 0u),
               .promote = Promote::CommonFloat,
               .save_inputs = saves_output ? 0u : 1u};
}

constexpr OpDef binary_op(std::string_view name, GradFn grad, Promote promote = Promote::Common,
                          uint32_t save_inputs = 3, uint32_t extra_flags = 0) {
  return OpDef{.name = name,
               .num_inputs = 2,
               .infer = infer_binary,
               .grad = grad,
               .flags = kElementwise | kInplaceOk | extra_flags,
               .promote = promote,
               .save_inputs = save_inputs};
}

// Registers a list of ops at static-initialization time.
struct RegisterOps {
  RegisterOps(std::initializer_list<const OpDef*> ops) {
    for (const OpDef* op : ops) OpRegistrar{*op};
  }
};

}  // namespace nabla::detail

// Defines name(Tensor, Scalar) and name(Scalar, Tensor) for a binary op `name`
// that has a (Tensor, Tensor) form, in the .cpp that defines that form.
// The number becomes a 0-dim tensor of the dtype PyTorch gives `tensor op
// number` (scalar_tensor_like); type promotion then keeps the tensor's dtype
// (a 0-dim operand only wins when of a higher category). Errors name the op
// called, also when the tensor is undefined (Note [User-facing op names]).
#define NABLA_SCALAR_FORMS(name)                                      \
  Tensor name(const Tensor& a, const Scalar& b) try {                 \
    return name(a, scalar_tensor_like(b, a));                         \
  } catch (const Error&) {                                            \
    detail::rethrow_naming(#name);                                    \
  }                                                                   \
  Tensor name(const Scalar& a, const Tensor& b) try {                 \
    return name(scalar_tensor_like(a, b), b);                         \
  } catch (const Error&) {                                            \
    detail::rethrow_naming(#name);                                    \
  }
