// Bad input to the recurrent layers raises nabla::Error naming the API and
// what was given.
#include <gtest/gtest.h>

#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"

namespace {

using namespace nabla;
using nabla::testing::error_of;
using nabla::testing::expect_error;

TEST(RnnErrors, Construction) {
  expect_error(error_of([] { nn::LSTM(0, 4); }), {"nn::LSTM", "positive", "0"});
  expect_error(error_of([] { nn::GRU(3, 4, {.dropout = 1.5}); }), {"nn::GRU", "dropout", "1.5"});
  expect_error(error_of([] { nn::RNN(3, 4, {.nonlinearity = "sigmoid"}); }), {"nn::RNN", "sigmoid"});
  expect_error(error_of([] { nn::RNNCell(3, 4, true, "gelu"); }), {"nn::RNNCell", "gelu"});
  expect_error(error_of([] { nn::LSTM(3, 4, {.nonlinearity = "relu"}); }), {"nn::LSTM", "nn::RNN only", "relu"});
  expect_error(error_of([] { nn::LSTM(3, 4, {.proj_size = 4}); }), {"nn::LSTM", "proj_size", "[1, 4)", "got 4"});
  expect_error(error_of([] { nn::GRU(3, 4, {.proj_size = 2}); }), {"nn::GRU", "proj_size", "nn::LSTM only"});
  expect_error(error_of([] { nn::GRUCell(3, -1); }), {"nn::GRUCell", "-1"});
}

TEST(RnnErrors, WrongInputSizeOrRank) {
  nn::LSTM lstm(3, 4);
  expect_error(error_of([&] { lstm(randn({5, 2, 7})); }), {"nn::LSTM", "[T, N, 3]", "[5, 2, 7]"});
  expect_error(error_of([&] { lstm(randn({5})); }), {"nn::LSTM", "[5]"});
  expect_error(error_of([&] { lstm(randn({5, 2, 3}, dtype(kFloat64))); }), {"nn::LSTM", "float64", "float32"});
  nn::GRUCell cell(3, 4);
  expect_error(error_of([&] { cell(randn({2, 5})); }), {"nn::GRUCell", "[N, 3]", "[2, 5]"});
}

TEST(RnnErrors, WrongStateShape) {
  nn::LSTM lstm(3, 4, {.num_layers = 2});
  Tensor x = randn({5, 2, 3});
  expect_error(error_of([&] {
                 lstm.forward(x, {randn({1, 2, 4}), Tensor()});
               }),
               {"nn::LSTM", "h0", "[2, 2, 4]", "[1, 2, 4]"});
  expect_error(error_of([&] { lstm.forward(x, {Tensor(), randn({2, 3, 4})}); }), {"nn::LSTM", "c0", "[2, 3, 4]"});
  nn::LSTM proj(3, 4, {.proj_size = 2});  // h0 [1, N, 2], c0 [1, N, 4]
  expect_error(error_of([&] { proj.forward(x, {randn({1, 2, 4}), Tensor()}); }), {"nn::LSTM", "h0", "[1, 2, 2]"});
  EXPECT_EQ(proj.forward(x, {randn({1, 2, 2}), randn({1, 2, 4})}).output.sizes(), Shape({5, 2, 2}));
  nn::GRU gru(3, 4, {.bidirectional = true});
  expect_error(error_of([&] { gru.forward(x, randn({1, 2, 4})); }), {"nn::GRU", "[2, 2, 4]"});
  nn::LSTMCell cell(3, 4);
  expect_error(error_of([&] {
                 cell.forward(randn({2, 3}), {randn({2, 5}), Tensor()});
               }),
               {"nn::LSTMCell", "h", "[2, 4]", "[2, 5]"});
}

TEST(RnnErrors, BadLengths) {
  nn::GRU gru(3, 4);
  Tensor x = randn({5, 3, 3});
  auto lens = [](std::vector<int64_t> v) { return tensor(v); };
  expect_error(error_of([&] { gru.forward(x, Tensor(), lens({2, 6, 1})); }), {"nn::GRU", "lengths[1] = 6", "[1, 5]"});
  expect_error(error_of([&] { gru.forward(x, Tensor(), lens({2, 0, 1})); }), {"nn::GRU", "lengths[1] = 0"});
  expect_error(error_of([&] { gru.forward(x, Tensor(), lens({2, 3})); }), {"nn::GRU", "lengths", "[3]", "[2]"});
  expect_error(error_of([&] { gru.forward(x, Tensor(), randn({3})); }), {"nn::GRU", "int32/int64", "float32"});
  expect_error(error_of([&] { gru.forward(randn({5, 3}), Tensor(), lens({2})); }), {"nn::GRU", "batched"});
}

}  // namespace
