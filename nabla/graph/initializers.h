// Variable initializers for graphs (TensorFlow's tf.random_normal_initializer,
// tf.glorot_uniform_initializer, ...): g.variable(graph::init::xavier_uniform({1000, 100}), "w1")
// makes a variable whose value is drawn afresh by the Session every time an
// initializer runs (global_variables_initializer), from the seeded generator
// (nabla::manual_seed). An Initializer is data — a distribution, its
// parameters, a shape and a dtype — not code, so a saved graph can store it.
// See docs/graph.md, "Initializers".
#pragma once
#include <cstdint>
#include <string>

#include "nabla/core/tensor.h"

namespace nabla::graph {

struct Initializer {
  enum class Kind : uint8_t {
    Constant,         // every element = a
    Normal,           // N(mean a, stddev b)
    TruncatedNormal,  // N(a, b) redrawn where it falls more than 2 b from a
    Uniform,          // U[a, b)
  };
  Kind kind = Kind::Constant;
  double a = 0.0, b = 0.0;
  Shape shape;
  DType dtype = kFloat32;
  std::string name;  // the factory that made it, for printing: "xavier_uniform"

  // Throws nabla::Error naming `api` unless the fields make sense (sizes >= 0,
  // finite parameters, a floating dtype and stddev >= 0 / minval <= maxval
  // for random kinds). The factories and Graph::variable call it; so should
  // code that builds an Initializer from outside data (a saved graph).
  void check(const std::string& api) const;
  // A fresh concrete tensor drawn from the distribution (on the CPU).
  Tensor draw() const;
  // "xavier_uniform float32 [1000, 100]: U[-0.0739, 0.0739)"
  std::string describe() const;
};

// Fans as TensorFlow computes them for a kernel laid out [..., in, out]
// (dense [in, out], conv [kh, kw, in, out]): fan_in = shape[-2] * receptive,
// fan_out = shape[-1] * receptive, receptive = product of the leading dims;
// a vector has fan_in = fan_out = its size, a scalar 1 and 1. For 2-D shapes
// fan_in + fan_out (all Xavier needs) is the same in PyTorch's [out, in].
struct Fans {
  int64_t in, out;
};
Fans compute_fans(IntList shape);

namespace init {

Initializer zeros(IntList shape, DType dtype = kFloat32);
Initializer ones(IntList shape, DType dtype = kFloat32);
Initializer constant(IntList shape, double value, DType dtype = kFloat32);
// tf.random_normal_initializer (defaults mean 0, stddev 1).
Initializer random_normal(IntList shape, double mean = 0.0, double stddev = 1.0, DType dtype = kFloat32);
// tf.truncated_normal_initializer: values more than 2 stddev from the mean are redrawn.
Initializer truncated_normal(IntList shape, double mean = 0.0, double stddev = 1.0, DType dtype = kFloat32);
// tf.random_uniform_initializer (defaults minval 0, maxval 1): U[minval, maxval).
Initializer random_uniform(IntList shape, double minval = 0.0, double maxval = 1.0, DType dtype = kFloat32);
// U(-limit, limit), limit = sqrt(6 / (fan_in + fan_out)): TensorFlow's
// glorot_uniform (the default kernel initializer of its layers) and PyTorch's
// xavier_uniform_ with gain 1; the two names are the same initializer.
Initializer xavier_uniform(IntList shape, DType dtype = kFloat32);
Initializer glorot_uniform(IntList shape, DType dtype = kFloat32);
// PyTorch's xavier_normal_ (gain 1): N(0, 2 / (fan_in + fan_out)), not truncated.
Initializer xavier_normal(IntList shape, DType dtype = kFloat32);
// TensorFlow's glorot_normal: a normal truncated at 2 stddev whose stddev is
// sqrt(2 / (fan_in + fan_out)) / 0.87962566103423978, so that after the
// truncation the values have standard deviation sqrt(2 / (fan_in + fan_out)).
Initializer glorot_normal(IntList shape, DType dtype = kFloat32);

}  // namespace init
}  // namespace nabla::graph
