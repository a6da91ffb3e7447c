// Runs the `nabla` binary end to end on a small synthetic Fashion-MNIST-like
// dataset that the test writes as IDX files: output text, exit codes, the
// checkpoint it leaves (which must load into a fresh model and optimizer), and
// --resume after a SIGKILL in the middle of an epoch.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "models.h"
#include "nabla/data/npz.h"
#include "nabla/nabla.h"
#include "nabla/summary/proto/tensorboard.pb.h"
#include "nabla/summary/record_writer.h"
#include "support/file_bytes.h"
#include "support/run_nabla.h"
#include "support/run_program.h"
#include "synthetic_idx.h"
#include "train.h"

namespace nabla::tool {
namespace {

namespace fs = std::filesystem;

using nabla::testing::ProgramRun;

// The `nabla` binary with `args`; out holds stdout and stderr.
using nabla::testing::run_nabla;

// The same, killed with SIGKILL by its test-only hook after optimizer step
// `step` (docs/train.md); out holds what it printed until then.
ProgramRun run_nabla_killed_at(int64_t step, const std::string& args) {
  return nabla::testing::run_program("NABLA_TRAIN_KILL_AT_STEP=" + std::to_string(step) + " " +
                                     std::string(NABLA_TOOLS_DIR) + "/nabla " + args + " 2>&1");
}

// The raw bytes of a tensor loaded from a file (float32, float64 or int64).
std::vector<unsigned char> raw_bytes(const Tensor& t) {
  auto copy = [](const auto& v) {
    std::vector<unsigned char> b(v.size() * sizeof(v[0]));
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  if (t.dtype() == kFloat32) return copy(t.to_vector<float>());
  if (t.dtype() == kFloat64) return copy(t.to_vector<double>());
  if (t.dtype() == kInt64) return copy(t.to_vector<int64_t>());
  ADD_FAILURE() << "unexpected dtype " << t.dtype();
  return {};
}

using nabla::testing::file_bytes;

class NablaTrain : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nabla_train_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "data");
    write_split(dir_ / "data", "train", 256, 1);
    write_split(dir_ / "data", "t10k", 64, 2);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string data() const { return (dir_ / "data").string(); }
  fs::path dir_;
};

TEST_F(NablaTrain, CnnRunsAnEpochPrintsProgressAndWritesALoadableCheckpoint) {
  std::string out = (dir_ / "run").string();
  ProgramRun r =
      run_nabla("train --data " + data() + " --out " + out + " --epochs 1 --batch-size 16 --threads 1 --workers 2");
  ASSERT_EQ(r.code, 0) << r.out;
  // Not a terminal: plain progress lines, no carriage returns.
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("data: 256 training, 64 test images"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 1/1 1/16  loss "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 1/1 16/16  loss "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples/s  ETA "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 1/1: test loss "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("final test accuracy: "), std::string::npos) << r.out;

  const std::string ckpt = out + "/checkpoint.safetensors";
  ASSERT_TRUE(fs::exists(ckpt)) << r.out;
  nn::ModulePtr model = make_model("cnn");
  auto opt = make_optimizer("adam", model->parameters(), 1e-3);
  io::Metadata meta = io::load_checkpoint(ckpt, *model, opt.get());
  EXPECT_EQ(meta.at("model"), "cnn");
  EXPECT_EQ(meta.at("epochs"), "1");
  EXPECT_EQ(opt->state(0, 0).step, 16);  // one step per batch
  EXPECT_TRUE(opt->state(0, 0).buffers.count("exp_avg"));
  // The saved accuracy is the one printed.
  double acc = std::stod(meta.at("test_accuracy"));
  char printed[64];
  std::snprintf(printed, sizeof printed, "final test accuracy: %.2f%%", 100 * acc);
  EXPECT_NE(r.out.find(printed), std::string::npos) << r.out;
}

TEST_F(NablaTrain, MlpLearnsASeparableSyntheticSet) {
  ProgramRun r = run_nabla("train --model mlp --optimizer sgd --lr 0.05 --data " + data() + " --out " +
                           (dir_ / "mlp").string() + " --epochs 4 --batch-size 16 --threads 1 --progress none");
  ASSERT_EQ(r.code, 0) << r.out;
  auto pos = r.out.find("final test accuracy: ");
  ASSERT_NE(pos, std::string::npos) << r.out;
  double acc = std::stod(r.out.substr(pos + 21));
  EXPECT_GE(acc, 90.0) << r.out;
  EXPECT_EQ(r.out.find(" 1/16  loss"), std::string::npos) << "--progress none prints no progress\n" << r.out;
}

// The seed fixes initialization, shuffling and dropout: two runs (with 0 and
// with 2 loader workers) print the same losses and accuracies.
TEST_F(NablaTrain, SameSeedSameResultsForAnyWorkerCount) {
  auto results = [&](int workers, int seed) {
    ProgramRun r = run_nabla("train --data " + data() + " --out " + (dir_ / "det").string() +
                             " --epochs 2 --limit 96 --batch-size 32 --threads 1 --progress none --seed " +
                             std::to_string(seed) + " --workers " + std::to_string(workers));
    EXPECT_EQ(r.code, 0) << r.out;
    std::string kept;  // the per-epoch test lines without their elapsed time
    for (std::size_t p = 0; (p = r.out.find(": test loss ", p)) != std::string::npos; ++p)
      kept += r.out.substr(p, r.out.find(" (", p) - p) + "\n";
    return kept;
  };
  std::string a = results(0, 3);
  EXPECT_NE(a.find("test accuracy"), std::string::npos) << a;
  EXPECT_EQ(results(2, 3), a);
  EXPECT_NE(results(0, 4), a);
}

// --memory-format channels_last trains the CNN channels-last (NHWC
// activations, oneDNN's NHWC convolutions) to the contiguous run's test
// results, up to float32 summation order.
TEST_F(NablaTrain, ChannelsLastTrainsLikeContiguous) {
  auto test_loss = [&](const std::string& format) {
    ProgramRun r = run_nabla("train --data " + data() + " --out " + (dir_ / format).string() +
                             " --epochs 1 --limit 64 --batch-size 32 --threads 1 --workers 0 --progress none "
                             "--memory-format " + format);
    EXPECT_EQ(r.code, 0) << r.out;
    std::size_t p = r.out.find(": test loss ");
    EXPECT_NE(p, std::string::npos) << r.out;
    return p == std::string::npos ? -1.0 : std::stod(r.out.substr(p + 12));
  };
  double contiguous = test_loss("contiguous"), channels_last = test_loss("channels_last");
  EXPECT_GT(contiguous, 0.0);
  EXPECT_NEAR(channels_last, contiguous, 1e-3 * contiguous);
}

TEST_F(NablaTrain, LimitKeepsTheFirstSamples) {
  ProgramRun r = run_nabla("train --model mlp --data " + data() + " --out " + (dir_ / "lim").string() +
                           " --epochs 1 --limit 32 --batch-size 8 --progress none --threads 1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("data: 32 training, 32 test images"), std::string::npos) << r.out;
}

TEST_F(NablaTrain, UnwritableOutputFailsBeforeTraining) {
  std::ofstream(dir_ / "file") << "not a directory";
  const std::string out = (dir_ / "file" / "run").string();
  ProgramRun r = run_nabla("train --model mlp --data " + data() + " --out " + out);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("error: nabla train: cannot create the output directory '" + out + "'"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("epoch 1/"), std::string::npos) << r.out;
}

// Acceptance 5 of issue 13: a CNN run (dropout and BatchNorm, shuffled
// batches, Adam, cosine schedule) killed three times — before the first
// checkpoint, in the middle of epoch 2 and of epoch 3 — and resumed each time
// ends with the uninterrupted run's weights, optimizer state and metadata, to
// the bit; a checkpoint holds every completed epoch.
TEST_F(NablaTrain, ResumeAfterSigkillMidEpochEndsBitIdenticalToAnUninterruptedRun) {
  // 64 images in batches of 16: 4 steps per epoch, 12 in all.
  const std::string common = "train --data " + data() +
                             " --epochs 3 --limit 64 --batch-size 16 --threads 1 --workers 2 --progress none --seed 5";
  const fs::path whole = dir_ / "whole", killed = dir_ / "killed";
  ProgramRun a = run_nabla(common + " --out " + whole.string());
  ASSERT_EQ(a.code, 0) << a.out;

  const std::string resumed_run = common + " --out " + killed.string();
  const fs::path ckpt = killed / "checkpoint.safetensors";
  // Step 2 of epoch 1: no checkpoint yet; --resume then starts anew.
  ProgramRun k1 = run_nabla_killed_at(2, resumed_run);
  EXPECT_NE(k1.code, 0) << k1.out;
  ASSERT_NE(k1.out.find("killing the process at step 2"), std::string::npos) << k1.out;
  EXPECT_FALSE(fs::exists(ckpt));
  ProgramRun k2 = run_nabla_killed_at(6, resumed_run + " --resume");
  EXPECT_NE(k2.code, 0) << k2.out;
  EXPECT_NE(k2.out.find("resume: no checkpoint at " + ckpt.string() + " yet; starting from epoch 1"), std::string::npos)
      << k2.out;
  ASSERT_NE(k2.out.find("killing the process at step 6"), std::string::npos) << k2.out;
  io::TrainingState after1 = io::read_training_state(ckpt.string());
  EXPECT_EQ(after1.epoch, 1);
  EXPECT_EQ(after1.step, 4);
  EXPECT_EQ(after1.info.at("epochs"), "1");
  // Step 11, in epoch 3.
  ProgramRun k3 = run_nabla_killed_at(11, resumed_run + " --resume");
  EXPECT_NE(k3.code, 0) << k3.out;
  EXPECT_NE(k3.out.find("resume: " + ckpt.string() + " after epoch 1/3 (step 4)"), std::string::npos) << k3.out;
  EXPECT_EQ(k3.out.find("epoch 1/3: test loss"), std::string::npos) << k3.out;
  ASSERT_NE(k3.out.find("killing the process at step 11"), std::string::npos) << k3.out;
  io::TrainingState after2 = io::read_training_state(ckpt.string());
  EXPECT_EQ(after2.epoch, 2);
  EXPECT_EQ(after2.step, 8);
  ProgramRun b = run_nabla(resumed_run + " --resume");
  ASSERT_EQ(b.code, 0) << b.out;
  EXPECT_NE(b.out.find("after epoch 2/3 (step 8)"), std::string::npos) << b.out;

  // Every tensor of the two final checkpoints, byte for byte, and the metadata.
  io::Metadata meta_a, meta_b;
  io::TensorDict ta = io::load_safetensors((whole / "checkpoint.safetensors").string(), &meta_a);
  io::TensorDict tb = io::load_safetensors(ckpt.string(), &meta_b);
  ASSERT_EQ(ta.size(), tb.size());
  int model_tensors = 0;
  for (std::size_t i = 0; i < ta.size(); ++i) {
    ASSERT_EQ(ta[i].first, tb[i].first);
    EXPECT_EQ(ta[i].second.dtype(), tb[i].second.dtype()) << ta[i].first;
    EXPECT_EQ(ta[i].second.sizes(), tb[i].second.sizes()) << ta[i].first;
    EXPECT_TRUE(raw_bytes(ta[i].second) == raw_bytes(tb[i].second)) << ta[i].first << " differs";
    model_tensors += ta[i].first.rfind("model.", 0) == 0;
  }
  EXPECT_GE(model_tensors, 10);  // 2 conv, 2 batch norm (with statistics), 2 linear
  EXPECT_EQ(meta_a, meta_b);
  EXPECT_EQ(meta_b.at("training.epoch"), "3");
  EXPECT_EQ(meta_b.at("training.step"), "12");
  // The last epoch's line is the uninterrupted run's (but for the time).
  auto last_epoch = [](const std::string& out) {
    auto p = out.find("epoch 3/3: test loss ");
    return p == std::string::npos ? std::string("(none)") : out.substr(p, out.find(" (", p) - p);
  };
  EXPECT_EQ(last_epoch(b.out), last_epoch(a.out));

  // Resuming a finished run trains nothing and leaves the checkpoint as it was.
  const std::string before = file_bytes(ckpt);
  const auto mtime = fs::last_write_time(ckpt);
  ProgramRun again = run_nabla(resumed_run + " --resume");
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("after epoch 3/3 (step 12); the run is complete, nothing to train"), std::string::npos)
      << again.out;
  EXPECT_EQ(again.out.find("loss "), std::string::npos) << again.out;
  auto final_line = [](const std::string& out) {
    auto p = out.find("final test accuracy: ");
    return p == std::string::npos ? std::string("(none)") : out.substr(p, out.find(" after", p) - p);
  };
  EXPECT_EQ(final_line(again.out), final_line(a.out));
  EXPECT_EQ(file_bytes(ckpt), before);
  EXPECT_EQ(fs::last_write_time(ckpt), mtime);
}

// --resume refuses a checkpoint written with other options, naming the file
// and the option, and changes nothing.
TEST_F(NablaTrain, ResumeRefusesACheckpointOfOtherOptions) {
  const std::string out = (dir_ / "opts").string(), ckpt = out + "/checkpoint.safetensors";
  const std::string common = "train --model mlp --data " + data() + " --out " + out +
                             " --limit 32 --batch-size 16 --threads 1 --progress none --epochs 2";
  ProgramRun first = run_nabla_killed_at(3, common);  // epoch 1 saved, then killed in epoch 2
  ASSERT_NE(first.out.find("killing the process at step 3"), std::string::npos) << first.out;
  const std::string before = file_bytes(ckpt);
  ASSERT_FALSE(before.empty());

  ProgramRun lr = run_nabla(common + " --resume --lr 0.01");
  EXPECT_EQ(lr.code, 1) << lr.out;
  EXPECT_NE(lr.out.find("error: nabla train --resume: '" + ckpt +
                        "' was written by a run with --lr 0.001, this run "
                        "has --lr 0.01"),
            std::string::npos)
      << lr.out;
  ProgramRun epochs = run_nabla(common + " --resume --epochs 3");
  EXPECT_EQ(epochs.code, 1) << epochs.out;
  EXPECT_NE(epochs.out.find("with --epochs 2, this run has --epochs 3"), std::string::npos) << epochs.out;
  ProgramRun threads = run_nabla_killed_at(4, common + " --resume --threads 2");  // allowed, with a note
  EXPECT_NE(threads.out.find("note: the run was started with 1 compute threads, this one has 2"), std::string::npos)
      << threads.out;
  EXPECT_NE(threads.out.find("killing the process at step 4"), std::string::npos) << threads.out;
  ProgramRun model = run_nabla(common + " --resume --model cnn");
  EXPECT_EQ(model.code, 1) << model.out;
  EXPECT_NE(model.out.find("with --model mlp, this run has --model cnn"), std::string::npos) << model.out;
  EXPECT_EQ(file_bytes(ckpt), before);

  // A file that is not a training state: an error, not a silent new run.
  std::ofstream(ckpt, std::ios::binary | std::ios::trunc) << "garbage";
  ProgramRun bad = run_nabla(common + " --resume");
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find(ckpt), std::string::npos) << bad.out;
  EXPECT_EQ(bad.out.find("epoch 1/2"), std::string::npos) << bad.out;
}

