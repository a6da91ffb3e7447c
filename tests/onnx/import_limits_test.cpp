// ONNX models whose attributes, dims and constants are near int64's limits
// (fuzz/regressions/onnx, written from fuzz/regressions-text/onnx with
// protoc): each imports and runs with the values PyTorch would give (integers
// wrap, a step past the dim takes one element), or is refused with an error
// that names the node. The fuzz target replays the same files under ASan and
// UBSan (scripts/fuzz.sh --replay onnx).
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "nabla/nabla.h"
#include "nabla/onnx/import.h"

using namespace nabla;

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

std::string regression(const std::string& name) {
  std::ifstream f(NABLA_TESTS_DIR "/../fuzz/regressions/onnx/" + name, std::ios::binary);
  EXPECT_TRUE(f) << name;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The model's output on zeros of its (one) input's shape.
Tensor run_on_zeros(const std::string& name) {
  nabla::onnx::ImportedModel m = nabla::onnx::import_model_bytes(regression(name), name);
  graph::Graph g = m.graph;
  graph::Session sess(g);
  const Tensor& x = m.inputs.at(0).second;
  return sess.run(m.outputs.at(0).second, {{x, zeros(x.sizes(), dtype(x.dtype()))}});
}

std::string import_error(const std::string& name) {
  try {
    nabla::onnx::import_model_bytes(regression(name), name);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(OnnxImportLimits, ValuesNearInt64sLimitsImportAndRun) {
  // The CI finding: Slice with step 7279224372714274815 on a dim of stride 2.
  EXPECT_EQ(run_on_zeros("slice_step_past_int64_stride").sizes(), (Shape{1, 2}));
  // Folded constants: NaN and +-1e30 cast to int64; INT64_MIN / -1, sums and negations that wrap.
  EXPECT_EQ(run_on_zeros("cast_nan_to_int64").to_vector<int64_t>(), (std::vector<int64_t>{kMin, kMin, kMin}));
  EXPECT_EQ(run_on_zeros("int64_min_div_minus_one").to_vector<int64_t>(), (std::vector<int64_t>{0, 2}));
  // An int64 Range up to INT64_MAX (computed in double: its last values round past it).
  Tensor r = run_on_zeros("range_past_int64");
  ASSERT_EQ(r.numel(), 11);
  EXPECT_EQ(r.to_vector<int64_t>()[0], 9223372036854774784);
}

TEST(OnnxImportLimits, SizesPastInt64AreRefusedNamingTheNode) {
  const std::pair<const char*, std::vector<const char*>> cases[] = {
      {"conv_dilation_past_int64", {"Conv node 'conv' (opset 17): conv2d: the kernel 3x3", "larger than the padded input"}},
      {"maxpool_kernel_past_int64", {"MaxPool node 'pool' (opset 17): max_pool2d: kernel_size"}},
      {"pad_size_past_int64", {"Pad node 'pad' (opset 17): pad: pads (", "give a size past int64"}},
      {"split_sizes_past_int64", {"Split node 'split' (opset 17): split_with_sizes: split_sizes", "sum past int64"}},
      {"resize_infinite_scale", {"Resize node 'resize' (opset 17): interpolate: scale_factor"}},
      // Found by the fuzzer (from range_past_int64): Ranges folded on import of a billion values (8 GB)
      // and of 22 million (over the fuzzer's 10 s under ASan).
      {"range_of_a_billion_values", {"Range node 'egren' (opset 17): the range", "at most 2^24 values"}},
      {"range_of_22_million_values", {"Range node 'renge' (opset 17): the range", "at most 2^24 values"}},
      {"input_elements_past_int64",
       {"input 'x': shape [17179869184, 17179869184, 17179869184] has more than 17179869184 elements"}},
  };
  for (const auto& [name, parts] : cases) {
    std::string msg = import_error(name);
    EXPECT_NE(msg.find(std::string("onnx import: ") + name + ": "), std::string::npos) << msg;
    for (const char* part : parts) EXPECT_NE(msg.find(part), std::string::npos) << name << ": " << msg;
  }
}

}  // namespace
