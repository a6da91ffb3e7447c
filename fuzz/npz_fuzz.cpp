// libFuzzer target: data::read_npz on arbitrary bytes.
#include "fuzz/fuzz_input.h"
#include "nabla/data/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  const std::string path = fuzz::write_input(data, size, ".npz");
  fuzz::refused_or_read([&] {
    uint64_t h = 0;
    for (const auto& [name, array] : data::read_npz(path)) h += fuzz::touch(array);
    volatile uint64_t keep = h;
    (void)keep;
  });
  return 0;
}
