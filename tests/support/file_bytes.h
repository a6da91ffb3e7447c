// Whole files as byte strings, for tests of file writers and readers.
#pragma once
#include <fstream>
#include <iterator>
#include <string>

namespace nabla::testing {

// Every byte of the file at `path` ("" when it cannot be opened).
inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace nabla::testing
