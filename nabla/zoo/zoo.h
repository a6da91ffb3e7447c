// nabla::zoo — ready-made models with torchvision's parameter names, so that
// a torchvision (or timm) state dict saved as safetensors loads with
// load_state_dict (docs/zoo.md):
//   lenet5                       (LeNet-5 for 28x28 images)
//   vgg11, vgg13, vgg16, vgg19   (and their _bn variants)
//   resnet18, 34, 50, 101, 152
//   mobilenet_v2
//   fashion_cnn, fashion_mlp     (the models of `nabla train`)
#pragma once
#include <string>
#include <vector>

#include "nabla/zoo/fashion.h"
#include "nabla/zoo/lenet.h"
#include "nabla/zoo/mobilenet.h"
#include "nabla/zoo/options.h"
#include "nabla/zoo/resnet.h"
#include "nabla/zoo/vgg.h"

namespace nabla::zoo {

// The model called `name` ("resnet18", "vgg16_bn", "mobilenet_v2", ...: the
// names of the functions above except the fashion models, which take no
// options), for configs and command lines. An unknown name throws nabla::Error
// listing the known ones.
nn::ModulePtr create(const std::string& name, const ModelOptions& options = {});

// The names create() knows, in the order listed above.
std::vector<std::string> model_names();

// Loads a safetensors file of state-dict entries (what
// `safetensors.torch.save_file(model.state_dict(), path)` writes) into
// `model` with load_state_dict: strict by default, so every missing or
// unexpected key and every shape or dtype mismatch is reported, naming the file.
void load_weights(nn::Module& model, const std::string& path, bool strict = true);

}  // namespace nabla::zoo
