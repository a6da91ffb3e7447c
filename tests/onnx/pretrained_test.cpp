// Issue 19, acceptance 3: real pretrained networks that this project did not
// train — PaddleOCR's PP-OCRv4 text detector (DBNet) and text recognizer
// (SVTR-LCNet, CTC over 6623 characters), as shipped inside the PyPI package
// rapidocr-onnxruntime (scripts/install_deps.sh) — imported by nabla give
// onnxruntime's outputs on real pictures of text (tests/onnx/images: lines
// drawn in DejaVu fonts), read the text, and examples/pretrained_ocr reads a
// page end to end. Both skip with one line when the package is not installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "nabla/data/npy.h"
#include "nabla/data/png.h"
#include "nabla/nabla.h"
#include "nabla/onnx/import.h"
#include "support/run_program.h"

namespace fs = std::filesystem;
using namespace nabla;

namespace {

const std::string kScript = "/usr/bin/python3 " NABLA_TESTS_DIR "/onnx/run_rapidocr_models.py";
const std::string kImages = NABLA_TESTS_DIR "/onnx/images/";
#ifdef NABLA_EXAMPLES_DIR
const std::string kExample = NABLA_EXAMPLES_DIR "/pretrained_ocr ";
#else
const std::string kExample;
#endif

// The folder of the package's models, or "" (and the reason in `why`) when
// it is not installed.
std::string models_dir(std::string& why) {
  auto r = nabla::testing::run_program(kScript + " locate 2>&1");
  if (r.code != 0) {
    why = r.out;
    return "";
  }
  while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == '\r')) r.out.pop_back();
  return r.out;
}

// A picture as PaddleOCR's models take it: float32 [1, 3, H, W] in [-1, 1].
Tensor model_input(const std::string& png) {
  return ((permute(data::read_png(png), {2, 0, 1}).to(kFloat32) / 255.0 - 0.5) / 0.5).unsqueeze(0).contiguous();
}

Tensor run_imported(const std::string& path, const Tensor& x, nabla::onnx::ImportedModel* out = nullptr) {
  nabla::onnx::ImportedModel m = nabla::onnx::import_model(path, {{"x", x.sizes().vec()}});
  graph::Session sess(m.graph);
  sess.run(m.graph.global_variables_initializer());
  Tensor y = sess.run(m.outputs.at(0).second, {{m.inputs.at(0).second, x}});
  if (out) *out = m;
  return y;
}

// Greedy CTC decoding of [T, classes] probabilities with the model's
// "character" metadata (index 0 is the blank; a space follows the list).
std::string ctc_decode(const Tensor& probs, const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::vector<std::string> chars{""};
  for (const auto& [key, value] : metadata)
    if (key == "character")
      for (size_t at = 0; at <= value.size();) {
        size_t end = std::min(value.find('\n', at), value.size());
        if (end > at) chars.push_back(value.substr(at, end - at));
        at = end + 1;
      }
  chars.push_back(" ");
  EXPECT_EQ(static_cast<int64_t>(chars.size()), probs.size(1));
  std::vector<int64_t> idx = argmax(probs, 1).to_vector<int64_t>();
  std::string text;
  for (size_t t = 0; t < idx.size(); ++t)
    if (idx[t] != 0 && (t == 0 || idx[t] != idx[t - 1]) && idx[t] < static_cast<int64_t>(chars.size()))
      text += chars[static_cast<size_t>(idx[t])];
  return text;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  return amax(abs(a.to(kFloat64) - b.to(kFloat64))).item<double>();
}

