// InputFile (see input_file.h): POSIX open/fstat/pread.
#include "nabla/core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "nabla/core/error.h"

namespace nabla {

InputFile::InputFile(std::string path, std::string api) : path_(std::move(path)), api_(std::move(api)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail(api_, ": cannot open the file '", path_, "': ", std::strerror(errno));
  struct stat st {};
  // open() succeeds on a directory; reading it fails later with EISDIR, in a
  // place that knows neither the API nor the path.
  const int err = ::fstat(fd_, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
  if (err != 0) {
    ::close(fd_);  // the destructor does not run for a constructor that throws
    fd_ = -1;
    fail_errno(err == EISDIR ? "cannot read" : "cannot inspect", err);
  }
  regular_ = S_ISREG(st.st_mode);
  size_ = regular_ ? static_cast<uint64_t>(st.st_size) : 0;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::fail_errno(const char* what, int err) const {
  fail(api_, ": ", what, " the file '", path_, "': ", std::strerror(err));
}

void InputFile::read_at(uint64_t offset, void* dst, std::size_t n) const {
  char* p = static_cast<char*>(dst);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, p + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_errno("cannot read", errno);
    if (r == 0)
      fail(api_, ": the file '", path_, "' ended early: reading ", n, " bytes at offset ", offset, " got only ", got,
           " (was it truncated while being read?)");
    got += static_cast<std::size_t>(r);
  }
}

std::string InputFile::read_all() const {
  if (regular_) {
    std::string bytes(size_, '\0');
    if (size_ > 0) read_at(0, bytes.data(), bytes.size());
    return bytes;
  }
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const ssize_t r = ::read(fd_, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_errno("cannot read", errno);
    if (r == 0) return bytes;
    bytes.append(buf, static_cast<std::size_t>(r));
  }
}

std::string read_file(const std::string& path, const std::string& api) { return InputFile(path, api).read_all(); }

}  // namespace nabla
