// compile() of training steps: backward() and optimizer steps inside the
// compiled function. Twin models (same initial parameters) trained eagerly
// and through compile() must stay equal step after step, share the
// optimizer's state, and mix with eager steps; mistakes a compiled step
// cannot reproduce (gradients accumulated across calls) are clear errors.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/error_message.h"
#include "tests/support/max_abs_diff.h"

namespace nabla {
namespace {

using nabla::testing::assert_close;

using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::max_abs_diff;

std::shared_ptr<nn::Sequential> make_mlp(DType dtype) {
  auto model = std::make_shared<nn::Sequential>(nn::Linear(6, 8), nn::ReLU(), nn::Linear(8, 3));
  model->to(dtype);
  return model;
}

// A second model with the same parameters.
std::shared_ptr<nn::Sequential> twin_of(const nn::Sequential& model, DType dtype) {
  auto twin = make_mlp(dtype);
  twin->load_state_dict(model.state_dict());
  return twin;
}

double max_param_diff(nn::Module& a, nn::Module& b) {
  auto pa = a.parameters(), pb = b.parameters();
  EXPECT_EQ(pa.size(), pb.size());
  double m = 0;
  for (std::size_t i = 0; i < pa.size(); ++i) m = std::max(m, max_abs_diff(pa[i], pb[i]));
  return m;
}

// The seed step: zero_grad, forward, loss, backward, step; returns the loss.
Tensor train_step(nn::Module& model, optim::Optimizer& opt, const Tensor& x, const Tensor& y) {
  opt.zero_grad();
  Tensor loss = mse_loss(model.forward(x), y, "sum");
  loss.backward();
  opt.step();
  return loss;
}

void expect_trains_like_eager(DType dtype, double tol, const std::function<std::unique_ptr<optim::Optimizer>(
                                                           std::vector<Tensor>)>& make_opt) {
  manual_seed(3);
  auto eager = make_mlp(dtype);
  auto compiled = twin_of(*eager, dtype);
  auto eager_opt = make_opt(eager->parameters());
  auto compiled_opt = make_opt(compiled->parameters());
  int traced = 0;
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    ++traced;
    return {train_step(*compiled, *compiled_opt, in[0], in[1])};
  });
  for (int i = 0; i < 6; ++i) {
    Tensor x = randn({5, 6}, TensorOptions().dtype(dtype)), y = randn({5, 3}, TensorOptions().dtype(dtype));
    Tensor eager_loss = train_step(*eager, *eager_opt, x, y);
    Tensor compiled_loss = step({x, y})[0];
    EXPECT_FALSE(compiled_loss.is_symbolic());
    assert_close(compiled_loss, eager_loss.detach(),
                 {.rtol = 0.0, .atol = tol * std::abs(eager_loss.item<double>()), .msg = ::nabla::detail::concat(i)});
    EXPECT_LE(max_param_diff(*compiled, *eager), tol) << "after step " << i;
  }
  EXPECT_EQ(traced, 1);
  // The optimizer's state is the eager one: step counts and buffers.
  EXPECT_EQ(compiled_opt->state(0, 0).step, 6);
  for (const auto& [name, buffer] : eager_opt->state(0, 0).buffers)
    assert_close(compiled_opt->state(0, 0).buffers.at(name), buffer,
                 {.rtol = 0.0, .atol = tol, .msg = ::nabla::detail::concat(name)});
  // Gradients stay in the graph: nothing traced is left in .grad().
  for (const Tensor& p : compiled->parameters()) EXPECT_FALSE(p.grad().defined() && p.grad().is_symbolic());
}

TEST(CompileTraining, AdamStepEqualsEagerInFloat64) {
  expect_trains_like_eager(kFloat64, 1e-12, [](std::vector<Tensor> ps) {
    return std::make_unique<optim::Adam>(std::move(ps), optim::Options{{"lr", 1e-2}});
  });
}

TEST(CompileTraining, AdamStepEqualsEagerInFloat32) {
  expect_trains_like_eager(kFloat32, 1e-5, [](std::vector<Tensor> ps) {
    return std::make_unique<optim::Adam>(std::move(ps), optim::Options{{"lr", 1e-2}});
  });
}

TEST(CompileTraining, SgdWithMomentumAndWeightDecayEqualsEager) {
  expect_trains_like_eager(kFloat64, 1e-12, [](std::vector<Tensor> ps) {
    return std::make_unique<optim::SGD>(std::move(ps),
                                        optim::Options{{"lr", 1e-2}, {"momentum", 0.9}, {"weight_decay", 1e-3}});
  });
}

