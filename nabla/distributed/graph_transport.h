// The graph::Transport over MPI: a graph placed over several processes
// ("rank:1/cpu", graph::DeviceScope) moves its crossing values as MPI
// point-to-point messages (MPI_Isend / MPI_Irecv on a communicator of its
// own), received within distributed::timeout() or a nabla::Error.
//
//   graph::SessionOptions options;
//   options.transport = distributed::graph_transport();
//   graph::Session session(graph, options);  // every rank, the same graph
#pragma once
#include <memory>

#include "nabla/graph/transport.h"

namespace nabla::distributed {

// Every process of the job (needs distributed::init()); a collective call:
// every rank makes it, in the same order as its other collectives.
std::shared_ptr<graph::Transport> graph_transport();

}  // namespace nabla::distributed
