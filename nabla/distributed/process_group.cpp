// The collectives: checks of their arguments, then one MPI_I* call each.
#include "nabla/distributed/process_group.h"

#include <atomic>
#include <cstring>

#include "nabla/core/backend.h"
#include "nabla/core/error.h"
#include "nabla/core/tensor_impl.h"
#include "nabla/distributed/environment.h"
#include "nabla/distributed/mpi_detail.h"
#include "nabla/distributed/nccl_group.h"
#include "nabla/ops/factory.h"

namespace nabla::distributed {
namespace {

// ProcessGroup::collectives() / bytes_sent(): one group (MPI_COMM_WORLD) so far.
std::atomic<uint64_t> g_collectives{0};
std::atomic<uint64_t> g_bytes_sent{0};

void count(const Tensor* sent) {
  g_collectives.fetch_add(1, std::memory_order_relaxed);
  if (sent) g_bytes_sent.fetch_add(static_cast<uint64_t>(sent->numel()) * itemsize(sent->dtype()),
                                   std::memory_order_relaxed);
}

MPI_Datatype mpi_type(DType t) {
  switch (t) {
    case DType::Float32: return MPI_FLOAT;
    case DType::Float64: return MPI_DOUBLE;
    case DType::Int32: return MPI_INT32_T;
    case DType::Int64: return MPI_INT64_T;
    case DType::UInt8: return MPI_UINT8_T;
    default: return MPI_DATATYPE_NULL;
  }
}

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Mean: return "mean";
    case ReduceOp::Max: return "max";
  }
  return "?";
}

// Mean is a sum here, divided by the world size when the work completes.
MPI_Op mpi_op(ReduceOp op) { return op == ReduceOp::Max ? MPI_MAX : MPI_SUM; }

// What every collective asks of a tensor it reads or writes.
void check_tensor(const char* api, const char* what, const Tensor& t) {
  NABLA_CHECK(t.defined(), api, ": ", what, " is an undefined tensor");
  NABLA_CHECK(!t.is_symbolic(), api, ": ", what, " is a symbolic (graph) tensor; expected one with data");
  NABLA_CHECK(t.is_contiguous(), api, ": ", what, " (shape ", t.sizes(), ", strides ", t.strides(),
              ") is not contiguous; pass t.contiguous() and read the result from it");
  NABLA_CHECK(mpi_type(t.dtype()) != MPI_DATATYPE_NULL, api, ": ", what, " has dtype ", t.dtype(),
              "; expected float32, float64, int32, int64 or uint8");
}

// A device tensor's stand-in in host memory for MPI: page-locked memory from
// its backend's pinned allocator where it has one (the copies then run at the
// bus's speed; pageable memory where it has none), holding t's values when
// `load`. A CPU tensor is its own stand-in.
Tensor host_stage(const Tensor& t, bool load) {
  if (t.device().is_cpu()) return t;
  Backend& backend = *find_backend(t.device().type);
  const std::size_t bytes = static_cast<std::size_t>(t.numel()) * itemsize(t.dtype());
  Tensor host;
  if (Allocator* pinned = backend.pinned_allocator()) {
    host = Tensor(make_ref<TensorImpl>(make_ref<Storage>(bytes, pinned, /*pinned=*/true), t.sizes(),
                                       contiguous_strides(t.sizes()), 0, t.dtype(), kCPU));
  } else {
    host = empty(t.sizes(), t.dtype());
  }
  // Synchronous: the copy waits for the work queued before it on the device
  // (what computed t), and MPI reads the host memory right after.
  if (load && bytes) backend.copy(mem_ref(host), mem_ref(t), bytes, Queue{t.device(), 0}, false, {});
  return host;
}

// What stages a written device tensor back: the copy from its host stand-in
// once MPI is done. Non-blocking from pinned memory (the device's later work
// queues behind it; the stand-in lives until the copy is done).
std::function<void()> copy_back(const Tensor& host, const Tensor& device_tensor) {
  return [host, device_tensor] {
    const std::size_t bytes = static_cast<std::size_t>(host.numel()) * itemsize(host.dtype());
    if (bytes == 0) return;
    find_backend(device_tensor.device().type)
        ->copy(mem_ref(device_tensor), mem_ref(host), bytes, Queue{device_tensor.device(), 0}, host.is_pinned(),
               Ref<RefCounted>(host.impl()->storage));
  };
}

// Runs `first` (may be empty), then `then`.
std::function<void()> chain(std::function<void()> first, std::function<void()> then) {
  if (!first) return then;
  return [first = std::move(first), then = std::move(then)] {
    first();
    then();
  };
}

void check_op(const char* api, ReduceOp op, const Tensor& t) {
  NABLA_CHECK(op != ReduceOp::Mean || t.is_floating_point(), api, ": op mean needs a floating dtype, the tensor has ",
              t.dtype(), "; use sum and divide");
}

