// Parameter-free layers.
#include "nabla/nn/activation.h"

#include "nabla/ops/ops.h"

namespace nabla::nn {

Tensor ReLU::forward(const Tensor& x) { return x.relu(); }
Tensor Tanh::forward(const Tensor& x) { return x.tanh(); }
Tensor Sigmoid::forward(const Tensor& x) { return x.sigmoid(); }

Tensor GELU::forward(const Tensor& x) { return gelu(x, approximate); }
std::string GELU::extra_repr() const { return approximate == "none" ? "" : "approximate='" + approximate + "'"; }

Tensor Flatten::forward(const Tensor& x) { return x.flatten(start_dim, end_dim); }
std::string Flatten::extra_repr() const { return detail::concat("start_dim=", start_dim, ", end_dim=", end_dim); }

Dropout::Dropout(double p) : p(p) { NABLA_CHECK(p >= 0.0 && p <= 1.0, "nn::Dropout: p must be in [0, 1], got ", p); }
Tensor Dropout::forward(const Tensor& x) { return dropout(x, p, is_training()); }
std::string Dropout::extra_repr() const { return detail::concat("p=", p); }

}  // namespace nabla::nn
