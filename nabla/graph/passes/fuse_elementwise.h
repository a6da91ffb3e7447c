// Fusion of elementwise chains. Elementwise op nodes (OpFlags kElementwise)
// of one output shape, where each value but the last is used once, by the
// next op of the group, become one node that runs the whole group in ONE
// loop over the data: for each tile of kFusedTile elements it applies every
// op of the chain, writing intermediates into tile-sized scratch buffers that
// stay in cache; only the last op's result is a full tensor. The op kernels
// themselves run on the tiles, so results equal the unfused ones exactly.
//
// Not fused: random ops, views, ops with control inputs, float16/bfloat16
// (their kernels compute in float32 through a conversion), values that are
// fetched or used twice, inputs that neither have the output's shape nor are
// a single element (broadcasting of a row, say), and groups that span an
// assign or initializer (moving a variable's read past its update would
// change what it reads).
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

inline constexpr int64_t kFusedTile = 4096;

struct FusedChain {
  struct Step {
    const OpDef* op = nullptr;
    Attrs attrs;
    // Per op input: >= 0: the fused node's input; < 0: step -(a + 1)'s result.
    std::vector<int> args;
    DType dtype = kFloat32;
    std::string node;  // the original node, described for errors
  };
  std::vector<Step> steps;  // in run order; the last one's result is the node's output
};

// Whether op node `id` may join a fused chain (the rules above, except
// those about its uses and neighbours).
bool fusable_elementwise(const OptGraph& g, int id);

// The op fused nodes carry (not in the op table: it has no kernel of its own).
const OpDef& fused_elementwise_op();

// "fused[mul, add, relu]"
std::string fused_chain_text(const FusedChain& c);

// Fuses groups in g; `fetches` are values that must stay computed. Returns
// the number of fused nodes made. Run prune_to_fetches() after to drop the
// nodes fused away.
int fuse_elementwise(OptGraph& g, const std::vector<ValueRef>& fetches);

// Tile-sized scratch buffers of a fused node, kept across runs: one set per
// chunk running at once (one chunk per pool thread), handed out and back.
class FusedScratch {
 public:
  TensorList take(const FusedChain& c, int64_t cap, int64_t* bytes_allocated);
  void give_back(TensorList scratch);

 private:
  std::mutex mu_;
  std::vector<TensorList> free_;
};

// Runs a fused node into `out` (contiguous, CPU, of the node's output meta):
// `inputs` are its external inputs. Scratch comes from `scratch` (made on
// first use); `bytes_allocated` grows by the scratch it had to allocate.
void run_fused(const FusedChain& c, Inputs inputs, const Tensor& out, FusedScratch& scratch, int64_t* bytes_allocated);

}  // namespace nabla::graph
