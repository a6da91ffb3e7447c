// Reduction parsing, argument checks and small tensor helpers shared by the
// loss ops (see loss_common.h). Every message names the loss, what it got and
// what it expected.
#include "nabla/ops/loss_common.h"

#include <limits>

#include "nabla/ops/ops.h"

namespace nabla::detail {

Reduction parse_reduction(std::string_view loss, const std::string& r, bool allow_batchmean) {
  if (r == "none") return Reduction::None;
  if (r == "mean") return Reduction::Mean;
  if (r == "sum") return Reduction::Sum;
  if (allow_batchmean && r == "batchmean") return Reduction::BatchMean;
  fail(loss, ": reduction must be \"none\", \"mean\"", allow_batchmean ? ", \"sum\" or \"batchmean\"" : " or \"sum\"",
       ", got \"", r, "\"");
}

Tensor reduce_loss(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None: return loss;
    case Reduction::Sum: return sum(loss);
    case Reduction::Mean: return mean(loss);
    case Reduction::BatchMean: return loss.dim() == 0 ? sum(loss) : sum(loss) / static_cast<double>(loss.size(0));
  }
  return loss;
}

Tensor unreduce_grad(const Tensor& g, const Shape& sizes, Reduction r) {
  if (r == Reduction::None) return g;
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Tensor scaled = r == Reduction::Mean ? g / static_cast<double>(n) : g;
  return expand(scaled, sizes);
}

void check_floating(std::string_view loss, std::string_view what, const Tensor& t) {
  NABLA_CHECK(is_floating(t.dtype()), loss, ": expected a floating point ", what, ", got dtype ", t.dtype());
}

void check_same_shape(std::string_view loss, const Tensor& input, const Tensor& target) {
  NABLA_CHECK(input.sizes() == target.sizes(), loss, ": expected target of the input's shape ", input.sizes(),
              ", got ", target.sizes());
  check_floating(loss, "input", input);
  check_floating(loss, "target", target);
}

void check_broadcasts_to(std::string_view loss, std::string_view what, const Tensor& t, const Shape& sizes) {
  NABLA_CHECK(is_expandable_to(t.sizes(), sizes), loss, ": ", what, " of shape ", t.sizes(),
              " does not broadcast to the input's shape ", sizes);
  check_floating(loss, what, t);
}

Tensor index_target(std::string_view loss, const Tensor& target) {
  if (target.dtype() == kInt64) return target;
  if (target.dtype() == kInt32) return target.to(kInt64);
  fail(loss, ": expected target of class indices with dtype int64 (or int32), got dtype ", target.dtype());
}

void check_class_target(std::string_view loss, const Tensor& input, const Tensor& target) {
  check_floating(loss, "input", input);
  NABLA_CHECK(input.dim() >= 1, loss, ": expected input of shape [C], [N, C] or [N, C, d1, ...], got a 0-dim tensor");
  NABLA_CHECK(target.dtype() == kInt64, loss, ": expected target of class indices with dtype int64, got dtype ",
              target.dtype());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  Shape expected;  // input's shape without the class dim
  for (int64_t d = 0; d < input.dim(); ++d)
    if (d != class_dim) expected.push_back(input.sizes()[d]);
  NABLA_CHECK(input.sizes()[class_dim] > 0 || target.numel() == 0, loss, ": the input of shape ", input.sizes(),
              " has no classes (dim ", class_dim, " has size 0), so no target is a valid class index");
  NABLA_CHECK(target.sizes() == expected, loss, ": expected target of shape ", expected, " for input of shape ",
              input.sizes(), " (the input's shape without the class dim ", input.dim() == 1 ? 0 : 1, "), got ",
              target.sizes());
}

void check_class_weight(std::string_view loss, const Tensor& weight, int64_t classes) {
  NABLA_CHECK(weight.dim() == 1 && weight.size(0) == classes, loss, ": expected weight of shape [", classes,
              "] (one per class), got ", weight.sizes());
  check_floating(loss, "weight", weight);
}

Tensor log_softmax_stable(const Tensor& x, int64_t dim) {
  Tensor m = amax(x, {dim}, true).detach();
  // Rows of -inf shift by 0 (not -inf - -inf = nan); a row with +inf gives
  // NaN everywhere, as PyTorch's log_softmax does.
  m = where(m == -std::numeric_limits<double>::infinity(), zeros_like(m), m);
  Tensor shifted = x - m;
  return shifted - log(sum(exp(shifted), {dim}, true));
}

Tensor batched_input(const Tensor& input) { return input.dim() == 1 ? unsqueeze(input, 0) : input; }
Tensor batched_target(const Tensor& target, const Tensor& input) {
  return input.dim() == 1 ? unsqueeze(target, 0) : target;
}

Tensor one_hot_classes(const Tensor& t, int64_t classes, DType dt) {
  Shape cls_shape(static_cast<std::size_t>(t.dim() + 1), 1);
  cls_shape[1] = classes;
  Tensor cls = reshape(arange(classes, TensorOptions(kInt64).device(t.device())), cls_shape);
  return (cls == unsqueeze(t, 1)).to(dt);
}

Tensor class_dim_view(const Tensor& weight, int64_t ndim) {
  Shape s(static_cast<std::size_t>(ndim), 1);
  s[1] = weight.size(0);
  return reshape(weight, s);
}

}  // namespace nabla::detail
