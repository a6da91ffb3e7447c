// nabla data: datasets, samplers, the DataLoader, transforms and file readers
// (IDX, .npy, .npz, CSV).
#pragma once
#include "nabla/data/csv.h"
#include "nabla/data/dataloader.h"
#include "nabla/data/dataset.h"
#include "nabla/data/device_prefetcher.h"
#include "nabla/data/fashion_mnist.h"
#include "nabla/data/idx.h"
#include "nabla/data/npy.h"
#include "nabla/data/npz.h"
#include "nabla/data/sample_context.h"
#include "nabla/data/sampler.h"
#include "nabla/data/transforms.h"
