// ModuleList and ModuleDict: registration (parameters, state dicts, modes see
// the entries), indexing, append/extend/insert/pop, typed access, printing
// and errors.
#include <gtest/gtest.h>

#include <sstream>

#include "nabla/nabla.h"
#include "tests/support/tensor_names.h"

namespace {

using namespace nabla;

using nabla::testing::names_of;

TEST(NnModuleList, RegistersEntriesInOrder) {
  nn::ModuleList list(nn::Linear(2, 3), nn::ReLU());
  list.append(nn::Linear(3, 1, false));
  EXPECT_EQ(list.size(), 3u);
  EXPECT_EQ(names_of(list.named_parameters()), (std::vector<std::string>{"0.weight", "0.bias", "2.weight"}));
  EXPECT_EQ(list[1]->name(), "ReLU");
  EXPECT_EQ(list[-1]->name(), "Linear");
  EXPECT_EQ(list.at<nn::Linear>(2)->out_features, 1);
  EXPECT_THROW(list.at<nn::Linear>(1), Error);
  EXPECT_THROW(list[3], Error);
  EXPECT_THROW(list[-4], Error);
  int count = 0;
  for (const auto& m : list) count += m->num_parameters() > 0;
  EXPECT_EQ(count, 2);
  list.eval();
  EXPECT_FALSE(list[0]->is_training());
}

TEST(NnModuleList, InsertRenumbersAndExtendAppends) {
  nn::ModuleList list;
  auto shared = std::make_shared<nn::Tanh>();
  list.extend({std::make_shared<nn::ReLU>(), std::make_shared<nn::Sigmoid>()});
  list.insert(1, shared);
  list.insert(-3, nn::Identity());  // before position 0
  list.insert(4, nn::GELU());       // == size: appends
  std::vector<std::string> kinds;
  for (const auto& [n, m] : list.named_children()) kinds.push_back(n + ":" + m->name());
  EXPECT_EQ(kinds, (std::vector<std::string>{"0:Identity", "1:ReLU", "2:Tanh", "3:Sigmoid", "4:GELU"}));
  EXPECT_EQ(list[2].get(), shared.get());
  EXPECT_THROW(list.insert(6, nn::ReLU()), Error);
  EXPECT_THROW(list.insert(-6, nn::ReLU()), Error);
  EXPECT_THROW(list.append(nn::ModulePtr()), Error);
  EXPECT_THROW(list.forward(ones({1})), Error);
}

TEST(NnModuleList, LayersInAListTrainTogether) {
  manual_seed(0);
  struct Net : nn::Module {
    std::shared_ptr<nn::ModuleList> blocks = register_module("blocks", std::make_shared<nn::ModuleList>());
    Net() {
      for (int i = 0; i < 3; ++i) blocks->append(nn::Linear(4, 4));
    }
    Tensor forward(const Tensor& x) override {
      Tensor h = x;
      for (const auto& b : *blocks) h = (*b)(h).tanh();
      return h;
    }
  } net;
  EXPECT_EQ(net.state_dict().size(), 6u);
  EXPECT_TRUE(net.state_dict().contains("blocks.2.bias"));
  Tensor x = randn({8, 4}), y = randn({8, 4}) * 0.5;
  optim::SGD opt(net.parameters(), {{"lr", 0.1}});
  nn::MSELoss mse;
  double first = mse(net(x), y).item<double>(), last = 0;
  for (int i = 0; i < 50; ++i) {
    Tensor loss = mse(net(x), y);
    last = loss.item<double>();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  EXPECT_LT(last, 0.8 * first);
}

TEST(NnModuleDict, InsertReplacesInPlaceAndPopRemoves) {
  nn::ModuleDict d({{"enc", std::make_shared<nn::Linear>(3, 4)}, {"act", std::make_shared<nn::ReLU>()}});
  d.insert("dec", nn::Linear(4, 3));
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"enc", "act", "dec"}));
  d.insert("act", nn::Tanh());  // same position, new module
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"enc", "act", "dec"}));
  EXPECT_EQ(d["act"]->name(), "Tanh");
  EXPECT_TRUE(d.contains("dec"));
  EXPECT_EQ(d.at<nn::Linear>("dec")->in_features, 4);
  EXPECT_EQ(names_of(d.named_parameters()),
            (std::vector<std::string>{"enc.weight", "enc.bias", "dec.weight", "dec.bias"}));
  nn::ModulePtr enc = d.pop("enc");
  EXPECT_EQ(enc->name(), "Linear");
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"act", "dec"}));
  EXPECT_EQ(d.values().size(), 2u);
  std::vector<std::string> seen;
  for (const auto& [k, m] : d) seen.push_back(k);
  EXPECT_EQ(seen, d.keys());
  try {
    d["nope"];
    FAIL() << "no error for a missing key";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("keys: act, dec"), std::string::npos) << e.what();
  }
  EXPECT_THROW(d.pop("enc"), Error);
  EXPECT_THROW(d.insert("a.b", nn::ReLU()), Error);
  EXPECT_THROW(d.at<nn::Linear>("act"), Error);
  d.clear();
  EXPECT_TRUE(d.empty());
}

TEST(NnContainers, PrintLikePyTorch) {
  nn::ModuleDict d;
  d.insert("convs", nn::ModuleList(nn::Conv2d(1, 2, 3), nn::Conv2d(2, 2, {1, 3}, 1, {0, 1}, 1, 2, false)));
  d.insert("pool", nn::MaxPool2d(2));
  std::ostringstream os;
  os << d;
  EXPECT_EQ(os.str(),
            "ModuleDict(  # 26 parameters\n"
            "  (convs): ModuleList(  # 26 parameters\n"
            "    (0): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))  # 20 parameters\n"
            "    (1): Conv2d(2, 2, kernel_size=(1, 3), stride=(1, 1), padding=(0, 1), groups=2, bias=false)  # 6 "
            "parameters\n"
            "  )\n"
            "  (pool): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=false)\n"
            ")");
}

}  // namespace
