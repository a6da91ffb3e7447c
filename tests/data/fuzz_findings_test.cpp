// What the libFuzzer targets (fuzz/, docs/fuzzing.md) found, as readable
// tests of the messages; the inputs themselves are replayed from
// fuzz/regressions/ by scripts/fuzz.sh --replay.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/temp_files.h"

namespace nabla {
namespace {

using testing::error_of;
using testing::expect_error;

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = testing::temp_path_in("nabla_fuzz_findings", name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// An empty tensor whose other dims multiply past int64: its strides overflowed
// (UBSan: signed overflow in contiguous_strides). Found by fuzz/idx, idx_gzip.
TEST(FuzzFindings, EmptyShapeWithHugeDimsIsRefused) {
  expect_error(error_of([] { empty({0, int64_t(1) << 40, int64_t(1) << 40}); }),
               {"empty: size [0, 1099511627776, 1099511627776] has more elements than fit in int64",
                "not counting its 0-size dims"});
  EXPECT_EQ(empty({0, int64_t(1) << 31, int64_t(1) << 31}).numel(), 0);  // strides still fit: allowed
  // IDX: 3 dims [0, 2^32-1, 2^32-1] of uint8, no data bytes.
  const std::string idx = write_temp("huge_empty.idx", std::string("\0\0\x08\x03\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff", 16));
  expect_error(error_of([&] { data::read_idx(idx); }),
               {"read_idx: '", "huge_empty.idx", "declares dims [0, 4294967295, 4294967295]", "overflows int64"});
}

// view/reshape sizes whose product passes int64 before the -1 is inferred:
// signed overflow in infer_size. Found by fuzz/nbg (a saved while_loop body
// with a 'view' node of shape [16580610, 4251398048237748225]).
TEST(FuzzFindings, ViewShapePastInt64IsRefused) {
  const Tensor x = zeros({4});
  expect_error(error_of([&] { x.view({-1, int64_t(1) << 40, int64_t(1) << 40}); }),
               {"view: shape [-1, 1099511627776, 1099511627776] has more elements than fit in int64"});
  expect_error(error_of([&] { reshape(x, {int64_t(1) << 40, -1, int64_t(1) << 40}); }),
               {"reshape: shape", "has more elements than fit in int64"});
}

}  // namespace
}  // namespace nabla
