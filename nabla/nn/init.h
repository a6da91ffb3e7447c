// Parameter initializers (torch.nn.init): each fills a tensor in place, with no
// gradient recorded, and returns it. Random ones draw from the seeded
// generator (nabla::manual_seed). Fans follow PyTorch: for a weight of shape
// [out, in, k...], fan_in = in * prod(k), fan_out = out * prod(k).
#pragma once
#include <string>
#include <utility>

#include "nabla/core/tensor.h"

namespace nabla::nn::init {

// Recommended gain for a nonlinearity (torch.nn.init.calculate_gain):
// linear/conv*/sigmoid 1, tanh 5/3, relu sqrt(2), leaky_relu
// sqrt(2 / (1 + slope^2)) with slope `param` (default 0.01), selu 3/4.
double calculate_gain(const std::string& nonlinearity, double param = -1.0);
// {fan_in, fan_out}; the tensor needs at least 2 dims.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t);

Tensor uniform_(Tensor t, double a = 0.0, double b = 1.0);
Tensor normal_(Tensor t, double mean = 0.0, double std = 1.0);
Tensor constant_(Tensor t, double value);
Tensor zeros_(Tensor t);
Tensor ones_(Tensor t);
// U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform_(Tensor t, double gain = 1.0);
// N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor xavier_normal_(Tensor t, double gain = 1.0);
// U(-b, b), b = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a);
// mode is "fan_in" or "fan_out".
Tensor kaiming_uniform_(Tensor t, double a = 0.0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu");
// N(0, std^2), std = gain / sqrt(fan).
Tensor kaiming_normal_(Tensor t, double a = 0.0, const std::string& mode = "fan_in",
                       const std::string& nonlinearity = "leaky_relu");

// A (semi-)orthogonal matrix, as torch.nn.init.orthogonal_: the tensor is
// viewed as [size(0), numel / size(0)]; a standard normal matrix of that
// shape (transposed when wide) is QR-factored (Householder, in float64) and
// Q's columns are multiplied by the signs of R's diagonal, which makes Q
// uniformly (Haar) distributed. Rows (or columns, whichever are fewer) come
// out orthonormal, then scaled by `gain`. Needs 2 or more dims.
Tensor orthogonal_(Tensor t, double gain = 1.0);

// PyTorch's reset_parameters of Linear and Conv*d: weight kaiming_uniform_(a =
// sqrt(5)), i.e. U(±1/sqrt(fan_in)); bias (if defined) U(±1/sqrt(fan_in)).
void default_layer_init_(const Tensor& weight, const Tensor& bias);

}  // namespace nabla::nn::init
