// Freeing a long autograd graph (Note [Iterative teardown], autograd/node.cpp):
// the last handle to the result of 200,000 chained ops used to free the
// nodes recursively and overflow the stack (a segfault at 200,000 in a
// release build).
#include <gtest/gtest.h>

#include "nabla/nabla.h"

namespace nabla {
namespace {

TEST(AutogradTeardown, ALongChainIsFreedWithoutRecursion) {
  Tensor w = ones({1}, requires_grad());
  Tensor y = w;
  for (int i = 0; i < 200000; ++i) y = y.neg();
  EXPECT_EQ(y.item<float>(), 1.0f);
  y = Tensor();  // frees 200,000 nodes
  // Backward through a chain still works and frees it as it goes.
  Tensor z = w;
  for (int i = 0; i < 1000; ++i) z = z.neg();
  z.backward();
  EXPECT_EQ(w.grad().item<float>(), 1.0f);
}

// Two chains sharing a prefix: freeing one leaves the other whole.
TEST(AutogradTeardown, SharedNodesSurvive) {
  Tensor w = ones({1}, requires_grad());
  Tensor base = w;
  for (int i = 0; i < 1000; ++i) base = base * 1.0;
  Tensor a = base.neg(), b = base * 2.0;
  base = Tensor();
  a = Tensor();
  b.backward();
  EXPECT_EQ(w.grad().item<float>(), 2.0f);
}

}  // namespace
}  // namespace nabla
