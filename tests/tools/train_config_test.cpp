// `nabla train --config FILE` / `--print-config` (tools/nabla/train_config.h,
// docs/config.md): malformed training configs fail with the file and field
// path; the printed defaults read back into the same settings and, fed to
// --config, train bit-identical weights; every example config in
// examples/configs trains from the command line with no code.
#include "train_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "nabla/nabla.h"
#include "support/run_nabla.h"
#include "support/run_program.h"
#include "train.h"

namespace nabla::tool {
namespace {

namespace fs = std::filesystem;
using nabla::testing::ProgramRun;
using nn::Json;

using nabla::testing::run_nabla;

fs::path examples_dir() { return fs::path(NABLA_SOURCE_DIR) / "examples" / "configs"; }

Json example(const std::string& name) { return nn::read_json_config((examples_dir() / name).string()); }

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("nabla_train_config_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

double final_accuracy(const std::string& out) {
  const std::string tag = "final test accuracy: ";
  const std::size_t at = out.find(tag);
  return at == std::string::npos ? -1.0 : std::atof(out.c_str() + at + tag.size());
}

TEST(TrainConfig, ExampleConfigsParse) {
  for (const char* name : {"fashion_cnn.json", "lenet5.json", "mlp_csv.json"}) {
    SCOPED_TRACE(name);
    TrainConfig c = read_train_config((examples_dir() / name).string());
    EXPECT_FALSE(c.model_config.empty());
    EXPECT_FALSE(c.input_shape.empty());
  }
  TrainConfig mlp = read_train_config((examples_dir() / "mlp_csv.json").string());
  EXPECT_EQ(mlp.data_spec.format, "csv");
  EXPECT_TRUE(fs::path(mlp.data_spec.train).is_absolute()) << mlp.data_spec.train;  // relative to the file
  EXPECT_TRUE(fs::exists(mlp.data_spec.train)) << mlp.data_spec.train;
  TrainConfig lenet = read_train_config((examples_dir() / "lenet5.json").string());
  EXPECT_EQ(lenet.optimizer, "sgd");
  EXPECT_EQ(lenet.optimizer_options.at("momentum"), 0.9);
}

// examples/configs/fashion_cnn.json is `nabla train`'s defaults: it stays in
// step with --print-config.
TEST(TrainConfig, DefaultCnnExampleIsThePrintedDefaults) {
  Json printed = train_config_json(TrainConfig{});
  Json file = example("fashion_cnn.json");
  file.erase("input_shape");
  EXPECT_EQ(printed, file) << printed.dump(2);
  // And the printed config reads back into the same settings.
  TrainConfig back = parse_train_config(printed, "printed.json");
  EXPECT_EQ(train_config_json(back), printed);
}

TEST(TrainConfig, CommandLineOptionsOverrideTheFile) {
  TrainConfig cli = parse_train_args(
      {"--config", (examples_dir() / "lenet5.json").string(), "--epochs", "2", "--limit", "100", "--lr", "0.5"});
  TrainConfig c = resolve_train_config(cli);
  EXPECT_EQ(c.epochs, 2);
  EXPECT_EQ(c.limit, 100);
  EXPECT_EQ(c.lr, 0.5);
  EXPECT_EQ(c.batch_size, 64);  // from the file
  EXPECT_EQ(c.optimizer, "sgd");
}

// "memory_format" (optional; default contiguous, printed only when not),
// and --memory-format over it.
TEST(TrainConfig, MemoryFormatIsReadPrintedAndOverridden) {
  Json j = example("lenet5.json");
  EXPECT_EQ(parse_train_config(j, "e.json").memory_format, "contiguous");
  EXPECT_FALSE(train_config_json(parse_train_config(j, "e.json")).contains("memory_format"));
  j["memory_format"] = "channels_last";
  TrainConfig c = parse_train_config(j, "e.json");
  EXPECT_EQ(c.memory_format, "channels_last");
  EXPECT_EQ(train_config_json(c)["memory_format"], "channels_last");
  TrainConfig cli =
      parse_train_args({"--config", (examples_dir() / "lenet5.json").string(), "--memory-format", "channels_last"});
  EXPECT_EQ(resolve_train_config(cli).memory_format, "channels_last");
  j["memory_format"] = "nhwc";
  try {
    parse_train_config(j, "e.json");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("memory_format"), std::string::npos) << e.what();
  }
}

// "logdir" (optional; default <output_dir>/logs), and --logdir over it.
TEST(TrainConfig, LogdirIsReadPrintedAndOverridden) {
  Json j = example("lenet5.json");
  EXPECT_EQ(parse_train_config(j, "e.json").logdir, "");
  EXPECT_EQ(logdir(parse_train_config(j, "e.json")), parse_train_config(j, "e.json").out + "/logs");
  EXPECT_FALSE(train_config_json(parse_train_config(j, "e.json")).contains("logdir"));
  j["logdir"] = "tb/lenet";
  TrainConfig c = parse_train_config(j, "e.json");
  EXPECT_EQ(c.logdir, "tb/lenet");
  EXPECT_EQ(logdir(c), "tb/lenet");
  EXPECT_EQ(train_config_json(c)["logdir"], "tb/lenet");
  TrainConfig cli = parse_train_args({"--config", (examples_dir() / "lenet5.json").string(), "--logdir", "other"});
  EXPECT_EQ(resolve_train_config(cli).logdir, "other");
}

struct BadTrainConfig {
  const char* name;
  std::function<void(Json&)> edit;  // applied to examples/configs/lenet5.json
  const char* field;
  const char* expected;
};

TEST(TrainConfig, MalformedTrainingConfigsNameFileAndField) {
  const std::vector<BadTrainConfig> table = {
      {"missing_model", [](Json& j) { j.erase("model"); }, "the top level", "missing the required field 'model'"},
      {"model_unknown_name", [](Json& j) { j["model"] = "resnet"; }, "model", "one of \"cnn\", \"mlp\""},
      {"model_bad_layer", [](Json& j) { j["model"]["layers"][3]["out_channels"] = 0; }, "model.layers[3].out_channels",
       "expected an integer >= 1"},
      {"model_shape_mismatch", [](Json& j) { j["model"]["layers"][7]["in_features"] = 256; },
       "model.layers[7] (Linear) cannot take the output of model.layers[6] (Flatten), shape [N, 400]",
       "its in_features is 256"},
      {"input_shape_negative",
       [](Json& j) {
         j["input_shape"] = {1, -28, 28};
       },
       "input_shape", "an integer >= 1"},
      {"missing_data", [](Json& j) { j.erase("data"); }, "the top level", "missing the required field 'data'"},
      {"data_bad_format", [](Json& j) { j["data"]["format"] = "parquet"; }, "data.format",
       "one of \"idx\", \"npz\", \"npy\", \"csv\""},
      {"data_csv_without_train",
       [](Json& j) {
         j["data"] = {{"format", "csv"}, {"test", "t.csv"}};
       },
       "data", "missing the required field 'train'"},
      {"data_unknown_transform", [](Json& j) { j["data"]["transforms"][0]["name"] = "flip"; },
       "data.transforms[0].name", "one of \"normalize\""},
      {"data_std_zero", [](Json& j) { j["data"]["transforms"][0]["std"] = 0; }, "data.transforms[0].std",
       "expected a number > 0"},
      {"data_unknown_field", [](Json& j) { j["data"]["shuffle"] = true; }, "data.shuffle", "unknown field of data"},
      {"bad_loss", [](Json& j) { j["loss"] = "mse"; }, "loss", "one of \"cross_entropy\""},
      {"bad_metric",
       [](Json& j) {
         j["metrics"] = {"loss", "auc"};
       },
       "metrics[1]", "got \"auc\", expected a metric name: \"loss\", \"accuracy\", \"top_K_accuracy\""},
      {"metric_top_0", [](Json& j) { j["metrics"] = {"top_0_accuracy"}; }, "metrics[0]", "got \"top_0_accuracy\""},
      {"metric_twice", [](Json& j) { j["metrics"] = {"f1", "f1"}; }, "metrics[1]", "\"f1\" is listed twice"},
      {"metrics_not_array", [](Json& j) { j["metrics"] = "f1"; }, "metrics", "expected an array of metric names"},
      {"callbacks_not_array", [](Json& j) { j["callbacks"] = {{"type", "csv_logger"}}; }, "callbacks",
       "expected an array of callback objects"},
      {"callback_not_object", [](Json& j) { j["callbacks"] = {"early_stopping"}; }, "callbacks[0]",
       "a callback object"},
      {"callback_unknown_type", [](Json& j) { j["callbacks"] = {{{"type", "lambda"}}}; }, "callbacks[0].type",
       "one of \"early_stopping\", \"reduce_lr_on_plateau\", \"csv_logger\", \"model_checkpoint\", \"tensorboard\", "
       "\"terminate_on_nan\""},
      {"callback_missing_type", [](Json& j) { j["callbacks"] = {{{"patience", 2}}}; }, "callbacks[0]",
       "missing the required field 'type'"},
      {"callback_negative_patience",
       [](Json& j) {
         j["callbacks"] = {{{"type", "csv_logger"}, {"path", "log.csv"}}, {{"type", "early_stopping"}, {"patience", -1}}};
       },
       "callbacks[1].patience", "got -1"},
      {"callback_patience_string",
       [](Json& j) {
         j["callbacks"] = {{{"type", "early_stopping"}, {"patience", "3"}}};
       },
       "callbacks[0].patience", "got \"3\" (a string)"},
      {"callback_monitor_not_in_logs",
       [](Json& j) {
         j["callbacks"] = {{{"type", "model_checkpoint"}, {"path", "best.safetensors"}, {"monitor", "val_f1"}}};
       },
       "callbacks[0].monitor", "\"val_loss\", \"val_accuracy\", \"lr\""},
      {"callback_bad_mode",
       [](Json& j) {
         j["callbacks"] = {{{"type", "early_stopping"}, {"mode", "lowest"}}};
       },
       "callbacks[0].mode", "one of \"auto\", \"min\", \"max\""},
      {"callback_unknown_field",
       [](Json& j) {
         j["callbacks"] = {{{"type", "early_stopping"}, {"patients", 3}}};
       },
       "callbacks[0].patients", "unknown field of early_stopping"},
      {"csv_logger_without_path", [](Json& j) { j["callbacks"] = {{{"type", "csv_logger"}}}; }, "callbacks[0]",
       "missing the required field 'path'"},
      {"csv_logger_long_separator",
       [](Json& j) {
         j["callbacks"] = {{{"type", "csv_logger"}, {"path", "a.csv"}, {"separator", ";;"}}};
       },
       "callbacks[0].separator", "one character"},
      {"plateau_with_cosine",
       [](Json& j) {
         j["callbacks"] = {{{"type", "reduce_lr_on_plateau"}}};
       },
       "callbacks[0]", "cannot be used with \"schedule\": \"cosine\""},
      {"plateau_factor_one",
       [](Json& j) {
         j["schedule"] = "none";
         j["callbacks"] = {{{"type", "reduce_lr_on_plateau"}, {"factor", 1.0}}};
       },
       "callbacks[0].factor", "a number in (0, 1)"},
      {"tensorboard_without_log_dir", [](Json& j) { j["callbacks"] = {{{"type", "tensorboard"}}}; }, "callbacks[0]",
       "missing the required field 'log_dir'"},
      {"tensorboard_negative_histogram_freq",
       [](Json& j) {
         j["callbacks"] = {{{"type", "tensorboard"}, {"log_dir", "tb"}, {"histogram_freq", -2}}};
       },
       "callbacks[0].histogram_freq", "got -2"},
      {"tensorboard_write_graph_number",
       [](Json& j) {
         j["callbacks"] = {{{"type", "tensorboard"}, {"log_dir", "tb"}, {"write_graph", 1}}};
       },
       "callbacks[0].write_graph", "got 1 (an integer)"},
      {"unknown_optimizer", [](Json& j) { j["optimizer"]["name"] = "lamb"; }, "optimizer.name",
       "one of \"sgd\", \"adam\""},
      {"negative_lr", [](Json& j) { j["optimizer"]["lr"] = -0.1; }, "optimizer.lr", "got -0.1"},
      {"optimizer_option_of_another", [](Json& j) { j["optimizer"]["beta1"] = 0.9; }, "optimizer.beta1",
       "unknown field of optimizer sgd; allowed: dampening, lr, momentum, name, nesterov, weight_decay"},
      {"optimizer_refuses_value",
       [](Json& j) {
         j["optimizer"] = {{"name", "adam"}, {"lr", 1e-3}, {"beta1", 1.5}};
       },
       "optimizer", "Adam: invalid beta1 = 1.5"},
      {"bad_schedule", [](Json& j) { j["schedule"] = "step"; }, "schedule", "one of \"none\", \"cosine\""},
      {"zero_epochs", [](Json& j) { j["epochs"] = 0; }, "epochs",
       "got 0 (an integer), expected an integer in [1, 100000]"},
      {"batch_size_string", [](Json& j) { j["batch_size"] = "64"; }, "batch_size", "got \"64\" (a string)"},
      {"bad_device", [](Json& j) { j["device"] = "tpu"; }, "device", "\"cpu\", \"opencl[:N]\" or \"cuda[:N]\""},
      {"missing_output_dir", [](Json& j) { j.erase("output_dir"); }, "the top level",
       "missing the required field 'output_dir'"},
      {"logdir_number", [](Json& j) { j["logdir"] = 3; }, "logdir", "got 3 (an integer)"},
      {"unknown_top_level_field", [](Json& j) { j["callback"] = Json::array(); }, "callback",
       "unknown field of the training config"},
  };
  for (const BadTrainConfig& t : table) {
    SCOPED_TRACE(t.name);
    Json j = example("lenet5.json");
    t.edit(j);
    std::string message;
    try {
      parse_train_config(j, "experiment.json");
    } catch (const Error& e) {
      message = e.what();
    }
    ASSERT_FALSE(message.empty());
    EXPECT_EQ(message.rfind("experiment.json: ", 0), 0u) << message;
    EXPECT_NE(message.find(t.field), std::string::npos) << message;
    EXPECT_NE(message.find(t.expected), std::string::npos) << message;
  }
}

// examples/configs/mlp_csv.json with absolute data paths, to be written anywhere.
Json spirals_config() {
  Json j = example("mlp_csv.json");
  for (const char* split : {"train", "test"})
    j["data"][split] = (examples_dir() / j["data"][split].get<std::string>()).string();
  return j;
}

// "metrics" beyond loss and accuracy and "callbacks" are read, printed back
// as given, and a config without them prints neither callbacks nor extra metrics.
TEST(TrainConfig, MetricsAndCallbacksAreReadAndPrinted) {
  Json j = spirals_config();
  EXPECT_TRUE(parse_train_config(j, "e.json").metrics.empty());
  EXPECT_FALSE(train_config_json(parse_train_config(j, "e.json")).contains("callbacks"));
  j["metrics"] = {"loss", "accuracy", "top_2_accuracy", "f1"};
  j["callbacks"] = {{{"type", "early_stopping"}, {"monitor", "val_f1"}, {"patience", 2}},
                    {{"type", "reduce_lr_on_plateau"}, {"monitor", "val_loss"}, {"factor", 0.5}},
                    {{"type", "csv_logger"}, {"path", "log.csv"}},
                    {{"type", "model_checkpoint"}, {"path", "best.safetensors"}, {"save_best_only", true}},
                    {{"type", "tensorboard"}, {"log_dir", "tb"}, {"write_graph", false}},
                    {{"type", "terminate_on_nan"}}};
  TrainConfig c = parse_train_config(j, "e.json");
  EXPECT_EQ(c.metrics, (std::vector<std::string>{"top_2_accuracy", "f1"}));
  Json printed = train_config_json(c);
  EXPECT_EQ(printed["metrics"], j["metrics"]);
  EXPECT_EQ(printed["callbacks"], j["callbacks"]);
  EXPECT_EQ(train_config_json(parse_train_config(printed, "printed.json")), printed);
  // --schedule cosine beside the file turns reduce_lr_on_plateau into an error when training starts.
  fs::path dir = temp_dir("plateau_cosine");
  std::ofstream(dir / "c.json") << j.dump(2);
  ProgramRun r = run_nabla("train --config " + (dir / "c.json").string() + " --schedule cosine --out " +
                           (dir / "out").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("c.json: callbacks[1]: reduce_lr_on_plateau cannot be used with \"schedule\": \"cosine\""),
            std::string::npos)
      << r.out;
  fs::remove_all(dir);
}

// The config's callbacks run inside nabla train: the CSV log has a row per
// epoch with the extra metric, early stopping ends the run early, the model
// checkpoint is written; the printed output is nabla train's usual.
TEST(TrainConfig, ConfigCallbacksRunInsideNablaTrain) {
  fs::path dir = temp_dir("callbacks");
  Json j = spirals_config();
  j["epochs"] = 30;
  j["metrics"] = {"loss", "accuracy", "top_2_accuracy"};
  // lr 0 never improves val_loss after the first epoch: patience 2 stops after epoch 3.
  j["optimizer"] = {{"name", "sgd"}, {"lr", 1e-12}};
  j["callbacks"] = {{{"type", "csv_logger"}, {"path", (dir / "log.csv").string()}},
                    {{"type", "early_stopping"}, {"monitor", "val_loss"}, {"patience", 2}, {"min_delta", 1e-3}},
                    {{"type", "model_checkpoint"}, {"path", (dir / "model_{epoch}.safetensors").string()}}};
  std::ofstream(dir / "c.json") << j.dump(2);
  ProgramRun r = run_nabla("train --config " + (dir / "c.json").string() + " --progress none --workers 0 --out " +
                           (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream csv(dir / "log.csv");
  std::string header, row;
  std::getline(csv, header);
  EXPECT_EQ(header, "epoch,accuracy,loss,lr,top_2_accuracy,val_accuracy,val_loss,val_top_2_accuracy");
  int rows = 0;
  while (std::getline(csv, row)) ++rows;
  EXPECT_EQ(rows, 3) << r.out;
  EXPECT_TRUE(fs::exists(dir / "model_3.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "model_4.safetensors"));
  EXPECT_NE(r.out.find("epoch 3/30: test loss"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("epoch 4/30"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// Through the program: a bad file is exit code 1 with the message on stderr.
TEST(TrainConfig, CliReportsBadConfigs) {
  fs::path dir = temp_dir("bad");
  std::ofstream(dir / "broken.json") << "{\"model\": \"cnn\",";
  ProgramRun r = run_nabla("train --config " + (dir / "broken.json").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("error: " + (dir / "broken.json").string() + ": not valid JSON"), std::string::npos) << r.out;
  ProgramRun missing = run_nabla("train --config " + (dir / "none.json").string());
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.out.find("none.json: cannot open the config file"), std::string::npos) << missing.out;
  fs::remove_all(dir);
}

// The printed defaults fed back through --config train bit-identical weights.
TEST(TrainConfig, PrintedDefaultsTrainIdentically) {
  fs::path dir = temp_dir("identical");
  const std::string opts = " --limit 256 --epochs 1 --progress none --workers 0 --threads 1";
  ProgramRun plain = run_nabla("train" + opts + " --out " + (dir / "plain").string());
  ASSERT_EQ(plain.code, 0) << plain.out;
  ProgramRun print = run_nabla("train" + opts + " --out " + (dir / "config").string() + " --print-config");
  ASSERT_EQ(print.code, 0) << print.out;
  std::ofstream(dir / "printed.json") << print.out;
  ProgramRun fed = run_nabla("train --config " + (dir / "printed.json").string());
  ASSERT_EQ(fed.code, 0) << fed.out;
  EXPECT_EQ(final_accuracy(plain.out), final_accuracy(fed.out));
  auto a = io::load_safetensors((dir / "plain" / "checkpoint.safetensors").string());
  auto b = io::load_safetensors((dir / "config" / "checkpoint.safetensors").string());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(a[i].second.equal(b[i].second)) << a[i].first;
  }
  fs::remove_all(dir);
}

// Every example config trains from the command line (briefly).
TEST(TrainConfig, ExampleConfigsTrainFromTheCommandLine) {
  fs::path dir = temp_dir("examples");
  for (const char* name : {"fashion_cnn.json", "lenet5.json"}) {
    SCOPED_TRACE(name);
    ProgramRun r = run_nabla("train --config " + (examples_dir() / name).string() +
                             " --limit 512 --epochs 1 --progress none --workers 0 --out " + (dir / name).string());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_GT(final_accuracy(r.out), 20.0) << r.out;  // 10 classes: chance is 10%
    EXPECT_TRUE(fs::exists(dir / name / "checkpoint.safetensors"));
  }
  // The CSV MLP trains fully (600 points, a second): the spirals need a nonlinear model.
  ProgramRun mlp = run_nabla("train --config " + (examples_dir() / "mlp_csv.json").string() +
                             " --progress none --workers 0 --out " + (dir / "mlp").string());
  ASSERT_EQ(mlp.code, 0) << mlp.out;
  EXPECT_NE(mlp.out.find("data: 600 training, 300 test samples"), std::string::npos) << mlp.out;
  EXPECT_GT(final_accuracy(mlp.out), 90.0) << mlp.out;
  fs::remove_all(dir);
}

// The .npz and .npy formats: the spirals of examples/configs/data, written as
// arrays by the test, train the example MLP as the CSV file does.
TEST(TrainConfig, NpzAndNpyDataTrain) {
  fs::path dir = temp_dir("arrays");
  for (const char* split : {"train", "test"}) {
    Tensor table = data::read_csv((examples_dir() / "data" / (std::string("spirals_") + split + ".csv")).string(),
                                  {.header = true});
    Tensor x = table.narrow(1, 0, 2).contiguous(), y = table.select(1, 2).to(kInt64);
    data::write_npz((dir / (std::string(split) + ".npz")).string(), {{"points", x}, {"arm", y}});
    data::write_npy((dir / (std::string(split) + "_x.npy")).string(), x);
    data::write_npy((dir / (std::string(split) + "_y.npy")).string(), y.to(kFloat64));  // whole numbers in floats
  }
  Json base = example("mlp_csv.json");
  Json npz = base, npy = base;
  npz["data"] = {{"format", "npz"}, {"train", "train.npz"}, {"test", "test.npz"}, {"x", "points"}, {"y", "arm"}};
  npy["data"] = {{"format", "npy"},
                 {"train", "train_x.npy"},
                 {"test", "test_x.npy"},
                 {"train_targets", "train_y.npy"},
                 {"test_targets", "test_y.npy"},
                 {"transforms", {{{"name", "normalize"}, {"mean", 0.0}, {"std", 0.5}}}}};
  for (auto& [name, config] : {std::pair<std::string, Json>{"npz", npz}, {"npy", npy}}) {
    SCOPED_TRACE(name);
    std::ofstream(dir / (name + ".json")) << config.dump(2);
    ProgramRun r = run_nabla("train --config " + (dir / (name + ".json")).string() +
                             " --progress none --workers 0 --out " + (dir / ("out_" + name)).string());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("data: 600 training, 300 test samples"), std::string::npos) << r.out;
    EXPECT_GT(final_accuracy(r.out), 90.0) << r.out;
  }
  // A class index that is not a whole number is refused, naming the file and row.
  data::write_npy((dir / "bad_y.npy").string(), tensor(std::vector<double>{0.0, 1.5}));
  data::write_npy((dir / "bad_x.npy").string(), zeros({2, 2}));
  npy["data"]["train"] = "bad_x.npy";
  npy["data"]["train_targets"] = "bad_y.npy";
  std::ofstream(dir / "bad.json") << npy.dump(2);
  ProgramRun bad = run_nabla("train --config " + (dir / "bad.json").string() + " --out " + (dir / "x").string());
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("bad_y.npy' row 1: the class index must be a whole number >= 0, got 1.5"), std::string::npos)
      << bad.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nabla::tool
