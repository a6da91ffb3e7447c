// AtomicFile (core/atomic_file.h): a save that fails leaves the old file and
// no temporary; a successful save removes the temporary files that killed
// processes left for the same target, and only those.
#include "nabla/core/atomic_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "nabla/core/error.h"

namespace nabla {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void save(const fs::path& p, const std::string& bytes) {
  AtomicFile f(p.string(), "test_save");
  f.write(bytes.data(), bytes.size());
  f.commit();
}

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nabla_atomic_file_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFileTest, AFailedSaveKeepsTheOldFileAndLeavesNoTemporary) {
  const fs::path target = dir_ / "model.bin";
  save(target, "version 1");
  {
    AtomicFile f(target.string(), "test_save");
    f.write("half of version 2", 17);
    EXPECT_TRUE(fs::exists(f.temp_path()));
  }  // destroyed without commit(): an exception mid-save
  EXPECT_EQ(slurp(target), "version 1");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

// A process killed mid-save leaves `<target>.tmp.<pid>` (50 MB each in the
// kill test of issue 13: 1.4 GB after 44 kills). The next successful save of
// the target removes those whose process is gone.
TEST_F(AtomicFileTest, ASaveRemovesStaleTemporariesOfDeadProcessesOnly) {
  // A process that has exited (and been reaped): its pid is free.
  const pid_t dead = ::fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  // A process that is alive while the save runs (another save in progress).
  const pid_t live = ::fork();
  ASSERT_GE(live, 0);
  if (live == 0) {
    ::pause();
    ::_exit(0);
  }
  const std::string d = std::to_string(dead), l = std::to_string(live);
  const fs::path target = dir_ / "ckpt.safetensors";
  for (const std::string& name : std::initializer_list<std::string>{
           "ckpt.safetensors.tmp." + d, "ckpt.safetensors.tmp." + l, "other.safetensors.tmp." + d,
           "ckpt.safetensors2.tmp." + d, "ckpt.safetensors.tmp." + d + "x", "ckpt.safetensors.tmp.",
           "ckpt.safetensors.tmp.0" + d})
    std::ofstream(dir_ / name) << "left by a killed save";

  save(target, "new bytes");
  ::kill(live, SIGKILL);
  ::waitpid(live, nullptr, 0);

  EXPECT_EQ(slurp(target), "new bytes");
  EXPECT_FALSE(fs::exists(dir_ / ("ckpt.safetensors.tmp." + d))) << "the dead process's temporary is removed";
  EXPECT_TRUE(fs::exists(dir_ / ("ckpt.safetensors.tmp." + l))) << "a live process's save in progress is kept";
  EXPECT_TRUE(fs::exists(dir_ / ("other.safetensors.tmp." + d))) << "another target's file is kept";
  EXPECT_TRUE(fs::exists(dir_ / ("ckpt.safetensors2.tmp." + d)));
  EXPECT_TRUE(fs::exists(dir_ / ("ckpt.safetensors.tmp." + d + "x"))) << "not a temporary's name";
  EXPECT_TRUE(fs::exists(dir_ / "ckpt.safetensors.tmp."));
  EXPECT_TRUE(fs::exists(dir_ / ("ckpt.safetensors.tmp.0" + d)));

  // The live process is gone now: the next save removes its file too.
  save(target, "newer bytes");
  EXPECT_FALSE(fs::exists(dir_ / ("ckpt.safetensors.tmp." + l)));
  EXPECT_FALSE(fs::exists(dir_ / ("ckpt.safetensors.tmp." + d)));
}

}  // namespace
}  // namespace nabla
