// Corrupted-file sweep of read_csv (issue 13, acceptance 2): 300 seeded
// mutants of a CSV file with a header row. CSV says nothing twice and has no
// checksum: a changed digit, a cut at the end of a row or a dropped line loads
// as different values and is counted; anything that is not a number in the
// one strict grammar, or a row of another width, must be refused naming
// read_csv, the file, the line and the column.
#include <gtest/gtest.h>

#include <filesystem>

#include "nabla/nabla.h"
#include "tests/support/sweep.h"
#include "tests/support/sweep_formats.h"

namespace nabla::data {
namespace {

using namespace nabla::testing;

TEST(CsvSweep, EveryMutantIsRefusedOrLoads) {
  const std::string good =
      "sepal_length,sepal_width,petal_length,label\n"
      "5.1,3.5,1.4,0\n"
      "4.9,-3.0,1.4e0,0\n"
      "\"7.0\", 3.2 ,4.7,1\r\n"
      "6.4,+3.2,.45,1\n"
      "6.3,3.3,6.0,2\n"
      "inf,-Infinity,nan,2\n";
  MutatorSpec spec;
  for (std::size_t p = good.find('\n'); p < good.size();) {  // every number after the header
    while (p < good.size() && !(good[p] >= '0' && good[p] <= '9')) ++p;
    const std::size_t start = p;
    while (p < good.size() && good[p] >= '0' && good[p] <= '9') ++p;
    if (p > start) spec.fields.push_back({"number at " + std::to_string(start), start, p - start, FieldKind::Decimal});
  }
  for (std::size_t p = good.find(','); p != std::string::npos; p = good.find(',', p + 1))
    spec.fields.push_back({"comma at " + std::to_string(p), p, 1, FieldKind::Tag, {";", "", ",,", "\t", "\"", " "}});
  for (std::size_t p = good.find('\n'); p != std::string::npos; p = good.find('\n', p + 1)) spec.cut_points.push_back(p);
  const std::string dir = sweep_dir("csv");
  SweepCase c{"read_csv", "read_csv", dir + "/mutant.csv", /*checked=*/false,
              [](const std::string& path) {
                std::vector<std::string> names;
                const Tensor t = read_csv(path, {.header = true, .dtype = kFloat64}, &names);
                std::string out;
                for (const std::string& n : names) out += n + ",";
                return out + describe(t);
              },
              {}};
  const SweepTally t = run_sweep(c, good, make_mutants(good, spec, /*seed=*/1314, mutant_count(300)));
  EXPECT_GT(t.refused, 100);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nabla::data
