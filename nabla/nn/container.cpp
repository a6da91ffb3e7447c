// ModuleList and ModuleDict. Both keep Module's child registry as the single
// record of their entries (ModuleList also keeps the list for O(1) indexing);
// reordering re-registers every child.
#include "nabla/nn/container.h"

namespace nabla::nn {

ModuleList& ModuleList::append_ptr(ModulePtr m) {
  NABLA_CHECK(m != nullptr, "ModuleList::append: got a null module");
  register_module(std::to_string(modules_.size()), m);
  modules_.push_back(std::move(m));
  return *this;
}

ModuleList& ModuleList::extend(std::vector<ModulePtr> modules) {
  for (auto& m : modules) NABLA_CHECK(m != nullptr, "ModuleList::extend: got a null module");
  for (auto& m : modules) append_ptr(std::move(m));
  return *this;
}

ModuleList& ModuleList::insert_ptr(int64_t index, ModulePtr m) {
  NABLA_CHECK(m != nullptr, "ModuleList::insert: got a null module");
  // As list.insert: positions run over [-size, size]; size appends.
  auto n = static_cast<int64_t>(modules_.size());
  NABLA_CHECK(index >= -n && index <= n, "ModuleList::insert: index ", index, " is out of range [", -n, ", ", n,
              "] for a list of ", n, " modules");
  auto at = static_cast<std::size_t>(index < 0 ? index + n : index);
  std::vector<ModulePtr> all = std::move(modules_);
  all.insert(all.begin() + static_cast<std::ptrdiff_t>(at), std::move(m));
  modules_.clear();
  clear_children();
  for (auto& c : all) append_ptr(std::move(c));
  return *this;
}

const ModulePtr& ModuleList::operator[](int64_t index) const {
  auto n = static_cast<int64_t>(modules_.size());
  NABLA_CHECK(index >= -n && index < n, "ModuleList::operator[]: index ", index, " is out of range for a list of ", n,
              " modules");
  return modules_[static_cast<std::size_t>(index < 0 ? index + n : index)];
}

Tensor ModuleList::forward(const Tensor&) {
  NABLA_CHECK(false, "ModuleList::forward: a ModuleList has no forward; call its entries (or use nn::Sequential)");
  return {};
}

ModuleDict& ModuleDict::insert_ptr(const std::string& key, ModulePtr m) {
  NABLA_CHECK(m != nullptr, "ModuleDict::insert: '", key, "' is a null module");
  if (!contains(key)) {
    register_module(key, std::move(m));
    return *this;
  }
  auto items = named_children();
  for (auto& [k, c] : items)
    if (k == key) c = std::move(m);
  reregister(std::move(items));
  return *this;
}

ModuleDict& ModuleDict::update(std::vector<std::pair<std::string, ModulePtr>> modules) {
  for (auto& [k, m] : modules) insert_ptr(k, std::move(m));
  return *this;
}

void ModuleDict::reregister(std::vector<std::pair<std::string, ModulePtr>> items) {
  clear_children();
  for (auto& [k, m] : items) register_module(k, std::move(m));
}

ModulePtr ModuleDict::pop(const std::string& key) {
  ModulePtr out = (*this)[key];
  auto items = named_children();
  std::erase_if(items, [&](const auto& kv) { return kv.first == key; });
  reregister(std::move(items));
  return out;
}

void ModuleDict::clear() { clear_children(); }

bool ModuleDict::contains(const std::string& key) const {
  for (const auto& [k, m] : named_children())
    if (k == key) return true;
  return false;
}

const ModulePtr& ModuleDict::operator[](const std::string& key) const {
  for (const auto& [k, m] : named_children())
    if (k == key) return m;
  std::string have;
  for (const auto& k : keys()) have += (have.empty() ? "" : ", ") + k;
  NABLA_CHECK(false, "ModuleDict::operator[]: no entry '", key, "' (keys: ", have.empty() ? "none" : have, ")");
  return named_children().front().second;  // not reached
}

std::vector<std::string> ModuleDict::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, m] : named_children()) out.push_back(k);
  return out;
}

Tensor ModuleDict::forward(const Tensor&) {
  NABLA_CHECK(false, "ModuleDict::forward: a ModuleDict has no forward; call its entries");
  return {};
}

}  // namespace nabla::nn
