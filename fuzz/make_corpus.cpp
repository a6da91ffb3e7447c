// Writes the seed corpus of the fuzz targets: small valid files of every
// reader, made by nabla's own writers where it has one and by hand (the
// formats' documented layouts) where it has none. Run by scripts/fuzz.sh
// --make-corpus; the output is checked in as fuzz/corpus/<target>/.
//
//   fuzz_make_corpus <corpus dir> <tests dir>   (tests dir: numpy-written fixtures)
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/trainee.h"
#include "nabla/nabla.h"
#include "nabla/nn/config_reader.h"

namespace fs = std::filesystem;
using namespace nabla;

namespace {

fs::path corpus;

std::string out(const std::string& target, const std::string& name) {
  fs::create_directories(corpus / target);
  return (corpus / target / name).string();
}

void write_bytes(const std::string& target, const std::string& name, const std::string& bytes) {
  std::ofstream(out(target, name), std::ios::binary) << bytes;
}

std::string gzip(const std::string& bytes) {
  std::vector<Bytef> buf(compressBound(bytes.size()) + 32);
  z_stream s{};
  deflateInit2(&s, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  s.avail_in = static_cast<uInt>(bytes.size());
  s.next_out = buf.data();
  s.avail_out = static_cast<uInt>(buf.size());
  deflate(&s, Z_FINISH);
  deflateEnd(&s);
  return std::string(reinterpret_cast<char*>(buf.data()), s.total_out);
}

Tensor f32(std::vector<float> v, IntList shape) { return from_blob(v.data(), shape, kFloat32).clone(); }

void safetensors() {
  io::save_safetensors(out("safetensors", "f32_i64_meta.safetensors"),
                       {{"w", f32({1, -2, 3.5f, 0, 5, 6}, {2, 3})}, {"idx", arange(0, 3).to(kInt64)}},
                       {{"epoch", "3"}, {"note", "caf\xc3\xa9"}});
  io::save_safetensors(out("safetensors", "f16_bf16_u8_bool.safetensors"),
                       {{"h", ones({2}).to(kFloat16)},
                        {"b", ones({1, 2}).to(kBFloat16)},
                        {"u", arange(0, 4).to(kUInt8)},
                        {"m", ones({2}).to(kBool)}});
  io::save_safetensors(out("safetensors", "empty_and_scalar.safetensors"),
                       {{"e", zeros({0, 3})}, {"s", full({}, 2.0).to(kFloat64)}, {"i", full({1}, 7.0).to(kInt32)}});
}

void checkpoint() {
  fuzz::Trainee t = fuzz::make_trainee();
  io::save_checkpoint(out("checkpoint", "model_only.safetensors"), *t.model);
  Tensor loss = t.model->forward(ones({2, 3})).sum();
  loss.backward();
  t.adam->step();
  t.schedule->step();
  io::save_checkpoint(out("checkpoint", "model_adam.safetensors"), *t.model, t.adam.get(), {{"epoch", "1"}});
  io::save_training_state(out("checkpoint", "training_state.safetensors"), *t.model, *t.adam, t.schedule.get(),
                          {.epoch = 1, .step = 1, .info = {{"best", "0.5"}}});
}

void nbg() {
  using namespace graph;
  {
    Graph g;
    Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
    Tensor w = g.variable(f32({1, 2, 3, 4, 5, 6}, {3, 2}), "w");
    Tensor b = g.variable(zeros({2}), "b", /*trainable=*/false);
    Tensor y = relu(matmul(x, w) + b);
    Tensor s = sum(y, {1}, /*keepdim=*/true);
    g.constant(full({1}, 0.5).to(kFloat64), "half");
    Tensor step = assign_add(b, full({2}, 1.0));
    group({step});
    (void)s;
    save(g, out("nbg", "dense.nbg"));
  }
  {
    Graph g;
    Tensor w = g.variable(f32({0.5f, 0, 0, 0.5f}, {2, 2}), "w");
    Tensor h0 = g.placeholder(kFloat32, {2}, "h0");
    std::vector<Tensor> loop = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 3; },
                                          [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                                            return {v[0] + 1, tanh(matmul(w, v[1].unsqueeze(1)).squeeze(1))};
                                          },
                                          {zeros({}, kInt64), h0});
    Tensor picked = cond(
        sum(loop[1]) > 0.0, [&] { return loop[1] * 2.0; }, [&] { return loop[1] - 1.0; });
    (void)picked;
    Session sess(g);
    sess.run(g.global_variables_initializer());
    sess.save(out("nbg", "while_cond.nbg"));
  }
}

