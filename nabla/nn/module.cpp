// nn::Module: registration, recursive walks, modes, freezing, dtype
// conversion and state dicts. Printing lives in module_print.cpp.
#include "nabla/nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <set>
#include <string_view>
#include <typeinfo>

#include "nabla/core/grad_mode.h"
#include "nabla/core/trace_context.h"

namespace nabla::nn {

Tensor Module::forward(const Tensor&) {
  NABLA_CHECK(false, name(), "::forward: this module does not implement forward(const Tensor&)");
  return {};
}

void Module::check_new_name(const std::string& name, const char* api) const {
  NABLA_CHECK(!name.empty() && name.find('.') == std::string::npos, "Module::", api, ": name '", name,
              "' must be non-empty and contain no '.'");
  auto taken = [&](const auto& v) {
    for (const auto& [n, x] : v)
      if (n == name) return true;
    return false;
  };
  NABLA_CHECK(!taken(params_) && !taken(buffers_) && !taken(children_), "Module::", api, ": ", this->name(),
              " already has a member named '", name, "'");
}

Tensor Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  check_new_name(name, "register_parameter");
  NABLA_CHECK(t.defined(), "Module::register_parameter: '", name, "' is an undefined tensor");
  NABLA_CHECK(t.is_leaf(), "Module::register_parameter: '", name, "' has a grad_fn; register a leaf (e.g. t.detach())");
  if (requires_grad) t.requires_grad_(true);
  params_.emplace_back(name, t);
  return t;
}

Tensor Module::register_buffer(const std::string& name, Tensor t) {
  check_new_name(name, "register_buffer");
  NABLA_CHECK(t.defined(), "Module::register_buffer: '", name, "' is an undefined tensor");
  // State across calls: a compiled function (nabla::compile) that reads or
  // updates it in place reads and updates this very tensor at every run.
  detail::register_state(t);
  buffers_.emplace_back(name, t);
  return t;
}

void Module::add_child(const std::string& name, ModulePtr m) {
  check_new_name(name, "register_module");
  NABLA_CHECK(m != nullptr, "Module::register_module: '", name, "' is a null module");
  children_.emplace_back(name, std::move(m));
}

void Module::collect(const std::string& prefix, bool params, bool recurse, NamedTensors& out) const {
  for (const auto& [n, t] : params ? params_ : buffers_) out.emplace_back(prefix + n, t);
  if (!recurse) return;
  for (const auto& [n, c] : children_) c->collect(prefix + n + ".", params, true, out);
}

static NamedTensors unique(NamedTensors v) {
  std::set<const TensorImpl*> seen;
  NamedTensors out;
  for (auto& [n, t] : v)
    if (seen.insert(t.impl()).second) out.emplace_back(std::move(n), std::move(t));
  return out;
}

NamedTensors Module::named_parameters(bool recurse) const {
  NamedTensors out;
  collect("", true, recurse, out);
  return unique(std::move(out));
}

NamedTensors Module::named_buffers(bool recurse) const {
  NamedTensors out;
  collect("", false, recurse, out);
  return unique(std::move(out));
}

static std::vector<Tensor> values(const NamedTensors& v) {
  std::vector<Tensor> out;
  for (const auto& [n, t] : v) out.push_back(t);
  return out;
}
std::vector<Tensor> Module::parameters(bool recurse) const { return values(named_parameters(recurse)); }
std::vector<Tensor> Module::buffers(bool recurse) const { return values(named_buffers(recurse)); }

std::vector<ModulePtr> Module::children() const {
  std::vector<ModulePtr> out;
  for (const auto& [n, c] : children_) out.push_back(c);
  return out;
}

std::vector<std::pair<std::string, ModulePtr>> Module::named_modules() const {
  std::vector<std::pair<std::string, ModulePtr>> out;
  for (const auto& [n, c] : children_) {
    out.emplace_back(n, c);
    for (auto& [sub, m] : c->named_modules()) out.emplace_back(n + "." + sub, m);
  }
  return out;
}

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (const auto& t : parameters()) n += t.numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [n, c] : children_) c->train(on);
}

