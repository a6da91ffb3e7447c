// See pretrained.h. NABLA_MODELS_FROM_LIBDIR (the installed models directory
// relative to the installed library's) and NABLA_MODELS_SOURCE_DIR come from
// CMakeLists.txt.
#include "nabla/zoo/pretrained.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "nabla/core/error.h"

namespace nabla::zoo {

namespace {

// Where the library that holds this function is, so that an installed nabla
// finds its models under any prefix (cmake --install --prefix).
std::filesystem::path library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&pretrained_path), &info) == 0 || info.dli_fname == nullptr) return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

}  // namespace

std::string pretrained_path(const std::string& name) {
  const std::string file = name + ".safetensors";
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("NABLA_MODELS_DIR"); env && *env) dirs.emplace_back(env);
  if (std::filesystem::path lib = library_dir(); !lib.empty())
    dirs.push_back((lib / NABLA_MODELS_FROM_LIBDIR).lexically_normal().string());
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
