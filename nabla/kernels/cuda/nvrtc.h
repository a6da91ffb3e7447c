// Compiling CUDA C++ at run time with NVRTC (libnvrtc, which needs no driver
// and no GPU: the compile test runs on any machine with the toolkit). The
// result is the image a CUmodule loads (cuModuleLoadData): PTX for a virtual
// architecture ("compute_90", JIT-compiled by the driver for its GPU), or a
// cubin for a real one ("sm_90", loaded as is, no JIT at load time).
// Loading it is the runtime's job; nothing here needs libcuda.
#pragma once
#include <string>
#include <vector>

namespace nabla::cuda {

// What to compile for. arch: "compute_XX" (PTX) or "sm_XX" (cubin), with an
// optional suffix letter ("sm_90a"); the runtime passes its GPU's.
struct NvrtcTarget {
  std::string arch = "compute_90";
  bool line_info = false;  // -lineinfo: source lines in profiles (compute-sanitizer, Nsight)
};

// Whether `arch` names an architecture in the form above (NVRTC decides
// whether it supports it).
bool is_valid_arch(const std::string& arch);
// Whether nvrtc_compile(…, arch) returns a cubin rather than PTX.
bool is_cubin_arch(const std::string& arch);

// The options nvrtc_compile passes: the architecture, C++17, every function
// a device function, and no contraction into fused multiply-adds
// (--fmad=false; no fast math either): results are the CPU's operation by
// operation, and the same on every GPU.
std::vector<std::string> nvrtc_options(const NvrtcTarget& target);

// The architectures this NVRTC compiles for, ascending (75, 80, ..., 120 for
// NVRTC 13: sm_75 is Turing).
std::vector<int> nvrtc_supported_archs();
// The target for a GPU of compute capability major.minor: a cubin for it
// ("sm_90") when NVRTC knows it, else PTX for the newest architecture NVRTC
// knows ("compute_120"), which the driver compiles for the newer GPU; an
// Error for a GPU older than every architecture NVRTC supports.
std::string arch_for_device(int major, int minor);

// NVRTC's version, "13.0" (part of the program cache's key: another compiler
// may emit other code).
std::string nvrtc_version();

// The PTX or cubin of `source`. `name` (the op or kernel family: "softmax")
// names the program in NVRTC's log and in errors. A compile error is a
// nabla::Error naming `name`, the architecture, NVRTC's error string and the
// first lines of the build log; an invalid arch is an Error too. PTX comes
// without its terminating NUL (c_str() adds one, as cuModuleLoadData wants).
// `log`, when given, receives NVRTC's log of a successful compile (warnings;
// usually empty).
std::string nvrtc_compile(const std::string& source, const std::string& name, const NvrtcTarget& target,
                          std::string* log = nullptr);
std::string nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch,
                          std::string* log = nullptr);

}  // namespace nabla::cuda
