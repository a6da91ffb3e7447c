// The graph walk of the ONNX exporter: the nodes the fetches need, in node
// order (a graph's nodes are made in dependency order), each placeholder an
// input, each variable and constant an initializer, each op node handed to
// its converter (op_export.cpp); then the model is checked as Python's
// onnx.checker.check_model(full_check=True) does (structure, then shape and
// type inference in strict mode) and written atomically.
#include "nabla/onnx/export.h"

#include <unordered_map>
#include <unordered_set>

#include "nabla/core/atomic_file.h"
#include "nabla/core/error.h"
#include "nabla/graph/print.h"
#include "nabla/graph/session.h"
#include "nabla/graph/trace.h"
#include "nabla/nn/module.h"
#include "nabla/onnx/op_export.h"
#include "onnx/checker.h"
#include "onnx/shape_inference/implementation.h"

namespace nabla::onnx {

namespace onnxpb = ::onnx;
using graph::GraphData;
using graph::Node;
using graph::NodeKind;
using graph::ValueRef;

namespace {

std::string value_name(const GraphData& g, ValueRef r) {
  const Node& n = g.nodes.at(static_cast<std::size_t>(r.node));
  return r.output == 0 ? n.name : n.name + ":" + std::to_string(r.output);
}

// A tensor type with known dims as numbers and unknown ones (-1) as
// symbolic dims named after the value ("x_dim0").
void set_type(onnxpb::ValueInfoProto& v, const std::string& name, DType dtype, const Shape& sizes,
              const std::string& where) {
  v.set_name(name);
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(detail::onnx_type(dtype, where));
  auto* shape = t->mutable_shape();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto* d = shape->add_dim();
    if (sizes[i] >= 0)
      d->set_dim_value(sizes[i]);
    else
      d->set_dim_param(name + "_dim" + std::to_string(i));
  }
}

// The nodes `fetches` depend on through data inputs.
std::vector<bool> needed_nodes(const GraphData& g, const std::vector<ValueRef>& fetches) {
  std::vector<bool> needed(g.nodes.size(), false);
  std::vector<int> stack;
  for (const ValueRef& r : fetches) stack.push_back(r.node);
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (id < 0 || needed[static_cast<std::size_t>(id)]) continue;
    needed[static_cast<std::size_t>(id)] = true;
    for (const ValueRef& in : g.nodes[static_cast<std::size_t>(id)].inputs) stack.push_back(in.node);
  }
  return needed;
}

// Python's onnx.checker.check_model(model, full_check=True): the structure,
// then shape and type inference that throws on any inconsistency.
void check(const onnxpb::ModelProto& model) {
  try {
    onnxpb::checker::check_model(model);
    onnxpb::ModelProto copy = model;
    onnxpb::shape_inference::InferShapes(copy, onnxpb::OpSchemaRegistry::Instance(),
                                         onnxpb::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    NABLA_CHECK(false, "onnx export: the ONNX checker refused the exported model (a bug in nabla's exporter; please "
                       "report it): ", e.what());
  }
}

}  // namespace

