// libFuzzer target: io::load_safetensors on arbitrary bytes.
#include "fuzz/fuzz_input.h"
#include "nabla/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = nabla::fuzz::write_input(data, size, ".safetensors");
  nabla::fuzz::refused_or_read([&] {
    nabla::io::Metadata metadata;
    uint64_t h = 0;
    for (const auto& [name, tensor] : nabla::io::load_safetensors(path, &metadata)) h += nabla::fuzz::touch(tensor);
    volatile uint64_t keep = h;
    (void)keep;
  });
  return 0;
}
