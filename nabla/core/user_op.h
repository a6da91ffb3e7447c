// Errors name the op the user called, not the ops a composite runs inside.
//
// Note [User-facing op names]
// A composite (linear = matmul + add, logsumexp = amax + exp + sum + log,
// argmax = max along a dim, ...) runs other ops, and their checks name
// themselves: `linear` with a wrong-size bias would say "add: shapes ...
// cannot be broadcast". A public function that runs other ops ends in a
// function-try-block that hands any nabla::Error to rethrow_naming:
//
//   Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) try {
//     ...
//   } catch (const Error&) {
//     detail::rethrow_naming("linear");
//   }
//
// which puts the function's name in place of the name the message starts
// with ("add: ..." becomes "linear: ..."), or in front of a message that
// starts with none. The dispatcher does the same for composite table entries.
// Nested composites rename on the way out, so the outermost (the one the user
// called) wins. A try block costs nothing until something throws: the eager
// hot path is unchanged.
#pragma once
#include <string>
#include <string_view>

namespace nabla::detail {

// `what` with `op` in place of its leading name ("add", "Tensor::dim"), or in front.
std::string name_op(const std::string& what, std::string_view op);

// Rethrows the nabla::Error being handled (keeping its type: OutOfMemoryError
// stays one) with its message naming `op`. Call it only inside a catch block.
[[noreturn]] void rethrow_naming(std::string_view op);

}  // namespace nabla::detail