// The element count as MPI's int (MPI 3 counts are int).
int count_of(const char* api, const Tensor& t) {
  NABLA_CHECK(t.numel() <= INT32_MAX, api, ": the tensor has ", t.numel(),
              " elements; MPI counts stop at 2^31 - 1: split it");
  return static_cast<int>(t.numel());
}

std::shared_ptr<WorkState> new_state(const char* api) {
  require_init(api);
  auto s = std::make_shared<WorkState>();
  s->name = api;
  s->rank = distributed::rank();
  s->size = distributed::world_size();
  return s;
}

// Divides t by n in place (Mean after its sum).
std::function<void()> divide_by(const Tensor& t, int n) {
  return [t, n] {
    visit_dtype(t.dtype(), [&]<class T>() {
      if constexpr (std::is_floating_point_v<T>) {
        T* p = t.data_ptr<T>();
        for (int64_t i = 0; i < t.numel(); ++i) p[i] /= static_cast<T>(n);
      }
    });
  };
}

}  // namespace

ProcessGroup ProcessGroup::world() { return ProcessGroup(distributed::rank(), distributed::world_size()); }

ProcessGroup ProcessGroup::nccl(Device device) {
  const bool with_mpi = is_initialized();
  ProcessGroup pg(with_mpi ? distributed::rank() : 0, with_mpi ? distributed::world_size() : 1);
  pg.nccl_ = make_nccl_group(device, pg.rank_, pg.size_, [](nccl_api::UniqueId& id) {
    Tensor bytes = empty({static_cast<int64_t>(sizeof id.internal)}, kUInt8);
    std::memcpy(bytes.raw_data(), id.internal, sizeof id.internal);
    world().broadcast(bytes, 0);
    std::memcpy(id.internal, bytes.raw_data(), sizeof id.internal);
  });
  return pg;
}

uint64_t ProcessGroup::collectives() const { return g_collectives.load(std::memory_order_relaxed); }
uint64_t ProcessGroup::bytes_sent() const { return g_bytes_sent.load(std::memory_order_relaxed); }

Work ProcessGroup::all_reduce_async(const Tensor& t, ReduceOp op) {
  check_tensor("ProcessGroup::all_reduce", "the tensor", t);
  check_op("ProcessGroup::all_reduce", op, t);
  if (nccl_) {
    Work w = nccl_->all_reduce(t, op);
    count(&t);
    return w;
  }
  auto s = new_state("ProcessGroup::all_reduce");
  s->name = std::string("ProcessGroup::all_reduce(") + op_name(op) + ")";
  Tensor h = host_stage(t, /*load=*/true);
  s->keep = {t, h};
  s->written = {t};
  if (op == ReduceOp::Mean) s->finish = divide_by(h, size_);
  if (!h.is_same(t)) s->finish = chain(s->finish, copy_back(h, t));
  check_mpi(MPI_Iallreduce(MPI_IN_PLACE, h.raw_data(), count_of("ProcessGroup::all_reduce", t), mpi_type(t.dtype()),
                           mpi_op(op), MPI_COMM_WORLD, &s->request),
            "ProcessGroup::all_reduce", "MPI_Iallreduce");
  count(&t);
  return Work(s);
}

Work ProcessGroup::broadcast_async(const Tensor& t, int root) {
  check_tensor("ProcessGroup::broadcast", "the tensor", t);
  NABLA_CHECK(root >= 0 && root < size_, "ProcessGroup::broadcast: root is ", root, "; expected a rank in [0, ",
              size_, ")");
  if (nccl_) {
    Work w = nccl_->broadcast(t, root);
    count(rank_ == root ? &t : nullptr);
    return w;
  }
  auto s = new_state("ProcessGroup::broadcast");
  Tensor h = host_stage(t, /*load=*/rank_ == root);
  s->keep = {t, h};
  if (rank_ != root) {
    s->written = {t};
    if (!h.is_same(t)) s->finish = copy_back(h, t);
  }
  check_mpi(MPI_Ibcast(h.raw_data(), count_of("ProcessGroup::broadcast", t), mpi_type(t.dtype()), root,
                       MPI_COMM_WORLD, &s->request),
            "ProcessGroup::broadcast", "MPI_Ibcast");
  count(rank_ == root ? &t : nullptr);
  return Work(s);
}

Tensor ProcessGroup::all_gather(const Tensor& t) {
  check_tensor("ProcessGroup::all_gather", "the tensor", t);
  std::vector<int64_t> shape{size_};
  for (int64_t d : t.sizes()) shape.push_back(d);
  Tensor out = empty(shape, TensorOptions(t.dtype()).device(t.device()));
  all_gather_async(out, t).wait();
  return out;
}

