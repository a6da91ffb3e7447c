// See zoo.h.
#include "nabla/zoo/zoo.h"

#include <functional>
#include <utility>

#include "nabla/core/error.h"
#include "nabla/io/safetensors.h"

namespace nabla::zoo {

namespace {
using Factory = std::function<nn::ModulePtr(const ModelOptions&)>;

const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> models{
      {"lenet5", lenet5},       {"vgg11", vgg11},         {"vgg11_bn", vgg11_bn},   {"vgg13", vgg13},
      {"vgg13_bn", vgg13_bn},   {"vgg16", vgg16},         {"vgg16_bn", vgg16_bn},   {"vgg19", vgg19},
      {"vgg19_bn", vgg19_bn},   {"resnet18", resnet18},   {"resnet34", resnet34},   {"resnet50", resnet50},
      {"resnet101", resnet101}, {"resnet152", resnet152}, {"mobilenet_v2", mobilenet_v2}};
  return models;
}
}  // namespace

nn::ModulePtr create(const std::string& name, const ModelOptions& options) {
  for (const auto& [known, make] : registry())
    if (known == name) return make(options);
  std::string names;
  for (const auto& [known, make] : registry()) names += (names.empty() ? "" : ", ") + known;
  throw Error(detail::concat("zoo::create: unknown model '", name, "'; known models: ", names));
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& [known, make] : registry()) names.push_back(known);
  return names;
}

void load_weights(nn::Module& model, const std::string& path, bool strict) {
  nn::StateDict dict;
  for (const auto& [name, t] : io::load_safetensors(path)) dict.insert(name, t);
  try {
    model.load_state_dict(dict, strict);
  } catch (const Error& e) {
    throw Error(detail::concat("zoo::load_weights(\"", path, "\"): ", e.what()));
  }
}

}  // namespace nabla::zoo
