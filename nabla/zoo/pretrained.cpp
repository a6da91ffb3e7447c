// See pretrained.h. NABLA_MODELS_INSTALL_DIR and NABLA_MODELS_SOURCE_DIR come
// from CMakeLists.txt.
#include "nabla/zoo/pretrained.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "nabla/core/error.h"

namespace nabla::zoo {

std::string pretrained_path(const std::string& name) {
  const std::string file = name + ".safetensors";
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("NABLA_MODELS_DIR"); env && *env) dirs.emplace_back(env);
  dirs.emplace_back(NABLA_MODELS_INSTALL_DIR);
  dirs.emplace_back(NABLA_MODELS_SOURCE_DIR);
  std::string looked;
  for (const std::string& dir : dirs) {
    std::filesystem::path p = std::filesystem::path(dir) / file;
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
    looked += (looked.empty() ? "" : ", ") + p.string();
  }
  fail("zoo::pretrained_path: no pretrained weights '", file, "' in ", looked,
       " (set NABLA_MODELS_DIR to the directory that holds them)");
}

}  // namespace nabla::zoo
