// Reads the text in a picture with a real pretrained network that nabla did
// not train: PaddleOCR's PP-OCRv4 text detector (DBNet) and text recognizer
// (SVTR-LCNet with a CTC head, 6623 characters), as shipped inside the PyPI
// package rapidocr-onnxruntime, imported with onnx::import_model:
//   pretrained_ocr MODELS_DIR IMAGE.png
// MODELS_DIR: the package's models folder (docs/onnx.md, "A pretrained
// model: PaddleOCR" says how to find it). Prints one line per text line found:
// its box in the picture, the text read and the recognizer's confidence.
//
// The steps are rapidocr's, with upright boxes instead of rotated ones (so
// text is taken to be horizontal; the package's orientation classifier is not
// used): the detector gives a text probability per pixel; pixels over 0.3,
// dilated by one, are grouped into connected regions; a region whose mean
// probability is at least 0.5 gives a box, widened by DBNet's unclip ratio
// 1.6; each box is cut from the picture, scaled to 48 pixels high, and the
// recognizer's per-column character probabilities are decoded greedily
// (best character per column, repeats merged, blanks dropped). The model is
// imported for each input shape: PaddleOCR's models compute shapes at run
// time, which nabla does while importing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nabla/data/png.h"
#include "nabla/nabla.h"
#include "nabla/onnx/import.h"

using namespace nabla;

