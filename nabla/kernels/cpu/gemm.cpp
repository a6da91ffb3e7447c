#include "nabla/kernels/cpu/gemm.h"

#include <cblas.h>

#include <limits>
#include <mutex>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/gemm_nt.h"
#include "nabla/kernels/cpu/omp_single.h"

namespace nabla::cpu {
namespace {

// How a [rows, cols] matrix with strides (rs, cs) is passed to BLAS.
struct BlasMatrix {
  bool ok = false;
  bool transposed = false;
  int64_t ld = 0;
};
BlasMatrix as_blas(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (cs == 1 && (rs >= std::max<int64_t>(cols, 1) || rows == 1)) return {true, false, std::max<int64_t>(rs, std::max<int64_t>(cols, 1))};
  if (rs == 1 && (cs >= std::max<int64_t>(rows, 1) || cols == 1)) return {true, true, std::max<int64_t>(cs, std::max<int64_t>(rows, 1))};
  return {};
}

void sgemm_call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                int64_t ldb, float* c, int64_t ldc) {
  // A @ B^T with both rows along k: dot products, no packing (gemm_nt.h).
  if (!ta && tb && sgemm_nt_dot(m, n, k, a, lda, b, ldb, c, ldc)) return;
  dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  NABLA_CHECK(st == dnnl_success, "matmul: oneDNN sgemm failed with status ", static_cast<int>(st), " for ", m, "x",
              k, " @ ", k, "x", n);
}

// ---- bfloat16: oneDNN's matmul primitive ---------------------------------
//
// bfloat16 operands, float32 accumulation, a bfloat16 result (the rounding
// of the float32 sum): autocast's matrix products (ops/autocast.h). oneDNN
// runs them on AVX512-BF16 (vdpbf16ps) or AMX where the CPU has them, and
// emulates them (slower) on other AVX-512 CPUs. Debian's oneDNN 2.6 has no
// bf16 gemm function, hence primitives, cached per shape and layout.

struct Bf16Key {
  int64_t m, n, k, lda, ldb, ldc;
  bool ta, tb;
  bool operator==(const Bf16Key&) const = default;
};
struct Bf16KeyHash {
  size_t operator()(const Bf16Key& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : {k.m, k.n, k.k, k.lda, k.ldb, k.ldc, int64_t(k.ta), int64_t(k.tb)})
      h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

dnnl::engine& bf16_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

struct Bf16Plan {
  dnnl::matmul prim;
  dnnl::memory::desc a, b, c;
  size_t scratch_bytes = 0;
};

// The primitive for this product, or null when oneDNN only has its reference
// implementation (no AVX-512: a float32 GEMM on widened copies is faster).
std::shared_ptr<const Bf16Plan> bf16_plan(const Bf16Key& key) {
  static std::mutex mu;
  static auto* cache = new std::unordered_map<Bf16Key, std::shared_ptr<const Bf16Plan>, Bf16KeyHash>();  // leaked
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  using dt = dnnl::memory::data_type;
  // [rows, cols] stored with leading dimension ld, transposed or not.
  auto desc = [](int64_t rows, int64_t cols, int64_t ld, bool t, dt type) {
    return dnnl::memory::desc({rows, cols}, type, t ? dnnl::memory::dims{1, ld} : dnnl::memory::dims{ld, 1});
  };
  std::shared_ptr<Bf16Plan> plan;
  try {
    auto p = std::make_shared<Bf16Plan>();
    p->a = desc(key.m, key.k, key.lda, key.ta, dt::bf16);
    p->b = desc(key.k, key.n, key.ldb, key.tb, dt::bf16);
    p->c = desc(key.m, key.n, key.ldc, false, dt::bf16);
    // A scratchpad of the caller's per call: the slices of one product run
    // the same primitive on several threads at once, which oneDNN's own
    // (per-primitive) scratchpad would share.
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a, p->b, p->c), attr, bf16_engine());
    p->scratch_bytes = pd.scratchpad_desc().get_size();
    if (std::string_view(pd.impl_info_str()).find("ref") == std::string_view::npos) {
      p->prim = dnnl::matmul(pd);
      plan = std::move(p);
    }
  } catch (const dnnl::error&) {
    plan = nullptr;
  }
  if (cache->size() >= 256) cache->clear();  // bounded: a program sweeping shapes does not grow it
  cache->emplace(key, plan);
  return plan;
}

void bf16_run(const Bf16Plan& p, const BFloat16* a, const BFloat16* b, BFloat16* c) {
  auto& eng = bf16_engine();
  dnnl::stream stream(eng);
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, dnnl::memory(p.a, eng, const_cast<BFloat16*>(a))},
                                             {DNNL_ARG_WEIGHTS, dnnl::memory(p.b, eng, const_cast<BFloat16*>(b))},
                                             {DNNL_ARG_DST, dnnl::memory(p.c, eng, c)}};
  Tensor scratch;
  if (p.scratch_bytes > 0) {
    scratch = make_empty({static_cast<int64_t>(p.scratch_bytes)}, kUInt8, kCPU);
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 dnnl::memory(dnnl::memory::desc({static_cast<int64_t>(p.scratch_bytes)}, dnnl::memory::data_type::u8,
                                                 dnnl::memory::format_tag::a),
                              eng, scratch.raw_data()));
  }
  p.prim.execute(stream, args);
  stream.wait();
}

