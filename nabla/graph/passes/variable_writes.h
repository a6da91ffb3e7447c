// Updates written straight into variables. An Assign, AssignAdd or AssignSub
// whose value comes from an elementwise chain (a fused node, or one
// elementwise op) that nothing else uses costs a pass over the variable on
// top of the chain's: a copy, or an add/sub. Where nothing reads or writes
// the variable between the chain and the assign, the chain computes the new
// value into the variable's own buffer instead: for AssignAdd/AssignSub it
// gains a last step, variable + value or variable - value (the same kernel
// the assign would run, so the same numbers), and the assign only hands on
// the variable. Graph optimizers' updates (Adam's m, v and the variable)
// then take one pass each and allocate nothing.
//
// The chain reads the variable through a Variable node of the plan (a read
// before the chain; the variable's value is a handle to its buffer). It may
// read it elsewhere too, in any step but the last, or as input 0 of a last
// step that may run in place: each tile is read before it is written.
// Nothing is done when another value may alias the variable (a view of it)
// or when the plan has an initializer or control flow (which may replace or
// read variables out of sight).
//
// Ops that update inputs (OpDef::updates_input: adam_update) get the same
// treatment per output: an output whose only use is an Assign of the
// variable the op reads as that input is computed in the variable's buffer,
// under the same conditions. Graph-mode Adam then updates each variable and
// its two slots in one pass with no copy.
#pragma once
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Per node of g: for a fused node that writes into a variable, which of its
// inputs is the variable (-1: none); per Assign* node: whether its value is
// already in the variable. Rewrites the chains (fused nodes, single ops made
// one-step chains) in g. Node ids are unchanged.
struct VariableWrites {
  std::vector<int> into_input;
  std::vector<char> written;
  // Per node: empty, or per output of an updating op the input whose
  // variable it is computed in (-1: a new buffer).
  std::vector<std::vector<int>> outputs_into_inputs;
};
VariableWrites plan_variable_writes(OptGraph& g, const std::vector<ValueRef>& fetches);

}  // namespace nabla::graph
