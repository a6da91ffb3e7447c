// CUDA graphs: the work enqueued on a device's compute stream (stream 0,
// where every kernel, fill, copy of an op and cuBLAS GEMM goes) between
// begin_capture and end_capture is recorded instead of run
// (cuStreamBeginCapture), instantiated once (cuGraphInstantiateWithFlags)
// and replayed by cuGraphLaunch with one driver call.
//
// Capture mode is relaxed, as PyTorch's caching allocator switches to around
// cudaMalloc: a block the private pool needs and the shared cache lacks may
// come from cuMemAlloc during the capture. What cannot be captured fails
// loudly in the driver and invalidates the capture: a stream or context
// synchronization, a copy to or from pageable host memory (a device-to-host
// read), work on another stream that was not joined. Every call of the
// capture is checked; the capture's end reports the first failure's effect
// (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) and the caller falls back.
#include "nabla/kernels/cuda/cuda_graph.h"

#include <memory>

#include "nabla/kernels/cuda/memory.h"
#include "nabla/kernels/cuda/runtime.h"

namespace nabla::cuda::detail {

struct CapturedGraph {
  DeviceContext* device = nullptr;
  int pool = 0;          // the allocator's private pool of this graph
  bool capturing = false;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
};

}  // namespace nabla::cuda::detail

namespace nabla::cuda {
namespace {

using detail::CapturedGraph;

CapturedGraph* begin_capture(int index) {
  DeviceContext& d = device(index, "CUDA graph capture");
  d.make_current();
  CUstream s = d.stream(0);
  const Driver& drv = driver();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  check(drv.cuStreamIsCapturing(s, &status), "cuStreamIsCapturing", device_text(d));
  NABLA_CHECK(status == CU_STREAM_CAPTURE_STATUS_NONE, "CUDA graph capture: the compute stream of ", device_text(d),
              " is already being captured (a capture inside another one)");
  auto g = std::make_unique<CapturedGraph>();
  g->device = &d;
  check(drv.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture", device_text(d));
  g->capturing = true;
  g->pool = d.allocator->begin_pool();
  return g.release();
}

std::string end_capture(CapturedGraph* g) {
  DeviceContext& d = *g->device;
  d.allocator->end_pool();
  if (!g->capturing) return "internal error: end_capture without a capture under way";
  g->capturing = false;
  const Driver& drv = driver();
  if (CUresult r = drv.cuCtxSetCurrent(d.context); r != CUDA_SUCCESS)
    return "cuCtxSetCurrent failed with " + error_text(r);
  CUgraph graph = nullptr;
  CUresult r = drv.cuStreamEndCapture(d.stream(0), &graph);
  g->graph = graph;
  if (r != CUDA_SUCCESS) return "cuStreamEndCapture failed with " + error_text(r);
  if (!graph) return "cuStreamEndCapture returned no graph";
  r = drv.cuGraphInstantiateWithFlags(&g->exec, graph, 0);
  if (r != CUDA_SUCCESS) {
    g->exec = nullptr;
    return "cuGraphInstantiateWithFlags failed with " + error_text(r);
  }
  return "";
}

void launch(CapturedGraph* g) {
  DeviceContext& d = *g->device;
  NABLA_CHECK(g->exec, "CUDA graph replay: internal error: the graph was not instantiated");
  d.make_current();
  check(driver().cuGraphLaunch(g->exec, d.stream(0)), "cuGraphLaunch", device_text(d));
}

void destroy(CapturedGraph* g) {
  if (!g) return;
  std::unique_ptr<CapturedGraph> owned(g);
  DeviceContext& d = *g->device;
  if (g->capturing) end_capture(g);  // an exception between begin and end
  const Driver& drv = driver();
  if (drv.cuCtxSetCurrent(d.context) == CUDA_SUCCESS) {
    // Replays still queued write the pool's blocks: wait before they go back.
    drv.cuStreamSynchronize(d.stream(0));
    if (g->exec) drv.cuGraphExecDestroy(g->exec);
    if (g->graph) drv.cuGraphDestroy(g->graph);
  }
  d.allocator->release_pool(g->pool);
}

int64_t pool_bytes(CapturedGraph* g) { return g->device->allocator->pool_bytes(g->pool); }

}  // namespace

void register_graph_runtime(detail::Runtime& runtime) {
  runtime.begin_capture = begin_capture;
  runtime.end_capture = end_capture;
  runtime.launch = launch;
  runtime.destroy = destroy;
  runtime.pool_bytes = pool_bytes;
}

}  // namespace nabla::cuda
