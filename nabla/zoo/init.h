// torchvision's weight initialization of its classification models, applied
// after a model is built (the layers' own PyTorch defaults are drawn first and
// then overwritten, as in torchvision).
#pragma once
#include "nabla/nn/module.h"

namespace nabla::zoo::detail {

// Every Conv2d: weight kaiming_normal_(mode "fan_out", relu), bias zeros.
// Every BatchNorm: weight ones, bias zeros. Every Linear:
// N(0, linear_std^2) and bias zeros when linear_std > 0, left at PyTorch's
// default otherwise (ResNet's fc).
void torchvision_init(nn::Module& model, double linear_std);

}  // namespace nabla::zoo::detail
