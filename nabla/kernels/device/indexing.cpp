#include "nabla/kernels/device/indexing.h"

namespace nabla::device_c {

// An operand's layout: kMaxDims sizes (leading ones 1) shared by the
// operands of a launch, and each operand's strides, as plain long arguments
// (portable where struct arguments are not). nb_offsets turns a row-major
// position into the element offset of each of three operands.
const char* const kStridedHelpers = R"NB(
#define NB_SIZES long sz0, long sz1, long sz2, long sz3, long sz4, long sz5, long sz6, long sz7
#define NB_STRIDES(p) long p##0, long p##1, long p##2, long p##3, long p##4, long p##5, long p##6, long p##7
#define NB_ARRAY(p) {p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7}
NB_FN void nb_offsets(long i, const long* sz, const long* sa, const long* sb, const long* sc, long* o) {
  long a = 0, b = 0, c = 0;
  for (int d = 7; d >= 0 && i > 0; --d) {  // once i is 0 the outer coordinates are all 0
    const long k = i % sz[d];
    i /= sz[d];
    a += k * sa[d];
    b += k * sb[d];
    c += k * sc[d];
  }
  o[0] = a;
  o[1] = b;
  o[2] = c;
}
)NB";

// One work item per line of the index: the index's shape with the scattered
// dim at one position (os, is, ss: the out, index and src strides with that
// dim's left out). It walks the line in order, as the CPU's loop does, so
// repeated indices resolve alike (the last write wins; sums add in the CPU's
// order) with no atomics and no races: lines touch disjoint outputs.
// An index outside [0, bound) sets *bad and ends the line (the host raises
// the CPU's error); an index equal to `skip` (embedding's padding_idx) adds
// nothing. use_value: write value_bits (scatter_value) instead of src.
const char* const kScatterKernel = R"NB(
NB_KERNEL nb_scatter(NB_GLOBAL U* out, long out_off, NB_GLOBAL const long* index, long index_off,
                     NB_GLOBAL const U* src, long src_off, NB_GLOBAL long* bad, long bad_off, long lines, long len,
                     long ostep, long istep, long sstep, long bound, long skip, long use_value, ulong value_bits,
                     NB_SIZES, NB_STRIDES(os), NB_STRIDES(is), NB_STRIDES(ss)) {
  const long l = NB_INDEX;
  if (l >= lines) return;
  const long sz[8] = NB_ARRAY(sz), a[8] = NB_ARRAY(os), b[8] = NB_ARRAY(is), c[8] = NB_ARRAY(ss);
  long o[3];
  nb_offsets(l, sz, a, b, c, o);
  for (long j = 0; j < len; ++j) {
    const long i = index[index_off + o[1] + j * istep];
    if (i < 0 || i >= bound) {
      bad[bad_off] = 1;
      return;
    }
    if (i == skip) continue;
    const U v = use_value ? (U)value_bits : src[src_off + o[2] + j * sstep];
    NB_GLOBAL U* d = out + out_off + o[0] + i * ostep;
    *d = NB_COMBINE(*d, v);
  }
}
)NB";

const char* const kMoveKernels = R"NB(
// dst[p] = src[p] over a shared shape, each with its own strides (negative
// ones read backwards: flip).
NB_KERNEL nb_copy(NB_GLOBAL U* dst, long dst_off, NB_GLOBAL const U* src, long src_off, long n, NB_SIZES,
                  NB_STRIDES(ds), NB_STRIDES(ss)) {
  const long p = NB_INDEX;
  if (p >= n) return;
  const long sz[8] = NB_ARRAY(sz), a[8] = NB_ARRAY(ds), b[8] = NB_ARRAY(ss);
  long o[3];
  nb_offsets(p, sz, a, b, b, o);
  dst[dst_off + o[0]] = src[src_off + o[1]];
}

