// A nabla graph as TensorFlow's GraphDef, the message TensorBoard's Graphs tab
// draws (Event.graph_def). Used by SummaryWriter::add_graph.
#pragma once
#include <string>

namespace nabla::graph {
struct GraphData;
}

namespace nabla::summary {

// The serialized GraphDef of `g`: one NodeDef per node (control-flow bodies
// are shown as their owner node, not expanded).
std::string encode_graph_def(const graph::GraphData& g);

}  // namespace nabla::summary