Work ProcessGroup::all_gather_async(const Tensor& output, const Tensor& t) {
  check_tensor("ProcessGroup::all_gather", "the input", t);
  check_tensor("ProcessGroup::all_gather", "the output", output);
  NABLA_CHECK(output.dtype() == t.dtype(), "ProcessGroup::all_gather: the output has dtype ", output.dtype(),
              " and the input ", t.dtype(), "; expected the same");
  bool shape_ok = output.dim() == t.dim() + 1 && output.size(0) == size_;
  for (int64_t d = 0; shape_ok && d < t.dim(); ++d) shape_ok = output.size(d + 1) == t.size(d);
  NABLA_CHECK(shape_ok, "ProcessGroup::all_gather: the output has shape ", output.sizes(), "; expected [", size_,
              ", ", t.sizes(), "...] (the world size, then the input's shape ", t.sizes(), ")");
  if (nccl_) {
    Work w = nccl_->all_gather(output, t);
    count(&t);
    return w;
  }
  auto s = new_state("ProcessGroup::all_gather");
  Tensor h_in = host_stage(t, /*load=*/true);
  Tensor h_out = host_stage(output, /*load=*/false);
  s->keep = {output, t, h_in, h_out};
  s->written = {output};
  if (!h_out.is_same(output)) s->finish = copy_back(h_out, output);
  int n = count_of("ProcessGroup::all_gather", t);
  check_mpi(MPI_Iallgather(h_in.raw_data(), n, mpi_type(t.dtype()), h_out.raw_data(), n, mpi_type(t.dtype()),
                           MPI_COMM_WORLD, &s->request),
            "ProcessGroup::all_gather", "MPI_Iallgather");
  count(&t);
  return Work(s);
}

Tensor ProcessGroup::reduce_scatter(const Tensor& input, ReduceOp op) {
  check_tensor("ProcessGroup::reduce_scatter", "the input", input);
  NABLA_CHECK(input.dim() >= 1 && input.size(0) % size_ == 0, "ProcessGroup::reduce_scatter: the input has shape ",
              input.sizes(), "; expected a first dimension divisible by the world size ", size_);
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  shape[0] /= size_;
  Tensor out = empty(shape, TensorOptions(input.dtype()).device(input.device()));
  reduce_scatter_async(out, input, op).wait();
  return out;
}

Work ProcessGroup::reduce_scatter_async(const Tensor& output, const Tensor& input, ReduceOp op) {
  check_tensor("ProcessGroup::reduce_scatter", "the input", input);
  check_tensor("ProcessGroup::reduce_scatter", "the output", output);
  check_op("ProcessGroup::reduce_scatter", op, input);
  NABLA_CHECK(output.dtype() == input.dtype(), "ProcessGroup::reduce_scatter: the output has dtype ", output.dtype(),
              " and the input ", input.dtype(), "; expected the same");
  bool shape_ok = input.dim() >= 1 && output.dim() == input.dim() && output.size(0) * size_ == input.size(0);
  for (int64_t d = 1; shape_ok && d < input.dim(); ++d) shape_ok = output.size(d) == input.size(d);
  NABLA_CHECK(shape_ok, "ProcessGroup::reduce_scatter: the input has shape ", input.sizes(), " and the output ",
              output.sizes(), "; expected the input's first dimension to be the output's times the world size ",
              size_, " and the other dimensions equal");
  if (nccl_) {
    Work w = nccl_->reduce_scatter(output, input, op);
    count(&input);
    return w;
  }
  auto s = new_state("ProcessGroup::reduce_scatter");
  s->name = std::string("ProcessGroup::reduce_scatter(") + op_name(op) + ")";
  Tensor h_in = host_stage(input, /*load=*/true);
  Tensor h_out = host_stage(output, /*load=*/false);
  s->keep = {output, input, h_in, h_out};
  s->written = {output};
  if (op == ReduceOp::Mean) s->finish = divide_by(h_out, size_);
  if (!h_out.is_same(output)) s->finish = chain(s->finish, copy_back(h_out, output));
  check_mpi(MPI_Ireduce_scatter_block(h_in.raw_data(), h_out.raw_data(),
                                      count_of("ProcessGroup::reduce_scatter", output), mpi_type(input.dtype()),
                                      mpi_op(op), MPI_COMM_WORLD, &s->request),
            "ProcessGroup::reduce_scatter", "MPI_Ireduce_scatter_block");
  count(&input);
  return Work(s);
}

Work ProcessGroup::barrier_async() {
  if (nccl_) {
    Work w = nccl_->barrier();
    count(nullptr);
    return w;
  }
  auto s = new_state("ProcessGroup::barrier");
  check_mpi(MPI_Ibarrier(MPI_COMM_WORLD, &s->request), "ProcessGroup::barrier", "MPI_Ibarrier");
  count(nullptr);
  return Work(s);
}

}  // namespace nabla::distributed
