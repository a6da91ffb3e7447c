// Every public method of an undefined (default-constructed) Tensor raises a
// nabla::Error naming the method (issue 13, defect 5: backward() and
// mutable_grad() used to dereference a null impl). Only defined(), is_same(),
// is_symbolic(), impl() and printing answer without raising, as in PyTorch.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"

namespace nabla {
namespace {

using nabla::testing::error_of;
using nabla::testing::kNoError;

// {the name the message must start with, the call}.
using Case = std::pair<const char*, std::function<void(Tensor&)>>;

std::vector<Case> method_cases() {
  const Tensor x = ones({2, 3});
  const Tensor idx = zeros({2, 3}, kInt64);
  return {
      // metadata
      {"Tensor::sizes", [](Tensor& t) { (void)t.sizes(); }},
      {"Tensor::shape", [](Tensor& t) { (void)t.shape(); }},
      {"Tensor::strides", [](Tensor& t) { (void)t.strides(); }},
      {"Tensor::size", [](Tensor& t) { (void)t.size(0); }},
      {"Tensor::stride", [](Tensor& t) { (void)t.stride(0); }},
      {"Tensor::dim", [](Tensor& t) { (void)t.dim(); }},
      {"Tensor::numel", [](Tensor& t) { (void)t.numel(); }},
      {"Tensor::storage_offset", [](Tensor& t) { (void)t.storage_offset(); }},
      {"Tensor::dtype", [](Tensor& t) { (void)t.dtype(); }},
      {"Tensor::device", [](Tensor& t) { (void)t.device(); }},
      {"Tensor::is_contiguous", [](Tensor& t) { (void)t.is_contiguous(); }},
      {"Tensor::is_floating_point", [](Tensor& t) { (void)t.is_floating_point(); }},
      {"Tensor::version", [](Tensor& t) { (void)t.version(); }},
      // data
      {"Tensor::data_ptr", [](Tensor& t) { (void)t.data_ptr<float>(); }},
      {"Tensor::raw_data", [](Tensor& t) { (void)t.raw_data(); }},
      {"Tensor::item", [](Tensor& t) { (void)t.item<float>(); }},
      {"Tensor::at", [](Tensor& t) { (void)t.at<float>({0}); }},
      {"Tensor::to_vector", [](Tensor& t) { (void)t.to_vector<float>(); }},
      // autograd
      {"Tensor::requires_grad", [](Tensor& t) { (void)t.requires_grad(); }},
      {"Tensor::requires_grad_", [](Tensor& t) { t.requires_grad_(); }},
      {"Tensor::grad", [](Tensor& t) { (void)t.grad(); }},
      {"Tensor::mutable_grad", [](Tensor& t) { (void)t.mutable_grad(); }},
      {"Tensor::set_grad", [x](Tensor& t) { t.set_grad(x); }},
      {"Tensor::is_leaf", [](Tensor& t) { (void)t.is_leaf(); }},
      {"Tensor::grad_fn", [](Tensor& t) { (void)t.grad_fn(); }},
      {"Tensor::output_nr", [](Tensor& t) { (void)t.output_nr(); }},
      {"Tensor::backward", [](Tensor& t) { t.backward(); }},
      {"Tensor::backward", [x](Tensor& t) { t.backward(x); }},
      {"Tensor::detach", [](Tensor& t) { (void)t.detach(); }},
      {"Tensor::detach_", [](Tensor& t) { t.detach_(); }},
      {"Tensor::retain_grad", [](Tensor& t) { t.retain_grad(); }},
      {"Tensor::register_hook", [](Tensor& t) { t.register_hook([](const Tensor& g) { return g; }); }},
      // conversion
      {"Tensor::to", [](Tensor& t) { (void)t.to(kFloat64); }},
      {"Tensor::to", [](Tensor& t) { (void)t.to(kCPU); }},
      {"Tensor::cpu", [](Tensor& t) { (void)t.cpu(); }},
      {"Tensor::clone", [](Tensor& t) { (void)t.clone(); }},
      {"Tensor::contiguous", [](Tensor& t) { (void)t.contiguous(); }},
      // views
      {"Tensor::view", [](Tensor& t) { (void)t.view({6}); }},
      {"Tensor::view_as", [x](Tensor& t) { (void)t.view_as(x); }},
      {"Tensor::reshape", [](Tensor& t) { (void)t.reshape({6}); }},
      {"Tensor::permute", [](Tensor& t) { (void)t.permute({1, 0}); }},
      {"Tensor::transpose", [](Tensor& t) { (void)t.transpose(0, 1); }},
      {"Tensor::t", [](Tensor& t) { (void)t.t(); }},
      {"Tensor::slice", [](Tensor& t) { (void)t.slice(0, 0, 1); }},
      {"Tensor::narrow", [](Tensor& t) { (void)t.narrow(0, 0, 1); }},
      {"Tensor::select", [](Tensor& t) { (void)t.select(0, 0); }},
      {"Tensor::operator[]", [](Tensor& t) { (void)t[0]; }},
      {"Tensor::index", [](Tensor& t) { (void)t.index({0, Slice()}); }},
      {"Tensor::index", [](Tensor& t) { (void)t.index(std::vector<TensorIndex>{Ellipsis}); }},
      {"Tensor::expand", [](Tensor& t) { (void)t.expand({2, 3}); }},
      {"Tensor::expand_as", [x](Tensor& t) { (void)t.expand_as(x); }},
      {"Tensor::squeeze", [](Tensor& t) { (void)t.squeeze(); }},
      {"Tensor::squeeze", [](Tensor& t) { (void)t.squeeze(0); }},
      {"Tensor::unsqueeze", [](Tensor& t) { (void)t.unsqueeze(0); }},
      {"Tensor::flatten", [](Tensor& t) { (void)t.flatten(); }},
      {"Tensor::unflatten", [](Tensor& t) { (void)t.unflatten(0, {2, 3}); }},
      {"Tensor::unfold", [](Tensor& t) { (void)t.unfold(0, 1, 1); }},
      // elementwise
      {"Tensor::neg", [](Tensor& t) { (void)t.neg(); }},
      {"Tensor::abs", [](Tensor& t) { (void)t.abs(); }},
      {"Tensor::exp", [](Tensor& t) { (void)t.exp(); }},
      {"Tensor::log", [](Tensor& t) { (void)t.log(); }},
      {"Tensor::sqrt", [](Tensor& t) { (void)t.sqrt(); }},
      {"Tensor::sigmoid", [](Tensor& t) { (void)t.sigmoid(); }},
      {"Tensor::tanh", [](Tensor& t) { (void)t.tanh(); }},
      {"Tensor::relu", [](Tensor& t) { (void)t.relu(); }},
      {"Tensor::square", [](Tensor& t) { (void)t.square(); }},
      {"Tensor::pow", [](Tensor& t) { (void)t.pow(2); }},
      {"Tensor::pow", [x](Tensor& t) { (void)t.pow(x); }},
      {"Tensor::clamp", [](Tensor& t) { (void)t.clamp(0, 1); }},
      {"Tensor::clamp_min", [](Tensor& t) { (void)t.clamp_min(0); }},
      {"Tensor::clamp_max", [](Tensor& t) { (void)t.clamp_max(1); }},
      {"Tensor::add", [x](Tensor& t) { (void)t.add(x); }},
      {"Tensor::sub", [x](Tensor& t) { (void)t.sub(x); }},
      {"Tensor::mul", [x](Tensor& t) { (void)t.mul(x); }},
      {"Tensor::div", [x](Tensor& t) { (void)t.div(x); }},
      {"Tensor::masked_fill", [x](Tensor& t) { (void)t.masked_fill(x > 0, 1); }},
      // indexing and sorting
      {"Tensor::gather", [idx](Tensor& t) { (void)t.gather(0, idx); }},
      {"Tensor::index_select", [](Tensor& t) { (void)t.index_select(0, zeros({1}, kInt64)); }},
      {"Tensor::flip", [](Tensor& t) { (void)t.flip({0}); }},
      {"Tensor::sort", [](Tensor& t) { (void)t.sort(); }},
      {"Tensor::topk", [](Tensor& t) { (void)t.topk(1); }},
      // in place
      {"Tensor::add_", [x](Tensor& t) { t.add_(x); }},
      {"Tensor::add_", [](Tensor& t) { t.add_(1); }},
      {"Tensor::sub_", [x](Tensor& t) { t.sub_(x); }},
      {"Tensor::sub_", [](Tensor& t) { t.sub_(1); }},
      {"Tensor::mul_", [x](Tensor& t) { t.mul_(x); }},
      {"Tensor::mul_", [](Tensor& t) { t.mul_(2); }},
      {"Tensor::div_", [x](Tensor& t) { t.div_(x); }},
      {"Tensor::div_", [](Tensor& t) { t.div_(2); }},
      {"Tensor::add_", [x](Tensor& t) { t += x; }},
      {"Tensor::sub_", [](Tensor& t) { t -= 1; }},
      {"Tensor::mul_", [x](Tensor& t) { t *= x; }},
      {"Tensor::div_", [](Tensor& t) { t /= 2; }},
      {"Tensor::clamp_", [](Tensor& t) { t.clamp_(0, 1); }},
      {"Tensor::zero_", [](Tensor& t) { t.zero_(); }},
      {"Tensor::fill_", [](Tensor& t) { t.fill_(1); }},
      {"Tensor::copy_", [x](Tensor& t) { t.copy_(x); }},
      // reductions and linear algebra
      {"Tensor::sum", [](Tensor& t) { (void)t.sum(); }},
      {"Tensor::sum", [](Tensor& t) { (void)t.sum({0}); }},
      {"Tensor::mean", [](Tensor& t) { (void)t.mean(); }},
      {"Tensor::mean", [](Tensor& t) { (void)t.mean({0}, true); }},
      {"Tensor::max", [](Tensor& t) { (void)t.max(); }},
      {"Tensor::min", [](Tensor& t) { (void)t.min(); }},
      {"Tensor::argmax", [](Tensor& t) { (void)t.argmax(); }},
      {"Tensor::mm", [x](Tensor& t) { (void)t.mm(x.t()); }},
      {"Tensor::matmul", [x](Tensor& t) { (void)t.matmul(x.t()); }},
  };
}

TEST(UndefinedTensor, EveryMethodRaisesAnErrorNamingIt) {
  int checked = 0;
  for (auto& [method, call] : method_cases()) {
    Tensor t;
    const std::string msg = error_of([&] { call(t); });
    ASSERT_NE(msg, kNoError) << method;
    EXPECT_EQ(msg.rfind(method, 0), 0u) << "expected the message to start with " << method << ": " << msg;
    EXPECT_NE(msg.find("called on an undefined tensor"), std::string::npos) << method << ": " << msg;
    EXPECT_FALSE(t.defined()) << method;
    ++checked;
  }
  EXPECT_GE(checked, 100);
}

// The two calls of the report, with the whole message.
TEST(UndefinedTensor, BackwardAndMutableGradSayWhatIsWrong) {
  Tensor t;
  EXPECT_EQ(error_of([&] { t.backward(); }),
            "Tensor::backward: called on an undefined tensor (a default-constructed or moved-from Tensor has no "
            "data); check defined() first");
  EXPECT_EQ(error_of([&] { t.mutable_grad(); }),
            "Tensor::mutable_grad: called on an undefined tensor (a default-constructed or moved-from Tensor has no "
            "data); check defined() first");
}

// A moved-from tensor is undefined too.
TEST(UndefinedTensor, MovedFromTensorRaises) {
  Tensor a = ones({2});
  Tensor b = std::move(a);
  EXPECT_NE(error_of([&] { a.grad(); }).find("Tensor::grad: called on an undefined tensor"), std::string::npos);
  EXPECT_EQ(b.numel(), 2);
}

// What answers without raising, as in PyTorch.
TEST(UndefinedTensor, DefinedSameSymbolicAndPrintingAnswer) {
  Tensor t, u;
  EXPECT_FALSE(t.defined());
  EXPECT_TRUE(t.is_same(u));
  EXPECT_FALSE(t.is_same(ones({1})));
  EXPECT_FALSE(t.is_symbolic());
  EXPECT_EQ(t.impl(), nullptr);
  EXPECT_EQ(t.str(), "tensor(undefined)");
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(), "tensor(undefined)");
}

// Free functions given an undefined tensor: ops name the op and the input,
// autograd names the output or input; none crashes.
TEST(UndefinedTensor, FreeFunctionsRaise) {
  const Tensor x = ones({2}, requires_grad());
  Tensor u;
  nabla::testing::expect_error(error_of([&] { (void)add(x, u); }), {"add", "input 1 is an undefined tensor"});
  nabla::testing::expect_error(error_of([&] { (void)exp(u); }), {"exp", "input 0 is an undefined tensor"});
  nabla::testing::expect_error(error_of([&] { (void)(u + x); }), {"undefined tensor"});
  nabla::testing::expect_error(error_of([&] { backward(TensorList{u}); }), {"backward: output 0 is an undefined tensor"});
  nabla::testing::expect_error(error_of([&] { backward(TensorList{sum(x), u}); }),
                               {"backward: output 1 is an undefined tensor"});
  nabla::testing::expect_error(error_of([&] { (void)grad(TensorList{u}, TensorList{x}); }),
                               {"grad: output 0 is an undefined tensor"});
  nabla::testing::expect_error(error_of([&] { (void)grad(TensorList{sum(x)}, TensorList{x, u}); }),
                               {"grad: input 1 is an undefined tensor"});
  nabla::testing::expect_error(error_of([&] { (void)zeros_like(u); }), {"undefined tensor"});
  // An undefined gradient for a scalar output means ones, as in PyTorch.
  backward(TensorList{sum(x)}, TensorList{Tensor()});
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{1, 1}));
}

}  // namespace
}  // namespace nabla
