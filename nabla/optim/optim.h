// nabla::optim — optimizers, learning-rate schedulers and gradient clipping.
#pragma once
#include "nabla/optim/adagrad.h"
#include "nabla/optim/adam.h"
#include "nabla/optim/clip.h"
#include "nabla/optim/lr_scheduler.h"
#include "nabla/optim/optimizer.h"
#include "nabla/optim/reduce_lr_on_plateau.h"
#include "nabla/optim/rmsprop.h"
#include "nabla/optim/sgd.h"