// Products below this many multiply-adds run as one call: a thread hand-off
// costs more than it saves.
constexpr double kSplitMacs = 1 << 20;

// How a product is split over nabla's threads: slices of C's rows, or of its
// columns when C is wider than tall; one slice per thread. Slices start at
// multiples of 16, whole vectors of C's columns for oneDNN's sgemm kernels
// (16 floats per zmm register): a slice ending mid-vector runs slow edge
// code. 64x1000 @ 1000x100 cut into 50 + 50 columns took 1.20x the uncut
// product's time at 1 thread (Zen 4), 48 + 52 or 32 + 68 columns 1.01x, 40 +
// 60 1.09x. That matters most when the pool backs off under load and the
// caller runs every slice itself (bench/README.md).
struct Split {
  bool by_rows;
  int64_t extent, chunks;
  // Slice q: [begin(q), begin(q + 1)) of the rows (or columns).
  int64_t begin(int64_t q) const {
    if (q >= chunks) return extent;
    int64_t even = q * extent / chunks;
    return std::min(extent, (even + kAlign / 2) / kAlign * kAlign);
  }
  static constexpr int64_t kAlign = 16;
};
Split split_of(int64_t m, int64_t n, int64_t k) {
  Split s{m >= n, m >= n ? m : n, 1};
  s.chunks = std::min<int64_t>(get_num_threads(), s.extent / Split::kAlign);  // slices of at least 16
  if (s.chunks <= 1 || static_cast<double>(m) * n * k < kSplitMacs) s.chunks = 1;
  return s;
}

// oneDNN's GEMMs run single-threaded on slices of C, one slice per nabla
// thread: OpenMP's own threads would spin-wait on the cores nabla's pool
// needs (see omp_single.h). gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)
// computes one slice.
template <class T, class Gemm>
void gemm_threads(const Split& s, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T* c, int64_t ldc, Gemm&& gemm) {
  ScopedOmpThreads single(1);
  if (s.chunks == 1) {
    gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  parallel_for(0, s.chunks, 1, [&](int64_t begin, int64_t end) {
    ScopedOmpThreads worker(1);  // pool threads start with OpenMP's default
    for (int64_t q = begin; q < end; ++q) {
      int64_t lo = s.begin(q), len = s.begin(q + 1) - lo;
      if (len <= 0) continue;
      if (s.by_rows) gemm(ta, tb, len, n, k, ta ? a + lo : a + lo * lda, lda, b, ldb, c + lo * ldc, ldc);
      else gemm(ta, tb, m, len, k, a, lda, tb ? b + lo * ldb : b + lo, ldb, c + lo, ldc);
    }
  });
}

void sgemm_threads(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                   int64_t ldb, float* c, int64_t ldc) {
  gemm_threads(split_of(m, n, k), ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sgemm_call);
}

// The bfloat16 product sliced like sgemm's; false (nothing written) when
// oneDNN has no fast implementation of a slice's shape.
bool bf16_gemm_threads(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const BFloat16* a, int64_t lda,
                       const BFloat16* b, int64_t ldb, BFloat16* c, int64_t ldc) {
  Split s = split_of(m, n, k);
  // The (at most three) slice shapes, planned before any thread runs.
  std::unordered_map<int64_t, std::shared_ptr<const Bf16Plan>> plans;
  for (int64_t q = 0; q < s.chunks; ++q) {
    int64_t len = s.begin(q + 1) - s.begin(q);
    if (len <= 0 || plans.count(len)) continue;
    Bf16Key key{s.by_rows ? len : m, s.by_rows ? n : len, k, lda, ldb, ldc, ta, tb};
    auto plan = bf16_plan(key);
    if (!plan) return false;
    plans.emplace(len, std::move(plan));
  }
  try {
    gemm_threads(s, ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
                 [&](bool, bool, int64_t mm, int64_t nn, int64_t, const BFloat16* pa, int64_t, const BFloat16* pb,
                     int64_t, BFloat16* pc, int64_t) { bf16_run(*plans.at(s.by_rows ? mm : nn), pa, pb, pc); });
  } catch (const dnnl::error& e) {
    fail("matmul: oneDNN bfloat16 matmul failed: ", e.what(), " (status ", static_cast<int>(e.status), ")");
  }
  return true;
}

// float32 goes to oneDNN's sgemm, which measured faster than OpenBLAS's at
// every benchmarked shape and thread count (bench/README.md); float64 to
// OpenBLAS (oneDNN has no dgemm).
template <class T>
void gemm_one(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
              T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    sgemm_threads(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
  } else {
    auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
    cblas_dgemm(CblasRowMajor, TA, TB, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b, (int)ldb, 0.0, c, (int)ldc);
  }
}

// a, b as BLAS matrices: strided views in place where BLAS takes them,
// contiguous copies otherwise.
struct Operands {
  Tensor a, b;
  BlasMatrix ma, mb;
};
Operands blas_operands(const Tensor& a_in, const Tensor& b_in, int64_t m, int64_t n, int64_t k) {
  Operands o{a_in, b_in, as_blas(m, k, a_in.strides()[1], a_in.strides()[2]), as_blas(k, n, b_in.strides()[1], b_in.strides()[2])};
  if (!o.ma.ok) { o.a = contiguous_input(a_in); o.ma = as_blas(m, k, o.a.strides()[1], o.a.strides()[2]); }
  if (!o.mb.ok) { o.b = contiguous_input(b_in); o.mb = as_blas(k, n, o.b.strides()[1], o.b.strides()[2]); }
  return o;
}

// bfloat16 on oneDNN's matmul; false (out untouched) where it has no fast
// implementation, and the caller computes in float32.
bool bf16_batched_gemm(const Tensor& a_in, const Tensor& b_in, const Tensor& out) {
  int64_t batch = a_in.sizes()[0], m = a_in.sizes()[1], k = a_in.sizes()[2], n = b_in.sizes()[2];
  Operands o = blas_operands(a_in, b_in, m, n, k);
  const auto* pa = static_cast<const BFloat16*>(o.a.raw_data());
  const auto* pb = static_cast<const BFloat16*>(o.b.raw_data());
  auto* pc = static_cast<BFloat16*>(out.raw_data());
  for (int64_t s = 0; s < batch; ++s)
    if (!bf16_gemm_threads(o.ma.transposed, o.mb.transposed, m, n, k, pa + s * o.a.strides()[0], o.ma.ld,
                           pb + s * o.b.strides()[0], o.mb.ld, pc + s * m * n, n)) {
      NABLA_CHECK(s == 0, "matmul: oneDNN bfloat16 matmul declined batch ", s, " after running batch 0");
      return false;
    }
  return true;
}

}  // namespace

