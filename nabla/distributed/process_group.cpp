// The collectives: checks of their arguments, then one MPI_I* call each.
#include "nabla/distributed/process_group.h"

#include <atomic>

#include "nabla/core/error.h"
#include "nabla/distributed/environment.h"
#include "nabla/distributed/mpi_detail.h"
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
  NABLA_CHECK(t.device().is_cpu(), api, ": ", what, " is on ", t.device(),
              "; only CPU tensors for now (device tensors will be staged through host memory in a later part, "
              "see docs/distributed.md)");
  NABLA_CHECK(t.is_contiguous(), api, ": ", what, " (shape ", t.sizes(), ", strides ", t.strides(),
              ") is not contiguous; pass t.contiguous() and read the result from it");
  NABLA_CHECK(mpi_type(t.dtype()) != MPI_DATATYPE_NULL, api, ": ", what, " has dtype ", t.dtype(),
              "; expected float32, float64, int32, int64 or uint8");
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

uint64_t ProcessGroup::collectives() const { return g_collectives.load(std::memory_order_relaxed); }
uint64_t ProcessGroup::bytes_sent() const { return g_bytes_sent.load(std::memory_order_relaxed); }

Work ProcessGroup::all_reduce_async(const Tensor& t, ReduceOp op) {
  auto s = new_state("ProcessGroup::all_reduce");
  check_tensor("ProcessGroup::all_reduce", "the tensor", t);
  check_op("ProcessGroup::all_reduce", op, t);
  s->name = std::string("ProcessGroup::all_reduce(") + op_name(op) + ")";
  s->keep = {t};
  s->written = {t};
  if (op == ReduceOp::Mean) s->finish = divide_by(t, size_);
  check_mpi(MPI_Iallreduce(MPI_IN_PLACE, t.raw_data(), count_of("ProcessGroup::all_reduce", t), mpi_type(t.dtype()),
                           mpi_op(op), MPI_COMM_WORLD, &s->request),
            "ProcessGroup::all_reduce", "MPI_Iallreduce");
  count(&t);
  return Work(s);
}

Work ProcessGroup::broadcast_async(const Tensor& t, int root) {
  auto s = new_state("ProcessGroup::broadcast");
  check_tensor("ProcessGroup::broadcast", "the tensor", t);
  NABLA_CHECK(root >= 0 && root < size_, "ProcessGroup::broadcast: root is ", root, "; expected a rank in [0, ",
              size_, ")");
  s->keep = {t};
  if (rank_ != root) s->written = {t};
  check_mpi(MPI_Ibcast(t.raw_data(), count_of("ProcessGroup::broadcast", t), mpi_type(t.dtype()), root,
                       MPI_COMM_WORLD, &s->request),
            "ProcessGroup::broadcast", "MPI_Ibcast");
  count(rank_ == root ? &t : nullptr);
  return Work(s);
}

Tensor ProcessGroup::all_gather(const Tensor& t) {
  check_tensor("ProcessGroup::all_gather", "the tensor", t);
  std::vector<int64_t> shape{size_};
  for (int64_t d : t.sizes()) shape.push_back(d);
  Tensor out = empty(shape, t.dtype());
  all_gather_async(out, t).wait();
  return out;
}

Work ProcessGroup::all_gather_async(const Tensor& output, const Tensor& t) {
  auto s = new_state("ProcessGroup::all_gather");
  check_tensor("ProcessGroup::all_gather", "the input", t);
  check_tensor("ProcessGroup::all_gather", "the output", output);
  NABLA_CHECK(output.dtype() == t.dtype(), "ProcessGroup::all_gather: the output has dtype ", output.dtype(),
              " and the input ", t.dtype(), "; expected the same");
  bool shape_ok = output.dim() == t.dim() + 1 && output.size(0) == size_;
  for (int64_t d = 0; shape_ok && d < t.dim(); ++d) shape_ok = output.size(d + 1) == t.size(d);
  NABLA_CHECK(shape_ok, "ProcessGroup::all_gather: the output has shape ", output.sizes(), "; expected [", size_,
              ", ", t.sizes(), "...] (the world size, then the input's shape ", t.sizes(), ")");
  s->keep = {output, t};
  s->written = {output};
  int n = count_of("ProcessGroup::all_gather", t);
  check_mpi(MPI_Iallgather(t.raw_data(), n, mpi_type(t.dtype()), output.raw_data(), n, mpi_type(t.dtype()),
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
  Tensor out = empty(shape, input.dtype());
  reduce_scatter_async(out, input, op).wait();
  return out;
}

Work ProcessGroup::reduce_scatter_async(const Tensor& output, const Tensor& input, ReduceOp op) {
  auto s = new_state("ProcessGroup::reduce_scatter");
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
  s->name = std::string("ProcessGroup::reduce_scatter(") + op_name(op) + ")";
  s->keep = {output, input};
  s->written = {output};
  if (op == ReduceOp::Mean) s->finish = divide_by(output, size_);
  check_mpi(MPI_Ireduce_scatter_block(input.raw_data(), output.raw_data(),
                                      count_of("ProcessGroup::reduce_scatter", output), mpi_type(input.dtype()),
                                      mpi_op(op), MPI_COMM_WORLD, &s->request),
            "ProcessGroup::reduce_scatter", "MPI_Ireduce_scatter_block");
  count(&input);
  return Work(s);
}

Work ProcessGroup::barrier_async() {
  auto s = new_state("ProcessGroup::barrier");
  check_mpi(MPI_Ibarrier(MPI_COMM_WORLD, &s->request), "ProcessGroup::barrier", "MPI_Ibarrier");
  count(nullptr);
  return Work(s);
}

}  // namespace nabla::distributed
