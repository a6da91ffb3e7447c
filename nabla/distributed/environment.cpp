#include "nabla/distributed/environment.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "nabla/core/error.h"
#include "nabla/distributed/mpi_detail.h"

namespace nabla::distributed {
namespace {

std::mutex init_mutex;
std::atomic<bool> initialized{false};
std::atomic<bool> timed_out{false};
bool thread_multiple = false;
int world_rank = 0;
int world_count = 1;
std::atomic<int64_t> timeout_ms{60'000};

// NABLA_DISTRIBUTED_TIMEOUT: seconds, a positive number (fractions allowed).
int64_t timeout_from_env() {
  const char* s = std::getenv("NABLA_DISTRIBUTED_TIMEOUT");
  if (!s || !*s) return 60'000;
  char* end = nullptr;
  double seconds = std::strtod(s, &end);
  NABLA_CHECK(end && *end == '\0' && seconds > 0, "distributed::init: NABLA_DISTRIBUTED_TIMEOUT is \"", s,
              "\"; expected a positive number of seconds");
  return static_cast<int64_t>(seconds * 1000);
}

}  // namespace

void require_init(const char* api) {
  NABLA_CHECK(initialized.load(), api, ": MPI is not initialized; call nabla::distributed::init() first");
}

void mark_timed_out() { timed_out = true; }

void check_mpi(int code, const char* api, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  fail(api, ": ", call, " failed: ", std::string(text, static_cast<std::size_t>(length)));
}

void init() {
  std::lock_guard lock(init_mutex);
  if (initialized) return;
  int64_t ms = timeout_from_env();
  int already = 0;
  MPI_Initialized(&already);
  int provided = MPI_THREAD_SINGLE;
  if (already) {
    MPI_Query_thread(&provided);
  } else {
    int finalized = 0;
    MPI_Finalized(&finalized);
    NABLA_CHECK(!finalized, "distributed::init: MPI was finalized in this process; it cannot be started again");
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "distributed::init",
              "MPI_Init_thread");
  }
  // Errors come back as codes (check_mpi turns them into nabla::Error)
  // rather than MPI's default of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_count);
  thread_multiple = provided >= MPI_THREAD_MULTIPLE;
  timeout_ms = ms;
  initialized = true;
}

bool is_initialized() { return initialized; }

void finalize() {
  std::lock_guard lock(init_mutex);
  if (!initialized) return;
  initialized = false;
  // A collective that timed out is still pending at some peer (or the peer is
  // gone): MPI_Finalize could wait for it forever. MPI_Abort ends every rank.
  if (timed_out) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
}

int rank() {
  require_init("distributed::rank");
  return world_rank;
}

int world_size() {
  require_init("distributed::world_size");
  return world_count;
}

bool multithreaded() {
  require_init("distributed::multithreaded");
  return thread_multiple;
}

std::chrono::milliseconds timeout() { return std::chrono::milliseconds(timeout_ms.load()); }

void set_timeout(std::chrono::milliseconds t) {
  NABLA_CHECK(t.count() > 0, "distributed::set_timeout: the timeout is ", t.count(), " ms; expected a positive duration");
  timeout_ms = t.count();
}

}  // namespace nabla::distributed
