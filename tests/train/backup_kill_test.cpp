// Issue 16, acceptance 3: a small fit() with BackupAndRestore (a backup every
// 2 batches) runs as a child process — this test binary, re-run with a filter
// and NABLA_BACKUP_KILL_DIR set — and is killed with SIGKILL at 20 moments,
// then started again with the same command until it completes; its final
// weights and History must be the bytes of an uninterrupted run's.
//
// The moments are random delays, and, so that every kind of moment is hit
// every time, also "as soon as a backup's temporary file appears" (a kill in
// the middle of writing a backup) and "just after an epoch's end". Where each
// kill landed is read from the child's event log and from the temporary file
// a write in progress leaves behind; the test prints the tally.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "train/backup_support.h"

extern char** environ;

namespace nabla::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr const char* kChildEnv = "NABLA_BACKUP_KILL_DIR";
constexpr int kKills = 20;

// Appends "start", "begin <epoch> <batch>", "end <epoch> <batch>",
// "epoch_end <epoch>" lines with write(2): what is written survives SIGKILL.
// It runs before BackupAndRestore, so "end" precedes that batch's backup.
class EventLog : public Callback {
 public:
  explicit EventLog(const std::string& path) : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644)) {
    line("start");
  }
  void on_epoch_begin(int epoch, const Logs&) override { epoch_ = epoch; }
  void on_train_batch_begin(int64_t batch, const Logs&) override { line("begin", batch); }
  void on_train_batch_end(int64_t batch, const Logs&) override { line("end", batch); }
  void on_epoch_end(int epoch, const Logs&) override { line("epoch_end " + std::to_string(epoch)); }

 private:
  void line(const std::string& what, int64_t batch = -1) {
    std::string s = what + (batch >= 0 ? " " + std::to_string(epoch_) + " " + std::to_string(batch) : "") + "\n";
    if (::write(fd_, s.data(), s.size()) < 0) std::abort();
  }
  int fd_;
  int epoch_ = 0;
};

