// Autocast's state, op lists and the input casts dispatch asks for
// (ops/autocast.h; docs/autocast.md).
#include "nabla/ops/autocast.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "nabla/ops/autocast_dispatch.h"
#include "nabla/ops/op.h"

namespace nabla {
namespace detail {
constinit thread_local bool g_autocast_enabled = false;
}  // namespace detail

namespace {

thread_local DType g_autocast_dtype = kBFloat16;

// PyTorch's CPU "lower_precision_fp" list, for the ops nabla's table has.
// Composites built on them follow: matmul, linear, addmm, dot (mm), conv1d
// (conv2d); baddbmm-like code written with bmm as well.
constexpr std::string_view kLowerPrecisionOps[] = {"mm", "bmm", "conv2d", "conv_transpose2d"};

// Ops that run in float32. PyTorch's CPU fp32 list (the losses: mse_loss,
// l1_loss, smooth_l1_loss, huber_loss, nll_loss, cross_entropy, kl_div,
// binary_cross_entropy(_with_logits), prod) plus the entries of its CUDA
// fp32 list that nabla has (softmax, log_softmax, exp/log family, norms,
// sums, logsumexp, ...) and mean and var: nabla's CPU kernels compute these
// through float32 anyway, so a float32 result costs nothing and keeps the
// statistics and the loss exact (docs/autocast.md).
constexpr std::string_view kFloat32Ops[] = {
    // losses
    "cross_entropy", "cross_entropy_probs", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "kl_div", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    // softmax and normalization
    "softmax", "log_softmax", "batch_norm", "batch_norm_relu", "layer_norm", "group_norm",
    // reductions
    "sum", "mean", "var", "prod", "cumsum", "cumprod", "norm", "logsumexp",
    // pointwise functions whose range or accuracy suffers in bfloat16
    "exp", "exp2", "expm1", "log", "log2", "log1p", "rsqrt", "reciprocal", "tan", "softplus", "pow_scalar"};

AutocastPolicy lookup(const OpDef& op) {
  static std::once_flag once;
  static std::unordered_map<const OpDef*, AutocastPolicy>* table;
  std::call_once(once, [] {
    table = new std::unordered_map<const OpDef*, AutocastPolicy>();  // leaked: used until exit
    for (std::string_view n : kLowerPrecisionOps)
      if (const OpDef* d = find_op(n)) table->emplace(d, AutocastPolicy::LowerPrecision);
    for (std::string_view n : kFloat32Ops)
      if (const OpDef* d = find_op(n)) table->emplace(d, AutocastPolicy::Float32);
  });
  auto it = table->find(&op);
  return it == table->end() ? AutocastPolicy::None : it->second;
}

// PyTorch's eligibility: floating tensors other than float64 are cast.
bool eligible(const Tensor& t, DType target) {
  return t.defined() && is_floating(t.dtype()) && t.dtype() != kFloat64 && t.dtype() != target;
}

}  // namespace

AutocastGuard::AutocastGuard(DType dtype, bool enabled)
    : prev_enabled_(detail::g_autocast_enabled), prev_dtype_(g_autocast_dtype) {
  NABLA_CHECK(dtype == kBFloat16 || dtype == kFloat16, "AutocastGuard: dtype must be bfloat16 or float16, got ",
              dtype);
  detail::g_autocast_enabled = enabled;
  g_autocast_dtype = dtype;
}

AutocastGuard::~AutocastGuard() {
  detail::g_autocast_enabled = prev_enabled_;
  g_autocast_dtype = prev_dtype_;
}

bool is_autocast_enabled() { return detail::g_autocast_enabled; }
DType autocast_dtype() { return g_autocast_dtype; }

AutocastPolicy autocast_policy(std::string_view op) {
  const OpDef* d = find_op(op);
  return d ? lookup(*d) : AutocastPolicy::None;
}

std::vector<std::string_view> autocast_ops(AutocastPolicy policy) {
  std::vector<std::string_view> names;
  for (const OpDef* op : op_table())
    if (lookup(*op) == policy) names.push_back(op->name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace detail {

Tensor autocast_lower(const Tensor& t) {
  if (!g_autocast_enabled || !t.defined() || t.dtype() != kFloat32) return t;
  return t.to(g_autocast_dtype);
}

std::optional<TensorList> autocast_call(const OpDef& op, Inputs inputs, const Attrs& attrs) {
  AutocastPolicy policy = lookup(op);
  if (policy == AutocastPolicy::None) return std::nullopt;
  DType target = policy == AutocastPolicy::LowerPrecision ? g_autocast_dtype : kFloat32;
  TensorList cast;
  for (const Tensor& t : inputs) cast.push_back(eligible(t, target) ? t.to(target) : t);
  // The op itself (and, for a composite, its parts) runs with autocast off,
  // as PyTorch's autocast kernels redispatch below the autocast key.
  AutocastGuard off(g_autocast_dtype, false);
  return call(op, Inputs(cast.data(), cast.size()), attrs);
}

}  // namespace detail
}  // namespace nabla
