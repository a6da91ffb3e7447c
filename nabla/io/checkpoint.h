// Training checkpoints: a model's state dict and, optionally, its optimizer's
// state (hyper-parameters of each group, step and buffers of each parameter)
// in one safetensors file that Python's `safetensors` reads too.
//
//   io::save_checkpoint("runs/x/checkpoint.safetensors", model, &adam, {{"epoch", "3"}});
//   io::Metadata meta = io::load_checkpoint("runs/x/checkpoint.safetensors", model, &adam);
//
// Layout (docs/checkpoints.md):
//   tensors   "model.<state dict key>"                  the module's parameters and buffers
//             "optimizer.state.<group>.<index>.<name>"  optimizer buffers ("exp_avg", ...)
//   metadata  "nabla.checkpoint"            "1" (the format version)
//             "optimizer"                   the optimizer's name ("Adam")
//             "optimizer.groups"            number of parameter groups
//             "optimizer.group.<g>.params"  number of parameters in group g
//             "optimizer.group.<g>.<key>"   each hyper-parameter ("lr" -> "0.001"), %.17g,
//                                           also extra keys such as a scheduler's "initial_lr"
//             "optimizer.state.<g>.<i>.step"  updates of parameter i of group g (when > 0)
//             any caller metadata (keys must not start with "nabla." or "optimizer")
//
// Saving is atomic (AtomicFile). Loading checks the whole file against the
// model and optimizer before changing either; a file that is not a nabla
// checkpoint, a missing or unexpected entry, a malformed number, another
// optimizer kind, mismatched shapes or dtypes (nothing is cast) raise
// nabla::Error naming the file. The global random generator is not part of a
// checkpoint. Tensors named "training.*" belong to a training state
// (training_state.h) and are skipped by load_checkpoint.
#pragma once
#include <string>

#include "nabla/io/safetensors.h"
#include "nabla/nn/module.h"
#include "nabla/optim/optimizer.h"

namespace nabla::io {

void save_checkpoint(const std::string& path, const nn::Module& model, const optim::Optimizer* optimizer = nullptr,
                     const Metadata& metadata = {});

// Restores `model` (strictly: every key, every shape) and, when given,
// `optimizer`, which must be of the saved kind over parameters of the saved
// shapes. Returns the caller metadata that was saved.
namespace detail {
// save_checkpoint plus training_state.h's tensors, saved as "training.<name>".
void save_checkpoint_with(const std::string& path, const nn::Module& model, const optim::Optimizer* optimizer,
                          const Metadata& metadata, const nn::StateDict& training_tensors);
}  // namespace detail

Metadata load_checkpoint(const std::string& path, nn::Module& model, optim::Optimizer* optimizer = nullptr);

}  // namespace nabla::io
