// nabla::nn — Module, layers and initializers (torch.nn).
#pragma once
#include "nabla/nn/activation.h"
#include "nabla/nn/attention.h"
#include "nabla/nn/batchnorm.h"
#include "nabla/nn/init.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/module.h"
#include "nabla/nn/rnn.h"
#include "nabla/nn/rnn_cell.h"
#include "nabla/nn/rnn_utils.h"
#include "nabla/nn/sequential.h"
#include "nabla/nn/state_dict.h"
#include "nabla/nn/transformer.h"
