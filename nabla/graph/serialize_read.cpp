// Reading .nbg files (docs/nbg-format.md). Order of checks: magic, version,
// header CRC, section sizes against the file size, section CRCs; then every
// node record field by field. Each node may refer only to earlier nodes, so
// a node is checked against already-checked ones and the loaded graph is
// topologically ordered like a built one. An op node's output metas are
// recomputed by the op's own inference on its loaded inputs and must equal
// the saved ones. Control-flow nodes carry their subgraphs (cond branches,
// loop bodies) as nested node tables read the same way, one recursion per
// level up to nbg::kMaxNesting. Nothing from the file is ever executed.
#include <algorithm>
#include <bit>
#include <cstring>
#include <variant>

#include "nabla/core/input_file.h"
#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/placement.h"
#include "nabla/graph/serialize.h"
#include "nabla/graph/serialize_format.h"
#include "nabla/graph/specialize.h"
#include "nabla/graph/unknown_dims.h"
#include "nabla/ops/factory.h"

static_assert(std::endian::native == std::endian::little, ".nbg I/O assumes a little-endian host");

namespace nabla::graph {

namespace {

using nbg::Reader;

const char* tag_name(uint16_t tag) {
  switch (tag) {
    case nbg::kTagKind: return "kind";
    case nbg::kTagName: return "name";
    case nbg::kTagOp: return "op";
    case nbg::kTagAttrs: return "attrs";
    case nbg::kTagInputs: return "inputs";
    case nbg::kTagControlInputs: return "control_inputs";
    case nbg::kTagMetas: return "metas";
    case nbg::kTagSource: return "source";
    case nbg::kTagValue: return "value";
    case nbg::kTagTrainable: return "trainable";
    case nbg::kTagTarget: return "target";
    case nbg::kTagVariables: return "variables";
    case nbg::kTagSubgraphs: return "subgraphs";
    case nbg::kTagDevice: return "device";
    default: return "?";
  }
}

uint32_t bit(uint16_t tag) { return 1u << tag; }

// The fields each kind may have, and those it must have.
uint32_t allowed_fields(NodeKind k) {
  uint32_t common = bit(nbg::kTagKind) | bit(nbg::kTagName) | bit(nbg::kTagSource) | bit(nbg::kTagControlInputs) |
                    bit(nbg::kTagDevice);
  switch (k) {
    case NodeKind::Op: return common | bit(nbg::kTagOp) | bit(nbg::kTagAttrs) | bit(nbg::kTagInputs) | bit(nbg::kTagMetas);
    case NodeKind::Placeholder: return common | bit(nbg::kTagMetas);
    case NodeKind::Constant: return common | bit(nbg::kTagMetas) | bit(nbg::kTagValue);
    case NodeKind::Variable: return common | bit(nbg::kTagMetas) | bit(nbg::kTagValue) | bit(nbg::kTagTrainable);
    case NodeKind::Initializer: return common | bit(nbg::kTagVariables);
    case NodeKind::Assign:
    case NodeKind::AssignAdd:
    case NodeKind::AssignSub: return common | bit(nbg::kTagInputs) | bit(nbg::kTagMetas) | bit(nbg::kTagTarget);
    case NodeKind::Group: return common | bit(nbg::kTagInputs);
    case NodeKind::Cond: return common | bit(nbg::kTagInputs) | bit(nbg::kTagMetas) | bit(nbg::kTagSubgraphs);
    case NodeKind::While:
    case NodeKind::WhileGrad:
      return common | bit(nbg::kTagAttrs) | bit(nbg::kTagInputs) | bit(nbg::kTagMetas) | bit(nbg::kTagSubgraphs);
    case NodeKind::Gradients: return common | bit(nbg::kTagAttrs) | bit(nbg::kTagInputs) | bit(nbg::kTagMetas);
    case NodeKind::Effect: break;  // compile() only: has no code in the format
  }
  return common;
}
uint32_t required_fields(NodeKind k) {
  uint32_t always = bit(nbg::kTagKind) | bit(nbg::kTagName);
  switch (k) {
    case NodeKind::Op: return always | bit(nbg::kTagOp) | bit(nbg::kTagMetas);
    case NodeKind::Placeholder: return always | bit(nbg::kTagMetas);
    case NodeKind::Constant: return always | bit(nbg::kTagMetas) | bit(nbg::kTagValue);
    case NodeKind::Variable: return always | bit(nbg::kTagMetas) | bit(nbg::kTagValue) | bit(nbg::kTagTrainable);
    case NodeKind::Initializer: return always | bit(nbg::kTagVariables);
    case NodeKind::Assign:
    case NodeKind::AssignAdd:
    case NodeKind::AssignSub: return always | bit(nbg::kTagInputs) | bit(nbg::kTagMetas) | bit(nbg::kTagTarget);
    case NodeKind::Group: return always | bit(nbg::kTagInputs);
    case NodeKind::Cond: return always | bit(nbg::kTagInputs) | bit(nbg::kTagMetas) | bit(nbg::kTagSubgraphs);
    case NodeKind::While:
    case NodeKind::WhileGrad:
      return always | bit(nbg::kTagAttrs) | bit(nbg::kTagInputs) | bit(nbg::kTagMetas) | bit(nbg::kTagSubgraphs);
    case NodeKind::Gradients: return always | bit(nbg::kTagAttrs) | bit(nbg::kTagInputs) | bit(nbg::kTagMetas);
    case NodeKind::Effect: break;  // compile() only: has no code in the format
  }
  return always;
}

DType read_dtype(Reader& r) {
  uint8_t c = r.u8();
  DType t;
  NABLA_CHECK(nbg::dtype_from_code(c, &t), r.where(), ": unknown dtype code ", int(c), "; expected 0..7");
  return t;
}

// `sizes`: a tensor's or value's sizes (>= 0; -1 also when `unknown_ok`, an
// unknown dim of a graph value), not an attribute.
Shape read_shape(Reader& r, bool sizes, bool unknown_ok = false) {
  uint32_t ndim = r.u32();
  NABLA_CHECK(ndim <= nbg::kMaxDims, r.where(), ": ", ndim, " dims, more than the format's ", nbg::kMaxDims);
  Shape s;
  int64_t numel = 1;
  for (uint32_t i = 0; i < ndim; ++i) {
    int64_t d = r.i64();
    if (sizes && unknown_ok && d == -1) {
      s.push_back(d);
      continue;
    }
    if (sizes) {
      NABLA_CHECK(d >= 0, r.where(), ": size ", d, " at dim ", i, "; sizes must be >= 0");
      NABLA_CHECK(!__builtin_mul_overflow(numel, d, &numel), r.where(), ": the sizes overflow int64");
    }
    s.push_back(d);
  }
  return s;
}

bool read_flag(Reader& r) {
  uint8_t b = r.u8();
  NABLA_CHECK(b <= 1, r.where(), ": a bool byte holds ", int(b), "; expected 0 or 1");
  return b == 1;
}

Attrs read_attrs(Reader& r) {
  Attrs attrs;
  uint32_t n = r.count(1);
  for (uint32_t k = 0; k < n; ++k) {
    uint8_t type = r.u8();
    switch (type) {
      case nbg::kAttrNone: attrs.push_back(std::monostate{}); break;
      case nbg::kAttrInt: attrs.push_back(r.i64()); break;
      case nbg::kAttrDouble: attrs.push_back(r.f64()); break;
      case nbg::kAttrBool: attrs.push_back(read_flag(r)); break;
      case nbg::kAttrShape: attrs.push_back(read_shape(r, false)); break;
      case nbg::kAttrDType: attrs.push_back(read_dtype(r)); break;
      case nbg::kAttrScalar: {
        uint8_t kind = r.u8();
        if (kind == nbg::kScalarBool)
          attrs.push_back(Scalar(read_flag(r)));
        else if (kind == nbg::kScalarInt)
          attrs.push_back(Scalar(r.i64()));
        else if (kind == nbg::kScalarFloat)
          attrs.push_back(Scalar(r.f64()));
        else
          fail(r.where(), ": attribute #", k, " is a scalar of unknown kind ", int(kind), "; expected 0..2");
        break;
      }
      case nbg::kAttrString: attrs.push_back(r.str()); break;
      default: fail(r.where(), ": attribute #", k, " has unknown type ", int(type), "; expected 0..7");
    }
  }
  return attrs;
}

// A node record as read, before its checks against the graph.
struct Record {
  uint32_t present = 0;  // bit per known tag
  NodeKind kind = NodeKind::Op;
  std::string name, op;
  Attrs attrs;
  std::vector<ValueRef> inputs;
  std::vector<int> control_inputs, variables;
  OutputMetas metas;
  std::optional<StoredLocation> source;
  std::string device;
  Tensor value;
  bool trainable = true;
  int target = -1;
  std::vector<Subgraph> subgraphs;
};

// What reading a node table needs besides its bytes.
struct Context {
  std::string_view data;  // the data section
  uint16_t file_minor = 0;
};

void read_nodes(Reader& r, const Context& cx, const std::string& prefix, int depth,
                const std::shared_ptr<GraphData>& g);

// A node index that must name an earlier node.
int earlier_node(Reader& r, std::size_t id, const char* what) {
  uint32_t v = r.u32();
  NABLA_CHECK(v < id, r.where(), ": ", what, " refers to node ", v,
              ", expected an earlier node (< ", id, "): nodes are stored in topological order");
  return static_cast<int>(v);
}

Tensor read_value(Reader& r, std::string_view data) {
  DType dtype = read_dtype(r);
  Shape shape = read_shape(r, true);
  uint64_t offset = r.u64(), nbytes = r.u64();
  NABLA_CHECK(offset <= data.size() && nbytes <= data.size() - offset, r.where(), ": bytes [", offset, ", ",
              offset + nbytes, ") lie outside the data section of ", data.size(), " bytes");
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;  // read_shape checked for overflow
  uint64_t need = 0;
  NABLA_CHECK(!__builtin_mul_overflow(static_cast<uint64_t>(numel), itemsize(dtype), &need) && need == nbytes,
              r.where(), ": a ", dtype, " tensor of shape ", shape, " needs ", static_cast<uint64_t>(numel) * itemsize(dtype),
              " bytes, the field gives ", nbytes);
  Tensor t = empty(IntList(shape), dtype);
  if (nbytes > 0) std::memcpy(t.raw_data(), data.data() + offset, nbytes);
  if (dtype == kBool) {
    const auto* b = static_cast<const uint8_t*>(t.raw_data());
    for (uint64_t i = 0; i < nbytes; ++i)
      NABLA_CHECK(b[i] <= 1, r.where(), ": a bool tensor holds byte ", int(b[i]), "; expected 0 or 1");
  }
  return t;
}

std::vector<Subgraph> read_subgraphs(Reader& r, const Context& cx, int depth, const std::shared_ptr<GraphData>& g);

// Node `id` of graph `g` (nested `depth` levels below the top-level graph).
Record read_record(Reader& table, std::size_t id, const Context& cx, const std::string& prefix, int depth,
                   const std::shared_ptr<GraphData>& g) {
  const std::string_view data = cx.data;
  const uint16_t file_minor = cx.file_minor;
  Record rec;
  const std::string at = prefix + ": node " + std::to_string(id);
  uint32_t nfields = table.count(6);
  for (uint32_t f = 0; f < nfields; ++f) {
    uint16_t tag = table.u16();
    uint32_t len = table.u32();
    std::string_view payload = table.take(len);
    const uint16_t id_bits = tag & static_cast<uint16_t>(~nbg::kCritical);
    const bool critical = (tag & nbg::kCritical) != 0;
    const bool known = id_bits >= 1 && id_bits <= nbg::kLastTag && critical == nbg::tag_critical(id_bits);
    if (!known) {
      // Newer minor versions may add fields an older reader can skip; a field
      // marked critical must be understood (docs/nbg-format.md, "Versions").
      NABLA_CHECK((tag & nbg::kCritical) == 0, at, ": field tag ", id_bits,
                  " is marked critical and unknown to this nabla (format ", nbg::kMajor, ".", nbg::kMinor,
                  "); the file needs a newer nabla");
      NABLA_CHECK(file_minor > nbg::kMinor, at, ": unknown field tag ", tag, " in a version ", nbg::kMajor, ".",
                  file_minor, " file (known tags: 1..", nbg::kLastTag, "); the file is corrupt");
      continue;
    }
    tag = id_bits;
    NABLA_CHECK(nbg::tag_minor(tag) <= file_minor, at, ": field '", tag_name(tag), "' is new in format ", nbg::kMajor,
                ".", nbg::tag_minor(tag), " but the file says version ", nbg::kMajor, ".", file_minor,
                "; the file is corrupt");
    NABLA_CHECK(!(rec.present & bit(tag)), at, ": field '", tag_name(tag), "' appears twice");
    rec.present |= bit(tag);
    Reader r(payload, at + " field '" + tag_name(tag) + "'");
    switch (tag) {
      case nbg::kTagKind: {
        uint8_t c = r.u8();
        NABLA_CHECK(nbg::kind_from_code(c, &rec.kind), r.where(), ": unknown node kind ", int(c), "; expected 0..",
                    int(nbg::kLastKindCode));
        NABLA_CHECK(nbg::kind_minor(rec.kind) <= file_minor, r.where(), ": kind '", nbg::kind_name(rec.kind),
                    "' is new in format ", nbg::kMajor, ".", nbg::kind_minor(rec.kind), " but the file says version ",
                    nbg::kMajor, ".", file_minor, "; the file is corrupt");
        break;
      }
      case nbg::kTagName: rec.name = std::string(r.take(r.left())); break;
      case nbg::kTagOp: rec.op = std::string(r.take(r.left())); break;
      case nbg::kTagAttrs: rec.attrs = read_attrs(r); break;
      case nbg::kTagInputs: {
        uint32_t n = r.count(8);
        for (uint32_t i = 0; i < n; ++i) {
          int node = earlier_node(r, id, "an input");
          uint32_t out = r.u32();
          NABLA_CHECK(out <= INT32_MAX, r.where(), ": output index ", out, " is out of range");
          rec.inputs.push_back({node, static_cast<int>(out)});
        }
        break;
      }
      case nbg::kTagControlInputs: {
        uint32_t n = r.count(4);
        for (uint32_t i = 0; i < n; ++i) rec.control_inputs.push_back(earlier_node(r, id, "a control input"));
        break;
      }
      case nbg::kTagMetas: {
        uint32_t n = r.count(5);
        for (uint32_t i = 0; i < n; ++i) {
          DType dt = read_dtype(r);
          rec.metas.push_back({read_shape(r, true, cx.file_minor >= 2), dt});
        }
        break;
      }
      case nbg::kTagSource: {
        StoredLocation loc;
        loc.file = r.str();
        loc.line = r.u32();
        rec.source = std::move(loc);
        break;
      }
      case nbg::kTagDevice:
        rec.device = std::string(r.take(r.left()));
        parse_placement(rec.device, r.where());  // "[rank:R/]device", else an error naming the field
        break;
      case nbg::kTagValue: rec.value = read_value(r, data); break;
      case nbg::kTagTrainable: rec.trainable = read_flag(r); break;
      case nbg::kTagTarget: rec.target = earlier_node(r, id, "the target"); break;
      case nbg::kTagVariables: {
        uint32_t n = r.count(4);
        for (uint32_t i = 0; i < n; ++i) rec.variables.push_back(earlier_node(r, id, "a variable"));
        break;
      }
      case nbg::kTagSubgraphs: rec.subgraphs = read_subgraphs(r, cx, depth, g); break;
    }
    NABLA_CHECK(r.left() == 0, r.where(), ": ", r.left(), " unexpected bytes after the field's value");
  }
  return rec;
}

// The subgraphs field of a control-flow node of `g` (nested `depth` levels
// down): each a region, its own node table (read recursively), params and
// results. Their agreement with the owner node is checked by
// nbg::check_control_flow once the owner's other fields are known.
std::vector<Subgraph> read_subgraphs(Reader& r, const Context& cx, int depth, const std::shared_ptr<GraphData>& g) {
  NABLA_CHECK(depth < nbg::kMaxNesting, r.where(), ": subgraphs nested more than ", nbg::kMaxNesting,
              " levels deep (the format's limit)");
  const uint32_t count = r.count(16);  // each: region length, node count, param count, result count
  std::vector<Subgraph> subs;
  for (uint32_t k = 0; k < count; ++k) {
    const std::string at = r.where() + ": subgraph " + std::to_string(k);
    auto sg = std::make_shared<GraphData>();
    sg->parent = g;
    sg->region = r.str();
    read_nodes(r, cx, at, depth + 1, sg);
    const std::size_t size = sg->nodes.size();
    Subgraph s;
    s.graph = sg;
    std::vector<char> bound(size, 0);
    const uint32_t np = r.count(4);
    for (uint32_t i = 0; i < np; ++i) {
      const uint32_t p = r.u32();
      if (p == nbg::kNoParam) {
        s.params.push_back(-1);
        continue;
      }
      NABLA_CHECK(p < size && sg->nodes[p].kind == NodeKind::Placeholder, at, ": param ", i, " names node ", p,
                  "; expected a placeholder of the subgraph's ", size, " nodes, or ", nbg::kNoParam, " (unbound)");
      NABLA_CHECK(!bound[p], at, ": param ", i, " binds placeholder '", sg->nodes[p].name,
                  "' again; each placeholder is bound at most once");
      bound[p] = 1;
      s.params.push_back(static_cast<int>(p));
    }
    // A subgraph's placeholders are its bound inputs (cond and while_loop make
    // no others): an unbound one could never be given a value.
    for (std::size_t i = 0; i < size; ++i)
      NABLA_CHECK(bound[i] || sg->nodes[i].kind != NodeKind::Placeholder, at, ": placeholder '", sg->nodes[i].name,
                  "' (node ", i, ") is bound by no param");
    const uint32_t nr = r.count(8);
    for (uint32_t i = 0; i < nr; ++i) {
      const uint32_t node = r.u32(), out = r.u32();
      NABLA_CHECK(node < size, at, ": result ", i, " refers to node ", node, "; the subgraph has ", size, " nodes");
      const Node& n = sg->nodes[node];
      NABLA_CHECK(out < n.metas.size(), at, ": result ", i, " is output ", out, " of node '", n.name, "', which has ",
                  n.metas.size(), " output(s)");
      s.results.push_back({static_cast<int>(node), static_cast<int>(out)});
    }
    subs.push_back(std::move(s));
  }
  return subs;
}

std::string metas_text(const OutputMetas& m) {
  std::string s;
  for (std::size_t i = 0; i < m.size(); ++i)
    s += ::nabla::detail::concat(i ? ", " : "", dtype_name(m[i].dtype), m[i].sizes);
  return "(" + s + ")";
}

bool same_metas(const OutputMetas& a, const OutputMetas& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].dtype != b[i].dtype || a[i].sizes != b[i].sizes) return false;
  return true;
}

