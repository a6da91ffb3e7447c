// Hooks into a backward pass beyond Tensor::register_hook (which sees a
// gradient before it reaches .grad): what data-parallel training needs to
// start communicating while backward still runs.
//
//   autograd::register_post_accumulate_grad_hook(w, [](const Tensor& grad) { ... });
//   // PyTorch 2.1's w.register_post_accumulate_grad_hook(hook)
//   autograd::queue_callback([] { ... });  // from a hook: runs when this backward ends
//   // PyTorch's Variable._execution_engine.queue_callback(cb)
//
// Kept out of nabla/nabla.h and off Tensor's methods for now (both are
// included by nearly every file); include this header.
#pragma once
#include <cstdint>
#include <functional>

#include "nabla/core/tensor.h"

namespace nabla::autograd {

using PostAccumulateGradHook = std::function<void(const Tensor& grad)>;

// Calls hook after a backward() has accumulated `leaf`'s gradient into its
// .grad: once per backward that reaches the leaf, with every use's
// contribution already summed (so with the final .grad of this backward,
// including what earlier backwards accumulated), never when no gradient
// reaches it, and not for autograd::grad() (which writes no .grad). Hooks run
// in registration order, in the thread running backward. `leaf` must be a leaf
// that requires grad. Unlike PyTorch the hook gets the gradient rather than
// the leaf: a hook stored on the leaf that held the leaf would keep it alive.
void register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook);

// Runs callback when the backward pass (backward() or grad()) now running in
// this thread has finished its graph, after every node and hook; callbacks run
// in the order queued and may queue more. A backward that throws drops its
// callbacks. Outside a backward it is an error (call it from a hook).
void queue_callback(std::function<void()> callback);

// True while this thread runs a backward pass (inside hooks and nodes).
bool in_backward();

// Where post-accumulate hooks live: in the leaf's AccumulateGrad node, among
// its pre_hooks under this slot, which no gradient slot ever has (so the
// engine's pre-hook loop skips them). Internal to nabla/autograd.
inline constexpr uint32_t kPostAccumulateSlot = UINT32_MAX;

}  // namespace nabla::autograd
