// The sweep's mutator (mutator.h): its generator is splitmix64 bit for bit
// (so a seed names the same mutants on every machine), the same arguments
// give the same mutants, and the mutants are what they say they are.
#include "tests/support/mutator.h"

#include <gtest/gtest.h>

#include <set>

namespace nabla::testing {
namespace {

TEST(Mutator, SplitMix64IsTheReferenceSequence) {
  // The first outputs for seed 1234567 of Vigna's splitmix64.c.
  SplitMix64 rng(1234567);
  for (uint64_t want : {6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
                        4593380528125082431ull, 16408922859458223821ull})
    EXPECT_EQ(rng.next(), want);
}

MutatorSpec spec() {
  MutatorSpec s;
  s.fields = {{"size", 4, 4, FieldKind::LittleEndian, {}, true},
              {"count", 8, 2, FieldKind::BigEndian},
              {"digits", 12, 3, FieldKind::Decimal},
              {"more digits", 20, 4, FieldKind::Decimal},
              {"dtype", 16, 3, FieldKind::Tag, {"I32", "F64"}, true}};
  s.cut_points = {10};
  s.length_is_declared = true;
  return s;
}

constexpr char kGoodBytes[] = "HEAD\x10\0\0\0\0\x03..123.F32.tail-of-the-file";  // fields at 4, 8, 12, 16, 20
const std::string kGood(kGoodBytes, sizeof kGoodBytes - 1);

TEST(Mutator, SameSeedSameMutantsOtherSeedOthers) {
  const auto a = make_mutants(kGood, spec(), 7, 200), b = make_mutants(kGood, spec(), 7, 200);
  const auto c = make_mutants(kGood, spec(), 8, 200);
  ASSERT_EQ(a.size(), 200u);
  int same_as_other_seed = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].bytes, b[i].bytes);
    EXPECT_EQ(a[i].what, b[i].what);
    same_as_other_seed += a[i].bytes == c[i].bytes;
  }
  EXPECT_LT(same_as_other_seed, 20);
}

TEST(Mutator, MutantsAreWhatTheySay) {
  std::set<MutationKind> kinds;
  for (const Mutant& m : make_mutants(kGood, spec(), 13, 500)) {
    kinds.insert(m.kind);
    EXPECT_NE(m.bytes, kGood);
    if (m.truncated()) {
      EXPECT_LT(m.bytes.size(), kGood.size());
      EXPECT_EQ(m.bytes, kGood.substr(0, m.bytes.size()));
      EXPECT_TRUE(m.must_refuse);  // length_is_declared
    }
    if (m.kind == MutationKind::BitFlip) EXPECT_EQ(m.bytes.size(), kGood.size());
    if (m.kind == MutationKind::Append) EXPECT_EQ(m.bytes.substr(0, kGood.size()), kGood);
    if (m.kind == MutationKind::FieldEdit && m.what.find("'size'") != std::string::npos) {
      EXPECT_TRUE(m.must_refuse) << m.what;  // a redundant field
      EXPECT_EQ(m.bytes.substr(8), kGood.substr(8));
    }
    if (m.kind == MutationKind::FieldEdit && m.what.find("'count'") != std::string::npos) EXPECT_FALSE(m.must_refuse);
  }
  EXPECT_EQ(kinds.size(), 7u);  // every kind of damage occurs (swaps: the two Decimal fields)
}

}  // namespace
}  // namespace nabla::testing