// A gradients node (graphs with unknown dims): attrs {number of ys, the ys
// given a gradient, increasing}; inputs {ys, xs, the given grad_ys}; one meta
// per x, of its shape. Sets the node's fields from the attrs.
void check_gradients(const Record& rec, Node& n, const GraphData& g, const std::string& at) {
  NABLA_CHECK(rec.attrs.size() == 2 && std::holds_alternative<int64_t>(rec.attrs[0]) &&
                  std::holds_alternative<Shape>(rec.attrs[1]),
              at, ": expected attributes (number of ys: int, ys given a gradient: ints)");
  const int64_t ny = rec.attrs.i(0), nx = static_cast<int64_t>(rec.metas.size());
  const Shape& given = rec.attrs.ints(1);
  NABLA_CHECK(ny >= 1 && nx >= 1, at, ": needs at least one y and one x, got ", ny, " and ", nx);
  NABLA_CHECK(static_cast<int64_t>(rec.inputs.size()) == ny + nx + static_cast<int64_t>(given.size()), at, ": ",
              rec.inputs.size(), " inputs, but ", ny, " ys, ", nx, " xs and ", given.size(), " grad_ys");
  for (std::size_t k = 0; k < given.size(); ++k)
    NABLA_CHECK(given[k] >= 0 && given[k] < ny && (k == 0 || given[k] > given[k - 1]), at,
                ": the ys given a gradient must be increasing indices below ", ny, ", got ", given);
  for (int64_t i = 0; i < nx; ++i) {
    const ValueRef& x = rec.inputs[static_cast<std::size_t>(ny + i)];
    const OutputMeta& xm = g.nodes[static_cast<std::size_t>(x.node)].metas[static_cast<std::size_t>(x.output)];
    NABLA_CHECK(xm.sizes == rec.metas[static_cast<std::size_t>(i)].sizes, at, ": gradient ", i, " has shape ",
                rec.metas[static_cast<std::size_t>(i)].sizes, " but its x has shape ", xm.sizes);
  }
  n.num_ys = static_cast<int>(ny);
  n.grad_ys_of.assign(given.begin(), given.end());
}

