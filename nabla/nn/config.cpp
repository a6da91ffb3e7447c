// See config.h. One table row per layer class: how to read it from a config
// (validating every field) and how to describe a built one.
#include "nabla/nn/config.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>

#include "nabla/core/error.h"
#include "nabla/nn/nn.h"

namespace nabla::nn {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A Size2 as config() writes it: one int when both dims agree, else [h, w].
Json size2(const Size2& s) { return s[0] == s[1] ? Json(s[0]) : Json::array({s[0], s[1]}); }
Size2 read_size2(ConfigReader& r, const std::string& key, int64_t lo, std::optional<int64_t> fallback = std::nullopt) {
  std::optional<std::vector<int64_t>> f;
  if (fallback) f = std::vector<int64_t>{*fallback, *fallback};
  auto v = r.int_list(key, lo, 2, f);
  return Size2(v[0], v[1]);
}
Json optional_json(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }
Json optional_json(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

struct LayerKind {
  std::function<ModulePtr(ConfigReader&, const std::string& where)> build;
  std::function<Json(const Module&)> describe;  // the fields after "class"
};

// The module as its class; nabla::Error when a user's class merely shares
// the name of one of nn's layers (Module::name() drops namespaces).
template <class M>
const M& as(const Module& m) {
  const M* p = dynamic_cast<const M*>(&m);
  NABLA_CHECK(p, "nn::config: ", m.name(), " is not nn's ", m.name(), " and has no config");
  return *p;
}

template <class M>
LayerKind no_options() {
  return {[](ConfigReader&, const std::string&) -> ModulePtr { return std::make_shared<M>(); },
          [](const Module&) { return Json::object(); }};
}

Json rnn_fields(const RNNBase& m, const std::string& cls) {
  Json j = {{"input_size", m.input_size},
            {"hidden_size", m.hidden_size},
            {"num_layers", m.options.num_layers},
            {"bias", m.options.bias},
            {"batch_first", m.options.batch_first},
            {"dropout", m.options.dropout},
            {"bidirectional", m.options.bidirectional}};
  if (cls == "RNN") j["nonlinearity"] = m.options.nonlinearity;
  if (cls == "LSTM") j["proj_size"] = m.options.proj_size;
  return j;
}

template <class M>
LayerKind rnn_kind(const std::string& cls) {
  return {[cls](ConfigReader& r, const std::string&) -> ModulePtr {
            int64_t input_size = r.integer("input_size", 1);
            int64_t hidden_size = r.integer("hidden_size", 1);
            RNNOptions o;
            o.num_layers = r.integer("num_layers", 1, kMax, 1);
            o.bias = r.boolean("bias", true);
            o.batch_first = r.boolean("batch_first", false);
            o.dropout = r.number("dropout", 0, 1, 0.0);
            o.bidirectional = r.boolean("bidirectional", false);
            if (cls == "RNN") o.nonlinearity = r.choice("nonlinearity", {"tanh", "relu"}, "tanh");
            if (cls == "LSTM") {
              o.proj_size = r.integer("proj_size", 0, hidden_size - 1, 0);
            }
            return std::make_shared<M>(input_size, hidden_size, o);
          },
          [cls](const Module& m) { return rnn_fields(as<RNNBase>(m), cls); }};
}

// The conv/pool/batch-norm layers' data_format: "NCHW" when left out, and
// written only when "NHWC" (configs of NCHW models stay as they were).
std::string read_data_format(ConfigReader& r) {
  std::string f = r.string("data_format", "NCHW");
  if (f != "NCHW" && f != "NHWC") r.bad("data_format", "\"NCHW\" or \"NHWC\"");
  return f;
}
Json with_data_format(Json j, const std::string& f) {
  if (f == "NHWC") j["data_format"] = f;
  return j;
}

template <class BN>
LayerKind batchnorm_kind() {
  return {[](ConfigReader& r, const std::string&) -> ModulePtr {
            int64_t n = r.integer("num_features", 1);
            double eps = r.number("eps", 0, kInf, 1e-5, true);
            std::optional<double> momentum = r.optional_number("momentum", 0, 1, 0.1);
            bool affine = r.boolean("affine", true);
            bool track = r.boolean("track_running_stats", true);
            if constexpr (std::is_same_v<BN, BatchNorm2d>)
              return std::make_shared<BN>(n, eps, momentum, affine, track, read_data_format(r));
            else
              return std::make_shared<BN>(n, eps, momentum, affine, track);
          },
          [](const Module& m) {
            const auto& b = as<BatchNormBase>(m);
            Json j{{"num_features", b.num_features},
                   {"eps", b.eps},
                   {"momentum", optional_json(b.momentum)},
                   {"affine", b.weight.defined()},
                   {"track_running_stats", b.running_mean.defined()}};
            if constexpr (std::is_same_v<BN, BatchNorm2d>) j = with_data_format(std::move(j), as<BN>(m).data_format);
            return j;
          }};
}

const std::map<std::string, LayerKind>& kinds() {
  static const std::map<std::string, LayerKind> table = {
      {"Linear",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          int64_t in = r.integer("in_features", 1);
          int64_t out = r.integer("out_features", 1);
          return std::make_shared<Linear>(in, out, r.boolean("bias", true));
        },
        [](const Module& m) {
          const auto& l = as<Linear>(m);
          return Json{{"in_features", l.in_features}, {"out_features", l.out_features}, {"bias", l.bias.defined()}};
        }}},
      {"Identity", no_options<Identity>()},
      {"Conv1d",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          int64_t in = r.integer("in_channels", 1), out = r.integer("out_channels", 1);
          int64_t k = r.integer("kernel_size", 1), s = r.integer("stride", 1, kMax, 1);
          int64_t p = r.integer("padding", 0, kMax, 0), d = r.integer("dilation", 1, kMax, 1);
          int64_t g = r.integer("groups", 1, kMax, 1);
          bool bias = r.boolean("bias", true);
          if (in % g || out % g) r.bad("groups", detail::concat("a divisor of in_channels ", in, " and out_channels ", out));
          return std::make_shared<Conv1d>(in, out, k, s, p, d, g, bias);
        },
        [](const Module& m) {
          const auto& c = as<Conv1d>(m);
          return Json{{"in_channels", c.in_channels}, {"out_channels", c.out_channels}, {"kernel_size", c.kernel_size},
                      {"stride", c.stride},           {"padding", c.padding},           {"dilation", c.dilation},
                      {"groups", c.groups},           {"bias", c.bias.defined()}};
        }}},
      {"Conv2d",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          int64_t in = r.integer("in_channels", 1), out = r.integer("out_channels", 1);
          Size2 k = read_size2(r, "kernel_size", 1), s = read_size2(r, "stride", 1, 1);
          Size2 p = read_size2(r, "padding", 0, 0), d = read_size2(r, "dilation", 1, 1);
          int64_t g = r.integer("groups", 1, kMax, 1);
          bool bias = r.boolean("bias", true);
          if (in % g || out % g) r.bad("groups", detail::concat("a divisor of in_channels ", in, " and out_channels ", out));
          return std::make_shared<Conv2d>(in, out, k, s, p, d, g, bias, read_data_format(r));
        },
        [](const Module& m) {
          const auto& c = as<Conv2d>(m);
          return with_data_format(Json{{"in_channels", c.in_channels}, {"out_channels", c.out_channels},
                                       {"kernel_size", size2(c.kernel_size)}, {"stride", size2(c.stride)},
                                       {"padding", size2(c.padding)},   {"dilation", size2(c.dilation)},
                                       {"groups", c.groups},            {"bias", c.bias.defined()}},
                                  c.data_format);
        }}},
      {"ConvTranspose2d",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          int64_t in = r.integer("in_channels", 1), out = r.integer("out_channels", 1);
          Size2 k = read_size2(r, "kernel_size", 1), s = read_size2(r, "stride", 1, 1);
          Size2 p = read_size2(r, "padding", 0, 0), op = read_size2(r, "output_padding", 0, 0);
          int64_t g = r.integer("groups", 1, kMax, 1);
          bool bias = r.boolean("bias", true);
          Size2 d = read_size2(r, "dilation", 1, 1);
          if (in % g || out % g) r.bad("groups", detail::concat("a divisor of in_channels ", in, " and out_channels ", out));
          if ((op[0] >= s[0] && op[0] >= d[0]) || (op[1] >= s[1] && op[1] >= d[1]))
            r.bad("output_padding", "values smaller than stride or dilation");
          return std::make_shared<ConvTranspose2d>(in, out, k, s, p, op, g, bias, d);
        },
        [](const Module& m) {
          const auto& c = as<ConvTranspose2d>(m);
          return Json{{"in_channels", c.in_channels},     {"out_channels", c.out_channels},
                      {"kernel_size", size2(c.kernel_size)}, {"stride", size2(c.stride)},
                      {"padding", size2(c.padding)},     {"output_padding", size2(c.output_padding)},
                      {"groups", c.groups},              {"bias", c.bias.defined()},
                      {"dilation", size2(c.dilation)}};
        }}},
      {"BatchNorm1d", batchnorm_kind<BatchNorm1d>()},
      {"BatchNorm2d", batchnorm_kind<BatchNorm2d>()},
      {"LayerNorm",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          auto shape = r.int_list("normalized_shape", 1, 0);
          double eps = r.number("eps", 0, kInf, 1e-5, true);
          return std::make_shared<LayerNorm>(shape, eps, r.boolean("elementwise_affine", true));
        },
        [](const Module& m) {
          const auto& l = as<LayerNorm>(m);
          return Json{{"normalized_shape", l.normalized_shape}, {"eps", l.eps},
                      {"elementwise_affine", l.weight.defined()}};
        }}},
      {"GroupNorm",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          int64_t groups = r.integer("num_groups", 1), channels = r.integer("num_channels", 1);
          if (channels % groups) r.bad("num_groups", detail::concat("a divisor of num_channels ", channels));
          double eps = r.number("eps", 0, kInf, 1e-5, true);
          return std::make_shared<GroupNorm>(groups, channels, eps, r.boolean("affine", true));
        },
        [](const Module& m) {
          const auto& g = as<GroupNorm>(m);
          return Json{{"num_groups", g.num_groups}, {"num_channels", g.num_channels}, {"eps", g.eps},
                      {"affine", g.weight.defined()}};
        }}},
      {"Dropout",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          return std::make_shared<Dropout>(r.number("p", 0, 1, 0.5));
        },
        [](const Module& m) { return Json{{"p", as<Dropout>(m).p}}; }}},
      {"ReLU", no_options<ReLU>()},
      {"Tanh", no_options<Tanh>()},
      {"Sigmoid", no_options<Sigmoid>()},
      {"SiLU", no_options<SiLU>()},
      {"GELU",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          return std::make_shared<GELU>(r.choice("approximate", {"none", "tanh"}, "none"));
        },
        [](const Module& m) { return Json{{"approximate", as<GELU>(m).approximate}}; }}},
      {"LeakyReLU",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          return std::make_shared<LeakyReLU>(r.number("negative_slope", -kInf, kInf, 0.01));
        },
        [](const Module& m) { return Json{{"negative_slope", as<LeakyReLU>(m).negative_slope}}; }}},
      {"ELU",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          return std::make_shared<ELU>(r.number("alpha", -kInf, kInf, 1.0));
        },
        [](const Module& m) { return Json{{"alpha", as<ELU>(m).alpha}}; }}},
      {"Softmax",
       {[](ConfigReader& r, const std::string&) -> ModulePtr { return std::make_shared<Softmax>(r.integer("dim")); },
        [](const Module& m) { return Json{{"dim", as<Softmax>(m).dim}}; }}},
      {"LogSoftmax",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          return std::make_shared<LogSoftmax>(r.integer("dim"));
        },
        [](const Module& m) { return Json{{"dim", as<LogSoftmax>(m).dim}}; }}},
      {"Flatten",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          int64_t start = r.integer("start_dim", INT64_MIN, kMax, 1);
          return std::make_shared<Flatten>(start, r.integer("end_dim", INT64_MIN, kMax, -1));
        },
        [](const Module& m) {
          const auto& f = as<Flatten>(m);
          return Json{{"start_dim", f.start_dim}, {"end_dim", f.end_dim}};
        }}},
      {"Unflatten",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          int64_t dim = r.integer("dim");
          return std::make_shared<Unflatten>(dim, r.int_list("unflattened_size", -1, 0));
        },
        [](const Module& m) {
          const auto& u = as<Unflatten>(m);
          return Json{{"dim", u.dim}, {"unflattened_size", u.unflattened_size}};
        }}},
      {"MaxPool2d",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          Size2 k = read_size2(r, "kernel_size", 1);
          Size2 s = r.get("stride") ? read_size2(r, "stride", 1) : k;
          Size2 p = read_size2(r, "padding", 0, 0), d = read_size2(r, "dilation", 1, 1);
          if (2 * p[0] > k[0] || 2 * p[1] > k[1]) r.bad("padding", "at most half of kernel_size");
          bool ceil = r.boolean("ceil_mode", false);
          return std::make_shared<MaxPool2d>(k, s, p, d, ceil, read_data_format(r));
        },
        [](const Module& m) {
          const auto& p = as<MaxPool2d>(m);
          return with_data_format(Json{{"kernel_size", size2(p.kernel_size)}, {"stride", size2(p.stride)},
                                       {"padding", size2(p.padding)},         {"dilation", size2(p.dilation)},
                                       {"ceil_mode", p.ceil_mode}},
                                  p.data_format);
        }}},
      {"AvgPool2d",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          Size2 k = read_size2(r, "kernel_size", 1);
          Size2 s = r.get("stride") ? read_size2(r, "stride", 1) : k;
          Size2 p = read_size2(r, "padding", 0, 0);
          if (2 * p[0] > k[0] || 2 * p[1] > k[1]) r.bad("padding", "at most half of kernel_size");
          bool ceil = r.boolean("ceil_mode", false), include = r.boolean("count_include_pad", true);
          std::optional<int64_t> divisor = r.optional_integer("divisor_override", 1, kMax);
          return std::make_shared<AvgPool2d>(k, s, p, ceil, include, divisor, read_data_format(r));
        },
        [](const Module& m) {
          const auto& p = as<AvgPool2d>(m);
          return with_data_format(Json{{"kernel_size", size2(p.kernel_size)}, {"stride", size2(p.stride)},
                                       {"padding", size2(p.padding)},         {"ceil_mode", p.ceil_mode},
                                       {"count_include_pad", p.count_include_pad},
                                       {"divisor_override", optional_json(p.divisor_override)}},
                                  p.data_format);
        }}},
      {"AdaptiveAvgPool2d",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          Size2 out = read_size2(r, "output_size", 1);
          return std::make_shared<AdaptiveAvgPool2d>(out, read_data_format(r));
        },
        [](const Module& m) {
          const auto& p = as<AdaptiveAvgPool2d>(m);
          return with_data_format(Json{{"output_size", size2(p.output_size)}}, p.data_format);
        }}},
      {"Embedding",
       {[](ConfigReader& r, const std::string&) -> ModulePtr {
          int64_t num = r.integer("num_embeddings", 1), dim = r.integer("embedding_dim", 1);
          return std::make_shared<Embedding>(num, dim, r.optional_integer("padding_idx", -num, num - 1));
        },
        [](const Module& m) {
          const auto& e = as<Embedding>(m);
          return Json{{"num_embeddings", e.num_embeddings}, {"embedding_dim", e.embedding_dim},
                      {"padding_idx", optional_json(e.padding_idx)}};
        }}},
      {"RNN", rnn_kind<RNN>("RNN")},
      {"LSTM", rnn_kind<LSTM>("LSTM")},
      {"GRU", rnn_kind<GRU>("GRU")},
      {"Sequential",
       {[](ConfigReader& r, const std::string& where) -> ModulePtr {
          const Json& layers = r.array("layers");
          std::vector<ModulePtr> modules;
          for (std::size_t i = 0; i < layers.size(); ++i) {
            std::string path = detail::concat(r.field_path("layers"), '[', i, ']');
            modules.push_back(from_config(layers[i], where, path));
          }
          return std::make_shared<Sequential>(std::move(modules));
        },
        [](const Module& m) {
          Json layers = Json::array();
          const auto& s = as<Sequential>(m);
          for (std::size_t i = 0; i < s.size(); ++i) layers.push_back(config(*s[i]));
          return Json{{"layers", layers}};
        }}},
  };
  return table;
}

