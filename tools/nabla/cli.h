// Command-line parsing for the `nabla` program: hand-written (no CLI library
// dependency), small and unit-tested (tests/tools/cli_test.cpp).
//
//   nabla --help                  the subcommands
//   nabla train [options]         see train_help()
//   nabla run MODEL.nbg [options] see run_help()
//
// A usage mistake (unknown subcommand or option, missing or malformed value)
// raises UsageError; main() prints it with a hint and exits with code 2.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nabla::tool {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

// Everything `nabla train` can be told. Defaults are the acceptance run:
// the default CNN on Fashion-MNIST (docs/train.md).
struct TrainConfig {
  std::string model = "cnn";  // cnn | mlp
  int epochs = 5;
  int64_t batch_size = 64;
  double lr = 1e-3;
  std::string optimizer = "adam";   // sgd | adam | adamw | rmsprop | adagrad
  std::string schedule = "cosine";  // none | cosine
  int threads = 0;                  // 0: nabla's default (NABLA_NUM_THREADS or all cores)
  int workers = 2;                  // DataLoader worker threads
  std::string device = "cpu";       // where the model trains: cpu, opencl[:N], cuda[:N]
  uint64_t seed = 0;
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string out = "runs/fashion-cnn";
  int64_t limit = 0;              // >0: use only the first N training and test samples
  std::string progress = "auto";  // auto | bar | lines | none
  bool resume = false;            // continue from <out>/checkpoint.safetensors
  bool help = false;
};

// `nabla run`: a saved graph (.nbg), values to feed from .npy files, values
// to fetch and where to write them (docs/train.md, "nabla run").
struct RunConfig {
  std::string model;                                       // the .nbg file
  std::vector<std::pair<std::string, std::string>> feeds;  // (placeholder name, .npy path), in order
  std::vector<std::string> fetches;                        // value names, in order
  std::vector<std::string> outs;  // one .npy per fetch, or one .npz for all; none: print the values
  std::string device = "cpu";     // where the session runs
  bool help = false;
};

// What the command line asks for.
struct Command {
  enum class Kind { Help, Train, Run };
  Kind kind = Kind::Help;
  TrainConfig train;
  RunConfig run;
};

// args excludes the program name (argv[1..]).
Command parse_command_line(const std::vector<std::string>& args);
// Options after `train`.
TrainConfig parse_train_args(const std::vector<std::string>& args);
// Arguments after `run`.
RunConfig parse_run_args(const std::vector<std::string>& args);

std::string main_help();
std::string train_help();
std::string run_help();

}  // namespace nabla::tool
