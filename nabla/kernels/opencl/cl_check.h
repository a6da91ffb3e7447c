// OpenCL error codes as nabla errors: every API call's status goes through
// check(), whose message names the API and the error code's name.
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "nabla/core/error.h"

namespace nabla::opencl {

// "CL_OUT_OF_RESOURCES" for -5; "OpenCL error -1234" for codes it does not know.
const char* error_name(cl_int code);

// An allocation failure the caching allocator can retry after emptying its cache.
inline bool is_out_of_memory(cl_int code) {
  return code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES || code == CL_OUT_OF_HOST_MEMORY;
}

[[noreturn]] void fail_cl(const char* api, cl_int code, const char* context);

// Throws nabla::Error "opencl: <api> failed with <CODE_NAME>[: context]".
inline void check(cl_int code, const char* api, const char* context = "") {
  if (code != CL_SUCCESS) [[unlikely]]
    fail_cl(api, code, context);
}

}  // namespace nabla::opencl
