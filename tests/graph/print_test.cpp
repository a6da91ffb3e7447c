// Graph::to_text / to_dot: one line per node with op, inputs, attributes,
// dtype, shape and source line; Graphviz with one edge per input.
#include <gtest/gtest.h>

#include <string>

#include "nabla/nabla.h"

namespace nabla::graph {
namespace {

TEST(GraphPrint, ToTextOneLinePerNode) {
  Graph g;
  const int line = __LINE__ + 1;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  Tensor y = sum(relu(x), {1});
  Tensor w = g.variable(zeros({2}), "w");
  Tensor upd = assign_add(w, y);
  (void)upd;
  const std::string at = "  @ print_test.cpp:" + std::to_string(line);
  const std::string at_w = "  @ print_test.cpp:" + std::to_string(line + 2);
  const std::string at_upd = "  @ print_test.cpp:" + std::to_string(line + 3);
  EXPECT_EQ(g.to_text(),
            "x = placeholder() : float32[2, 3]" + at + "\n" +
                "relu = relu(x) : float32[2, 3]\n"
                "sum = sum(relu) {dims=[1], keepdim=false} : float32[2]\n" +
                "w = variable() : float32[2]" + at_w + "\n" +
                "w_assign_add = assign_add(target=w, sum) : float32[2]" + at_upd + "\n");
}

TEST(GraphPrint, LocationScopeLinesControlInputsAndScalars) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  LocationScope at;  // op nodes below record this line
  const int line = __LINE__ - 1;
  Tensor y = clamp(x, -0.5, 2.0);
  std::string text = g.to_text();
  EXPECT_NE(text.find("clamp = clamp(x) {min=-0.5, max=2} : float64[3]  @ print_test.cpp:" + std::to_string(line)),
            std::string::npos)
      << text;
  (void)y;
}

TEST(GraphPrint, ToDotHasNodesAndEdges) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {4}, "x");
  Tensor y = exp(x) * x;
  (void)y;
  std::string dot = g.to_dot();
  EXPECT_EQ(dot.rfind("digraph nabla {", 0), 0u) << dot;
  EXPECT_NE(dot.find("n0 [label=\"x\\nplaceholder\\nfloat32[4]\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("n0 -> n1;"), std::string::npos) << dot;  // x -> exp
  EXPECT_NE(dot.find("n1 -> n2;"), std::string::npos) << dot;  // exp -> mul
  EXPECT_NE(dot.find("n0 -> n2;"), std::string::npos) << dot;  // x -> mul
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

}  // namespace
}  // namespace nabla::graph
