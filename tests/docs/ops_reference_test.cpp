// docs/ops.md is generated (tools/docs/ops_reference.h) and must be current:
// this test regenerates it in memory and fails, naming the command that
// rewrites it, when the checked-in page differs. With NABLA_WRITE_DOCS_OPS=1
// it writes the page instead (what `cmake --build build/release --target
// docs_ops` runs).
//
// The dtypes of each op come from a probe: the samples of every OpInfo entry
// (tests/ops), their floating inputs cast to each of the 8 dtypes, run
// through the public call of the entry. An op "takes" a dtype when every
// sample of some entry covering it ran; index and mask inputs keep their dtype. This reads what the
// infer functions and kernels accept rather than restating it by hand.
#include "ops_reference.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "nabla/cuda.h"
#include "source_scan.h"
#include "support/op_info.h"

namespace nabla::testing {
namespace {

const char* const kRegenerate =
    "cmake --build build/release --target docs_ops   "
    "(or: NABLA_WRITE_DOCS_OPS=1 ./build/release/tests/nabla_tests --gtest_filter=OpsReference.DocsOpsMdIsCurrent)";

docs::DTypeProbe probe_dtypes() {
  // The probe draws random numbers (dropout, bernoulli): leave the generator as it was.
  GeneratorState rng = default_generator().get_state();
  docs::DTypeProbe probe;
  constexpr DType kAll[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kUInt8, kBool};
  for (const OpInfo& info : op_infos()) {
    std::vector<Tensors> samples = info.samples();
    for (DType t : kAll) {
      DType result = t;
      try {
        for (std::size_t s = 0; s < samples.size(); ++s) {
          Tensors in;
          for (const Tensor& x : samples[s]) {
            if (!x.defined() || !is_floating(x.dtype())) {
              in.push_back(x);
              continue;
            }
            // Samples lie in [-2, 2]: a negative value converted to uint8 is undefined behaviour.
            in.push_back((t == kUInt8 ? abs(x) : x).to(t));
          }
          Tensors out = info.run(in);
          if (s == 0 && !out.empty() && out[0].defined()) result = out[0].dtype();
        }
      } catch (const Error&) {
        continue;
      }
      // Several entries may cover an op (mm: mm, matmul, linear): the result
      // dtype is the one of the entry named after the op, else of the first.
      for (const std::string& op : info.covers)
        if (info.name == op || !probe[op].count(t)) probe[op][t] = result;
    }
  }
  default_generator().set_state(rng);
  return probe;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OpsReference, DocsOpsMdIsCurrent) {
  // The page lists the devices each op has kernels on, for the build CI
  // makes (with the OpenCL and CUDA backends).
  if (!opencl::is_built())
    GTEST_SKIP() << "docs/ops.md describes a build with the OpenCL backend; this one has none (NABLA_OPENCL=OFF)";
  if (!cuda::is_built())
    GTEST_SKIP() << "docs/ops.md describes a build with the CUDA backend; this one has none (NABLA_CUDA=OFF)";
  const std::string path = std::string(NABLA_SOURCE_DIR) + "/docs/ops.md";
  const std::string page = docs::ops_reference(NABLA_SOURCE_DIR, probe_dtypes()) + "\n";
  if (std::getenv("NABLA_WRITE_DOCS_OPS")) {
    std::ofstream(path, std::ios::binary) << page;
    std::cout << "wrote " << path << "\n";
    return;
  }
  const std::string checked_in = read_file(path);
  if (checked_in == page) return;
  ASSERT_FALSE(checked_in.empty()) << path << " is missing or empty. Generate it: " << kRegenerate;
  std::istringstream a(checked_in), b(page);
  std::string la, lb;
  int line = 1;
  while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
  FAIL() << "docs/ops.md is out of date (it is generated from the op table and the op headers). "
         << "First difference at line " << line << ":\n  checked in: " << la << "\n  generated:  " << lb
         << "\nRegenerate it: " << kRegenerate;
}

// Every op of the table has an entry (the page is built from op_table(), so
// this guards the scanner: an op whose public function it missed still shows up).
TEST(OpsReference, EveryTableOpHasAnEntry) {
  const std::string page = docs::ops_reference(NABLA_SOURCE_DIR, {});
  for (const OpDef* op : op_table())
    EXPECT_NE(page.find("\n### " + std::string(op->name) + "\n"), std::string::npos) << op->name;
}

TEST(OpsReference, HeaderScannerReadsDeclarationsAndComments) {
  const std::string header =
      "// A test header.\n"
      "#pragma once\n"
      "namespace nabla {\n"
      "struct Opts { int a = 1; };\n"
      "// The sum of \"x\" {braces} in a string.\n"
      "Tensor sum(const Tensor& x, IntList dims = {},\n"
      "           bool keepdim = false);\n"
      "Tensor other(const Tensor& x);  // trailing\n"
      "\n"
      "// max/min of all elements\n"
      "Tensor max(const Tensor& x);\n"
      "Tensor min(const Tensor& x);\n"
      "template <class T>\n"
      "Tensor tensor(const std::vector<T>& v) { return x({1}); }\n"
      "Tensor operator+(const Tensor& a, const Tensor& b);\n"
      "namespace detail { Tensor hidden(); }\n"
      "class Tensor {\n"
      " public:\n"
      "  Tensor() = default;\n"
      "  // Exp.\n"
      "  Tensor exp() const { return nabla::exp(*this); }\n"
      "  Tensor& operator+=(const Tensor& o) { return add_(o); }\n"
      " private:\n"
      "  Tensor secret() const;\n"
      "};\n"
      "}  // namespace nabla\n";
  std::vector<docs::Declaration> d = docs::scan_header(header, "h.h", "Tensor");
  ASSERT_EQ(d.size(), 8u);
  EXPECT_EQ(d[0].name, "sum");
  EXPECT_EQ(d[0].key, "sum(const Tensor&,IntList,bool)");
  EXPECT_EQ(d[0].text, "Tensor sum(const Tensor& x, IntList dims = {}, bool keepdim = false)");
  EXPECT_EQ(d[0].comment, "The sum of \"x\" {braces} in a string.");
  EXPECT_EQ(d[1].comment, "trailing");
  EXPECT_EQ(d[2].comment, "max/min of all elements");
  EXPECT_EQ(d[3].name, "min");
  EXPECT_EQ(d[3].comment, "max/min of all elements");  // the comment of the run names it
  EXPECT_EQ(d[4].name, "tensor");
  EXPECT_EQ(d[5].name, "operator+");
  EXPECT_EQ(d[6].name, "Tensor::exp");
  EXPECT_EQ(d[6].text, "Tensor Tensor::exp() const");
  EXPECT_EQ(d[6].comment, "Exp.");
  EXPECT_EQ(d[7].name, "Tensor::operator+=");
  EXPECT_EQ(docs::header_summary(header), "A test header.");
}

TEST(OpsReference, SourceScannerFindsOpsAndCalls) {
  const std::string source =
      "namespace nabla {\n"
      "extern const OpDef exp_op = unary_float_op(\"exp\", [](GradCtx& c) -> TensorList { return {}; });\n"
      "extern const OpDef add_op{.name = \"add\", .infer = infer};\n"
      "namespace {\n"
      "Tensor helper(const Tensor& x) { return call1(exp_op, {x}); }  // not add_op\n"
      "}  // namespace\n"
      "Tensor exp(const Tensor& x) try { return helper(x); } catch (const Error&) { rethrow(\"exp\"); }\n"
      "Tensor Tensor::exp() const { return nabla::exp(*this).sum(); }\n"
      "}\n";
  docs::SourceFile f = docs::scan_source(source);
  EXPECT_EQ(f.op_variables.at("exp_op"), "exp");
  EXPECT_EQ(f.op_variables.at("add_op"), "add");
  EXPECT_EQ(f.functions.at("helper(const Tensor&)").ops, std::set<std::string>{"exp_op"});
  EXPECT_TRUE(f.functions.at("exp(const Tensor&)").calls.count("helper"));
  EXPECT_TRUE(f.functions.at("exp(const Tensor&)").calls.count("rethrow"));
  EXPECT_TRUE(f.functions.at("Tensor::exp()").calls.count("exp"));
  EXPECT_TRUE(f.functions.at("Tensor::exp()").calls.count("Tensor::sum"));
  EXPECT_EQ(f.functions.size(), 3u);
}

}  // namespace
}  // namespace nabla::testing
