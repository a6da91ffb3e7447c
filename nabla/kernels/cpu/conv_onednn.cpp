// oneDNN convolution primitives for float32 and bfloat16 conv2d (see conv_onednn.h).
#include "nabla/kernels/cpu/conv_onednn.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "nabla/core/memory_format.h"
#include "nabla/core/parallel.h"
#include "nabla/core/parallel_stats.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/omp_single.h"
#include "nabla/onednn.h"

namespace nabla::cpu {
namespace {

using dnnl::memory;
using Dims = memory::dims;

enum class Kind : int64_t { forward, backward_data, backward_weights };

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// One tensor argument of a primitive: the layout of nabla's tensor (NCHW or,
// for channels-last tensors, NHWC activations; OIHW weights) and the layout
// the primitive chose; a reorder between them when they differ.
struct Operand {
  int arg = 0;
  memory::desc user, prim;
  std::optional<dnnl::reorder> reorder;  // user -> prim for inputs, prim -> user for the output
};

struct Plan {
  dnnl::primitive prim;
  Operand in[2], out;
  memory::desc bias;  // forward only, zero-dim when there is no bias
  size_t scratch_bytes = 0;
  std::string impl;  // oneDNN's name of the implementation ("jit:avx512_core_bf16", "ref:any")
  bool winograd = false;
};

Operand make_operand(int arg, const memory::desc& user, const memory::desc& prim, bool is_output) {
  Operand o{arg, user, prim, std::nullopt};
  if (user != prim)
    o.reorder = is_output ? dnnl::reorder(dnnl::reorder::primitive_desc(engine(), prim, engine(), user))
                          : dnnl::reorder(dnnl::reorder::primitive_desc(engine(), user, engine(), prim));
  return o;
}

// oneDNN accepts a geometry when (in - k_eff + pad_l + pad_r) / stride + 1 ==
// out with pad_r + stride > 0. The symmetric padding fits every natural
// output size; a smaller output (weight gradient of a narrowed grad_output)
// needs a smaller right padding.
std::optional<int64_t> pad_right(int64_t in, int64_t out, int64_t k_eff, int64_t s, int64_t pl) {
  for (int64_t pr : {pl, (out - 1) * s + k_eff - in - pl}) {
    int64_t span = in - k_eff + pl + pr;
    if (pr + s > 0 && span >= 0 && span / s + 1 == out) return pr;
  }
  return std::nullopt;
}

struct Shapes {
  Dims src, wei, dst, bias, strides, dilates, pad_l, pad_r;
  memory::format_tag wei_tag;
  memory::data_type dt = memory::data_type::f32;  // of every operand but bfloat16's weight gradient (float32)
  // The user layouts of the (diff_)src and (diff_)dst activations: nchw, or
  // nhwc for channels-last tensors, which the primitive then reads and writes
  // as they are (oneDNN's nhwc kernels) instead of reordering to its blocked
  // layout and back.
  memory::format_tag src_tag = memory::format_tag::nchw, dst_tag = memory::format_tag::nchw;
  // Whether the primitive reads and writes NHWC itself: only with enough
  // channels per group on both sides. With few (a first layer's 1 or 3
  // input channels) oneDNN's NHWC kernels are slow (LeNet's 1->32 conv: 40x
  // slower weight gradient) and its blocked kernels plus reorders from and
  // to NHWC win, as for NCHW tensors.
  bool direct = false;
};

// Channels per group below which NHWC convolutions go through oneDNN's blocked layout.
constexpr int64_t kMinDirectNhwcChannels = 16;

std::optional<Shapes> shapes_of(const Conv2dGeometry& g, memory::data_type dt, bool src_nhwc, bool dst_nhwc) {
  int64_t keh = g.dilation_h * (g.kernel_h - 1) + 1, kew = g.dilation_w * (g.kernel_w - 1) + 1;
  auto prh = pad_right(g.in_h, g.out_h, keh, g.stride_h, g.pad_h);
  auto prw = pad_right(g.in_w, g.out_w, kew, g.stride_w, g.pad_w);
  if (!prh || !prw) return std::nullopt;
  Shapes s;
  s.dt = dt;
  s.src = {g.batch, g.in_channels, g.in_h, g.in_w};
  s.dst = {g.batch, g.out_channels, g.out_h, g.out_w};
  s.bias = {g.out_channels};
  int64_t ocg = g.out_channels / g.groups, cg = g.in_channels / g.groups;
  if (g.groups == 1) {
    s.wei = {g.out_channels, cg, g.kernel_h, g.kernel_w};
    s.wei_tag = memory::format_tag::oihw;
  } else {
    s.wei = {g.groups, ocg, cg, g.kernel_h, g.kernel_w};  // same memory as [OC, C/groups, KH, KW]
    s.wei_tag = memory::format_tag::goihw;
  }
  s.strides = {g.stride_h, g.stride_w};
  s.dilates = {g.dilation_h - 1, g.dilation_w - 1};  // oneDNN counts the gaps
  s.pad_l = {g.pad_h, g.pad_w};
  s.pad_r = {*prh, *prw};
  s.src_tag = src_nhwc ? memory::format_tag::nhwc : memory::format_tag::nchw;
  s.dst_tag = dst_nhwc ? memory::format_tag::nhwc : memory::format_tag::nchw;
  s.direct = src_nhwc && dst_nhwc && std::min(cg, ocg) >= kMinDirectNhwcChannels;
  return s;
}

memory::desc plain(const Dims& d, memory::format_tag tag, memory::data_type dt) { return {d, dt, tag}; }
memory::desc any(const Dims& d, memory::data_type dt) { return {d, dt, memory::format_tag::any}; }
// An activation's primitive layout: NHWC user data is used in place
// (Shapes::direct); otherwise the primitive picks (a blocked layout,
// reordered to and from the user's NCHW or NHWC).
memory::desc act(const Dims& d, const Shapes& s) {
  return s.direct ? plain(d, memory::format_tag::nhwc, s.dt) : any(d, s.dt);
}

dnnl::primitive_attr user_scratchpad(bool relu = false) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // from nabla's allocator, per call
  if (relu) {
    // conv2d_relu: the ReLU runs on each output block while it is in cache.
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

dnnl::convolution_forward::primitive_desc forward_pd(const Shapes& s, bool with_bias, bool relu,
                                                     dnnl::algorithm alg) {
  auto pk = dnnl::prop_kind::forward_training;
  auto d = with_bias
               ? dnnl::convolution_forward::desc(pk, alg, act(s.src, s), any(s.wei, s.dt),
                                                 plain(s.bias, memory::format_tag::a, s.dt), act(s.dst, s),
                                                 s.strides, s.dilates, s.pad_l, s.pad_r)
               : dnnl::convolution_forward::desc(pk, alg, act(s.src, s), any(s.wei, s.dt), act(s.dst, s),
                                                 s.strides, s.dilates, s.pad_l, s.pad_r);
  return {d, user_scratchpad(relu), engine()};
}

// Builds the primitive; throws dnnl::error when oneDNN has no implementation.
std::shared_ptr<const Plan> make_plan(Kind kind, const Shapes& s, bool with_bias, bool relu, bool winograd) {
  auto dt = s.dt, f32 = memory::data_type::f32;
  auto p = std::make_shared<Plan>();
  auto alg = winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
  p->winograd = winograd;
  if (kind == Kind::forward) {
    auto pd = forward_pd(s, with_bias, relu, alg);
    p->prim = dnnl::convolution_forward(pd);
    p->in[0] = make_operand(DNNL_ARG_SRC, plain(s.src, s.src_tag, dt), pd.src_desc(), false);
    p->in[1] = make_operand(DNNL_ARG_WEIGHTS, plain(s.wei, s.wei_tag, dt), pd.weights_desc(), false);
    p->out = make_operand(DNNL_ARG_DST, plain(s.dst, s.dst_tag, dt), pd.dst_desc(), true);
    if (with_bias) p->bias = plain(s.bias, memory::format_tag::a, dt);
    p->scratch_bytes = pd.scratchpad_desc().get_size();
    p->impl = pd.impl_info_str();
  } else if (kind == Kind::backward_data) {
    auto hint = forward_pd(s, false, false, alg);
    dnnl::convolution_backward_data::desc d(alg, act(s.src, s), any(s.wei, dt), act(s.dst, s), s.strides,
                                            s.dilates, s.pad_l, s.pad_r);
    dnnl::convolution_backward_data::primitive_desc pd(d, user_scratchpad(), engine(), hint);
    p->prim = dnnl::convolution_backward_data(pd);
    p->in[0] = make_operand(DNNL_ARG_DIFF_DST, plain(s.dst, s.dst_tag, dt), pd.diff_dst_desc(), false);
    p->in[1] = make_operand(DNNL_ARG_WEIGHTS, plain(s.wei, s.wei_tag, dt), pd.weights_desc(), false);
    p->out = make_operand(DNNL_ARG_DIFF_SRC, plain(s.src, s.src_tag, dt), pd.diff_src_desc(), true);
    p->scratch_bytes = pd.scratchpad_desc().get_size();
    p->impl = pd.impl_info_str();
  } else {
    auto hint = forward_pd(s, false, false, alg);
    // bfloat16's weight gradient accumulates in float32: the batch slices' sums
    // add up in float32 and are rounded once (run()).
    dnnl::convolution_backward_weights::desc d(alg, act(s.src, s), any(s.wei, f32), act(s.dst, s), s.strides,
                                               s.dilates, s.pad_l, s.pad_r);
    dnnl::convolution_backward_weights::primitive_desc pd(d, user_scratchpad(), engine(), hint);
    p->prim = dnnl::convolution_backward_weights(pd);
    p->in[0] = make_operand(DNNL_ARG_SRC, plain(s.src, s.src_tag, dt), pd.src_desc(), false);
    p->in[1] = make_operand(DNNL_ARG_DIFF_DST, plain(s.dst, s.dst_tag, dt), pd.diff_dst_desc(), false);
    p->out = make_operand(DNNL_ARG_DIFF_WEIGHTS, plain(s.wei, s.wei_tag, f32), pd.diff_weights_desc(), true);
    p->scratch_bytes = pd.scratchpad_desc().get_size();
    p->impl = pd.impl_info_str();
  }
  return p;
}

// ---- settings (nabla/onednn.h) ------------------------------------------

bool winograd_default() {
  const char* env = std::getenv("NABLA_WINOGRAD");
  return !(env && env[0] == '0');
}
std::atomic<bool> g_winograd{winograd_default()};
std::atomic<int64_t> g_direct_calls{0}, g_winograd_calls{0};
constexpr int64_t kMinWinogradChannels = 16, kMinWinogradPlane = 7;

// The Winograd plan for a shape, or null where oneDNN has none (it checks
// the kernel, stride, channels and CPU itself) or only a reference one.
// Winograd runs on oneDNN's blocked layout: NHWC tensors are reordered to
// it and back, as for few channels.
std::shared_ptr<const Plan> winograd_plan(Kind kind, Shapes s, bool with_bias, bool relu) {
  // oneDNN also offers it where the transforms cost more than they save: a
  // first layer's 1 or 3 input channels (LeNet's 1->32 layer measured 1.5x
  // slower) and small planes, which leave most of a 4x4 output tile empty
  // (256 channels on 4x4: 1.7x slower; 512 on 7x7: 1.6x faster).
  bool enough_channels = s.wei_tag == memory::format_tag::oihw && std::min(s.wei[0], s.wei[1]) >= kMinWinogradChannels;
  bool large_enough_plane = std::min(s.dst[2], s.dst[3]) >= kMinWinogradPlane;
  if (!enough_channels || !large_enough_plane) return nullptr;
  s.direct = false;
  try {
    auto plan = make_plan(kind, s, with_bias, relu, /*winograd=*/true);
    return plan->impl.find("ref") == std::string::npos ? plan : nullptr;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

// ---- the cache ----------------------------------------------------------

using Key = std::array<int64_t, 24>;
struct KeyHash {
  size_t operator()(const Key& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

// Bounded so that a program sweeping shapes does not grow without limit.
constexpr size_t kMaxPlans = 256;

std::mutex g_cache_mu;
std::unordered_map<Key, std::shared_ptr<const Plan>, KeyHash>& cache() {
  static auto* c = new std::unordered_map<Key, std::shared_ptr<const Plan>, KeyHash>();  // leaked: used until exit
  return *c;
}

// Threads: oneDNN runs single-threaded (omp_single.h says why) and a
// convolution uses nabla's threads by splitting the batch, one oneDNN call
// per thread; a batch smaller than the thread count runs as one call on
// OpenMP's threads instead.

// The plan for this convolution, or null when oneDNN cannot run it (also
// cached, so an unsupported geometry is tried once). oneDNN sizes its work
// split for the OpenMP thread count current at creation (omp_threads, which
// the caller has set), hence part of the key.
std::shared_ptr<const Plan> plan_for(Kind kind, const Conv2dGeometry& g, bool with_bias, int omp_threads,
                                     memory::data_type dt, bool src_nhwc, bool dst_nhwc, bool relu) {
  // Winograd is asked for float32 only (oneDNN has no bfloat16 Winograd).
  const bool want_winograd = g_winograd.load() && dt == memory::data_type::f32;
  Key key{static_cast<int64_t>(kind),
          g.batch,
          g.in_channels,
          g.in_h,
          g.in_w,
          g.out_channels,
          g.out_h,
          g.out_w,
          g.kernel_h,
          g.kernel_w,
          g.stride_h,
          g.stride_w,
          g.pad_h,
          g.pad_w,
          g.dilation_h,
          g.dilation_w,
          g.groups,
          with_bias,
          omp_threads,
          static_cast<int64_t>(dt),
          src_nhwc,
          dst_nhwc,
          relu,
          want_winograd};
  std::lock_guard<std::mutex> lock(g_cache_mu);
  auto it = cache().find(key);
  if (it != cache().end()) return it->second;
  std::shared_ptr<const Plan> plan;
  if (auto s = shapes_of(g, dt, src_nhwc, dst_nhwc)) {
    if (want_winograd) plan = winograd_plan(kind, *s, with_bias, relu);
    if (!plan) try {
      plan = make_plan(kind, *s, with_bias, relu, /*winograd=*/false);
      // bfloat16 without AVX-512 gets oneDNN's reference kernels: slower
      // than the float32 path on widened copies, which then runs instead.
      if (dt != memory::data_type::f32 && plan->impl.find("ref") != std::string::npos) plan = nullptr;
    } catch (const dnnl::error&) {
      plan = nullptr;  // no oneDNN implementation: the im2col kernels run it
    }
  }
  if (cache().size() >= kMaxPlans) cache().clear();
  cache().emplace(key, plan);
  return plan;
}

// ---- execution ----------------------------------------------------------

// Whether an activation is laid out NHWC (a channels-last tensor that is not
// also plain contiguous: for C == 1 or H == W == 1 both layouts are one).
bool is_nhwc(const Tensor& t) { return !t.is_contiguous() && is_contiguous(t, MemoryFormat::ChannelsLast); }

// An activation as the primitive reads it: as it is when its memory is in
// the layout (NHWC or NCHW), else a copy in it.
Tensor activation_input(const Tensor& t, bool nhwc) {
  if (nhwc ? is_contiguous(t, MemoryFormat::ChannelsLast) : t.is_contiguous()) return t;
  if (!nhwc) return contiguous_input(t);
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device(), MemoryFormat::ChannelsLast);
  const Tensor src[1] = {t};
  Tensor dst[1] = {c};
  cast_kernel(src, {}, dst);
  return c;
}

// A float32 buffer from nabla's allocator big enough for `bytes`.
Tensor buffer(size_t bytes, const Tensor& like) {
  return make_empty({static_cast<int64_t>((bytes + sizeof(float) - 1) / sizeof(float))}, kFloat32, like.device());
}

// One batch slice's call: user pointers and the buffers for the reordered
// operands and the scratchpad (allocated by the calling thread up front).
struct Call {
  const Plan* plan = nullptr;
  const void *a = nullptr, *b = nullptr, *bias = nullptr;
  void* out = nullptr;
  Tensor buffers[4];  // in[0], in[1], out (blocked copies), scratchpad
};

Call prepare(const Plan& p, const void* a, const void* b, const void* bias, void* out, const Tensor& like) {
  Call c{&p, a, b, bias, out, {}};
  if (p.in[0].reorder) c.buffers[0] = buffer(p.in[0].prim.get_size(), like);
  if (p.in[1].reorder) c.buffers[1] = buffer(p.in[1].prim.get_size(), like);
  if (p.out.reorder) c.buffers[2] = buffer(p.out.prim.get_size(), like);
  if (p.scratch_bytes > 0) c.buffers[3] = buffer(p.scratch_bytes, like);
  return c;
}

void execute(const Call& c) {
  const Plan& p = *c.plan;
  auto& eng = engine();
  dnnl::stream stream(eng);
  std::unordered_map<int, memory> args;
  const void* inputs[2] = {c.a, c.b};
  for (int i = 0; i < 2; ++i) {
    const Operand& o = p.in[i];
    memory user(o.user, eng, const_cast<void*>(inputs[i]));
    if (!o.reorder) {
      args.emplace(o.arg, user);
      continue;
    }
    memory prim(o.prim, eng, c.buffers[i].raw_data());
    o.reorder->execute(stream, user, prim);
    args.emplace(o.arg, prim);
  }
  if (c.bias) args.emplace(DNNL_ARG_BIAS, memory(p.bias, eng, const_cast<void*>(c.bias)));
  memory user_out(p.out.user, eng, c.out);
  memory prim_out = p.out.reorder ? memory(p.out.prim, eng, c.buffers[2].raw_data()) : user_out;
  args.emplace(p.out.arg, prim_out);
  if (p.scratch_bytes > 0)
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(memory::desc({static_cast<int64_t>(p.scratch_bytes)},
                                                          memory::data_type::u8, memory::format_tag::a),
                                             eng, c.buffers[3].raw_data()));
  p.prim.execute(stream, args);
  if (p.out.reorder) p.out.reorder->execute(stream, prim_out, user_out);
  stream.wait();
}

// Runs the convolution of the whole batch as `chunks` oneDNN calls on batch
// slices, in parallel on nabla's pool. a and out (forward, backward data) or
// a and b (backward weights) are sliced along the batch; the weight gradients
// of the slices are summed into out.
bool run(Kind kind, const Conv2dGeometry& g, const Tensor& a, const Tensor& b, const Tensor& bias, const Tensor& out,
         bool relu = false) {
  const DType dtype = a.dtype();
  if ((dtype != kFloat32 && dtype != kBFloat16) || b.dtype() != dtype || out.dtype() != dtype) return false;
  if (bias.defined() && bias.dtype() != dtype) return false;
  const auto dt = dtype == kFloat32 ? memory::data_type::f32 : memory::data_type::bf16;
  if (a.numel() == 0 || b.numel() == 0 || out.numel() == 0) return false;
  // Only the forward primitive takes the bias; conv_transpose2d adds its own.
  bool primitive_bias = kind == Kind::forward && bias.defined();
  // A batch of at least one sample per thread is sliced (single-threaded
  // oneDNN calls); a smaller one runs as one call on OpenMP's threads, or on
  // one thread while nabla's pool backs off on a busy machine (an OpenMP team
  // with a descheduled member waits at each barrier: 100x slower measured).
  int threads = get_num_threads();
  bool sliced = g.batch >= threads;
  int omp_threads = sliced || parallel_backing_off() ? 1 : threads;
  ScopedOmpThreads omp(omp_threads);
  int64_t chunks = sliced ? threads : 1;
  int64_t base = g.batch / chunks, extra = g.batch % chunks;  // the first `extra` slices get one more sample
  // Activations in NHWC (channels-last tensors) or NCHW, both in one layout
  // (oneDNN's fast kernels take NCHW or NHWC for both, not a mix: a mix runs
  // its reference kernel, 100x slower); the weights OIHW. Forward and
  // backward data take the output's layout (the dispatcher's choice,
  // ops/memory_format_rules.h), the weight gradient NHWC when either
  // activation is. A tensor in both layouts (C == 1, H == W == 1) is used
  // as it is; another is copied into the layout.
  const bool nhwc = kind == Kind::backward_weights ? is_nhwc(a) || is_nhwc(b) : is_nhwc(out);
  if (kind != Kind::backward_weights && !out.is_contiguous() && !nhwc) return false;
  Tensor ca = activation_input(a, nhwc);
  Tensor cb = kind == Kind::backward_weights ? activation_input(b, nhwc) : contiguous_input(b);
  Conv2dGeometry gs = g;
  gs.batch = base;
  std::shared_ptr<const Plan> plan = plan_for(kind, gs, primitive_bias, omp_threads, dt, nhwc, nhwc, relu), plan_plus;
  if (plan && extra > 0) {
    gs.batch = base + 1;
    plan_plus = plan_for(kind, gs, primitive_bias, omp_threads, dt, nhwc, nhwc, relu);
  }
  if (!plan || (extra > 0 && !plan_plus)) return false;

  Tensor cbias = primitive_bias ? contiguous_input(bias) : Tensor();
  // Per-sample sizes of the sliced operands (NCHW or NHWC: a sample is a
  // contiguous block either way).
  int64_t a_sample = ca.numel() / g.batch;
  int64_t b_sample = kind == Kind::backward_weights ? cb.numel() / g.batch : 0;
  int64_t out_sample = kind == Kind::backward_weights ? 0 : out.numel() / g.batch;
  // Pointers in bytes: the operands are float32 or bfloat16.
  const int64_t esz = static_cast<int64_t>(itemsize(dtype));
  const char* pa = static_cast<const char*>(ca.raw_data());
  const char* pb = static_cast<const char*>(cb.raw_data());
  // bfloat16's weight gradient is summed in float32 (acc) and rounded into out at the end.
  Tensor acc = kind == Kind::backward_weights && dtype != kFloat32 ? make_empty(out.sizes(), kFloat32, out.device())
                                                                    : out;
  float* po = static_cast<float*>(acc.raw_data());  // read as float only for the weight gradient
  char* po_bytes = static_cast<char*>(out.raw_data());
  // Weight gradients: slice 0 writes acc, the others their own buffers.
  std::vector<Tensor> partial;
  std::vector<Call> calls;
  for (int64_t c = 0, n0 = 0; c < chunks; ++c) {
    int64_t nb = base + (c < extra ? 1 : 0);
    const Plan& pc = nb == base ? *plan : *plan_plus;
    void* dst = kind == Kind::backward_weights ? static_cast<void*>(po) : po_bytes + n0 * out_sample * esz;
    if (kind == Kind::backward_weights && c > 0) {
      partial.push_back(make_empty(out.sizes(), kFloat32, out.device()));
      dst = partial.back().raw_data();
    }
    calls.push_back(prepare(pc, pa + n0 * a_sample * esz, pb + n0 * b_sample * esz,
                            cbias.defined() ? cbias.raw_data() : nullptr, dst, out));
    n0 += nb;
  }
  try {
    if (chunks == 1) {
      std::optional<ContentionProbe> probe;
      if (omp_threads > 1) probe.emplace();  // tells the pool when the team ran on a busy machine
      execute(calls[0]);
    } else {
      parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
        ScopedOmpThreads worker(1);  // pool threads start with OpenMP's default
        for (int64_t c = begin; c < end; ++c) execute(calls[c]);
      });
    }
  } catch (const dnnl::error& e) {
    fail("conv2d: oneDNN convolution failed: ", e.what(), " (status ", static_cast<int>(e.status), ")");
  }
  for (const Call& c : calls) (c.plan->winograd ? g_winograd_calls : g_direct_calls).fetch_add(1);
  if (!partial.empty()) {
    int64_t n = out.numel();
    for (const Tensor& t : partial) {
      const float* pt = static_cast<const float*>(t.raw_data());
      for (int64_t i = 0; i < n; ++i) po[i] += pt[i];
    }
  }
  if (!acc.is_same(out)) {
    const Tensor src[1] = {acc};
    Tensor dst[1] = {out};
    cast_kernel(src, {}, dst);
  }
  return true;
}

}  // namespace

bool onednn_conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                           const Conv2dGeometry& g) {
  return run(Kind::forward, g, x, w, bias, out);
}

bool onednn_conv2d_relu_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                                const Conv2dGeometry& g) {
  return run(Kind::forward, g, x, w, bias, out, /*relu=*/true);
}

