// Arguments anywhere in int64's range (a model file's attributes and
// constants: the ONNX and .nbg fuzz targets) never overflow: sizes past int64
// are refused with a nabla::Error naming the op, steps past a dim take one
// element, and integer arithmetic on tensors wraps as PyTorch's does. Part of
// the sanitizer subset (fuzz/CMakeLists.txt): under UBSan a signed overflow
// or an out-of-range float-to-int conversion here fails the test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/graph/graph.h"
#include "nabla/nabla.h"
#include "support/error_message.h"

namespace nabla {

extern const OpDef slice_op, slice_backward_op;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

using testing::error_of;

#define EXPECT_HUGE_ARGUMENT_ERROR(stmt, ...)                                                                \
  do {                                                                                                       \
    std::string msg_ = error_of([&] { (void)(stmt); });                                                      \
    for (const char* part : {__VA_ARGS__})                                                                   \
      EXPECT_NE(msg_.find(part), std::string::npos) << #stmt << ": missing \"" << part << "\" in: " << msg_; \
  } while (0)

Tensor iota(IntList shape) { return arange(0, checked_numel(shape, "iota"), 1, dtype(kFloat32)).reshape(shape); }

// The CI finding (ONNX Slice, step 7279224372714274815 on a dim of stride 2)
// and the same attributes reaching the op as a graph file gives them
// (nbg::check_attrs lets any step > 0 through): one element, no overflow.
TEST(HugeArguments, AStepPastTheDimTakesOneElement) {
  Tensor x = iota({3, 2});
  EXPECT_EQ(slice(x, 0, 0, 3, 7279224372714274815).to_vector<float>(), (std::vector<float>{0, 1}));
  EXPECT_EQ(slice(x, 0, 1, std::nullopt, kMax).to_vector<float>(), (std::vector<float>{2, 3}));
  Tensor raw = call1(slice_op, {x}, {int64_t{0}, int64_t{1}, int64_t{3}, kMax});
  EXPECT_EQ(raw.sizes(), (Shape{1, 2}));
  EXPECT_EQ(raw.to_vector<float>(), (std::vector<float>{2, 3}));
  Tensor g = call1(slice_backward_op, {ones({1, 2})}, {int64_t{0}, int64_t{1}, int64_t{3}, kMax, Shape{3, 2}});
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{0, 0, 1, 1, 0, 0}));
  // unfold: one window when the step is past the dim.
  Tensor w = unfold(iota({5, 2}), 0, 2, kMax);
  EXPECT_EQ(w.sizes(), (Shape{1, 2, 2}));
  EXPECT_EQ(w.contiguous().to_vector<float>(), (std::vector<float>{0, 2, 1, 3}));
}

TEST(HugeArguments, ConvolutionAndPoolingWindowsPastInt64AreRefused) {
  Tensor x = zeros({1, 1, 4, 4}), w = zeros({1, 1, 3, 3});
  EXPECT_HUGE_ARGUMENT_ERROR(conv2d(x, w, {}, {1, 1}, {0, 0}, {int64_t{1} << 62, 1}), "conv2d: the kernel 3x3",
                             "so above 2^63 - 1x3) is larger than the padded input");
  EXPECT_HUGE_ARGUMENT_ERROR(conv2d(x, w, {}, {1, 1}, {kMax, 0}, {1, 1}), "conv2d: the output size is above 2^63 - 1");
  EXPECT_HUGE_ARGUMENT_ERROR(conv2d(x, zeros({1, 1, 1, 1}), {}, {1, 1}, {0, 0}, {1, 1}, kMax), "conv2d: groups=");
  EXPECT_HUGE_ARGUMENT_ERROR(conv_transpose2d(x, w, {}, {kMax, 1}),
                             "conv_transpose2d: the output height is above 2^63 - 1");
  EXPECT_HUGE_ARGUMENT_ERROR(max_pool2d(x, {3, 3}, {1, 1}, {1, 1}, {kMax, 1}),
                             "max_pool2d: input of shape [1, 1, 4, 4] is too small");
  EXPECT_HUGE_ARGUMENT_ERROR(max_pool2d(x, {kMax, 1}, {1, 1}, {kMax / 2, 0}),
                             "max_pool2d: kernel_size [9223372036854775807, 1]",
                             "more elements than the input's 4x4 planes");
  EXPECT_HUGE_ARGUMENT_ERROR(avg_pool2d(x, {kMax, kMax}, {1, 1}, {kMax / 2, kMax / 2}), "avg_pool2d: kernel_size");
  // A stride past the input: one window, as before.
  EXPECT_EQ(conv2d(x, w, {}, {kMax, kMax}).sizes(), (Shape{1, 1, 1, 1}));
  EXPECT_EQ(max_pool2d(x, {2, 2}, {kMax, kMax}, {0, 0}, {1, 1}, true).sizes(), (Shape{1, 1, 1, 1}));
}