void npy() {
  data::write_npy(out("npy", "f32_2x3.npy"), f32({1, 2, 3, 4, 5, 6}, {2, 3}));
  data::write_npy(out("npy", "i64.npy"), arange(0, 4).to(kInt64));
  data::write_npy(out("npy", "bool.npy"), ones({3}).to(kBool));
  data::write_npy(out("npy", "f16_scalar.npy"), full({}, 1.5).to(kFloat16));
  data::write_npy(out("npy", "u8_empty.npy"), zeros({0, 2}).to(kUInt8));
  // What NumPy writes and nabla does not: big-endian, Fortran order, version 2.0.
  auto npy_file = [](char major, const std::string& dict, const std::string& data) {
    std::string header = dict;
    const size_t prefix = major == 1 ? 10 : 12;
    while ((prefix + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::string f = std::string("\x93NUMPY", 6) + major + '\0';
    const size_t n = header.size();
    f += static_cast<char>(n & 0xff);
    f += static_cast<char>((n >> 8) & 0xff);
    if (major != 1) f += std::string(2, '\0');
    return f + header + data;
  };
  write_bytes("npy", "f8_big_endian_fortran.npy",
              npy_file(1, "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 1), }",
                       std::string("\x3f\xf0\0\0\0\0\0\0\xc0\0\0\0\0\0\0\0", 16)));
  write_bytes("npy", "i4_v2.npy",
              npy_file(2, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", std::string("\7\0\0\0", 4)));
}

void npz(const fs::path& tests) {
  data::write_npz(out("npz", "two_members.npz"), {{"x", f32({1, 2, 3}, {3})}, {"y", arange(0, 2).to(kInt64)}});
  data::write_npz(out("npz", "empty_archive.npz"), {});
  fs::copy_file(tests / "data/fixtures/numpy_savez_compressed.npz", out("npz", "numpy_savez_compressed.npz"),
                fs::copy_options::overwrite_existing);
}

std::string idx_file(uint8_t type, std::vector<uint32_t> dims, const std::string& data) {
  std::string f{'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) f += static_cast<char>((d >> s) & 0xff);
  return f + data;
}

void idx() {
  const std::string u8 = idx_file(0x08, {2, 2, 3}, "abcdefghijkl");
  const std::string i32 = idx_file(0x0C, {2}, std::string("\0\0\1\2\xff\xff\xff\xfe", 8));
  const std::string f32 = idx_file(0x0D, {1}, std::string("\x3f\xc0\0\0", 4));
  const std::string f64 = idx_file(0x0E, {1, 1}, std::string("\xc0\x04\0\0\0\0\0\0", 8));
  const std::string empty = idx_file(0x08, {0, 28, 28}, "");
  write_bytes("idx", "u8_2x2x3", u8);
  write_bytes("idx", "i32", i32);
  write_bytes("idx", "f32", f32);
  write_bytes("idx", "f64", f64);
  write_bytes("idx", "u8_2x2x3.gz", gzip(u8));
  write_bytes("idx", "i32_two_members.gz", gzip(i32.substr(0, 5)) + gzip(i32.substr(5)));
  // idx_gzip: a layout byte (0: one gzip member, n: two, split after n bytes), then the IDX content.
  write_bytes("idx_gzip", "u8_2x2x3", '\0' + u8);
  write_bytes("idx_gzip", "f64_split", '\6' + f64);
  write_bytes("idx_gzip", "empty_split", '\3' + empty);
}

void csv() {
  // The first byte picks the options (csv_fuzz.cpp): bit 0 header, bit 1 float64, bits 2-3 delimiter.
  write_bytes("csv", "plain", std::string(1, 0) + "1,2,3\n4,5.5,-6e2\n");
  write_bytes("csv", "header_f64_crlf", std::string(1, 3) + "a,b\r\n1,2\r\n\r\n-inf,NaN\r\n");
  write_bytes("csv", "semicolon_quoted", std::string(1, 4) + "\"1\"; 2 ;\t+3.\n.5;-0;1E-3\n");
  write_bytes("csv", "tab_header", std::string(1, 9) + "x\ty\nInfinity\t-.25\n");
}

void json() {
  write_bytes("json", "safetensors_header",
              R"({"__metadata__":{"k":"v\u00e9\ud83d\ude00"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}  )");
  write_bytes("json", "nested", R"([[],{},"a\"\\\/\b\f\n\r\t",[1,[9223372036854775807]]])");
  write_bytes("json", "string", R"("caf\u00e9 ☕")");
}

// The config target: the example training configs as they are, the LeNet-5
// model config alone (nn::from_config's input), and the spirals config with
// extra metrics and one callback of each type.
void config(const fs::path& tests_dir) {
  const fs::path examples = tests_dir / ".." / "examples" / "configs";
  for (const char* name : {"fashion_cnn", "lenet5", "mlp_csv"}) {
    std::ifstream in(examples / (std::string(name) + ".json"), std::ios::binary);
    write_bytes("config", name, std::string(std::istreambuf_iterator<char>(in), {}));
  }
  write_bytes("config", "lenet5_model", nn::read_json_config((examples / "lenet5.json").string())["model"].dump(1));
  nn::Json mlp = nn::read_json_config((examples / "mlp_csv.json").string());
  mlp["metrics"] = {"loss", "accuracy", "top_2_accuracy", "f1"};
  mlp["callbacks"] = {{{"type", "early_stopping"}, {"monitor", "val_f1"}, {"patience", 2}, {"min_delta", 0.001}},
                      {{"type", "reduce_lr_on_plateau"}, {"factor", 0.5}, {"patience", 1}},
                      {{"type", "csv_logger"}, {"path", "log.csv"}, {"separator", ";"}},
                      {{"type", "model_checkpoint"}, {"path", "m_{epoch}.safetensors"}, {"save_best_only", true}},
                      {{"type", "tensorboard"}, {"log_dir", "tb"}, {"update_freq", 5}, {"write_graph", false}},
                      {{"type", "terminate_on_nan"}}};
  write_bytes("config", "mlp_csv_callbacks", mlp.dump(1));
  // A valid layer too big for the target's memory budget: OutOfMemoryError.
  write_bytes("config", "huge_linear", R"({"class": "Linear", "in_features": 100000, "out_features": 100000})");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR TESTS_DIR\n", argv[0]);
    return 2;
  }
  corpus = argv[1];
  safetensors();
  checkpoint();
  nbg();
  npy();
  npz(argv[2]);
  idx();
  csv();
  json();
  config(argv[2]);
  return 0;
}