// Checks `rec` (node `id` of `g`, nested `depth` levels down) against the
// nodes before it and makes the Node.
Node check_record(Record rec, std::size_t id, const std::shared_ptr<GraphData>& g, const std::string& prefix,
                  int depth) {
  const uint32_t required = required_fields(rec.kind), allowed = allowed_fields(rec.kind);
  const std::string at = prefix + ": node " + std::to_string(id) + (rec.name.empty() ? "" : " '" + rec.name + "'") +
                         " (" + nbg::kind_name(rec.kind) + ")";
  for (uint16_t t = 1; t <= nbg::kLastTag; ++t) {
    NABLA_CHECK(!(required & bit(t)) || (rec.present & bit(t)), at, ": missing field '", tag_name(t), "'");
    NABLA_CHECK(!(rec.present & bit(t)) || (allowed & bit(t)), at, ": field '", tag_name(t), "' is not allowed for a ",
                nbg::kind_name(rec.kind), " node");
  }
  NABLA_CHECK(!rec.name.empty(), at, ": the name is empty");
  // A subgraph runs ops, constants, its bound placeholders and nested control
  // flow (control_flow_run.cpp); state and groups live in the top-level graph.
  NABLA_CHECK(depth == 0 || rec.kind == NodeKind::Op || rec.kind == NodeKind::Placeholder ||
                  rec.kind == NodeKind::Constant || detail::is_control_flow(rec.kind),
              at, ": a ", nbg::kind_name(rec.kind),
              " node cannot be inside a subgraph (a cond branch or while_loop body)");
  NABLA_CHECK(depth == 0 || rec.device.empty(), at,
              ": a node inside a subgraph has a device; it runs where its cond or while_loop does");
  auto node_at = [&](int i) -> const Node& { return g->nodes[static_cast<std::size_t>(i)]; };

  // Inputs must be values of their nodes (output index in range); only a
  // group may take a no-value node (an initializer, another group).
  for (std::size_t i = 0; i < rec.inputs.size(); ++i) {
    const ValueRef& in = rec.inputs[i];
    const Node& src = node_at(in.node);
    if (src.metas.empty()) {
      NABLA_CHECK(rec.kind == NodeKind::Group && in.output == 0, at, ": input ", i, " is node '", src.name,
                  "', which has no value", rec.kind == NodeKind::Group ? " (only output 0 may be named)" : "");
    } else {
      NABLA_CHECK(static_cast<std::size_t>(in.output) < src.metas.size(), at, ": input ", i, " is output ", in.output,
                  " of node '", src.name, "', which has ", src.metas.size(), " output(s)");
    }
  }
  const bool one_value = rec.kind == NodeKind::Placeholder || rec.kind == NodeKind::Constant ||
                         rec.kind == NodeKind::Variable || rec.kind == NodeKind::Assign ||
                         rec.kind == NodeKind::AssignAdd || rec.kind == NodeKind::AssignSub;
  if (one_value)
    NABLA_CHECK(rec.metas.size() == 1, at, ": expected 1 output meta, got ", rec.metas.size());
  if (rec.value.defined())
    NABLA_CHECK(rec.value.dtype() == rec.metas[0].dtype && rec.value.sizes() == rec.metas[0].sizes, at,
                ": the value is ", rec.value.dtype(), rec.value.sizes(), " but the node's meta says ",
                rec.metas[0].dtype, rec.metas[0].sizes);

  Node n;
  n.kind = rec.kind;
  n.name = rec.name;
  n.inputs = rec.inputs;
  n.control_inputs = rec.control_inputs;
  n.metas = rec.metas;
  n.loc_known = false;
  n.stored_loc = rec.source;
  n.device = rec.device;
  n.value = rec.value;
  n.trainable = rec.trainable;
  n.target = rec.target;
  n.variables = rec.variables;
  n.attrs = rec.attrs;
  n.subgraphs = std::move(rec.subgraphs);

  switch (rec.kind) {
    case NodeKind::Placeholder:
    case NodeKind::Constant:
    case NodeKind::Variable:
    case NodeKind::Group: break;
    case NodeKind::Effect: fail(at, ": an effect node cannot be loaded");  // no code in the format: unreachable
    case NodeKind::Gradients: check_gradients(rec, n, *g, at); break;
    case NodeKind::Cond:
    case NodeKind::While:
    case NodeKind::WhileGrad: nbg::check_control_flow(n, *g, at); break;
    case NodeKind::Initializer:
      for (int v : rec.variables)
        NABLA_CHECK(node_at(v).kind == NodeKind::Variable, at, ": initializes node '", node_at(v).name,
                    "', which is not a variable");
      break;
    case NodeKind::Assign:
    case NodeKind::AssignAdd:
    case NodeKind::AssignSub: {
      const Node& var = node_at(rec.target);
      NABLA_CHECK(var.kind == NodeKind::Variable, at, ": the target '", var.name, "' is not a variable");
      NABLA_CHECK(rec.inputs.size() == 1, at, ": expected 1 input (the value), got ", rec.inputs.size());
      const OutputMeta& in = node_at(rec.inputs[0].node).metas[static_cast<std::size_t>(rec.inputs[0].output)];
      NABLA_CHECK(same_metas(rec.metas, var.metas) && in.dtype == var.metas[0].dtype && in.sizes == var.metas[0].sizes,
                  at, ": variable '", var.name, "' is ", metas_text(var.metas), " but the node says ",
                  metas_text(rec.metas), " and its value is ", dtype_name(in.dtype), in.sizes);
      break;
    }
    case NodeKind::Op: {
      const OpDef* op = find_op(rec.op);
      NABLA_CHECK(op, at, ": unknown op '", rec.op, "' (not in this nabla's op table)");
      n.op = op;
      TensorList ins;
      for (const ValueRef& r : rec.inputs) ins.push_back(detail::output_tensor(g, r));
      // On values with unknown dims a node stays as built: the op as called,
      // composite or not, inputs unpromoted; its metas come from stand-ins.
      bool unknown = false;
      for (const Tensor& t : ins) unknown |= has_unknown_dims(t.sizes());
      if (unknown) {
        OutputMetas inferred;
        try {
          inferred = detail::infer_with_stand_ins(*op, Inputs(ins.data(), ins.size()), rec.attrs);
        } catch (const std::exception& e) {
          fail(at, ": the op rejects the saved inputs and attributes: ", e.what());
        }
        NABLA_CHECK(same_metas(inferred, rec.metas), at, ": op '", rec.op, "' infers outputs ", metas_text(inferred),
                    " from the saved inputs, but the file says ", metas_text(rec.metas));
        break;
      }
      NABLA_CHECK(!op->composite && op->infer, at, ": op '", rec.op,
                  "' is a composite op; graphs hold only the table ops it expands into");
      NABLA_CHECK(op->num_inputs < 0 || static_cast<int>(rec.inputs.size()) == op->num_inputs, at, ": op '", rec.op,
                  "' takes ", op->num_inputs, " inputs, the node has ", rec.inputs.size());
      // A built graph holds its dtype promotions as cast nodes: an op's inputs
      // already have the dtype it computes in.
      if (op->promote != Promote::None && ins.size() > static_cast<std::size_t>(op->promote_from)) {
        Inputs tail(ins.data() + op->promote_from, ins.size() - static_cast<std::size_t>(op->promote_from));
        DType target = result_type(tail);
        if (op->promote == Promote::CommonFloat && !is_floating(target)) target = kFloat32;
        for (std::size_t i = static_cast<std::size_t>(op->promote_from); i < ins.size(); ++i)
          NABLA_CHECK(ins[i].dtype() == target, at, ": input ", i, " is ", ins[i].dtype(), " but op '", rec.op,
                      "' computes in ", target, "; a saved graph holds its dtype promotions as cast nodes");
      }
      nbg::check_attrs(*op, Inputs(ins.data(), ins.size()), rec.attrs, at);
      OutputMetas inferred;
      try {
        inferred = op->infer(*op, Inputs(ins.data(), ins.size()), rec.attrs);
      } catch (const std::exception& e) {
        fail(at, ": the op's inference rejects the saved inputs and attributes: ", e.what());
      }
      NABLA_CHECK(same_metas(inferred, rec.metas), at, ": op '", rec.op, "' infers outputs ", metas_text(inferred),
                  " from the saved inputs, but the file says ", metas_text(rec.metas));
      break;
    }
  }
  return n;
}

