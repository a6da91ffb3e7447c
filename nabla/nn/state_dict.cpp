// StateDict: insertion-ordered name -> tensor map.
#include "nabla/nn/state_dict.h"

namespace nabla::nn {

StateDict::StateDict(std::initializer_list<Item> items) {
  for (const auto& [name, t] : items) insert(name, t);
}

void StateDict::insert(const std::string& name, const Tensor& t) {
  auto it = index_.find(name);
  if (it != index_.end()) {
    items_[it->second].second = t;
    return;
  }
  index_.emplace(name, items_.size());
  items_.emplace_back(name, t);
}

const Tensor& StateDict::at(const std::string& name) const {
  auto it = index_.find(name);
  NABLA_CHECK(it != index_.end(), "StateDict::at: no entry named '", name, "'");
  return items_[it->second].second;
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& [k, v] : items_) out.push_back(k);
  return out;
}

}  // namespace nabla::nn
