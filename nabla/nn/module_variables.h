// nn Modules in graphs: while a ModuleVariables lives, each parameter of a
// module is a graph variable (initial value: the parameter's current value;
// name: its qualified name with '/' for '.', "fc1/weight"), so calling the
// module on a placeholder builds graph nodes. copy_to_module() writes values
// trained in a Session back into the module. It lives in nn/ (not graph/)
// because nn/ is the layer above graph/. See docs/graph.md, "Modules in graphs".
//
//   graph::Graph g;
//   Tensor x = g.placeholder(kFloat32, {64, 1000}, "x");
//   nn::ModuleVariables mv(g, *model);         // model's parameters are now graph variables
//   Tensor loss = graph::losses::mean_squared_error(y, model->forward(x));
//   ... minimize, run ...
//   mv.copy_to_module(sess);                   // the module holds the trained values
#pragma once
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "nabla/graph/session.h"
#include "nabla/nn/module.h"

namespace nabla::nn {

class ModuleVariables {
 public:
  // Makes a variable per parameter of `module` (recursively; trainable iff the
  // parameter requires grad) and points the module's parameter handles at them.
  ModuleVariables(graph::Graph& g, Module& module, std::source_location loc = std::source_location::current());
  // Points the parameters back at their data (the values they had before, or
  // those copied in by copy_to_module).
  ~ModuleVariables();
  ModuleVariables(const ModuleVariables&) = delete;
  ModuleVariables& operator=(const ModuleVariables&) = delete;

  // {parameter name ("fc1.weight"), graph variable}, in named_parameters() order.
  const std::vector<std::pair<std::string, Tensor>>& variables() const { return variables_; }
  // The variable of one parameter; a clear error for an unknown name.
  Tensor variable(const std::string& parameter_name) const;
  // The variables of the parameters that require grad (a var_list for minimize).
  std::vector<Tensor> trainable_variables() const;

  // Copies every variable's current value in `sess` into the module's
  // parameter data (allowed while alive and after). Errors, before changing
  // anything, if a variable is not initialized in `sess`.
  void copy_to_module(const graph::Session& sess) const;

 private:
  struct Saved {
    Tensor handle;  // the module's parameter (its impl is made symbolic while we live)
    Tensor data;    // a concrete tensor over the parameter's original storage
    std::shared_ptr<AutogradMeta> autograd;
    Shape strides;
    int64_t offset;
    bool is_view;
  };
  std::vector<std::pair<std::string, Tensor>> variables_;
  std::vector<Saved> saved_;
};

}  // namespace nabla::nn