// u32 node count, then the records of `g`'s nodes, each checked against the
// ones before it; names must be unique within `g`.
void read_nodes(Reader& r, const Context& cx, const std::string& prefix, int depth,
                const std::shared_ptr<GraphData>& g) {
  const uint32_t count = r.count(4);
  for (uint32_t id = 0; id < count; ++id) {
    Record rec = read_record(r, id, cx, prefix, depth, g);
    g->nodes.push_back(check_record(std::move(rec), id, g, prefix, depth));
  }
  for (const Node& n : g->nodes) g->used_names.push_back(n.name);
  std::sort(g->used_names.begin(), g->used_names.end());
  auto dup = std::adjacent_find(g->used_names.begin(), g->used_names.end());
  NABLA_CHECK(dup == g->used_names.end(), prefix, ": two nodes are called '",
              dup == g->used_names.end() ? "" : *dup, "'; names must be unique");
}

uint64_t le_at(const std::string& b, std::size_t pos, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[pos + i])) << (8 * i);
  return v;
}

// graph::load and Session::load: `api` names the one the user called.
Graph load_as(const std::string& path, const std::string& api) {
  const std::string file = ::nabla::detail::concat(api, ": '", path, "'");
  const std::string bytes = read_file(path, api);
  const std::size_t size = bytes.size();
  const std::size_t magic_n = std::min(size, sizeof nbg::kMagic);
  NABLA_CHECK(std::memcmp(bytes.data(), nbg::kMagic, magic_n) == 0 && size > 0, file,
              " is not a .nbg saved graph: it does not start with the magic bytes \\x89NBG\\r\\n\\x1a\\n");
  NABLA_CHECK(size >= nbg::kHeaderSize, file, " is truncated: ", size, " bytes, the header alone has ",
              nbg::kHeaderSize);
  const auto major = static_cast<uint16_t>(le_at(bytes, 8, 2)), minor = static_cast<uint16_t>(le_at(bytes, 10, 2));
  NABLA_CHECK(major == nbg::kMajor, file, ": format version ", major, ".", minor,
              major > nbg::kMajor ? " is newer than" : " is not", " what this nabla reads (version ", nbg::kMajor,
              ".x, up to ", nbg::kMajor, ".", nbg::kMinor, ")");
  const uint32_t header_crc = static_cast<uint32_t>(le_at(bytes, 40, 4));
  NABLA_CHECK(nbg::crc32(bytes.data(), 40) == header_crc, file, ": the header checksum does not match (the file is corrupt)");
  const uint32_t flags = static_cast<uint32_t>(le_at(bytes, 12, 4));
  NABLA_CHECK(flags == 0, file, ": unknown header flags 0x", std::hex, flags, "; version ", nbg::kMajor, ".",
              nbg::kMinor, " defines none");
  const uint64_t table_size = le_at(bytes, 16, 8), data_size = le_at(bytes, 24, 8);
  const uint64_t body = size - nbg::kHeaderSize;
  NABLA_CHECK(table_size <= body && data_size <= body - table_size, file, " is truncated: the header announces ",
              table_size, " bytes of node table and ", data_size, " bytes of data, the file has ", body,
              " bytes after the header");
  NABLA_CHECK(table_size + data_size == body, file, ": ", body - table_size - data_size,
              " unexpected bytes after the data section");
  const std::string_view table(bytes.data() + nbg::kHeaderSize, table_size);
  const std::string_view data(bytes.data() + nbg::kHeaderSize + table_size, data_size);
  NABLA_CHECK(nbg::crc32(table.data(), table.size()) == static_cast<uint32_t>(le_at(bytes, 32, 4)), file,
              ": the node table's checksum does not match (the file is corrupt)");
  NABLA_CHECK(nbg::crc32(data.data(), data.size()) == static_cast<uint32_t>(le_at(bytes, 36, 4)), file,
              ": the data section's checksum does not match (the file is corrupt)");

  auto g = std::make_shared<GraphData>();
  Reader r(table, file + ": node table");
  read_nodes(r, Context{data, minor}, file, 0, g);
  NABLA_CHECK(r.left() == 0, file, ": ", r.left(), " unexpected bytes after the last node record");
  for (const Node& n : g->nodes)
    g->unknown_dims |= n.kind == NodeKind::Placeholder && has_unknown_dims(n.metas[0].sizes);
  for (std::size_t id = 0; id < g->nodes.size(); ++id)
    NABLA_CHECK(g->nodes[id].kind != NodeKind::Gradients || g->unknown_dims, file, ": node ", id, " '",
                g->nodes[id].name, "' (gradients) is in a graph without unknown dims, where gradients are expanded");
  return Graph(std::move(g));
}

}  // namespace

Graph load(const std::string& path) { return load_as(path, "graph::load"); }

Session Session::load(const std::string& path, Device device) {
  Graph g = load_as(path, "graph::Session::load");
  Session s(g, device);
  const GraphData& data = *g.data();
  for (std::size_t id = 0; id < data.nodes.size(); ++id) {
    if (data.nodes[id].kind != NodeKind::Variable) continue;
    // A placed variable lives on its own device (a Session without a
    // transport has every node in this process: check_placements said so).
    const Device at = s.placed() ? s.placement_of_user_node(static_cast<int>(id)).device : device;
    s.variables_[static_cast<int>(id)] = data.nodes[id].value.to(at, false, /*copy=*/true);
  }
  return s;
}

}  // namespace nabla::graph
