#include "nabla/core/trace_context.h"

namespace nabla::detail {

namespace {
thread_local Tracer* g_tracer = nullptr;
}  // namespace

Tracer* current_tracer() { return g_tracer; }

const std::string* trace_context() { return g_tracer ? &g_tracer->where() : nullptr; }

TraceContextScope::TraceContextScope(Tracer& tracer) : prev_(g_tracer) { g_tracer = &tracer; }

TraceContextScope::~TraceContextScope() { g_tracer = prev_; }

}  // namespace nabla::detail
