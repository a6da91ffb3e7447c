// nn::config / nn::from_config (nabla/nn/config.h): config -> model -> config
// is identical for every layer a Sequential CNN/MLP/RNN uses, the rebuilt
// model with the same state_dict computes the same outputs, and malformed
// configs (a table of them) each fail with a message naming the file, the
// field path and what is allowed. check_shapes finds layers that do not fit.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "nabla/nn/config.h"

namespace {

using namespace nabla;
using nn::Json;

// config -> model -> config, through the JSON text as a file holds it.
void expect_round_trip(const nn::Module& model, const Tensor& input) {
  Json j = nn::config(model);
  Json reread = Json::parse(j.dump(2));
  nn::ModulePtr rebuilt = nn::from_config(reread, "round_trip.json");
  EXPECT_EQ(nn::config(*rebuilt), j) << j.dump(2);
  EXPECT_EQ(nn::config(*rebuilt).dump(), j.dump());
  rebuilt->load_state_dict(model.state_dict());
  const_cast<nn::Module&>(model).eval();
  rebuilt->eval();
  NoGradGuard no_grad;
  Tensor a = const_cast<nn::Module&>(model).forward(input), b = rebuilt->forward(input);
  EXPECT_TRUE(a.equal(b)) << j.dump();
}

TEST(NnConfig, DefaultCnnRoundTrips) {
  manual_seed(0);
  nn::Sequential cnn(nn::Conv2d(1, 32, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::BatchNorm2d(32),
                     nn::Conv2d(32, 64, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::BatchNorm2d(64), nn::Flatten(),
                     nn::Linear(64 * 7 * 7, 128), nn::ReLU(), nn::Dropout(0.25), nn::Linear(128, 10));
  // Non-default running statistics, so that the state dict matters.
  cnn.train();
  { NoGradGuard g; cnn(randn({4, 1, 28, 28})); }
  expect_round_trip(cnn, randn({2, 1, 28, 28}));
  Json j = nn::config(cnn);
  EXPECT_EQ(j["class"], "Sequential");
  EXPECT_EQ(j["layers"][0], Json::parse(R"({"class": "Conv2d", "in_channels": 1, "out_channels": 32,
      "kernel_size": 3, "stride": 1, "padding": 1, "dilation": 1, "groups": 1, "bias": true})"));
  EXPECT_EQ(nn::check_shapes(j, {1, 28, 28}), (std::vector<int64_t>{10}));
}

TEST(NnConfig, EveryLayerRoundTrips) {
  manual_seed(1);
  nn::Sequential image(nn::Conv2d(3, 6, {3, 5}, {1, 2}, {1, 0}, {2, 1}, 3, false), nn::BatchNorm2d(6, 1e-3, std::nullopt),
                       nn::LeakyReLU(0.2), nn::AvgPool2d(2, 1, 1, true, false, 3), nn::ELU(0.5),
                       nn::MaxPool2d({2, 3}, std::nullopt, 0, 1, true), nn::GroupNorm(3, 6),
                       nn::ConvTranspose2d(6, 4, 3, 2, 1, 1, 2, true, 1), nn::SiLU(), nn::AdaptiveAvgPool2d({2, 3}),
                       nn::GELU("tanh"), nn::Flatten(1, -1), nn::Unflatten(1, {4, 6}), nn::LayerNorm(6, 1e-4),
                       nn::Flatten(), nn::Dropout(0.1), nn::Identity(), nn::Linear(24, 5, false), nn::Tanh(),
                       nn::BatchNorm1d(5, 1e-5, 0.3, false), nn::Sigmoid(), nn::Softmax(1), nn::LogSoftmax(-1));
  expect_round_trip(image, randn({2, 3, 12, 16}));
  EXPECT_EQ(nn::check_shapes(nn::config(image), {3, 12, 16}), (std::vector<int64_t>{5}));

  nn::Sequential seq(nn::Conv1d(4, 8, 3, 2, 1, 1, 2), nn::ReLU(), nn::Conv1d(8, 8, 1));
  expect_round_trip(seq, randn({2, 4, 9}));
  EXPECT_EQ(nn::check_shapes(nn::config(seq), {4, 9}), (std::vector<int64_t>{8, 5}));

  nn::Sequential rnn(nn::LSTM(5, 7, {.num_layers = 2, .batch_first = true, .bidirectional = true, .proj_size = 3}),
                     nn::GRU(6, 4, {.bias = false, .batch_first = true}),
                     nn::RNN(4, 3, {.batch_first = true, .nonlinearity = "relu"}), nn::Linear(3, 2));
  expect_round_trip(rnn, randn({2, 6, 5}));
  EXPECT_EQ(nn::check_shapes(nn::config(rnn), {6, 5}), (std::vector<int64_t>{6, 2}));

  nn::Sequential text(nn::Embedding(20, 6, -1), nn::Flatten(), nn::Linear(18, 2));
  expect_round_trip(text, randint(0, 20, {4, 3}));
  EXPECT_EQ(nn::check_shapes(nn::config(text), {3}), (std::vector<int64_t>{2}));

  nn::Sequential nested(std::make_shared<nn::Sequential>(nn::Linear(4, 4), nn::ReLU()), nn::Linear(4, 1));
  expect_round_trip(nested, randn({3, 4}));
}

TEST(NnConfig, LeftOutFieldsTakePyTorchDefaults) {
  Json j = Json::parse(R"({"class": "Sequential", "layers": [
      {"class": "Conv2d", "in_channels": 1, "out_channels": 2, "kernel_size": [3, 3]},
      {"class": "MaxPool2d", "kernel_size": 2}, {"class": "BatchNorm2d", "num_features": 2, "momentum": null},
      {"class": "Flatten"}, {"class": "Linear", "in_features": 18, "out_features": 3}]})");
  nn::ModulePtr m = nn::from_config(j);
  Json full = nn::config(*m);
  EXPECT_EQ(full["layers"][0]["stride"], 1);
  EXPECT_EQ(full["layers"][0]["kernel_size"], 3);
  EXPECT_EQ(full["layers"][1]["stride"], 2);  // stride left out: kernel_size, as PyTorch's None
  EXPECT_TRUE(full["layers"][2]["momentum"].is_null());
  EXPECT_EQ(full["layers"][2]["eps"], 1e-5);
  EXPECT_EQ(full["layers"][4]["bias"], true);
  EXPECT_EQ(nn::check_shapes(j, {1, 8, 8}), (std::vector<int64_t>{3}));
}

TEST(NnConfig, ModulesWithoutConfigAreRefused) {
  struct Mine : nn::Module {};
  Mine m;
  try {
    nn::config(m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nn::config: Mine has no config"), std::string::npos) << e.what();
  }
}

struct Malformed {
  const char* name;
  const char* text;        // the file's content
  const char* field;       // the field path the message must name ("" when the message is about the file)
  const char* expected;    // a piece of "what is allowed" (or of the problem)
  std::vector<int64_t> input_shape = {};  // non-empty: check_shapes with it
};

// Wraps one layer in a Sequential, as a model file holds it.
std::string seq(const std::string& layers) { return R"({"class": "Sequential", "layers": [)" + layers + "]}"; }

const std::vector<Malformed>& malformed() {
  static const std::vector<Malformed> table = [] {
    std::vector<Malformed> t;
    auto add = [&](const char* name, std::string text, const char* field, const char* expected,
                   std::vector<int64_t> shape = {}) {
      static std::vector<std::string> keep;  // the table keeps char pointers
      keep.reserve(1000);
      keep.push_back(std::move(text));
      t.push_back({name, keep.back().c_str(), field, expected, std::move(shape)});
    };
    // Not JSON, or not an object.
    add("not_json", "this is not json", "", "not valid JSON: parse error");
    add("truncated", R"({"class": "Linear", "in_features": 3)", "", "not valid JSON");
    add("trailing_comma", R"({"class": "ReLU",})", "", "not valid JSON");
    add("top_level_array", "[1, 2]", "the top level", "expected a layer object");
    add("top_level_number", "42", "the top level", "expected a layer object");
    // The class.
    add("missing_class", R"({"in_features": 3})", "the top level", "missing the required field 'class'");
    add("unknown_layer", R"({"class": "Linaer"})", "class", "a layer name, one of: AdaptiveAvgPool2d");
    add("class_not_string", R"({"class": 7})", "class", "got 7 (an integer)");
    add("unknown_layer_in_list", seq(R"({"class": "ReLU"}, {"class": "Conv3d"})"), "layers[1].class",
        "a layer name");
    add("layer_not_object", seq(R"({"class": "ReLU"}, "ReLU")"), "layers[1]", "expected a layer object");
    add("layers_not_array", R"({"class": "Sequential", "layers": {"class": "ReLU"}})", "layers", "expected an array");
    add("layers_missing", R"({"class": "Sequential"})", "the top level", "missing the required field 'layers'");
    // Missing and unknown fields.
    add("missing_out_features", seq(R"({"class": "Linear", "in_features": 3})"), "layers[0]",
        "missing the required field 'out_features'");
    add("missing_kernel_size", seq(R"({"class": "Conv2d", "in_channels": 1, "out_channels": 2})"), "layers[0]",
        "missing the required field 'kernel_size'");
    add("missing_softmax_dim", seq(R"({"class": "Softmax"})"), "layers[0]", "missing the required field 'dim'");
    add("unknown_field", seq(R"({"class": "Linear", "in_features": 3, "out_features": 4, "bais": false})"),
        "layers[0].bais", "unknown field of Linear; allowed: bias, class, in_features, out_features");
    add("misspelt_required_field", seq(R"({"class": "Linear", "in_features": 3, "out_feature": 4})"), "layers[0]",
        "missing the required field 'out_features' (not understood here: 'out_feature')");
    add("unknown_field_no_options", seq(R"({"class": "ReLU", "inplace": true})"), "layers[0].inplace",
        "unknown field of ReLU; allowed: class");
    add("unknown_field_nested", seq(seq(R"({"class": "Dropout", "rate": 0.5})")), "layers[0].layers[0].rate",
        "unknown field of Dropout; allowed: class, p");
    // Wrong types.
    add("string_for_int", seq(R"({"class": "Linear", "in_features": "3", "out_features": 4})"),
        "layers[0].in_features", "got \"3\" (a string), expected an integer >= 1");
    add("fraction_for_int", seq(R"({"class": "Linear", "in_features": 3.5, "out_features": 4})"),
        "layers[0].in_features", "got 3.5 (a number), expected an integer >= 1");
    add("float_for_int", seq(R"({"class": "Linear", "in_features": 3.0, "out_features": 4})"),
        "layers[0].in_features", "expected an integer >= 1");
    add("int_for_bool", seq(R"({"class": "Linear", "in_features": 3, "out_features": 4, "bias": 1})"),
        "layers[0].bias", "got 1 (an integer), expected true or false");
    add("string_for_number", seq(R"({"class": "Dropout", "p": "0.5"})"), "layers[0].p",
        "expected a number in [0, 1]");
    add("null_for_int", seq(R"({"class": "Linear", "in_features": null, "out_features": 4})"),
        "layers[0].in_features", "got null (null)");
    add("bad_kernel_list", seq(R"({"class": "Conv2d", "in_channels": 1, "out_channels": 2, "kernel_size": [3, 3, 3]})"),
        "layers[0].kernel_size", "an integer >= 1 or a list of 2 such integers");
    add("kernel_list_of_strings", seq(R"({"class": "MaxPool2d", "kernel_size": ["2", "2"]})"),
        "layers[0].kernel_size", "a list of 2 such integers");
    add("bad_choice", seq(R"({"class": "GELU", "approximate": "fast"})"), "layers[0].approximate",
        "expected one of \"none\", \"tanh\"");
    add("bad_nonlinearity", seq(R"({"class": "RNN", "input_size": 2, "hidden_size": 2, "nonlinearity": "sigmoid"})"),
        "layers[0].nonlinearity", "one of \"tanh\", \"relu\"");
    add("momentum_string", seq(R"({"class": "BatchNorm1d", "num_features": 2, "momentum": "auto"})"),
        "layers[0].momentum", "a number in [0, 1] or null");
    // Values out of range.
    add("negative_out_features", seq(R"({"class": "Linear", "in_features": 3, "out_features": -5})"),
        "layers[0].out_features", "got -5 (an integer), expected an integer >= 1");
    add("zero_channels", seq(R"({"class": "Conv2d", "in_channels": 0, "out_channels": 2, "kernel_size": 3})"),
        "layers[0].in_channels", "expected an integer >= 1");
    add("huge_integer", seq(R"({"class": "Linear", "in_features": 18446744073709551615, "out_features": 2})"),
        "layers[0].in_features", "expected an integer >= 1");
    add("dropout_p_above_one", seq(R"({"class": "Dropout", "p": 1.5})"), "layers[0].p",
        "got 1.5 (a number), expected a number in [0, 1]");
    add("negative_padding", seq(R"({"class": "Conv2d", "in_channels": 1, "out_channels": 2, "kernel_size": 3, "padding": -1})"),
        "layers[0].padding", "an integer >= 0");
    add("zero_stride", seq(R"({"class": "Conv1d", "in_channels": 1, "out_channels": 2, "kernel_size": 3, "stride": 0})"),
        "layers[0].stride", "an integer >= 1");
    add("groups_not_divisor", seq(R"({"class": "Conv2d", "in_channels": 3, "out_channels": 4, "kernel_size": 3, "groups": 2})"),
        "layers[0].groups", "a divisor of in_channels 3 and out_channels 4");
    add("eps_zero", seq(R"({"class": "BatchNorm2d", "num_features": 4, "eps": 0})"), "layers[0].eps",
        "expected a number > 0");
    add("momentum_above_one", seq(R"({"class": "BatchNorm2d", "num_features": 4, "momentum": 2})"),
        "layers[0].momentum", "a number in [0, 1]");
    add("pool_padding_too_big", seq(R"({"class": "MaxPool2d", "kernel_size": 2, "padding": 2})"), "layers[0].padding",
        "at most half of kernel_size");
    add("padding_idx_out_of_range", seq(R"({"class": "Embedding", "num_embeddings": 5, "embedding_dim": 2, "padding_idx": 5})"),
        "layers[0].padding_idx", "an integer in [-5, 4]");
    add("proj_size_too_big", seq(R"({"class": "LSTM", "input_size": 2, "hidden_size": 3, "proj_size": 3})"),
        "layers[0].proj_size", "an integer in [0, 2]");
    add("rnn_dropout_negative", seq(R"({"class": "GRU", "input_size": 2, "hidden_size": 3, "dropout": -0.1})"),
        "layers[0].dropout", "a number in [0, 1]");
    add("group_norm_groups", seq(R"({"class": "GroupNorm", "num_groups": 4, "num_channels": 6})"),
        "layers[0].num_groups", "a divisor of num_channels 6");
    add("empty_normalized_shape", seq(R"({"class": "LayerNorm", "normalized_shape": []})"),
        "layers[0].normalized_shape", "a non-empty list");
    add("divisor_override_zero", seq(R"({"class": "AvgPool2d", "kernel_size": 2, "divisor_override": 0})"),
        "layers[0].divisor_override", "an integer >= 1 or null");
    add("output_padding_too_big", seq(R"({"class": "ConvTranspose2d", "in_channels": 1, "out_channels": 1, "kernel_size": 3, "stride": 2, "output_padding": 2})"),
        "layers[0].output_padding", "smaller than stride or dilation");
    // Shapes between layers (checked with an input shape, before anything runs).
    add("linear_after_flatten", seq(R"({"class": "Flatten"}, {"class": "Linear", "in_features": 100, "out_features": 10})"),
        "layers[1] (Linear) cannot take the output of layers[0] (Flatten), shape [N, 784]",
        "its in_features is 100 but the input's last dimension is 784", {1, 28, 28});
    add("conv_channels", seq(R"({"class": "Conv2d", "in_channels": 1, "out_channels": 8, "kernel_size": 3},
                                {"class": "ReLU"},
                                {"class": "Conv2d", "in_channels": 16, "out_channels": 8, "kernel_size": 3})"),
        "layers[2] (Conv2d) cannot take the output of layers[1] (ReLU), shape [N, 8, 26, 26]",
        "its in_channels is 16 but the input has 8 channels", {1, 28, 28});
    add("input_channels", seq(R"({"class": "Conv2d", "in_channels": 3, "out_channels": 8, "kernel_size": 3})"),
        "layers[0] (Conv2d) cannot take the output of the input, shape [N, 1, 28, 28]", "its in_channels is 3",
        {1, 28, 28});
    add("batchnorm_features", seq(R"({"class": "Conv2d", "in_channels": 1, "out_channels": 8, "kernel_size": 3},
                                     {"class": "BatchNorm2d", "num_features": 32})"),
        "layers[1] (BatchNorm2d) cannot take the output of layers[0] (Conv2d)", "its num_features is 32", {1, 28, 28});
    add("kernel_too_big", seq(R"({"class": "MaxPool2d", "kernel_size": 2}, {"class": "Conv2d", "in_channels": 1, "out_channels": 1, "kernel_size": 20})"),
        "layers[1] (Conv2d) cannot take the output of layers[0] (MaxPool2d), shape [N, 1, 14, 14]",
        "does not fit the input's size 14", {1, 28, 28});
    add("conv_after_flatten", seq(R"({"class": "Flatten"}, {"class": "Conv2d", "in_channels": 1, "out_channels": 1, "kernel_size": 3})"),
        "layers[1] (Conv2d) cannot take the output of layers[0] (Flatten)", "it needs a 4-D input", {1, 28, 28});
    add("rnn_features", seq(R"({"class": "LSTM", "input_size": 8, "hidden_size": 4, "batch_first": true},
                               {"class": "Linear", "in_features": 8, "out_features": 2})"),
        "layers[1] (Linear) cannot take the output of layers[0] (LSTM), shape [N, 5, 4]", "its in_features is 8",
        {5, 8});
    add("nested_mismatch", seq(R"({"class": "Flatten"}, )" + seq(R"({"class": "Linear", "in_features": 3, "out_features": 2})")),
        "layers[1].layers[0] (Linear) cannot take the output of the input of layers[1], shape [N, 4]",
        "its in_features is 3", {2, 2});
    return t;
  }();
  return table;
}

TEST(NnConfig, MalformedConfigsNameFileFieldAndWhatIsAllowed) {
  ASSERT_GE(malformed().size(), 40u);
  for (const Malformed& m : malformed()) {
    SCOPED_TRACE(m.name);
    std::string message;
    try {
      Json j = nn::parse_json_config(m.text, "bad.json");
      if (m.input_shape.empty()) {
        nn::from_config(j, "bad.json");
      } else {
        nn::from_config(j, "bad.json");  // valid layers: only the shapes are wrong
        nn::check_shapes(j, m.input_shape, "bad.json");
      }
    } catch (const Error& e) {
      message = e.what();
    }
    ASSERT_FALSE(message.empty()) << m.text;
    EXPECT_EQ(message.rfind("bad.json: ", 0), 0u) << message;
    EXPECT_NE(message.find(m.field), std::string::npos) << message;
    EXPECT_NE(message.find(m.expected), std::string::npos) << message;
  }
}

TEST(NnConfig, ReadJsonConfigNamesTheFile) {
  try {
    nn::read_json_config("/nonexistent/model.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.json: cannot open"), std::string::npos) << e.what();
  }
}

}  // namespace
