// to_text / to_dot. Inputs print as the producing node's name, with ":k" for
// output k > 0; control inputs as "^name". Attributes are named from the op's
// attr_names, in order.
#include "nabla/graph/print.h"

#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <variant>

#include "nabla/graph/passes/fuse_elementwise.h"

namespace nabla::graph {

namespace {

using ::nabla::detail::operator<<;


std::string value_name(const GraphData& g, ValueRef r) {
  if (r.node < 0 || static_cast<std::size_t>(r.node) >= g.nodes.size()) return "<missing>";
  std::string s = g.nodes[static_cast<std::size_t>(r.node)].name;
  if (r.output > 0) s.append(":").append(std::to_string(r.output));
  return s;
}

void print_attr(std::ostream& os, const AttrValue& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) os << "none";
        else if constexpr (std::is_same_v<T, bool>) os << (x ? "true" : "false");
        else if constexpr (std::is_same_v<T, std::string>) os << '"' << x << '"';
        else if constexpr (std::is_same_v<T, Shape>) os << IntList(x);
        else if constexpr (std::is_same_v<T, double>) os << std::setprecision(std::numeric_limits<double>::max_digits10) << x;
        else os << x;
      },
      v);
}

// The op's attribute names split at commas (fewer names than values: "a3"...).
std::string attrs_text(const Node& n) {
  if (n.attrs.size() == 0) return "";
  std::vector<std::string> names;
  if (n.op) {
    std::string_view s = n.op->attr_names;
    while (!s.empty()) {
      std::size_t c = s.find(',');
      names.emplace_back(s.substr(0, c));
      s = c == std::string_view::npos ? std::string_view() : s.substr(c + 1);
    }
  }
  std::ostringstream os;
  os << " {";
  for (std::size_t k = 0; k < n.attrs.size(); ++k) {
    if (k) os << ", ";
    if (k < names.size())
      os << names[k] << "=";
    else
      os << "a" << k << "=";
    print_attr(os, n.attrs[k]);
  }
  os << "}";
  return os.str();
}

std::string meta_text(const OutputMeta& m) {
  std::ostringstream os;
  os << m.dtype << IntList(m.sizes);
  return os.str();
}

// A string safe inside a Graphviz "..." label.
std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string file_base(const char* path) {
  std::string p = path ? path : "";
  std::size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

}  // namespace

const char* node_kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::Op: return "op";
    case NodeKind::Placeholder: return "placeholder";
    case NodeKind::Constant: return "constant";
    case NodeKind::Variable: return "variable";
    case NodeKind::Initializer: return "initializer";
    case NodeKind::Assign: return "assign";
    case NodeKind::AssignAdd: return "assign_add";
    case NodeKind::AssignSub: return "assign_sub";
    case NodeKind::Group: return "group";
    case NodeKind::Cond: return "cond";
    case NodeKind::While: return "while";
    case NodeKind::WhileGrad: return "while_grad";
    case NodeKind::Effect: return "effect";
    case NodeKind::Gradients: return "gradients";
  }
  return "?";
}

std::string node_text(const GraphData& g, int id, const GraphData* targets) {
  if (!targets) targets = &g;
  const Node& n = g.nodes[static_cast<std::size_t>(id)];
  std::ostringstream os;
  os << n.name << " = ";
  if (n.kind == NodeKind::Op) os << (n.fused ? fused_chain_text(*n.fused) : std::string(n.op->name));
  else os << node_kind_name(n.kind);
  os << "(";
  bool first = true;
  auto sep = [&] {
    if (!first) os << ", ";
    first = false;
  };
  if (n.target >= 0) {  // Assign*: the variable it writes (a node of the user's graph)
    sep();
    os << "target=" << value_name(*targets, {n.target, 0});
  }
  for (const ValueRef& r : n.inputs) {
    sep();
    os << value_name(g, r);
  }
  for (int c : n.control_inputs) {
    sep();
    os << "^" << value_name(g, {c, 0});
  }
  if (n.kind == NodeKind::Constant && n.value.defined() && n.value.numel() == 1) {  // show scalars: x * 2
    sep();
    os << std::setprecision(std::numeric_limits<float>::max_digits10) << n.value.to(kFloat64).item<double>();
  }
  os << ")" << attrs_text(n);
  if (n.kind == NodeKind::Initializer) os << " {variables=" << n.variables.size() << "}";
  os << " : ";
  if (n.metas.empty()) os << "-";
  for (std::size_t i = 0; i < n.metas.size(); ++i) os << (i ? ", " : "") << meta_text(n.metas[i]);
  if (!n.device.empty()) os << "  on " << n.device;  // placement (DeviceScope)
  if (n.loc_known && n.loc.line() > 0) os << "  @ " << file_base(n.loc.file_name()) << ":" << n.loc.line();
  return os.str();
}

std::string to_text(const GraphData& g, const GraphData* targets) {
  std::string out;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) out += node_text(g, static_cast<int>(i), targets) + "\n";
  return out;
}

std::string to_dot(const GraphData& g) {
  std::ostringstream os;
  os << "digraph nabla {\n  node [shape=box, fontname=\"monospace\"];\n";
  // Placed nodes: one cluster per device, drawn around them (edges stay global).
  std::map<std::string, std::vector<std::size_t>> clusters;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!g.nodes[i].device.empty()) clusters[g.nodes[i].device].push_back(i);
  int c = 0;
  for (const auto& [device, ids] : clusters) {
    os << "  subgraph cluster_" << c++ << " {\n    label=\"" << dot_escape(device) << "\"; style=rounded;\n   ";
    for (std::size_t i : ids) os << " n" << i << ";";
    os << "\n  }\n";
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::string op = n.kind == NodeKind::Op ? (n.fused ? fused_chain_text(*n.fused) : std::string(n.op->name))
                                            : node_kind_name(n.kind);
    std::string shape;
    for (std::size_t k = 0; k < n.metas.size(); ++k) shape += (k ? ", " : "") + meta_text(n.metas[k]);
    const char* style = n.kind == NodeKind::Placeholder ? ", style=filled, fillcolor=lightblue"
                        : n.kind == NodeKind::Variable  ? ", style=filled, fillcolor=lightyellow"
                        : n.kind == NodeKind::Constant  ? ", style=filled, fillcolor=lightgrey"
                                                        : "";
    os << "  n" << i << " [label=\"" << dot_escape(n.name) << "\\n" << dot_escape(op) << "\\n" << shape << "\"" << style
       << "];\n";
    for (const ValueRef& r : n.inputs)
      os << "  n" << r.node << " -> n" << i << (r.output ? " [label=\":" + std::to_string(r.output) + "\"]" : "")
         << ";\n";
    for (int c : n.control_inputs) os << "  n" << c << " -> n" << i << " [style=dashed];\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace nabla::graph
