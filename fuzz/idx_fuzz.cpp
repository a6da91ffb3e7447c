// libFuzzer target: data::read_idx on arbitrary bytes (plain IDX, and gzip
// streams when the bytes start with 1f 8b: the seed corpus has both).
#include "fuzz/fuzz_input.h"
#include "nabla/data/idx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  const std::string path = fuzz::write_input(data, size, ".idx");
  fuzz::refused_or_read([&] {
    volatile uint64_t keep = fuzz::touch(data::read_idx(path));
    (void)keep;
  });
  return 0;
}
