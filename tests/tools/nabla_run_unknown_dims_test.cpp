// Saved graphs with unknown dims: a classifier built for batch -1 and saved
// loads in this process and in a fresh `nabla run` process and gives the same
// bits as the session that saved it, for batches of any size. The file says
// format 1.2 (unknown dims); graphs without them stay 1.1 files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "nabla/nabla.h"
#include "support/run_program.h"
#include "support/same_bits.h"

namespace nabla::tool {
namespace {

namespace fs = std::filesystem;

using nabla::testing::same_bits;

uint16_t file_minor(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return static_cast<uint16_t>(static_cast<unsigned char>(b.at(10)) | static_cast<unsigned char>(b.at(11)) << 8);
}

TEST(NablaRunUnknownDims, AnyBatchSizeRunsToTheSameBitsInAFreshProcess) {
  const fs::path dir = fs::temp_directory_path() / ("nabla_run_unknown_dims_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto path = [&](const std::string& name) { return (dir / name).string(); };
  manual_seed(5);
  graph::Graph g;
  graph::LocationScope at;
  Tensor x = g.placeholder(kFloat32, {-1, 6}, "x");
  Tensor labels = g.placeholder(kInt64, {-1}, "labels");
  Tensor logits = graph::layers::dense(graph::layers::dense(x, 8, relu), 3);
  Tensor probs = g.set_name(softmax(logits, 1), "probs");
  Tensor loss = g.set_name(cross_entropy(logits, labels), "loss");  // a mean over the batch
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  sess.save(path("classifier.nbg"));
  EXPECT_EQ(file_minor(path("classifier.nbg")), 2);

  graph::Session loaded = graph::Session::load(path("classifier.nbg"));
  for (int64_t n : {1, 4, 9}) {
    SCOPED_TRACE(n);
    const Tensor xv = randn({n, 6});
    const Tensor lv = randint(0, 3, {n});
    const std::vector<Tensor> want = sess.run({probs, loss}, {{x, xv}, {labels, lv}});
    const std::vector<Tensor> here = loaded.run({"probs", "loss"}, {{"x", xv}, {"labels", lv}});
    EXPECT_TRUE(same_bits(here[0], want[0]));
    EXPECT_TRUE(same_bits(here[1], want[1]));
    data::write_npy(path("x.npy"), xv);
    data::write_npy(path("labels.npy"), lv);
    nabla::testing::ProgramRun r = nabla::testing::run_program(
        std::string(NABLA_TOOLS_DIR) + "/nabla run " + path("classifier.nbg") + " --feed x=" + path("x.npy") +
        " --feed labels=" + path("labels.npy") + " --fetch probs --fetch loss --out " + path("probs.npy") + " --out " +
        path("loss.npy") + " 2>&1");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_TRUE(same_bits(data::read_npy(path("probs.npy")), want[0]));
    EXPECT_TRUE(same_bits(data::read_npy(path("loss.npy")), want[1]));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nabla::tool
