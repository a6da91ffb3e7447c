// dense(): a unique name scope, two variables from initializers, matmul + bias.
#include "nabla/graph/layers.h"

#include <algorithm>

#include "nabla/ops/ops.h"

namespace nabla::graph::layers {

namespace {

// Whether some node is named `scope` or lies under "scope/".
bool scope_taken(const GraphData& g, const std::string& scope) {
  if (std::binary_search(g.used_names.begin(), g.used_names.end(), scope)) return true;
  auto it = std::lower_bound(g.used_names.begin(), g.used_names.end(), scope + "/");
  return it != g.used_names.end() && it->compare(0, scope.size() + 1, scope + "/") == 0;
}

// `base`, then base_1, base_2, ... until no node uses it (in the current scopes),
// as TensorFlow names a layer's scope.
std::string unique_scope(const GraphData& g, const std::string& base) {
  std::string prefix;
  for (const std::string& s : g.scopes) prefix += s + "/";
  std::string name = base;
  for (int i = 1; scope_taken(g, prefix + name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

// Calls `make` and checks it honoured the shape and dtype it was given.
Initializer checked(const InitializerFn& make, const char* which, const std::string& layer, IntList shape,
                    DType dtype) {
  Initializer init = make(shape, dtype);
  NABLA_CHECK(init.shape == shape.shape() && init.dtype == dtype, "graph::layers::dense '", layer, "': ", which,
              " returned ", init.dtype, " of shape ", IntList(init.shape), "; expected ", dtype, " of shape ", shape);
  return init;
}

}  // namespace

Tensor dense(const Tensor& x, int64_t units, Activation activation, InitializerFn kernel_initializer,
             InitializerFn bias_initializer, bool use_bias, const std::string& name, std::source_location loc) {
  NABLA_CHECK(x.is_symbolic(), "graph::layers::dense '", name, "': expected a symbolic input (a graph value), got a ",
              x.defined() ? "concrete" : "undefined", " tensor");
  NABLA_CHECK(x.dim() >= 1 && x.size(-1) > 0, "graph::layers::dense '", name,
              "': the input needs a last dim of known positive size, got shape ", x.sizes());
  NABLA_CHECK(is_floating(x.dtype()), "graph::layers::dense '", name, "': the input has dtype ", x.dtype(),
              "; expected a floating-point dtype");
  NABLA_CHECK(units > 0, "graph::layers::dense '", name, "': units must be positive, got ", units);
  NABLA_CHECK(kernel_initializer, "graph::layers::dense '", name, "': kernel_initializer is empty");
  NABLA_CHECK(!use_bias || bias_initializer, "graph::layers::dense '", name, "': bias_initializer is empty");
  Graph g = Graph::of(x);
  auto scope = g.name_scope(unique_scope(*g.data(), name));
  LocationScope at(loc);  // the layer's op nodes record the caller's line
  const int64_t in = x.size(-1);
  Tensor kernel = g.variable(checked(kernel_initializer, "kernel_initializer", name, {in, units}, x.dtype()), "kernel", true, loc);
  Tensor y = matmul(x, kernel);
  if (use_bias) y = y + g.variable(checked(bias_initializer, "bias_initializer", name, {units}, x.dtype()), "bias", true, loc);
  return activation ? activation(y) : y;
}

}  // namespace nabla::graph::layers
