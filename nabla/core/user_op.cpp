// See Note [User-facing op names] in user_op.h.
#include "nabla/core/user_op.h"

#include <cctype>

#include "nabla/core/allocator.h"
#include "nabla/core/error.h"

namespace nabla::detail {

namespace {
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

std::string name_op(const std::string& what, std::string_view op) {
  if (what.compare(0, op.size(), op) == 0 && (what.size() == op.size() || !is_name_char(what[op.size()])))
    return what;  // already names it
  // The leading name: letters, digits, '_' and "::" (a method, such as the
  // "Tensor::dim" a composite read from an undefined input), then ": ".
  std::size_t end = 0;
  while (end < what.size()) {
    if (is_name_char(what[end])) ++end;
    else if (what.compare(end, 2, "::") == 0) end += 2;
    else break;
  }
  if (end > 0 && what.compare(end, 2, ": ") == 0) return std::string(op) + what.substr(end);
  return std::string(op) + ": " + what;
}

void rethrow_naming(std::string_view op) {
  try {
    throw;
  } catch (const OutOfMemoryError& e) {
    std::string what = name_op(e.what(), op);
    if (what == e.what()) throw;
    throw OutOfMemoryError(what, e.bytes);
  } catch (const Error& e) {
    std::string what = name_op(e.what(), op);
    if (what == e.what()) throw;
    throw Error(what);
  }
}

}  // namespace nabla::detail
