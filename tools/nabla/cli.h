// Command-line parsing for the `nabla` program: hand-written (no CLI library
// dependency), small and unit-tested (tests/tools/cli_test.cpp).
//
//   nabla --help                  the subcommands
//   nabla train [options]         see train_help()
//   nabla run MODEL.nbg [options] see run_help()
//   nabla evaluate [options]      see evaluate_help()
//   nabla predict [options]       see predict_help()
//
// A usage mistake (unknown subcommand or option, missing or malformed value)
// raises UsageError; main() prints it with a hint and exits with code 2.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nabla::tool {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

// Where `nabla train`'s data comes from (a config file's "data" section,
// docs/config.md). The command line's --data names an IDX directory.
struct DataSpec {
  std::string format = "idx";               // idx | npz | npy | csv
  std::string train, test;                  // npz/csv: the files; npy: the inputs (idx: TrainConfig::data)
  std::string train_targets, test_targets;  // npy: the class-index files
  std::string x_key = "x", y_key = "y";     // npz: the arrays' names
  bool header = false;                      // csv: the first line names the columns
  int64_t target_column = -1;               // csv: the column holding the class index (-1: the last)
  // The "normalize" transform (x - mean) / std; IDX images are first scaled
  // to [0, 1]. The default: Fashion-MNIST's training-set mean and std.
  std::optional<std::pair<double, double>> normalize = std::pair<double, double>{0.286, 0.353};
};

// Everything `nabla train` can be told. Defaults are the acceptance run:
// the default CNN on Fashion-MNIST (docs/train.md).
struct TrainConfig {
  std::string model = "cnn";  // cnn | mlp
  int epochs = 5;
  int64_t batch_size = 64;
  double lr = 1e-3;
  std::string optimizer = "adam";  // sgd | adam | adamw | rmsprop | adagrad
  std::map<std::string, double>
      optimizer_options;            // besides lr (a config file's "optimizer"); sgd: momentum 0.9 unless set
  std::string schedule = "cosine";  // none | cosine
  int threads = 0;                  // 0: nabla's default (NABLA_NUM_THREADS or all cores)
  int workers = 2;                  // DataLoader worker threads
  std::string device = "cpu";       // where the model trains: cpu, opencl[:N], cuda[:N]
  // contiguous | channels_last: the model's tensors' memory format (CPU;
  // docs/tensors.md, "Memory format")
  std::string memory_format = "contiguous";
  uint64_t seed = 0;
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string out = "runs/fashion-cnn";
  std::string logdir;             // TensorBoard logs (docs/tensorboard.md); empty: <out>/logs
  int64_t limit = 0;              // >0: use only the first N training and test samples
  std::string progress = "auto";  // auto | bar | lines | none
  bool resume = false;            // continue from <out>/checkpoint.safetensors
  bool distributed = false;       // data-parallel over the ranks of mpirun (docs/distributed.md)
  bool help = false;
  // --config FILE: the settings come from FILE (train_config.h); options
  // given beside it override the file's values. --print-config prints the
  // settings as such a file instead of training.
  std::string config_file;
  bool print_config = false;
  std::set<std::string> given;  // the options given on the command line ("--epochs", ...)
  // From a config file: the model as nn::config JSON text (empty: the built-in
  // `model`), the shape of one input sample if stated, and the data.
  std::string model_config;
  std::vector<int64_t> input_shape;
  DataSpec data_spec;
  // From a config file's "metrics" and "callbacks" (config_callbacks.h): the
  // metrics besides loss and accuracy (make_metric names), and the validated
  // callbacks array as JSON text (empty: none), built when training starts.
  std::vector<std::string> metrics;
  std::string callbacks_config;
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

// `nabla export`: a saved graph (.nbg) to another format (docs/onnx.md).
struct ExportConfig {
  std::string model;                 // the .nbg file
  std::string onnx;                  // --onnx: the ONNX file to write
  std::vector<std::string> fetches;  // the model's outputs; none: every op value no node reads
  bool help = false;
};

// `nabla evaluate` and `nabla predict` (Caffe's test and deploy): a trained
// model, described by the run's settings (--config FILE, or the defaults and
// a few of train's options), with the weights of a checkpoint.
struct InferConfig {
  TrainConfig train;       // the model, the data, the device, ... (train's parsing)
  std::string checkpoint;  // empty: <out>/checkpoint.safetensors
  std::string input;       // predict: a .npy of inputs
  std::string output;      // predict: a .npy (the outputs) or .npz (the outputs and the classes)
  bool help = false;
};

// What the command line asks for.
struct Command {
  enum class Kind { Help, Train, Run, Evaluate, Predict, Export };
  Kind kind = Kind::Help;
  TrainConfig train;
  RunConfig run;
  InferConfig infer;  // Evaluate, Predict
  ExportConfig export_;
};

// args excludes the program name (argv[1..]).
Command parse_command_line(const std::vector<std::string>& args);
// Options after `train`.
TrainConfig parse_train_args(const std::vector<std::string>& args);
// Arguments after `run`.
RunConfig parse_run_args(const std::vector<std::string>& args);
// Arguments after `export`.
ExportConfig parse_export_args(const std::vector<std::string>& args);
// Options after `evaluate` or `predict` (`command` is which).
InferConfig parse_infer_args(const std::string& command, const std::vector<std::string>& args);

std::string main_help();
std::string train_help();
std::string run_help();
std::string evaluate_help();
std::string predict_help();
std::string export_help();

}  // namespace nabla::tool
