// Bad input to optimizers and schedulers raises nabla::Error naming the class,
// the value given and what was expected.
#include <functional>
#include <string>

#include "optim/problem.h"

namespace nabla::optim {
namespace {

void expect_error(const std::function<void()>& f, std::vector<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << parts[0];
  } catch (const Error& e) {
    const std::string m = e.what();
    for (const auto& p : parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
  }
}

TEST(OptimErrors, HyperParametersOutOfRange) {
  Tensor w = ones({2}, requires_grad());
  expect_error([&] { SGD({w}, {{"lr", -0.1}}); }, {"SGD", "lr = -0.1", "lr >= 0"});
  expect_error([&] { SGD({w}, {{"lr", 0.1}, {"nesterov", 1}}); }, {"SGD", "nesterov", "momentum > 0"});
  expect_error([&] { SGD({w}, {{"lr", 0.1}, {"momentun", 0.9}}); }, {"SGD", "unknown option 'momentun'", "momentum"});
  expect_error([&] { Adam({w}, {{"beta1", 1.0}}); }, {"Adam", "beta1 = 1", "[0, 1)"});
  expect_error([&] { AdamW({w}, {{"beta2", -0.5}}); }, {"AdamW", "beta2 = -0.5", "[0, 1)"});
  expect_error([&] { Adam({w}, {{"eps", -1e-8}}); }, {"Adam", "eps", "eps >= 0"});
  expect_error([&] { Adam({w}, {{"amsgrad", 2}}); }, {"Adam", "amsgrad = 2", "0 (false) or 1 (true)"});
  expect_error([&] { RMSprop({w}, {{"alpha", -0.1}}); }, {"RMSprop", "alpha = -0.1", "alpha >= 0"});
  expect_error([&] { RMSprop({w}, {{"weight_decay", -1}}); }, {"RMSprop", "weight_decay = -1"});
  expect_error([&] { Adagrad({w}, {{"lr_decay", -1}}); }, {"Adagrad", "lr_decay = -1", "lr_decay >= 0"});
  SGD ok({w}, {{"lr", 0.1}});
  expect_error([&] { ok.add_param_group(ParamGroup({ones({1}, requires_grad())}, {{"lr", -1}})); },
               {"SGD", "lr = -1"});
}

TEST(OptimErrors, BadParameterLists) {
  Tensor w = ones({2}, requires_grad());
  expect_error([&] { SGD(std::vector<Tensor>{}, {{"lr", 0.1}}); }, {"SGD", "empty parameter list", "at least one"});
  expect_error([&] { Adam(std::vector<ParamGroup>{}); }, {"Adam", "empty parameter list"});
  expect_error([&] { Adam({w * 2.0}); }, {"Adam", "not a leaf", "shape [2]"});
  expect_error([&] { Adam({arange(3)}); }, {"Adam", "int64", "floating-point"});
  expect_error([&] { Adam({Tensor()}); }, {"Adam", "undefined"});
  expect_error([&] { SGD({w, w}, {{"lr", 0.1}}); }, {"SGD", "more than once"});
  expect_error([&] { SGD({ParamGroup({w}), ParamGroup({w})}, {{"lr", 0.1}}); }, {"SGD", "more than once"});
}

TEST(OptimErrors, SchedulerArguments) {
  Tensor w = ones({2}, requires_grad());
  SGD sgd({w}, {{"lr", 0.1}});
  Adagrad adagrad({w});
  expect_error([&] { StepLR(sgd, 0); }, {"StepLR", "step_size = 0", "step_size > 0"});
  expect_error([&] { MultiStepLR(sgd, {5, 2}); }, {"MultiStepLR", "[5, 2]", "increasing"});
  expect_error([&] { CosineAnnealingLR(sgd, 0); }, {"CosineAnnealingLR", "T_max = 0"});
  expect_error([&] { LinearLR(sgd, 0.0); }, {"LinearLR", "start_factor = 0", "(0, 1]"});
  expect_error([&] { LinearLR(sgd, 0.5, 1.5); }, {"LinearLR", "end_factor = 1.5", "[0, 1]"});
  expect_error([&] { OneCycleLR(sgd, 0.1, OneCycleOptions{}); }, {"OneCycleLR", "total_steps = 0"});
  expect_error([&] { OneCycleLR(adagrad, 0.1, OneCycleOptions{.total_steps = 5}); },
               {"OneCycleLR", "Adagrad", "momentum"});
  expect_error([&] { OneCycleLR(sgd, std::vector<double>{0.1, 0.2}, OneCycleOptions{.total_steps = 5}); },
               {"OneCycleLR", "2 values of max_lr", "one per parameter group (1)"});
  OneCycleLR cycle(sgd, 0.1, OneCycleOptions{.total_steps = 2});
  cycle.step();
  cycle.step();
  expect_error([&] { cycle.step(); }, {"OneCycleLR", "3 times", "total_steps = 2"});
  expect_error([&] { ReduceLROnPlateau(sgd, PlateauOptions{.factor = 1.0}); },
               {"ReduceLROnPlateau", "factor = 1", "[0, 1)"});
  expect_error([&] { ReduceLROnPlateau(sgd, PlateauOptions{.mode = "up"}); },
               {"ReduceLROnPlateau", "'up'", "'min' or 'max'"});
}

}  // namespace
}  // namespace nabla::optim
