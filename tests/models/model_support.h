// Helpers shared by the model tests: where the torch-made models are, and how outputs compare.
#pragma once

#include <string>
#include <vector>

#include "support/test_support.h"
#include "tvk/module.h"

namespace tvk::testing_support {

// The folder the `models_generate` fixture fills (TVK_MODELS_DIR overrides it).
inline std::string models_dir() { return env_or("TVK_MODELS_DIR", TVK_DEFAULT_MODELS_DIR); }

// The families of tests/models/families.py (issues 48 and 47), written scripted and traced by
// make_models.py, each with its own input and every output's expected value.
inline constexpr const char* kFamilies[] = {"lstm_tagger", "recurrent",        "audio1d",    "super_resolution",
                                            "style_transfer", "unet",          "video",      "text_encoder",
                                            "masked_attention", "modern_blocks",   "geometry",   "made_tensors"};

// max |got - expected| / max |expected|.
// The tolerance, max |a - b| / max |expected|: 1e-4, and for quantized models, which
// tvk runs on dequantized weights: 1e-2 for dynamic quantization (torch also quantizes each
// input), 2e-2 for static quantization (tvk sums int8 products in float32 where torch sums
// them in int32, so an output near a rounding boundary of its grid may land a step away; one
// step of static_quant's output grid is 7e-3 of its largest output, and tvk lands one step away).
inline double tolerance_for(const std::string& model) {
  if (model == "static_quant") return 2e-2;
  return model == "dynamic_quant" ? 1e-2 : 1e-4;
}

inline double relative_diff(const Tensor& got, const Tensor& expected) {
  return max_abs_diff(got, expected) / max_abs(expected);
}

// forward(x) of a single-input model: its output tensor, or the first of its tuple or dict
// (a segmentation model's "out").
inline Tensor run(jit::Module& m, const Tensor& x) {
  std::vector<IValue> in;
  in.emplace_back(x);
  IValue out = m.forward(std::move(in));
  while (!out.isTensor()) {
    if (out.isDict() && !out.toDict()->items.empty()) out = out.toDict()->items.front().second;
    else if ((out.isTuple() || out.isList()) && !out.toList().empty()) out = out.toList().front();
    else return out.toTensor();  // throws, naming what the model returned
  }
  return out.toTensor();
}

}  // namespace tvk::testing_support

// Skips (or fails, under TVK_REQUIRE_VULKAN) when the model folder is unknown.
#define TVK_NEED_MODELS()                                                                            \
  do {                                                                                               \
    if (::tvk::testing_support::models_dir().empty()) {                                              \
      if (::tvk::testing_support::vulkan_required()) FAIL() << "TVK_MODELS_DIR is not set";          \
      GTEST_SKIP() << "TVK_MODELS_DIR is not set (run through ctest)";                               \
    }                                                                                                \
  } while (0)
