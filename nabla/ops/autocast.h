// Automatic mixed precision on the CPU: PyTorch's
// `torch.autocast("cpu", dtype=torch.bfloat16)`. Inside an AutocastGuard's
// scope (on its thread), the ops that gain from lower precision (matrix
// products and convolutions) cast their float32 inputs to bfloat16 and run in
// bfloat16 with float32 accumulation, and the ops whose accuracy needs float32
// (softmax, losses, norms, exp/log, sums and means) cast their inputs to
// float32. Every other op runs in the dtype of its inputs. The casts are
// ordinary differentiable `cast` ops, so parameters stay float32 ("master
// weights") and their gradients come back float32. docs/autocast.md has the
// two op lists and the reasons.
//
//   nabla::AutocastGuard autocast(nabla::kBFloat16);
//   Tensor logits = model->forward(x);          // bfloat16 (last op: linear)
//   Tensor loss = cross_entropy(logits, y);     // float32
//   ... // leave the scope, then loss.backward() (as PyTorch recommends)
#pragma once
#include <string_view>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla {

// Turns autocast on (or, with enabled = false, off) on this thread for its
// lifetime, restoring the previous state after. dtype: kBFloat16 (fast where
// the CPU has AVX512-BF16 or AMX) or kFloat16 (correct, but computed through
// float32 on the CPU). Nests: the innermost guard wins.
class AutocastGuard {
 public:
  explicit AutocastGuard(DType dtype = kBFloat16, bool enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool prev_enabled_;
  DType prev_dtype_;
};

// torch.is_autocast_enabled("cpu") / torch.get_autocast_dtype("cpu").
bool is_autocast_enabled();
DType autocast_dtype();

// What autocast does to an op's inputs.
enum class AutocastPolicy {
  None,            // runs in its inputs' dtype
  LowerPrecision,  // float32 inputs cast to the autocast dtype
  Float32,         // bfloat16/float16 inputs cast to float32
};
// The policy of the op named `op` (a name of the op table, e.g. "mm").
AutocastPolicy autocast_policy(std::string_view op);
// The names of the ops with that policy (docs and tests).
std::vector<std::string_view> autocast_ops(AutocastPolicy policy);

namespace detail {
// `t` cast to the autocast dtype when autocast is on and t is float32;
// otherwise t. For composites whose last step is not a listed op (linear's
// bias add, addmm's `c +`), so their result is the lower dtype as PyTorch's.
Tensor autocast_lower(const Tensor& t);
}  // namespace detail

}  // namespace nabla
