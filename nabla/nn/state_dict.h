// StateDict: an insertion-ordered map from dotted names ("0.weight",
// "fc1.bias") to tensors — what Module::state_dict() returns and
// Module::load_state_dict() reads.
#pragma once
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::nn {

class StateDict {
 public:
  using Item = std::pair<std::string, Tensor>;
  StateDict() = default;
  // From a brace list, as a Python dict literal: nn::StateDict sd = {{"0.weight", w}, {"0.bias", b}};
  // or model.load_state_dict({{"0.weight", w}, {"0.bias", b}}). Items go in
  // through insert(), so a repeated name keeps its first position and its
  // last tensor, as {"a": x, "a": y} does in Python.
  StateDict(std::initializer_list<Item> items);
  // Adds name -> tensor at the end, or replaces the tensor of an existing name.
  void insert(const std::string& name, const Tensor& t);
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  // The tensor of `name`; nabla::Error if absent.
  const Tensor& at(const std::string& name) const;
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const;
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace nabla::nn
