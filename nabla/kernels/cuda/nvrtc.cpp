#include "nabla/kernels/cuda/nvrtc.h"

#include <nvrtc.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string_view>
#include <type_traits>

#include "nabla/core/error.h"

namespace nabla::cuda {
namespace {

// Lines of the build log an Error quotes: the first errors say what broke;
// a bad prelude can produce thousands.
constexpr int kLogLines = 40;

void check(nvrtcResult r, const char* api, const std::string& name) {
  if (r != NVRTC_SUCCESS)
    fail("cuda: ", api, " failed with ", nvrtcGetErrorString(r), " (NVRTC, compiling the kernels of ", name, ")");
}

struct ProgramDeleter {
  void operator()(nvrtcProgram p) const { nvrtcDestroyProgram(&p); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

std::string program_log(nvrtcProgram p, const std::string& name) {
  std::size_t n = 0;
  check(nvrtcGetProgramLogSize(p, &n), "nvrtcGetProgramLogSize", name);
  std::string log(n, '\0');
  if (n > 0) check(nvrtcGetProgramLog(p, log.data()), "nvrtcGetProgramLog", name);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// The first kLogLines lines of `log`, and how many were left out.
std::string head(const std::string& log) {
  std::size_t pos = 0;
  int lines = 0;
  while (pos < log.size() && lines < kLogLines) {
    const std::size_t end = log.find('\n', pos);
    pos = end == std::string::npos ? log.size() : end + 1;
    ++lines;
  }
  if (pos >= log.size()) return log;
  int rest = 0;
  for (std::size_t i = pos; i < log.size(); ++i) rest += log[i] == '\n';
  return log.substr(0, pos) + "... (" + std::to_string(rest + 1) + " more lines)";
}

}  // namespace

bool is_valid_arch(const std::string& arch) {
  std::string_view digits;
  if (arch.starts_with("compute_")) digits = std::string_view(arch).substr(8);
  else if (arch.starts_with("sm_")) digits = std::string_view(arch).substr(3);
  else return false;
  if (!digits.empty() && std::isalpha(static_cast<unsigned char>(digits.back()))) digits.remove_suffix(1);
  if (digits.size() < 2 || digits.size() > 3) return false;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool is_cubin_arch(const std::string& arch) { return arch.starts_with("sm_"); }

std::vector<std::string> nvrtc_options(const NvrtcTarget& target) {
  std::vector<std::string> options = {"--gpu-architecture=" + target.arch, "--std=c++17", "--device-as-default-execution-space",
                                      "--fmad=false"};
  if (target.line_info) options.push_back("--generate-line-info");
  return options;
}

std::vector<int> nvrtc_supported_archs() {
  int n = 0;
  check(nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs", "(architecture query)");
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (n > 0) check(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs", "(architecture query)");
  std::sort(archs.begin(), archs.end());
  return archs;
}

std::string arch_for_device(int major, int minor) {
  const std::vector<int> archs = nvrtc_supported_archs();
  const int wanted = major * 10 + minor;
  NABLA_CHECK(!archs.empty() && wanted >= archs.front(), "cuda: a GPU of compute capability ", major, ".", minor,
              " is older than every architecture NVRTC ", nvrtc_version(), " compiles for (the oldest: sm_",
              archs.empty() ? 0 : archs.front(), ")");
  if (std::find(archs.begin(), archs.end(), wanted) != archs.end()) return "sm_" + std::to_string(wanted);
  return "compute_" + std::to_string(archs.back());
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion", "(version query)");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string nvrtc_compile(const std::string& source, const std::string& name, const NvrtcTarget& target,
                          std::string* log) {
  NABLA_CHECK(is_valid_arch(target.arch), "cuda: cannot compile the kernels of ", name, " for architecture \"",
              target.arch, "\": expected compute_XX (PTX) or sm_XX (a cubin), e.g. compute_90 or sm_90");
  nvrtcProgram raw = nullptr;
  const std::string file = name + ".cu";
  check(nvrtcCreateProgram(&raw, source.c_str(), file.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram", name);
  const Program program(raw);
  const std::vector<std::string> options = nvrtc_options(target);
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult result = nvrtcCompileProgram(raw, static_cast<int>(argv.size()), argv.data());
  if (result != NVRTC_SUCCESS) {
    const std::string text = program_log(raw, name);
    fail("cuda: the kernels of ", name, " did not compile for ", target.arch, " (", nvrtcGetErrorString(result),
         "; a bug in nabla, or an NVRTC that does not support ", target.arch, "). NVRTC ", nvrtc_version(),
         " log:\n", head(text));
  }
  if (log) *log = program_log(raw, name);
  std::size_t n = 0;
  std::string image;
  if (is_cubin_arch(target.arch)) {
    check(nvrtcGetCUBINSize(raw, &n), "nvrtcGetCUBINSize", name);
    image.resize(n);
    check(nvrtcGetCUBIN(raw, image.data()), "nvrtcGetCUBIN", name);
  } else {
    check(nvrtcGetPTXSize(raw, &n), "nvrtcGetPTXSize", name);
    image.resize(n);
    check(nvrtcGetPTX(raw, image.data()), "nvrtcGetPTX", name);
    while (!image.empty() && image.back() == '\0') image.pop_back();  // the size counts the NUL
  }
  NABLA_CHECK(!image.empty(), "cuda: NVRTC compiled the kernels of ", name, " for ", target.arch,
              " into an empty image");
  return image;
}

std::string nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch,
                          std::string* log) {
  NvrtcTarget target;
  target.arch = arch;
  return nvrtc_compile(source, name, target, log);
}

}  // namespace nabla::cuda
