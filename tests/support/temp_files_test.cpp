// The scratch folders of temp_files.h go away with the process that made
// them, and only with it.
#include "support/temp_files.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nabla::testing::temp_path_in;

namespace {

constexpr const char* kTempFilesChildEnv = "NABLA_TEMP_FILES_CHILD";

// The exit status of a child process (-1 when it did not exit normally).
int exit_status_of(pid_t pid) {
  int status = -1;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

// Runs only as the child of the test below: makes a scratch folder, writes
// its path to the file the parent names, and exits normally.
TEST(TempFilesChild, MakesAFolderAndExits) {
  const char* note = std::getenv(kTempFilesChildEnv);
  if (!note) GTEST_SKIP() << "runs as a child of TempFiles.AProcessRemovesItsFoldersWhenItExits";
  const std::string path = temp_path_in("nabla_temp_files_child", "data.bin");
  std::ofstream(path) << "scratch";
  std::ofstream(note) << fs::path(path).parent_path().string();
}

TEST(TempFiles, AProcessRemovesItsFoldersWhenItExits) {
  const std::string note = temp_path_in("nabla_temp_files_test", "child_folder.txt");
  // This test binary again, in a fresh process, running the child test only.
  std::string self = fs::read_symlink("/proc/self/exe").string(), filter = "--gtest_filter=TempFilesChild.*";
  std::string env = std::string(kTempFilesChildEnv) + "=" + note;
  std::vector<char*> argv = {self.data(), filter.data(), nullptr}, envp = {env.data(), nullptr};
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ASSERT_EQ(exit_status_of(pid), 0);
  std::string child_folder;
  std::ifstream(note) >> child_folder;
  ASSERT_NE(child_folder.find("nabla_temp_files_child_"), std::string::npos) << "the child wrote: " << child_folder;
  EXPECT_FALSE(fs::exists(child_folder)) << child_folder << " outlived its process";
}

TEST(TempFiles, AForkedChildLeavesItsParentsFoldersAlone) {
  const std::string path = temp_path_in("nabla_temp_files_test", "parent.txt");
  std::ofstream(path) << "the parent's";
  // The child inherits the parent's list of folders and runs the static
  // destructors on its normal exit; they must not remove the parent's.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) std::exit(0);
  ASSERT_EQ(exit_status_of(pid), 0);
  EXPECT_TRUE(fs::exists(path));
}
