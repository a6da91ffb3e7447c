// The models of models.h, defined in nabla/zoo/fashion.h.
#include "models.h"

#include "nabla/core/error.h"
#include "nabla/zoo/fashion.h"

namespace nabla::tool {

std::vector<std::string> model_names() { return {"cnn", "mlp"}; }

nn::ModulePtr make_model(const std::string& name) {
  if (name == "cnn") return zoo::fashion_cnn();
  if (name == "mlp") return zoo::fashion_mlp();
  fail("make_model: unknown model '", name, "', expected one of: cnn, mlp");
}

}  // namespace nabla::tool
