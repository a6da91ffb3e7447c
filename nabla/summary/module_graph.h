// The graph a Module's forward makes, for the Graphs tab
// (SummaryWriter::add_graph(module, example_input)).
#pragma once
#include "nabla/core/tensor.h"
#include "nabla/graph/graph.h"

namespace nabla::nn {
class Module;
}

namespace nabla::summary {

// Traces module.forward in eval mode (the inference graph: no BatchNorm
// running-statistics updates, no dropout) on a
// placeholder shaped like `example_input` (graph::trace, as compile() does;
// the input's values are not read), leaving the module's training flags,
// buffers and the random generator as they were, and
// names the nodes after the module structure, so TensorBoard groups them:
// a parameter "features.0.weight" becomes the node "features.0/weight", and
// an op that reads a module's parameters (directly, or through ops on them
// alone such as a transpose) goes into that module's group ("features.0/conv2d").
// Ops on activations alone (a functional relu, an add of two branches) keep
// their op names: nabla has no forward hooks to say which module ran them.
graph::Graph trace_module_graph(nn::Module& module, const Tensor& example_input);

}  // namespace nabla::summary
