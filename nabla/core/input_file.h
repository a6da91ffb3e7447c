// InputFile: opens a file for reading with the errors every reader shares
// (DESIGN.md, "Errors and data safety"). A missing or unreadable path, a
// directory, a failed read and a file that ends before the size it had when
// opened (truncated while being read) are nabla::Errors naming the API the
// user called, the path and the OS's reason (strerror), never a
// std::ios_base::failure or a silently short buffer. The counterpart of
// AtomicFile for reading; a new reader gets these checks by using it.
//
//   std::string bytes = read_file(path, "read_npy");          // whole file
//   InputFile f(path, "load_safetensors");                    // or pieces of it
//   f.read_at(8, header.data(), header.size());
//
// Pipes and devices (`<(zcat x.csv)`, /dev/stdin) are read to their end by
// read_all(); read_at() needs a seekable file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace nabla {

class InputFile {
 public:
  InputFile(std::string path, std::string api);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The size when opened (0 for a pipe or a device, whose size is unknown).
  uint64_t size() const { return size_; }
  bool is_regular() const { return regular_; }
  // Exactly n bytes at `offset`, or nabla::Error.
  void read_at(uint64_t offset, void* dst, std::size_t n) const;
  // Everything: size() bytes of a regular file, or a stream up to its end.
  std::string read_all() const;

 private:
  [[noreturn]] void fail_errno(const char* what, int err) const;
  std::string path_, api_;
  int fd_ = -1;
  uint64_t size_ = 0;
  bool regular_ = false;
};

// InputFile(path, api).read_all().
std::string read_file(const std::string& path, const std::string& api);

}  // namespace nabla
