// Corrupted-file sweep of load_safetensors (issue 13, acceptance 2): 400
// seeded mutants of a file written by save_safetensors (every dtype, an empty
// tensor, metadata). safetensors has no checksum: a changed data byte or a
// relabelled dtype of the same width loads as different values and is
// counted; a changed shape, data offset or header length must be refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/sweep.h"
#include "tests/support/sweep_formats.h"

namespace nabla::io {
namespace {

using namespace nabla::testing;

// Found by the sweep (through restore_training_state): a header length one
// short moved the header's last padding space into the data section, and
// every tensor loaded shifted by one byte. The tensors must fill the data
// section exactly, as Python's safetensors requires (MetadataIncompleteBuffer).
TEST(SafetensorsSweep, TensorsMustFillTheDataSection) {
  const std::string dir = sweep_dir("safetensors_fill");
  const std::string path = dir + "/x.safetensors";
  save_safetensors(path, {{"w", arange(0, 4, 1, dtype(kFloat32))}});
  const std::string good = file_bytes(path);
  std::string shifted = good;
  shifted[0] = static_cast<char>(shifted[0] - 1);  // the header length, one byte less
  put_file(path, shifted);
  expect_error(error_of([&] { load_safetensors(path); }),
               {"load_safetensors: '", path.c_str(), "data_offsets end at 16 but the data section has 17 bytes"});
  put_file(path, good + "junk");
  expect_error(error_of([&] { load_safetensors(path); }), {path.c_str(), "the data section has 20 bytes"});
  const std::string header = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})";
  std::string len(8, '\0');
  len[0] = static_cast<char>(header.size());
  put_file(path, len + header + "abcd");
  expect_error(error_of([&] { load_safetensors(path); }),
               {path.c_str(), "tensor 'a' field 'data_offsets' starts at 2, expected 0"});
  std::filesystem::remove_all(dir);
}

TEST(SafetensorsSweep, EveryMutantIsRefusedOrLoadsConsistently) {
  const std::string dir = sweep_dir("safetensors");
  const std::string good_path = dir + "/good.safetensors";
  save_safetensors(good_path,
                   {{"w", arange(0, 6, 1, dtype(kFloat32)).reshape({2, 3})},
                    {"b", full({3}, -2.5, dtype(kFloat64))},
                    {"ids", arange(0, 4, 1, dtype(kInt64))},
                    {"n", arange(0, 2, 1, dtype(kInt32))},
                    {"h", ones({2}, dtype(kFloat16))},
                    {"bf", ones({2}, dtype(kBFloat16))},
                    {"mask", ones({2, 2}, dtype(kBool))},
                    {"bytes", arange(0, 5, 1, dtype(kUInt8))},
                    {"empty", zeros({0, 3})}},
                   {{"epoch", "12"}, {"note", "sweep"}});
  const std::string good = file_bytes(good_path);
  MutatorSpec spec;
  spec.fields = safetensors_fields(good, /*dtype_redundant=*/false);
  spec.repair = safetensors_repair(good);
  spec.header_end = good.size() - 8 * 5;  // the data section is small; most of the file is header
  spec.length_is_declared = true;
  SweepCase c{"load_safetensors", "load_safetensors", dir + "/mutant.safetensors", /*checked=*/false,
              [](const std::string& path) {
                Metadata meta;
                std::string out = describe_all(load_safetensors(path, &meta));
                for (const auto& [k, v] : meta) out += k + ":" + v + ";";
                return out;
              },
              {}};
  const SweepTally t = run_sweep(c, good, make_mutants(good, spec, /*seed=*/1301, mutant_count(400)));
  EXPECT_GT(t.refused, 200);  // the sweep reaches the checks, not only the loads
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nabla::io