bool onednn_conv_transpose2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                                     const Conv2dGeometry& g) {
  if (bias.defined() && bias.dtype() != x.dtype()) return false;
  if (!run(Kind::backward_data, g, x, w, Tensor(), out)) return false;
  if (!bias.defined()) return true;
  // out[n, c] += bias[c] (the backward-data primitive has no bias): plane by
  // plane, or pixel by pixel for an NHWC output.
  Tensor cb = contiguous_input(bias);
  int64_t C = g.in_channels, HW = g.in_h * g.in_w;
  auto add_bias = [&]<class T>() {
    const T* pb = static_cast<const T*>(cb.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    if (is_nhwc(out)) {
      parallel_for(0, g.batch * HW, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(C, 1)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t q = b; q < e; ++q)
                       for (int64_t c = 0; c < C; ++c) po[q * C + c] = T(float(po[q * C + c]) + float(pb[c]));
                   });
      return;
    }
    parallel_for(0, g.batch * C, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(HW, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t q = b; q < e; ++q) {
                     float v = float(pb[q % C]);
                     for (T *p = po + q * HW, *end = p + HW; p < end; ++p) *p = T(float(*p) + v);
                   }
                 });
  };
  if (out.dtype() == kFloat32) add_bias.operator()<float>();
  else add_bias.operator()<BFloat16>();
  return true;
}

bool onednn_conv2d_weight_grad(const Tensor& x, const Tensor& gy, const Tensor& gw, const Conv2dGeometry& g) {
  return run(Kind::backward_weights, g, x, gy, Tensor(), gw);
}

int64_t onednn_conv_cache_size() {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  return static_cast<int64_t>(cache().size());
}

}  // namespace nabla::cpu

namespace nabla::onednn {

bool enabled() { return cpu::conv_onednn_enabled(); }
void set_enabled(bool on) { cpu::set_conv_onednn_enabled(on); }
bool winograd() { return cpu::g_winograd.load(); }
void set_winograd(bool on) { cpu::g_winograd.store(on); }
ConvCounts conv_counts() { return {cpu::g_direct_calls.load(), cpu::g_winograd_calls.load()}; }

}  // namespace nabla::onednn
