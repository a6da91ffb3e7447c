// Runs a shell command and captures what it prints, for tests that drive the
// example programs and the `nabla` binary end to end. Add " 2>&1" to the
// command to capture stderr too.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace nabla::testing {

struct ProgramRun {
  std::string out;  // what the command printed
  int code = -1;    // its exit status (-1: it did not exit normally or could not start)
};

inline ProgramRun run_program(const std::string& cmd) {
  ProgramRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 512> buf;
  while (fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace nabla::testing
