// The MPI environment of one process: init, rank, world size, finalize.
// No <mpi.h> here: programs that include nabla/distributed compile without
// the MPI headers.
#pragma once
#include <chrono>

namespace nabla::distributed {

// Starts MPI (MPI_Init_thread), asking for MPI_THREAD_MULTIPLE so that any
// thread may call a collective; where the MPI library cannot, it falls back to
// what it gives (multithreaded() says which: then call collectives from the
// thread that called init()). Rank and world size come from the launcher
// (mpirun); a plain process, not started by mpirun, is a world of 1 (MPI's
// singleton init). A second call does nothing. Adopts an MPI that someone
// else initialized.
void init();
bool is_initialized();  // init() was called and finalize() was not
// Ends MPI (MPI_Finalize), or, after a collective timed out, aborts the job
// (MPI_Abort): a finalize would wait for the peer that never came.
void finalize();
int rank();        // this process, 0 .. world_size() - 1 (an Error before init())
int world_size();  // the number of processes
bool multithreaded();  // MPI gave MPI_THREAD_MULTIPLE

// How long a collective's wait() waits before it throws nabla::Error (a peer
// that died or hangs): NABLA_DISTRIBUTED_TIMEOUT seconds (default 60), read
// by init(); set_timeout overrides it.
std::chrono::milliseconds timeout();
void set_timeout(std::chrono::milliseconds t);

}  // namespace nabla::distributed
