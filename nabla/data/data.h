// nabla data: datasets, samplers, the DataLoader and file readers (IDX, .npy).
#pragma once
#include "nabla/data/dataloader.h"
#include "nabla/data/dataset.h"
#include "nabla/data/idx.h"
#include "nabla/data/npy.h"
#include "nabla/data/sampler.h"
