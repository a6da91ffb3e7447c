// var/std in PyTorch 1.13's forms: (dims, unbiased, keepdim) and the
// Correction{n} form; a plain integer in the correction's place must not
// compile (it would silently mean unbiased = true).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "nabla/nabla.h"

namespace nabla::testing {
namespace {

template <class T>
concept VarTakesAnInt = requires(T x) { var(x, IntList{1}, 2); };
template <class T>
concept StdTakesAnInt = requires(T x) { nabla::std(x, IntList{1}, int64_t{0}); };
template <class T>
concept VarMethodTakesAnInt = requires(T x) { x.var(IntList{1}, 2); };
template <class T>
concept StdMethodTakesAnInt = requires(T x) { x.std(IntList{1}, 0, true); };
template <class T>
concept VarTakesABool = requires(T x) { var(x, IntList{1}, false); };
template <class T>
concept VarTakesACorrection = requires(T x) { x.var(IntList{1}, Correction{2}); };
static_assert(!VarTakesAnInt<Tensor> && !StdTakesAnInt<Tensor>);
static_assert(!VarMethodTakesAnInt<Tensor> && !StdMethodTakesAnInt<Tensor>);
static_assert(VarTakesABool<Tensor> && VarTakesACorrection<Tensor>);

TEST(VarForms, UnbiasedAndCorrectionAgree) {
  Tensor x = tensor({{1.0, 2.0, 4.0, 7.0}, {0.0, 0.0, 3.0, 1.0}}, dtype(kFloat64));
  // row 0: mean 3.5, squared deviations 6.25 + 2.25 + 0.25 + 12.25 = 21
  EXPECT_DOUBLE_EQ(var(x, {1}).to_vector<double>()[0], 21.0 / 3);
  EXPECT_DOUBLE_EQ(var(x, {1}, /*unbiased=*/false).to_vector<double>()[0], 21.0 / 4);
  EXPECT_DOUBLE_EQ(var(x, {1}, Correction{2}).to_vector<double>()[0], 21.0 / 2);
  EXPECT_TRUE(equal(var(x, {1}, true), var(x, {1}, Correction{1})));
  EXPECT_TRUE(equal(x.var({1}, false, /*keepdim=*/true), var(x, {1}, Correction{0}, true)));
  EXPECT_TRUE(equal(x.std({1}, Correction{0}), nabla::std(x, {1}, false)));
  EXPECT_DOUBLE_EQ(x.std().item<double>(), std::sqrt(var(x).item<double>()));
  EXPECT_EQ(x.var({1}, true, true).sizes(), Shape({2, 1}));
}

TEST(VarForms, ErrorsNameTheFunctionCalled) {
  Tensor undefined, i = zeros({3}, dtype(kInt64));
  for (auto [f, name] : std::vector<std::pair<std::function<void()>, std::string>>{
           {[&] { undefined.std(); }, "Tensor::std"},
           {[&] { undefined.var({0}, Correction{0}); }, "Tensor::var"},
           {[&] { nabla::std(i, {}, false); }, "std"},
           {[&] { var(i, {}, Correction{0}); }, "var"}}) {
    try {
      f();
      ADD_FAILURE() << name << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(name + ":", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace nabla::testing
