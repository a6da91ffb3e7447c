// The math of each elementwise op, written once, in "device C": a C
// expression over the operands x, y, z (inputs in order), the compute type T,
// the attributes a0, a1 (passed as T values) and the NB_* primitives of a
// prelude. device/elementwise_source.h renders a row into a device C kernel,
// which each backend compiles with its own prelude (OpenCL C, CUDA C++).
// Helper functions the expressions call (nb_floordiv, ...) are device C too,
// written with NB_FN, and come with the rendered kernel.
//
// One row per op of the table, keyed by its OpDef. The CPU keeps its own
// vectorized functors (ops/*.cpp): the op-table suite checks both against one
// reference.
#pragma once
#include <cstdint>
#include <span>

#include "nabla/ops/op.h"

namespace nabla::device_c {

struct ElementwiseExpr {
  const OpDef* op;
  const char* float_expr = nullptr;  // for float32/float64 T; null: integers only
  const char* int_expr = nullptr;    // for integer and bool T (bool is a 0/1 byte); null: floating only
  int8_t num_attrs = 0;              // attrs 0.. as T values a0, a1
  int8_t compute_input = 0;          // the input whose dtype is T (where: 1, after the condition)
  int8_t first_input = 0;            // inputs before it are not read (copy: its destination)
  bool bounds = false;               // a0, a1 are optional lower/upper bounds (clamp): absent = no bound
  bool no_bool = false;              // bool inputs are an error (as on the CPU)
};

std::span<const ElementwiseExpr> elementwise_exprs();
// The row of an op, or null when it has none.
const ElementwiseExpr* find_elementwise_expr(const OpDef& op);

}  // namespace nabla::device_c

namespace nabla::device_c {

// A reduction over some dims, written once in device C: the accumulator
// `acc` (type A: double for floating inputs where the device has it, else
// the input's type; long for integers and bool) starts at `init`, takes each
// element `x` (converted to A) through `combine`, and the output is `acc`
// converted to the output's dtype.
struct ReduceExpr {
  const OpDef* op;
  const char* init;
  const char* float_combine;  // floating A
  const char* int_combine;    // integer A
};

std::span<const ReduceExpr> reduce_exprs();

}  // namespace nabla::device_c
