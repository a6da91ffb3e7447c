// `nabla run`: Session::load, named feeds from .npy, named fetches to
// .npy/.npz (see run.h).
#include "run.h"

#include "nabla/data/npy.h"
#include "nabla/data/npz.h"
#include "nabla/graph/serialize.h"

namespace nabla::tool {

void run_graph(const RunConfig& config, std::ostream& out) {
  graph::Session sess = graph::Session::load(config.model, Device(config.device));
  graph::NamedFeeds feeds;
  for (const auto& [name, file] : config.feeds) {
    // Names are checked before reading the arrays, so a typo fails fast.
    NABLA_CHECK(sess.graph().node_of(sess.graph().tensor(name)).kind == graph::NodeKind::Placeholder,
                "nabla run: --feed ", name, ": '", name, "' is not a placeholder of ", config.model,
                "; only placeholders can be fed");
    feeds.emplace_back(name, data::read_npy(file));
  }
  std::vector<Tensor> values = sess.run(config.fetches, feeds);
  for (std::size_t i = 0; i < values.size(); ++i)
    NABLA_CHECK(values[i].defined(), "nabla run: --fetch ", config.fetches[i],
                " has no value (a group or an initializer); fetch a value");

  if (config.outs.empty()) {
    for (std::size_t i = 0; i < values.size(); ++i) out << config.fetches[i] << " = " << values[i] << "\n";
    return;
  }
  if (config.outs.size() == 1 && config.outs[0].size() >= 4 &&
      config.outs[0].compare(config.outs[0].size() - 4, 4, ".npz") == 0) {
    data::NpzArrays arrays;
    for (std::size_t i = 0; i < values.size(); ++i) arrays.emplace_back(config.fetches[i], values[i]);
    data::write_npz(config.outs[0], arrays);
    out << "wrote " << values.size() << " array(s) to " << config.outs[0] << "\n";
    return;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    data::write_npy(config.outs[i], values[i]);
    out << ::nabla::detail::concat(config.fetches[i], ": ", values[i].dtype(), " ", values[i].sizes(), " -> ",
                                   config.outs[i], "\n");
  }
}

}  // namespace nabla::tool
