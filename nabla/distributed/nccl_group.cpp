// ProcessGroup::nccl's communicator and collectives (nccl_group.h). NCCL is
// opened with dlopen at the first group made: libnccl.so.2 (on the loader's
// path: /usr/local/cuda/lib64, or the pip package nvidia-nccl-cu* on
// LD_LIBRARY_PATH), or $NABLA_NCCL_LIBRARY. A failed load is not remembered,
// so that a later call (with the variable set) can succeed.
#include "nabla/distributed/nccl_group.h"

#include <dlfcn.h>

#include <cstdlib>

#include "nabla/core/backend.h"
#include "nabla/core/cuda_library.h"
#include "nabla/core/error.h"
#include "nabla/distributed/mpi_detail.h"
#include "nabla/ops/factory.h"

namespace nabla::distributed {
namespace {

#define NABLA_NCCL_NAME_TEXT(f) #f
#define NABLA_NCCL_NAME(f) NABLA_NCCL_NAME_TEXT(f)

struct Library {
  nccl_api::Functions fn;
  int version = 0;
};

std::mutex load_mu;
const Library* loaded = nullptr;  // never freed: the library stays open until the process ends

std::string library_path() {
  const char* env = std::getenv("NABLA_NCCL_LIBRARY");
  return env && *env ? env : "libnccl.so.2";
}

// The entry points; an Error naming `api` and why when NCCL cannot be loaded.
const Library& nccl(const char* api) {
  std::lock_guard lock(load_mu);
  if (loaded) return *loaded;
  const std::string path = library_path();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    fail(api, ": NCCL could not be loaded: ", why ? why : path + ": dlopen failed",
         ". Install NCCL 2 (the pip package nvidia-nccl-cu12 or cu13, or the CUDA toolkit's libnccl) where the "
         "loader finds it (LD_LIBRARY_PATH), or name the library in NABLA_NCCL_LIBRARY");
  }
  auto lib = std::make_unique<Library>();
#define NABLA_NCCL_LOOK_UP(name, result, params)                                                    \
  lib->fn.name = reinterpret_cast<decltype(lib->fn.name)>(dlsym(handle, NABLA_NCCL_NAME(name)));    \
  if (!lib->fn.name) {                                                                              \
    dlclose(handle);                                                                                \
    fail(api, ": ", path, " has no " NABLA_NCCL_NAME(name) "; expected NCCL 2 (is it another library?)"); \
  }
  NABLA_NCCL_FUNCTIONS(NABLA_NCCL_LOOK_UP)
#undef NABLA_NCCL_LOOK_UP
  lib->fn.ncclGetVersion(&lib->version);
  NABLA_CHECK(lib->version >= nccl_api::kAvgVersion, api, ": ", path, " is NCCL ", lib->version,
              "; expected 2.10 or newer (ncclAvg, ProcessGroup's ReduceOp::Mean)");
  loaded = lib.release();
  return *loaded;
}

std::string version_text(int v) {  // 22809 -> "2.28.9"
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

void check_nccl(nccl_api::Result r, const std::string& api, const char* call) {
  if (r == nccl_api::kSuccess) return;
  fail(api, ": ", call, " failed: ", nccl(api.c_str()).fn.ncclGetErrorString(r), " (ncclResult_t ", r, ")");
}

nccl_api::DataType nccl_type(DType t) {
  switch (t) {
    case DType::Float32: return nccl_api::kFloat32;
    case DType::Float64: return nccl_api::kFloat64;
    case DType::Int32: return nccl_api::kInt32;
    case DType::Int64: return nccl_api::kInt64;
    default: return nccl_api::kUint8;  // UInt8: ProcessGroup's checks let no other dtype through
  }
}

nccl_api::RedOp nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return nccl_api::kSum;
    case ReduceOp::Mean: return nccl_api::kAvg;
    case ReduceOp::Max: return nccl_api::kMax;
  }
  return nccl_api::kSum;
}

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Mean: return "mean";
    case ReduceOp::Max: return "max";
  }
  return "?";
}