std::string export_graph_bytes(const graph::Graph& graph, const std::vector<Tensor>& fetches,
                               const ExportOptions& options, const graph::Session* session) {
  NABLA_CHECK(options.opset == 17, "onnx export: opset ", options.opset, " was asked for; only opset 17 is supported");
  NABLA_CHECK(!fetches.empty(), "onnx export: no fetches given; pass the values the model should output");
  NABLA_CHECK(options.output_names.empty() || options.output_names.size() == fetches.size(), "onnx export: ",
              options.output_names.size(), " output names given for ", fetches.size(), " fetches");
  const GraphData& g = *graph.data();
  std::vector<ValueRef> refs;
  std::unordered_set<std::string> fetched;
  for (std::size_t i = 0; i < fetches.size(); ++i) {
    graph::Value* v = graph::value_of(fetches[i]);
    NABLA_CHECK(v && v->graph == graph.data(), "onnx export: fetch ", i,
                " is not a value of this graph (expected a symbolic tensor made in it)");
    NABLA_CHECK(v->has_value, "onnx export: fetch ", i, " (", value_name(g, v->ref),
                ") has no value (a group or an initializer)");
    NABLA_CHECK(fetched.insert(value_name(g, v->ref)).second, "onnx export: ", value_name(g, v->ref),
                " is fetched twice");
    refs.push_back(v->ref);
  }

  onnxpb::ModelProto model;
  model.set_ir_version(onnxpb::IR_VERSION);
  model.set_producer_name("nabla");
  model.set_producer_version("0.1.0");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(options.opset);
  onnxpb::GraphProto& out = *model.mutable_graph();
  out.set_name(options.graph_name);

  std::vector<bool> needed = needed_nodes(g, refs);
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    if (!needed[id]) continue;
    const Node& n = g.nodes[id];
    std::string where = "node " + graph::describe(n);
    switch (n.kind) {
      case NodeKind::Placeholder:
        set_type(*out.add_input(), n.name, n.metas[0].dtype, n.metas[0].sizes, where);
        break;
      case NodeKind::Constant:
        detail::add_initializer(out, n.name, n.value, where);
        break;
      case NodeKind::Variable: {
        Tensor value = n.value;
        if (session) value = session->variable_value(graph::detail::value_tensor(graph.data(), {static_cast<int>(id), 0}));
        NABLA_CHECK(value.defined(), "onnx export: variable ", graph::describe(n),
                    " is drawn by an initializer and has no value yet; export with the Session that initialized it");
        detail::add_initializer(out, n.name, value, where);
        break;
      }
      case NodeKind::Op: {
        std::vector<std::string> ins;
        std::vector<DType> dtypes;
        std::vector<Shape> sizes;
        for (const ValueRef& r : n.inputs) {
          if (r.node < 0) {
            ins.emplace_back();
            dtypes.push_back(DType::Float32);
            sizes.emplace_back();
            continue;
          }
          const Node& src = g.nodes[static_cast<std::size_t>(r.node)];
          ins.push_back(value_name(g, r));
          const auto& meta = src.metas[static_cast<std::size_t>(r.output)];
          dtypes.push_back(meta.dtype);
          sizes.push_back(meta.sizes);
        }
        std::vector<std::string> outs;
        for (std::size_t k = 0; k < n.metas.size(); ++k) outs.push_back(value_name(g, {static_cast<int>(id), static_cast<int>(k)}));
        detail::OpContext c(out, n, std::move(ins), std::move(dtypes), std::move(sizes), std::move(outs));
        detail::convert_op(c);
        break;
      }
      default:
        NABLA_CHECK(false, "onnx export: node ", graph::describe(n), " (kind '", graph::node_kind_name(n.kind),
                    "') has no ONNX form (export the values it computes, without the graph's updates or "
                    "control flow)");
    }
  }

  // Every value the fetches read must have been made by a converter (a
  // converter may leave out an output ONNX has no form for).
  std::unordered_set<std::string> made;
  for (const auto& i : out.input()) made.insert(i.name());
  for (const auto& i : out.initializer()) made.insert(i.name());
  for (const auto& n : out.node())
    for (const auto& o : n.output()) made.insert(o);
  for (const auto& n : out.node())
    for (const auto& i : n.input())
      NABLA_CHECK(i.empty() || made.count(i), "onnx export: value ", i,
                  " is used but has no ONNX form (an op output the converter does not produce, such as max_pool2d's "
                  "indices)");

  for (std::size_t i = 0; i < refs.size(); ++i) {
    const auto& meta = g.nodes[static_cast<std::size_t>(refs[i].node)].metas[static_cast<std::size_t>(refs[i].output)];
    std::string name = value_name(g, refs[i]);
    NABLA_CHECK(made.count(name), "onnx export: fetch ", name, " has no ONNX form");
    if (!options.output_names.empty() && options.output_names[i] != name) {
      auto* id = out.add_node();
      id->set_op_type("Identity");
      id->set_name("output/" + options.output_names[i]);
      id->add_input(name);
      id->add_output(options.output_names[i]);
      name = options.output_names[i];
    }
    set_type(*out.add_output(), name, meta.dtype, meta.sizes, "fetch " + name);
  }

  check(model);
  std::string bytes;
  NABLA_CHECK(model.SerializeToString(&bytes), "onnx export: the model could not be serialized (over 2 GiB?)");
  return bytes;
}

void export_graph(const graph::Graph& g, const std::vector<Tensor>& fetches, const std::string& path,
                  const ExportOptions& options, const graph::Session* session) {
  std::string bytes = export_graph_bytes(g, fetches, options, session);
  AtomicFile f(path, "onnx::export_graph");
  f.write(bytes.data(), bytes.size());
  f.commit();
}

void export_function(const TensorsFn& fn, const std::vector<Tensor>& example_inputs, const std::string& path,
                     const ExportOptions& options) {
  graph::TracedGraph t = graph::trace(fn, example_inputs);
  export_graph(t.graph, t.outputs, path, options);
}

void export_module(nn::Module& module, const Tensor& example_input, const std::string& path,
                   const ExportOptions& options) {
  const bool was_training = module.is_training();
  module.eval();
  struct Restore {
    nn::Module& m;
    bool on;
    ~Restore() { m.train(on); }
  } restore{module, was_training};
  graph::TracedGraph t = graph::trace([&](const std::vector<Tensor>& xs) { return std::vector<Tensor>{module.forward(xs[0])}; },
                                      {example_input});
  ExportOptions o = options;
  if (o.output_names.empty()) o.output_names = {"output"};
  graph::Graph& g = t.graph;
  g.set_name(t.inputs[0], "input");
  export_graph(g, t.outputs, path, o);
}

}  // namespace nabla::onnx
