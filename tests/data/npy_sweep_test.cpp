// Corrupted-file sweep of read_npy (issue 13, acceptance 2): 300 seeded
// mutants of a file written by write_npy. .npy has no checksum: a changed
// data byte, a relabelled dtype of the same width, another byte order or
// fortran_order loads as different values and is counted; a changed shape or
// header length, or a cut-off file, must be refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "nabla/nabla.h"
#include "tests/support/sweep.h"
#include "tests/support/sweep_formats.h"

namespace nabla::data {
namespace {

using namespace nabla::testing;

TEST(NpySweep, EveryMutantIsRefusedOrLoadsConsistently) {
  const std::string dir = sweep_dir("npy");
  const std::string good_path = dir + "/good.npy";
  write_npy(good_path, arange(0, 12, 1, dtype(kFloat32)).reshape({3, 4}));
  const std::string good = file_bytes(good_path);
  const std::size_t header_len = static_cast<uint8_t>(good[8]) | (static_cast<uint8_t>(good[9]) << 8);
  const std::string header = good.substr(10, header_len);
  MutatorSpec spec;
  spec.fields = {{"magic", 0, 6, FieldKind::LittleEndian},
                 {"major version", 6, 1, FieldKind::LittleEndian},
                 {"minor version", 7, 1, FieldKind::LittleEndian},
                 {"header length", 8, 2, FieldKind::LittleEndian, {}, true, true}};
  const std::size_t descr = header.find("'descr': '") + 10;
  spec.fields.push_back({"descr", 10 + descr, 3, FieldKind::Tag,
                         {"<i4", ">f4", "<f8", "|b1", "<f2", "|u1", "<i8", "<u4", "f4", "<f4x", "", "'<f4'"}});
  const std::size_t order = header.find("False");
  spec.fields.push_back({"fortran_order", 10 + order, 5, FieldKind::Tag, {"True", "false", "0", "None", "''"}});
  for (std::size_t p = header.find("'shape': (") + 10; header[p] != ')'; ++p)
    if (header[p] >= '0' && header[p] <= '9')
      spec.fields.push_back({"shape digit at " + std::to_string(10 + p), 10 + p, 1, FieldKind::Decimal, {}, true, false, "shape"});
  const std::size_t data_size = good.size() - 10 - header_len;
  spec.repair = [data_size](std::string& b) {  // the header length after a text edit
    if (b.size() < 10 + data_size) return;
    const std::size_t n = b.size() - 10 - data_size;
    b[8] = static_cast<char>(n & 0xff), b[9] = static_cast<char>((n >> 8) & 0xff);
  };
  spec.header_end = 10 + header_len;
  spec.length_is_declared = true;
  SweepCase c{"read_npy", "read_npy", dir + "/mutant.npy", /*checked=*/false,
              [](const std::string& path) { return describe(read_npy(path)); }, {}};
  const SweepTally t = run_sweep(c, good, make_mutants(good, spec, /*seed=*/1302, mutant_count(300)));
  EXPECT_GT(t.refused, 150);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nabla::data
