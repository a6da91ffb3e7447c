// libFuzzer target: data::read_csv. The input's first byte picks the options
// (bit 0: header, bit 1: float64, bits 2-3: delimiter , ; tab or space), the
// rest is the file.
#include "fuzz/fuzz_input.h"
#include "nabla/data/csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  if (size == 0) return 0;
  static const char delimiters[4] = {',', ';', '\t', ' '};
  data::CsvOptions options;
  options.header = data[0] & 1;
  options.dtype = data[0] & 2 ? kFloat64 : kFloat32;
  options.delimiter = delimiters[(data[0] >> 2) & 3];
  const std::string path = fuzz::write_input(data + 1, size - 1, ".csv");
  fuzz::refused_or_read([&] {
    std::vector<std::string> names;
    const Tensor t = data::read_csv(path, options, &names);
    volatile uint64_t keep = fuzz::touch(t);
    (void)keep;
    if (t.dim() != 2 || (options.header && names.size() != static_cast<size_t>(t.size(1)))) {
      std::fprintf(stderr, "read_csv: a %lld-D tensor with %zu column names\n", static_cast<long long>(t.dim()),
                   names.size());
      std::abort();
    }
  });
  return 0;
}
