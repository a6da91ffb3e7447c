// `nabla export MODEL.nbg --onnx FILE.onnx`: the binary, end to end. A saved
// graph with an unknown batch dim and trained-looking variable values is
// exported, checked by ONNX's C++ checker and run by onnxruntime at another
// batch size than it was built with; mistakes exit 2 (usage) or 1 (naming
// the problem).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "nabla/data/npy.h"
#include "nabla/nabla.h"
#include "onnx/checker.h"
#include "support/run_program.h"

namespace fs = std::filesystem;
using namespace nabla;

namespace {
const std::string kNabla = std::string(NABLA_TOOLS_DIR) + "/nabla";
}

TEST(NablaExportCommand, WritesACheckedOnnxModelThatOnnxruntimeRunsLikeNabla) {
  fs::path dir = fs::temp_directory_path() / ("nabla_export_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Remove {
    fs::path p;
    ~Remove() { fs::remove_all(p); }
  } remove{dir};
  manual_seed(1);
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 6}, "x");
  Tensor w = g.variable(randn({6, 5}), "w");
  Tensor b = g.variable(randn({5}), "b");
  Tensor probs = g.set_name(softmax(tanh(matmul(x, w) + b), 1), "probs");
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  sess.run(graph::assign(b, b * 3.0));  // a value other than the initial one: the saved one must be exported
  std::string nbg = (dir / "model.nbg").string(), onnx_path = (dir / "cli_model.onnx").string();
  sess.save(nbg);

  auto r = nabla::testing::run_program(kNabla + " export " + nbg + " --onnx " + onnx_path + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("outputs probs"), std::string::npos) << r.out;
  EXPECT_NO_THROW(::onnx::checker::check_model(onnx_path));

  Tensor xv = randn({3, 6});
  data::write_npy((dir / "cli_model.in0.npy").string(), xv);
  data::write_npy((dir / "cli_model.out0.npy").string(), sess.run(probs, {{x, xv}}));
  r = nabla::testing::run_program("/usr/bin/python3 " NABLA_TESTS_DIR "/onnx/run_with_onnxruntime.py " + dir.string() +
                           " cli_model 2>&1");
  std::printf("%s", r.out.c_str());
  const bool have_onnxruntime = r.code != 77;
  if (have_onnxruntime) EXPECT_EQ(r.code, 0) << r.out;

  // Mistakes: a missing --onnx is a usage error; an unknown fetch names itself.
  r = nabla::testing::run_program(kNabla + " export " + nbg + " 2>&1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("expected --onnx FILE"), std::string::npos) << r.out;
  r = nabla::testing::run_program(kNabla + " export " + nbg + " --onnx " + onnx_path + " --fetch no_such_node 2>&1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("no_such_node"), std::string::npos) << r.out;
  if (!have_onnxruntime) GTEST_SKIP() << "onnxruntime is not importable: the exported model was checked, not run";
}

// `nabla run MODEL.onnx`: an ONNX model (here one `nabla export` wrote) runs
// like the .nbg it came from, fed and fetched by its ONNX names.
TEST(NablaRunCommand, RunsAnOnnxModelLikeTheSavedGraph) {
  fs::path dir = fs::temp_directory_path() / ("nabla_run_onnx_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Remove {
    fs::path p;
    ~Remove() { fs::remove_all(p); }
  } remove{dir};
  manual_seed(2);
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 4}, "x");
  Tensor w = g.variable(randn({4, 3}), "w");
  Tensor probs = g.set_name(softmax(relu(matmul(x, w)), 1), "probs");
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  std::string nbg = (dir / "m.nbg").string(), onnx_path = (dir / "m.onnx").string();
  sess.save(nbg);
  auto r = nabla::testing::run_program(kNabla + " export " + nbg + " --onnx " + onnx_path + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;

  Tensor xv = randn({5, 4});
  std::string in = (dir / "x.npy").string(), out = (dir / "probs.npy").string();
  data::write_npy(in, xv);
  r = nabla::testing::run_program(kNabla + " run " + onnx_path + " --feed x=" + in + " --fetch probs --out " + out +
                                  " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(allclose(data::read_npy(out), sess.run(probs, {{x, xv}}), 0.0, 0.0));

  // An unknown name names itself and the model.
  r = nabla::testing::run_program(kNabla + " run " + onnx_path + " --feed nope=" + in + " --fetch probs 2>&1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("nope"), std::string::npos) << r.out;
}
