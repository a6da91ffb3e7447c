// The `nabla` program: `nabla train`, `nabla evaluate`, `nabla predict`, `nabla run` (docs/train.md) and
// `nabla export` (docs/onnx.md). Exit codes: 0 success, 1 a failure while running (missing dataset, unwritable
// output, ...), 2 a usage mistake (unknown command or option, bad value).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "cli.h"
#ifdef NABLA_TOOL_MPI
#include "nabla/distributed/distributed.h"
#endif
#ifdef NABLA_TOOL_ONNX
#include "export.h"
#endif
#include "infer.h"
#include "run.h"
#include "train.h"
#include "train_config.h"

namespace {

// oneDNN's OpenMP threads busy-wait after every parallel region by default.
// On a machine shared with other work (or with nabla's own pool and the
// DataLoader workers) that spinning takes the cores the next op needs: an
// epoch of the default CNN ran 10x slower on a loaded 2-core machine.
// libgomp reads OMP_WAIT_POLICY once, when it is loaded (before main), so the
// program sets it and starts itself again. OMP_WAIT_POLICY=active (or any
// value set by the user) is left alone.
void use_passive_openmp_threads(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: run on as we are
}

// `nabla train --distributed`: the run over the ranks of mpirun (a world of 1
// without it). Only a build with MPI (NABLA_MPI) links nabla_distributed.
int run_distributed_train(const nabla::tool::TrainConfig& config) {
#ifdef NABLA_TOOL_MPI
  namespace distributed = nabla::distributed;
  distributed::init();
  try {
    nabla::tool::run_train(config, std::cout, isatty(STDOUT_FILENO) != 0,
                           std::make_shared<distributed::FitDataParallel>());
  } catch (const std::exception& e) {
    std::cout << std::flush;
    std::cerr << "error (rank " << distributed::rank() << " of " << distributed::world_size() << "): " << e.what()
              << "\n"
              << std::flush;
    // The other ranks may be waiting in a collective for this one: leaving
    // without MPI_Finalize makes mpirun end them all now, rather than after
    // their timeout (finalize() aborts the job itself after a timeout).
    if (distributed::world_size() > 1) std::_Exit(1);
    distributed::finalize();
    return 1;
  }
  distributed::finalize();
  return 0;
#else
  (void)config;
  std::cerr << "error: nabla train --distributed: this build of nabla has no MPI (nabla_distributed was not built); "
               "install OpenMPI (libopenmpi-dev openmpi-bin) and configure with -DNABLA_MPI=ON\n";
  return 1;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nabla::tool;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "train" || args[0] == "evaluate" || args[0] == "predict"))
    use_passive_openmp_threads(argv);
  Command cmd;
  try {
    cmd = parse_command_line(args);
  } catch (const UsageError& e) {
    const bool known =
        !args.empty() && (args[0] == "train" || args[0] == "run" || args[0] == "evaluate" || args[0] == "predict" ||
                            args[0] == "export");
    std::string sub = known ? args[0] + " " : "";
    std::cerr << e.what() << "\n(see `nabla " << sub << "--help`)\n";
    return 2;
  }
  try {
    switch (cmd.kind) {
      case Command::Kind::Help:
        std::cout << main_help();
        return 0;
      case Command::Kind::Train:
        if (cmd.train.help) {
          std::cout << train_help();
          return 0;
        }
        {
          // With --config the file's settings, validated before anything is loaded.
          TrainConfig config = resolve_train_config(cmd.train);
          if (config.print_config) {
            std::cout << train_config_json(config).dump(2) << "\n";
            return 0;
          }
          if (config.distributed) return run_distributed_train(config);
          run_train(config, std::cout, isatty(STDOUT_FILENO) != 0);
          return 0;
        }
      case Command::Kind::Evaluate:
      case Command::Kind::Predict: {
        const bool evaluate = cmd.kind == Command::Kind::Evaluate;
        if (cmd.infer.help) {
          std::cout << (evaluate ? evaluate_help() : predict_help());
          return 0;
        }
        if (evaluate)
          run_evaluate(cmd.infer, std::cout);
        else
          run_predict(cmd.infer, std::cout);
        return 0;
      }
      case Command::Kind::Run:
        if (cmd.run.help) {
          std::cout << run_help();
          return 0;
        }
        run_graph(cmd.run, std::cout);
        return 0;
      case Command::Kind::Export:
        if (cmd.export_.help) {
          std::cout << export_help();
          return 0;
        }
#ifdef NABLA_TOOL_ONNX
        run_export(cmd.export_, std::cout);
        return 0;
#else
        std::cerr << "error: nabla export --onnx: this build of nabla has no ONNX export (nabla_onnx was not built); "
                     "install libonnx-dev and configure with -DNABLA_ONNX=ON\n";
        return 1;
#endif
    }
  } catch (const std::exception& e) {
    std::cout << std::flush;
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
