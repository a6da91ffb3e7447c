// Waiting on a collective: MPI_Test polled against a deadline, because
// MPI_Wait would block forever on a peer that died or hangs.
#include <algorithm>
#include <chrono>
#include <thread>

#include "nabla/core/error.h"
#include "nabla/distributed/environment.h"
#include "nabla/distributed/mpi_detail.h"
#include "nabla/distributed/nccl_group.h"
#include "nabla/distributed/process_group.h"

namespace nabla::distributed {
namespace {

// Completes the work once MPI reports it done.
void complete(WorkState& s) {
  s.done = true;
  if (s.finish) s.finish();
  for (const Tensor& t : s.written) t.impl()->storage->bump_version();
  s.keep.clear();
  s.written.clear();
}

}  // namespace

bool Work::is_completed() {
  NABLA_CHECK(state_, "Work::is_completed: this Work is empty (default-constructed)");
  if (state_->done) return true;
  if (state_->event) {
    if (nccl_work_done(*state_)) complete(*state_);
    return state_->done;
  }
  int flag = 0;
  check_mpi(MPI_Test(&state_->request, &flag, MPI_STATUS_IGNORE), state_->name.c_str(), "MPI_Test");
  if (flag) complete(*state_);
  return state_->done;
}

void Work::wait() {
  NABLA_CHECK(state_, "Work::wait: this Work is empty (default-constructed)");
  const auto limit = timeout();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  // Spin briefly (most collectives on one machine finish in microseconds),
  // then back off to sleeps of up to 1 ms so that a waiting rank leaves the
  // core to the others (mpirun --oversubscribe runs more ranks than cores).
  int polls = 0;
  auto pause = std::chrono::microseconds(1);
  while (!is_completed()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      mark_timed_out();
      // NCCL's kernels wait for the peer on the device: aborting the
      // communicator ends them (and makes the group unusable).
      if (state_->nccl) nccl_abort(*state_->nccl);
      fail(state_->name, ": timed out after ", limit.count() / 1000.0, " s (rank ", state_->rank, " of ",
           state_->size, "): a peer died, hangs or did not make the same call (NABLA_DISTRIBUTED_TIMEOUT sets the "
           "timeout in seconds). ",
           state_->nccl ? "The NCCL communicator was aborted (ncclCommAbort); the group cannot be used again"
                        : "The MPI job cannot continue; distributed::finalize() aborts it");
    }
    if (++polls < 200) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
  }
}

}  // namespace nabla::distributed
