// Paths in a per-process scratch folder of the system's temp directory, for
// tests that write files (parallel test processes do not share one). The
// folders are removed when the process that made them exits: ctest runs each
// test in its own process, so a folder kept past exit is one more folder in
// /tmp per test per run (hundreds after a day of runs).
#pragma once
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <set>
#include <string>

namespace nabla::testing {

namespace temp_files_detail {

// The folders this process made, removed at its exit. Only by the process
// that made them: a forked child that exits normally runs static destructors
// too, and must not delete its parent's files.
class TempFolders {
 public:
  void add(const std::filesystem::path& dir) {
    std::lock_guard<std::mutex> lock(mu_);
    dirs_.insert(dir);
  }
  ~TempFolders() {
    if (::getpid() != owner_) return;
    for (const auto& dir : dirs_) {
      std::error_code ignored;  // best effort: a folder already gone is fine
      std::filesystem::remove_all(dir, ignored);
    }
  }

 private:
  const pid_t owner_ = ::getpid();
  std::mutex mu_;
  std::set<std::filesystem::path> dirs_;
};

inline std::filesystem::path made_temp_folder(const std::string& folder) {
  static TempFolders folders;
  auto dir = std::filesystem::temp_directory_path() / (folder + "_" + std::to_string(::getpid()));
  folders.add(dir);
  return dir;
}

}  // namespace temp_files_detail

// <temp>/<folder>_<pid>, created (removed when the process exits).
inline std::string temp_folder(const std::string& folder) {
  auto dir = temp_files_detail::made_temp_folder(folder);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// <temp>/<folder>_<pid>/<name>; the folder is created.
inline std::string temp_path_in(const std::string& folder, const std::string& name) {
  return (std::filesystem::path(temp_folder(folder)) / name).string();
}

// <temp>/<folder>_<pid>, emptied: removed with what it holds, then created again.
inline std::string fresh_temp_folder(const std::string& folder) {
  auto dir = temp_files_detail::made_temp_folder(folder);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace nabla::testing
