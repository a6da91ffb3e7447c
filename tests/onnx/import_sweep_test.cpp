// Corrupted-file sweep of the ONNX importer (issue 19, acceptance 5): 600
// seeded mutants (tests/support/mutator, seed 1901) of a small CNN exported by
// nabla (Conv, Relu, MaxPool, Flatten/Reshape, Gemm). Each is refused with a
// nabla::Error naming "onnx import" and the file, or imports, and then runs
// on zeros, without crashing or hanging (sweep.h's rules and watchdog). ONNX
// has no checksum: a changed weight byte imports as a different weight and
// is counted as a different load.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "nabla/nabla.h"
#include "nabla/onnx/export.h"
#include "nabla/onnx/import.h"
#include "tests/support/sweep.h"

namespace {

using namespace nabla;
using namespace nabla::testing;

// Imports `path`, runs the model on zeros (inputs of known, small shape) and
// describes the graph's inputs, outputs and values completely.
std::string import_and_run(const std::string& path) {
  nabla::onnx::ImportedModel m = nabla::onnx::import_model(path);
  std::ostringstream out;
  graph::Graph g = m.graph;
  graph::Feeds feeds;
  bool runnable = !m.outputs.empty();
  for (const auto& [name, ph] : m.inputs) {
    out << ::nabla::detail::concat("in ", name, " ", ph.dtype(), " ", ph.sizes(), ";");
    int64_t n = 1;
    for (int64_t d : ph.sizes()) n = d < 0 ? -1 : n * d;
    if (n < 0 || n > 100000) runnable = false;
    if (runnable) feeds.emplace_back(ph, zeros(ph.sizes(), TensorOptions(ph.dtype())));
  }
  if (!runnable) return out.str();
  std::vector<Tensor> fetches;
  for (const auto& [name, t] : m.outputs) fetches.push_back(t);
  try {
    graph::Session sess(g);
    sess.run(g.global_variables_initializer());
    std::vector<Tensor> ys = sess.run(fetches, feeds);
    for (std::size_t k = 0; k < ys.size(); ++k)
      out << ::nabla::detail::concat("out ", m.outputs[k].first, " ", ys[k].dtype(), " ", ys[k].sizes(), " ", ys[k], ";");
  } catch (const Error& e) {
    // A model that imports but cannot run (its shapes check out at build
    // time, so this is rare) is refused as the sweep expects: named.
    NABLA_CHECK(false, "onnx import: ", path, ": running the imported model failed: ", e.what());
  }
  return out.str();
}

TEST(OnnxImportSweep, EveryMutantIsRefusedOrImportsAndRuns) {
  const std::string dir = sweep_dir("onnx_import");
  const std::string good_path = dir + "/good.onnx";
  manual_seed(1901);
  nn::Sequential cnn(nn::Conv2d(1, 2, 3), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(8, 3));
  nabla::onnx::export_module(cnn, randn({1, 1, 6, 6}), good_path);
  const std::string good = file_bytes(good_path);
  MutatorSpec spec;
  spec.header_end = good.size();  // protobuf has no header; damage falls anywhere
  SweepCase c{"onnx import", "onnx import", dir + "/mutant.onnx", /*checked=*/false, import_and_run, {}};
  const std::vector<Mutant> mutants = make_mutants(good, spec, /*seed=*/1901, mutant_count(600));
  const SweepTally t = run_sweep(c, good, mutants);
  EXPECT_GE(t.mutants, 600);
  // A sample, printed for the log: the first truncation and its refusal.
  for (const Mutant& m : mutants) {
    if (!m.truncated()) continue;
    put_file(c.path, m.bytes);
    try {
      import_and_run(c.path);
      ADD_FAILURE() << "a truncated model imported: " << m.what;
    } catch (const Error& e) {
      std::printf("[sweep sample] %s -> %s\n", m.what.c_str(), e.what());
    }
    break;
  }
  EXPECT_GT(t.refused, 200);  // the sweep reaches the checks, not only weight bytes
  std::filesystem::remove_all(dir);
}

}  // namespace
