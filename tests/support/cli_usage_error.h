// The message of the UsageError the `nabla` tool's command-line parser raises
// for `args` (tools/nabla/cli.h), or "(no error)".
#pragma once
#include <string>
#include <vector>

#include "cli.h"

namespace nabla::testing {

inline std::string usage_error(const std::vector<std::string>& args) {
  try {
    tool::parse_command_line(args);
  } catch (const tool::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace nabla::testing