namespace {

struct Box {
  int64_t x0, y0, x1, y1;  // pixels of the picture, x1 and y1 exclusive
};

// uint8 [H, W, 3] -> float32 [1, 3, H, W] scaled to [-1, 1] (PaddleOCR's
// mean 0.5, std 0.5), resized to `height` x `width` (bilinear) if given.
Tensor model_input(const Tensor& rgb, int64_t height = 0, int64_t width = 0) {
  Tensor x = ((permute(rgb, {2, 0, 1}).to(kFloat32) / 255.0 - 0.5) / 0.5).unsqueeze(0);
  if (height > 0 && (height != x.size(2) || width != x.size(3)))
    x = interpolate(x, {.size = {height, width}, .mode = "bilinear", .align_corners = false});
  return x.contiguous();
}

// Imports the model built for the shape of `x` (PaddleOCR's models compute
// shapes at run time, which nabla does while importing) and runs it once.
Tensor run_model(const std::string& path, const Tensor& x,
                 std::vector<std::pair<std::string, std::string>>* metadata = nullptr) {
  onnx::ImportedModel m = onnx::import_model(path, {{"x", x.sizes().vec()}});
  if (metadata) *metadata = m.metadata;
  graph::Session sess(m.graph);
  sess.run(m.graph.global_variables_initializer());
  return sess.run(m.outputs.at(0).second, {{m.inputs.at(0).second, x}});
}

// Text boxes from the detector's probability map [1, 1, h, w] of a picture
// of `height` x `width`.
std::vector<Box> text_boxes(const Tensor& prob_map, int64_t height, int64_t width) {
  const int64_t h = prob_map.size(2), w = prob_map.size(3);
  const std::vector<float> p = prob_map.to_vector<float>();
  std::vector<uint8_t> on(static_cast<size_t>(h * w), 0);
  for (int64_t y = 0; y < h; ++y)  // threshold 0.3, dilated by a 2x2 square (rapidocr's use_dilation)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t dy = 0; dy <= 1; ++dy)
        for (int64_t dx = 0; dx <= 1; ++dx)
          if (y >= dy && x >= dx && p[static_cast<size_t>((y - dy) * w + x - dx)] > 0.3f)
            on[static_cast<size_t>(y * w + x)] = 1;
  std::vector<Box> boxes;
  std::vector<int64_t> stack;
  for (int64_t start = 0; start < h * w; ++start) {
    if (!on[static_cast<size_t>(start)]) continue;
    Box b{w, h, 0, 0};
    on[static_cast<size_t>(start)] = 0;
    stack.assign(1, start);
    while (!stack.empty()) {  // one 8-connected region
      const int64_t at = stack.back(), y = at / w, x = at % w;
      stack.pop_back();
      b = {std::min(b.x0, x), std::min(b.y0, y), std::max(b.x1, x + 1), std::max(b.y1, y + 1)};
      for (int64_t ny = std::max<int64_t>(y - 1, 0); ny <= std::min(y + 1, h - 1); ++ny)
        for (int64_t nx = std::max<int64_t>(x - 1, 0); nx <= std::min(x + 1, w - 1); ++nx)
          if (on[static_cast<size_t>(ny * w + nx)]) {
            on[static_cast<size_t>(ny * w + nx)] = 0;
            stack.push_back(ny * w + nx);
          }
    }
    const int64_t bw = b.x1 - b.x0, bh = b.y1 - b.y0;
    if (std::min(bw, bh) < 3) continue;  // rapidocr's min_size
    double score = 0;
    for (int64_t y = b.y0; y < b.y1; ++y)
      for (int64_t x = b.x0; x < b.x1; ++x) score += p[static_cast<size_t>(y * w + x)];
    if (score / static_cast<double>(bw * bh) < 0.5) continue;  // rapidocr's box_thresh
    // DBNet's unclip: the shrunk text region grown by area * 1.6 / perimeter.
    const double d = static_cast<double>(bw * bh) * 1.6 / (2.0 * static_cast<double>(bw + bh));
    const double sx = static_cast<double>(width) / static_cast<double>(w);
    const double sy = static_cast<double>(height) / static_cast<double>(h);
    boxes.push_back({std::max<int64_t>(0, std::llround((static_cast<double>(b.x0) - d) * sx)),
                     std::max<int64_t>(0, std::llround((static_cast<double>(b.y0) - d) * sy)),
                     std::min<int64_t>(width, std::llround((static_cast<double>(b.x1) + d) * sx)),
                     std::min<int64_t>(height, std::llround((static_cast<double>(b.y1) + d) * sy))});
  }
  std::sort(boxes.begin(), boxes.end(),
            [](const Box& a, const Box& b) { return a.y0 != b.y0 ? a.y0 < b.y0 : a.x0 < b.x0; });
  return boxes;
}

// The recognizer's character list: its "character" metadata, one per line,
// after the CTC blank (index 0) and followed by a space (rapidocr's dictionary).
std::vector<std::string> characters(const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::vector<std::string> chars{""};
  for (const auto& [key, value] : metadata) {
    if (key != "character") continue;
    size_t at = 0;
    while (at <= value.size()) {
      size_t end = std::min(value.find('\n', at), value.size());
      if (end > at) chars.push_back(value.substr(at, end - at));
      at = end + 1;
    }
  }
  NABLA_CHECK(chars.size() > 1, "pretrained_ocr: the recognition model has no 'character' metadata");
  chars.push_back(" ");
  return chars;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: pretrained_ocr MODELS_DIR IMAGE.png\n");
    return 2;
  }
  try {
    const std::string models = argv[1];
    Tensor picture = data::read_png(argv[2]);  // uint8 [H, W, 3]
    const int64_t height = picture.size(0), width = picture.size(1);
    NoGradGuard no_grad;

    // Detection at the picture's size rounded to multiples of 32, the longer
    // side at most 960 (PaddleOCR's default limit).
    const double scale = std::min(1.0, 960.0 / static_cast<double>(std::max(height, width)));
    auto round32 = [&](int64_t v) {
      return std::max<int64_t>(32, std::llround(static_cast<double>(v) * scale / 32.0) * 32);
    };
    Tensor prob_map =
        run_model(models + "/ch_PP-OCRv4_det_infer.onnx", model_input(picture, round32(height), round32(width)));
    std::vector<Box> boxes = text_boxes(prob_map, height, width);
    std::printf("%s: %lldx%lld pixels, %zu text line(s)\n", argv[2], static_cast<long long>(width),
                static_cast<long long>(height), boxes.size());
    if (boxes.empty()) return 0;

    // Recognition, line by line: 48 pixels high, padded with zeros to at
    // least 320 wide, as rapidocr does. (One batch padded to the widest line
    // would import the model once, but the padding changes what it reads:
    // "PaddleOCR" becomes "Paddle0CR" on tests/onnx/images/ocr_page.png, in
    // onnxruntime too.)
    std::vector<std::string> chars;
    for (const Box& b : boxes) {
      Tensor crop = picture.narrow(0, b.y0, b.y1 - b.y0).narrow(1, b.x0, b.x1 - b.x0);
      const double ratio = static_cast<double>(crop.size(1)) / static_cast<double>(crop.size(0));
      const int64_t w = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(48.0 * ratio)));
      Tensor line = pad(model_input(crop, 48, w), {0, std::max<int64_t>(320, w) - w});
      std::vector<std::pair<std::string, std::string>> metadata;
      Tensor probs = run_model(models + "/ch_PP-OCRv4_rec_infer.onnx", line, &metadata)[0];  // [T, classes]
      if (chars.empty()) chars = characters(metadata);
      NABLA_CHECK(static_cast<int64_t>(chars.size()) == probs.size(1), "pretrained_ocr: ", chars.size(),
                  " characters for ", probs.size(1), " classes");
      auto [best, index] = max(probs, 1);
      const std::vector<int64_t> idx = index.to_vector<int64_t>();
      const std::vector<float> p = best.to_vector<float>();
      std::string text;
      double confidence = 0;
      int kept = 0;
      for (size_t t = 0; t < idx.size(); ++t) {
        if (idx[t] == 0 || (t > 0 && idx[t] == idx[t - 1])) continue;
        text += chars[static_cast<size_t>(idx[t])];
        confidence += p[t];
        ++kept;
      }
      std::printf("  [%lld, %lld, %lld, %lld] \"%s\" (confidence %.3f)\n", static_cast<long long>(b.x0),
                  static_cast<long long>(b.y0), static_cast<long long>(b.x1), static_cast<long long>(b.y1),
                  text.c_str(), kept ? confidence / kept : 0.0);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "pretrained_ocr: %s\n", e.what());
    return 1;
  }
}
