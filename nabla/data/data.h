// nabla data: datasets, samplers, the DataLoader and file readers (IDX).
#pragma once
#include "nabla/data/dataloader.h"
#include "nabla/data/dataset.h"
#include "nabla/data/idx.h"
#include "nabla/data/sampler.h"
