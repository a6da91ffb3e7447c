// Runs every ErrorInput (tests/support/error_inputs.h): each must raise a
// nabla::Error that starts with the public function called, contains the
// expected fragments and names no other op; and every op of nabla's op table
// must have at least kMinErrorInputsPerOp cases.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "support/error_inputs.h"

namespace nabla::testing {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `msg` mentions `name` as an op: "name:" or "name_:" (in place),
// not inside a longer name nor as a method ("Tensor::name:").
bool names_op(const std::string& msg, const std::string& name) {
  for (std::size_t at = msg.find(name); at != std::string::npos; at = msg.find(name, at + 1)) {
    if (at > 0 && (is_name_char(msg[at - 1]) || msg[at - 1] == ':')) continue;
    std::size_t end = at + name.size();
    if (end < msg.size() && msg[end] == '_') ++end;
    if (end < msg.size() && msg[end] == ':') return true;
  }
  return false;
}

// Public functions that composites run internally, besides the table's ops.
const std::vector<std::string> kInternalFunctions = {
    "reshape", "squeeze",  "unsqueeze", "transpose", "narrow", "flatten", "unflatten", "matmul", "max",
    "min",     "argmax",   "argmin",    "std",       "dot",    "outer",   "addmm",     "linear", "contiguous",
    "sum_to",  "broadcast_shapes", "cast"};

// The first op other than `called` that `msg` names, or "".
std::string other_op_named(const std::string& msg, const std::string& called) {
  std::vector<std::string> names = kInternalFunctions;
  for (const OpDef* op : op_table()) names.emplace_back(op->name);
  for (const std::string& n : names)
    if (n != called && n + "_" != called && names_op(msg, n)) return n;
  return "";
}

class ErrorInputs : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ErrorInputs, RaiseAClearErrorNamingTheOpCalled) {
  const ErrorInput& c = error_inputs()[GetParam()];
  SCOPED_TRACE(c.op + " via " + c.called + ": " + c.what);
  std::string msg;
  try {
    c.run();
    ADD_FAILURE() << "no error raised";
    return;
  } catch (const Error& e) {
    msg = e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "raised a std::exception that is not a nabla::Error: " << e.what();
    return;
  }
  // NABLA_PRINT_ERROR_INPUTS=1 lists every message, for reading them all at once.
  if (std::getenv("NABLA_PRINT_ERROR_INPUTS")) std::printf("%s | %s | %s\n", c.op.c_str(), c.what.c_str(), msg.c_str());
  for (const std::string& part : c.expected)
    EXPECT_NE(msg.find(part), std::string::npos) << "missing '" << part << "' in: " << msg;
  EXPECT_TRUE(msg.rfind(c.called, 0) == 0 && msg.size() > c.called.size() && !is_name_char(msg[c.called.size()]))
      << "does not start with the op called, '" << c.called << "': " << msg;
  std::string other = other_op_named(msg, c.called);
  EXPECT_EQ(other, "") << "names the op '" << other << "' instead of '" << c.called << "': " << msg;
}

std::string case_name(const ::testing::TestParamInfo<std::size_t>& p) {
  const std::vector<ErrorInput>& all = error_inputs();
  const ErrorInput& c = all[p.param];
  int k = 0;
  for (std::size_t i = 0; i < p.param; ++i) k += all[i].op == c.op;
  return c.op + "_" + std::to_string(k);
}

std::vector<std::size_t> all_cases() {
  std::vector<std::size_t> r;
  for (std::size_t i = 0; i < error_inputs().size(); ++i) r.push_back(i);
  return r;
}

INSTANTIATE_TEST_SUITE_P(Ops, ErrorInputs, ::testing::ValuesIn(all_cases()), case_name);

TEST(ErrorInputsCoverage, EveryOpHasThreeCases) {
  std::map<std::string, int> count;
  for (const OpDef* op : op_table()) count[std::string(op->name)] = 0;
  std::string unknown;
  for (const ErrorInput& c : error_inputs()) {
    auto it = count.find(c.op);
    if (it == count.end()) unknown += " " + c.op;
    else ++it->second;
  }
  EXPECT_TRUE(unknown.empty()) << "cases for ops that are not in the op table:" << unknown;
  std::string missing;
  for (const auto& [name, n] : count)
    if (n < kMinErrorInputsPerOp) missing += " " + name + "(" + std::to_string(n) + ")";
  EXPECT_TRUE(missing.empty()) << "ops with fewer than " << kMinErrorInputsPerOp << " error inputs:" << missing;
  std::printf("error inputs: %zu cases over %zu ops\n", error_inputs().size(), count.size());
}

// Renaming keeps the error's type: an allocation failure inside a composite
// is still an OutOfMemoryError with the bytes asked for.
TEST(ErrorInputsNaming, AnOutOfMemoryErrorStaysOneWhenRenamed) {
  try {
    linear(huge_view({4}), zeros({3, 4}));  // mm's [2^50, 3] result
    ADD_FAILURE() << "no error raised";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("linear: out of memory", 0), 0u) << e.what();
    EXPECT_EQ(e.bytes, (std::size_t(1) << 50) * 3 * 4);
  }
}

}  // namespace
}  // namespace nabla::testing
