// `nabla export`: a saved graph (.nbg) written as an ONNX model through
// libnabla_onnx (docs/onnx.md). Only built where ONNX export is
// (NABLA_ONNX); elsewhere the command says so.
#pragma once
#include <ostream>

#include "cli.h"

namespace nabla::tool {

// Writes config.onnx and prints one line naming its inputs and outputs.
// Unknown fetch names, unreadable graphs and ops without an ONNX form raise
// nabla::Error naming them.
void run_export(const ExportConfig& config, std::ostream& out);

}  // namespace nabla::tool
