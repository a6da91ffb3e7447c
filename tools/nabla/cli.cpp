// Hand-written option parsing for `nabla`: `--name value` or `--name=value`,
// values checked strictly (the whole text must be a number in range), every
// mistake a UsageError that names the option, what was given and what was
// expected.
#include "cli.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <sstream>

#include "nabla/core/device.h"
#include "nabla/core/error.h"

namespace nabla::tool {
namespace {

[[noreturn]] void usage(const std::string& msg) { throw UsageError(msg); }

template <class T>
T parse_number(const std::string& option, const std::string& text, T lo, T hi, const char* expected) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !(value >= lo && value <= hi))
    usage("nabla train: " + option + " got '" + text + "', expected " + expected);
  return value;
}

std::string parse_choice(const std::string& option, const std::string& text, const std::vector<std::string>& choices) {
  for (const auto& c : choices)
    if (text == c) return text;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  usage("nabla train: " + option + " got '" + text + "', expected one of: " + list);
}

// A device name ("cpu", "opencl:1"); whether it is present is checked when
// the command runs (the error then lists the devices present).
std::string parse_device(const std::string& command, const std::string& option, const std::string& text) {
  try {
    return Device(text).str();
  } catch (const Error&) {
    usage(command + ": " + option + " got '" + text + "', expected cpu, opencl[:N] or cuda[:N]");
  }
}

std::string parse_nonempty(const std::string& option, const std::string& text) {
  if (text.empty()) usage("nabla train: " + option + " got an empty value, expected a path");
  return text;
}

// An option as given: "--name=value" is {"--name", "value", true}; anything
// else is {arg, "", false} (its value, if any, is the next argument).
struct OptionArg {
  std::string name, value;
  bool inline_value = false;
};
OptionArg split_option(const std::string& arg) {
  if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos)
    return {arg.substr(0, eq), arg.substr(eq + 1), true};
  return {arg, "", false};
}

// `nabla run` and `nabla export`: --help, one positional argument (the
// model), and options that each take a non-empty value (`--name value` or
// `--name=value`), handed to `take` in the order given. `command` ("nabla
// run") starts every message.
void parse_model_and_options(const std::string& command, const std::vector<std::string>& args,
                             const std::vector<std::string>& options, bool& help, std::string& model,
                             const std::function<void(const std::string& name, const std::string& value)>& take) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      continue;
    }
    if (arg.rfind("-", 0) != 0) {
      if (!model.empty()) usage(command + ": unexpected argument '" + arg + "' (the model is '" + model + "')");
      model = arg;
      continue;
    }
    auto [name, value, inline_value] = split_option(arg);
    if (std::find(options.begin(), options.end(), name) == options.end()) {
      std::string list;
      for (const auto& o : options) list += (list.empty() ? "" : ", ") + o;
      usage(command + ": unknown option '" + name + "' (expected " + list + ")");
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) usage(command + ": " + name + " needs a value");
      value = args[++i];
    }
    if (value.empty()) usage(command + ": " + name + " got an empty value");
    take(name, value);
  }
}

}  // namespace

