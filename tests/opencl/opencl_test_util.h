// Shared by the OpenCL tests: they skip, saying why, where no OpenCL device
// is present (a build without the backend, or no driver such as PoCL).
#pragma once
#include <gtest/gtest.h>

#include "nabla/nabla.h"

#define NABLA_SKIP_WITHOUT_OPENCL()                                                    \
  do {                                                                                 \
    if (!::nabla::opencl::is_available())                                              \
      GTEST_SKIP() << "no OpenCL device: " << ::nabla::opencl::unavailable_reason();   \
  } while (0)
