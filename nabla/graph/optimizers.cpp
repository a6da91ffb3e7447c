// Graph-mode optimizers: checks, slot variables, and the update rules written
// with nabla ops and assign (the same arithmetic as nabla::optim's eager steps).
#include "nabla/graph/optimizers.h"

#include <cmath>
#include <optional>

#include "nabla/graph/gradients.h"
#include "nabla/ops/ops.h"

namespace nabla::graph {

namespace {

const Node& node_of_value(const Tensor& t) {
  Value* v = value_of(t);
  return v->graph->nodes[static_cast<std::size_t>(v->ref.node)];
}

// Replaces the graph's active name scopes for the life of the object, so that
// slots are named after their variable wherever apply_gradients is called.
class AbsoluteScopes {
 public:
  AbsoluteScopes(Graph& g, std::vector<std::string> scopes) : g_(g), saved_(g.data()->scopes) {
    g_.data()->scopes = std::move(scopes);
  }
  ~AbsoluteScopes() { g_.data()->scopes = saved_; }

 private:
  Graph& g_;
  std::vector<std::string> saved_;
};

void check_hyper(const char* opt, const char* what, double v, bool ok, const char* expected) {
  NABLA_CHECK(std::isfinite(v) && ok, opt, ": ", what, " must be ", expected, ", got ", v);
}

}  // namespace

Tensor Optimizer::zeros_slot(Graph& g, const Tensor& var, std::source_location loc) {
  const Node& vn = node_of_value(var);
  const std::string var_name = vn.name;  // copied: making the slot may grow the node vector
  const Initializer init = init::zeros(vn.metas[0].sizes, vn.metas[0].dtype);
  std::vector<std::string> parts;
  for (std::size_t b = 0, e; b <= var_name.size(); b = e + 1) {
    e = var_name.find('/', b);
    if (e == std::string::npos) e = var_name.size();
    parts.push_back(var_name.substr(b, e - b));
  }
  const std::string device = vn.device;
  AbsoluteScopes scopes(g, parts);
  Tensor slot = g.variable(init, name_, false, loc);
  return device.empty() ? slot : g.set_device(slot, device);  // beside its variable
}

Tensor Optimizer::global_variable(Graph& g, const Initializer& init, const std::string& name,
                                  std::source_location loc) {
  AbsoluteScopes scopes(g, {});
  return g.variable(init, name, false, loc);
}

GradsAndVars Optimizer::compute_gradients(const Tensor& loss, const std::vector<Tensor>& var_list,
                                        std::source_location loc) {
  const std::string api = name_ + "Optimizer::compute_gradients";
  Value* lv = value_of(loss);
  NABLA_CHECK(lv && lv->has_value, api, ": the loss must be a graph value, got ",
              !loss.defined() ? "an undefined tensor" : lv ? "a node without value" : "a concrete tensor");
  NABLA_CHECK(is_floating(loss.dtype()), api, ": the loss has dtype ", loss.dtype(), "; expected a floating-point one");
  std::vector<Tensor> vars = var_list.empty() ? Graph::of(loss).variables(true) : var_list;
  NABLA_CHECK(!vars.empty(), api, ": the graph has no trainable variables to optimize");
  for (std::size_t i = 0; i < vars.size(); ++i) {
    Value* v = value_of(vars[i]);
    NABLA_CHECK(v && v->graph == lv->graph, api, ": var_list[", i, "] is not a value of the loss's graph");
    const Node& vn = v->graph->nodes[static_cast<std::size_t>(v->ref.node)];
    NABLA_CHECK(vn.kind == NodeKind::Variable, api, ": var_list[", i, "] is node ", describe(vn), ", not a variable");
  }
  std::vector<Tensor> grads = gradients(std::vector<Tensor>{loss}, vars, {}, loc);
  GradsAndVars out;
  for (std::size_t i = 0; i < vars.size(); ++i) out.emplace_back(grads[i], vars[i]);
  return out;
}

Tensor Optimizer::minimize(const Tensor& loss, const std::vector<Tensor>& var_list, std::source_location loc) {
  return apply_gradients(compute_gradients(loss, var_list, loc), loc);
}

Tensor Optimizer::apply_gradients(const GradsAndVars& grads_and_vars, std::source_location loc) {
  const std::string api = name_ + "Optimizer::apply_gradients";
  std::shared_ptr<GraphData> data;
  GradsAndVars present;
  for (std::size_t i = 0; i < grads_and_vars.size(); ++i) {
    const auto& [grad, var] = grads_and_vars[i];
    Value* v = value_of(var);
    NABLA_CHECK(v, api, ": variable ", i, " is not a graph value (got a ", var.defined() ? "concrete" : "undefined",
                " tensor)");
    const Node& vn = v->graph->nodes[static_cast<std::size_t>(v->ref.node)];
    NABLA_CHECK(vn.kind == NodeKind::Variable, api, ": entry ", i, " is node ", describe(vn), ", not a variable");
    NABLA_CHECK(!data || data == v->graph, api, ": the variables come from different graphs");
    data = v->graph;
    if (!grad.defined()) continue;
    NABLA_CHECK(is_floating(vn.metas[0].dtype), api, ": variable ", describe(vn), " has dtype ", vn.metas[0].dtype,
                "; only floating-point variables can be trained");
    NABLA_CHECK(grad.sizes() == vn.metas[0].sizes && grad.dtype() == vn.metas[0].dtype, api, ": the gradient of ",
                describe(vn), " is ", grad.dtype(), " of shape ", grad.sizes(), "; expected ", vn.metas[0].dtype,
                " of shape ", vn.metas[0].sizes);
    if (Value* gv = value_of(grad))
      NABLA_CHECK(gv->graph == data, api, ": the gradient of ", describe(vn), " comes from another graph");
    for (const auto& [g2, v2] : present)
      NABLA_CHECK(value_of(v2)->ref.node != v->ref.node, api, ": variable ", describe(vn), " is listed twice");
    present.emplace_back(grad, var);
  }
  NABLA_CHECK(!present.empty(), api, ": no gradients provided for any variable (",
              grads_and_vars.size(), " given, all undefined); check that the loss depends on the variables");

  Graph g = Graph::of(present[0].second);
  prepare(g, present, loc);
  std::vector<Tensor> updates;
  for (const auto& [grad, var] : present) {
    // The update (and its slots) runs where the variable lives, as in
    // TensorFlow: only the gradient crosses to a variable placed elsewhere.
    const std::string device = node_of_value(var).device;
    std::optional<DeviceScope> colocate;
    if (!device.empty()) colocate.emplace(g, device);
    updates.push_back(apply_dense(g, grad, var, loc));
  }
  {
    // What finish() makes (Adam's beta power updates) changes state the
    // updates read: it must run after them.
    auto after_updates = g.control_dependencies(updates);
    for (const Tensor& after : finish(g, loc)) updates.push_back(after);
  }
  Node step;
  step.kind = NodeKind::Group;
  step.loc = loc;
  for (const Tensor& u : updates) step.inputs.push_back(value_of(u)->ref);
  return detail::add_node(data, std::move(step), name_)[0];
}

// ---- GradientDescent ------------------------------------------------------

GradientDescentOptimizer::GradientDescentOptimizer(double learning_rate)
    : Optimizer("GradientDescent"), lr_(learning_rate) {
  check_hyper("GradientDescentOptimizer", "learning_rate", lr_, lr_ >= 0.0, ">= 0");
}

Tensor GradientDescentOptimizer::apply_dense(Graph&, const Tensor& grad, const Tensor& var, std::source_location loc) {
  LocationScope at(loc);
  return assign_sub(var, grad * lr_, loc);
}

// ---- Momentum ---------------------------------------------------------------

MomentumOptimizer::MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov)
    : Optimizer("Momentum"), lr_(learning_rate), momentum_(momentum), nesterov_(use_nesterov) {
  check_hyper("MomentumOptimizer", "learning_rate", lr_, lr_ >= 0.0, ">= 0");
  check_hyper("MomentumOptimizer", "momentum", momentum_, momentum_ >= 0.0, ">= 0");
}

