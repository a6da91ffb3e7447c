// The models `nabla train` knows by name: "cnn" (the default) and "mlp",
// built by nabla/zoo/fashion.h (the layers and why they are so are described
// there). The default CNN is also the model of the libtorch comparison
// benchmark, so keep its shape standard (see docs/train.md).
#pragma once
#include <string>
#include <vector>

#include "nabla/nn/module.h"

namespace nabla::tool {

// "cnn" or "mlp"; anything else raises nabla::Error listing the names.
nn::ModulePtr make_model(const std::string& name);
std::vector<std::string> model_names();

}  // namespace nabla::tool
