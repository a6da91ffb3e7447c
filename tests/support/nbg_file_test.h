// A fixture for tests that damage a saved graph: a temporary directory, a
// good .nbg file saved from a graph the test builds, its bytes, and the error
// loading edited bytes raises.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/nbg_bytes.h"

namespace nabla::testing {

class NbgFileTest : public ::testing::Test {
 protected:
  // Makes the directory (named after `name` and the process) and saves `g` in it as good.nbg.
  void save_good(const std::string& name, const graph::Graph& g) {
    dir_ = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    good_ = path("good.nbg");
    graph::save(g, good_);
    bytes_ = read_bytes(good_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // The error loading `b` (written to a file) raises.
  std::string load_error(const std::string& b, const std::string& name = "bad.nbg") {
    write_bytes(path(name), b);
    return error_of([&] { graph::load(path(name)); });
  }
  std::filesystem::path dir_;
  std::string good_, bytes_;
};

}  // namespace nabla::testing
