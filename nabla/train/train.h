// nabla::train: fit(), evaluate(), predict(), metrics and callbacks over any
// nn::Module (docs/train_api.md).
#pragma once
#include "nabla/train/backup_and_restore.h"
#include "nabla/train/callbacks.h"
#include "nabla/train/data_parallel.h"
#include "nabla/train/metrics.h"
#include "nabla/train/progress.h"
#include "nabla/train/trainer.h"