bool batched_gemm_reduced(const Tensor& a, const Tensor& b, const Tensor& out) {
  if (out.dtype() != kBFloat16 || out.numel() == 0 || a.sizes()[2] == 0) return false;
  return bf16_batched_gemm(a, b, out);
}

void batched_gemm(const Tensor& a_in, const Tensor& b_in, const Tensor& out) {
  int64_t batch = a_in.sizes()[0], m = a_in.sizes()[1], k = a_in.sizes()[2], n = b_in.sizes()[2];
  // BLAS takes 32-bit sizes and leading dimensions.
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  NABLA_CHECK(m <= kMax && n <= kMax && k <= kMax && a_in.numel() <= kMax * 8 && b_in.numel() <= kMax * 8, "matmul: ",
              m, "x", k, " @ ", k, "x", n, " exceeds the 32-bit sizes BLAS accepts");
  if (!is_floating(out.dtype())) {
    Tensor a = contiguous_input(a_in), b = contiguous_input(b_in);
    visit_dtype(out.dtype(), [&]<class T>() {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const T* pa = static_cast<const T*>(a.raw_data());
        const T* pb = static_cast<const T*>(b.raw_data());
        T* pc = static_cast<T*>(out.raw_data());
        for (int64_t s = 0; s < batch; ++s)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              T acc = 0;
              for (int64_t p = 0; p < k; ++p) acc += pa[(s * m + i) * k + p] * pb[(s * k + p) * n + j];
              pc[(s * m + i) * n + j] = acc;
            }
      } else {
        fail("matmul: unsupported dtype ", out.dtype());
      }
    });
    return;
  }
  if (m == 0 || n == 0 || batch == 0) return;
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* pc = static_cast<T*>(out.raw_data());
      if (k == 0) {
        std::fill(pc, pc + out.numel(), T(0));
        return;
      }
      Operands o = blas_operands(a_in, b_in, m, n, k);
      const Tensor &a = o.a, &b = o.b;
      const BlasMatrix &ma = o.ma, &mb = o.mb;
      const T* pa = static_cast<const T*>(a.raw_data());
      const T* pb = static_cast<const T*>(b.raw_data());
      get_num_threads();  // makes sure BLAS follows nabla's thread count
      for (int64_t s = 0; s < batch; ++s)
        gemm_one<T>(ma.transposed, mb.transposed, m, n, k, pa + s * a.strides()[0], ma.ld, pb + s * b.strides()[0],
                    mb.ld, pc + s * m * n, n);
    } else {
      fail("matmul: unsupported dtype ", out.dtype());
    }
  });
}

}  // namespace nabla::cpu