// out[p] = x[p with the gathered dim at index[p]] over the index's shape
// (xs: x's strides with that dim's left out; step: its stride). wrap: a
// negative index counts from the end (take). An index outside [0, bound)
// sets *bad and writes 0.
NB_KERNEL nb_gather(NB_GLOBAL U* out, long out_off, NB_GLOBAL const long* index, long index_off,
                    NB_GLOBAL const U* x, long x_off, NB_GLOBAL long* bad, long bad_off, long n, long step, long bound,
                    long wrap, NB_SIZES, NB_STRIDES(os), NB_STRIDES(is), NB_STRIDES(xs)) {
  const long p = NB_INDEX;
  if (p >= n) return;
  const long sz[8] = NB_ARRAY(sz), a[8] = NB_ARRAY(os), b[8] = NB_ARRAY(is), c[8] = NB_ARRAY(xs);
  long o[3];
  nb_offsets(p, sz, a, b, c, o);
  long i = index[index_off + o[1]];
  if (wrap && i < 0) i += bound;
  if (i < 0 || i >= bound) {
    bad[bad_off] = 1;
    out[out_off + o[0]] = (U)0;
    return;
  }
  out[out_off + o[0]] = x[x_off + o[2] + i * step];
}

// out[p, c] = 1 for c = index[p] (out zeroed before; os: p's row offsets).
NB_KERNEL nb_one_hot(NB_GLOBAL U* out, long out_off, NB_GLOBAL const long* index, long index_off,
                     NB_GLOBAL long* bad, long bad_off, long n, long classes, NB_SIZES, NB_STRIDES(os),
                     NB_STRIDES(is)) {
  const long p = NB_INDEX;
  if (p >= n) return;
  const long sz[8] = NB_ARRAY(sz), a[8] = NB_ARRAY(os), b[8] = NB_ARRAY(is);
  long o[3];
  nb_offsets(p, sz, a, b, b, o);
  const long c = index[index_off + o[1]];
  if (c < 0 || c >= classes) {
    bad[bad_off] = 1;
    return;
  }
  out[out_off + o[0] + c] = (U)1;
}

// masked_select in three passes over blocks of `block` elements (x and mask
// contiguous): count the true elements of each block, turn the counts into
// each block's first output position (one work item: there are n / block of
// them; counts[blocks] gets the total, which the host reads back to check
// the output's size), then copy each block's selected elements in order.
NB_KERNEL nb_mask_count(NB_GLOBAL long* counts, long counts_off, NB_GLOBAL const uchar* mask, long mask_off, long n,
                        long block) {
  const long b = NB_INDEX;
  if (b * block >= n) return;
  const long end = b * block + block < n ? b * block + block : n;
  long c = 0;
  for (long i = b * block; i < end; ++i) c += mask[mask_off + i] != 0;
  counts[counts_off + b] = c;
}
NB_KERNEL nb_mask_scan(NB_GLOBAL long* counts, long counts_off, long blocks) {
  if (NB_INDEX != 0) return;
  long total = 0;
  for (long b = 0; b < blocks; ++b) {
    const long c = counts[counts_off + b];
    counts[counts_off + b] = total;
    total += c;
  }
  counts[counts_off + blocks] = total;
}
NB_KERNEL nb_mask_write(NB_GLOBAL U* out, long out_off, NB_GLOBAL const U* x, long x_off,
                        NB_GLOBAL const uchar* mask, long mask_off, NB_GLOBAL const long* starts, long starts_off,
                        long n, long block, long cap) {
  const long b = NB_INDEX;
  if (b * block >= n) return;
  const long end = b * block + block < n ? b * block + block : n;
  long k = starts[starts_off + b];
  for (long i = b * block; i < end; ++i) {
    if (!mask[mask_off + i]) continue;
    if (k < cap) out[out_off + k] = x[x_off + i];
    ++k;
  }
}

// tril (lower) / triu over the last two dims of a contiguous [B, rows, cols].
NB_KERNEL nb_triangle(NB_GLOBAL U* out, long out_off, NB_GLOBAL const U* x, long x_off, long n, long rows, long cols,
                      long diagonal, long lower) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const long c = i % cols, r = (i / cols) % rows;
  const int keep = lower ? c - r <= diagonal : c - r >= diagonal;
  out[out_off + i] = keep ? x[x_off + i] : (U)0;
}

