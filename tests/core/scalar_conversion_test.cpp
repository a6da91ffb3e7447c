// Scalar from a floating value keeps an int64 view (to_int) for ops that take
// integers: NaN, infinities and values past int64 give INT64_MIN, as x86's
// conversion does, instead of the undefined behaviour of a plain cast (UBSan
// reported it for clamp/max-pool tests with NaN bounds in the sanitizer run).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/nabla.h"

namespace nabla {
namespace {

TEST(ScalarConversion, NonFiniteAndHugeFloatsGiveInt64Min) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Scalar(std::nan("")).to_int(), kMin);
  EXPECT_EQ(Scalar(INFINITY).to_int(), kMin);
  EXPECT_EQ(Scalar(-INFINITY).to_int(), kMin);
  EXPECT_EQ(Scalar(1e19).to_int(), kMin);
  EXPECT_EQ(Scalar(-9223372036854775808.0).to_int(), kMin);  // exactly representable
  EXPECT_EQ(Scalar(-2.9).to_int(), -2);                       // truncation, as before
  EXPECT_EQ(Scalar(9.2e18).to_int(), int64_t(9200000000000000000));
  EXPECT_TRUE(std::isnan(Scalar(std::nan("")).to_double()));
}

}  // namespace
}  // namespace nabla
