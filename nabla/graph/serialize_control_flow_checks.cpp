// Checks of a loaded control-flow node against its subgraphs. The runtime
// (control_flow_run.cpp) binds the node's inputs to each subgraph's params by
// position, feeds a loop body's results back as the next loop variables and
// returns a branch's results as the node's outputs, trusting that their
// dtypes and shapes agree: the subgraphs' op nodes were checked (inference
// re-run) with their placeholders' metas, so every binding must match them.
// The layouts checked here are the ones control_flow_build.cpp and
// control_flow_grad.cpp make (see NodeKind in node.h).
#include <variant>

#include "nabla/graph/serialize_format.h"

namespace nabla::graph::nbg {

namespace {

std::string meta_text(const OutputMeta& m) { return ::nabla::detail::concat(dtype_name(m.dtype), m.sizes); }

bool same(const OutputMeta& a, const OutputMeta& b) { return a.dtype == b.dtype && a.sizes == b.sizes; }

class Checker {
 public:
  Checker(const Node& n, const GraphData& g, const std::string& at) : n_(n), g_(g), at_(at) {}

  const OutputMeta& input(std::size_t k) const {
    const ValueRef& r = n_.inputs[k];
    return g_.nodes[static_cast<std::size_t>(r.node)].metas[static_cast<std::size_t>(r.output)];
  }

  void subgraph_count(std::size_t want) const {
    NABLA_CHECK(n_.subgraphs.size() == want, at_, ": field 'subgraphs' holds ", n_.subgraphs.size(),
                " subgraphs; a ", kind_name(n_.kind), " node has ", want);
  }

  // Subgraph k binds the node's first `count` inputs to its params: each bound
  // placeholder has the meta of its input.
  void params(std::size_t k, std::size_t count, const char* what) const {
    const Subgraph& s = n_.subgraphs[k];
    NABLA_CHECK(s.params.size() == count, at_, ": subgraph ", k, " (", what, ") has ", s.params.size(),
                " params; expected ", count, " (one per input it is given, ", kNoParam, " where unused)");
    for (std::size_t i = 0; i < count; ++i) {
      if (s.params[i] < 0) continue;
      const Node& ph = s.graph->nodes[static_cast<std::size_t>(s.params[i])];
      NABLA_CHECK(same(ph.metas[0], input(i)), at_, ": subgraph ", k, " (", what, ") binds input ", i, ", ",
                  meta_text(input(i)), ", to placeholder '", ph.name, "', which is ", meta_text(ph.metas[0]));
    }
  }

  // Subgraph k returns exactly `want`.
  void results(std::size_t k, const OutputMetas& want, const char* what) const {
    const Subgraph& s = n_.subgraphs[k];
    NABLA_CHECK(s.results.size() == want.size(), at_, ": subgraph ", k, " (", what, ") has ", s.results.size(),
                " results; expected ", want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      const ValueRef& r = s.results[i];
      const OutputMeta& m = s.graph->nodes[static_cast<std::size_t>(r.node)].metas[static_cast<std::size_t>(r.output)];
      NABLA_CHECK(same(m, want[i]), at_, ": result ", i, " of subgraph ", k, " (", what, ") is ", meta_text(m),
                  "; expected ", meta_text(want[i]));
    }
  }

  int64_t int_attr(std::size_t k, const char* name) const {
    const auto* v = std::get_if<int64_t>(&n_.attrs[k]);
    NABLA_CHECK(v, at_, ": attribute ", k, " ('", name, "') must be an int");
    return *v;
  }
  const Shape& ints_attr(std::size_t k, const char* name) const {
    const auto* v = std::get_if<Shape>(&n_.attrs[k]);
    NABLA_CHECK(v, at_, ": attribute ", k, " ('", name, "') must be a list of ints");
    return *v;
  }
  void attr_count(std::size_t want, const char* names) const {
    NABLA_CHECK(n_.attrs.size() == want, at_, ": ", n_.attrs.size(), " attributes; a ", kind_name(n_.kind),
                " node has ", want, " (", names, ")");
  }
  void max_iterations() const {
    const int64_t m = int_attr(0, "maximum_iterations");
    NABLA_CHECK(m >= -1, at_, ": maximum_iterations is ", m, "; expected >= 0, or -1 for no limit");
  }
  // Indices in [lo, hi), strictly increasing.
  void index_list(const Shape& v, int64_t lo, int64_t hi, const char* name) const {
    for (std::size_t i = 0; i < v.size(); ++i)
      NABLA_CHECK(v[i] >= lo && v[i] < hi && (i == 0 || v[i] > v[i - 1]), at_, ": attribute '", name, "' holds ",
                  v[i], " at position ", i, "; expected increasing indices in ", lo, "..", hi - 1);
  }

