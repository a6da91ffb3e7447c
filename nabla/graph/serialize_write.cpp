// Writing .nbg files (docs/nbg-format.md): the node table is built in
// memory, the tensors' bytes are checksummed where they lie and then written
// after it, all through AtomicFile.
#include <algorithm>
#include <bit>
#include <variant>
#include <vector>

#include "nabla/core/atomic_file.h"
#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/serialize.h"
#include "nabla/graph/serialize_format.h"
#include "nabla/graph/specialize.h"

static_assert(std::endian::native == std::endian::little, ".nbg I/O assumes a little-endian host");

namespace nabla::graph {

namespace {

using nbg::Writer;

void write_shape(Writer& w, const Shape& s) {
  w.u32(static_cast<uint32_t>(s.size()));
  for (int64_t d : s) w.i64(d);
}

std::string attrs_bytes(const Attrs& attrs) {
  Writer w;
  w.u32(static_cast<uint32_t>(attrs.size()));
  for (std::size_t k = 0; k < attrs.size(); ++k) {
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            w.u8(nbg::kAttrNone);
          } else if constexpr (std::is_same_v<T, int64_t>) {
            w.u8(nbg::kAttrInt);
            w.i64(v);
          } else if constexpr (std::is_same_v<T, double>) {
            w.u8(nbg::kAttrDouble);
            w.f64(v);  // the bits: NaN payloads, -0.0 and subnormals survive
          } else if constexpr (std::is_same_v<T, bool>) {
            w.u8(nbg::kAttrBool);
            w.u8(v ? 1 : 0);
          } else if constexpr (std::is_same_v<T, Shape>) {
            w.u8(nbg::kAttrShape);
            write_shape(w, v);
          } else if constexpr (std::is_same_v<T, DType>) {
            w.u8(nbg::kAttrDType);
            w.u8(nbg::dtype_code(v));
          } else if constexpr (std::is_same_v<T, Scalar>) {
            w.u8(nbg::kAttrScalar);
            if (v.is_bool()) {
              w.u8(nbg::kScalarBool);
              w.u8(v.to_int() != 0 ? 1 : 0);
            } else if (v.is_integral()) {
              w.u8(nbg::kScalarInt);
              w.i64(v.to_int());
            } else {
              w.u8(nbg::kScalarFloat);
              w.f64(v.to_double());
            }
          } else if constexpr (std::is_same_v<T, std::string>) {
            w.u8(nbg::kAttrString);
            w.str(v);
          } else {
            static_assert(sizeof(T) == 0, "an AttrValue alternative has no .nbg encoding");
          }
        },
        attrs[k]);
  }
  return std::move(w.data());
}

// One node record: its fields, each (tag, length, payload).
class Record {
 public:
  template <class Fill>
  void field(uint16_t tag, Fill&& fill) {
    Writer payload;
    fill(payload);
    w_.u16(tag);
    w_.u32(static_cast<uint32_t>(payload.size()));
    w_.bytes(payload.data());
    ++fields_;
  }
  void append_to(Writer& table) {
    table.u32(fields_);
    table.bytes(w_.data());
  }

 private:
  Writer w_;
  uint32_t fields_ = 0;
};

struct Blob {
  std::vector<Tensor> tensors;  // contiguous CPU tensors, in data-section order
  uint64_t size = 0;
  uint32_t crc = nbg::crc32_update(0, nullptr, 0);  // over each tensor where it lies
};

void write_nodes(Writer& table, const GraphData& g, const std::unordered_map<int, Tensor>& values, Blob& blob,
                 const std::string& where);

// A control-flow node's subgraphs: each its region (text for errors), its own
// node table (recursively), its params and its results.
void write_subgraphs(Writer& w, const Node& n, Blob& blob, const std::string& node_where) {
  w.u32(static_cast<uint32_t>(n.subgraphs.size()));
  for (std::size_t k = 0; k < n.subgraphs.size(); ++k) {
    const Subgraph& s = n.subgraphs[k];
    NABLA_CHECK(s.graph, node_where, ": subgraph ", k, " has no graph");
    w.str(s.graph->region);
    write_nodes(w, *s.graph, {}, blob, node_where + ": subgraph " + std::to_string(k));
    w.u32(static_cast<uint32_t>(s.params.size()));
    for (int p : s.params) w.u32(p < 0 ? nbg::kNoParam : static_cast<uint32_t>(p));
    w.u32(static_cast<uint32_t>(s.results.size()));
    for (const ValueRef& r : s.results) {
      w.u32(static_cast<uint32_t>(r.node));
      w.u32(static_cast<uint32_t>(r.output));
    }
  }
}