void Module::zero_grad(bool set_to_none) {
  if (auto* tracer = detail::current_tracer()) tracer->zero_grad();
  for (auto& p : parameters()) {
    if (!p.grad().defined()) continue;
    // A traced gradient (compile()) has no storage to zero: drop it.
    if (set_to_none || p.grad().is_symbolic())
      p.set_grad(Tensor());
    else
      p.mutable_grad().zero_();
  }
}

Module& Module::requires_grad_(bool requires_grad) {
  for (auto& p : parameters()) p.requires_grad_(requires_grad);
  return *this;
}

Module& Module::trainable(bool on) {
  requires_grad_(on);
  trainable_ = on;
  for (auto& [path, m] : named_modules()) m->trainable_ = on;
  return *this;
}

// fnmatch without its special case for '/': '*' spans dots.
static bool glob_match(std::string_view pattern, std::string_view name) {
  std::size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

int64_t Module::trainable(const std::string& pattern, bool on) {
  NABLA_CHECK(!pattern.empty(), "Module::trainable: the pattern is empty; give a glob over parameter names such as ",
              "\"features.*\" or a module's name such as \"0\"");
  int64_t matched = 0;
  NamedTensors params = named_parameters();
  for (auto& [name, p] : params) {
    // A module's name matches its parameters: "features.0" -> "features.0.weight".
    bool hit = glob_match(pattern, name);
    for (std::size_t dot = name.find('.'); !hit && dot != std::string::npos; dot = name.find('.', dot + 1))
      hit = glob_match(pattern, std::string_view(name).substr(0, dot));
    if (!hit) continue;
    p.requires_grad_(on);
    ++matched;
  }
  if (matched == 0) {
    std::string names;
    for (std::size_t i = 0; i < params.size() && i < 8; ++i) names += (i ? ", " : "") + params[i].first;
    if (params.size() > 8) names += ", ...";
    fail("Module::trainable: the pattern '", pattern, "' matches no parameter of this ", name(),
         "; its parameters are: ", names.empty() ? "none" : names);
  }
  // Modules with parameters follow them: frozen when all of theirs are.
  auto refresh = [](Module& m) {
    std::vector<Tensor> ps = m.parameters();
    if (ps.empty()) return;
    m.trainable_ = false;
    for (const Tensor& p : ps) m.trainable_ = m.trainable_ || p.requires_grad();
  };
  refresh(*this);
  for (auto& [path, m] : named_modules()) refresh(*m);
  return matched;
}

int64_t Module::num_trainable_parameters() const {
  int64_t n = 0;
  for (const auto& t : parameters())
    if (t.requires_grad()) n += t.numel();
  return n;
}

void Module::replace_child(const std::string& name, ModulePtr m) {
  NABLA_CHECK(m != nullptr, "Module::replace_child: the module for '", name, "' is null");
  for (auto& [n, c] : children_)
    if (n == name) {
      c = std::move(m);
      return;
    }
  fail("Module::replace_child: ", this->name(), " has no child module named '", name, "'");
}

// Replaces the data behind the handle `t` (every copy of it sees the change).
static void convert_in_place(Tensor& t, DType dtype) {
  if (!t.is_floating_point() || t.dtype() == dtype) return;
  Tensor c = t.detach().to(dtype, true).contiguous();
  TensorImpl* dst = t.impl();
  dst->storage = c.impl()->storage;
  dst->strides = c.impl()->strides;
  dst->offset = c.impl()->offset;
  dst->dtype = dtype;
  dst->is_view = false;
  if (t.requires_grad() && t.grad().defined()) t.set_grad(Tensor());
}

Module& Module::to(DType dtype) {
  NABLA_CHECK(is_floating(dtype), "Module::to: dtype ", dtype, " is not a floating-point dtype");
  for (auto& t : parameters()) convert_in_place(t, dtype);
  for (auto& t : buffers()) convert_in_place(t, dtype);
  return *this;
}

// Points the handle `t` at `moved`'s data (every copy of `t` sees the change).
static void adopt(Tensor& t, const Tensor& moved) {
  TensorImpl* dst = t.impl();
  dst->storage = moved.impl()->storage;
  dst->strides = moved.impl()->strides;
  dst->offset = moved.impl()->offset;
  dst->device = moved.device();
  dst->is_view = false;
  if (t.requires_grad() && t.grad().defined()) t.set_grad(Tensor());
}

Module& Module::to(Device device) {
  std::vector<Tensor> all = parameters();
  for (auto& t : buffers()) all.push_back(t);
  std::vector<Tensor> moved;
  for (auto& t : all) moved.push_back(t.device() == device ? Tensor() : t.detach().to(device).contiguous());
  for (std::size_t i = 0; i < all.size(); ++i)
    if (moved[i].defined()) adopt(all[i], moved[i]);
  return *this;
}

StateDict Module::state_dict() const {
  StateDict out;
  // Registration order per module: its parameters, its buffers, then children.
  std::vector<std::pair<std::string, const Module*>> stack{{"", this}};
  for (std::size_t i = 0; i < stack.size(); ++i) {
    const auto& [prefix, m] = stack[i];
    for (const auto& [n, t] : m->params_) out.insert(prefix + n, t);
    for (const auto& [n, t] : m->buffers_) out.insert(prefix + n, t);
    std::vector<std::pair<std::string, const Module*>> kids;
    for (const auto& [n, c] : m->children_) kids.emplace_back(prefix + n + ".", c.get());
    stack.insert(stack.begin() + static_cast<std::ptrdiff_t>(i) + 1, kids.begin(), kids.end());
  }
  return out;
}

void Module::load_state_dict(const StateDict& dict, bool strict) {
  for (const auto& [k, t] : dict)
    NABLA_CHECK(t.defined(), "Module::load_state_dict: the tensor for key '", k, "' is undefined");
  StateDict own = state_dict();
  // A dtype mismatch is refused, not cast: PyTorch copies across dtypes, which
  // turns an int tensor stored under a float weight's name into weights of
  // 1e9 without a word. Cast explicitly (t.to(kFloat32)) when meant.
  std::vector<std::string> missing, unexpected, mismatched, mistyped;
  for (const auto& [k, t] : own) {
    if (!dict.contains(k))
      missing.push_back(k);
    else if (dict.at(k).sizes() != t.sizes())
      mismatched.push_back(detail::concat(k, " (checkpoint ", dict.at(k).sizes(), ", module ", t.sizes(), ")"));
    else if (dict.at(k).dtype() != t.dtype())
      mistyped.push_back(detail::concat(k, " (checkpoint ", dict.at(k).dtype(), ", module ", t.dtype(), ")"));
  }
  for (const auto& [k, t] : dict)
    if (!own.contains(k)) unexpected.push_back(k);
  bool key_error = strict && (!missing.empty() || !unexpected.empty());
  if (key_error || !mismatched.empty() || !mistyped.empty()) {
    std::string msg = "Module::load_state_dict: error(s) loading the state dict of " + name() + ":";
    auto list = [&](const char* what, const std::vector<std::string>& v) {
      if (v.empty()) return;
      msg += std::string("\n  ") + what + ": ";
      for (std::size_t i = 0; i < v.size(); ++i) msg += (i ? ", " : "") + v[i];
    };
    if (strict) list("missing keys", missing);
    if (strict) list("unexpected keys", unexpected);
    list("shape mismatches", mismatched);
    list("dtype mismatches (nabla does not cast; convert with .to(dtype) first)", mistyped);
    throw Error(msg);
  }
  NoGradGuard no_grad;
  for (const auto& [k, t] : own) {
    if (!dict.contains(k)) continue;
    Tensor dst = t;
    dst.copy_(dict.at(k));
  }
}

std::string Module::name() const {
  const char* mangled = typeid(*this).name();
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string full = (status == 0 && d) ? d : mangled;
  std::free(d);
  auto pos = full.rfind("::");
  return pos == std::string::npos ? full : full.substr(pos + 2);
}

}  // namespace nabla::nn
