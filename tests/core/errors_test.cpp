// Every class of user mistake raises nabla::Error naming the op, what was
// given and what was expected (issue 2, section 6).
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>

#include "nabla/nabla.h"
#include "support/absent_device.h"
#include "support/opaque_backend.h"

namespace nabla {
namespace {

// Runs fn, expects nabla::Error, and checks the message holds every fragment.
template <class Fn>
void expect_throws_with(Fn&& fn, std::initializer_list<const char*> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected nabla::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    for (const char* f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "missing '" << f << "' in: " << msg;
  }
}

TEST(Errors, ShapeMismatch) {
  expect_throws_with([] { ones({2, 3}) + ones({4}); }, {"add", "[2, 3]", "[4]", "broadcast"});
  expect_throws_with([] { mm(ones({2, 3}), ones({4, 5})); }, {"mm", "[2, 3]", "[4, 5]", "cannot be multiplied"});
  expect_throws_with([] { ones({6}).view({4, -1}); }, {"view", "[4, -1]", "size 6"});
  expect_throws_with([] { ones({2, 3}).expand({4, 3, 2}); }, {"expand", "[2, 3]", "[4, 3, 2]"});
}

TEST(Errors, WrongDtype) {
  expect_throws_with([] { where(ones({2}), ones({2}), ones({2})); }, {"where", "condition", "bool", "float32"});
  expect_throws_with([] { mean(arange(4)); }, {"mean", "floating point", "int64"});
  expect_throws_with([] { ones({2}, dtype(kInt64)).requires_grad_(); }, {"requires_grad", "floating point", "int64"});
  expect_throws_with([] { ones({2}).data_ptr<double>(); }, {"data_ptr", "float32", "float64"});
  expect_throws_with(
      [] {
        Tensor i = ones({2}, dtype(kInt64));
        i.add_(ones({2}) * 0.5);
      },
      {"add_", "float32", "int64"});
}

TEST(Errors, DimOutOfRange) {
  expect_throws_with([] { ones({2, 3}).sum({2}); }, {"sum", "dim 2", "out of range", "2 dims"});
  expect_throws_with([] { ones({2, 3}).transpose(0, -3); }, {"transpose", "dim -3", "[-2, 1]"});
  expect_throws_with([] { ones({2, 3}).size(5); }, {"size", "dim 5"});
  expect_throws_with([] { ones({2}).permute({0, 0}); }, {"permute"});
}

TEST(Errors, IndexOutOfRange) {
  expect_throws_with([] { ones({2, 3}).select(1, 3); }, {"select", "index 3", "size 3"});
  expect_throws_with([] { ones({2, 3}).at<float>({0, 7}); }, {"select", "index 7"});
  expect_throws_with([] { ones({4}).narrow(0, 2, 5); }, {"narrow", "start 2", "length 5"});
}

TEST(Errors, NegativeSizes) {
  expect_throws_with([] { zeros({2, -1}); }, {"zeros", "negative", "[2, -1]"});
  expect_throws_with([] { randn({-3}); }, {"randn", "negative", "[-3]"});
}

TEST(Errors, SizesWhoseProductOverflows) {
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  expect_throws_with([&] { empty({big, 4}); }, {"empty", "int64"});
  expect_throws_with([] { zeros({int64_t(1) << 40, int64_t(1) << 40}); }, {"zeros", "int64"});
}

TEST(Errors, EmptyInputWhereElementsAreNeeded) {
  expect_throws_with([] { zeros({0}).max(); }, {"max", "empty"});
  expect_throws_with([] { amin(zeros({3, 0}), {1}); }, {"amin", "size 0"});
  expect_throws_with([] { zeros({0}).item<float>(); }, {"item", "0 elements"});
}

TEST(Errors, BackwardOnNonScalarWithoutGradient) {
  Tensor x = ones({3}, requires_grad());
  expect_throws_with([&] { (x * 2.0).backward(); }, {"backward", "scalar", "[3]"});
  expect_throws_with([&] { (x * 2.0).backward(ones({2})); }, {"backward", "[2]", "[3]"});
  expect_throws_with([] { ones({1}).backward(); }, {"backward", "does not require grad"});
}

TEST(Errors, MixingDevices) {
  Tensor other = zeros({2}).to(testing::opaque_device(0));
  expect_throws_with([&] { ones({2}) + other; }, {"add", "one device", "cpu", "opaque:0"});
  expect_throws_with([&] { other + ones({2}); }, {"add", "one device", "cpu", "opaque:0"});
  expect_throws_with([&] { other.data_ptr<float>(); }, {"opaque:0", "not host-addressable"});
  expect_throws_with([&] { other.to(testing::opaque_device(2)); },
                     {"Tensor::to", "opaque:2", "does not exist", "opaque:1"});
  const Device absent = testing::absent_cuda_device();  // cuda:0 without a GPU
  const std::string absent_text = absent.str() + " " + testing::absent_cuda_words();
  expect_throws_with([&] { make_empty({2}, kFloat32, absent); },
                     {absent_text.c_str(), cuda::unavailable_reason().c_str()});
  expect_throws_with([] { Device("tpu"); }, {"Device", "tpu", "expected"});
}

TEST(Errors, InPlaceOnLeafThatRequiresGrad) {
  Tensor w = ones({2}, requires_grad());
  expect_throws_with([&] { w.add_(1.0); }, {"add_", "leaf", "requires grad", "in-place"});
  expect_throws_with([&] { w.mul_(ones({2})); }, {"mul_", "leaf"});
  NoGradGuard g;
  w.add_(1.0);  // fine without recording
  EXPECT_EQ(w.sum().item<float>(), 4.0f);
}

}  // namespace
}  // namespace nabla
