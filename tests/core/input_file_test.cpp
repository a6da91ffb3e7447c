// Every file reader's I/O errors (core/input_file.h): a directory, a missing
// path, an empty file and an unreadable file given to each reader API raise a
// nabla::Error naming the API, the path and the OS's reason, never a
// std::ios_base::failure or a crash; InputFile itself refuses a file that
// ends before the size it had when opened.
#include "nabla/core/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"

namespace nabla {
namespace {

namespace fs = std::filesystem;
using nabla::testing::expect_error;
using nabla::testing::kNoError;

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nabla_input_file_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }
  fs::path dir_;
};

struct Reader {
  const char* api;  // the name the error must carry
  std::function<void(const std::string&)> read;
};

// Every public API that reads a file.
std::vector<Reader> readers() {
  return {
      {"graph::load", [](const std::string& p) { graph::load(p); }},
      {"graph::Session::load", [](const std::string& p) { graph::Session::load(p); }},
      {"read_npy", [](const std::string& p) { data::read_npy(p); }},
      {"read_npz", [](const std::string& p) { data::read_npz(p); }},
      {"read_csv", [](const std::string& p) { data::read_csv(p); }},
      {"read_idx", [](const std::string& p) { data::read_idx(p); }},
      {"load_safetensors", [](const std::string& p) { io::load_safetensors(p); }},
      {"load_checkpoint",
       [](const std::string& p) {
         nn::Linear model(2, 3);
         io::load_checkpoint(p, model);
       }},
  };
}

// The message of the nabla::Error `r` raises on `p`; any other exception fails the test.
std::string error_of(const Reader& r, const std::string& p) {
  try {
    r.read(p);
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << r.api << " on '" << p << "' threw a non-nabla exception: " << e.what();
    return "";
  }
  return kNoError;
}

TEST_F(InputFileTest, EveryReaderNamesApiPathAndOsReasonForADirectory) {
  fs::create_directories(path("model.nbg"));  // a directory with a file's name
  for (const Reader& r : readers()) {
    SCOPED_TRACE(r.api);
    expect_error(error_of(r, path("model.nbg")), {r.api, path("model.nbg").c_str(), "Is a directory"});
  }
}

TEST_F(InputFileTest, EveryReaderNamesApiPathAndOsReasonForAMissingFile) {
  for (const Reader& r : readers()) {
    SCOPED_TRACE(r.api);
    expect_error(error_of(r, path("absent")),
                 {r.api, "cannot open", path("absent").c_str(), "No such file or directory"});
  }
}

TEST_F(InputFileTest, EveryReaderRefusesAnEmptyFileNamingApiAndPath) {
  const std::string empty = write("empty", "");
  for (const Reader& r : readers()) {
    SCOPED_TRACE(r.api);
    const std::string msg = error_of(r, empty);
    EXPECT_NE(msg, kNoError);
    expect_error(msg, {r.api, empty.c_str()});
  }
}

TEST_F(InputFileTest, EveryReaderNamesApiPathAndOsReasonForAnUnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their permissions";
  const std::string locked = write("locked", "some bytes");
  ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
  for (const Reader& r : readers()) {
    SCOPED_TRACE(r.api);
    expect_error(error_of(r, locked), {r.api, locked.c_str(), "Permission denied"});
  }
}

TEST_F(InputFileTest, CliRunOfADirectoryIsAClearError) {
  // `nabla run DIR` goes through graph::Session::load (tests/tools has the CLI's own test).
  fs::create_directories(path("saved"));
  expect_error(error_of(readers()[1], path("saved")), {"graph::Session::load", "Is a directory"});
}

TEST_F(InputFileTest, AFileCutShortWhileBeingReadIsAnError) {
  const std::string p = write("shrinks", std::string(1000, 'x'));
  InputFile f(p, "some_reader");
  EXPECT_EQ(f.size(), 1000u);
  fs::resize_file(p, 600);  // another process truncates it after it was opened
  std::string buf(100, '\0');
  f.read_at(500, buf.data(), 100);  // still inside the file
  expect_error(testing::error_of([&] { f.read_all(); }),
               {"some_reader", p.c_str(), "ended early", "reading 1000 bytes at offset 0 got only 600"});
  expect_error(testing::error_of([&] { f.read_at(550, buf.data(), 100); }), {"got only 50"});
}

TEST_F(InputFileTest, AReadErrorNamesTheOsReason) {
  // Address 0 of this process is not mapped: reading it fails with EIO.
  InputFile f("/proc/self/mem", "some_reader");
  char buf[8];
  expect_error(testing::error_of([&] { f.read_at(0, buf, sizeof buf); }),
               {"some_reader: cannot read the file '/proc/self/mem': Input/output error"});
}

TEST_F(InputFileTest, ReadsWholeFilesAndPipes) {
  const std::string p = write("bytes", std::string("a\0b\nc", 5));
  EXPECT_EQ(read_file(p, "x"), std::string("a\0b\nc", 5));
  // A pipe has no size: read to its end.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "1,2\n3,4\n", 8), 8);
  ::close(fds[1]);
  const std::string dev = "/dev/fd/" + std::to_string(fds[0]);
  Tensor t = data::read_csv(dev);
  ::close(fds[0]);
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace nabla