TEST(OnnxPretrained, PaddleOcrDetectorAndRecognizerMatchOnnxruntimeOnRealPictures) {
  std::string why, models = models_dir(why);
  if (models.empty()) GTEST_SKIP() << why;
  fs::path dir = fs::temp_directory_path() / ("nabla_onnx_pretrained_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Remove {
    fs::path p;
    ~Remove() { fs::remove_all(p); }
  } remove{dir};
  Tensor line = model_input(kImages + "ocr_line.png");  // [1, 3, 48, 447]: one line of text
  Tensor page = model_input(kImages + "ocr_page.png");  // [1, 3, 160, 480]: two lines
  data::write_npy((dir / "rec.in.npy").string(), line);
  data::write_npy((dir / "det.in.npy").string(), page);
  auto r = nabla::testing::run_program(kScript + " run " + dir.string() +
                                       " rec=ch_PP-OCRv4_rec_infer.onnx det=ch_PP-OCRv4_det_infer.onnx 2>&1");
  if (r.code == 77) GTEST_SKIP() << r.out;
  ASSERT_EQ(r.code, 0) << r.out;

  nabla::onnx::ImportedModel rec;
  Tensor probs = run_imported(models + "/ch_PP-OCRv4_rec_infer.onnx", line, &rec);  // [1, T, 6625]
  Tensor want = data::read_npy((dir / "rec.ort.npy").string());
  double err = max_abs_diff(probs, want);
  std::string text = ctc_decode(probs[0], rec.metadata);
  const double top = amax(want).item<double>();
  std::printf("[ pretrained ] PP-OCRv4 recognizer %s: max abs error vs onnxruntime %.3g (%.3g of the largest "
              "probability, %.3g); reads \"%s\"\n",
              nabla::detail::concat(probs.sizes()).c_str(), err, err / top, top, text.c_str());
  EXPECT_LE(err, 1e-4);
  EXPECT_EQ(text, "Tensors flow through nabla");
  EXPECT_EQ(ctc_decode(want[0], rec.metadata), text);

  Tensor map = run_imported(models + "/ch_PP-OCRv4_det_infer.onnx", page);  // [1, 1, 160, 480]
  want = data::read_npy((dir / "det.ort.npy").string());
  err = max_abs_diff(map, want);
  // Pixels that DBNet's threshold (0.3) puts on a different side in nabla and onnxruntime.
  const int64_t text_pixels = sum(gt(map, 0.3).to(kInt64)).item<int64_t>();
  const int64_t flipped = sum(ne(gt(map, 0.3), gt(want, 0.3)).to(kInt64)).item<int64_t>();
  std::printf("[ pretrained ] PP-OCRv4 detector %s: max abs error vs onnxruntime %.3g (%.3g of the largest "
              "probability); %lld text pixels (probability > 0.3), %lld on the other side of 0.3 in onnxruntime\n",
              nabla::detail::concat(map.sizes()).c_str(), err, err / amax(want).item<double>(),
              static_cast<long long>(text_pixels), static_cast<long long>(flipped));
  EXPECT_LE(err, 1e-4);
  EXPECT_GT(text_pixels, 1000);  // two lines of text: ~8% of the page
  EXPECT_LE(flipped, 5);
}

// The example reads both lines of the page, in order.
TEST(OnnxPretrained, TheOcrExampleReadsAPage) {
  if (kExample.empty()) GTEST_SKIP() << "the examples are not built (NABLA_BUILD_EXAMPLES=OFF)";
  std::string why, models = models_dir(why);
  if (models.empty()) GTEST_SKIP() << why;
  auto r = nabla::testing::run_program(kExample + models + " " + kImages + "ocr_page.png 2>&1");
  std::printf("%s", r.out.c_str());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2 text line(s)"), std::string::npos) << r.out;
  const size_t first = r.out.find("\"Tensors flow through nabla\""), second = r.out.find("\"PaddleOCR 2026\"");
  EXPECT_NE(first, std::string::npos) << r.out;
  EXPECT_NE(second, std::string::npos) << r.out;
  EXPECT_LT(first, second) << r.out;
  // A missing image names the API and the path.
  r = nabla::testing::run_program(kExample + models + " /nonexistent.png 2>&1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("read_png"), std::string::npos) << r.out;
}

}  // namespace
