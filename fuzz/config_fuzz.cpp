// libFuzzer target: the config readers on arbitrary text. The bytes are a
// JSON file (nn::parse_json_config), read as a model config
// (nn::from_config, which builds the layers) and as a training config
// (`nabla train --config`'s parse_train_config: the model, data, optimizer,
// metrics and callbacks, each validated). Only nabla::Error may come out.
// Models are built under a 64 MB MemoryBudgetScope: a valid config of a huge
// layer (Linear(100000, 100000)) is refused with OutOfMemoryError (a
// nabla::Error) instead of reaching libFuzzer's malloc limit.
#include <string>

#include "fuzz/fuzz_input.h"
#include "nabla/core/allocator.h"
#include "nabla/nn/config.h"
#include "nabla/nn/config_reader.h"
#include "train_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  const std::string text(reinterpret_cast<const char*>(data), size);
  MemoryBudgetScope budget(64 << 20, "the config fuzz target");
  nn::Json json;
  bool parsed = false;
  fuzz::refused_or_read([&] {
    json = nn::parse_json_config(text, "fuzz.json");
    parsed = true;
  });
  if (!parsed) return 0;
  fuzz::refused_or_read([&] { nn::from_config(json, "fuzz.json", ""); });
  fuzz::refused_or_read([&] { tool::parse_train_config(json, "fuzz.json", ""); });
  return 0;
}
