// Feeding an OpInfo sample to a graph: one placeholder ("in0", "in1", ...)
// per defined input, with the feeds that bind them to the sample's values.
// Undefined inputs (optional tensors left out) pass through unchanged.
#pragma once
#include <string>

#include "nabla/nabla.h"
#include "support/op_info.h"

namespace nabla::testing {

inline Tensors placeholders_for(graph::Graph& g, const Tensors& in, graph::Feeds& feeds) {
  Tensors symbolic;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!in[i].defined()) {
      symbolic.push_back(in[i]);
      continue;
    }
    symbolic.push_back(g.placeholder(in[i].dtype(), in[i].sizes(), "in" + std::to_string(i)));
    feeds.emplace_back(symbolic.back(), in[i]);
  }
  return symbolic;
}

}  // namespace nabla::testing