// Whether a value of `g` or of its subgraphs has an unknown dim (-1).
bool has_unknown_dims(const GraphData& g) {
  for (const Node& n : g.nodes) {
    for (const OutputMeta& m : n.metas)
      if (graph::has_unknown_dims(m.sizes)) return true;
    for (const Subgraph& s : n.subgraphs)
      if (has_unknown_dims(*s.graph)) return true;
  }
  return false;
}

// u32 node count, then one record per node of `g`. `values` (node id ->
// tensor) replaces the initial values of the variables it names.
void write_nodes(Writer& table, const GraphData& g, const std::unordered_map<int, Tensor>& values, Blob& blob,
                 const std::string& where) {
  table.u32(static_cast<uint32_t>(g.nodes.size()));
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    const Node& n = g.nodes[id];
    const std::string node_where = where + ": node " + std::to_string(id) + " '" + n.name + "'";
    NABLA_CHECK(n.kind != NodeKind::Effect, node_where, ": a step traced by compile() (an optimizer update) runs "
                "C++ code and cannot be saved; save a graph trained with graph::optimizers (optimizers.h) instead");
    Record r;
    // First, so that a 1.0 reader meets this critical field before the kind
    // code it does not know and says the file needs a newer nabla.
    if (detail::is_control_flow(n.kind))
      r.field(nbg::kCritical | nbg::kTagSubgraphs, [&](Writer& w) { write_subgraphs(w, n, blob, node_where); });
    r.field(nbg::kTagKind, [&](Writer& w) { w.u8(nbg::kind_code(n.kind, node_where)); });
    r.field(nbg::kTagName, [&](Writer& w) { w.bytes(n.name); });
    if (n.kind == NodeKind::Op) {
      NABLA_CHECK(n.op, node_where, ": op node without an op");
      r.field(nbg::kTagOp, [&](Writer& w) { w.bytes(n.op->name); });
    }
    if (n.kind == NodeKind::Gradients) {  // (number of ys, the ys given a gradient) as attributes
      std::string a = attrs_bytes(Attrs{AttrValue(static_cast<int64_t>(n.num_ys)),
                                        AttrValue(Shape(n.grad_ys_of.begin(), n.grad_ys_of.end()))});
      r.field(nbg::kTagAttrs, [&](Writer& w) { w.bytes(a); });
    }
    if (n.kind == NodeKind::Op || n.kind == NodeKind::While || n.kind == NodeKind::WhileGrad) {
      std::string a = attrs_bytes(n.attrs);
      r.field(nbg::kTagAttrs, [&](Writer& w) { w.bytes(a); });
    }
    if (!n.inputs.empty())
      r.field(nbg::kTagInputs, [&](Writer& w) {
        w.u32(static_cast<uint32_t>(n.inputs.size()));
        for (const ValueRef& in : n.inputs) {
          w.u32(static_cast<uint32_t>(in.node));
          w.u32(static_cast<uint32_t>(in.output));
        }
      });
    if (!n.control_inputs.empty())
      r.field(nbg::kTagControlInputs, [&](Writer& w) {
        w.u32(static_cast<uint32_t>(n.control_inputs.size()));
        for (int c : n.control_inputs) w.u32(static_cast<uint32_t>(c));
      });
    if (!n.metas.empty())
      r.field(nbg::kTagMetas, [&](Writer& w) {
        w.u32(static_cast<uint32_t>(n.metas.size()));
        for (const OutputMeta& m : n.metas) {
          w.u8(nbg::dtype_code(m.dtype));
          write_shape(w, m.sizes);
        }
      });
    if (n.stored_loc)
      r.field(nbg::kTagSource, [&](Writer& w) {
        w.str(n.stored_loc->file);
        w.u32(n.stored_loc->line);
      });
    else if (n.loc_known)
      r.field(nbg::kTagSource, [&](Writer& w) {
        w.str(n.loc.file_name());
        w.u32(n.loc.line());
      });
    if (n.kind == NodeKind::Constant || n.kind == NodeKind::Variable) {
      Tensor value = n.value;
      if (n.kind == NodeKind::Variable)
        if (auto it = values.find(static_cast<int>(id)); it != values.end()) value = it->second;
      NABLA_CHECK(value.defined() && !value.is_symbolic(), node_where, ": the ", nbg::kind_name(n.kind),
                  " has no concrete value to save",
                  n.kind == NodeKind::Variable ? " (save a Session that has initialized it)" : "");
      Tensor c = value.detach().cpu().contiguous();
      const uint64_t nbytes = static_cast<uint64_t>(c.numel()) * itemsize(c.dtype());
      r.field(nbg::kTagValue, [&](Writer& w) {
        w.u8(nbg::dtype_code(c.dtype()));
        write_shape(w, c.sizes());
        w.u64(blob.size);
        w.u64(nbytes);
      });
      blob.size += nbytes;
      if (nbytes > 0) blob.crc = nbg::crc32_update(blob.crc, c.raw_data(), nbytes);
      blob.tensors.push_back(std::move(c));
    }
    if (!n.device.empty()) r.field(nbg::kTagDevice, [&](Writer& w) { w.bytes(n.device); });
    if (n.kind == NodeKind::Variable) r.field(nbg::kTagTrainable, [&](Writer& w) { w.u8(n.trainable ? 1 : 0); });
    if (n.kind == NodeKind::Assign || n.kind == NodeKind::AssignAdd || n.kind == NodeKind::AssignSub)
      r.field(nbg::kTagTarget, [&](Writer& w) { w.u32(static_cast<uint32_t>(n.target)); });
    if (n.kind == NodeKind::Initializer)
      r.field(nbg::kTagVariables, [&](Writer& w) {
        w.u32(static_cast<uint32_t>(n.variables.size()));
        for (int v : n.variables) w.u32(static_cast<uint32_t>(v));
      });
    r.append_to(table);
  }
}