TrainConfig parse_train_args(const std::vector<std::string>& args) {
  TrainConfig c;
  using Setter = std::function<void(const std::string& option, const std::string& value)>;
  const std::map<std::string, Setter> setters = {
      {"--model",
       [&](auto& o, auto& v) {
         c.model = parse_choice(o, v, {"cnn", "mlp"});
       }},
      {"--epochs", [&](auto& o, auto& v) { c.epochs = parse_number<int>(o, v, 1, 100000, "an integer >= 1"); }},
      {"--batch-size",
       [&](auto& o, auto& v) { c.batch_size = parse_number<int64_t>(o, v, 1, 1 << 20, "an integer >= 1"); }},
      {"--lr", [&](auto& o, auto& v) { c.lr = parse_number<double>(o, v, 1e-300, 1e6, "a number > 0"); }},
      {"--optimizer",
       [&](auto& o, auto& v) {
         c.optimizer = parse_choice(o, v, {"sgd", "adam", "adamw", "rmsprop", "adagrad"});
       }},
      {"--schedule",
       [&](auto& o, auto& v) {
         c.schedule = parse_choice(o, v, {"none", "cosine"});
       }},
      {"--threads", [&](auto& o, auto& v) { c.threads = parse_number<int>(o, v, 0, 4096, "an integer >= 0"); }},
      {"--workers", [&](auto& o, auto& v) { c.workers = parse_number<int>(o, v, 0, 256, "an integer >= 0"); }},
      {"--device", [&](auto& o, auto& v) { c.device = parse_device("nabla train", o, v); }},
      {"--memory-format",
       [&](auto& o, auto& v) {
         c.memory_format = parse_choice(o, v, {"contiguous", "channels_last"});
       }},
      {"--seed",
       [&](auto& o, auto& v) { c.seed = parse_number<uint64_t>(o, v, 0, UINT64_MAX, "a non-negative integer"); }},
      {"--data", [&](auto& o, auto& v) { c.data = parse_nonempty(o, v); }},
      {"--out", [&](auto& o, auto& v) { c.out = parse_nonempty(o, v); }},
      {"--logdir", [&](auto& o, auto& v) { c.logdir = parse_nonempty(o, v); }},
      {"--limit", [&](auto& o, auto& v) { c.limit = parse_number<int64_t>(o, v, 0, INT64_MAX, "an integer >= 0"); }},
      {"--progress",
       [&](auto& o, auto& v) {
         c.progress = parse_choice(o, v, {"auto", "bar", "lines", "none"});
       }},
      {"--config", [&](auto& o, auto& v) { c.config_file = parse_nonempty(o, v); }},
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      c.help = true;
      continue;
    }
    if (arg == "--resume") {
      c.resume = true;
      continue;
    }
    if (arg == "--print-config") {
      c.print_config = true;
      continue;
    }
    if (arg == "--distributed") {
      c.distributed = true;
      continue;
    }
    auto [name, value, inline_value] = split_option(arg);
    if (name == "--distributed")
      usage("nabla train: --distributed takes no value (got '" + value + "'); the ranks come from mpirun");
    if (name == "--resume")
      usage("nabla train: --resume takes no value (got '" + value +
            "'); it resumes from checkpoint.safetensors in --out DIR");
    auto it = setters.find(name);
    if (it == setters.end()) {
      if (arg.rfind("-", 0) == 0) usage("nabla train: unknown option '" + name + "'");
      usage("nabla train: unexpected argument '" + arg + "' (train takes only options)");
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) usage("nabla train: " + name + " needs a value");
      value = args[++i];
    }
    it->second(name, value);
    c.given.insert(name);
  }
  return c;
}

RunConfig parse_run_args(const std::vector<std::string>& args) {
  RunConfig c;
  parse_model_and_options("nabla run", args, {"--feed", "--fetch", "--out", "--device"}, c.help, c.model,
                          [&](const std::string& name, const std::string& value) {
                            if (name == "--feed") {
                              auto eq = value.find('=');
                              if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
                                usage("nabla run: --feed got '" + value + "', expected NAME=FILE.npy");
                              c.feeds.emplace_back(value.substr(0, eq), value.substr(eq + 1));
                            } else if (name == "--fetch") {
                              c.fetches.push_back(value);
                            } else if (name == "--device") {
                              c.device = parse_device("nabla run", name, value);
                            } else {
                              c.outs.push_back(value);
                            }
                          });
  if (c.help) return c;
  if (c.model.empty()) usage("nabla run: expected the saved graph (a .nbg or .onnx file) as the first argument");
  if (c.fetches.empty()) usage("nabla run: expected at least one --fetch NAME");
  auto ends_with = [](const std::string& s, const char* suffix) {
    std::string x(suffix);
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
  };
  const bool one_npz = c.outs.size() == 1 && ends_with(c.outs[0], ".npz");
  if (!c.outs.empty() && !one_npz) {
    if (c.outs.size() != c.fetches.size())
      usage("nabla run: " + std::to_string(c.outs.size()) + " --out for " + std::to_string(c.fetches.size()) +
            " --fetch; give one .npy per fetch (in the same order) or a single .npz");
    for (const std::string& o : c.outs)
      if (!ends_with(o, ".npy"))
        usage("nabla run: --out '" + o + "' must end in .npy (one per fetch) or be a single .npz");
  }
  return c;
}