// The child: the small fit, then its weights and History in final.safetensors.
TEST(BackupAndRestoreKillChild, Fit) {
  const char* dir = std::getenv(kChildEnv);
  if (dir == nullptr) GTEST_SKIP() << "run as a child process by BackupAndRestoreKill";
  testing::SmallFit r =
      testing::small_fit(std::string(dir) + "/backup", {.save_freq = 2}, {EventLog(std::string(dir) + "/events.log")});
  io::TensorDict weights(r.weights.begin(), r.weights.end());
  io::Metadata history;
  for (const auto& [key, values] : r.history.history) {
    std::ostringstream s;
    s.precision(17);
    for (double v : values) s << v << ' ';
    history[key] = s.str();
  }
  io::save_safetensors(std::string(dir) + "/final.safetensors", weights, history);
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<std::string> lines_of(const fs::path& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// This binary run with the child test's filter, NABLA_BACKUP_KILL_DIR=dir and
// its output in dir/child.out.
pid_t start_child(const fs::path& dir) {
  static const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> env = {std::string(kChildEnv) + "=" + dir.string()};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("GTEST_", 0) != 0 && std::string(*e).rfind(kChildEnv, 0) != 0) env.push_back(*e);
  std::vector<char*> envp, argv;
  for (std::string& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string arg0 = self, filter = "--gtest_filter=BackupAndRestoreKillChild.Fit";
  argv = {arg0.data(), filter.data(), nullptr};
  const std::string out = (dir / "child.out").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

// The child's exit status once it has exited, or nothing while it runs.
std::optional<int> exited(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) != pid) return std::nullopt;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The temporary file of a backup that `pid` is writing (AtomicFile's name).
bool writing_backup(const fs::path& dir, pid_t pid) {
  return fs::exists(dir / "backup" / ("backup.safetensors.tmp." + std::to_string(pid)));
}

// Where the last kill landed, from the temporary file and the log's last line.
std::string landing(const fs::path& dir, bool temp_file) {
  if (temp_file) return "during a backup write";
  std::vector<std::string> log = lines_of(dir / "events.log");
  const std::string last = log.empty() ? "" : log.back();
  if (last == "start" || last.empty()) return "before the first batch (start-up, reading the backup)";
  if (last.starts_with("begin")) return "inside a training step";
  if (last.starts_with("epoch_end")) return "after an epoch's end";
  return "after a step (its callbacks, validation, the backup)";
}

// Whether the restart has to go through an epoch's end again: the killed run
// had finished the last backup's epoch's batches (13 an epoch) or gone past it.
bool across_an_epoch_end(const fs::path& dir) {
  const fs::path backup = dir / "backup" / "backup.safetensors";
  const int64_t backup_epoch = fs::exists(backup) ? io::read_training_state(backup.string()).epoch : 0;
  std::vector<std::string> log = lines_of(dir / "events.log");
  const std::string last = log.empty() ? "" : log.back();
  int epoch = -1, batch = -1;
  if (std::sscanf(last.c_str(), "begin %d %d", &epoch, &batch) == 2 ||
      std::sscanf(last.c_str(), "end %d %d", &epoch, &batch) == 2)
    return epoch > backup_epoch || (last.starts_with("end") && batch == 12);
  return std::sscanf(last.c_str(), "epoch_end %d", &epoch) == 1;
}

// Child runs that resumed from a backup: their first batch was not epoch 0's first.
int resumed_runs(const fs::path& root) {
  int resumed = 0;
  for (const auto& run : fs::directory_iterator(root)) {
    bool first_batch_pending = false;
    for (const std::string& line : lines_of(run.path() / "events.log")) {
      if (line == "start") first_batch_pending = true;
      if (first_batch_pending && line.starts_with("begin")) {
        resumed += line != "begin 0 0";
        first_batch_pending = false;
      }
    }
  }
  return resumed;
}

TEST(BackupAndRestoreKill, TwentySigkillsThenBitIdenticalWeights) {
  const auto test_start = Clock::now();
  const fs::path root = fs::temp_directory_path() / ("nabla_backup_kill_" + std::to_string(::getpid()));
  fs::remove_all(root);

  // The uninterrupted run, and how long it takes.
  const fs::path ref_dir = root / "reference";
  fs::create_directories(ref_dir);
  const auto ref_start = Clock::now();
  const pid_t ref = start_child(ref_dir);
  int status = 0;
  ASSERT_EQ(::waitpid(ref, &status, 0), ref);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_bytes(ref_dir / "child.out");
  const double ref_s = std::chrono::duration<double>(Clock::now() - ref_start).count();
  const std::string want = read_bytes(ref_dir / "final.safetensors");
  ASSERT_FALSE(want.empty());
  EXPECT_FALSE(fs::exists(ref_dir / "backup")) << "the backup is deleted after a normal end";

  std::mt19937_64 rng(std::random_device{}());
  std::map<std::string, int> landed;
  int across_epochs = 0;
  int kills = 0, runs = 0, completions = 0;
  fs::path dir;
  auto new_round = [&] {
    dir = root / ("run" + std::to_string(completions));
    fs::create_directories(dir);
  };
  auto check_completed = [&](int code) {
    ASSERT_EQ(code, 0) << read_bytes(dir / "child.out");
    EXPECT_EQ(read_bytes(dir / "final.safetensors"), want) << "round " << completions << " in " << dir;
    EXPECT_FALSE(fs::exists(dir / "backup"));
    ++completions;
  };
  new_round();
  while (kills < kKills) {
    const pid_t child = start_child(dir);
    ++runs;
    const auto started = Clock::now();
    const auto deadline = started + std::chrono::duration<double>(ref_s);
    const int mode = kills % 4;  // 0, 1: a random delay; 2: mid-write; 3: just after an epoch's end
    const auto delay = std::chrono::duration<double>(std::uniform_real_distribution<double>(0, 0.8 * ref_s)(rng));
    const std::size_t log_lines = lines_of(dir / "events.log").size();
    std::optional<int> code;
    for (;;) {
      if ((code = exited(child))) break;
      const auto now = Clock::now();
      if (mode <= 1 && now - started >= delay) break;
      if (mode == 2 && writing_backup(dir, child)) break;
      if (mode == 3) {
        std::vector<std::string> log = lines_of(dir / "events.log");
        bool epoch_end = false;
        for (std::size_t i = log_lines; i < log.size(); ++i) epoch_end = epoch_end || log[i].starts_with("epoch_end");
        if (epoch_end) {
          std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 300)(rng)));
          break;
        }
      }
      if (now > deadline + std::chrono::seconds(10)) break;  // a wait that never came: kill anyway
      if (mode != 2) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (code) {  // it completed before the kill: check it, start a new round
      check_completed(*code);
      new_round();
      continue;
    }
    ::kill(child, SIGKILL);
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    if (WIFEXITED(status)) {  // it completed just before the signal
      check_completed(WEXITSTATUS(status));
      new_round();
      continue;
    }
    ++kills;
    ++landed[landing(dir, writing_backup(dir, child))];
    across_epochs += across_an_epoch_end(dir);
  }
  // Restarted until it completes.
  for (;;) {
    const pid_t child = start_child(dir);
    ++runs;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
    if (WEXITSTATUS(status) == 0) break;
  }
  check_completed(0);

  const double total_s = std::chrono::duration<double>(Clock::now() - test_start).count();
  const int resumed = resumed_runs(root);
  std::ostringstream tally;
  tally << kills << " SIGKILLs over " << runs << " child runs (" << resumed << " resumed from a backup), "
        << completions << " completed runs all bit-identical to the uninterrupted one (" << ref_s << " s); test "
        << total_s << " s. Kills landed:";
  for (const auto& [where, n] : landed) tally << "\n  " << n << "  " << where;
  tally << "\n  (" << across_epochs
        << " of them across an epoch's end: the restart resumed from a backup of an earlier epoch)";
  std::cout << tally.str() << std::endl;
  RecordProperty("tally", tally.str());
  EXPECT_EQ(kills, kKills);
  EXPECT_GE(resumed, kKills / 4) << "most restarts resume from a backup, not from scratch\n" << tally.str();
  EXPECT_GE(landed["during a backup write"], 1) << tally.str();
  EXPECT_GE(across_epochs, 1) << tally.str();
  fs::remove_all(root);
}

}  // namespace
}  // namespace nabla::train
