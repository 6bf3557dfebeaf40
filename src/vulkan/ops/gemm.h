// Matrix products of many rows, shared by the eager matrix ops (linear.cpp) and the packed
// linear context (packed_contexts.cpp): gemm_tiled.glsl (shared-memory tiles) on GPUs,
// gemm_coopmat.glsl (tensor cores) there in fp16 precision where the device has cooperative
// matrices, gemm_rows.glsl (register tiles, texel reads only) on CPU devices such as lavapipe.
#pragma once

#include <limits>

#include "ops/conv_params.h"
#include "vulkan/ops/epilogue.h"
#include "vulkan/ops/kernel_options.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {

// A matrix operand read as texels through strides: of its batch entries, rows and columns (for
// b, a row is one step of the inner dimension). `half`: the tensor holds 16-bit floats
// (fp16 weights from store_weights) and the strides count halves.
struct GemmOperand {
  Tensor tensor;
  int64_t batch_stride, row_stride, col_stride;
  bool half = false;
};
// A bias read at offset + i * row_stride + j * col_stride (strides 0 where it broadcasts).
struct GemmBias {
  Tensor tensor;
  int64_t offset, row_stride, col_stride;
  bool half = false;
};

// Whether a product of `rows` rows per batch entry and `inner` terms per output takes these
// kernels. Below 16 rows a tile wastes most of its work and the row kernels (matmul.glsl,
// linear_t4.glsl) are better; they also take sums longer than one invocation may walk on
// lavapipe (65535 loop iterations). TVK_TILED_GEMM=0: never, to compare.
bool use_tiled_gemm(int64_t rows, int64_t inner);

// Whether launch_tiled_gemm's products run on tensor cores (gemm_coopmat.glsl), their operands
// rounded to fp16: fp16 precision on a device with cooperative matrices (docs/architecture.md).
// TVK_COOPMAT=0 keeps the fp32 kernels, to compare.
bool gemm_on_tensor_cores();

// b's columns as the pixels of several images side by side, `block` columns per image of which
// the first `valid` are real (the rest pad each image to whole texels): out and the residual are
// then NCHW, [cols / block][rows][valid], so that one product serves a whole batch. block 0:
// out is [batch][rows][cols].
struct GemmColumnBlocks {
  int64_t block = 0, valid = 0;
};

// A matrix product as the GEMM methods see it: out[s] (contiguous [batch][rows][cols], or in
// column blocks) = act(clamp(alpha * a[s] @ b[s] + beta * bias + residual[s], min, max)) (the
// epilogue),
// `residual` (optional, undefined: none) a contiguous tensor of out's shape (a convolution's
// fused add).
struct GemmProblem {
  const char* op;
  int64_t batch, rows, inner, cols;
  GemmOperand a, b;
  const GemmBias* bias = nullptr;  // null: none
  Tensor out{}, residual{};
  GemmColumnBlocks blocks{};
  double alpha = 1, beta = 1;
  Epilogue epilogue{};
  // The caller's row kernel, which runs the product into `out` as Rows (null: none, so Rows
  // cannot run it): the eager products' matmul.glsl, the packed linear's linear_t4.glsl.
  // Convolutions' products have none.
  void (*row_kernel)(const GemmProblem& g) = nullptr;
};

// Whether `m` can run `g` here (operand forms, bindings, features, precision): capability only.
bool gemm_method_can_run(GemmMethod m, const GemmProblem& g);
// The method for `g` without tuning: the options' forced one where it can run, else the rules'
// (which the comparison switches, TVK_TILED_GEMM=0 and the like, steer), else the first that can.
GemmMethod choose_gemm_method(const GemmProblem& g);
// Runs `g` on its method: the forced one, else (for a product that is its op's own) the tuned
// one where tuning knows or measures it (tuning.h), else choose_gemm_method's. Logs the method
// (MethodLog) and labels the launches with it, but for a product inside another op's method
// (a convolution's), which runs under that method's name. Returns the method.
GemmMethod run_gemm(const GemmProblem& g);

// run_gemm for a product with no row kernel (a convolution's). `blocks` (see above) needs batch 1
// and gemm_tile128_takes.
void launch_tiled_gemm(const char* op, const Tensor& out, int64_t batch, int64_t rows, int64_t inner, int64_t cols,
                       const GemmOperand& a, const GemmOperand& b, const GemmBias* bias, double alpha, double beta,
                       const Epilogue& epilogue = {}, const Tensor& residual = Tensor(),
                       const GemmColumnBlocks& blocks = {});

// Whether launch_tiled_gemm chooses Tile128 (gemm_tile128.glsl) for these operands (by the rules:
// fp32 on GPUs, large products; or forced), the one method that takes column blocks.
bool gemm_tile128_takes(int64_t rows, int64_t cols, const GemmOperand& a, const GemmOperand& b, const GemmBias* bias,
                        const Tensor& out, const Tensor& residual);

// A convolution as an implicit GEMM (gemm_tile128.glsl's variant conv2d_igemm): out (NCHW) =
// clamp(weight @ patches(input) + bias + residual), the patch matrix gathered from the input as
// the product reads it, never stored; its columns are the pixels of all images side by side, so
// small planes fill tiles at any batch. `weight` is the [out, in x kh x kw] fp32 matrix, `bias`
// (optional) one value per output channel, `residual` (optional) a tensor of out's shape.
// conv_gemm_implicit_can_run: whether it can run these operands at all (one storage binding
// each); _takes: whether it is also the kernel chosen for them (fp32 on GPUs).
bool conv_gemm_implicit_can_run(const ops::Conv2dParams& c, const Tensor& weight, const Tensor& input,
                                const Tensor& out, const Tensor& bias, const Tensor& residual);
bool conv_gemm_implicit_takes(const ops::Conv2dParams& c, const Tensor& weight, const Tensor& input, const Tensor& out,
                              const Tensor& bias, const Tensor& residual);
void launch_conv_gemm(const char* op, const ops::Conv2dParams& c, const Tensor& out, const Tensor& weight,
                      const Tensor& input, const Tensor& bias, const Epilogue& epilogue, const Tensor& residual);

}  // namespace tvk::vulkan
