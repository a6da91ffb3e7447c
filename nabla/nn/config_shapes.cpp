// nn::check_shapes (config.h): shape inference over built layers, so that a
// config whose layers do not fit together fails before any data is loaded.
// Shapes carry the batch dimension (printed as N); each layer's rule mirrors
// the size check and output size of its forward.
#include <optional>

#include "nabla/core/error.h"
#include "nabla/nn/config.h"
#include "nabla/nn/nn.h"

namespace nabla::nn {
namespace {

using Shape = std::vector<int64_t>;

std::string shape_str(const Shape& s) {
  std::string out = "[N";
  for (std::size_t i = 1; i < s.size(); ++i) out += detail::concat(", ", s[i]);
  return out + "]";
}

// Output size of a window sliding over `size` (conv and pooling).
int64_t window_out(int64_t size, int64_t k, int64_t stride, int64_t pad, int64_t dilation, bool ceil = false) {
  int64_t span = size + 2 * pad - dilation * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil && (out - 1) * stride >= size + pad) --out;  // the last window must start inside the input
  return out;
}

// A layer's output shape, or the reason it cannot take `in` (in `problem`).
struct Step {
  Shape out;
  std::string problem;
};

Step need_rank(const Shape& in, std::size_t rank, const std::string& layout) {
  if (in.size() == rank) return {in, ""};
  return {{}, detail::concat("it needs a ", rank, "-D input ", layout)};
}

Step spatial(const Shape& in, int64_t channels_in, int64_t channels_out, const std::vector<int64_t>& k,
             const std::vector<int64_t>& s, const std::vector<int64_t>& p, const std::vector<int64_t>& d,
             const char* channel_field, bool ceil = false) {
  std::size_t dims = k.size();
  Step r = need_rank(in, dims + 2, dims == 2 ? "[N, C, H, W]" : "[N, C, L]");
  if (!r.problem.empty()) return r;
  if (channels_in > 0 && in[1] != channels_in)
    return {{}, detail::concat("its ", channel_field, " is ", channels_in, " but the input has ", in[1], " channels")};
  Shape out = in;
  if (channels_out > 0) out[1] = channels_out;
  for (std::size_t i = 0; i < dims; ++i) {
    out[2 + i] = window_out(in[2 + i], k[i], s[i], p[i], d[i], ceil);
    if (out[2 + i] < 1) return {{}, detail::concat("its window (kernel ", k[i], ") does not fit the input's size ", in[2 + i])};
  }
  return {out, ""};
}

std::optional<int64_t> normalize_dim(int64_t dim, std::size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) return std::nullopt;
  return dim < 0 ? dim + r : dim;
}

Step infer(const Module& m, const Shape& in, const std::string& where, const std::string& path);

Step infer_sequential(const Sequential& seq, Shape in, const std::string& where, const std::string& path) {
  const std::string prefix = path.empty() ? "" : path + ".";
  for (std::size_t i = 0; i < seq.size(); ++i) {
    std::string here = detail::concat(prefix, "layers[", i, "]");
    Step s = infer(*seq[i], in, where, here);
    if (!s.problem.empty()) {
      std::string from = i == 0 ? (path.empty() ? "the input" : "the input of " + path)
                                : detail::concat(prefix, "layers[", i - 1, "] (", seq[i - 1]->name(), ")");
      fail(where, ": ", here, " (", seq[i]->name(), ") cannot take the output of ", from, ", shape ", shape_str(in), ": ",
           s.problem);
    }
    in = s.out;
  }
  return {in, ""};
}

// The data_format of a conv/pool/batch-norm layer ("NCHW" for the others).
const std::string& data_format_of(const Module& m) {
  static const std::string nchw = "NCHW";
  if (auto* c = dynamic_cast<const Conv2d*>(&m)) return c->data_format;
  if (auto* p = dynamic_cast<const MaxPool2d*>(&m)) return p->data_format;
  if (auto* p = dynamic_cast<const AvgPool2d*>(&m)) return p->data_format;
  if (auto* p = dynamic_cast<const AdaptiveAvgPool2d*>(&m)) return p->data_format;
  if (auto* b = dynamic_cast<const BatchNorm2d*>(&m)) return b->data_format;
  return nchw;
}

