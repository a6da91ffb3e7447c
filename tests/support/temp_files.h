// Paths in a per-process scratch folder of the system's temp directory, for
// tests that write files (parallel test processes do not share one).
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace nabla::testing {

// <temp>/<folder>_<pid>, created.
inline std::string temp_folder(const std::string& folder) {
  auto dir = std::filesystem::temp_directory_path() / (folder + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

// <temp>/<folder>_<pid>/<name>; the folder is created.
inline std::string temp_path_in(const std::string& folder, const std::string& name) {
  return (std::filesystem::path(temp_folder(folder)) / name).string();
}

// <temp>/<folder>_<pid>, emptied: removed with what it holds, then created again.
inline std::string fresh_temp_folder(const std::string& folder) {
  auto dir = std::filesystem::temp_directory_path() / (folder + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace nabla::testing
