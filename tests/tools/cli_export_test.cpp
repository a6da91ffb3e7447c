// `nabla export` command-line parsing: the model, --onnx and repeated
// --fetch in both spellings, and the usage mistakes (exit code 2).
#include <gtest/gtest.h>

#include "cli.h"
#include "support/cli_usage_error.h"

namespace nabla::tool {
namespace {

using nabla::testing::usage_error;

TEST(NablaCliExport, ParsesModelOnnxAndFetches) {
  Command c = parse_command_line({"export", "m.nbg", "--onnx", "m.onnx", "--fetch", "y_pred", "--fetch=max:1"});
  ASSERT_EQ(c.kind, Command::Kind::Export);
  EXPECT_EQ(c.export_.model, "m.nbg");
  EXPECT_EQ(c.export_.onnx, "m.onnx");
  EXPECT_EQ(c.export_.fetches, (std::vector<std::string>{"y_pred", "max:1"}));
  EXPECT_EQ(parse_command_line({"export", "--onnx=o.onnx", "m.nbg"}).export_.onnx, "o.onnx");
  EXPECT_TRUE(parse_command_line({"export", "--help"}).export_.help);
}

TEST(NablaCliExport, MistakesAreUsageErrorsNamingTheOption) {
  EXPECT_EQ(usage_error({"export", "--onnx", "m.onnx"}),
            "nabla export: expected the saved graph (a .nbg file) as the first argument");
  EXPECT_EQ(usage_error({"export", "m.nbg"}), "nabla export: expected --onnx FILE, the ONNX model to write");
  EXPECT_EQ(usage_error({"export", "m.nbg", "--onnx"}), "nabla export: --onnx needs a value");
  EXPECT_EQ(usage_error({"export", "m.nbg", "--onnx="}), "nabla export: --onnx got an empty value");
  EXPECT_EQ(usage_error({"export", "m.nbg", "--tflite", "x"}),
            "nabla export: unknown option '--tflite' (expected --onnx, --fetch)");
  EXPECT_EQ(usage_error({"export", "a.nbg", "b.nbg", "--onnx", "o"}),
            "nabla export: unexpected argument 'b.nbg' (the model is 'a.nbg')");
  EXPECT_EQ(usage_error({"export", "a.nbg", "--onnx", "o", "--onnx", "p"}),
            "nabla export: --onnx given twice ('o' and 'p')");
}

}  // namespace
}  // namespace nabla::tool