// The scalar `tag` of the one event file in `run_dir`, as (step, value) pairs.
std::vector<std::pair<int64_t, float>> scalars(const fs::path& run_dir, const std::string& tag) {
  std::vector<fs::path> files;
  if (fs::is_directory(run_dir))
    for (const auto& e : fs::directory_iterator(run_dir)) files.push_back(e.path());
  EXPECT_EQ(files.size(), 1u) << run_dir;
  std::vector<std::pair<int64_t, float>> points;
  if (files.size() != 1) return points;
  summary::RecordReader r(files[0].string());
  while (auto rec = r.next()) {
    summary::pb::Event e;
    EXPECT_TRUE(e.ParseFromString(*rec));
    for (const auto& v : e.summary().value())
      if (v.tag() == tag) points.push_back({e.step(), v.simple_value()});
  }
  return points;
}

// --logdir (default <out>/logs): Keras's TensorBoard runs, the test set as
// "validation", its values the ones printed and saved.
TEST_F(NablaTrain, WritesTensorBoardLogsWithTheTestValues) {
  const fs::path out = dir_ / "tb";
  ProgramRun r = run_nabla("train --model mlp --data " + data() + " --out " + out.string() +
                           " --epochs 2 --batch-size 32 --threads 1 --progress none");
  ASSERT_EQ(r.code, 0) << r.out;
  io::TrainingState s = io::read_training_state((out / "checkpoint.safetensors").string());
  auto accuracy = scalars(out / "logs" / "validation", "epoch_accuracy");
  ASSERT_EQ(accuracy.size(), 2u);
  EXPECT_EQ(accuracy[1].first, 1);
  EXPECT_EQ(accuracy[1].second, static_cast<float>(std::stod(s.info.at("test_accuracy"))));
  EXPECT_EQ(scalars(out / "logs" / "train", "epoch_loss").size(), 2u);
  auto lr = scalars(out / "logs" / "train", "epoch_learning_rate");
  ASSERT_EQ(lr.size(), 2u);
  EXPECT_LT(lr[1].second, lr[0].second);  // the cosine schedule, stepped per batch

  const fs::path elsewhere = dir_ / "elsewhere";
  ProgramRun r2 = run_nabla("train --model mlp --data " + data() + " --out " + (dir_ / "tb2").string() + " --logdir " +
                            elsewhere.string() + " --epochs 1 --threads 1 --progress none");
  ASSERT_EQ(r2.code, 0) << r2.out;
  EXPECT_EQ(scalars(elsewhere / "validation", "epoch_loss").size(), 1u);
  EXPECT_FALSE(fs::exists(dir_ / "tb2" / "logs"));
}

