// transpose_matmul_results: permute(mm(permute(x), g)) is computed as
// mm(permute(g), x) — a contiguous result, no transposing copy — and only
// when the inner product is used by nothing else.
#include "nabla/graph/passes/transpose_matmul.h"

#include <gtest/gtest.h>

#include "nabla/graph/passes/dead_code.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using testing::count_ops;

TEST(GraphPassTransposeMatmul, LinearWeightGradientIsComputedContiguous) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {6, 5}, "x");
  Tensor gy = g.placeholder(kFloat64, {6, 3}, "gy");
  Tensor grad_w = matmul(x.t(), gy).t();  // what the gradient of a Linear weight looks like
  OptGraph o = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches = {value_of(grad_w)->ref};
  prune_to_fetches(o, fetches);
  EXPECT_EQ(count_ops(o.graph, "permute"), 2);
  EXPECT_EQ(transpose_matmul_results(o, fetches), 1);
  prune_to_fetches(o, fetches);
  EXPECT_EQ(count_ops(o.graph, "permute"), 1);  // xᵀ is gone, gᵀ is a view
  EXPECT_EQ(count_ops(o.graph, "mm"), 1);
  // Through a Session: a contiguous result equal to the eager one.
  Session sess(g);
  Tensor xv = randn({6, 5}, kFloat64), gv = randn({6, 3}, kFloat64);
  Tensor got = sess.run(grad_w, {{x, xv}, {gy, gv}});
  EXPECT_TRUE(got.is_contiguous());
  assert_close(got, matmul(xv.t(), gv).t(), {.rtol = 0.0, .atol = 1e-13});
  EXPECT_NE(sess.plan_text({grad_w}, {{x, xv}, {gy, gv}}).find("mm(permute"), std::string::npos)
      << sess.plan_text({grad_w}, {{x, xv}, {gy, gv}});
}

TEST(GraphPassTransposeMatmul, LeavesSharedOrFetchedProductsAndOtherShapesAlone) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {6, 5}, "x");
  Tensor gy = g.placeholder(kFloat64, {6, 3}, "gy");
  Tensor prod = matmul(x.t(), gy);
  Tensor t = prod.t();
  Tensor other = exp(prod);  // the product has a second use
  OptGraph o = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches = {value_of(t)->ref, value_of(other)->ref};
  prune_to_fetches(o, fetches);
  EXPECT_EQ(transpose_matmul_results(o, fetches), 0);
  // Fetched product.
  OptGraph o2 = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches2 = {value_of(t)->ref, value_of(prod)->ref};
  prune_to_fetches(o2, fetches2);
  EXPECT_EQ(transpose_matmul_results(o2, fetches2), 0);
  // The left operand is not a transpose.
  Graph h;
  Tensor a = h.placeholder(kFloat64, {5, 6}, "a");
  Tensor b = h.placeholder(kFloat64, {6, 3}, "b");
  Tensor c = matmul(a, b).t();
  OptGraph o3 = copy_of_user_graph(*h.data());
  std::vector<ValueRef> fetches3 = {value_of(c)->ref};
  prune_to_fetches(o3, fetches3);
  EXPECT_EQ(transpose_matmul_results(o3, fetches3), 0);
}

}  // namespace
}  // namespace nabla::graph
