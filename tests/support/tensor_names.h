// The names of a module's named parameters or buffers, in order, for tests of
// registration and state dicts.
#pragma once
#include <string>
#include <vector>

#include "nabla/nabla.h"

namespace nabla::testing {

inline std::vector<std::string> names_of(const nn::NamedTensors& v) {
  std::vector<std::string> out;
  for (const auto& [n, t] : v) out.push_back(n);
  return out;
}

}  // namespace nabla::testing