// `nabla evaluate` gives the test values `nabla train` printed; `nabla
// predict` the classes whose accuracy that is.
TEST_F(NablaTrain, EvaluateAndPredictUseTheTrainedCheckpoint) {
  const std::string out = (dir_ / "infer").string();
  const std::string model = " --model mlp --out " + out + " --threads 1";
  // Trained little (a low lr), so that some test images are still misclassified.
  ProgramRun t =
      run_nabla("train --data " + data() + model + " --epochs 2 --batch-size 64 --lr 0.0003 --progress none");
  ASSERT_EQ(t.code, 0) << t.out;
  auto test_line = [](const std::string& text, const std::string& from) {  // the last one
    auto p = text.rfind(from);
    return p == std::string::npos ? std::string("(none)") : text.substr(p, text.find(" (", p) - p);
  };
  ProgramRun e = run_nabla("evaluate --data " + data() + model);
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(e.out.find("data: 64 test images"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("checkpoint " + out + "/checkpoint.safetensors (epoch 2)"), std::string::npos) << e.out;
  // "test loss 0.1234, test accuracy 95.31%" as in train's last epoch line.
  EXPECT_EQ(test_line(e.out, "test loss "),
            test_line(t.out, "test loss ").substr(0, test_line(e.out, "test loss ").size()))
      << e.out << t.out;
  EXPECT_NE(t.out.find("epoch 2/2: " + test_line(e.out, "test loss ")), std::string::npos) << e.out << t.out;

  // The test images as an .npy of uint8 [64, 28, 28], as the IDX file holds them.
  data::FashionMnist fm = data::load_fashion_mnist(data(), 0);
  std::vector<Tensor> images;
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < fm.test->size(); ++i) {
    data::Example ex = fm.test->get(i);
    images.push_back(ex.data);
    labels.push_back(ex.target.to(kInt64).item<int64_t>());
  }
  const std::string in = (dir_ / "images.npy").string(), npz = (dir_ / "pred.npz").string();
  data::write_npy(in, stack(images, 0));
  ProgramRun p = run_nabla("predict" + model + " --input " + in + " --output " + npz);
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("predict: 64 inputs -> " + npz), std::string::npos) << p.out;
  Tensor output, cls;
  for (auto& [name, v] : data::read_npz(npz)) (name == "output" ? output : cls) = v;
  ASSERT_TRUE(output.defined() && cls.defined());
  EXPECT_EQ(output.size(0), 64);
  EXPECT_EQ(output.size(1), 10);
  int64_t correct = 0;
  std::vector<int64_t> classes = cls.to_vector<int64_t>();
  for (std::size_t i = 0; i < labels.size(); ++i) correct += classes[i] == labels[i];
  char accuracy[64];
  std::snprintf(accuracy, sizeof accuracy, "test accuracy %.2f%%", 100.0 * static_cast<double>(correct) / 64.0);
  EXPECT_NE(e.out.find(accuracy), std::string::npos) << accuracy << "\n" << e.out;
  EXPECT_GT(correct, 0);
  EXPECT_LT(correct, 64) << "the check above means more with some mistakes";
  // The outputs are the checkpoint's model's on the training transform (to
  // float rounding: this process's matrix products may split sums otherwise).
  nn::ModulePtr mlp = make_model("mlp");
  io::load_checkpoint(out + "/checkpoint.safetensors", *mlp);
  mlp->eval();
  std::vector<data::Example> batch;
  for (int64_t i = 0; i < fm.test->size(); ++i) batch.push_back(fm.test->get(i));
  NoGradGuard no_grad;
  Tensor expected = (*mlp)(data::image_collate(0.286f, 0.353f)(batch).data);
  EXPECT_LE((expected - output).abs().max().item<float>(), 1e-5f);
  // An .npy gets the outputs alone, the same values.
  const std::string npy = (dir_ / "pred.npy").string();
  ASSERT_EQ(run_nabla("predict" + model + " --input " + in + " --output " + npy).code, 0);
  EXPECT_TRUE(raw_bytes(data::read_npy(npy)) == raw_bytes(output));
}