Tensor MomentumOptimizer::apply_dense(Graph& g, const Tensor& grad, const Tensor& var, std::source_location loc) {
  Tensor accum = zeros_slot(g, var, loc);
  LocationScope at(loc);
  Tensor accum_t = assign(accum, accum * momentum_ + grad, loc);
  Tensor d = nesterov_ ? grad + accum_t * momentum_ : accum_t;
  return assign_sub(var, d * lr_, loc);
}

// ---- RMSProp ----------------------------------------------------------------

RMSPropOptimizer::RMSPropOptimizer(double learning_rate, double decay, double momentum, double epsilon,
                                   bool centered)
    : Optimizer("RMSProp"), lr_(learning_rate), decay_(decay), momentum_(momentum), eps_(epsilon),
      centered_(centered) {
  check_hyper("RMSPropOptimizer", "learning_rate", lr_, lr_ >= 0.0, ">= 0");
  check_hyper("RMSPropOptimizer", "decay", decay_, decay_ >= 0.0, ">= 0");
  check_hyper("RMSPropOptimizer", "momentum", momentum_, momentum_ >= 0.0, ">= 0");
  check_hyper("RMSPropOptimizer", "epsilon", eps_, eps_ >= 0.0, ">= 0");
}

Tensor RMSPropOptimizer::apply_dense(Graph& g, const Tensor& grad, const Tensor& var, std::source_location loc) {
  Tensor ms = zeros_slot(g, var, loc);
  Tensor mom = momentum_ > 0.0 ? zeros_slot(g, var, loc) : Tensor();
  Tensor mg = centered_ ? zeros_slot(g, var, loc) : Tensor();
  LocationScope at(loc);
  Tensor ms_t = assign(ms, ms * decay_ + grad * grad * (1.0 - decay_), loc);
  Tensor avg;
  if (centered_) {
    Tensor mg_t = assign(mg, mg * decay_ + grad * (1.0 - decay_), loc);
    avg = sqrt(ms_t - mg_t * mg_t) + eps_;
  } else {
    avg = sqrt(ms_t) + eps_;
  }
  if (momentum_ > 0.0) return assign_sub(var, assign(mom, mom * momentum_ + grad / avg, loc) * lr_, loc);
  return assign_sub(var, grad / avg * lr_, loc);
}

