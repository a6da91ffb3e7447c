// libFuzzer target: training checkpoints. The same bytes go to
// io::load_checkpoint (into a small fixed model with and without its Adam
// optimizer, made afresh for each call so that one input's load cannot change
// the next one's outcome), io::read_training_state and
// io::restore_training_state (with a StepLR schedule).
#include "fuzz/fuzz_input.h"
#include "fuzz/trainee.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  const std::string path = fuzz::write_input(data, size, ".safetensors");
  fuzz::refused_or_read([&] {
    fuzz::Trainee t = fuzz::make_trainee();
    io::load_checkpoint(path, *t.model, t.adam.get());
  });
  fuzz::refused_or_read([&] {
    fuzz::Trainee t = fuzz::make_trainee();
    io::load_checkpoint(path, *t.model);
  });
  fuzz::refused_or_read([&] { io::read_training_state(path); });
  fuzz::refused_or_read([&] {
    fuzz::Trainee t = fuzz::make_trainee();
    io::restore_training_state(path, *t.model, *t.adam, t.schedule.get());
  });
  return 0;
}
