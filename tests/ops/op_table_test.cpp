// Runs every OpInfo (see tests/support/op_info.h): forward vs reference in
// float64/float32, contiguous and not; gradcheck; gradgradcheck; and checks
// that every op in nabla's op table is covered by some entry.
#include <gtest/gtest.h>

#include <set>

#include "support/op_info.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

class OpTable : public ::testing::TestWithParam<std::size_t> {
 protected:
  const OpInfo& info() const { return op_infos()[GetParam()]; }
};

TEST_P(OpTable, ForwardFloat64) { check_forward(info(), kFloat64, false); }

TEST_P(OpTable, ForwardFloat32) {
  if (!info().float32) GTEST_SKIP() << "float64 only";
  check_forward(info(), kFloat32, false);
}

TEST_P(OpTable, ForwardNonContiguous) {
  if (!info().noncontiguous) GTEST_SKIP() << "layout-independent inputs";
  check_forward(info(), kFloat64, true);
  if (info().float32) check_forward(info(), kFloat32, true);
}

TEST_P(OpTable, Gradcheck) {
  if (!info().differentiable) GTEST_SKIP() << "not differentiable";
  auto samples = info().samples();
  for (std::size_t s = 0; s < samples.size(); ++s) {
    std::string err = gradcheck(info(), samples[s]);
    EXPECT_TRUE(err.empty()) << info().name << " sample " << s << ": " << err;
  }
}

TEST_P(OpTable, Gradgradcheck) {
  if (!info().differentiable || !info().gradgrad) GTEST_SKIP() << "no second derivative check";
  auto samples = info().samples();
  for (std::size_t s = 0; s < samples.size(); ++s) {
    std::string err = gradgradcheck(info(), samples[s]);
    EXPECT_TRUE(err.empty()) << info().name << " sample " << s << ": " << err;
  }
}

// On the opaque test device (support/opaque_backend.h), whose memory the host
// cannot read: an op whose code above the kernels touches device memory, or
// that makes a tensor on the CPU where its inputs are elsewhere, fails here.
TEST_P(OpTable, ForwardOnTheOpaqueDevice) {
  const OpInfo d = on_device(info(), opaque_device());
  check_forward(d, kFloat64, false);
  if (info().float32) check_forward(d, kFloat32, false);
  if (info().noncontiguous) check_forward(d, kFloat64, true);
}

TEST_P(OpTable, GradcheckOnTheOpaqueDevice) {
  if (!info().differentiable) GTEST_SKIP() << "not differentiable";
  const OpInfo d = on_device(info(), opaque_device());
  auto samples = info().samples();
  for (std::size_t s = 0; s < samples.size(); ++s) {
    std::string err = gradcheck(d, samples[s]);
    EXPECT_TRUE(err.empty()) << info().name << " sample " << s << ": " << err;
  }
}

std::string op_info_name(const ::testing::TestParamInfo<std::size_t>& p) { return op_infos()[p.param].name; }

INSTANTIATE_TEST_SUITE_P(Ops, OpTable, ::testing::ValuesIn(op_info_indices()), op_info_name);

// Ops whose coverage comes through another op's gradient rule.
const std::set<std::string> kCoveredByGradients = {"slice_backward", "unfold_backward"};

TEST(OpTableCoverage, EveryOpHasATestEntry) {
  std::set<std::string> covered = kCoveredByGradients;
  for (const OpInfo& info : op_infos()) covered.insert(info.covers.begin(), info.covers.end());
  std::string missing;
  for (const OpDef* op : op_table())
    if (!covered.count(std::string(op->name))) missing += " " + std::string(op->name);
  EXPECT_TRUE(missing.empty()) << "ops without an OpInfo entry:" << missing;
}

TEST(OpTableCoverage, Counts) {
  int differentiable = 0, gradgrad = 0;
  std::set<std::string> grad_ops, gradgrad_ops;
  for (const OpInfo& info : op_infos()) {
    if (info.differentiable) grad_ops.insert(info.covers.begin(), info.covers.end());
    if (info.differentiable && info.gradgrad) gradgrad_ops.insert(info.covers.begin(), info.covers.end());
  }
  differentiable = static_cast<int>(grad_ops.size());
  gradgrad = static_cast<int>(gradgrad_ops.size());
  std::printf("op table: %zu ops; OpInfo entries: %zu; ops under gradcheck: %d; under gradgradcheck: %d\n",
              op_table().size(), op_infos().size(), differentiable, gradgrad);
  EXPECT_GT(op_table().size(), 0u);
}

}  // namespace
}  // namespace nabla::testing
