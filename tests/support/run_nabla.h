// Runs the `nabla` tool built beside the tests (NABLA_TOOLS_DIR) with `args`,
// capturing stdout and stderr together.
#pragma once
#include <string>

#include "tests/support/run_program.h"

namespace nabla::testing {

inline ProgramRun run_nabla(const std::string& args) {
  return run_program(std::string(NABLA_TOOLS_DIR) + "/nabla " + args + " 2>&1");
}

}  // namespace nabla::testing
