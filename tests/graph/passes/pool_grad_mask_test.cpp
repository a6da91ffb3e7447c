// mask_before_max_pool_backward: threshold_backward(max_pool2d_backward(g,
// idx), r) with idx from max_pool2d(r) runs as max_pool2d_backward(
// threshold_backward(g, pooled), idx), bit for bit the unrewritten values
// (ties, NaN, -inf, -0, overlapping and padded windows, channels-last), and
// only when the pattern is exactly that.
#include "nabla/graph/passes/pool_grad_mask.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "nabla/graph/passes/dead_code.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;
using testing::count_ops;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Same dtype, shape and bytes (NaN payloads and the sign of zero included).
void expect_bitwise(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  Tensor a = got.contiguous(), b = want.contiguous();
  EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), static_cast<std::size_t>(a.numel()) * itemsize(a.dtype())), 0)
      << what;
}

struct Case {
  int64_t h, w, k, s, p;
  bool ceil_mode;
  double threshold;
};

// r: small integers (ties everywhere), NaN, -inf, -0 and a plane of
// negatives only; g: normal values with NaN and -0 among them.
Tensor make_r(Shape sizes, DType dt) {
  Tensor r = randint(-2, 3, sizes).to(dt);
  r = where(rand(sizes) < 0.05, full_like(r, kNaN), r);
  r = where(rand(sizes) < 0.05, full_like(r, -kInf), r);
  r = where(rand(sizes) < 0.05, full_like(r, -0.0), r);
  r = r.contiguous();
  r.select(0, 0).select(0, 0).fill_(-1.5);  // every window of this plane is negative
  return r;
}
Tensor make_g(Shape sizes, DType dt) {
  Tensor g = randn(sizes, dt);
  g = where(rand(sizes) < 0.05, full_like(g, kNaN), g);
  g = where(rand(sizes) < 0.05, full_like(g, -0.0), g);
  return g.contiguous();
}

TEST(GraphPassPoolGradMask, BitwiseTheUnrewrittenGradient) {
  const Case cases[] = {
      {8, 8, 2, 2, 0, false, 0.0},    // the CNN block: 2x2, stride 2
      {9, 11, 2, 2, 0, false, 0.0},   // odd sizes: a last row and column no window reads
      {9, 11, 3, 2, 1, false, 0.0},   // overlapping windows with padding
      {7, 6, 2, 1, 0, false, 0.5},    // stride 1 (each element in up to 4 windows), another threshold
      {7, 7, 3, 2, 0, true, -1.0},    // ceil_mode: windows half outside
      {10, 9, 3, 3, 1, false, 0.0},   // non-overlapping 3x3 with padding
  };
  manual_seed(11);
  for (DType dt : {kFloat32, kFloat64})
    for (bool channels_last : {false, true})
      for (const Case& c : cases) {
        const Shape rs{2, 3, c.h, c.w};
        Graph graph;
        Tensor r = graph.placeholder(dt, rs, "r");
        auto [pooled, idx] = max_pool2d_with_indices(r, {c.k}, {c.s}, {c.p}, {1}, c.ceil_mode);
        Tensor g = graph.placeholder(dt, pooled.sizes(), "g");
        Tensor out = threshold_backward(max_pool2d_backward(g, idx, rs), r, c.threshold);
        const std::string what = ::nabla::detail::concat(dt, channels_last ? " channels-last " : " ", c.h, "x", c.w,
                                                         " k", c.k, " s", c.s, " p", c.p, " ceil ", c.ceil_mode);
        OptGraph o = copy_of_user_graph(*graph.data());
        std::vector<ValueRef> fetches = {value_of(out)->ref};
        prune_to_fetches(o, fetches);
        EXPECT_EQ(mask_before_max_pool_backward(o, fetches), 1) << what;
        // The mask now reads the pooled map and the scatter reads the mask.
        for (const Node& n : o.graph.nodes) {
          if (n.kind != NodeKind::Op) continue;
          if (n.op->name == "threshold_backward") EXPECT_EQ(n.metas[0].sizes, pooled.sizes()) << what;
          if (n.op->name == "max_pool2d_backward")
            EXPECT_EQ(o.node(n.inputs[0].node).op->name, "threshold_backward") << what;
        }

        Tensor rv = make_r(rs, dt), gv = make_g(pooled.sizes(), dt);
        if (channels_last) rv = contiguous(rv, MemoryFormat::ChannelsLast), gv = contiguous(gv, MemoryFormat::ChannelsLast);
        auto [pv, iv] = max_pool2d_with_indices(rv, {c.k}, {c.s}, {c.p}, {1}, c.ceil_mode);
        Tensor want = threshold_backward(max_pool2d_backward(gv, iv, rs), rv, c.threshold);  // eager: unrewritten
        Session sess(graph);
        expect_bitwise(sess.run(out, {{r, rv}, {g, gv}}), want, what);
        SessionOptions off;
        off.optimize = false;
        Session plain(graph, off);
        expect_bitwise(plain.run(out, {{r, rv}, {g, gv}}), want, what + " (unoptimized)");
      }
}

