// `nabla run` end to end: a graph is built and trained in this process (plain
// gradient descent written with graph ops), saved with Session::save, then
// the `nabla` binary runs it in a fresh process on an .npy input; its output
// must equal the in-process result bit for bit, as must Session::load's.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "nabla/nabla.h"
#include "support/run_nabla.h"
#include "support/run_program.h"
#include "support/same_bits.h"

namespace nabla::tool {
namespace {

namespace fs = std::filesystem;

using nabla::testing::ProgramRun;

// The `nabla` binary with `args`; out holds stdout and stderr.
using nabla::testing::run_nabla;

using nabla::testing::same_bits;

class NablaRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nabla_run_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    manual_seed(5);
    // Linear regression y = x w + b, trained by gradient descent on mean squared error.
    graph::Graph g;
    graph::LocationScope at;
    Tensor x = g.placeholder(kFloat32, {16, 3}, "x");
    Tensor t = g.placeholder(kFloat32, {16, 1}, "target");
    Tensor w, b;
    {
      auto scope = g.name_scope("dense");
      w = g.variable(zeros({3, 1}), "kernel");
      b = g.variable(zeros({1}), "bias");
    }
    Tensor y = g.set_name(matmul(x, w) + b, "y_pred");
    Tensor err = y - t;
    g.set_name(mean(err * err), "loss");
    Tensor grad_w = matmul(x.t(), err) * (2.0 / 16);
    Tensor grad_b = sum(err, {0}) * (2.0 / 16);
    Tensor train = graph::group({graph::assign_sub(w, grad_w * 0.1), graph::assign_sub(b, grad_b * 0.1)});
    graph::Session sess(g);
    sess.run(g.global_variables_initializer());
    Tensor true_w = tensor({1.5, -2.0, 0.5}).reshape({3, 1});
    Tensor xs = randn({16, 3});
    Tensor ts = matmul(xs, true_w) + 0.25;
    for (int i = 0; i < 50; ++i) sess.run(train, {{x, xs}, {t, ts}});
    model_ = (dir_ / "model.nbg").string();
    sess.save(model_);

    input_ = randn({16, 3});
    targets_ = matmul(input_, true_w) + 0.25;
    auto outs = sess.run({y, g.tensor("loss")}, {{x, input_}, {t, targets_}});
    want_y_ = outs[0];
    want_loss_ = outs[1];
    data::write_npy(path("in.npy"), input_);
    data::write_npy(path("t.npy"), targets_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  std::string model_;
  Tensor input_, targets_, want_y_, want_loss_;
};

TEST_F(NablaRun, AFreshProcessComputesTheSameBits) {
  ProgramRun r = run_nabla("run " + model_ + " --feed x=" + path("in.npy") + " --fetch y_pred --out " + path("out.npy"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("y_pred: float32 [16, 1] -> "), std::string::npos) << r.out;
  Tensor got = data::read_npy(path("out.npy"));
  EXPECT_TRUE(same_bits(got, want_y_)) << got << "\nvs\n" << want_y_;
  // The model learned something: the loss is small on fresh inputs.
  EXPECT_LT(want_loss_.item<float>(), 0.05f);

  // Session::load in this process gives the same bits too.
  graph::Session loaded = graph::Session::load(model_);
  EXPECT_TRUE(same_bits(loaded.run({"y_pred"}, {{"x", input_}})[0], want_y_));
}

TEST_F(NablaRun, SeveralFetchesIntoOneNpzOrPrinted) {
  ProgramRun r = run_nabla("run " + model_ + " --feed x=" + path("in.npy") + " --feed=target=" + path("t.npy") +
                           " --fetch y_pred --fetch loss --out " + path("all.npz"));
  ASSERT_EQ(r.code, 0) << r.out;
  data::NpzArrays arrays = data::read_npz(path("all.npz"));
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays[0].first, "y_pred");
  EXPECT_TRUE(same_bits(arrays[0].second, want_y_));
  EXPECT_EQ(arrays[1].first, "loss");
  EXPECT_TRUE(same_bits(arrays[1].second, want_loss_));

  // Two .npy files, one per fetch.
  r = run_nabla("run " + model_ + " --feed x=" + path("in.npy") + " --feed target=" + path("t.npy") +
                " --fetch loss --fetch dense/kernel --out " + path("l.npy") + " --out " + path("k.npy"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(same_bits(data::read_npy(path("l.npy")), want_loss_));
  EXPECT_EQ(data::read_npy(path("k.npy")).sizes(), (Shape{3, 1}));

  // Without --out the values are printed.
  r = run_nabla("run " + model_ + " --fetch dense/bias");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("dense/bias = "), std::string::npos) << r.out;
}

TEST_F(NablaRun, ClearErrors) {
  const std::string feed = " --feed x=" + path("in.npy");
  ProgramRun r = run_nabla("run " + model_ + feed + " --fetch y_prd --out " + path("o.npy"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("no node called 'y_prd'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x, target"), std::string::npos) << "placeholders are listed first\n" << r.out;
  EXPECT_FALSE(fs::exists(path("o.npy")));

  data::write_npy(path("small.npy"), randn({2, 3}));
  r = run_nabla("run " + model_ + " --feed x=" + path("small.npy") + " --fetch y_pred");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("placeholder 'x' (created at "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expects shape [16, 3] but was fed shape [2, 3]"), std::string::npos) << r.out;

  data::write_npy(path("f64.npy"), randn({16, 3}, kFloat64));
  r = run_nabla("run " + model_ + " --feed x=" + path("f64.npy") + " --fetch y_pred");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("expects dtype float32 but was fed float64"), std::string::npos) << r.out;

  r = run_nabla("run " + model_ + " --feed dense/kernel=" + path("in.npy") + " --fetch y_pred");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("'dense/kernel' is not a placeholder"), std::string::npos) << r.out;

  r = run_nabla("run " + model_ + " --fetch y_pred");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("which was not fed"), std::string::npos) << r.out;

  r = run_nabla("run " + path("in.npy") + " --fetch y_pred");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("is not a .nbg saved graph"), std::string::npos) << r.out;

  // A directory where the saved graph should be: the API, the path and the OS's reason.
  r = run_nabla("run " + dir_.string() + " --fetch y_pred");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("error: graph::Session::load: cannot read the file '" + dir_.string() + "': Is a directory"),
            std::string::npos)
      << r.out;
  r = run_nabla("run " + model_ + " --feed x=" + dir_.string() + " --fetch y_pred");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("read_npy: cannot read the file '" + dir_.string() + "': Is a directory"), std::string::npos)
      << r.out;

  r = run_nabla("run " + model_ + " --fetch y_pred --out " + path("a.txt"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("see `nabla run --help`"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace nabla::tool
