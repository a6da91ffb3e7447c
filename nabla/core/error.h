// nabla::Error — the one exception type for user mistakes. Messages name the op
// or API, what was given and what was expected (see DESIGN.md, "Errors").
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nabla/core/small_vector.h"

namespace nabla {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

namespace detail {
template <class T, std::size_t N>
std::ostream& operator<<(std::ostream& os, const SmallVector<T, N>& v) {
  os << '[';
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os << ']';
}
inline std::ostream& operator<<(std::ostream& os, const IntList& v) {
  os << '[';
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os << ']';
}
template <class T>
std::ostream& operator<<(std::ostream& os, const std::vector<T>& v) {
  os << '[';
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os << ']';
}
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  ((os << args), ...);
  return os.str();
}
}  // namespace detail

template <class... Args>
[[noreturn]] void fail(const Args&... args) {
  using detail::operator<<;
  throw Error(detail::concat(args...));
}

}  // namespace nabla

// Checks a condition and throws nabla::Error with the concatenated message.
// A macro only so the message is not built when the check passes.
#define NABLA_CHECK(cond, ...)                                   \
  do {                                                           \
    if (!(cond)) [[unlikely]] {                                  \
      using ::nabla::detail::operator<<;                         \
      throw ::nabla::Error(::nabla::detail::concat(__VA_ARGS__)); \
    }                                                            \
  } while (0)
