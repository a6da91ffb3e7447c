// Parameter-free layers.
#include "nabla/nn/activation.h"

#include "nabla/ops/ops.h"

namespace nabla::nn {

Tensor ReLU::forward(const Tensor& x) { return x.relu(); }
// Not clamp(x, 0, 6): clamp's gradient is 1 at the edges, PyTorch's ReLU6
// (hardtanh) gives 0 there; relu's is 0 at 0 and where's constant branch at 6.
Tensor ReLU6::forward(const Tensor& x) { return where(x >= 6.0, Scalar(6.0), x.relu()); }
Tensor Tanh::forward(const Tensor& x) { return x.tanh(); }
Tensor Sigmoid::forward(const Tensor& x) { return x.sigmoid(); }

Tensor GELU::forward(const Tensor& x) { return gelu(x, approximate); }
std::string GELU::extra_repr() const { return approximate == "none" ? "" : "approximate='" + approximate + "'"; }

Tensor LeakyReLU::forward(const Tensor& x) { return leaky_relu(x, negative_slope); }
std::string LeakyReLU::extra_repr() const { return detail::concat("negative_slope=", negative_slope); }

Tensor ELU::forward(const Tensor& x) { return elu(x, alpha); }
std::string ELU::extra_repr() const { return detail::concat("alpha=", alpha); }

Tensor SiLU::forward(const Tensor& x) { return silu(x); }

Tensor Softmax::forward(const Tensor& x) { return softmax(x, dim); }
std::string Softmax::extra_repr() const { return detail::concat("dim=", dim); }

Tensor LogSoftmax::forward(const Tensor& x) { return log_softmax(x, dim); }
std::string LogSoftmax::extra_repr() const { return detail::concat("dim=", dim); }

Tensor Flatten::forward(const Tensor& x) { return x.flatten(start_dim, end_dim); }
std::string Flatten::extra_repr() const { return detail::concat("start_dim=", start_dim, ", end_dim=", end_dim); }

Unflatten::Unflatten(int64_t dim, std::vector<int64_t> sizes) : dim(dim), unflattened_size(std::move(sizes)) {
  NABLA_CHECK(!unflattened_size.empty(), "nn::Unflatten: unflattened_size must not be empty");
}
Tensor Unflatten::forward(const Tensor& x) { return x.unflatten(dim, unflattened_size); }
std::string Unflatten::extra_repr() const {
  std::string s = detail::concat("dim=", dim, ", unflattened_size=(");
  for (std::size_t i = 0; i < unflattened_size.size(); ++i) s += (i ? ", " : "") + std::to_string(unflattened_size[i]);
  return s + (unflattened_size.size() == 1 ? ",)" : ")");
}

Dropout::Dropout(double p) : p(p) { NABLA_CHECK(p >= 0.0 && p <= 1.0, "nn::Dropout: p must be in [0, 1], got ", p); }
Tensor Dropout::forward(const Tensor& x) { return dropout(x, p, is_training()); }
std::string Dropout::extra_repr() const { return detail::concat("p=", p); }

}  // namespace nabla::nn