InferConfig parse_infer_args(const std::string& command, const std::vector<std::string>& args) {
  const std::string name = "nabla " + command;
  const bool predict = command == "predict";
  // train's options that say which model and data; the rest are train's own.
  std::vector<std::string> allowed = {"--config",  "--model",      "--out",    "--device",
                                      "--threads", "--batch-size", "--workers"};
  if (!predict) allowed.insert(allowed.end(), {"--data", "--limit"});
  InferConfig c;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      c.help = true;
      continue;
    }
    std::string option = arg, value;
    bool inline_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      option = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    std::string* own = option == "--checkpoint"          ? &c.checkpoint
                       : predict && option == "--input"  ? &c.input
                       : predict && option == "--output" ? &c.output
                                                         : nullptr;
    if (own) {
      if (!inline_value) {
        if (i + 1 >= args.size()) usage(name + ": " + option + " needs a value");
        value = args[++i];
      }
      if (value.empty()) usage(name + ": " + option + " got an empty value, expected a path");
      *own = value;
      continue;
    }
    if (arg.rfind("-", 0) != 0)
      usage(name + ": unexpected argument '" + arg + "' (" + command + " takes only options)");
    if (std::find(allowed.begin(), allowed.end(), option) == allowed.end()) {
      std::string list = "--checkpoint";
      if (predict) list += ", --input, --output";
      for (const std::string& a : allowed) list += ", " + a;
      usage(name + ": unknown option '" + option + "' (" + command + " takes " + list + ")");
    }
    rest.push_back(arg);
    if (!inline_value && i + 1 < args.size()) rest.push_back(args[++i]);
  }
  try {
    c.train = parse_train_args(rest);
  } catch (const UsageError& e) {  // train's checks of the values, said as this command
    std::string what = e.what();
    const std::string train = "nabla train";
    if (what.rfind(train, 0) == 0) what = name + what.substr(train.size());
    usage(what);
  }
  if (c.help) return c;
  if (predict && c.input.empty()) usage(name + ": expected --input FILE.npy (the inputs)");
  if (predict && c.output.empty()) usage(name + ": expected --output FILE.npy or FILE.npz (where the outputs go)");
  auto ends_with = [](const std::string& s, const std::string& tail) { return s.ends_with(tail); };
  if (predict && !ends_with(c.input, ".npy"))
    usage(name + ": --input '" + c.input + "' must be a .npy file (the inputs, one per row)");
  if (predict && !ends_with(c.output, ".npy") && !ends_with(c.output, ".npz"))
    usage(name + ": --output '" + c.output + "' must end in .npy (the outputs) or .npz (outputs and classes)");
  return c;
}

ExportConfig parse_export_args(const std::vector<std::string>& args) {
  ExportConfig c;
  parse_model_and_options("nabla export", args, {"--onnx", "--fetch"}, c.help, c.model,
                          [&](const std::string& name, const std::string& value) {
                            if (name == "--onnx") {
                              if (!c.onnx.empty())
                                usage("nabla export: --onnx given twice ('" + c.onnx + "' and '" + value + "')");
                              c.onnx = value;
                            } else {
                              c.fetches.push_back(value);
                            }
                          });
  if (c.help) return c;
  if (c.model.empty()) usage("nabla export: expected the saved graph (a .nbg file) as the first argument");
  if (c.onnx.empty()) usage("nabla export: expected --onnx FILE, the ONNX model to write");
  return c;
}

