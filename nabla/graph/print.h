// Printing graphs for people: to_text() gives one line per node,
//   name = op(inputs) {attrs} : dtype[shape]  @ file:line
// and to_dot() a Graphviz digraph. Graph::to_text()/to_dot() and the
// Session's optimized_graph_text() use these. See docs/graph.md.
#pragma once
#include <string>

#include "nabla/graph/node.h"

namespace nabla::graph {

// `targets` names the nodes that Node::target and Node::variables refer to:
// the graph itself for a user's graph, the user's graph for an optimized one
// (whose assigns still name the user's variables). Null means `g`.
std::string to_text(const GraphData& g, const GraphData* targets = nullptr);
std::string to_dot(const GraphData& g);

// A node kind as to_text() prints it ("op", "placeholder", "assign", "while",
// "while_grad", ...): the names error messages use too.
const char* node_kind_name(NodeKind k);

// One node's line of to_text() (without the newline).
std::string node_text(const GraphData& g, int id, const GraphData* targets = nullptr);

}  // namespace nabla::graph
