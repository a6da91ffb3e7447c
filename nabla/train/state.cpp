// See state.h.
#include "nabla/train/state.h"

#include <vector>

#include "nabla/core/error.h"
#include "nabla/ops/ops.h"

namespace nabla::train {

Tensor state_number(double value) { return tensor(std::vector<double>{value}, IntList{}); }

double state_number(const nn::StateDict& state, const std::string& key, const char* api) {
  NABLA_CHECK(state.contains(key), api, ": the saved state has no entry '", key, "'");
  const Tensor& t = state.at(key);
  NABLA_CHECK(t.numel() == 1 && t.dtype() == kFloat64, api, ": the saved state's entry '", key,
              "' should be one float64 number, got ", t.dtype(), " of shape ", t.sizes());
  return t.item<double>();
}

nn::StateDict state_part(const nn::StateDict& state, const std::string& prefix) {
  nn::StateDict part;
  for (const auto& [name, t] : state)
    if (name.starts_with(prefix)) part.insert(name.substr(prefix.size()), t);
  return part;
}

}  // namespace nabla::train
