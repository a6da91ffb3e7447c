// libFuzzer target: .npy files, through data::read_npy (a path) and
// data::parse_npy (bytes in memory, as .npz members are read).
#include "fuzz/fuzz_input.h"
#include "nabla/data/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  const std::string path = fuzz::write_input(data, size, ".npy");
  volatile uint64_t keep = 0;
  fuzz::refused_or_read([&] { keep = fuzz::touch(data::read_npy(path)); });
  fuzz::refused_or_read([&] {
    keep = fuzz::touch(data::parse_npy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input"));
  });
  (void)keep;
  return 0;
}