// Reflect/replicate pad of a contiguous [B, h, w] into [B, oh, ow]: each
// output position reads its source (kernels/cpu/pad.cpp's source_index).
NB_FN long nb_pad_source(long o, long lo, long n, long replicate) {
  long i = o - lo;
  if (replicate) return i < 0 ? 0 : (i >= n ? n - 1 : i);
  if (i < 0) i = -i;
  if (i >= n) i = 2 * (n - 1) - i;
  return i;
}
NB_KERNEL nb_pad_index(NB_GLOBAL U* out, long out_off, NB_GLOBAL const U* x, long x_off, long n, long h, long w,
                       long oh, long ow, long top, long left, long replicate) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const long ox = i % ow, t = i / ow, oy = t % oh, b = t / oh;
  out[out_off + i] = x[x_off + (b * h + nb_pad_source(oy, top, h, replicate)) * w + nb_pad_source(ox, left, w, replicate)];
}
)NB";

const char* const kAccumulateKernels = R"NB(
// The gradient of the reflect/replicate pad, gathered rather than scattered:
// each input position sums the padded positions that read it. Those are up
// to three ranges per dim, in ascending order (before the edge, the position
// itself, after it), so the sum runs in the CPU's order: no atomics, and
// float64 results equal the CPU's.
NB_FN void nb_pad_sources(long i, long lo, long hi, long n, long replicate, long* r) {
  r[0] = r[1] = r[4] = r[5] = 0;
  r[2] = lo + i;
  r[3] = lo + i + 1;
  if (replicate) {
    if (i == 0) r[1] = lo;
    if (i == n - 1) {
      r[4] = lo + n;
      r[5] = lo + n + hi;
    }
  } else {
    if (i >= 1 && i <= lo) {
      r[0] = lo - i;
      r[1] = lo - i + 1;
    }
    if (i <= n - 2 && n - 2 - i < hi) {
      r[4] = lo + 2 * (n - 1) - i;
      r[5] = r[4] + 1;
    }
  }
}
NB_KERNEL nb_pad_backward(NB_GLOBAL U* out, long out_off, NB_GLOBAL const U* g, long g_off, long n, long h, long w,
                          long oh, long ow, long top, long bottom, long left, long right, long replicate) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const long x = i % w, t = i / w, y = t % h, b = t / h;
  long rh[6], rw[6];
  nb_pad_sources(y, top, bottom, h, replicate, rh);
  nb_pad_sources(x, left, right, w, replicate, rw);
  U acc = (U)0;
  for (int a = 0; a < 3; ++a)
    for (long oy = rh[2 * a]; oy < rh[2 * a + 1]; ++oy)
      for (int c = 0; c < 3; ++c)
        for (long ox = rw[2 * c]; ox < rw[2 * c + 1]; ++ox) acc = NB_ADD(acc, g[g_off + (b * oh + oy) * ow + ox]);
  out[out_off + i] = acc;
}
)NB";

// The CPU's formulas (kernels/cpu/factory.cpp) in double, stored through
// NB_STORE (cpu::factory_value: floating types through float). NB_MULADD(a,
// b, c) is a * b + c rounded as the CPU's build rounds it (fused or not).
const char* const kRangeKernels = R"NB(
NB_KERNEL nb_arange(NB_GLOBAL T* out, long out_off, long n, double start, double step) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const double v = NB_MULADD(step, (double)i, start);
  out[out_off + i] = NB_STORE(v);
}
NB_KERNEL nb_linspace(NB_GLOBAL T* out, long out_off, long n, double start, double end, double step) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const double v = n == 1 ? start : (i < n / 2 ? NB_MULADD(step, (double)i, start) : NB_MULADD(-step, (double)(n - 1 - i), end));
  out[out_off + i] = NB_STORE(v);
}
NB_KERNEL nb_eye(NB_GLOBAL T* out, long out_off, long n, long cols) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const double v = i / cols == i % cols ? 1.0 : 0.0;
  out[out_off + i] = NB_STORE(v);
}
)NB";

}  // namespace nabla::device_c