Command parse_command_line(const std::vector<std::string>& args) {
  Command cmd;
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") return cmd;
  if (args[0] == "train") {
    cmd.kind = Command::Kind::Train;
    cmd.train = parse_train_args(std::vector<std::string>(args.begin() + 1, args.end()));
    return cmd;
  }
  if (args[0] == "run") {
    cmd.kind = Command::Kind::Run;
    cmd.run = parse_run_args(std::vector<std::string>(args.begin() + 1, args.end()));
    return cmd;
  }
  if (args[0] == "export") {
    cmd.kind = Command::Kind::Export;
    cmd.export_ = parse_export_args(std::vector<std::string>(args.begin() + 1, args.end()));
    return cmd;
  }
  if (args[0] == "evaluate" || args[0] == "predict") {
    cmd.kind = args[0] == "evaluate" ? Command::Kind::Evaluate : Command::Kind::Predict;
    cmd.infer = parse_infer_args(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
    return cmd;
  }
  if (args[0].rfind("-", 0) == 0) usage("nabla: unknown option '" + args[0] + "'");
  usage("nabla: unknown command '" + args[0] + "' (the commands are: train, evaluate, predict, run, export)");
}

std::string main_help() {
  return "usage: nabla <command> [options]\n"
         "\n"
         "commands:\n"
         "  train     train a model on Fashion-MNIST (nabla train --help)\n"
         "  evaluate  a trained model's loss and accuracy on the test data (nabla evaluate --help)\n"
         "  predict   a trained model's outputs for inputs in a .npy file (nabla predict --help)\n"
         "  run       run a saved graph (.nbg) on .npy inputs (nabla run --help)\n"
         "  export    write a saved graph (.nbg) as an ONNX model (nabla export --help)\n"
         "\n"
         "options:\n"
         "  -h, --help  show this help\n";
}

std::string train_help() {
  TrainConfig d;
  std::ostringstream os;
  os << "usage: nabla train [options]\n"
     << "\n"
     << "Trains a classifier on Fashion-MNIST, evaluates it on the test set after\n"
     << "every epoch and writes a checkpoint (model, optimizer, schedule, random\n"
     << "state, safetensors) after every epoch.\n"
     << "\n"
     << "options (value after a space or '='):\n"
     << "  --model NAME       cnn | mlp (default " << d.model << ")\n"
     << "  --epochs N         passes over the training set (default " << d.epochs << ")\n"
     << "  --batch-size N     samples per step (default " << d.batch_size << ")\n"
     << "  --lr X             learning rate (default " << d.lr << ")\n"
     << "  --optimizer NAME   sgd | adam | adamw | rmsprop | adagrad (default " << d.optimizer << ")\n"
     << "  --schedule NAME    none | cosine: learning rate per step (default " << d.schedule << ")\n"
     << "  --threads N        compute threads, 0 = all cores (default " << d.threads << ")\n"
     << "  --workers N        data loader threads (default " << d.workers << ")\n"
     << "  --device NAME      cpu | opencl[:N] | cuda[:N]: where the model trains (default " << d.device << ")\n"
     << "  --memory-format F  contiguous | channels_last: run the CNN's tensors NCHW or NHWC in memory\n"
     << "                     (CPU; default " << d.memory_format << ")\n"
     << "  --seed N           seed of initialization, shuffling, dropout (default " << d.seed << ")\n"
     << "  --data DIR         the IDX files (default " << d.data << ")\n"
     << "  --out DIR          where checkpoint.safetensors goes (default " << d.out << ")\n"
     << "  --logdir DIR       TensorBoard logs: DIR/train, DIR/validation (default: --out DIR/logs)\n"
     << "  --limit N          use only the first N training and test samples (default: all)\n"
     << "  --progress MODE    auto | bar | lines | none (default auto: a bar on a terminal)\n"
     << "  --resume           continue from the checkpoint in --out (written after every epoch),\n"
     << "                     with the options it was started with (no checkpoint: a new run)\n"
     << "  --distributed      data-parallel over the processes of `mpirun -np N nabla train ...`\n"
     << "                     (--batch-size per process; rank 0 prints and writes; needs a build\n"
     << "                     with MPI; without mpirun a world of 1)\n"
     << "  --config FILE      take the model, data, loss, optimizer, ... from a JSON file\n"
     << "                     (docs/config.md); options given beside it override the file\n"
     << "  --print-config     print the settings (these defaults and any options given) as\n"
     << "                     such a file, and exit\n"
     << "  -h, --help         show this help\n";
  return os.str();
}

std::string evaluate_help() {
  return "usage: nabla evaluate [--config FILE] [--checkpoint FILE] [options]\n"
         "\n"
         "Loads the model of a training run (its config file, or nabla train's defaults)\n"
         "with the weights of a checkpoint and prints its loss and accuracy on the test\n"
         "data (Caffe's `caffe test`).\n"
         "\n"
         "options (value after a space or '='):\n"
         "  --config FILE      the training config (docs/config.md) the model was trained with\n"
         "  --checkpoint FILE  the weights (default: checkpoint.safetensors in the run's --out DIR)\n"
         "  --model, --data, --limit, --out, --device, --threads, --workers, --batch-size\n"
         "                     as for nabla train (over the config file's values)\n"
         "  -h, --help         show this help\n";
}

std::string predict_help() {
  return "usage: nabla predict [--config FILE] [--checkpoint FILE] --input X.npy --output Y.npy|Y.npz\n"
         "\n"
         "Loads the model of a training run with the weights of a checkpoint and writes its\n"
         "outputs for the inputs in X.npy (Caffe's deploy). The inputs are as the data files\n"
         "hold them: for IDX data uint8 images [N, H, W], for .npy/.npz/CSV\n"
         "data rows [N, ...]; the run's transforms (normalize) are applied.\n"
         "\n"
         "options (value after a space or '='):\n"
         "  --config FILE      the training config (docs/config.md) the model was trained with\n"
         "  --checkpoint FILE  the weights (default: checkpoint.safetensors in the run's --out DIR)\n"
         "  --input FILE       the inputs (.npy)\n"
         "  --output FILE      FILE.npy: the outputs [N, classes] (float32); FILE.npz: \"output\"\n"
         "                     and \"class\" (the argmax, int64)\n"
         "  --model, --out, --device, --threads, --workers, --batch-size  as for nabla train\n"
         "  -h, --help         show this help\n";
}

std::string run_help() {
  return "usage: nabla run MODEL.nbg|MODEL.onnx [--feed NAME=FILE.npy]... --fetch NAME... [--out FILE]...\n"
         "\n"
         "Loads a saved graph (graph::save / Session::save) with its variables, or imports\n"
         "an ONNX model (names are its inputs' and outputs' names; it is built for the\n"
         "shapes of the arrays fed), feeds the placeholders from .npy files, runs it once\n"
         "and writes the fetched values.\n"
         "\n"
         "options (value after a space or '='):\n"
         "  --feed NAME=FILE   feed placeholder NAME with the array in FILE (.npy); repeatable\n"
         "  --fetch NAME       a value to compute: a node name, or NAME:K for output K; repeatable\n"
         "  --out FILE         one FILE.npy per --fetch (in order), or a single FILE.npz holding\n"
         "                     every fetch under its name; without --out the values are printed\n"
         "  --device NAME      cpu | opencl[:N] | cuda[:N]: where the graph runs (default cpu)\n"
         "  -h, --help         show this help\n";
}

std::string export_help() {
  return "usage: nabla export MODEL.nbg --onnx FILE.onnx [--fetch NAME]...\n"
         "\n"
         "Writes a saved graph (graph::save / Session::save) as an ONNX model (opset 17)\n"
         "checked by ONNX's checker: placeholders become its inputs (unknown dims as\n"
         "symbolic dims), variables and constants its initializers (saved values), the\n"
         "fetched values its outputs. An op without an ONNX form is an error naming it.\n"
         "\n"
         "options (value after a space or '='):\n"
         "  --onnx FILE    the ONNX file to write (atomically)\n"
         "  --fetch NAME   an output: a node name, or NAME:K for output K; repeatable;\n"
         "                 default: every op value that no node of the graph reads\n"
         "  -h, --help     show this help\n";
}

}  // namespace nabla::tool
