// nn::Module::state_dict / load_state_dict: round trip and error messages.
#include <gtest/gtest.h>

#include "nabla/nabla.h"

namespace {

using namespace nabla;

nn::Sequential make_net() { return nn::Sequential(nn::Linear(3, 4), nn::ReLU(), nn::BatchNorm2d(2)); }

std::string load_error(nn::Module& m, const nn::StateDict& d, bool strict = true) {
  try {
    m.load_state_dict(d, strict);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NnStateDict, OrderedParamsThenBuffers) {
  auto net = make_net();
  EXPECT_EQ(net.state_dict().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias", "2.running_mean", "2.running_var",
                                      "2.num_batches_tracked"}));
}

TEST(NnStateDict, RoundTripBetweenTwoModules) {
  manual_seed(0);
  auto a = make_net();
  manual_seed(1);
  auto b = make_net();
  {
    NoGradGuard g;
    Tensor w = a.state_dict().at("0.weight");
    w.fill_(0.5);
  }
  EXPECT_FALSE(a.state_dict().at("0.weight").to_vector<float>() == b.state_dict().at("0.weight").to_vector<float>());
  Tensor held = std::dynamic_pointer_cast<nn::Linear>(b[0])->weight;
  b.load_state_dict(a.state_dict());
  for (const auto& [k, t] : a.state_dict())
    EXPECT_TRUE(t.to_vector<double>() == b.state_dict().at(k).to_vector<double>()) << k;
  EXPECT_FLOAT_EQ(held.at<float>({0, 0}), 0.5f);  // copied in place
  EXPECT_TRUE(held.requires_grad());
  EXPECT_TRUE(held.is_leaf());
  // A copy, not an alias.
  EXPECT_FALSE(held.is_same(a.state_dict().at("0.weight")));
}

TEST(NnStateDict, MissingAndUnexpectedKeysAreListed) {
  auto net = make_net();
  nn::StateDict d;
  for (const auto& [k, t] : net.state_dict())
    if (k != "0.bias" && k != "2.running_var") d.insert(k, t.clone());
  d.insert("3.weight", zeros({2}));
  std::string msg = load_error(net, d);
  EXPECT_NE(msg.find("missing keys: 0.bias, 2.running_var"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unexpected keys: 3.weight"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Sequential"), std::string::npos) << msg;
  // Non-strict loads what matches.
  d.insert("0.weight", ones({4, 3}));
  net.load_state_dict(d, false);
  EXPECT_FLOAT_EQ(net.state_dict().at("0.weight").at<float>({3, 2}), 1.0f);
}

TEST(NnStateDict, ShapeMismatchIsNamedAndNothingChanges) {
  auto net = make_net();
  auto d = nn::StateDict();
  for (const auto& [k, t] : net.state_dict()) d.insert(k, zeros_like(t));
  d.insert("0.weight", zeros({3, 4}));
  Tensor before = net.state_dict().at("0.bias").clone();
  std::string msg = load_error(net, d, false);
  EXPECT_NE(msg.find("shape mismatches: 0.weight (checkpoint [3, 4], module [4, 3])"), std::string::npos) << msg;
  EXPECT_TRUE(net.state_dict().at("0.bias").to_vector<float>() == before.to_vector<float>());
}

// PyTorch copies an int64 tensor into a float32 parameter; nabla refuses a
// dtype mismatch, naming the API, the key and both dtypes, and changes nothing.
TEST(NnStateDict, DtypeMismatchIsRefusedNotCast) {
  auto net = make_net();
  auto d = nn::StateDict();
  for (const auto& [k, t] : net.state_dict()) d.insert(k, t.clone());
  d.insert("0.weight", ones({4, 3}, kInt64));
  Tensor before = net.state_dict().at("0.weight").clone();
  std::string msg = load_error(net, d);
  EXPECT_NE(msg.find("Module::load_state_dict"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dtype mismatches"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0.weight (checkpoint int64, module float32)"), std::string::npos) << msg;
  EXPECT_TRUE(net.state_dict().at("0.weight").to_vector<float>() == before.to_vector<float>());
  // Non-strict mode refuses it too; float64 into float32 as well.
  d.insert("0.weight", ones({4, 3}, kFloat64));
  msg = load_error(net, d, false);
  EXPECT_NE(msg.find("0.weight (checkpoint float64, module float32)"), std::string::npos) << msg;
  // An explicit cast loads.
  d.insert("0.weight", ones({4, 3}, kFloat64).to(kFloat32));
  net.load_state_dict(d);
  EXPECT_FLOAT_EQ(net.state_dict().at("0.weight").at<float>({0, 0}), 1.0f);
}

TEST(NnStateDict, UndefinedTensorNamesTheApiAndTheKey) {
  auto net = make_net();
  auto d = nn::StateDict();
  for (const auto& [k, t] : net.state_dict()) d.insert(k, t.clone());
  d.insert("0.bias", Tensor());
  EXPECT_EQ(load_error(net, d), "Module::load_state_dict: the tensor for key '0.bias' is undefined");
}

// issue 14: a state dict built by hand from a brace list, as a Python dict literal.
TEST(NnStateDict, BuiltFromABraceList) {
  Tensor w = full({4, 3}, 0.25), b = full({4}, -1.0);
  nn::StateDict sd = {{"weight", w}, {"bias", b}};
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_TRUE(sd.at("weight").is_same(w));  // holds the tensors, like insert

  nn::Linear lin(3, 4);
  lin.load_state_dict({{"weight", w}, {"bias", b}});
  EXPECT_EQ(lin.weight.to_vector<float>(), std::vector<float>(12, 0.25f));
  EXPECT_EQ(lin.bias.to_vector<float>(), std::vector<float>(4, -1.0f));

  auto net = nn::Sequential(nn::Linear(3, 4));
  net.load_state_dict({{"0.weight", w * 2}, {"0.bias", b * 2}});
  EXPECT_EQ(net.state_dict().at("0.bias").to_vector<float>(), std::vector<float>(4, -2.0f));
  // A brace list is checked like any dict: a missing key is still named.
  EXPECT_NE(load_error(net, {{"0.weight", w}}).find("missing keys: 0.bias"), std::string::npos);
  EXPECT_TRUE(nn::StateDict({}).empty());
}

// A repeated name keeps its first position and its last tensor, as
// {"a": x, "b": y, "a": z} does in Python (and as insert() does).
TEST(NnStateDict, BraceListWithARepeatedNameKeepsTheLast) {
  Tensor x = zeros({1}), y = ones({1}), z = full({1}, 7.0);
  nn::StateDict sd = {{"a", x}, {"b", y}, {"a", z}};
  EXPECT_EQ(sd.size(), 2u);
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(sd.at("a").is_same(z));
}

}  // namespace
