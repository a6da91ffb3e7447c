// The bad-input table (PyTorch's OpInfo `error_inputs`, in small). Each
// ErrorInput calls one op of nabla's op_table() through the public function a
// user calls, with an input that must be refused, and lists fragments of the
// message expected. tests/ops/error_inputs_suite_test.cpp runs every case and checks
// that it raises a nabla::Error whose message starts with the public function's
// name, contains every fragment and names no other op (an internal op of a
// composite: "add:" when the user called linear; see Note [User-facing op
// names] in nabla/core/user_op.h). A coverage test there fails when an op of the
// table has fewer than kMinErrorInputsPerOp cases.
//
// Add cases: NABLA_ERROR_INPUTS({{...}, ...}) in tests/ops/error_inputs_<family>_test.cpp.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "nabla/nabla.h"

namespace nabla::testing {

inline constexpr int kMinErrorInputsPerOp = 3;

struct ErrorInput {
  std::string op;      // the op_table() entry it exercises
  std::string called;  // the public function called: the message must start with it
  std::string what;    // what is wrong with the input, in a few words
  std::function<void()> run;
  std::vector<std::string> expected;  // fragments the message must contain
};

inline std::vector<ErrorInput>& error_inputs() {
  static std::vector<ErrorInput> cases;
  return cases;
}

struct RegisterErrorInputs {
  explicit RegisterErrorInputs(std::vector<ErrorInput> cases) {
    for (ErrorInput& c : cases) error_inputs().push_back(std::move(c));
  }
};

// Inputs shared by many cases.
// A float32 view of 2^50 elements over one: a result of its size needs 4 PiB,
// which the allocator refuses before asking the system.
inline Tensor huge_view(IntList trailing = {}) {
  Shape s{int64_t(1) << 50};
  for (int64_t d : trailing) s.push_back(d);
  return expand(zeros(Shape(s.size(), 1)), s);
}
// A view of 2^62 float32 elements: its size in bytes overflows int64.
inline Tensor overflowing_view() { return expand(zeros({1}), {int64_t(1) << 62}); }
// Runs a table op that has no public function (a gradient-only op) the way
// graphs and extensions run any op: nabla::call, with its attributes.
inline Tensor run_op(const char* name, std::initializer_list<Tensor> inputs, const Attrs& attrs) {
  return call1(*find_op(name), inputs, attrs);
}
// A leaf that requires grad (in-place ops on it are refused while recording).
inline Tensor leaf(IntList sizes) { return zeros(sizes).requires_grad_(); }

}  // namespace nabla::testing

#define NABLA_ERROR_INPUTS_CAT2(a, b) a##b
#define NABLA_ERROR_INPUTS_CAT(a, b) NABLA_ERROR_INPUTS_CAT2(a, b)
// Registers cases at start-up, from a std::vector<ErrorInput> or a braced list:
// NABLA_ERROR_INPUTS({{op, called, what, [] { ... }, {fragments}}, ...});
#define NABLA_ERROR_INPUTS(...) \
  static ::nabla::testing::RegisterErrorInputs NABLA_ERROR_INPUTS_CAT(error_inputs_, __COUNTER__)(__VA_ARGS__)