TEST(GraphPassPoolGradMask, OnlyTheExactPattern) {
  auto pattern = [](bool fetch_scatter, bool second_use, bool other_mask_input, bool other_pool_input) {
    Graph graph;
    Tensor r = graph.placeholder(kFloat32, {1, 2, 6, 6}, "r");
    Tensor r2 = graph.placeholder(kFloat32, {1, 2, 6, 6}, "r2");
    auto [pooled, idx] = max_pool2d_with_indices(other_pool_input ? r2 : r, {2});
    Tensor g = graph.placeholder(kFloat32, {1, 2, 3, 3}, "g");
    Tensor scatter = max_pool2d_backward(g, idx, {1, 2, 6, 6});
    Tensor out = threshold_backward(scatter, other_mask_input ? r2 : r, 0.0);
    std::vector<Tensor> fetched = {out};
    if (fetch_scatter) fetched.push_back(scatter);
    if (second_use) fetched.push_back(exp(scatter));
    OptGraph o = copy_of_user_graph(*graph.data());
    std::vector<ValueRef> fetches;
    for (const Tensor& t : fetched) fetches.push_back(value_of(t)->ref);
    prune_to_fetches(o, fetches);
    return mask_before_max_pool_backward(o, fetches);
  };
  EXPECT_EQ(pattern(false, false, false, false), 1);
  EXPECT_EQ(pattern(true, false, false, false), 0);  // the scatter is fetched
  EXPECT_EQ(pattern(false, true, false, false), 0);  // the scatter has a second use
  EXPECT_EQ(pattern(false, false, true, false), 0);  // the mask reads another value (equal or not)
  EXPECT_EQ(pattern(false, false, false, true), 0);  // the indices pool another value
}

// The pass inside real gradients: conv -> relu -> max_pool in float64, the
// Session's gradients (rewritten) against eager autograd's.
TEST(GraphPassPoolGradMask, GradientsOfAConvReluPoolBlockMatchAutograd) {
  manual_seed(3);
  Graph graph;
  Tensor x = graph.placeholder(kFloat64, {2, 3, 10, 9}, "x");
  Tensor w = graph.placeholder(kFloat64, {4, 3, 3, 3}, "w");
  auto block = [](const Tensor& x, const Tensor& w) {
    Tensor pooled = max_pool2d(relu(conv2d(x, w, Tensor(), {1}, {1})), {2});
    return (pooled * pooled).sum() + pooled.sum();
  };
  Tensor loss = block(x, w);
  std::vector<Tensor> grads = gradients(loss, {x, w});
  Tensor xv = randn({2, 3, 10, 9}, kFloat64), wv = randn({4, 3, 3, 3}, kFloat64);
  Session sess(graph);
  std::vector<Tensor> got = sess.run({grads[0], grads[1]}, {{x, xv}, {w, wv}});
  const std::string plan = sess.plan_text({grads[0], grads[1]}, {{x, xv}, {w, wv}});
  EXPECT_NE(plan.find("= max_pool2d_backward(gradients/threshold_backward"), std::string::npos) << plan;

  Tensor xe = xv.clone().requires_grad_(), we = wv.clone().requires_grad_();
  block(xe, we).backward();
  assert_close(got[0], xe.grad(), {.rtol = 1e-12, .atol = 1e-12});
  assert_close(got[1], we.grad(), {.rtol = 1e-12, .atol = 1e-12});
}

}  // namespace
}  // namespace nabla::graph