Step infer_nchw(const Module& m, const Shape& in, const std::string& where, const std::string& path);

// An NHWC layer: the NCHW rule on the permuted shape, the result permuted back.
Step infer(const Module& m, const Shape& in, const std::string& where, const std::string& path) {
  if (data_format_of(m) != "NHWC") return infer_nchw(m, in, where, path);
  if (in.size() != 4) return {{}, detail::concat("data_format NHWC needs a 4-D input [N, H, W, C], got ", shape_str(in))};
  Step s = infer_nchw(m, {in[0], in[3], in[1], in[2]}, where, path);
  if (s.problem.empty()) s.out = {s.out[0], s.out[2], s.out[3], s.out[1]};
  return s;
}

Step infer_nchw(const Module& m, const Shape& in, const std::string& where, const std::string& path) {
  if (auto* seq = dynamic_cast<const Sequential*>(&m)) return infer_sequential(*seq, in, where, path);
  if (auto* l = dynamic_cast<const Linear*>(&m)) {
    if (in.size() < 2) return {{}, "it needs at least [N, in_features]"};
    if (in.back() != l->in_features)
      return {{}, detail::concat("its in_features is ", l->in_features, " but the input's last dimension is ", in.back())};
    Shape out = in;
    out.back() = l->out_features;
    return {out, ""};
  }
  if (auto* c = dynamic_cast<const Conv1d*>(&m))
    return spatial(in, c->in_channels, c->out_channels, {c->kernel_size}, {c->stride}, {c->padding}, {c->dilation},
                   "in_channels");
  if (auto* c = dynamic_cast<const Conv2d*>(&m))
    return spatial(in, c->in_channels, c->out_channels, {c->kernel_size[0], c->kernel_size[1]},
                   {c->stride[0], c->stride[1]}, {c->padding[0], c->padding[1]}, {c->dilation[0], c->dilation[1]},
                   "in_channels");
  if (auto* c = dynamic_cast<const ConvTranspose2d*>(&m)) {
    Step r = need_rank(in, 4, "[N, C, H, W]");
    if (!r.problem.empty()) return r;
    if (in[1] != c->in_channels)
      return {{}, detail::concat("its in_channels is ", c->in_channels, " but the input has ", in[1], " channels")};
    Shape out = {in[0], c->out_channels, 0, 0};
    for (int i = 0; i < 2; ++i)
      out[2 + i] = (in[2 + i] - 1) * c->stride[i] - 2 * c->padding[i] + c->dilation[i] * (c->kernel_size[i] - 1) +
                   c->output_padding[i] + 1;
    if (out[2] < 1 || out[3] < 1) return {{}, "its output would be empty"};
    return {out, ""};
  }
  if (auto* b = dynamic_cast<const BatchNormBase*>(&m)) {
    bool two_d = dynamic_cast<const BatchNorm2d*>(&m) != nullptr;
    if (two_d ? in.size() != 4 : (in.size() != 2 && in.size() != 3))
      return {{}, two_d ? "it needs a 4-D input [N, C, H, W]" : "it needs [N, C] or [N, C, L]"};
    if (in[1] != b->num_features)
      return {{}, detail::concat("its num_features is ", b->num_features, " but the input has ", in[1], " channels")};
    return {in, ""};
  }
  if (auto* l = dynamic_cast<const LayerNorm*>(&m)) {
    const auto& ns = l->normalized_shape;
    bool ok = in.size() >= ns.size() + 1 && std::equal(ns.begin(), ns.end(), in.end() - static_cast<std::ptrdiff_t>(ns.size()));
    if (!ok) return {{}, "its normalized_shape does not match the input's trailing dimensions"};
    return {in, ""};
  }
  if (auto* g = dynamic_cast<const GroupNorm*>(&m)) {
    if (in.size() < 2 || in[1] != g->num_channels)
      return {{}, detail::concat("its num_channels is ", g->num_channels, " but the input is ", shape_str(in))};
    return {in, ""};
  }
  if (auto* p = dynamic_cast<const MaxPool2d*>(&m))
    return spatial(in, 0, 0, {p->kernel_size[0], p->kernel_size[1]}, {p->stride[0], p->stride[1]},
                   {p->padding[0], p->padding[1]}, {p->dilation[0], p->dilation[1]}, "", p->ceil_mode);
  if (auto* p = dynamic_cast<const AvgPool2d*>(&m))
    return spatial(in, 0, 0, {p->kernel_size[0], p->kernel_size[1]}, {p->stride[0], p->stride[1]},
                   {p->padding[0], p->padding[1]}, {1, 1}, "", p->ceil_mode);
  if (auto* p = dynamic_cast<const AdaptiveAvgPool2d*>(&m)) {
    Step r = need_rank(in, 4, "[N, C, H, W]");
    if (!r.problem.empty()) return r;
    return {{in[0], in[1], p->output_size[0], p->output_size[1]}, ""};
  }
  if (auto* f = dynamic_cast<const Flatten*>(&m)) {
    auto s = normalize_dim(f->start_dim, in.size()), e = normalize_dim(f->end_dim, in.size());
    if (!s || !e || *s > *e) return {{}, detail::concat("start_dim ", f->start_dim, " and end_dim ", f->end_dim,
                                                        " do not name a range of its ", in.size(), " dimensions")};
    Shape out(in.begin(), in.begin() + *s);
    int64_t n = 1;
    for (int64_t i = *s; i <= *e; ++i) n *= in[i];
    out.push_back(n);
    out.insert(out.end(), in.begin() + *e + 1, in.end());
    return {out, ""};
  }
  if (auto* u = dynamic_cast<const Unflatten*>(&m)) {
    auto d = normalize_dim(u->dim, in.size());
    if (!d || *d == 0) return {{}, detail::concat("its dim ", u->dim, " is not a non-batch dimension of the input")};
    int64_t known = 1, free = -1;
    Shape sizes = u->unflattened_size;
    for (std::size_t i = 0; i < sizes.size(); ++i) (sizes[i] == -1 ? free = static_cast<int64_t>(i) : known *= sizes[i]);
    if (free >= 0 && known > 0 && in[*d] % known == 0) sizes[free] = in[*d] / known, known = in[*d];
    if (known != in[*d])
      return {{}, detail::concat("its unflattened_size does not multiply to the input's size ", in[*d])};
    Shape out(in.begin(), in.begin() + *d);
    out.insert(out.end(), sizes.begin(), sizes.end());
    out.insert(out.end(), in.begin() + *d + 1, in.end());
    return {out, ""};
  }
  if (auto* e = dynamic_cast<const Embedding*>(&m)) {
    Shape out = in;
    out.push_back(e->embedding_dim);
    return {out, ""};
  }
  if (auto* r = dynamic_cast<const RNNBase*>(&m)) {
    if (in.size() != 3) return {{}, "it needs a 3-D input (sequence, batch and features)"};
    if (in.back() != r->input_size)
      return {{}, detail::concat("its input_size is ", r->input_size, " but the input has ", in.back(), " features")};
    Shape out = in;
    out.back() = r->num_directions() * r->output_size();
    return {out, ""};
  }
  if (auto* s = dynamic_cast<const Softmax*>(&m); s && !normalize_dim(s->dim, in.size()))
    return {{}, detail::concat("its dim ", s->dim, " is out of range for ", in.size(), " dimensions")};
  if (auto* s = dynamic_cast<const LogSoftmax*>(&m); s && !normalize_dim(s->dim, in.size()))
    return {{}, detail::concat("its dim ", s->dim, " is out of range for ", in.size(), " dimensions")};
  return {in, ""};  // elementwise: activations, Dropout, Identity
}

}  // namespace

std::vector<int64_t> check_shapes(const Json& config, const std::vector<int64_t>& input_shape,
                                  const std::string& where, const std::string& path) {
  return check_shapes(*from_config(config, where, path), input_shape, where, path);
}

std::vector<int64_t> check_shapes(const Module& model, const std::vector<int64_t>& input_shape,
                                  const std::string& where, const std::string& path) {
  Shape in = {1};
  in.insert(in.end(), input_shape.begin(), input_shape.end());
  Step s = infer(model, in, where, path);
  if (!s.problem.empty())
    fail(where, ": ", path.empty() ? "the model" : path, " (", model.name(), ") cannot take the input, shape ", shape_str(in), ": ", s.problem);
  return Shape(s.out.begin() + 1, s.out.end());
}

}  // namespace nabla::nn