TEST(HugeArguments, PaddedSplitCatAndRepeatedSizesPastInt64AreRefused) {
  Tensor x = zeros({2, 3});
  EXPECT_HUGE_ARGUMENT_ERROR(pad(x, {kMax, 1}), "pad: pads (", "give a size past int64");
  EXPECT_HUGE_ARGUMENT_ERROR(pad(x, {kMax, kMax}), "pad: pads (");
  EXPECT_HUGE_ARGUMENT_ERROR(split(x, {kMax, kMax, 4}, 1), "split: split_sizes", "sum past int64");
  EXPECT_HUGE_ARGUMENT_ERROR(repeat(x, {kMax, 1}), "repeat: repeats", "more elements than fit in int64");
  EXPECT_EQ(chunk(x, kMax, 1).size(), 3u);  // ceil(3 / chunks) without 3 + chunks overflowing
  graph::Graph g;
  Tensor big = g.placeholder(kFloat32, {int64_t{1} << 62}, "big");
  EXPECT_HUGE_ARGUMENT_ERROR(cat({big, big}, 0), "cat: the sizes of dim 0 sum past int64");
  EXPECT_HUGE_ARGUMENT_ERROR(
      g.placeholder(kFloat32, {int64_t{1} << 40, int64_t{1} << 40}, "huge"),
      "graph: 'huge': output 0 of shape [1099511627776, 1099511627776] has more elements than fit in int64");
}

TEST(HugeArguments, AnInterpolateScaleBeyondInt64IsRefused) {
  Tensor x = zeros({1, 1, 2, 2});
  InterpolateOptions o;
  o.scale_factor = {std::numeric_limits<double>::infinity()};
  EXPECT_HUGE_ARGUMENT_ERROR(interpolate(x, o), "interpolate: scale_factor", "expected at most 2^63 - 1");
  o.scale_factor = {1e300};
  EXPECT_HUGE_ARGUMENT_ERROR(interpolate(x, o), "interpolate: scale_factor");
}

// Integer tensors wrap around (two's complement) as PyTorch's do.
TEST(HugeArguments, IntegerArithmeticWraps) {
  auto i64 = [](std::vector<int64_t> v) { return tensor(v); };
  auto vals = [](const Tensor& t) { return t.to_vector<int64_t>(); };
  EXPECT_EQ(vals(add(i64({kMax}), i64({1}))), (std::vector<int64_t>{kMin}));
  EXPECT_EQ(vals(sub(i64({kMin}), i64({1}))), (std::vector<int64_t>{kMax}));
  EXPECT_EQ(vals(mul(i64({kMax}), i64({2}))), (std::vector<int64_t>{-2}));
  EXPECT_EQ(vals(neg(i64({kMin}))), (std::vector<int64_t>{kMin}));
  EXPECT_EQ(vals(abs(i64({kMin}))), (std::vector<int64_t>{kMin}));
  // INT64_MIN / -1 (x86 raises SIGFPE for it): the wrapped quotient, remainder 0.
  EXPECT_EQ(vals(div(i64({kMin, 7}), i64({-1, -1}), "trunc")), (std::vector<int64_t>{kMin, -7}));
  EXPECT_EQ(vals(floor_divide(i64({kMin, 7}), i64({-1, -1}))), (std::vector<int64_t>{kMin, -7}));
  EXPECT_EQ(vals(remainder(i64({kMin, 7}), i64({-1, -1}))), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(vals(pow(i64({2, 2, 3}), i64({63, 64, 2}))), (std::vector<int64_t>{kMin, 0, 9}));
  Tensor i32 = tensor(std::vector<int32_t>{std::numeric_limits<int32_t>::max()});
  EXPECT_EQ(add(i32, i32).to_vector<int32_t>(), (std::vector<int32_t>{-2}));
}

// Floats outside an integer type's range (NaN, huge) convert as x86 does,
// without the undefined behaviour of a plain cast: casts and integer ranges.
TEST(HugeArguments, FloatToIntegerConversionsOutsideTheRangeAreDefined) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor f = tensor(std::vector<double>{nan, 1e30, -1e30, -3.7, 300.0});
  EXPECT_EQ(cast(f, kInt64).to_vector<int64_t>(), (std::vector<int64_t>{kMin, kMin, kMin, -3, 300}));
  const int32_t imin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(cast(f, kInt32).to_vector<int32_t>(), (std::vector<int32_t>{imin, imin, imin, -3, 300}));
  EXPECT_EQ(cast(f.to(kFloat32), kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0, 0, 253, 44}));
  Tensor r = arange(9.2233e18, 9.2234e18, 1e12, dtype(kInt64));
  ASSERT_EQ(r.numel(), 100);
  EXPECT_EQ(r.to_vector<int64_t>().front(), static_cast<int64_t>(9.2233e18));
  EXPECT_EQ(r.to_vector<int64_t>().back(), kMin);  // 9.2233e18 + 99e12 is past INT64_MAX
}

#undef EXPECT_HUGE_ARGUMENT_ERROR

}  // namespace
}  // namespace nabla
