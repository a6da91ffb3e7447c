#include "nabla/core/random.h"

#include <mutex>

namespace nabla {
namespace {
std::mutex g_mu;
// The generator of this thread's innermost GeneratorScope (null: the global one).
thread_local Generator* t_scoped = nullptr;
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(g_mu);
  seed_ = seed;
  offset_ = 0;
}

GeneratorState Generator::get_state() const {
  std::lock_guard<std::mutex> lock(g_mu);
  return {seed_, offset_};
}

void Generator::set_state(GeneratorState state) {
  std::lock_guard<std::mutex> lock(g_mu);
  seed_ = state.seed;
  offset_ = state.offset;
}

uint64_t Generator::reserve(uint64_t counters) {
  std::lock_guard<std::mutex> lock(g_mu);
  uint64_t first = offset_;
  offset_ += counters;
  return first;
}

Generator& default_generator() {
  static Generator g;
  return t_scoped ? *t_scoped : g;
}

GeneratorScope::GeneratorScope(Generator& g) : prev_(t_scoped) { t_scoped = &g; }
GeneratorScope::~GeneratorScope() { t_scoped = prev_; }

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace nabla
