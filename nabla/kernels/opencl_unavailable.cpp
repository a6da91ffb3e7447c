// nabla/opencl.h in a build without the OpenCL backend (NABLA_OPENCL=OFF, or
// no OpenCL headers and loader found): no device, and the reason says how to
// get one.
#include "nabla/core/error.h"
#include "nabla/opencl.h"

namespace nabla::opencl {

bool is_built() { return false; }
bool is_available() { return false; }
int device_count() { return 0; }
std::string unavailable_reason() {
  return "nabla was built without the OpenCL backend (configure with OpenCL installed, e.g. Debian's "
         "ocl-icd-opencl-dev opencl-headers pocl-opencl-icd, and NABLA_OPENCL=ON)";
}
MemoryStats memory_stats(int) { fail("opencl::memory_stats: ", unavailable_reason()); }
void empty_cache() {}
ProgramCacheStats program_cache_stats() { return {}; }
void clear_program_memory_cache() {}
std::string program_cache_dir() { return ""; }

}  // namespace nabla::opencl
