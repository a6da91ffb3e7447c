// The part of NCCL's C API that nabla calls, declared here rather than taken
// from nccl.h: libnabla_distributed opens libnccl.so.2 with dlopen at the
// first ProcessGroup::nccl() (nccl_group.cpp), so it builds where NCCL's
// headers are absent and loads where its library is. The values are NCCL 2's
// ABI (nccl.h since 2.0; ncclAvg since 2.10), which NCCL keeps stable.
#pragma once
#include <cstddef>

namespace nabla::distributed::nccl_api {

using Comm = struct ncclComm*;  // ncclComm_t
using Result = int;             // ncclResult_t
using DataType = int;           // ncclDataType_t
using RedOp = int;              // ncclRedOp_t
using Stream = void*;           // cudaStream_t (a CUstream)

struct UniqueId {  // ncclUniqueId
  char internal[128];
};

constexpr Result kSuccess = 0;      // ncclSuccess
constexpr Result kInProgress = 7;   // ncclInProgress (a non-blocking call still under way)

constexpr DataType kUint8 = 1, kInt32 = 2, kInt64 = 4, kFloat32 = 7, kFloat64 = 8;
constexpr RedOp kSum = 0, kMax = 2, kAvg = 4;
constexpr int kAvgVersion = 21000;  // ncclGetVersion's code for 2.10.0, the first with ncclAvg

// Every NCCL function nabla calls (add one here to call it): name, return type, parameters.
#define NABLA_NCCL_FUNCTIONS(X)                                                                                   \
  X(ncclGetVersion, Result, (int* version))                                                                       \
  X(ncclGetErrorString, const char*, (Result result))                                                             \
  X(ncclGetUniqueId, Result, (UniqueId * id))                                                                     \
  X(ncclCommInitRank, Result, (Comm * comm, int nranks, UniqueId id, int rank))                                   \
  X(ncclCommDestroy, Result, (Comm comm))                                                                         \
  X(ncclCommAbort, Result, (Comm comm))                                                                           \
  X(ncclCommGetAsyncError, Result, (Comm comm, Result * async_error))                                             \
  X(ncclAllReduce, Result,                                                                                        \
    (const void* send, void* recv, std::size_t count, DataType type, RedOp op, Comm comm, Stream stream))         \
  X(ncclBroadcast, Result,                                                                                        \
    (const void* send, void* recv, std::size_t count, DataType type, int root, Comm comm, Stream stream))         \
  X(ncclAllGather, Result,                                                                                        \
    (const void* send, void* recv, std::size_t send_count, DataType type, Comm comm, Stream stream))              \
  X(ncclReduceScatter, Result,                                                                                    \
    (const void* send, void* recv, std::size_t recv_count, DataType type, RedOp op, Comm comm, Stream stream))

struct Functions {
#define NABLA_NCCL_MEMBER(name, result, params) result(*name) params = nullptr;
  NABLA_NCCL_FUNCTIONS(NABLA_NCCL_MEMBER)
#undef NABLA_NCCL_MEMBER
};

}  // namespace nabla::distributed::nccl_api
