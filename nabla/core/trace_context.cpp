#include "nabla/core/trace_context.h"

#include <utility>

namespace nabla::detail {

namespace {
thread_local const std::string* g_trace_context = nullptr;
}  // namespace

const std::string* trace_context() { return g_trace_context; }

TraceContextScope::TraceContextScope(std::string what) : what_(std::move(what)), prev_(g_trace_context) {
  g_trace_context = &what_;
}

TraceContextScope::~TraceContextScope() { g_trace_context = prev_; }

}  // namespace nabla::detail
