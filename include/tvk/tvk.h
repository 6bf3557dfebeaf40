// tvk: run PyTorch models on Vulkan GPUs without libtorch. The one header users include.
#pragma once

#include "tvk/device.h"
#include "tvk/dtype.h"
#include "tvk/error.h"
#include "tvk/ivalue.h"
#include "tvk/limits.h"
#include "tvk/module.h"
#include "tvk/optimize.h"
#include "tvk/ops.h"
#include "tvk/tensor.h"
#include "tvk/version.h"