  void cond() const {
    attr_count(0, "none");
    subgraph_count(2);
    NABLA_CHECK(!n_.inputs.empty() && input(0).dtype == kBool && input(0).sizes.empty(), at_,
                ": input 0 (the predicate) must be a scalar bool",
                n_.inputs.empty() ? ", the node has no inputs" : ", got " + meta_text(input(0)));
    for (std::size_t k = 0; k < 2; ++k) {
      const char* what = k == 0 ? "the true branch" : "the false branch";
      params(k, n_.inputs.size(), what);
      results(k, n_.metas, what);
    }
  }

  // Inputs {vars (n), captures}; outputs: the vars.
  void while_loop() const {
    attr_count(1, "maximum_iterations");
    max_iterations();
    subgraph_count(2);
    const std::size_t n = n_.metas.size();
    NABLA_CHECK(n >= 1 && n <= n_.inputs.size(), at_, ": ", n, " outputs (loop variables) for ", n_.inputs.size(),
                " inputs; expected 1..", n_.inputs.size());
    for (std::size_t i = 0; i < n; ++i)
      NABLA_CHECK(same(input(i), n_.metas[i]), at_, ": loop variable ", i, " is ", meta_text(input(i)),
                  " but output ", i, " is ", meta_text(n_.metas[i]));
    params(0, n_.inputs.size(), "the condition");
    results(0, {OutputMeta{Shape{}, kBool}}, "the condition");
    params(1, n_.inputs.size(), "the body");
    results(1, n_.metas, "the body");
  }

  // Inputs {vars (n), captures (m), seeds (one per floating var)}; attrs
  // {maximum_iterations, n, floating vars, wanted captures}; outputs: the
  // floating vars' gradients, then the wanted captures'. Subgraphs: the
  // loop's condition and body, and the body's gradient (inputs: all).
  void while_grad() const {
    attr_count(4, "maximum_iterations, vars, float_vars, wanted_captures");
    max_iterations();
    const int64_t n = int_attr(1, "vars");
    const Shape& fv = ints_attr(2, "float_vars");
    const Shape& wc = ints_attr(3, "wanted_captures");
    const int64_t inputs = static_cast<int64_t>(n_.inputs.size());
    const int64_t nf = static_cast<int64_t>(fv.size());
    NABLA_CHECK(n >= 1 && n <= inputs && nf <= n && nf <= inputs - n, at_, ": ", n, " loop variables with ", nf,
                " floating ones do not fit ", inputs, " inputs");
    const int64_t m = inputs - n - nf;  // captures
    index_list(fv, 0, n, "float_vars");
    index_list(wc, n, n + m, "wanted_captures");
    subgraph_count(3);
    NABLA_CHECK(n_.metas.size() == fv.size() + wc.size(), at_, ": ", n_.metas.size(), " outputs; expected ",
                fv.size() + wc.size(), " (one per floating loop variable and wanted capture)");
    for (std::size_t k = 0; k < fv.size(); ++k) {
      const OutputMeta& var = input(static_cast<std::size_t>(fv[k]));
      NABLA_CHECK(is_floating(var.dtype), at_, ": loop variable ", fv[k], " is listed as floating but is ",
                  meta_text(var));
      const std::size_t seed = static_cast<std::size_t>(n + m) + k;
      NABLA_CHECK(same(input(seed), var), at_, ": input ", seed, " (the gradient seed of loop variable ", fv[k],
                  ") is ", meta_text(input(seed)), "; expected ", meta_text(var));
    }
    OutputMetas vars, grads;
    for (int64_t i = 0; i < n; ++i) vars.push_back(input(static_cast<std::size_t>(i)));
    for (int64_t i : fv) grads.push_back(input(static_cast<std::size_t>(i)));
    for (int64_t j : wc) grads.push_back(input(static_cast<std::size_t>(j)));
    for (std::size_t k = 0; k < grads.size(); ++k)
      NABLA_CHECK(same(grads[k], n_.metas[k]), at_, ": output ", k, " is ", meta_text(n_.metas[k]),
                  " but the value it is the gradient of is ", meta_text(grads[k]));
    params(0, static_cast<std::size_t>(n + m), "the condition");
    results(0, {OutputMeta{Shape{}, kBool}}, "the condition");
    params(1, static_cast<std::size_t>(n + m), "the body");
    results(1, vars, "the body");
    params(2, n_.inputs.size(), "the body's gradient");
    results(2, n_.metas, "the body's gradient");
  }

 private:
  const Node& n_;
  const GraphData& g_;
  const std::string& at_;
};

}  // namespace

void check_control_flow(const Node& n, const GraphData& g, const std::string& at) {
  Checker c(n, g, at);
  switch (n.kind) {
    case NodeKind::Cond: c.cond(); break;
    case NodeKind::While: c.while_loop(); break;
    case NodeKind::WhileGrad: c.while_grad(); break;
    default: fail(at, ": internal error: not a control-flow node");
  }
}

}  // namespace nabla::graph::nbg
