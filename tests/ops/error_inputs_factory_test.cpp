// Factories are not in the op table, so their bad inputs are plain tests:
// arange of a range that is not one of numbers (PyTorch: "unsupported range")
// reported a negative dimension of -9223372036854775808 or "empty in the wrong
// direction"; a count beyond int64 gave the same negative dimension.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/nabla.h"
#include "support/error_message.h"

namespace nabla::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ErrorInputsFactory, ArangeOfAnInfiniteOrNanRange) {
  for (auto [start, end] : {std::pair{0.0, kInf}, {0.0, -kInf}, {-kInf, 0.0}, {0.0, std::nan("")}}) {
    std::string msg = error_of([&] { arange(start, end); });
    expect_error(msg, {"arange: the range [", "is not a range of numbers", "expected finite start and end"});
    EXPECT_EQ(msg.find("negative dimension"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("wrong direction"), std::string::npos) << msg;
  }
  expect_error(error_of([] { arange(0, 5, std::nan("")); }), {"arange:", "with step nan"});
}

TEST(ErrorInputsFactory, ArangeWithMoreElementsThanATensorHolds) {
  std::string msg = error_of([] { arange(0, 1e30); });
  expect_error(msg, {"arange: the range [0, 1e+30) with step 1 has 1e+30 elements", "more than a tensor can hold"});
  expect_error(error_of([] { arange(0.0, 1.0, 1e-300); }), {"arange:", "more than a tensor can hold"});
}

TEST(ErrorInputsFactory, ArangeStillRefusesTheWrongDirection) {
  expect_error(error_of([] { arange(5, 0); }), {"arange:", "empty in the wrong direction"});
  expect_error(error_of([] { arange(0, 5, 0); }), {"arange: step must be nonzero"});
  EXPECT_EQ(arange(0, 5, kInf).numel(), 0);  // PyTorch: an empty range
}

// The *_like factories and bernoulli read their argument's shape: an undefined
// one is named by them (was "Tensor::dtype: called on an undefined tensor").
TEST(ErrorInputsFactory, LikeFactoriesNameThemselvesForAnUndefinedSource) {
  Tensor u;
  expect_error(error_of([&] { empty_like(u); }), {"empty_like: input 0 is an undefined tensor"});
  expect_error(error_of([&] { zeros_like(u); }), {"zeros_like: input 0 is an undefined tensor"});
  expect_error(error_of([&] { ones_like(u); }), {"ones_like: input 0 is an undefined tensor"});
  expect_error(error_of([&] { full_like(u, 2.0); }), {"full_like: input 0 is an undefined tensor"});
  expect_error(error_of([&] { rand_like(u); }), {"rand_like: input 0 is an undefined tensor"});
  expect_error(error_of([&] { randn_like(u); }), {"randn_like: input 0 is an undefined tensor"});
  expect_error(error_of([&] { bernoulli(u); }), {"bernoulli: input 0 is an undefined tensor"});
}

}  // namespace
}  // namespace nabla::testing