TEST(CompileTraining, LearningRateChangesApplyToLaterCompiledRuns) {
  manual_seed(4);
  auto model = make_mlp(kFloat64);
  auto twin = twin_of(*model, kFloat64);
  optim::SGD opt(model->parameters(), {{"lr", 0.05}});
  optim::SGD twin_opt(twin->parameters(), {{"lr", 0.05}});
  optim::StepLR sched(opt, 2, 0.5), twin_sched(twin_opt, 2, 0.5);
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {train_step(*model, opt, in[0], in[1])};
  });
  for (int i = 0; i < 5; ++i) {
    Tensor x = randn({4, 6}, kFloat64), y = randn({4, 3}, kFloat64);
    step({x, y});
    train_step(*twin, twin_opt, x, y);
    sched.step();
    twin_sched.step();
    EXPECT_LE(max_param_diff(*model, *twin), 1e-12) << i;
  }
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].lr(), 0.05 * 0.25);
}

TEST(CompileTraining, ManualParameterUpdatesAreTraced) {
  // The seed's hand-written update: w -= lr * w.grad() under no_grad, then zero_grad.
  manual_seed(5);
  auto model = make_mlp(kFloat64);
  auto twin = twin_of(*model, kFloat64);
  const double lr = 1e-2;
  auto manual_step = [lr](nn::Module& m, const Tensor& x, const Tensor& y) {
    Tensor loss = mse_loss(m.forward(x), y, "sum");
    loss.backward();
    {
      NoGradGuard no_grad;
      for (Tensor& p : m.parameters()) p.sub_(p.grad() * lr);
    }
    m.zero_grad();
    return loss;
  };
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {manual_step(*model, in[0], in[1])};
  });
  for (int i = 0; i < 4; ++i) {
    Tensor x = randn({4, 6}, kFloat64), y = randn({4, 3}, kFloat64);
    Tensor a = step({x, y})[0];
    Tensor b = manual_step(*twin, x, y);
    assert_close(a, b.detach(), {.rtol = 0.0, .atol = 1e-12});
    EXPECT_LE(max_param_diff(*model, *twin), 1e-12) << i;
  }
}

TEST(CompileTraining, CompiledAndEagerStepsMixAndNewSignaturesRetrace) {
  manual_seed(6);
  auto model = make_mlp(kFloat64);
  auto twin = twin_of(*model, kFloat64);
  optim::Adam opt(model->parameters(), {{"lr", 1e-2}});
  optim::Adam twin_opt(twin->parameters(), {{"lr", 1e-2}});
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {train_step(*model, opt, in[0], in[1])};
  });
  for (int i = 0; i < 6; ++i) {
    const int64_t batch = i % 2 ? 3 : 5;  // two signatures
    Tensor x = randn({batch, 6}, kFloat64), y = randn({batch, 3}, kFloat64);
    if (i == 2)
      train_step(*model, opt, x, y);  // an eager step in between
    else
      step({x, y});
    train_step(*twin, twin_opt, x, y);
    EXPECT_LE(max_param_diff(*model, *twin), 1e-12) << i;
  }
  EXPECT_EQ(step.num_traces(), 2);
  EXPECT_EQ(opt.state(0, 0).step, 6);
}

TEST(CompileTraining, LossReturnedIsTheOneBeforeTheUpdateAndLaterReadsSeeIt) {
  // Values computed after opt.step() in the same function read the updated
  // parameters, as eager code would.
  manual_seed(7);
  auto model = make_mlp(kFloat64);
  auto twin = twin_of(*model, kFloat64);
  optim::SGD opt(model->parameters(), {{"lr", 0.1}});
  optim::SGD twin_opt(twin->parameters(), {{"lr", 0.1}});
  auto step_and_eval = [](nn::Module& m, optim::Optimizer& o, const Tensor& x, const Tensor& y) {
    Tensor before = train_step(m, o, x, y);
    Tensor after = mse_loss(m.forward(x), y, "sum");
    return std::vector<Tensor>{before, after};
  };
  auto step = compile([&](const std::vector<Tensor>& in) { return step_and_eval(*model, opt, in[0], in[1]); });
  Tensor x = randn({4, 6}, kFloat64), y = randn({4, 3}, kFloat64);
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> a = step({x, y});
    std::vector<Tensor> b = step_and_eval(*twin, twin_opt, x, y);
    assert_close(a[0], b[0].detach(), {.rtol = 0.0, .atol = 1e-12});
    assert_close(a[1], b[1].detach(), {.rtol = 0.0, .atol = 1e-12});
    EXPECT_LT(a[1].item<double>(), a[0].item<double>());  // one SGD step on the same batch lowers it
  }
}

