// RNN, LSTM, GRU and their cells against PyTorch 1.13 (float64): outputs,
// final states and the gradients of input, initial state and every parameter,
// with PyTorch's parameter names. Values: tests/nn/rnn_reference_values.h.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "nabla/nabla.h"
#include "tests/nn/rnn_reference_values.h"
#include "tests/nn/rnn_test_util.h"

// gtest names a failing case by its name.
namespace nabla::nn::reference {
void PrintTo(const RecurrentCase& c, std::ostream* os) { *os << c.name; }
}  // namespace nabla::nn::reference

namespace {

using namespace nabla;
using nabla::nn::reference::RecurrentCase;
namespace ref = nabla::nn::reference;
using nabla::nn::testing::expect_values;
using nabla::nn::testing::fill;

struct CaseRun {
  std::shared_ptr<nn::Module> module;
  Tensor x, h0, c0;  // leaves (h0/c0 undefined without a state)
  Tensor output, h_n, c_n;
};

CaseRun run_case(const RecurrentCase& c, DType dt) {
  CaseRun r;
  std::string kind = c.kind;
  bool cell = kind.find("Cell") != std::string::npos, lstm = kind.rfind("LSTM", 0) == 0;
  int64_t D = c.bidirectional ? 2 : 1;
  if (cell) {
    if (kind == "LSTMCell")
      r.module = std::make_shared<nn::LSTMCell>(c.input_size, c.hidden_size, c.bias);
    else if (kind == "GRUCell")
      r.module = std::make_shared<nn::GRUCell>(c.input_size, c.hidden_size, c.bias);
    else
      r.module =
          std::make_shared<nn::RNNCell>(c.input_size, c.hidden_size, c.bias, kind == "RNNCell_TANH" ? "tanh" : "relu");
  } else {
    nn::RNNOptions o{.num_layers = c.num_layers,
                     .bias = c.bias,
                     .batch_first = c.batch_first,
                     .bidirectional = c.bidirectional,
                     .proj_size = c.proj_size};
    if (kind == "LSTM")
      r.module = std::make_shared<nn::LSTM>(c.input_size, c.hidden_size, o);
    else if (kind == "GRU")
      r.module = std::make_shared<nn::GRU>(c.input_size, c.hidden_size, o);
    else {
      o.nonlinearity = kind == "RNN_TANH" ? "tanh" : "relu";
      r.module = std::make_shared<nn::RNN>(c.input_size, c.hidden_size, o);
    }
  }
  r.module->to(dt);
  nn::testing::set_params(*r.module, ref::kParamScale);

  Shape state_shape = cell ? Shape{c.N, c.hidden_size} : Shape{c.num_layers * D, c.N, c.hidden_size};
  Shape h_shape = state_shape;
  if (c.proj_size) h_shape.back() = c.proj_size;  // h has proj_size features, c hidden_size
  Shape x_shape = cell            ? Shape{c.N, c.input_size}
                  : c.batch_first ? Shape{c.N, c.T, c.input_size}
                                  : Shape{c.T, c.N, c.input_size};
  r.x = fill(x_shape, ref::kFInput).to(dt).requires_grad_();
  if (c.with_state) {
    r.h0 = fill(h_shape, ref::kFH0).to(dt).requires_grad_();
    if (lstm) r.c0 = fill(state_shape, ref::kFC0).to(dt).requires_grad_();
  }
  Tensor lengths = c.lengths.empty() ? Tensor() : tensor(c.lengths);

  if (kind == "LSTMCell") {
    nn::LSTMState s = static_cast<nn::LSTMCell&>(*r.module).forward(r.x, {r.h0, r.c0});
    r.output = s.h, r.c_n = s.c;
  } else if (kind == "GRUCell") {
    r.output = static_cast<nn::GRUCell&>(*r.module).forward(r.x, r.h0);
  } else if (cell) {
    r.output = static_cast<nn::RNNCell&>(*r.module).forward(r.x, r.h0);
  } else if (kind == "LSTM") {
    auto [out, h_n, c_n] = static_cast<nn::LSTM&>(*r.module).forward(r.x, {r.h0, r.c0}, lengths);
    r.output = out, r.h_n = h_n, r.c_n = c_n;
  } else if (kind == "GRU") {
    auto [out, h_n] = static_cast<nn::GRU&>(*r.module).forward(r.x, r.h0, lengths);
    r.output = out, r.h_n = h_n;
  } else {
    auto [out, h_n] = static_cast<nn::RNN&>(*r.module).forward(r.x, r.h0, lengths);
    r.output = out, r.h_n = h_n;
  }
  return r;
}

class RnnReference : public ::testing::TestWithParam<RecurrentCase> {};

void check_case(const RecurrentCase& c, DType dt, double tol) {
  CaseRun r = run_case(c, dt);
  EXPECT_EQ(nn::testing::param_names(*r.module), c.param_names);
  expect_values(r.output, c.output, tol, "output");
  expect_values(r.h_n, c.h_n, tol, "h_n");
  expect_values(r.c_n, c.c_n, tol, "c_n");

  auto upstream = [&](const Tensor& t, const double(&f)[3]) { return fill(t.sizes(), f).to(dt); };
  Tensor loss = (r.output * upstream(r.output, ref::kFGradOut)).sum();
  if (r.h_n.defined()) loss = loss + (r.h_n * upstream(r.h_n, ref::kFGradH)).sum();
  if (r.c_n.defined()) loss = loss + (r.c_n * upstream(r.c_n, ref::kFGradC)).sum();
  loss.backward();
  expect_values(r.x.grad(), c.grad_input, tol, "grad input");
  if (r.h0.defined()) expect_values(r.h0.grad(), c.grad_h0, tol, "grad h0");
  if (r.c0.defined()) expect_values(r.c0.grad(), c.grad_c0, tol, "grad c0");
  auto params = r.module->named_parameters();
  ASSERT_EQ(params.size(), c.grad_params.size());
  for (std::size_t k = 0; k < params.size(); ++k)
    expect_values(params[k].second.grad(), c.grad_params[k], tol, "grad " + params[k].first);
}

TEST_P(RnnReference, MatchesPyTorch) { check_case(GetParam(), kFloat64, 1e-10); }
// The same computation in float32 (parameters, inputs and states rounded to float32).
TEST_P(RnnReference, MatchesPyTorchInFloat32) { check_case(GetParam(), kFloat32, 1e-5); }

INSTANTIATE_TEST_SUITE_P(PyTorch, RnnReference, ::testing::ValuesIn(ref::kRecurrentCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
