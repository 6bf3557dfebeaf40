// Vulkan convolutions. A convolution's weights are laid out in one form (ConvKernel), chosen
// when they are packed (a packed context does it once) from the weight's shape and the method
// the options force; each call then runs one named method (ConvMethod, kernel_options.h) among
// those that read that form and can run the layer. The forms:
//   Oc8        conv2d_pack's [blocks][K][8] (dense and grouped convolutions whose groups hold a
//              multiple of 8 output channels), and for ungrouped ones where the GEMM methods
//              may run, the plain [out, K] matrix: methods Oc8, Split, Im2colOc8, the GEMMs
//   Winograd   3x3, stride 1, dilation 1, ungrouped: 36 transformed weight sets (4x the
//              weights' memory), and on GPUs the Oc8 packing too, on which batch 1 runs. There
//              packed contexts make the batch-2+ forms at their first use (ConvWeights::deferred)
//   Depthwise  one filter per channel (groups = in = out channels): Depthwise, DepthwisePixel
//   Direct     OIHW as given: Direct (any grouping; the general fallback)
//   Transposed IOHW as given: Transposed
#pragma once

#include <memory>
#include <optional>

#include "ops/conv_params.h"
#include "tvk/tensor.h"
#include "vulkan/api/buffer.h"
#include "vulkan/ops/epilogue.h"
#include "vulkan/ops/kernel_options.h"

namespace tvk::vulkan {

enum class ConvKernel { Oc8, Winograd, Depthwise, Direct, Transposed };

struct DeferredConvWeights;  // conv.cpp

// Weights laid out for one ConvKernel, on the device.
struct ConvWeights {
  ConvKernel kernel = ConvKernel::Direct;
  // Oc8 (and Winograd on GPUs): the packed [blocks][K][8] weights followed by the bias;
  // Depthwise, Direct, Transposed: OIHW/IOHW; Winograd elsewhere: undefined.
  Tensor weight;
  Tensor bias;  // not Oc8: the bias as given (undefined: none)
  // How the Oc8 and depthwise kernels read `weight`: RGBA32 / R32, or RGBA16F / R16F when it was
  // packed in fp16 precision (set_vulkan_precision).
  Buffer::TexelFormat weight_format = Buffer::TexelFormat::RGBA32;
  // Winograd: 36 weight sets of the Oc8 form (one per transformed tap) and a zero bias; or,
  // where winograd_gemm, 36 plain [out, in] matrices (R32 or R16F) for the GEMM kernels.
  Tensor winograd;
  Buffer::TexelFormat winograd_format = Buffer::TexelFormat::RGBA32;
  bool winograd_gemm = false;
  // Ungrouped Oc8 convolutions where the GEMM kernels take them (conv_gemm_wanted): the weights
  // as a plain [out, in x kh x kw] matrix (R16F in fp16 precision) and the bias as given;
  // undefined otherwise.
  Tensor gemm_weight, gemm_bias;
  Buffer::TexelFormat gemm_format = Buffer::TexelFormat::R32;
  // Set where Winograd's sets and the GEMM's matrix, which on GPUs only batch 2+ reads, were
  // left out above, to be made at the first call that needs them (run_convolution), so that a
  // model run at batch 1 never holds them: see prepare_conv_weights.
  std::shared_ptr<DeferredConvWeights> deferred;
};

// Whether ungrouped convolutions keep their weights for a batched GEMM (gemm.h), which runs them
// at batch 2+ (pointwise directly, others after im2col, Winograd's 36 products): in fp16
// precision on devices with cooperative matrices (tensor cores); in fp32 on GPUs for all but
// the pointwise ones (conv_gemm_fp32, below).
// TVK_CONV_GEMM=1 takes the GEMM on every device and batch (to test it on lavapipe), =0 never.
bool conv_gemm_wanted();
// The fp32 form of that choice on GPUs (gemm_tile128.glsl): Winograd's products and im2col'd
// convolutions of 32+ terms, not pointwise layers, which conv2d_oc8 runs faster (H200, batch
// 32: mobilenet_v2's GPU time 2.73 -> 3.05 ms with its pointwise layers as GEMMs, and 2.91 ->
// 3.26 again after gemm_tile128's 64-row tiles; resnet18's median 5.6-6.1 ms on the direct
// kernels, 5.07 with the GEMMs on gemm_tiled, 4.88 on gemm_tile128, 4.05 with its 64-row tiles,
// split K and im2col'd layers as one product over the batch: docs/benchmarks.md).
bool conv_gemm_fp32();

// `stride` and `dilation` as the op was given them (one value or two).
ConvKernel choose_conv_kernel(const IntList& weight_sizes, int64_t groups, bool transposed, const IntList& stride,
                              const IntList& dilation);
// `weight` and `bias` are Vulkan tensors (bias may be undefined). With `host_weight` and
// `host_bias`, CPU copies of them that the caller keeps unchanged (a packed context's), the
// weights only batch 2+ reads on GPUs are made from those copies at their first use instead.
ConvWeights prepare_conv_weights(const Tensor& weight, const Tensor& bias, int64_t groups, bool transposed,
                                 const IntList& stride, const IntList& dilation, const Tensor& host_weight = Tensor(),
                                 const Tensor& host_bias = Tensor());

// Whether `method` can run this convolution (geometry `p`, packed `weights`, the tensors it would
// bind) on this device: capability only, not speed. Auto: false.
bool conv_method_can_run(ConvMethod method, const ops::Conv2dParams& p, const ConvWeights& weights,
                         const Tensor& input, const Tensor& out, const Tensor& residual);

// Runs the convolution with checked geometry `p` (from ops::conv2d_params) and the output
// clamped to [out_min, out_max] (unset: unbounded), by the method KernelOptions::conv forces
// where it can run the layer, else the one preferred for it. `residual`, when defined, has the
// output's shape and is added before the clamp (the Oc8-packed methods and Winograd; the others
// refuse it, and callers add it separately).
// `out`, when defined, is where the result goes (a contiguous float32 tensor of the output's
// shape, such as a slice_for_writing of a larger one); else a new tensor.
// `act`, when not None, is applied to each output after the clamp, by every method's last kernel.
Tensor run_convolution(const char* op, const ops::Conv2dParams& p, const Tensor& input, const ConvWeights& weights,
                       std::optional<double> out_min, std::optional<double> out_max,
                       const Tensor& residual = Tensor(), Tensor out = Tensor(),
                       ops::FusedActivation act = ops::FusedActivation::None);

}  // namespace tvk::vulkan