std::string known_list() {
  std::string out;
  for (const auto& [name, kind] : kinds()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

ModulePtr from_config(const Json& value, const std::string& where, const std::string& path) {
  ConfigReader r(value, where, path, "a layer object {\"class\": ...}");
  const Json* cls = r.get("class");
  if (!cls) r.error("missing the required field 'class' (the layer's name: " + known_list() + ")");
  auto it = cls->is_string() ? kinds().find(cls->get<std::string>()) : kinds().end();
  if (it == kinds().end()) r.bad("class", "a layer name, one of: " + known_list());
  ModulePtr module;
  try {
    module = it->second.build(r, where);
  } catch (const Error& e) {
    // Our own messages already start with `where`; a layer constructor's
    // check (a combination of values it refuses) gets the path added.
    std::string msg = e.what();
    if (msg.rfind(where + ": ", 0) == 0) throw;
    r.error(msg);
  }
  r.finish(it->first);
  return module;
}

Json config(const Module& module) {
  const std::string cls = module.name();
  auto it = kinds().find(cls);
  NABLA_CHECK(it != kinds().end(), "nn::config: ", cls, " has no config (only nn's layers have one: ", known_list(),
              ")");
  // A subclass of a known layer has the layer's name only if it is the same class.
  Json j = {{"class", cls}};
  Json fields = it->second.describe(module);
  for (auto f = fields.begin(); f != fields.end(); ++f) j[f.key()] = f.value();
  return j;
}

std::vector<std::string> config_layer_names() {
  std::vector<std::string> out;
  for (const auto& [name, kind] : kinds()) out.push_back(name);
  return out;
}

}  // namespace nabla::nn
