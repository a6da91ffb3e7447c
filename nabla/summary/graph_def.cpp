#include "nabla/summary/graph_def.h"

#include "nabla/graph/node.h"
#include "nabla/graph/print.h"
#include "nabla/summary/proto/tensorboard.pb.h"

namespace nabla::summary {
namespace {

// TensorFlow's op names for the kinds that have one, so the Graphs tab shows
// familiar boxes; nabla's own name otherwise.
std::string op_name(const graph::Node& n) {
  using graph::NodeKind;
  switch (n.kind) {
    case NodeKind::Op: return n.op ? std::string(n.op->name) : "Op";
    case NodeKind::Placeholder: return "Placeholder";
    case NodeKind::Constant: return "Const";
    case NodeKind::Variable: return "VariableV2";
    case NodeKind::Initializer: return "NoOp";
    case NodeKind::Assign: return "Assign";
    case NodeKind::AssignAdd: return "AssignAdd";
    case NodeKind::AssignSub: return "AssignSub";
    case NodeKind::Group: return "NoOp";
    case NodeKind::Cond: return "If";
    case NodeKind::While: return "While";
    case NodeKind::WhileGrad: return "WhileGrad";
    case NodeKind::Effect: return "Effect";
    case NodeKind::Gradients: return "Gradients";
  }
  return "Unknown";
}

pb::DataType tf_dtype(DType t) {
  switch (t) {
    case DType::Bool: return pb::DT_BOOL;
    case DType::UInt8: return pb::DT_UINT8;
    case DType::Int32: return pb::DT_INT32;
    case DType::Int64: return pb::DT_INT64;
    case DType::Float16: return pb::DT_HALF;
    case DType::BFloat16: return pb::DT_BFLOAT16;
    case DType::Float32: return pb::DT_FLOAT;
    case DType::Float64: return pb::DT_DOUBLE;
  }
  return pb::DT_INVALID;
}

}  // namespace

std::string encode_graph_def(const graph::GraphData& g) {
  pb::GraphDef def;
  def.mutable_versions()->set_producer(22);  // what torch.utils.tensorboard writes
  for (int id = 0; id < static_cast<int>(g.nodes.size()); ++id) {
    const graph::Node& n = g.nodes[static_cast<std::size_t>(id)];
    pb::NodeDef* nd = def.add_node();
    nd->set_name(n.name);
    nd->set_op(op_name(n));
    for (const graph::ValueRef& in : n.inputs) {
      const std::string& src = g.nodes[static_cast<std::size_t>(in.node)].name;
      nd->add_input(in.output == 0 ? src : src + ":" + std::to_string(in.output));
    }
    for (int c : n.control_inputs) nd->add_input("^" + g.nodes[static_cast<std::size_t>(c)].name);
    auto& attrs = *nd->mutable_attr();
    // TensorBoard labels edges with "_output_shapes" (-1: an unknown dim).
    if (!n.metas.empty()) {
      pb::AttrValue::ListValue* shapes = attrs["_output_shapes"].mutable_list();
      for (const OutputMeta& m : n.metas) {
        pb::TensorShapeProto* s = shapes->add_shape();
        for (int64_t d : m.sizes) s->add_dim()->set_size(d);
      }
      attrs["dtype"].set_type(tf_dtype(n.metas[0].dtype));
    }
    // nabla's own one-line description: attributes and the source line.
    attrs["nabla"].set_s(graph::node_text(g, id));
  }
  return def.SerializeAsString();
}

}  // namespace nabla::summary
