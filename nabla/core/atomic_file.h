// AtomicFile: writes a file so that a crash or an error never destroys the
// previous version (DESIGN.md, "Errors and data safety"). Bytes go to
// `path + ".tmp.<pid>"`; commit() fsyncs it, renames it over `path` and fsyncs
// the directory. If the object is destroyed without commit() (an exception
// mid-way), the temporary file is removed and `path` is left untouched. A
// process killed mid-save cannot remove its temporary file: the next commit()
// to the same `path` removes every `path.tmp.<pid>` whose process is gone.
// In core because every layer that writes files (io, data, graph) uses it.
//
//   AtomicFile f(path, "write_npy");   // api names the caller in errors
//   f.write(header.data(), header.size());
//   f.commit();
#pragma once
#include <cstddef>
#include <string>

namespace nabla {

class AtomicFile {
 public:
  AtomicFile(std::string path, std::string api);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t n);  // all n bytes or nabla::Error
  void commit();                                // fsync, rename into place, fsync the directory

  const std::string& temp_path() const { return tmp_; }

 private:
  [[noreturn]] void fail_errno(const char* what);
  std::string path_, tmp_, api_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace nabla
