// kl_div: the Kullback-Leibler divergence of `target` from the distribution
// whose log-probabilities are `input`, elementwise
//   target * (log target - input)      (0 where target == 0), or
//   exp(target) * (target - input)     with log_target,
// then reduced ("batchmean" divides the sum by the batch size, which is the
// mathematically correct KL divergence per sample). A composite: autograd
// differentiates input and target through the elementwise ops.
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/loss.h"
#include "nabla/ops/loss_common.h"
#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// t log t with 0 log 0 = 0. log() only sees t where t != 0 (1 elsewhere), so
// no -inf reaches the gradient of the unselected branch.
Tensor xlogx(const Tensor& t) {
  Tensor zero = t == 0.0;
  return where(zero, zeros_like(t), t * log(where(zero, ones_like(t), t)));
}

// attrs: reduction, log_target
TensorList kl_div_composite(Inputs in, const Attrs& a) {
  NABLA_CHECK(in.size() == 2, "kl_div: expected inputs (input, target), got ", in.size(), " tensors");
  const Tensor &x = in[0], &t = in[1];
  detail::check_same_shape("kl_div", x, t);
  detail::Reduction r = detail::parse_reduction("kl_div", a.str(0), /*allow_batchmean=*/true);
  Tensor loss = a.b(1) ? exp(t) * (t - x) : xlogx(t) - t * x;
  return {detail::reduce_loss(loss, r)};
}

}  // namespace

extern constinit const OpDef kl_div_op{.name = "kl_div", .num_inputs = 2, .attr_names = "reduction,log_target",
                                       .composite = kl_div_composite};

namespace {
detail::RegisterOps register_kl_div{&kl_div_op};
}

Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction, bool log_target) {
  return call1(kl_div_op, {input, target}, {reduction, log_target});
}

}  // namespace nabla