TEST_F(NablaTrain, EvaluateAndPredictErrorsNameTheFile) {
  const std::string out = (dir_ / "errs").string();
  ProgramRun none = run_nabla("evaluate --model mlp --data " + data() + " --out " + out);
  EXPECT_EQ(none.code, 1) << none.out;
  EXPECT_NE(none.out.find("error: nabla evaluate: no checkpoint at '" + out +
                          "/checkpoint.safetensors'; nabla train "
                          "writes one"),
            std::string::npos)
      << none.out;
  ASSERT_EQ(
      run_nabla("train --model mlp --data " + data() + " --out " + out + " --epochs 1 --limit 32 --progress none").code,
      0);
  ProgramRun other = run_nabla("evaluate --model cnn --data " + data() + " --out " + out);
  EXPECT_EQ(other.code, 1) << other.out;
  EXPECT_NE(other.out.find("nabla evaluate: the checkpoint '" + out +
                           "/checkpoint.safetensors' does not hold the weights of --model cnn"),
            std::string::npos)
      << other.out;
  EXPECT_NE(other.out.find("missing keys"), std::string::npos) << other.out;

  const std::string bad_shape = (dir_ / "bad.npy").string();
  data::write_npy(bad_shape, zeros({2, 27, 28}, kUInt8));
  ProgramRun shape = run_nabla("predict --model mlp --out " + out + " --input " + bad_shape + " --output " +
                               (dir_ / "y.npy").string());
  EXPECT_EQ(shape.code, 1) << shape.out;
  EXPECT_NE(shape.out.find("nabla predict --input " + bad_shape), std::string::npos) << shape.out;
  EXPECT_FALSE(fs::exists(dir_ / "y.npy"));
  ProgramRun missing = run_nabla("predict --model mlp --out " + out + " --input " + (dir_ / "no.npy").string() +
                                 " --output " + (dir_ / "y.npy").string());
  EXPECT_EQ(missing.code, 1) << missing.out;
  EXPECT_NE(missing.out.find("nabla predict: --input '" + (dir_ / "no.npy").string() + "' does not exist"),
            std::string::npos)
      << missing.out;
  ProgramRun usage = run_nabla("predict --model mlp --input x.npy");
  EXPECT_EQ(usage.code, 2) << usage.out;
  EXPECT_NE(usage.out.find("nabla predict: expected --output"), std::string::npos) << usage.out;
}