TEST(CompileTraining, GradientsThatWouldAccumulateAcrossCallsAreAnError) {
  manual_seed(8);
  auto model = make_mlp(kFloat64);
  optim::SGD opt(model->parameters(), {{"lr", 0.1}});
  // No zero_grad anywhere: eager calls would add up gradients.
  auto no_zero = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor loss = mse_loss(model->forward(in[0]), in[1], "sum");
    loss.backward();
    opt.step();
    return {loss};
  });
  Tensor x = randn({4, 6}, kFloat64), y = randn({4, 3}, kFloat64);
  expect_error(error_of([&] { no_zero({x, y}); }),
               {"compile (compiled at compile_training_test.cpp:", "never zero_grad()", "optimizer.zero_grad()"});
  for (const Tensor& p : model->parameters()) EXPECT_FALSE(p.grad().defined());
  // zero_grad after the step is fine.
  auto zero_after = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor loss = mse_loss(model->forward(in[0]), in[1], "sum");
    loss.backward();
    opt.step();
    opt.zero_grad();
    return {loss};
  });
  Tensor first = zero_after({x, y})[0];
  EXPECT_LT(zero_after({x, y})[0].item<double>(), first.item<double>());
  // A gradient left from eager code before the compiled function's backward.
  mse_loss(model->forward(x), y, "sum").backward();
  auto no_zero_before = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor loss = mse_loss(model->forward(in[0]), in[1], "sum");
    loss.backward();
    return {loss};
  });
  expect_error(error_of([&] { no_zero_before({x, y}); }),
               {"compile (compiled at", "already has a gradient from before the compiled function ran",
                "zero_grad()"});
  // backward() of something no parameter reaches.
  auto no_params = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor loss = sum(in[0] * 2.0);
    loss.backward();
    return {loss};
  });
  expect_error(error_of([&] { no_params({x}); }), {"compile (compiled at", "does not depend on any tensor that requires grad"});
  // A non-scalar loss without a gradient.
  auto non_scalar = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    model->zero_grad();
    Tensor out = model->forward(in[0]);
    out.backward();
    return {out};
  });
  expect_error(error_of([&] { non_scalar({x}); }), {"compile (compiled at", "only for scalar outputs", "[4, 3]"});
}

TEST(CompileTraining, AStepOfADestroyedOptimizerIsAnError) {
  manual_seed(9);
  auto model = make_mlp(kFloat64);
  auto opt = std::make_unique<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.1}});
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {train_step(*model, *opt, in[0], in[1])};
  });
  Tensor x = randn({4, 6}, kFloat64), y = randn({4, 3}, kFloat64);
  step({x, y});
  opt.reset();
  expect_error(error_of([&] { step({x, y}); }), {"optimizer that has been destroyed", "SGD.step"});
}

TEST(CompileTraining, TheTracedGraphHasOneStepNodeAndSteadyStateRunsDoNotAllocate) {
  manual_seed(10);
  auto model = make_mlp(kFloat32);
  optim::Adam opt(model->parameters(), {{"lr", 1e-3}});
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {train_step(*model, opt, in[0], in[1])};
  });
  Tensor x = randn({8, 6}), y = randn({8, 3});
  step({x, y});
  std::string text = step.graph_text({x, y});
  EXPECT_NE(text.find("Adam.step = effect("), std::string::npos) << text;
  EXPECT_NE(text.find("parameter"), std::string::npos) << text;
  for (int i = 0; i < 3; ++i) step({x, y});
  const AllocatorStats before = cpu_allocator_stats();
  for (int i = 0; i < 10; ++i) step({x, y});
  const AllocatorStats after = cpu_allocator_stats();
  EXPECT_EQ(after.system_allocations, before.system_allocations);
  EXPECT_EQ(after.bytes_reserved, before.bytes_reserved);
}

TEST(CompileTraining, ACondOnDataInsideATrainingStepPicksTheBranchAtEachRun) {
  // The branch depends on the batch: graph::cond decides per run; gradients
  // flow through the taken branch to the parameters it captured.
  manual_seed(12);
  Tensor w = randn({3}, kFloat64).requires_grad_();
  Tensor w_twin = w.detach().clone().requires_grad_();
  optim::SGD opt({w}, {{"lr", 0.1}});
  optim::SGD twin_opt({w_twin}, {{"lr", 0.1}});
  auto step = compile([&](const Tensor& x) {
    opt.zero_grad();
    Tensor loss = graph::cond(sum(x) > 0.0, [&] { return sum(x * w * w); }, [&] { return sum(exp(w) - x); });
    loss.backward();
    opt.step();
    return loss;
  });
  for (int i = 0; i < 6; ++i) {
    Tensor x = randn({3}, kFloat64) + (i % 2 ? 2.0 : -2.0);  // both branches
    Tensor got = step(x);
    twin_opt.zero_grad();
    Tensor want = sum(x).item<double>() > 0 ? sum(x * w_twin * w_twin) : sum(exp(w_twin) - x);
    want.backward();
    twin_opt.step();
    assert_close(got, want.detach(), {.rtol = 0.0, .atol = 1e-12, .msg = ::nabla::detail::concat(i)});
    assert_close(w.detach(), w_twin.detach(), {.rtol = 0.0, .atol = 1e-12, .msg = ::nabla::detail::concat(i)});
  }
  EXPECT_EQ(step.num_traces(), 1);
}

}  // namespace
}  // namespace nabla
