// Tensors freed while every operator new fails, during stack unwinding
// (issue 13, defect 6: std::bad_alloc escaped from ~TensorImpl, through the
// allocator growing a free list, and the process aborted). Its own program:
// it replaces the global operator new, which the sanitizers' runtimes also
// replace (tests/CMakeLists.txt leaves it out of sanitizer builds).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "nabla/nabla.h"

namespace {
std::atomic<bool> g_fail_new{false};   // every operator new fails
std::atomic<bool> g_fail_once{false};  // the next operator new fails
}

void* operator new(std::size_t n) {
  if (g_fail_new.load(std::memory_order_relaxed) || g_fail_once.exchange(false, std::memory_order_relaxed))
    throw std::bad_alloc();
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace nabla {
namespace {

// While it lives, every operator new throws std::bad_alloc.
struct FailingNew {
  FailingNew() { g_fail_new = true; }
  ~FailingNew() { g_fail_new = false; }
};

// Blocks of one size class above the per-thread cache (1.75 MiB, untouched:
// no resident memory). Freeing 40 of them grows the class's free list past
// its capacity at least once, which allocates.
std::vector<Tensor> blocks() {
  std::vector<Tensor> v;
  for (int i = 0; i < 40; ++i) v.push_back(empty({(int64_t(1) << 20) + 3 * (int64_t(1) << 18)}, kUInt8));
  return v;
}

TEST(OomUnwind, TensorsFreedDuringUnwindingWhileAllocationsFail) {
  std::vector<Tensor> v = blocks();
  bool caught = false;
  try {
    FailingNew fail;  // destroyed after `dying`
    std::vector<Tensor> dying = std::move(v);
    throw 42;  // no allocation through operator new
  } catch (int) {
    caught = true;
  }
  EXPECT_TRUE(caught);
  // The allocator still works and its accounting holds.
  Tensor x = ones({1000});
  EXPECT_EQ(x.sum().item<float>(), 1000.0f);
}

TEST(OomUnwind, AutogradGraphFreedWhileAllocationsFail) {
  Tensor w = ones({4}, requires_grad());
  Tensor y = w;
  for (int i = 0; i < 100; ++i) y = (y * 1.5).tanh();
  std::vector<Tensor> v = blocks();
  {
    FailingNew fail;
    y = Tensor();  // the whole recorded graph goes
    v.clear();
  }
  EXPECT_EQ(w.numel(), 4);
}

// An op whose kernel runs out of memory outside the tensor allocator (its
// std::vector scratch) reports the op. Only that one allocation fails, so
// that the message can be built.
TEST(OomUnwind, StdBadAllocInAnOpBecomesAnErrorNamingIt) {
  Tensor a = ones({2, 3});
  std::string msg;
  try {
    g_fail_once = true;
    (void)sort(a);
  } catch (const Error& e) {
    msg = e.what();
  } catch (const std::bad_alloc&) {
    msg = "std::bad_alloc";
  }
  EXPECT_FALSE(g_fail_once);  // the kernel did allocate
  EXPECT_NE(msg.find("sort"), std::string::npos) << msg;
  EXPECT_NE(msg.find("out of memory"), std::string::npos) << msg;
}

}  // namespace
}  // namespace nabla
