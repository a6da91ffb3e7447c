#include "ops_reference.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "nabla/core/backend.h"
#include "nabla/core/error.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/op.h"
#include "source_scan.h"

namespace nabla::docs {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  NABLA_CHECK(in.good(), "ops_reference: cannot read ", path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string short_name(const std::string& name) {
  std::size_t p = name.rfind("::");
  return p == std::string::npos ? name : name.substr(p + 2);
}

// GitHub's anchor for a heading.
std::string anchor(const std::string& heading) {
  std::string out;
  for (char c : heading) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')
      out += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      out += '-';
  }
  return out;
}

// ---- what the sources say ------------------------------------------------

struct Sources {
  std::vector<std::string> headers;                     // op headers, in ops.h's order, then tensor.h
  std::map<std::string, std::string> header_summaries;  // header -> its first comment paragraph
  std::vector<Declaration> decls;                       // in header order
  std::map<std::string, Definition> functions;          // by key: every function defined in nabla/{ops,core}/*.cpp
  std::map<std::string, Definition> by_name;            // the same, overloads merged
  std::map<std::string, std::string> op_of_variable;    // add_op -> "add"
  std::set<std::string> public_names;                   // declared names (free functions and Tensor::methods)
};

// "exp(const Tensor&)" -> "exp"; "operator()(int)" -> "operator()".
std::string name_of_key(const std::string& key) {
  std::size_t op = key.rfind("operator");
  std::size_t from = op == std::string::npos ? 0 : op + 9;  // past "operator" and its first symbol
  return key.substr(0, key.find('(', from));
}

Sources read_sources(const fs::path& root) {
  Sources s;
  const std::string ops_h = read_text(root / "nabla/ops/ops.h");
  static const std::regex include(R"re(#include "(nabla/ops/\w+\.h)")re");
  for (auto it = std::sregex_iterator(ops_h.begin(), ops_h.end(), include); it != std::sregex_iterator(); ++it)
    s.headers.push_back((*it)[1]);
  s.headers.push_back("nabla/ops/ops.h");
  s.headers.push_back("nabla/core/tensor.h");
  for (const std::string& h : s.headers) {
    std::string text = read_text(root / h);
    s.header_summaries[h] = header_summary(text);
    for (Declaration& d : scan_header(text, h, h == "nabla/core/tensor.h" ? "Tensor" : "")) {
      s.public_names.insert(d.name);
      s.decls.push_back(std::move(d));
    }
  }
  // Public functions and Tensor methods are defined in nabla/ops and nabla/core.
  std::vector<fs::path> sources;
  for (const char* dir : {"nabla/ops", "nabla/core"})
    for (const auto& e : fs::directory_iterator(root / dir))
      if (e.path().extension() == ".cpp") sources.push_back(e.path());
  std::sort(sources.begin(), sources.end());
  for (const fs::path& p : sources) {
    SourceFile f = scan_source(read_text(p));
    for (auto& [key, def] : f.functions) {
      for (Definition* d : {&s.functions[key], &s.by_name[name_of_key(key)]}) {
        d->ops.insert(def.ops.begin(), def.ops.end());
        d->calls.insert(def.calls.begin(), def.calls.end());
      }
    }
    s.op_of_variable.insert(f.op_variables.begin(), f.op_variables.end());
  }
  return s;
}

// The definition of a declaration: the overload with its parameter types, or
// (when the spelling differs) all overloads of its name.
const Definition* definition_of(const Sources& s, const Declaration& d) {
  auto it = s.functions.find(d.key);
  if (it != s.functions.end()) return &it->second;
  auto n = s.by_name.find(d.name);
  return n == s.by_name.end() ? nullptr : &n->second;
}

// The table ops a function runs itself: those it names, and those of the
// helpers it calls that are not public functions of their own.
std::set<std::string> ops_run_by(const Sources& s, const Declaration& decl) {
  std::set<std::string> ops, seen;
  std::vector<const Definition*> todo = {definition_of(s, decl)};
  while (!todo.empty()) {
    const Definition* def = todo.back();
    todo.pop_back();
    if (!def) continue;
    for (const std::string& v : def->ops) {
      auto op = s.op_of_variable.find(v);
      if (op != s.op_of_variable.end()) ops.insert(op->second);
    }
    for (const std::string& c : def->calls) {
      if (s.public_names.count(c) || !seen.insert(c).second) continue;
      auto it = s.by_name.find(c);
      if (it != s.by_name.end()) todo.push_back(&it->second);
    }
  }
  return ops;
}

// ---- names in PyTorch and TensorFlow -------------------------------------

struct Mirrors {
  std::map<std::string, std::string> pytorch;                          // qualified name -> first docstring sentence
  std::map<std::string, std::pair<std::string, std::string>> curated;  // nabla name -> (pytorch, tensorflow)

