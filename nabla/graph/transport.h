// graph::Transport: how a Session placed over several processes moves
// values between them. libnabla.so does not link MPI; nabla_distributed
// implements this over MPI point-to-point messages
// (distributed::graph_transport(), nabla/distributed/graph_transport.h) and
// the Session takes it in SessionOptions::transport.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::graph {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;        // this process
  virtual int world_size() const = 0;  // processes that take part
  // Starts sending `t` (a contiguous CPU tensor, not written until
  // finish_sends()) to rank `to`; messages with one (to, tag) arrive in order.
  virtual void send(const Tensor& t, int to, int tag) = 0;
  // Fills `into` (a contiguous CPU tensor of the sent shape and dtype) with
  // the message `tag` from rank `from`; blocks, or throws nabla::Error when the
  // peer does not send in time.
  virtual void recv(const Tensor& into, int from, int tag) = 0;
  // Waits until every send started has completed (end of a Session::run).
  virtual void finish_sends() = 0;
};

}  // namespace nabla::graph
