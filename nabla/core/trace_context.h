// What is tracing symbolic tensors on this thread, for error messages raised
// below the graph layer. nabla::compile (graph/compile.h) traces a function
// by running it on graph values; when that function reads a value's data
// (item(), an `if` on a tensor), calls backward() or updates a concrete tensor
// in place from a graph value, the error must say it happened inside
// compile() and what to do instead. core/ and autograd/ cannot depend on
// graph/, so compile() sets this description and they consult it.
#pragma once
#include <string>

namespace nabla::detail {

// "compile (compiled at file:line)" while a compile() trace runs on this
// thread, else nullptr.
const std::string* trace_context();

// Sets the description for its lifetime (nests: restores the previous one).
class TraceContextScope {
 public:
  explicit TraceContextScope(std::string what);
  ~TraceContextScope();
  TraceContextScope(const TraceContextScope&) = delete;
  TraceContextScope& operator=(const TraceContextScope&) = delete;

 private:
  std::string what_;
  const std::string* prev_;
};

}  // namespace nabla::detail
