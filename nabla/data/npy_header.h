// The header of a .npy file: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// parsed as strictly as NumPy reads it (ast.literal_eval, then exactly these
// three keys): `{`, each key once and no other, string/bool/tuple values of
// the right kind, `}`, then only spaces and newlines. Whitespace between
// tokens, either quote and a trailing comma are Python syntax and accepted;
// string escapes, comments and Python's other literals are not NumPy headers
// and are refused. Errors name read_npy, the file (`where`) and the character.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nabla::data {

struct NpyHeader {
  std::string descr;  // '<f4', '|u1', ... (checked by the caller)
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

NpyHeader parse_npy_header(const std::string& header, const std::string& where);

}  // namespace nabla::data
