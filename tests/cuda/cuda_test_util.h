// Shared by the CUDA tests: they skip, saying why in one line, where no CUDA
// device can be used (a build without the backend, no driver, no GPU).
#pragma once
#include <gtest/gtest.h>

#include "nabla/nabla.h"

#define NABLA_SKIP_WITHOUT_CUDA()                                                                                  \
  do {                                                                                                             \
    if (!::nabla::cuda::is_available()) GTEST_SKIP() << "no CUDA device: " << ::nabla::cuda::unavailable_reason(); \
  } while (0)