// The device address of t's first element (a CUdeviceptr: the storage's
// handle plus the byte offset).
void* device_address(const Tensor& t) {
  MemRef m = mem_ref(t);
  return static_cast<char*>(m.handle) + m.offset;
}

}  // namespace

std::shared_ptr<NcclGroup> make_nccl_group(Device device, int rank, int size,
                                           const std::function<void(nccl_api::UniqueId&)>& share) {
  const char* api = "ProcessGroup::nccl";
  NABLA_CHECK(device.type == DeviceType::CUDA, api, ": the device is ", device,
              "; expected a CUDA device (cuda:0, cuda:1, ...): NCCL runs collectives on NVIDIA GPUs (for tensors "
              "on other devices use ProcessGroup::world(), which stages them through host memory)");
  const Library& lib = nccl(api);
  // Before the unique id: every rank fails here alike when it has no GPU.
  cuda::detail::enter_compute_stream(device.index,
                                     (std::string(api) + " (NCCL " + version_text(lib.version) + ")").c_str());
  nccl_api::UniqueId id{};
  if (rank == 0) check_nccl(lib.fn.ncclGetUniqueId(&id), api, "ncclGetUniqueId");
  if (size > 1) share(id);
  auto group = std::make_shared<NcclGroup>();
  group->device = device;
  group->rank = rank;
  group->size = size;
  group->version = lib.version;
  // The device's context is current on this thread again (the broadcast may
  // have run other work): NCCL's runtime takes the current context's device.
  cuda::detail::enter_compute_stream(device.index, api);
  check_nccl(lib.fn.ncclCommInitRank(&group->comm, size, id, rank), api, "ncclCommInitRank");
  group->barrier_buffer = zeros({1}, TensorOptions(kFloat32).device(device));
  return group;
}

NcclGroup::~NcclGroup() {
  if (!comm || aborted) return;
  try {
    cuda::detail::enter_compute_stream(device.index, "ProcessGroup::nccl");
    nccl("ProcessGroup::nccl").fn.ncclCommDestroy(comm);
  } catch (const std::exception&) {
    // A destructor does not throw; the process is likely ending with the device gone.
  }
}

namespace {

// Checks what NCCL asks beyond ProcessGroup's common checks: the tensor on the group's device.
void check_device(const NcclGroup& g, const char* api, const char* what, const Tensor& t) {
  NABLA_CHECK(t.device() == g.device, api, ": ", what, " is on ", t.device(), "; this NCCL group runs on ", g.device,
              " (ProcessGroup::nccl): move it there with .to(\"", g.device, "\")");
}

// Runs `call(stream, comm)` on the group's device under its lock, then
// records the event that its Work waits for.
template <class Call>
Work enqueue(NcclGroup& g, std::string name, std::vector<Tensor> keep, std::vector<Tensor> written, Call&& call) {
  auto s = std::make_shared<WorkState>();
  s->name = std::move(name);
  s->rank = g.rank;
  s->size = g.size;
  std::lock_guard lock(g.mu);
  NABLA_CHECK(!g.aborted, s->name, ": this NCCL group was aborted (a collective timed out or NCCL reported an "
              "error); make a new one with ProcessGroup::nccl()");
  void* stream = cuda::detail::enter_compute_stream(g.device.index, s->name.c_str());
  check_nccl(call(static_cast<nccl_api::Stream>(stream), g.comm), s->name, "the NCCL call");
  s->event = find_backend(DeviceType::CUDA)->record(Queue{g.device, 0});
  s->nccl = g.shared_from_this();
  s->keep = std::move(keep);
  s->written = std::move(written);
  return Work(s);
}

}  // namespace

Work NcclGroup::all_reduce(const Tensor& t, ReduceOp op) {
  check_device(*this, "ProcessGroup::all_reduce", "the tensor", t);
  const auto n = static_cast<std::size_t>(t.numel());
  void* p = device_address(t);
  return enqueue(*this, std::string("ProcessGroup::all_reduce(") + op_name(op) + ")", {t}, {t},
                 [&](nccl_api::Stream stream, nccl_api::Comm c) {
                   return nccl("ProcessGroup::all_reduce").fn.ncclAllReduce(p, p, n, nccl_type(t.dtype()),
                                                                            nccl_op(op), c, stream);
                 });
}

