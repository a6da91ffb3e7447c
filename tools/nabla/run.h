// `nabla run`: loads a saved graph (.nbg), feeds its placeholders from .npy
// files, runs it once and writes the fetched values to .npy files, one .npz,
// or prints them (docs/train.md, "nabla run").
#pragma once
#include <ostream>

#include "cli.h"

namespace nabla::tool {

// Runs `config`, printing a line per fetch (or the values) to `out`. Unknown
// names, feeds of the wrong shape or dtype, unreadable or malformed files
// raise nabla::Error naming them.
void run_graph(const RunConfig& config, std::ostream& out);

}  // namespace nabla::tool
