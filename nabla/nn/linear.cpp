// Linear.
#include "nabla/nn/linear.h"

#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

Linear::Linear(int64_t in, int64_t out, bool has_bias) : in_features(in), out_features(out) {
  NABLA_CHECK(in > 0 && out > 0, "nn::Linear: in_features and out_features must be positive, got ", in, " and ", out);
  weight = register_parameter("weight", empty({out, in}));
  if (has_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Linear::reset_parameters() { init::default_layer_init_(weight, bias); }

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return detail::concat("in_features=", in_features, ", out_features=", out_features,
                        ", bias=", bias.defined() ? "true" : "false");
}

}  // namespace nabla::nn
