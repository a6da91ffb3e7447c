// Helpers shared by the pass tests: count nodes of an optimized graph or
// strings in a plan's text.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "nabla/nabla.h"

namespace nabla::graph::testing {

inline int count_ops(const GraphData& g, std::string_view op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.kind == NodeKind::Op && node.op->name == op;
  return n;
}

// How many times `what` occurs in `text` (a plan's or graph's text).
inline int count_in(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

inline int count_kind(const GraphData& g, NodeKind k) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.kind == k;
  return n;
}

}  // namespace nabla::graph::testing
