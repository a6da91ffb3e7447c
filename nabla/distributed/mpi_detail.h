// Internal to libnabla_distributed: what its files share about the MPI state.
#pragma once
#ifndef OMPI_SKIP_MPICXX  // CMake's MPI_CXX_SKIP_MPICXX defines it too
#define OMPI_SKIP_MPICXX 1  // OpenMPI's deprecated C++ bindings: the C API is all nabla uses
#endif
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nabla/core/backend.h"
#include "nabla/core/tensor.h"

namespace nabla::distributed {

// An Error naming api unless init() was called (and finalize() was not).
void require_init(const char* api);
// A collective timed out: the MPI state is no longer consistent, so
// finalize() aborts instead of waiting for the missing peer.
void mark_timed_out();
// Throws nabla::Error with MPI's message for a failed call.
void check_mpi(int code, const char* api, const char* call);

struct NcclGroup;

struct WorkState {
  MPI_Request request = MPI_REQUEST_NULL;  // an MPI collective's
  Ref<Event> event;                  // an NCCL collective's: recorded after it on the device's stream
  std::shared_ptr<NcclGroup> nccl;   // its group (the communicator lives while work on it is pending)
  int rank = 0, size = 1;            // this process in the group, for messages
  std::string name;             // the collective, for the timeout's message
  std::vector<Tensor> keep;     // the buffers MPI reads and writes until done
  std::vector<Tensor> written;  // outputs: their version is bumped when done
  std::function<void()> finish;  // after completion (Mean's division); may be empty
  bool done = false;
};

}  // namespace nabla::distributed