TEST(NablaProgram, MissingDatasetSaysHowToInstallIt) {
  ProgramRun r = run_nabla("train --data /nonexistent/fashion --out /tmp/never-written");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("Fashion-MNIST was not found in '/nonexistent/fashion'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("apt-get install dataset-fashion-mnist"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--data DIR"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("/tmp/never-written"));
}

TEST(NablaProgram, AnAbsentDeviceIsAClearErrorBeforeAnythingRuns) {
  ProgramRun r = run_nabla("train --device cuda:0 --data /nonexistent/fashion --out /tmp/never-written-device");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("nabla train --device: device cuda:0 is not available"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the devices present are cpu"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("/tmp/never-written-device"));
  ProgramRun run = run_nabla("run /nonexistent.nbg --fetch y --device opencl:3");
  EXPECT_EQ(run.code, 1) << run.out;
}

TEST(NablaProgram, HelpAndUsageErrors) {
  ProgramRun help = run_nabla("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("usage: nabla <command>"), std::string::npos) << help.out;
  ProgramRun train_help = run_nabla("train --help");
  EXPECT_EQ(train_help.code, 0);
  EXPECT_NE(train_help.out.find("--batch-size"), std::string::npos) << train_help.out;

  ProgramRun unknown = run_nabla("fit");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.out.find("unknown command 'fit'"), std::string::npos) << unknown.out;
  ProgramRun bad = run_nabla("train --epochs zero");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("--epochs got 'zero'"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("nabla train --help"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace nabla::tool