  bool has(const std::string& q) const { return pytorch.count(q) > 0; }
  std::string summary(const std::string& q) const {
    auto it = pytorch.find(q);
    return it == pytorch.end() ? "" : it->second;
  }
};

Mirrors read_mirrors(const fs::path& root) {
  Mirrors m;
  for (const std::string& line : split(read_text(root / "tools/docs/pytorch_names.tsv"), '\n')) {
    if (line.empty() || line[0] == '#') continue;
    std::size_t tab = line.find('\t');
    m.pytorch[line.substr(0, tab)] = tab == std::string::npos ? "" : line.substr(tab + 1);
  }
  for (const std::string& line : split(read_text(root / "tools/docs/mirrors.tsv"), '\n')) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = split(line, '\t');
    NABLA_CHECK(f.size() == 3,
                "ops_reference: tools/docs/mirrors.tsv: expected 'nabla name<TAB>pytorch<TAB>tensorflow', got '", line,
                "'");
    NABLA_CHECK(f[1] == "-" || m.has(f[1]), "ops_reference: tools/docs/mirrors.tsv names ", f[1],
                ", which is not in tools/docs/pytorch_names.tsv (PyTorch 1.13)");
    m.curated[f[0]] = {f[1], f[2]};
  }
  return m;
}

const std::set<std::string> kNnHeaders = {"nabla/ops/conv.h", "nabla/ops/nn_functional.h", "nabla/ops/loss.h"};

// The PyTorch function a nabla function mirrors: torch.nn.functional's for the
// functions of the nn headers, torch's otherwise, whichever PyTorch has.
std::string pytorch_name(const Mirrors& m, const std::vector<std::string>& candidates, const std::string& header) {
  for (const std::string& n :
       std::vector<std::string>(candidates.rbegin(), candidates.rend())) {  // the op's own name first
    auto c = m.curated.find(n);
    if (c != m.curated.end() && c->second.first != "-") return c->second.first;
  }
  for (const std::string& n : candidates) {
    std::string t = "torch." + n, f = "torch.nn.functional." + n, method = "torch.Tensor." + n;
    if (kNnHeaders.count(header) && m.has(f)) return f;
    if (m.has(t)) return t;
    if (m.has(f)) return f;
    if (m.has(method)) return method;
  }
  return "";
}

std::string tensorflow_name(const Mirrors& m, const std::vector<std::string>& candidates) {
  for (const std::string& n :
       std::vector<std::string>(candidates.rbegin(), candidates.rend())) {  // the op's own name first
    auto c = m.curated.find(n);
    if (c != m.curated.end() && c->second.second != "-") return c->second.second;
  }
  return "";
}

// The first docstring sentence of the PyTorch name, or of its torch / functional / method twin.
std::string pytorch_summary(const Mirrors& m, const std::string& q) {
  std::string n = short_name(q);
  if (q.empty()) return "";
  n = q.substr(q.rfind('.') + 1);
  for (const std::string& c : {q, "torch." + n, "torch.nn.functional." + n, "torch.Tensor." + n})
    if (!m.summary(c).empty()) return m.summary(c);
  return "";
}

// ---- one op --------------------------------------------------------------

constexpr DType kDTypeOrder[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kUInt8, kBool};

