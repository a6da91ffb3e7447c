#include "nabla/core/trace_context.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace nabla::detail {

namespace {
thread_local Tracer* g_tracer = nullptr;

// The registered state tensors by TensorImpl. A tensor the registry alone
// holds (its module is gone) is dropped when the registry has doubled since
// the last sweep, so registering stays amortized O(1) and an address is never
// mistaken for a later tensor's (the registry holds what it names).
struct StateRegistry {
  std::mutex mutex;
  std::unordered_map<const TensorImpl*, Tensor> tensors;
  std::size_t swept_at = 64;
};
StateRegistry& state_registry() {
  static StateRegistry* r = new StateRegistry();  // never destroyed: used by static modules' buffers at exit
  return *r;
}
}  // namespace

void register_state(const Tensor& t) {
  if (!t.defined()) return;
  StateRegistry& r = state_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.tensors.size() >= 2 * r.swept_at) {
    std::erase_if(r.tensors, [](const auto& entry) { return entry.second.impl()->use_count() == 1; });
    r.swept_at = std::max<std::size_t>(64, r.tensors.size());
  }
  r.tensors.try_emplace(t.impl(), t);
}

bool is_state(const Tensor& t) {
  if (!t.defined() || t.is_symbolic()) return false;
  StateRegistry& r = state_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.tensors.contains(t.impl());
}

Tracer* current_tracer() { return g_tracer; }

const std::string* trace_context() { return g_tracer ? &g_tracer->where() : nullptr; }

TraceContextScope::TraceContextScope(Tracer& tracer) : prev_(g_tracer) { g_tracer = &tracer; }

TraceContextScope::~TraceContextScope() { g_tracer = prev_; }

}  // namespace nabla::detail
