// fuse_conv_bn_eval and fuse_for_inference (see fusion.h).
#include "nabla/nn/fusion.h"

#include <string>
#include <typeinfo>
#include <unordered_set>
#include <utility>
#include <vector>

#include "nabla/core/grad_mode.h"
#include "nabla/core/memory_format.h"
#include "nabla/core/random.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/memory_format.h"
#include "nabla/nn/sequential.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

namespace {

constexpr const char* kApi = "nn::fuse_conv_bn_eval";

// `where` names the pair for fuse_for_inference ("" for a direct call).
void check_pair(const Conv2d& conv, const BatchNorm2d& bn, const std::string& where) {
  const std::string at = where.empty() ? std::string() : " (at " + where + ")";
  NABLA_CHECK(!conv.is_training() && !bn.is_training(), kApi, at, ": expected both modules in eval mode, got the ",
              conv.is_training() ? "Conv2d" : "BatchNorm2d",
              " in training mode; call eval() first (folding uses the running statistics, which batch norm "
              "normalizes with in eval mode only)");
  NABLA_CHECK(bn.running_mean.defined(), kApi, at,
              ": the BatchNorm2d tracks no running statistics (track_running_stats=false), so it normalizes with "
              "each batch's statistics, which cannot be folded into a convolution; expected a BatchNorm2d with "
              "running_mean and running_var");
  NABLA_CHECK(bn.num_features == conv.out_channels && conv.weight.defined() && conv.weight.dim() == 4 &&
                  conv.weight.size(0) == conv.out_channels && conv.weight.size(1) * conv.groups == conv.in_channels &&
                  bn.running_mean.dim() == 1 && bn.running_mean.size(0) == bn.num_features &&
                  bn.running_var.sizes() == bn.running_mean.sizes(),
              kApi, at, ": expected the BatchNorm2d's ", bn.num_features,
              " features to be the Conv2d's output channels, with weight [out_channels, in_channels / groups, kh, kw]; "
              "got Conv2d(", conv.in_channels, ", ", conv.out_channels, ", groups=", conv.groups, ") with weight ",
              conv.weight.defined() ? conv.weight.sizes() : Shape{}, " and BatchNorm2d(", bn.num_features,
              ") with running_mean ", bn.running_mean.sizes());
  NABLA_CHECK(conv.data_format == bn.data_format, kApi, at, ": the Conv2d has data_format \"", conv.data_format,
              "\" and the BatchNorm2d \"", bn.data_format, "\"; expected the same");
  auto floating = [](const Tensor& t) { return !t.defined() || is_floating(t.dtype()); };
  NABLA_CHECK(floating(conv.weight) && floating(conv.bias) && floating(bn.weight) && floating(bn.bias) &&
                  floating(bn.running_mean) && floating(bn.running_var),
              kApi, at, ": expected floating point parameters and running statistics, got Conv2d weight ",
              conv.weight.dtype(), " and BatchNorm2d running_var ", bn.running_var.dtype());
  NABLA_CHECK(!conv.weight.is_symbolic() && !bn.running_var.is_symbolic(), kApi, at,
              ": the modules' parameters are graph values (a live ModuleVariables); expected concrete tensors");
}

std::shared_ptr<Conv2d> fold(const Conv2d& conv, const BatchNorm2d& bn) {
  // The new module's constructor draws an initial weight: from a generator of
  // its own, so folding leaves the global random stream where it was.
  std::shared_ptr<Conv2d> fused;
  {
    Generator scratch;
    GeneratorScope scope(scratch);
    fused = std::make_shared<Conv2d>(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding,
                                     conv.dilation, conv.groups, /*bias=*/true, conv.data_format);
  }
  fused->to(conv.weight.dtype());
  fused->to(conv.weight.device());
  if (is_contiguous(conv.weight, MemoryFormat::ChannelsLast) && !conv.weight.is_contiguous())
    to(*fused, MemoryFormat::ChannelsLast);
  fused->eval();
  NoGradGuard no_grad;
  const int64_t c = conv.out_channels;
  Tensor scale = rsqrt(bn.running_var.detach() + bn.eps);
  if (bn.weight.defined()) scale = scale * bn.weight.detach();
  Tensor bias = conv.bias.defined() ? conv.bias.detach() - bn.running_mean.detach() : -bn.running_mean.detach();
  bias = bias * scale;
  if (bn.bias.defined()) bias = bias + bn.bias.detach();
  fused->weight.copy_(conv.weight.detach() * reshape(scale, {c, 1, 1, 1}));
  fused->bias.copy_(bias);
  const bool trains = conv.weight.requires_grad();
  fused->weight.requires_grad_(trains);
  fused->bias.requires_grad_(trains);
  return fused;
}

}  // namespace

std::shared_ptr<Conv2d> fuse_conv_bn_eval(const Conv2d& conv, const BatchNorm2d& bn) {
  check_pair(conv, bn, "");
  return fold(conv, bn);
}

int64_t fuse_for_inference(Module& model) {
  struct Pair {
    Sequential* seq;
    std::size_t index;
  };
  std::vector<Pair> pairs;
  std::unordered_set<const Sequential*> seen;  // a Sequential shared by two parents is folded once
  auto scan = [&](Module& m, const std::string& path) {
    auto* seq = dynamic_cast<Sequential*>(&m);
    if (!seq || !seen.insert(seq).second) return;
    const std::string prefix = path.empty() ? "" : path + ".";
    for (std::size_t i = 0; i + 1 < seq->size(); ++i) {
      const Module &a = *(*seq)[i], &b = *(*seq)[i + 1];
      if (typeid(a) != typeid(Conv2d) || typeid(b) != typeid(BatchNorm2d)) continue;
      const std::string where = "modules " + prefix + std::to_string(i) + " and " + prefix + std::to_string(i + 1);
      check_pair(static_cast<const Conv2d&>(a), static_cast<const BatchNorm2d&>(b), where);
      pairs.push_back({seq, i});
      ++i;  // the BatchNorm2d is taken
    }
  };
  scan(model, "");
  for (const auto& [path, m] : model.named_modules()) scan(*m, path);
  // Every pair is checked: fold and replace (a module shared by two
  // Sequentials is folded in each place it follows a conv).
  for (const Pair& p : pairs) {
    const auto& conv = static_cast<const Conv2d&>(*(*p.seq)[p.index]);
    const auto& bn = static_cast<const BatchNorm2d&>(*(*p.seq)[p.index + 1]);
    ModulePtr fused = fold(conv, bn);
    auto identity = std::make_shared<Identity>();
    identity->eval();
    p.seq->replace(p.index, std::move(fused));
    p.seq->replace(p.index + 1, std::move(identity));
  }
  return static_cast<int64_t>(pairs.size());
}

}  // namespace nabla::nn