// ---- Adam -----------------------------------------------------------------

AdamOptimizer::AdamOptimizer(double learning_rate, double beta1, double beta2, double epsilon)
    : Optimizer("Adam"), lr_(learning_rate), beta1_(beta1), beta2_(beta2), eps_(epsilon) {
  check_hyper("AdamOptimizer", "learning_rate", lr_, lr_ >= 0.0, ">= 0");
  check_hyper("AdamOptimizer", "beta1", beta1_, beta1_ >= 0.0 && beta1_ < 1.0, "in [0, 1)");
  check_hyper("AdamOptimizer", "beta2", beta2_, beta2_ >= 0.0 && beta2_ < 1.0, "in [0, 1)");
  check_hyper("AdamOptimizer", "epsilon", eps_, eps_ >= 0.0, ">= 0");
}

void AdamOptimizer::prepare(Graph& g, const GradsAndVars& gv, std::source_location loc) {
  // Scalars of the first variable's dtype, as TensorFlow; 0-dim, so they do
  // not change the dtype of the updates they enter.
  const DType dtype = gv[0].second.dtype();
  beta1_power_ = global_variable(g, init::constant({}, beta1_, dtype), "beta1_power", loc);
  beta2_power_ = global_variable(g, init::constant({}, beta2_, dtype), "beta2_power", loc);
}

Tensor AdamOptimizer::apply_dense(Graph& g, const Tensor& grad, const Tensor& var, std::source_location loc) {
  Tensor m = zeros_slot(g, var, loc);
  Tensor v = zeros_slot(g, var, loc);
  LocationScope at(loc);
  Tensor bias_correction2_sqrt = sqrt(1.0 - beta2_power_);
  Tensor step_size = lr_ / (1.0 - beta1_power_);
  // One adam_update node (TensorFlow's ApplyAdam): the same arithmetic as the
  // tensor expressions m * b1 + g * (1 - b1), ..., in one pass; the Session
  // writes its three results straight into the variables.
  TensorList next = adam_update(var, grad, m, v, step_size, bias_correction2_sqrt, beta1_, beta2_, eps_);
  return group({assign(m, next[1], loc), assign(v, next[2], loc), assign(var, next[0], loc)}, loc);
}

std::vector<Tensor> AdamOptimizer::finish(Graph&, std::source_location loc) {
  LocationScope at(loc);
  std::vector<Tensor> out{assign(beta1_power_, beta1_power_ * beta1_, loc),
                          assign(beta2_power_, beta2_power_ * beta2_, loc)};
  beta1_power_ = beta2_power_ = Tensor();
  return out;
}

}  // namespace nabla::graph
