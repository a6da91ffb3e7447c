// Graphs with unknown dims (a placeholder of shape {-1, 784}) are built as a
// recipe: an op on a value with an unknown dim is one node whose shape was
// checked with stand-in sizes (unknown_dims.h), a composite op stays one node
// and gradients() stays one Gradients node, because what they expand into
// depends on the sizes (a mean divides by the batch size, a broadcast's
// gradient sums to the input's shape). Before such a graph runs, the Session
// specializes it to the shapes actually fed: it replays the user's graph node
// by node into a new graph, calling each op again on values of known shape,
// so composites, promotions and gradient rules expand exactly as they would
// have with those sizes given at build time. One specialization per set of
// fed shapes, cached by the Session (TensorFlow retraces the same way).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "nabla/graph/node.h"
#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// The shape a placeholder of the user's graph takes in the replay (given its
// node id), or nullopt to keep the one it was built with.
using PlaceholderShapes = std::function<std::optional<Shape>(int node)>;

// A replay of a user graph: its nodes remade in `graph`.
struct Replay {
  std::shared_ptr<GraphData> graph;
  // Per node of `graph`: the user node it was made for (-1: a node an op's
  // expansion made, not one of the user's).
  std::vector<int> origin;
  // Per user node, per output: the value of `graph` standing for it (an
  // undefined tensor where a Gradients output has no gradient); one entry
  // for a no-value node.
  std::vector<TensorList> values;
};

// Replays `user` with placeholders shaped by `shapes`. Assign targets and
// initializer lists keep the user's node ids (the Session's variables are
// keyed by them), as do the origins of variables. Errors from the ops (a
// shape that does not fit) are the ops' own, naming the user's source line.
Replay replay(const GraphData& user, const PlaceholderShapes& shapes);

// The replay as an OptGraph for the passes and the Session's plans.
OptGraph specialize(const GraphData& user, const PlaceholderShapes& shapes);

// Whether a shape has an unknown (-1) dim.
bool has_unknown_dims(const Shape& s);

}  // namespace nabla::graph
