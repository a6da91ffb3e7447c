#include "nabla/kernels/device/philox.h"

namespace nabla::device_c {
namespace {

// Words in a private array rather than a vector type, so that the same text
// is C for every backend (OpenCL's uint4 and CUDA's differ).
constexpr const char* kPhilox = R"DC(
NB_FN void nb_philox(ulong n, ulong seed, uint* w) {
  uint c0 = (uint)n, c1 = (uint)(n >> 32), c2 = 0, c3 = 0;
  uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    const ulong p0 = (ulong)0xD2511F53u * c0, p1 = (ulong)0xCD9E8D57u * c2;
    const uint n0 = (uint)(p1 >> 32) ^ c1 ^ k0, n2 = (uint)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint)p1;
    c3 = (uint)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  w[0] = c0;
  w[1] = c1;
  w[2] = c2;
  w[3] = c3;
}
NB_FN double nb_unit(uint hi, uint lo) {
  const ulong v = ((ulong)hi << 21) ^ (lo >> 11);
  return (double)(v & ((1UL << 53) - 1)) * (1.0 / 9007199254740992.0);
}
NB_FN double nb_uniform(long i, ulong seed, ulong offset) {
  uint w[4];
  nb_philox(offset + (ulong)(i / 2), seed, w);
  return (i % 2) ? nb_unit(w[2], w[3]) : nb_unit(w[0], w[1]);
}
)DC";

}  // namespace

const char* philox_source() { return kPhilox; }

}  // namespace nabla::device_c
