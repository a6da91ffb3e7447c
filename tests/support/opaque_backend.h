// The "opaque" test device (DeviceType::Opaque): memory that lives on the host
// but is handed out as handles that cannot be dereferenced (a stray host
// access faults instead of silently working), and a fallback kernel that runs
// every op by copying its operands' storages to the CPU, running the CPU
// kernel and copying the results back. Running the op-table suite on it finds
// any code above the kernels that still reads or writes device memory
// directly, without a GPU. Two devices: opaque:0 and opaque:1.
#pragma once
#include <cstdint>

#include "nabla/nabla.h"

namespace nabla::testing {

// Registers the backend (once) and returns opaque:index.
Device opaque_device(int index = 0);

// What the backend did since the last reset (copies count bytes each way).
struct OpaqueStats {
  int64_t host_to_device_bytes = 0;
  int64_t device_to_host_bytes = 0;
  int64_t fallback_calls = 0;      // ops run through the CPU fallback
  int64_t driver_allocations = 0;  // blocks the allocator did not have cached
};
OpaqueStats opaque_stats();
void reset_opaque_stats();

}  // namespace nabla::testing