Work NcclGroup::broadcast(const Tensor& t, int root) {
  check_device(*this, "ProcessGroup::broadcast", "the tensor", t);
  const auto n = static_cast<std::size_t>(t.numel());
  void* p = device_address(t);
  std::vector<Tensor> written;
  if (rank != root) written = {t};
  return enqueue(*this, "ProcessGroup::broadcast", {t}, written, [&](nccl_api::Stream stream, nccl_api::Comm c) {
    return nccl("ProcessGroup::broadcast").fn.ncclBroadcast(p, p, n, nccl_type(t.dtype()), root, c, stream);
  });
}

Work NcclGroup::all_gather(const Tensor& output, const Tensor& t) {
  check_device(*this, "ProcessGroup::all_gather", "the input", t);
  check_device(*this, "ProcessGroup::all_gather", "the output", output);
  const auto n = static_cast<std::size_t>(t.numel());
  return enqueue(*this, "ProcessGroup::all_gather", {output, t}, {output},
                 [&](nccl_api::Stream stream, nccl_api::Comm c) {
                   return nccl("ProcessGroup::all_gather")
                       .fn.ncclAllGather(device_address(t), device_address(output), n, nccl_type(t.dtype()), c, stream);
                 });
}

Work NcclGroup::reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op) {
  check_device(*this, "ProcessGroup::reduce_scatter", "the input", input);
  check_device(*this, "ProcessGroup::reduce_scatter", "the output", output);
  const auto n = static_cast<std::size_t>(output.numel());
  return enqueue(*this, std::string("ProcessGroup::reduce_scatter(") + op_name(op) + ")", {output, input}, {output},
                 [&](nccl_api::Stream stream, nccl_api::Comm c) {
                   return nccl("ProcessGroup::reduce_scatter")
                       .fn.ncclReduceScatter(device_address(input), device_address(output), n,
                                             nccl_type(input.dtype()), nccl_op(op), c, stream);
                 });
}

Work NcclGroup::barrier() {
  void* p = device_address(barrier_buffer);
  return enqueue(*this, "ProcessGroup::barrier", {barrier_buffer}, {}, [&](nccl_api::Stream stream, nccl_api::Comm c) {
    return nccl("ProcessGroup::barrier").fn.ncclAllReduce(p, p, 1, nccl_api::kFloat32, nccl_api::kSum, c, stream);
  });
}

void nccl_abort(NcclGroup& g) {
  std::lock_guard lock(g.mu);
  if (g.aborted) return;
  g.aborted = true;
  try {
    cuda::detail::enter_compute_stream(g.device.index, "ProcessGroup::nccl");
  } catch (const std::exception&) {
    // Abort all the same: it needs no current context to end the communicator.
  }
  nccl("ProcessGroup::nccl").fn.ncclCommAbort(g.comm);
}

bool nccl_work_done(WorkState& s) {
  NcclGroup& g = *s.nccl;
  nccl_api::Result async = nccl_api::kSuccess;
  {
    std::lock_guard lock(g.mu);
    NABLA_CHECK(!g.aborted, s.name, ": the NCCL group was aborted while this collective was under way (another "
                "collective on it timed out or failed)");
    check_nccl(nccl(s.name.c_str()).fn.ncclCommGetAsyncError(g.comm, &async), s.name, "ncclCommGetAsyncError");
  }
  if (async != nccl_api::kSuccess && async != nccl_api::kInProgress) {
    nccl_abort(g);
    fail(s.name, ": NCCL reported an error (rank ", g.rank, " of ", g.size, "): ",
         nccl(s.name.c_str()).fn.ncclGetErrorString(async),
         " (a peer failed or the network broke); the NCCL communicator was aborted (ncclCommAbort)");
  }
  return s.event->query();
}

}  // namespace nabla::distributed
