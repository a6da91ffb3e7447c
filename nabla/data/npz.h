// NumPy .npz archives: a ZIP file whose members are .npy files ("x.npy" holds
// the array called "x"), as numpy.savez / savez_compressed write them.
//
// read_npz reads members that are stored or deflate-compressed (zlib), with
// ZIP64 records as NumPy writes them, checks every offset, size and CRC-32,
// refuses an archive whose redundant fields disagree (entry counts, directory
// offset and size, local headers and data descriptors against the central
// directory) or whose members overlap, and parses each member with parse_npy
// (npy.h), whose errors name read_npz and the member. Member names that would
// escape the archive's folder ('/x', '../x', backslashes, drive letters) are
// refused by read_npz and write_npz. write_npz writes stored (uncompressed)
// members, atomically (AtomicFile); NumPy's np.load reads it. Encrypted or
// otherwise compressed members, members not named *.npy, duplicate names and
// archives over 4 GiB (write) raise nabla::Error naming the file and the
// member.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::data {

// (name, array) in archive order; names without the ".npy".
using NpzArrays = std::vector<std::pair<std::string, Tensor>>;

NpzArrays read_npz(const std::string& path);
void write_npz(const std::string& path, const NpzArrays& arrays);

}  // namespace nabla::data
