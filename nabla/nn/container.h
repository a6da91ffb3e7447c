// Containers of modules (torch.nn.ModuleList, ModuleDict): they register
// their entries as children, so parameters(), state_dict(), train()/eval(),
// to() and printing see them; they have no forward of their own (calling it
// throws). Entries are given as modules (moved in) or std::shared_ptrs to
// modules (shared, so one module may sit in several places).
//
//   nn::ModuleList blocks;
//   for (int i = 0; i < 3; ++i) blocks.append(nn::Linear(8, 8));
//   for (const auto& block : blocks) x = (*block)(x).relu();
//   nn::ModuleDict heads({{"cls", std::make_shared<nn::Linear>(8, 10)}});
//   heads.at<nn::Linear>("cls")->weight;   // typed access
#pragma once
#include <concepts>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nabla/nn/module.h"

namespace nabla::nn {

// A module (moved into a new shared_ptr) or a shared_ptr to one.
template <class M>
ModulePtr as_module_ptr(M&& m) {
  using T = std::remove_cvref_t<M>;
  if constexpr (std::derived_from<T, Module>)
    return std::make_shared<T>(std::forward<M>(m));
  else
    return ModulePtr(std::forward<M>(m));
}

// A list of modules named "0", "1", ...; indices may be negative (from the end).
class ModuleList : public Module {
 public:
  ModuleList() = default;
  explicit ModuleList(std::vector<ModulePtr> modules) { extend(std::move(modules)); }
  template <class... Ms>
  requires(sizeof...(Ms) >= 1 && (!std::same_as<std::remove_cvref_t<Ms>, ModuleList> && ...) &&
           (!std::same_as<std::remove_cvref_t<Ms>, std::vector<ModulePtr>> &&
            ...)) explicit ModuleList(Ms&&... modules) {
    (append(std::forward<Ms>(modules)), ...);
  }

  template <class M>
  ModuleList& append(M&& m) {
    return append_ptr(as_module_ptr(std::forward<M>(m)));
  }
  ModuleList& extend(std::vector<ModulePtr> modules);
  // Inserts before position `index` (in [-size, size]).
  template <class M>
  ModuleList& insert(int64_t index, M&& m) {
    return insert_ptr(index, as_module_ptr(std::forward<M>(m)));
  }

  std::size_t size() const { return modules_.size(); }
  bool empty() const { return modules_.empty(); }
  const ModulePtr& operator[](int64_t index) const;
  // The entry as an M; throws nabla::Error if it is another kind of module.
  template <class M>
  std::shared_ptr<M> at(int64_t index) const {
    auto p = std::dynamic_pointer_cast<M>((*this)[index]);
    NABLA_CHECK(p != nullptr, "ModuleList::at: entry ", index, " is a ", (*this)[index]->name(),
                ", not the requested type");
    return p;
  }
  std::vector<ModulePtr>::const_iterator begin() const { return modules_.begin(); }
  std::vector<ModulePtr>::const_iterator end() const { return modules_.end(); }

  Tensor forward(const Tensor& x) override;

 private:
  ModuleList& append_ptr(ModulePtr m);
  ModuleList& insert_ptr(int64_t index, ModulePtr m);
  std::vector<ModulePtr> modules_;
};

// Modules by name, in insertion order. Inserting over an existing key
// replaces that entry in place (as PyTorch's __setitem__).
class ModuleDict : public Module {
 public:
  ModuleDict() = default;
  explicit ModuleDict(std::vector<std::pair<std::string, ModulePtr>> modules) { update(std::move(modules)); }

  template <class M>
  ModuleDict& insert(const std::string& key, M&& m) {
    return insert_ptr(key, as_module_ptr(std::forward<M>(m)));
  }
  ModuleDict& update(std::vector<std::pair<std::string, ModulePtr>> modules);
  // Removes and returns the entry; throws nabla::Error if there is none.
  ModulePtr pop(const std::string& key);
  void clear();

  std::size_t size() const { return named_children().size(); }
  bool empty() const { return named_children().empty(); }
  bool contains(const std::string& key) const;
  const ModulePtr& operator[](const std::string& key) const;
  template <class M>
  std::shared_ptr<M> at(const std::string& key) const {
    auto p = std::dynamic_pointer_cast<M>((*this)[key]);
    NABLA_CHECK(p != nullptr, "ModuleDict::at: entry '", key, "' is a ", (*this)[key]->name(),
                ", not the requested type");
    return p;
  }
  std::vector<std::string> keys() const;
  std::vector<ModulePtr> values() const { return children(); }
  const std::vector<std::pair<std::string, ModulePtr>>& items() const { return named_children(); }
  auto begin() const { return named_children().begin(); }
  auto end() const { return named_children().end(); }

  Tensor forward(const Tensor& x) override;

 private:
  ModuleDict& insert_ptr(const std::string& key, ModulePtr m);
  void reregister(std::vector<std::pair<std::string, ModulePtr>> items);
};

}  // namespace nabla::nn