std::string dtypes_text(const OpDef& op, const DTypeProbe& probe) {
  auto it = probe.find(std::string(op.name));
  if (it == probe.end() || it->second.empty()) return "not probed (no test entry runs it)";
  const auto& results = it->second;
  if (op.attr_names == "dtype") {  // cast: the result has the dtype asked for
    std::vector<std::string> all;
    for (DType d : kDTypeOrder)
      if (results.count(d)) all.push_back(std::string(dtype_name(d)));
    return join(all, ", ") + ", to the dtype asked for";
  }
  // The result dtype is shown where it is one dtype for every input (comparisons:
  // bool; argsort: int64) or follows from the op's promotion; the test
  // entries' calls may add ops of their own (`where(a > b, a * 2.0, b)`), so
  // their result dtypes per input are not the op's.
  std::vector<std::string> accepted;
  std::set<DType> result_dtypes;
  for (DType d : kDTypeOrder) {
    auto r = results.find(d);
    if (r == results.end()) continue;
    accepted.push_back(std::string(dtype_name(d)));
    result_dtypes.insert(r->second);
  }
  std::string out = join(accepted, ", ");
  if (result_dtypes.size() == 1 && accepted.size() > 1)
    out += " → " + std::string(dtype_name(*result_dtypes.begin()));
  else if (op.promote == Promote::CommonFloat &&
           (results.count(kInt64) || results.count(kInt32) || results.count(kUInt8) || results.count(kBool)))
    out += " (integral and bool inputs give float32)";
  bool reduced = results.count(kFloat16) || results.count(kBFloat16);
  if (reduced && !op.composite && !op.has(kNativeReducedFloat)) out += " (float16/bfloat16 computed in float32)";
  return out;
}

std::string devices_text(const OpDef& op) {
  // Backends built in register their kernels when the device runtime is
  // first asked for its devices (kernels/opencl/runtime.cpp says why), with
  // or without a device present: the page describes the build.
  [[maybe_unused]] static const bool backends_loaded = (devices(), true);
  if (op.composite) return "composite: runs wherever the ops it is built from run";
  // The test device (opaque) is not a device users have.
  std::vector<std::string> d, generic;
  for (DeviceType t : {DeviceType::CPU, DeviceType::CUDA, DeviceType::OpenCL})
    if (has_device_kernel(op, t))
      d.push_back(DeviceTypeName(t));
    else if (find_kernel(op, t))
      generic.push_back(DeviceTypeName(t));
  if (d.empty() && find_kernel(op, DeviceType::CPU)) return "every device (built on the device runtime)";
  // Kernels of some devices, and a generic one (made of other ops: batch
  // norm's) for the rest.
  if (!d.empty() && !generic.empty()) return join(d, ", ") + "; " + join(generic, ", ") + " through its generic kernel";
  return d.empty() ? "none" : join(d, ", ");
}

std::string gradient_text(const OpDef& op) {
  if (op.has(kNonDifferentiable)) return "not differentiable";
  if (op.composite) return "through the ops it is built from";
  if (op.grad) return "gradient rule";
  return "none";
}

std::string kind_text(const OpDef& op) {
  std::vector<std::string> k;
  if (op.composite) k.push_back("composite");
  if (op.has(kElementwise)) k.push_back("elementwise");
  if (op.has(kView)) k.push_back("view");
  if (op.has(kRandom)) k.push_back("random");
  if (op.num_inputs < 0) k.push_back("variadic");
  if (op.promote == Promote::Common) k.push_back("inputs promoted to their common dtype");
  if (op.promote == Promote::CommonFloat) k.push_back("inputs promoted to their common floating dtype");
  return join(k, ", ");
}

struct OpEntry {
  const OpDef* op;
  std::vector<const Declaration*> functions, methods, also;
  std::string family;  // the header of its first function, or "" for ops no public function runs
  int line = 0;        // of that function, for the order within the family
};

std::string code(const std::string& s) { return "`" + s + "`"; }

bool is_method(const Declaration& d) { return d.name.rfind("Tensor::", 0) == 0; }

// Families in the order a reader meets them; headers added to ops.h later follow.
const std::vector<std::string> kFamilyOrder = {
    "nabla/ops/elementwise.h", "nabla/ops/reduction.h",       "nabla/ops/linalg.h", "nabla/ops/shape.h",
    "nabla/ops/indexing.h",    "nabla/ops/nn_functional.h",   "nabla/ops/conv.h",   "nabla/ops/loss.h",
    "nabla/ops/factory.h",     "nabla/ops/optimizer_update.h"};

