// AtomicFile (see atomic_file.h): POSIX open/write/fsync/rename.
#include "nabla/core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "nabla/core/error.h"

namespace nabla {
namespace {

// A process killed mid-save leaves its `path.tmp.<pid>` behind. After a
// successful save of the same path, those whose process is gone (kill(pid, 0)
// fails with ESRCH) are removed. Files of live processes (a save in progress),
// of other targets and anything not named `<name>.tmp.<digits>` are left
// alone. Best effort: the save itself has succeeded, so errors are ignored.
void remove_stale_temps(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string prefix = target.filename().string() + ".tmp.";
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits[0] == '0' || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid()) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (EPERM: alive, another user's)
    ::unlink(it->path().c_str());
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string path, std::string api)
    : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())), api_(std::move(api)) {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(api_, ": cannot create '", tmp_, "' (to write '", path_, "'): ", std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

void AtomicFile::fail_errno(const char* what) {
  const int err = errno;
  fail(api_, ": ", what, " '", tmp_, "' (to write '", path_, "') failed: ", std::strerror(err), "; the previous '",
       path_, "' is untouched");
}

void AtomicFile::write(const void* data, std::size_t n) {
  NABLA_CHECK(fd_ >= 0 && !committed_, api_, ": write to '", path_, "' after commit");
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail_errno("writing");
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void AtomicFile::commit() {
  NABLA_CHECK(fd_ >= 0 && !committed_, api_, ": '", path_, "' committed twice");
  if (::fsync(fd_) != 0) fail_errno("fsync of");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail_errno("closing");
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) fail_errno("renaming");
  committed_ = true;
  // Make the rename itself durable. Some file systems refuse fsync on a
  // directory (EINVAL); the data is in place either way.
  std::string dir = std::filesystem::path(path_).parent_path().string();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    const int rc = ::fsync(dfd);
    const int err = errno;
    ::close(dfd);
    if (rc != 0 && err != EINVAL)
      fail(api_, ": fsync of directory '", dir, "' after writing '", path_, "' failed: ", std::strerror(err));
  }
  remove_stale_temps(path_);
}

}  // namespace nabla
