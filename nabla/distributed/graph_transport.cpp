// graph::Transport over MPI point-to-point messages. Sends are non-blocking
// (the Session makes them in plan order and never waits on a send before
// its own receives, so no two processes wait on each other); receives and
// the end-of-run wait for sends poll against distributed::timeout(), as the
// collectives do (work.cpp), so a peer that died is an error, not a hang.
#include "nabla/distributed/graph_transport.h"

#include <climits>
#include <string>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/distributed/environment.h"
#include "nabla/distributed/mpi_detail.h"
#include "nabla/distributed/process_group.h"

namespace nabla::distributed {
namespace {

// MPI guarantees tags up to 32767. Messages of one (source, tag) match in
// order, and every process makes its transfers in the same order, so tags
// that wrap around still pair the right messages.
int tag_of(int tag) { return tag % 32768; }

int byte_count(const char* api, const Tensor& t) {
  const int64_t n = t.numel() * static_cast<int64_t>(itemsize(t.dtype()));
  NABLA_CHECK(n <= INT_MAX, api, ": a tensor of ", n, " bytes; MPI counts stop at 2^31 - 1");
  return static_cast<int>(n);
}

class MpiTransport final : public graph::Transport {
 public:
  MpiTransport() {
    require_init("distributed::graph_transport");
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "distributed::graph_transport", "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiTransport() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  int rank() const override { return rank_; }
  int world_size() const override { return size_; }

  void send(const Tensor& t, int to, int tag) override {
    auto s = std::make_shared<WorkState>();
    s->name = "graph::Session send to rank " + std::to_string(to);
    s->keep = {t};
    check_mpi(MPI_Isend(t.raw_data(), byte_count("graph::Session send", t), MPI_BYTE, to, tag_of(tag), comm_,
                        &s->request),
              "graph::Session send", "MPI_Isend");
    sends_.emplace_back(s);
  }

  void recv(const Tensor& into, int from, int tag) override {
    auto s = std::make_shared<WorkState>();
    s->name = "graph::Session receive from rank " + std::to_string(from);
    s->keep = {into};
    s->written = {into};
    check_mpi(MPI_Irecv(into.raw_data(), byte_count("graph::Session receive", into), MPI_BYTE, from, tag_of(tag),
                        comm_, &s->request),
              "graph::Session receive", "MPI_Irecv");
    Work(s).wait();
  }

  void finish_sends() override {
    std::vector<Work> sends = std::move(sends_);
    sends_.clear();
    for (Work& w : sends) w.wait();
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::vector<Work> sends_;
};

}  // namespace

std::shared_ptr<graph::Transport> graph_transport() { return std::make_shared<MpiTransport>(); }

}  // namespace nabla::distributed
