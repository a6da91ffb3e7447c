// Printing a module tree like PyTorch's repr, with parameter counts:
//   Sequential(  # 101,110 parameters
//     (0): Linear(in_features=1000, out_features=100, bias=true)  # 100,100 parameters
//     (1): ReLU()
//   )
#include <ostream>
#include <string>

#include "nabla/nn/module.h"

namespace nabla::nn {

static std::string with_commas(int64_t n) {
  std::string s = std::to_string(n), out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

void print_module(std::ostream& os, const Module& m, int indent) {
  int64_t n = m.num_parameters();
  std::string count = n ? "  # " + with_commas(n) + (n == 1 ? " parameter" : " parameters") : "";
  os << m.name() << '(' << m.extra_repr();
  if (m.children_.empty()) {
    os << ')' << count;
    return;
  }
  os << count << '\n';
  std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  for (const auto& [name, child] : m.children_) {
    os << pad << '(' << name << "): ";
    print_module(os, *child, indent + 2);
    os << '\n';
  }
  os << std::string(static_cast<std::size_t>(indent), ' ') << ')';
}

std::ostream& operator<<(std::ostream& os, const Module& m) {
  print_module(os, m, 0);
  return os;
}

}  // namespace nabla::nn