// Levels of subgraphs below `g` (0: no control flow).
int nesting(const GraphData& g) {
  int deepest = 0;
  for (const Node& n : g.nodes)
    for (const Subgraph& s : n.subgraphs)
      if (s.graph) deepest = std::max(deepest, 1 + nesting(*s.graph));
  return deepest;
}

// What the public saves refuse beyond write_nbg: files no reader would load.
void check_savable(const GraphData& g, const std::string& path, const char* api) {
  const int depth = nesting(g);
  NABLA_CHECK(depth <= nbg::kMaxNesting, api, ": '", path, "': cond / while_loop subgraphs nest ", depth,
              " levels deep; the .nbg format stores at most ", nbg::kMaxNesting);
}

bool placed(const GraphData& g) {
  for (const Node& n : g.nodes)
    if (!n.device.empty()) return true;
  return false;
}

}  // namespace

namespace detail {

void write_nbg(const GraphData& g, const std::unordered_map<int, Tensor>& values, const std::string& path) {
  const std::string where = "graph::save: '" + path + "'";
  Writer table;
  Blob blob;
  write_nodes(table, g, values, blob, where);

  Writer header;
  header.bytes(std::string_view(nbg::kMagic, sizeof nbg::kMagic));
  header.u16(nbg::kMajor);
  // The oldest minor version that holds the graph, so older readers read
  // what they can: 1.3 only for placed graphs, 1.2 only for unknown dims
  // (1.1 adds nothing to graphs without control flow and is what 1.1
  // readers expect).
  header.u16(placed(g) ? 3 : has_unknown_dims(g) ? 2 : 1);
  header.u32(0);  // flags, none defined
  header.u64(table.size());
  header.u64(blob.size);
  header.u32(nbg::crc32(table.data().data(), table.size()));
  header.u32(blob.crc);
  header.u32(nbg::crc32(header.data().data(), header.size()));

  AtomicFile file(path, "graph::save");
  file.write(header.data().data(), header.size());
  file.write(table.data().data(), table.size());
  for (const Tensor& t : blob.tensors) {
    const std::size_t nbytes = static_cast<std::size_t>(t.numel()) * itemsize(t.dtype());
    if (nbytes > 0) file.write(t.raw_data(), nbytes);
  }
  file.commit();
}

}  // namespace detail

void save(const Graph& graph, const std::string& path) {
  check_savable(*graph.data(), path, "graph::save");
  detail::write_nbg(*graph.data(), {}, path);
}

void save(const Session& session, const std::string& path) { session.save(path); }

void Session::save(const std::string& path) const {
  check_savable(*graph_, path, "Session::save");
  NABLA_CHECK(!options_.transport || options_.transport->world_size() == 1, "Session::save: '", path,
              "': this Session spans ", options_.transport ? options_.transport->world_size() : 1,
              " processes, each holding only its own variables; saving their values is not supported yet (save the "
              "graph with graph::save, or gather the values with Session::variable_value on each rank)");
  if (device_.is_cpu()) return detail::write_nbg(*graph_, variables_, path);
  auto on_host = variables_;  // a device session's variables, copied to the host to be written
  for (auto& [id, value] : on_host) value = value.cpu();
  detail::write_nbg(*graph_, on_host, path);
}

}  // namespace nabla::graph