int family_rank(const Sources& src, const std::string& h) {
  if (h.empty()) return 100000;
  auto known = std::find(kFamilyOrder.begin(), kFamilyOrder.end(), h);
  if (known != kFamilyOrder.end()) return static_cast<int>(known - kFamilyOrder.begin());
  return 1000 + static_cast<int>(std::find(src.headers.begin(), src.headers.end(), h) - src.headers.begin());
}

std::string family_title(const std::string& header) {
  if (header.empty()) return "internal ops";
  if (header == "nabla/core/tensor.h") return "Tensor methods";
  return fs::path(header).stem().string();
}

}  // namespace

std::string ops_reference(const std::string& source_dir, const DTypeProbe& probe) {
  const fs::path root(source_dir);
  const Sources src = read_sources(root);
  const Mirrors mirrors = read_mirrors(root);

  std::map<std::string, std::set<std::string>> ops_of;  // declaration key -> table ops it runs itself
  for (const Declaration& d : src.decls) ops_of[d.key] = ops_run_by(src, d);
  auto calls = [&](const Declaration& d) -> const std::set<std::string>& {
    static const std::set<std::string> none;
    const Definition* def = definition_of(src, d);
    return def ? def->calls : none;
  };

  // Every curated name must still be an op or a public function.
  std::set<std::string> known;
  for (const OpDef* op : op_table()) known.insert(std::string(op->name));
  for (const std::string& n : src.public_names) known.insert(short_name(n));
  for (const auto& [name, m] : mirrors.curated)
    NABLA_CHECK(known.count(name), "ops_reference: tools/docs/mirrors.tsv lists '", name,
                "', which is neither a table op nor a public function");

  std::vector<OpEntry> entries;
  std::set<std::string> documented;               // keys of the declarations shown as an op's functions/methods
  std::map<std::string, std::string> op_of_name;  // free function name -> the op entry it is listed under
  for (const OpDef* op : op_table()) {
    OpEntry e{op};
    std::string name(op->name);
    std::set<std::string> primary;  // names of the free functions that run it
    for (const Declaration& d : src.decls)
      if (!is_method(d) && ops_of[d.key].count(name)) primary.insert(d.name);
    for (const Declaration& d : src.decls) {
      bool runs = ops_of[d.key].count(name) > 0;
      bool via = false;
      for (const std::string& p : primary) via = via || calls(d).count(p);
      // An overload that hands over to one that runs the op (maximum(a, Scalar)
      // calls maximum(a, b)) is listed with it.
      if (is_method(d) && (runs || via))
        e.methods.push_back(&d);
      else if (!is_method(d) && (runs || (via && primary.count(d.name))))
        e.functions.push_back(&d);
      else if (!is_method(d) && via)
        e.also.push_back(&d);
    }
    const std::vector<const Declaration*>& first = e.functions.empty() ? e.methods : e.functions;
    if (!first.empty()) {
      e.family = first[0]->header;
      e.line = first[0]->line;
    }
    for (auto* list : {&e.functions, &e.methods})
      for (const Declaration* d : *list) {
        documented.insert(d->key);
        if (!op_of_name.count(d->name)) op_of_name[d->name] = name;
      }
    entries.push_back(e);
  }
  std::stable_sort(entries.begin(), entries.end(), [&](const OpEntry& a, const OpEntry& b) {
    int ra = family_rank(src, a.family), rb = family_rank(src, b.family);
    if (ra != rb) return ra < rb;
    if (a.line != b.line) return a.line < b.line;
    return a.op->name < b.op->name;
  });

  std::ostringstream md;
  md << "# Op reference\n\n"
        "<!-- Generated by tests/docs/ops_reference_test.cpp from the op table, the op headers and\n"
        "     tools/docs/{pytorch_names,mirrors}.tsv. Do not edit: run\n"
        "     cmake --build build/release --target docs_ops -->\n\n"
        "Every op of nabla's op table (`op_table()`, "
     << entries.size()
     << " entries), then the public functions that run no table op of their own. "
        "Generated from the sources; `ctest` fails when this page is out of date "
        "(regenerate it with `cmake --build build/release --target docs_ops`; see "
        "[adding_an_op.md](adding_an_op.md)).\n\n"
        "For each op:\n\n"
        "- The meaning: the first sentence of the docstring of the PyTorch function it mirrors *(in italics)*, "
        "then the comment above the declaration in nabla's header.\n"
        "- The public functions (`#include \"nabla/nabla.h\"`, namespace `nabla`) and `Tensor` methods that "
        "run the op, as declared; **also via**: functions that reach it through one of those (operators, "
        "composites).\n"
        "- **dtypes**: the input dtypes the op ran on when the samples of its test entry "
        "(tests/ops, `OpInfo`) were cast to each dtype (index and mask inputs keep theirs), and the result "
        "dtype where it is the same for all of them (`→ bool`).\n"
        "- **devices**: the devices the op has kernels for (registered per device: `nabla/ops/kernel_registry.h`); a composite runs wherever "
        "its parts do. **gradient**: a gradient rule, through a composite's parts, or not differentiable.\n"
        "- **mirrors**: the PyTorch 1.13 function it follows (checked against Debian's python3-torch: "
        "tools/docs/pytorch_names.py) and the TensorFlow name (curated: tools/docs/mirrors.tsv).\n\n";

  // Index of ops by family, then of every public function by name.
  md << "## Index\n\n";
  std::vector<std::string> families;
  for (const OpEntry& e : entries)
    if (std::find(families.begin(), families.end(), e.family) == families.end()) families.push_back(e.family);
  for (const std::string& f : families) {
    std::vector<std::string> links;
    for (const OpEntry& e : entries)
      if (e.family == f) links.push_back("[" + std::string(e.op->name) + "](#" + anchor(std::string(e.op->name)) + ")");
    md << "- **[" << family_title(f) << "](#" << anchor("family: " + family_title(f)) << ")**: " << join(links, " · ")
       << "\n";
  }
  md << "- **[public functions without a table op](#public-functions-without-a-table-op)**\n\n";
  std::set<std::string> fn_names;
  for (const Declaration& d : src.decls)
    if (!is_method(d) && d.name.rfind("operator", 0) != 0) fn_names.insert(d.name);
  std::vector<std::string> fn_links;
  for (const std::string& n : fn_names) {
    auto op = op_of_name.find(n);
    fn_links.push_back("[" + n + "](#" + (op != op_of_name.end() ? anchor(op->second) : "fn-" + n) + ")");
  }
  md << "Functions: " << join(fn_links, " · ") << "\n\n";

  for (const std::string& f : families) {
    md << "## family: " << family_title(f) << "\n\n";
    if (f.empty()) {
      md << "Ops that no public function runs: gradient rules and graph passes call them with "
            "`nabla::call(*find_op(\"name\"), inputs, attrs)`.\n\n";
    } else {
      std::string summary = src.header_summaries.at(f);
      md << "Declared in `" << f << "`" << (summary.empty() ? ".\n\n" : ": " + summary + "\n\n");
    }
    for (const OpEntry& e : entries) {
      if (e.family != f) continue;
      const OpDef& op = *e.op;
      std::vector<std::string> names;
      for (const Declaration* d : e.functions) names.push_back(short_name(d->name));
      for (const Declaration* d : e.methods) names.push_back(short_name(d->name));
      names.push_back(std::string(op.name));
      std::string torch = pytorch_name(mirrors, names, f);
      std::string tf = tensorflow_name(mirrors, names);
      std::vector<std::string> meaning;
      std::string s = pytorch_summary(mirrors, torch);
      if (!s.empty()) meaning.push_back("*" + s + "*");
      for (const auto* list : {&e.functions, &e.methods})
        for (const Declaration* d : *list)
          if (!d->comment.empty() && std::find(meaning.begin(), meaning.end(), d->comment) == meaning.end())
            meaning.push_back(d->comment);
      md << "### " << op.name << "\n\n";
      if (!meaning.empty()) md << join(meaning, " ") << "\n\n";
      for (const Declaration* d : e.functions) md << "- " << code(d->text) << "\n";
      for (const Declaration* d : e.methods) md << "- " << code(d->text) << "\n";
      if (e.functions.empty() && e.methods.empty())
        md << "- no public function: `call(*find_op(\"" << op.name << "\"), inputs, attrs)`"
           << (op.attr_names.empty() ? "" : " with attributes `" + std::string(op.attr_names) + "`") << "\n";
      if (!e.also.empty()) {
        std::vector<std::string> a;
        for (const Declaration* d : e.also) a.push_back(code(d->text));
        md << "- also via: " << join(a, ", ") << "\n";
      }
      md << "- **dtypes**: " << dtypes_text(op, probe) << "\n";
      md << "- **devices**: " << devices_text(op) << " · **gradient**: " << gradient_text(op);
      std::string kind = kind_text(op);
      if (!kind.empty()) md << " · " << kind;
      md << "\n";
      std::vector<std::string> mirror;
      if (!torch.empty()) mirror.push_back("PyTorch " + code(torch));
      std::vector<std::string> methods;
      for (const Declaration* d : e.methods) {
        std::string q = "torch.Tensor." + short_name(d->name);
        if (mirrors.has(q) && q != torch && std::find(methods.begin(), methods.end(), code(q)) == methods.end())
          methods.push_back(code(q));
      }
      if (!methods.empty()) mirror.push_back((torch.empty() ? "PyTorch " : "") + join(methods, ", "));
      if (!tf.empty()) mirror.push_back("TensorFlow " + code(tf));
      md << "- **mirrors**: " << (mirror.empty() ? "—" : join(mirror, "; ")) << "\n\n";
    }
  }

  // Public functions that run no table op themselves.
  md << "## public functions without a table op\n\n"
        "Factories, helpers, operators and composites written in C++ (their errors still name the function "
        "called), with the public functions each one is built from.\n\n";
  std::vector<std::string> headers = src.headers;
  std::stable_sort(headers.begin(), headers.end(), [&](const std::string& a, const std::string& b) {
    return family_rank(src, a) < family_rank(src, b);
  });
  for (const std::string& h : headers) {
    std::vector<std::string> names;  // in declaration order, overloads together
    for (const Declaration& d : src.decls)
      if (d.header == h && !documented.count(d.key) && ops_of[d.key].empty() &&
          std::find(names.begin(), names.end(), d.name) == names.end())
        names.push_back(d.name);
    if (names.empty()) continue;
    md << "### "
       << (h == "nabla/core/tensor.h" ? "Tensor methods and helpers" : fs::path(h).stem().string() + " helpers")
       << " (`" << h << "`)\n\n";
    for (const std::string& n : names) {
      std::vector<std::string> texts, meaning;
      std::set<std::string> built_set;
      for (const Declaration& d : src.decls) {
        if (d.name != n || documented.count(d.key) || !ops_of[d.key].empty()) continue;
        texts.push_back(code(d.text));
        if (!d.comment.empty() && std::find(meaning.begin(), meaning.end(), d.comment) == meaning.end())
          meaning.push_back(d.comment);
        for (const std::string& c : calls(d))
          if (c != n && src.public_names.count(c) && c.rfind("Tensor::", 0) != 0) built_set.insert(c);
      }
      bool method = n.rfind("Tensor::", 0) == 0;
      std::string torch = method ? (mirrors.has("torch.Tensor." + short_name(n)) ? "torch.Tensor." + short_name(n) : "")
                                 : pytorch_name(mirrors, {n}, h);
      std::string tf = tensorflow_name(mirrors, {short_name(n)});
      std::string s = pytorch_summary(mirrors, torch);
      if (!s.empty()) meaning.insert(meaning.begin(), "*" + s + "*");
      std::vector<std::string> built;
      for (const std::string& c : built_set) built.push_back(code(c));
      std::string id = method || n.rfind("operator", 0) == 0 ? "" : "<a id=\"fn-" + n + "\"></a>";
      md << "- " << id << join(texts, ", ") << (meaning.empty() ? "" : " — " + join(meaning, " "));
      std::vector<std::string> notes;
      if (!torch.empty()) notes.push_back("PyTorch " + code(torch));
      if (!tf.empty()) notes.push_back("TensorFlow " + code(tf));
      if (!built.empty()) notes.push_back("built from " + join(built, ", "));
      if (!notes.empty()) md << " (" << join(notes, "; ") << ")";
      md << "\n";
    }
    md << "\n";
  }
  std::string out = md.str();
  while (out.size() >= 2 && out.substr(out.size() - 2) == "\n\n") out.pop_back();
  return out;
}

}  // namespace nabla::docs
