// Bad inputs of the factories: plain tests of the arange checks that come
// before the op runs (they also count as the op table's error inputs below):
// arange of a range that is not one of numbers (PyTorch: "unsupported range")
// reported a negative dimension of -9223372036854775808 or "empty in the wrong
// direction"; a count beyond int64 gave the same negative dimension.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/nabla.h"
#include "support/error_inputs.h"
#include "support/error_message.h"
#include "support/opaque_backend.h"
#include "support/special_values.h"

namespace nabla::testing {
namespace {

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

// ---- the factory and random ops of the op table ------------------------------
namespace nabla::testing {
namespace {

constexpr int64_t kHuge = int64_t(1) << 50;  // 2^50 elements: the allocator refuses them
constexpr int64_t kOverflow = int64_t(1) << 62;

// A device that is not present (the opaque backend has two), registered first
// so that the message is about the index.
Device absent_device() {
  opaque_device();
  return Device(DeviceType::Opaque, 5);
}

NABLA_ERROR_INPUTS({
    {"full", "zeros", "a negative size", [] { zeros({2, -1}); }, {"negative dimension in size [2, -1]"}},
    {"full", "ones", "more elements than int64 holds", [] { ones({kOverflow, kOverflow}); },
     {"has more elements than fit in int64"}},
    {"full", "full", "more memory than there is", [] { full({kHuge}, 1.5); }, {"out of memory", "[1125899906842624]"}},
    {"full", "zeros", "an absent device", [] { zeros({2}, device(absent_device())); },
     {"device opaque:5 does not exist", "the devices present are"}},
});

NABLA_ERROR_INPUTS({
    {"arange", "arange", "an infinite end", [] { arange(0.0, std::numeric_limits<double>::infinity()); },
     {"is not a range of numbers"}},
    {"arange", "arange", "a zero step", [] { arange(0, 5, 0); }, {"step must be nonzero"}},
    {"arange", "arange", "a range in the wrong direction", [] { arange(5, 0); }, {"empty in the wrong direction"}},
    {"arange", "arange", "more elements than a tensor holds", [] { arange(0, 1e30); }, {"more than a tensor can hold"}},
    {"arange", "arange", "an absent device", [] { arange(3, device(absent_device())); },
     {"device opaque:5 does not exist"}},
});

NABLA_ERROR_INPUTS({
    {"linspace", "linspace", "negative steps", [] { linspace(0, 1, -1); }, {"steps must be >= 0, got -1"}},
    {"linspace", "linspace", "more memory than there is", [] { linspace(0, 1, kHuge); }, {"out of memory"}},
    {"linspace", "linspace", "an absent device", [] { linspace(0, 1, 3, device(absent_device())); },
     {"device opaque:5 does not exist"}},
});

NABLA_ERROR_INPUTS({
    {"eye", "eye", "a negative n", [] { eye(-1); }, {"n must be >= 0, got -1"}},
    {"eye", "eye", "a negative m", [] { eye(2, -3); }, {"m must be >= 0, got -3"}},
    {"eye", "eye", "more elements than int64 holds", [] { eye(kOverflow); }, {"has more elements than fit in int64"}},
    {"eye", "eye", "an absent device", [] { eye(2, std::nullopt, device(absent_device())); },
     {"device opaque:5 does not exist"}},
});

NABLA_ERROR_INPUTS({
    {"rand", "rand", "an integer dtype", [] { rand({2}, dtype(kInt64)); },
     {"expected a floating point dtype, got int64"}},
    {"rand", "rand", "a negative size", [] { rand({-3}); }, {"negative dimension in size [-3]"}},
    {"rand", "rand", "more memory than there is", [] { rand({kHuge}); }, {"out of memory"}},
    {"rand", "rand_like", "an undefined input", [] { rand_like(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"rand", "rand", "an absent device", [] { rand({2}, device(absent_device())); },
     {"device opaque:5 does not exist"}},
});

NABLA_ERROR_INPUTS({
    {"normal", "randn", "an integer dtype", [] { randn({2}, dtype(kInt32)); },
     {"expected a floating point dtype, got int32"}},
    {"normal", "normal", "a negative std", [] { normal(0.0, -1.0, {2}); }, {"std must be >= 0, got -1"}},
    {"normal", "randn", "a negative size", [] { randn({-3}); }, {"negative dimension in size [-3]"}},
    {"normal", "randn_like", "an undefined input", [] { randn_like(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"normal", "normal", "an absent device", [] { normal(0, 1, {2}, device(absent_device())); },
     {"device opaque:5 does not exist"}},
});

NABLA_ERROR_INPUTS({
    {"randint", "randint", "low equal to high", [] { randint(3, 3, {2}); }, {"expected low < high, got low=3 high=3"}},
    {"randint", "randint", "low above high", [] { randint(5, -5, {2}); }, {"expected low < high"}},
    {"randint", "randint", "a negative size", [] { randint(0, 2, {-1}); }, {"negative dimension in size [-1]"}},
    {"randint", "randint", "an absent device", [] { randint(0, 2, {2}, TensorOptions(kInt64).device(absent_device())); },
     {"device opaque:5 does not exist"}},
});

NABLA_ERROR_INPUTS({
    {"bernoulli_scalar", "bernoulli", "p above 1", [] { bernoulli({2}, 1.5); }, {"p must be in [0, 1], got 1.5"}},
    {"bernoulli_scalar", "bernoulli", "a negative p", [] { bernoulli({2}, -0.25); }, {"p must be in [0, 1]"}},
    {"bernoulli_scalar", "bernoulli", "a nan p", [] { bernoulli({2}, std::nan("")); }, {"p must be in [0, 1]"}},
    {"bernoulli_scalar", "bernoulli", "a negative size", [] { bernoulli({-2}, 0.5); },
     {"negative dimension in size [-2]"}},
});

NABLA_ERROR_INPUTS({
    {"bernoulli", "bernoulli", "an undefined p", [] { bernoulli(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"bernoulli", "bernoulli", "an element of p above 1", [] { bernoulli(tensor({0.5, 1.5})); },
     {"p must be in [0, 1], got 1.5 at flat index 1"}},
    {"bernoulli", "bernoulli", "a nan in p", [] { bernoulli(tensor({std::nan("")})); }, {"p must be in [0, 1], got nan"}},
    {"bernoulli", "bernoulli", "a p on the device with an element below 0",
     [] { bernoulli(tensor({-0.5, 0.5}).to(opaque_device())); }, {"p must be in [0, 1], got -0.5"}},
    {"bernoulli", "bernoulli", "more memory than there is", [] { bernoulli(huge_view()); }, {"out of memory"}},
});

NABLA_ERROR_INPUTS({
    {"randperm", "randperm", "a negative n", [] { randperm(-1); }, {"n must be >= 0, got -1"}},
    {"randperm", "randperm", "more memory than there is", [] { randperm(kHuge); }, {"out of memory"}},
    {"randperm", "randperm", "an absent device", [] { randperm(4, TensorOptions(kInt64).device(absent_device())); },
     {"device opaque:5 does not exist"}},
});

}  // namespace
}  // namespace nabla::testing
