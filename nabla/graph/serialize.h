// Saved graphs: a Graph with its variables in one `.nbg` file, loadable in
// another process without the code that built it. The format is documented
// in docs/nbg-format.md: a fixed header (magic, version, section sizes,
// CRC-32s), a binary node table and a tensor data section.
//
//   graph::save(g, "model.nbg");            // variables with their initial values
//   sess.save("model.nbg");                 // variables with the session's values (trained)
//   auto sess = graph::Session::load("model.nbg");       // variables hold the saved values
//   Tensor y = sess.run(sess.graph().tensor("y_pred"), {{sess.graph().tensor("x"), x}});
//
// Writes are atomic (AtomicFile): a failed save leaves an existing file
// untouched. Loading never runs anything from the file: every length, offset,
// index, dtype, shape and checksum is checked, ops are looked up by name in
// the op table and each op node's metas are recomputed with the op's own
// inference; anything wrong raises nabla::Error naming the file and the field.
#pragma once
#include <string>
#include <unordered_map>

#include "nabla/graph/session.h"

namespace nabla::graph {

// The unoptimized graph, every variable saved with its initial value.
void save(const Graph& graph, const std::string& path);
// The session's graph, every variable saved with its current value in the
// session (its initial value if the session has not initialized it).
void save(const Session& session, const std::string& path);

// The saved graph. Variables are uninitialized, as in a new graph: running
// global_variables_initializer() (or Session::load) gives them the saved values.
Graph load(const std::string& path);

namespace detail {
// The writer behind both save()s: `values` (node id -> tensor) replaces the
// initial values of the variables it names. Writes what it is given without
// judging the graph's structure (the reader does), so tests can write
// malformed graphs.
void write_nbg(const GraphData& graph, const std::unordered_map<int, Tensor>& values, const std::string& path);
}  // namespace detail

}  // namespace nabla::graph
