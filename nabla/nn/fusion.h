// Batch norm folded into the convolution before it, for inference
// (torch.nn.utils.fusion.fuse_conv_bn_eval): in eval mode BatchNorm2d is a
// per-channel affine map of the convolution's output,
//   bn(y)[c] = (y[c] - running_mean[c]) * s[c] + beta[c],  s = gamma / sqrt(running_var + eps),
// so one convolution with
//   w'[c] = w[c] * s[c]      b'[c] = (b[c] - running_mean[c]) * s[c] + beta[c]
// (b = 0 for a convolution without a bias, which then gets one) computes both:
// one pass over the activations instead of two. Compiled graphs get the same
// fold from a Session pass (graph/passes/fold_conv_bn.h), with w' and b'
// computed in the graph from the live parameters; these functions make new
// modules with the folded values fixed at the time of the call.
#pragma once
#include <memory>

#include "nabla/nn/batchnorm.h"
#include "nabla/nn/conv.h"

namespace nabla::nn {

// A new Conv2d (same geometry, groups and data_format; with a bias; in eval
// mode; parameters requiring grad as conv's weight does) computing
// bn.forward(conv.forward(x)) for eval mode. The folding is computed in the
// parameters' common dtype and stored in conv's weight dtype, on its device
// and in its memory format. Neither argument changes. nabla::Error when
// either module is in training mode, bn tracks no running statistics, or
// their channels, dtypes or data formats do not match.
std::shared_ptr<Conv2d> fuse_conv_bn_eval(const Conv2d& conv, const BatchNorm2d& bn);

// Folds, in every nn::Sequential of `model` (model itself included), each
// Conv2d directly followed by a BatchNorm2d (exactly those classes): the
// Conv2d is replaced by fuse_conv_bn_eval's result and the BatchNorm2d by an
// nn::Identity, so names and state_dict keys of the other modules stay (the
// folded pairs' keys change: the BatchNorm2d's are gone, the conv gains a
// bias). A Sequential then runs a folded Conv2d followed by a ReLU (past the
// Identity) as one conv2d_relu. Pairs inside a custom forward (a ResNet
// block's conv1/bn1 members) are not found: compile() the model instead,
// whose Session folds them in the graph. Checks every pair before changing
// anything (the errors of fuse_conv_bn_eval, naming the pair's path); returns
// how many pairs were folded.
int64_t fuse_for_inference(Module& model);

}  // namespace nabla::nn
