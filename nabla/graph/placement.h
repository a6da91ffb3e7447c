// Placement: which process and device a graph node runs on (TensorFlow's
// tf.device). A placement is written "opencl:0", "cpu" (a device of rank 0,
// the process that has no rank in its name) or "rank:1/cpu" (a device of
// another process of an MPI job; see graph::Transport). The Session
// partitions a placed graph by placement and moves only the values that
// cross from one to another (docs/graph.md, "Placement").
#pragma once
#include <string>

#include "nabla/core/device.h"

namespace nabla::graph {

struct Placement {
  int rank = 0;  // the process (MPI rank); 0 without "rank:"
  Device device;
  friend bool operator==(const Placement&, const Placement&) = default;
};

// Parses "[rank:R/]device"; a nabla::Error naming `api` for anything else.
Placement parse_placement(const std::string& spec, const std::string& api);

// `inner` written inside a scope of `outer`: a part `inner` leaves out comes
// from `outer` ("rank:1/cpu" then "opencl:0" is "rank:1/opencl:0"); an empty
// `inner` clears the placement (TensorFlow's tf.device(None)).
std::string merge_placement(const std::string& outer, const std::string& inner);

// The canonical text of a placement: "opencl:0", "rank:1/cpu".
std::string placement_text(const Placement& p);

}  // namespace nabla::graph
