// libFuzzer target: ONNX models, through onnx::import_model_bytes and, when
// the imported model's inputs are small and of known shape, one run of it on
// zeros (the converters' shape checks meet the kernels). Built only where
// libnabla_onnx is (Debian's libonnx-dev).
#include "fuzz/fuzz_input.h"
#include "nabla/graph/session.h"
#include "nabla/onnx/import.h"
#include "nabla/ops/factory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  volatile uint64_t keep = 0;
  fuzz::refused_or_read([&] {
    onnx::ImportedModel m = onnx::import_model_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz input");
    graph::Graph g = m.graph;
    graph::Feeds feeds;
    for (const auto& [name, ph] : m.inputs) {
      int64_t n = 1;
      for (int64_t d : ph.sizes()) n = d < 0 ? -1 : n * d;
      if (n < 0 || n > 4096) return;
      feeds.emplace_back(ph, zeros(ph.sizes(), TensorOptions(ph.dtype())));
    }
    std::vector<Tensor> fetches;
    for (const auto& [name, t] : m.outputs) fetches.push_back(t);
    graph::Session sess(g);
    sess.run(g.global_variables_initializer());
    for (const Tensor& y : sess.run(fetches, feeds)) keep = keep + fuzz::touch(y);
  });
  (void)keep;
  return 0;
}
