// The examples' --device option (`seed_autograd 500 --device opencl`): takes
// "--device NAME" or "--device=NAME" out of argv, so the positional arguments
// stay where they were, and returns that device (the CPU without it). A device
// that is not present ends the program with a message listing those that are.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "nabla/core/backend.h"

inline nabla::Device parse_device(const char* name) {
  try {
    return nabla::Device(std::string(name));
  } catch (const nabla::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    std::exit(2);
  }
}

inline nabla::Device device_arg(int& argc, char** argv) {
  nabla::Device device = nabla::kCPU;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      device = parse_device(argv[++i]);
    } else if (std::strncmp(argv[i], "--device=", 9) == 0) {
      device = parse_device(argv[i] + 9);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  try {
    nabla::backend_for(device, "--device");
  } catch (const nabla::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    std::exit(2);
  }
  return device;
}
