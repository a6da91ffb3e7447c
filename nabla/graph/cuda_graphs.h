// CudaGraphs: whether a graph::Session (and compile(), TrainStep) on a CUDA
// device captures its plans into CUDA graphs and replays them. Its own
// header so that compile.h need not include session.h.
#pragma once

namespace nabla::graph {

// SessionOptions::cuda_graphs (docs/devices.md, "CUDA graphs"): after a plan
// has run SessionOptions::cuda_graph_warmup times normally, one run is
// captured into a CUDA graph (its kernels, fills, copies and GEMMs), and
// later runs of that plan copy their feeds into the graph's input buffers and
// replay it with one launch. A plan that cannot be captured (host-side
// nodes: random ops, control flow, initializers, effects that are host code;
// or a capture the driver refuses: a device-to-host read, a synchronization)
// runs normally; Session::cuda_graph_status says why.
enum class CudaGraphs {
  Off,   // never (the default: graphs are opt-in, as PyTorch's)
  Auto,  // every plan that can be captured; the others run normally
  On,    // as Auto, but a plan that cannot be captured is an Error saying why
};

}  // namespace nabla::graph
