// Process groups over MPI (issue 18, part 1): rank and world size from the
// launcher (`mpirun -np N prog`), collectives on tensors of any device (an
// accelerator's staged through pinned host memory), and over NCCL for CUDA
// tensors (ProcessGroup::nccl). A library of its
// own, libnabla_distributed.so, linked by programs that use it, so that
// libnabla.so needs no MPI (docs/distributed.md). Part 2: DistributedDataParallel.
#pragma once
#include "nabla/distributed/data_parallel.h"
#include "nabla/distributed/environment.h"
#include "nabla/distributed/fit.h"
#include "nabla/distributed/graph_transport.h"
#include "nabla/distributed/process_group.h"
