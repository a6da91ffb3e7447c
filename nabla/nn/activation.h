// Parameter-free layers: activations (ReLU, ReLU6, Tanh, Sigmoid, GELU,
// LeakyReLU, ELU, SiLU, Softmax, LogSoftmax), reshaping (Flatten, Unflatten) and Dropout.
// PyTorch's `inplace` flags are not offered (nabla's activations allocate).
#pragma once
#include <string>
#include <vector>

#include "nabla/nn/module.h"

namespace nabla::nn {

class ReLU : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

// min(max(0, x), 6), MobileNetV2's activation, with PyTorch's gradient: 1
// strictly between 0 and 6, 0 elsewhere (at exactly 0 and 6 too); NaN stays NaN.
class ReLU6 : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

class Tanh : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

class Sigmoid : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

// approximate: "none" (erf) or "tanh".
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none") : approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  std::string approximate;
};

// max(0, x) + negative_slope * min(0, x).
class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(double negative_slope = 0.01) : negative_slope(negative_slope) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  double negative_slope;
};

// x for x > 0, alpha * (exp(x) - 1) otherwise.
class ELU : public Module {
 public:
  explicit ELU(double alpha = 1.0) : alpha(alpha) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  double alpha;
};

// x * sigmoid(x) (also called swish).
class SiLU : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

// softmax along `dim`. PyTorch's dim=None (an implicit, deprecated choice) is
// not offered: dim is required.
class Softmax : public Module {
 public:
  explicit Softmax(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t dim;
};

// log(softmax(x)) along `dim`, computed stably; dim is required.
class LogSoftmax : public Module {
 public:
  explicit LogSoftmax(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t dim;
};

// Flattens dims start_dim..end_dim (default: all but the batch dim).
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1) : start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t start_dim, end_dim;
};

// Expands dim `dim` into `unflattened_size` (whose product must equal that
// dim's size; one entry may be -1), the inverse of Flatten.
class Unflatten : public Module {
 public:
  Unflatten(int64_t dim, std::vector<int64_t> unflattened_size);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t dim;
  std::vector<int64_t> unflattened_size;
};

// Zeroes elements with probability p in training mode; identity in eval mode.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  double p;
};

}  // namespace nabla::nn
