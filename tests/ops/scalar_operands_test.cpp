// Every binary op of the table takes a number (Scalar) on either side, as a
// free function and as a method, with PyTorch's result dtype and values
// (tests/ops/scalar_operands_reference.h, from make_scalar_reference.py).
// The test is driven by the op table: a binary entry that has no scalar
// forms in kScalarFns below fails ScalarOperands.EveryBinaryTableOpHasScalarForms.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "nabla/nabla.h"
#include "nabla/ops/op.h"
#include "ops/scalar_operands_reference.h"
#include "support/dtype_named.h"

namespace nabla::testing {
namespace {

using scalar_reference::kScalarCases;
using scalar_reference::ScalarCase;

// fn(tensor, number), fn(number, tensor) and tensor.fn(number): the calls a
// user writes, so that the overloads themselves are what is tested.
struct ScalarForms {
  std::function<Tensor(const Tensor&, const Scalar&)> tensor_first, method;
  std::function<Tensor(const Scalar&, const Tensor&)> number_first;
};

const Tensor& cond() {
  static const Tensor c = tensor({1.0, 0.0, 1.0, 0.0, 1.0}).to(kBool);
  return c;
}

#define NABLA_FORMS(call_ts, call_st, call_method)                            \
  ScalarForms {                                                             \
    [](const Tensor& t, const Scalar& s) { return call_ts; },               \
    [](const Tensor& t, const Scalar& s) { return call_method; },           \
    [](const Scalar& s, const Tensor& t) { return call_st; }                \
  }
#define NABLA_BINARY(name) NABLA_FORMS(name(t, s), name(s, t), t.name(s))

// Function keys (as in the generator) by the op-table entry they run.
const std::map<std::string, std::map<std::string, ScalarForms>>& scalar_fns() {
  static const std::map<std::string, std::map<std::string, ScalarForms>> m = {
      {"add", {{"add", NABLA_BINARY(add)}, {"add_alpha", NABLA_FORMS(add(t, s, 2), add(s, t, 2), t.add(s, 2))}}},
      {"sub", {{"sub", NABLA_BINARY(sub)}, {"sub_alpha", NABLA_FORMS(sub(t, s, 2), sub(s, t, 2), t.sub(s, 2))}}},
      {"mul", {{"mul", NABLA_BINARY(mul)}}},
      {"div", {{"div", NABLA_BINARY(div)}}},
      {"floor_divide",
       {{"floor_divide", NABLA_BINARY(floor_divide)},
        {"div_floor", NABLA_FORMS(div(t, s, "floor"), div(s, t, "floor"), t.div(s, "floor"))}}},
      {"trunc_divide", {{"div_trunc", NABLA_FORMS(div(t, s, "trunc"), div(s, t, "trunc"), t.div(s, "trunc"))}}},
      {"remainder", {{"remainder", NABLA_BINARY(remainder)}}},
      {"maximum", {{"maximum", NABLA_BINARY(maximum)}}},
      {"minimum", {{"minimum", NABLA_BINARY(minimum)}}},
      {"pow", {{"pow", NABLA_BINARY(pow)}}},
      {"eq", {{"eq", NABLA_BINARY(eq)}}},
      {"ne", {{"ne", NABLA_BINARY(ne)}}},
      {"lt", {{"lt", NABLA_BINARY(lt)}}},
      {"le", {{"le", NABLA_BINARY(le)}}},
      {"gt", {{"gt", NABLA_BINARY(gt)}}},
      {"ge", {{"ge", NABLA_BINARY(ge)}}},
      {"logical_and", {{"logical_and", NABLA_BINARY(logical_and)}}},
      {"logical_or", {{"logical_or", NABLA_BINARY(logical_or)}}},
      {"logical_xor", {{"logical_xor", NABLA_BINARY(logical_xor)}}},
      // where's two value arguments; the method is PyTorch's t.where(condition, other)
      {"where", {{"where", NABLA_FORMS(where(cond(), t, s), where(cond(), s, t), t.where(cond(), s))}}},
  };
  return m;
}

// Table entries with two or more elementwise operands: the binary ops (and
// where, whose value operands are its last two).
// threshold_backward (relu's backward) takes tensors only, as PyTorch's.
bool is_binary(const OpDef& op) {
  return op.has(kElementwise) && op.num_inputs >= 2 && op.name != "threshold_backward";
}

Scalar number_of(const ScalarCase& c) {
  if (c.kind == 'b') return Scalar(c.number != 0.0);
  if (c.kind == 'i') return Scalar(static_cast<int64_t>(c.number));
  return Scalar(c.number);
}

std::string describe(const ScalarCase& c) {
  std::string num = c.kind == 'b' ? "true" : c.kind == 'i' ? std::to_string(static_cast<int64_t>(c.number))
                                                           : std::to_string(c.number);
  return std::string(c.fn) + (c.side == 't' ? "(" + std::string(c.dtype) + " tensor, " + num + ")"
                                            : "(" + num + ", " + std::string(c.dtype) + " tensor)");
}

// Values within the result dtype's rounding (NaN matches NaN).
std::string mismatch(const Tensor& r, const ScalarCase& c) {
  std::vector<double> v = r.to_vector<double>();
  if (v.size() != c.values.size()) return "size " + std::to_string(v.size());
  double rtol = r.dtype() == kFloat16 ? 1e-3 : r.dtype() == kFloat32 ? 1e-6 : 1e-12;
  for (std::size_t i = 0; i < v.size(); ++i) {
    double want = c.values[i];
    bool same = (std::isnan(want) && std::isnan(v[i])) || v[i] == want ||
                std::abs(v[i] - want) <= rtol * std::abs(want);
    if (!same) return "element " + std::to_string(i) + ": " + std::to_string(v[i]) + " vs " + std::to_string(want);
  }
  return "";
}

TEST(ScalarOperands, EveryBinaryTableOpHasScalarForms) {
  std::set<std::string> fns_with_cases;
  for (const auto& c : kScalarCases) fns_with_cases.insert(c.fn);
  int binary = 0;
  for (const OpDef* op : op_table()) {
    if (!is_binary(*op)) continue;
    binary++;
    auto it = scalar_fns().find(std::string(op->name));
    if (it == scalar_fns().end()) {
      ADD_FAILURE() << "binary op \"" << op->name << "\" has no scalar forms: add fn(tensor, Scalar), "
                    << "fn(Scalar, tensor) and the method, then an entry in scalar_fns() and cases in "
                       "make_scalar_reference.py";
      continue;
    }
    for (const auto& [fn, forms] : it->second)
      EXPECT_TRUE(fns_with_cases.count(fn)) << fn << " has no reference cases";
  }
  EXPECT_EQ(static_cast<std::size_t>(binary), scalar_fns().size()) << "an entry of scalar_fns() is not a binary op";
}

TEST(ScalarOperands, MatchPyTorch) {
  std::map<std::string, const ScalarForms*> forms;
  for (const auto& [op, fns] : scalar_fns())
    for (const auto& [fn, f] : fns) forms[fn] = &f;
  int checked = 0, errors = 0, emulated = 0;
  std::set<std::string> dtypes;
  for (const ScalarCase& c : kScalarCases) {
    SCOPED_TRACE(describe(c));
    ASSERT_TRUE(forms.count(c.fn)) << "no C++ call for " << c.fn;
    const ScalarForms& f = *forms[c.fn];
    Tensor t = tensor(c.input).to(dtype_named(c.dtype));
    Scalar s = number_of(c);
    dtypes.insert(c.dtype);
    checked++;
    emulated += c.emulated;
    if (*c.result_dtype == '\0') {  // PyTorch raises: so must nabla, with a nabla::Error
      errors++;
      EXPECT_THROW(c.side == 't' ? f.tensor_first(t, s) : f.number_first(s, t), Error) << "PyTorch: " << c.error;
      if (c.side == 't') EXPECT_THROW(f.method(t, s), Error);
      continue;
    }
    Tensor r;
    try {
      r = c.side == 't' ? f.tensor_first(t, s) : f.number_first(s, t);
    } catch (const Error& e) {
      ADD_FAILURE() << "raised: " << e.what();
      continue;
    }
    EXPECT_EQ(dtype_name(r.dtype()), c.result_dtype);
    EXPECT_EQ(mismatch(r, c), "");
    if (c.side == 't') {
      Tensor m = f.method(t, s);
      EXPECT_EQ(m.dtype(), r.dtype()) << "method";
      EXPECT_EQ(mismatch(m, c), "") << "method";
    }
  }
  std::cout << "scalar operands: " << checked << " cases (" << scalar_fns().size() << " binary table ops, "
            << forms.size() << " functions x " << dtypes.size() << " dtypes x 3 kinds of number x 2 sides), "
            << errors << " where PyTorch raises, " << emulated << " beyond PyTorch's own number forms\n";
  EXPECT_EQ(checked, static_cast<int>(forms.size() * dtypes.size() * 3 * 2));
}

// The literals users type compile and mean what they say: no ambiguity
// between the Tensor and Scalar overloads.
TEST(ScalarOperands, LiteralsCompile) {
  Tensor x = tensor({-1.0, 2.0}), w = tensor({{1.0, 0.0}, {0.0, 1.0}});
  EXPECT_EQ(maximum(matmul(x, w), 0.0).to_vector<double>(), (std::vector<double>{0.0, 2.0}));
  EXPECT_EQ(maximum(0.0, x).to_vector<double>(), (std::vector<double>{0.0, 2.0}));
  EXPECT_EQ(x.maximum(0).to_vector<double>(), (std::vector<double>{0.0, 2.0}));
  EXPECT_EQ(sub(1, x).to_vector<double>(), (std::vector<double>{2.0, -1.0}));
  EXPECT_EQ(where(x > 0, x, 0.0).to_vector<double>(), (std::vector<double>{0.0, 2.0}));
  EXPECT_EQ(x.add(2, /*alpha=*/3).to_vector<double>(), (std::vector<double>{5.0, 8.0}));
  EXPECT_EQ(add(x, int64_t{2}).to_vector<double>(), (std::vector<double>{1.0, 4.0}));
  EXPECT_EQ(add(x, true).to_vector<double>(), (std::vector<double>{0.0, 3.0}));
  EXPECT_EQ(x.eq(2.0f).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(where(x > 0, 1, 0).dtype(), kInt64);      // two numbers: their own type
  EXPECT_EQ(where(x > 0, 1.0, 0).dtype(), kFloat32);  // float32, PyTorch's default dtype
  EXPECT_EQ(x.div(2, "floor").to_vector<double>(), (std::vector<double>{-1.0, 1.0}));
  EXPECT_EQ((0 < x).to_vector<bool>(), (std::vector<bool>{false, true}));  // a number on the left
  EXPECT_EQ((2.0 == x).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ((1 - x).to_vector<double>(), (std::vector<double>{2.0, -1.0}));
}

TEST(ScalarOperands, ErrorsNameTheFunctionCalled) {
  Tensor undefined;
  for (auto call : std::vector<std::function<void()>>{[&] { maximum(undefined, 0); }, [&] { maximum(0, undefined); }}) {
    try {
      call();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("maximum", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace nabla::testing
