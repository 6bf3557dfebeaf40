// Vulkan matrix products: mm, bmm, addmm, linear, matmul, and the GEMM methods every product runs
// on (GemmMethod, gemm.h): products of many rows tiled (gemm_rows.glsl on CPU devices,
// gemm_tiled.glsl or gemm_tile128.glsl on GPUs, gemm_coopmat.glsl on tensor cores in fp16
// precision), the rest one output per invocation (matmul.glsl). Operands are read through
// strides, so linear's transposed weight and broadcast biases need no copies.
#include <array>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/matmul_shapes.h"
#include "ops/registry.h"
#include "ops/view_geometry.h"
#include "tvk/vulkan_info.h"
#include "vulkan/api/context.h"
#include "vulkan/ops/gemm.h"
#include "vulkan/ops/kernel_options.h"
#include "vulkan/ops/shader_dispatch.h"
#include "vulkan/ops/strided_copy.h"
#include "vulkan/ops/tuning.h"

namespace tvk::vulkan {

namespace {
// Must match gemm_params.glslh (the push constants of every GEMM shader).
struct TiledGemmParams {
  int32_t rows, cols, inner, batch;
  int32_t a_batch_stride, a_row_stride, a_inner_stride;
  int32_t b_batch_stride, b_inner_stride, b_col_stride;
  int32_t bias_offset, bias_row_stride, bias_col_stride, has_bias;
  float alpha, beta, out_min, out_max;
  int32_t has_residual;
};
constexpr uint32_t kGemmTile = 64, kGemmGroupSide = 16;  // gemm_tiled.glsl's TILE and work group
// gemm_tile128.glsl's tile: 128 columns x 128 rows, or 64 rows for products of at most 64 rows
// (a 128-row tile would idle half its lanes); the smallest products it takes (a smaller one idles
// most of a tile), and 128 columns exactly (Winograd's products in resnet's 7x7 layers at batch 32).
constexpr int64_t kTile128 = 128, kTile128HalfRows = 64, kTile128MinRows = 64, kTile128MinCols = 256;
// A work-group shape of gemm_coopmat.glsl: its tile and each subgroup's part of it.
struct CoopmatTile {
  uint32_t bm, bn, wm, wn;
  uint32_t threads() const { return (bm / wm) * (bn / wn) * 32; }
};
// gemm_rows.glsl's outputs per invocation: rows (its RM; 8 measured fastest on lavapipe, against
// 2, 4, 12 and 16, docs/benchmarks.md) and columns.
constexpr uint32_t kRowsTileRows = 8, kRowsTileCols = 8;
constexpr int64_t kMaxLoopIterations = 65535;             // lavapipe's cap (docs/architecture.md)

Binding texels(const Tensor& t, bool half, bool vec4) {
  using F = Buffer::TexelFormat;
  return Binding(t, half ? (vec4 ? F::RGBA16F : F::R16F) : (vec4 ? F::RGBA32 : F::R32));
}
// Whether a's rows can be read 4 values of k per texel: every quad lies inside the row.
bool a_quads(const GemmOperand& a, int64_t inner) {
  return !a.half && a.col_stride == 1 && inner % 4 == 0 && a.row_stride % 4 == 0 && a.batch_stride % 4 == 0;
}
// Whether b's rows can be read 4 columns per texel: the last quad may reach past the last
// column (values then dropped) but not past the row, as in packed weights padded to quads.
bool b_quads(const GemmOperand& b, int64_t cols) {
  return b.col_stride == 1 && b.row_stride % 4 == 0 && b.batch_stride % 4 == 0 && b.row_stride >= (cols + 3) / 4 * 4;
}
// Whether b's columns can be read 4 values of k per texel (b transposed: unit k stride).
bool b_k_quads_fit(const GemmOperand& b, int64_t inner) {
  return b.row_stride == 1 && inner % 4 == 0 && b.col_stride % 4 == 0 && b.batch_stride % 4 == 0;
}

// The tile for a product: 64 x 64 in four 32 x 32 parts, which beat the other shapes below for
// vit_b_16 at batch 1 and 32 on the H200 (docs/benchmarks.md); TVK_COOPMAT_TILE=BMxBNxWMxWN
// picks another, to compare.
CoopmatTile coopmat_tile() {
  static const CoopmatTile shapes[] = {{64, 64, 32, 32},  {128, 128, 64, 32}, {32, 64, 32, 32},
                                       {64, 128, 32, 64}, {128, 128, 64, 64}, {128, 64, 64, 32}};
  const std::string& forced = kernel_options().coopmat_tile;
  if (!forced.empty())
    for (const CoopmatTile& t : shapes)
      if (std::to_string(t.bm) + "x" + std::to_string(t.bn) + "x" + std::to_string(t.wm) + "x" + std::to_string(t.wn) == forced)
        return t;
  return shapes[0];
}
}  // namespace

bool gemm_on_tensor_cores() {
  return kernel_options().coopmat && Context::get()->device().physical().cooperative_matrix() &&
         vulkan_precision() == Precision::FP16;
}

namespace {

// Into how many parts gemm_tile128 splits a product's inner dimension: enough for `fill` work
// groups where its tiles are fewer, up to max_splits parts of at least min_terms terms each,
// the parts' sums within one storage binding. TVK_GEMM_SPLIT_K=0: never, to compare.
uint32_t gemm_k_splits(int64_t tiles, int64_t inner, int64_t out_values, int64_t fill, int64_t max_splits,
                       int64_t min_terms) {
  if (!kernel_options().gemm_split_k || tiles >= fill) return 1;
  int64_t splits = std::min({max_splits, (fill + tiles - 1) / tiles, inner / min_terms});
  while (splits > 1 && (static_cast<VkDeviceSize>(splits * out_values) * sizeof(float) > max_storage_binding() ||
                        splits * out_values > std::numeric_limits<int32_t>::max()))
    --splits;
  return static_cast<uint32_t>(std::max<int64_t>(splits, 1));
}

// The device's multiprocessors (132 where the driver does not say: an H200's count).
int64_t compute_units() {
  const uint32_t units = Context::get()->device().physical().compute_units;
  return units ? units : 132;
}

// A gemm_tile128 launch: its tile (rows x columns) and into how many parts K is split.
struct Tile128Plan {
  int64_t tile_rows, tile_cols;
  uint32_t splits;
};

// Runs gemm_tile128 (or its variant `shader`, whose push constants are p followed by `tail`) as
// planned, with gemm_split_sum after it where K is split. `extra` are the variant's own
// specialisation constants (ids 8 on).
void run_tile128(const char* op, const std::string& shader, const Tile128Plan& plan, const std::vector<uint32_t>& extra,
                 const Tensor& out, const Tensor& a, const Tensor& b, const GemmBias* bias, const Tensor& residual,
                 const GemmColumnBlocks& blocks, const TiledGemmParams& p, uint32_t activation, const void* tail,
                 uint32_t tail_bytes) {
  const auto u32_of = [op](int64_t v) { return static_cast<uint32_t>(to_i32(op, v)); };
  const int64_t col_tiles = (p.cols + plan.tile_cols - 1) / plan.tile_cols;
  const int64_t row_tiles = (p.rows + plan.tile_rows - 1) / plan.tile_rows;
  const uint32_t local_x = u32_of(plan.tile_cols / 8), local_y = u32_of(plan.tile_rows / 8);  // 8 x 8 per lane
  const uint32_t splits = plan.splits;
  // Column blocks shape only the epilogue's stores, which a split product leaves to gemm_split_sum.
  ShaderLaunch l{shader,
                 {u32_of(col_tiles * local_x), u32_of(row_tiles * local_y), u32_of(int64_t{p.batch} * splits)},
                 {local_x, local_y, 1},
                 {u32_of(plan.tile_rows), u32_of(splits > 1 ? 0 : blocks.block), u32_of(splits > 1 ? 0 : blocks.valid),
                  splits, u32_of(plan.tile_cols)}};
  l.constants.insert(l.constants.end(), extra.begin(), extra.end());
  // A split product's parts are raw sums: gemm_split_sum applies the epilogue.
  if (splits == 1) l.activation = activation;
  // The push constants: p, then the variant's tail.
  auto push = [&](const TiledGemmParams& head, const Binding& target, const Tensor& bias_t, const Tensor& residual_t) {
    std::array<unsigned char, kMaxPushConstantBytes> bytes{};
    TVK_CHECK(sizeof head + tail_bytes <= bytes.size(), op, ": ", shader, "'s push constants exceed ", bytes.size(),
              " bytes");
    std::memcpy(bytes.data(), &head, sizeof head);
    if (tail_bytes) std::memcpy(bytes.data() + sizeof head, tail, tail_bytes);
    launch(l, {target, a, b, bias_t, residual_t}, bytes.data(), static_cast<uint32_t>(sizeof head + tail_bytes));
  };
  if (splits == 1) {
    push(p, out, bias ? bias->tensor : a, residual.defined() ? residual : a);
    return;
  }
  // The parts' raw sums (gemm_epilogue.glslh's split_part_index: [splits][batch][rows][cols]),
  // then gemm_split_sum adds them up with the epilogue.
  Tensor partial = empty_vulkan({int64_t{splits} * p.batch * p.rows * p.cols});
  push(p, partial, a, a);
  ShaderLaunch sum = grid_launch("gemm_split_sum", {u32_of((p.cols + 3) / 4), u32_of(p.rows), u32_of(p.batch)},
                                 {splits, u32_of(blocks.block), u32_of(blocks.valid)});
  sum.activation = activation;
  launch(sum, {out, partial, bias ? bias->tensor : partial, residual.defined() ? residual : partial}, p);
}
}  // namespace

namespace {
// Whether gemm_tile128 and its variant run at all: fp32 products on GPUs. TVK_GEMM_TILE128=0:
// gemm_tiled instead, to compare; TVK_GEMM_SHARED=0 (launch_tiled_gemm) rules out both.
bool tile128_enabled() {
  const KernelOptions& o = kernel_options();
  return o.gemm_tile128 && o.gemm_shared && !gemm_on_tensor_cores() && gpu_shaped_kernels();
}

// Whether every tensor a gemm_tile128 launch binds fits one storage binding (bias and residual
// optional: undefined ones pass).
bool tile128_bindings_fit(const Tensor& a, const Tensor& b, const Tensor& out, const Tensor& bias,
                          const Tensor& residual) {
  return storage_binding_fits(a) && storage_binding_fits(b) && storage_binding_fits(out) &&
         (!bias.defined() || storage_binding_fits(bias)) && (!residual.defined() || storage_binding_fits(residual));
}
}  // namespace

bool gemm_tile128_takes(int64_t rows, int64_t cols, const GemmOperand& a, const GemmOperand& b, const GemmBias* bias,
                        const Tensor& out, const Tensor& residual) {
  const GemmProblem g{.op = "gemm", .batch = 1, .rows = rows, .inner = 0, .cols = cols, .a = a, .b = b, .bias = bias,
                      .out = out, .residual = residual};
  return choose_gemm_method(g) == GemmMethod::Tile128;
}

namespace {
// conv2d_igemm's push constants after the GEMM's. Must match gemm_tile128.glsl's IMPLICIT_CONV block.
struct ConvPatchParams {
  int32_t in_w, in_h, out_w, out_h, pad_w, pad_h;
};

// conv2d_igemm's tile for a product: 64 rows where there are at most 64 (a 128-row tile would
// idle half), 64 columns for products of at most 256 (small planes of a small batch).
// TVK_IGEMM_TILE=<rows>x<cols> (each 64 or 128) forces one, to compare.
std::pair<int64_t, int64_t> igemm_tile(int64_t rows, int64_t cols) {
  const std::string& f = kernel_options().igemm_tile;
  if (!f.empty()) {
    return {f.rfind("64x", 0) == 0 ? 64 : 128, f.size() > 3 && f.substr(f.size() - 3) == "x64" ? 64 : 128};
  }
  return {rows <= 64 ? 64 : 128, cols <= 256 ? 64 : 128};
}
}  // namespace

bool conv_gemm_implicit_can_run(const ops::Conv2dParams& c, const Tensor& weight, const Tensor& input,
                                const Tensor& out, const Tensor& bias, const Tensor& residual) {
  return c.groups == 1 && !c.transposed && tile128_bindings_fit(weight, input, out, bias, residual);
}

bool conv_gemm_implicit_takes(const ops::Conv2dParams& c, const Tensor& weight, const Tensor& input, const Tensor& out,
                              const Tensor& bias, const Tensor& residual) {
  return tile128_enabled() && conv_gemm_implicit_can_run(c, weight, input, out, bias, residual);
}

void launch_conv_gemm(const char* op, const ops::Conv2dParams& c, const Tensor& out, const Tensor& weight,
                      const Tensor& input, const Tensor& bias, const Epilogue& epilogue, const Tensor& residual) {
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  const int64_t rows = c.out_channels, inner = c.in_channels * c.kernel_h * c.kernel_w;
  const int64_t plane = c.out_h * c.out_w, cols = c.batch * plane;
  TVK_CHECK(weight.numel() >= rows * inner && input.numel() >= c.batch * c.in_channels * c.in_h * c.in_w &&
                out.numel() >= rows * cols && (!residual.defined() || residual.numel() == rows * cols),
            op, ": operands smaller than the convolution's geometry");
  const TiledGemmParams p{i32(rows), i32(cols), i32(inner), 1,
                          0, i32(inner), 1,
                          i32(c.in_channels * c.in_h * c.in_w), 0, 1,
                          0, 1, 0, bias.defined() ? 1 : 0,
                          1.0f, 1.0f, epilogue.min, epilogue.max,
                          residual.defined() ? 1 : 0};
  const ConvPatchParams tail{i32(c.in_w), i32(c.in_h), i32(c.out_w), i32(c.out_h), i32(c.padding[1]),
                             i32(c.padding[0])};
  (void)i32(c.batch * c.in_channels * c.in_h * c.in_w);
  (void)i32(rows * cols);
  if (rows == 0 || cols == 0) return;
  const auto [tile_rows, tile_cols] = igemm_tile(rows, cols);
  const int64_t tiles = (rows + tile_rows - 1) / tile_rows * ((cols + tile_cols - 1) / tile_cols);
  // Split K, as for gemm_tile128, for 4/3 work groups of 256 lanes per multiprocessor (smaller
  // groups count for less), up to 32 parts of 64+ terms (products of a few tiles and long sums;
  // resnet18 at batch 32: its 512-channel stride-2 layer's 52 tiles in 4 parts).
  // TVK_IGEMM_SPLITS=<n> forces n parts, to compare.
  const int64_t threads = tile_rows * tile_cols / 64;
  uint32_t splits = gemm_k_splits(tiles, inner, rows * cols, compute_units() * 4 / 3 * 256 / threads, 32, 64);
  if (const int forced = kernel_options().igemm_splits) splits = static_cast<uint32_t>(forced);
  auto u32_of = [&](int64_t v) { return static_cast<uint32_t>(i32(v)); };
  const GemmBias b{bias, 0, 1, 0, false};
  run_tile128(op, "conv2d_igemm", {tile_rows, tile_cols, splits},
              {u32_of(c.kernel_h), u32_of(c.kernel_w), u32_of(c.stride[0]), u32_of(c.stride[1]), u32_of(c.dilation[0]),
               u32_of(c.dilation[1])},
              out, weight, input, bias.defined() ? &b : nullptr, residual,
              c.batch > 1 ? GemmColumnBlocks{plane, plane} : GemmColumnBlocks{}, p, epilogue.activation(), &tail,
              sizeof tail);
}

bool use_tiled_gemm(int64_t rows, int64_t inner) {
  return kernel_options().tiled_gemm && rows >= 16 && inner <= kMaxLoopIterations;
}

namespace {
bool texels_fit(const Tensor& t, bool half) {
  return texel_view_fits(t, half ? Buffer::TexelFormat::R16F : Buffer::TexelFormat::R32);
}
}  // namespace

bool gemm_method_can_run(GemmMethod m, const GemmProblem& g) {
  const bool blocked = g.blocks.block > 0;
  // The tiled kernels walk K in one loop, which lavapipe stops after 65535 iterations; all but
  // gemm_tile128 read their operands through texel views.
  const bool tiled = g.inner <= kMaxLoopIterations;
  const bool texel_reads = !blocked && tiled && texels_fit(g.a.tensor, g.a.half) && texels_fit(g.b.tensor, g.b.half) &&
                           (!g.bias || texels_fit(g.bias->tensor, g.bias->half));
  switch (m) {
    case GemmMethod::Auto:
      return false;
    case GemmMethod::Rows:
      return g.row_kernel && !blocked && !g.residual.defined();
    case GemmMethod::RegisterTiles:
    case GemmMethod::SharedTiles:
      return texel_reads;
    case GemmMethod::Coopmat:
      // Its operands are rounded to fp16: only where fp16 precision allows that.
      return texel_reads && Context::get()->device().physical().cooperative_matrix() &&
             vulkan_precision() == Precision::FP16;
    case GemmMethod::Tile128:
      return tiled && !g.a.half && !g.b.half && (!g.bias || !g.bias->half) && g.b.col_stride == 1 &&
             g.b.row_stride % 4 == 0 && g.b.batch_stride % 4 == 0 &&
             (!blocked || (g.batch == 1 && g.cols % g.blocks.block == 0 && g.blocks.valid > 0 &&
                           g.blocks.valid <= g.blocks.block)) &&
             tile128_bindings_fit(g.a.tensor, g.b.tensor, g.out, g.bias ? g.bias->tensor : Tensor(), g.residual);
  }
  return false;
}

namespace {
// What runs fastest where several methods can run: the rules measured on an NVIDIA GPU and
// lavapipe (docs/architecture.md's kernel table). Below 16 rows a tile wastes most of its work,
// and the row kernels also take sums longer than a tiled kernel's loop may run on lavapipe.
GemmMethod preferred_gemm_method(const GemmProblem& g) {
  const KernelOptions& o = kernel_options();
  if (g.row_kernel && !use_tiled_gemm(g.rows, g.inner)) return GemmMethod::Rows;
  if (o.coopmat && gemm_method_can_run(GemmMethod::Coopmat, g)) return GemmMethod::Coopmat;
  // Large fp32 products on GPUs (convolutions as GEMMs, Winograd's products); a smaller one
  // would idle most of a 128-column tile.
  if (tile128_enabled() && g.rows >= kTile128MinRows && (g.cols >= kTile128MinCols || g.cols == kTile128) &&
      gemm_method_can_run(GemmMethod::Tile128, g))
    return GemmMethod::Tile128;
  // TVK_GEMM_SHARED=0 runs the register-tiled kernel on GPUs too, to compare the two.
  if (o.gemm_shared && gpu_shaped_kernels()) return GemmMethod::SharedTiles;
  return GemmMethod::RegisterTiles;
}
}  // namespace

GemmMethod choose_gemm_method(const GemmProblem& g) {
  return choose_method(g.op, kernel_options().gemm, preferred_gemm_method(g), kGemmMethods,
                       [&g](GemmMethod m) { return gemm_method_can_run(m, g); });
}

namespace {
void run_tiled_gemm(GemmMethod method, const GemmProblem& g);

// Runs `method` (one that can run `g`).
void run_gemm_method(GemmMethod method, const GemmProblem& g) {
  if (method == GemmMethod::Rows) {
    TVK_CHECK(g.row_kernel, g.op, ": this product has no row kernel");
    g.row_kernel(g);
    return;
  }
  run_tiled_gemm(method, g);
}

// What decides which methods can run a product and how fast: its op (whose row kernel it has),
// shape, operand layouts and forms, epilogue, and the precision.
std::string gemm_signature(const GemmProblem& g) {
  auto operand = [](const GemmOperand& o) {
    return detail::concat(o.batch_stride, ",", o.row_stride, ",", o.col_stride, o.half ? " fp16" : "");
  };
  return detail::concat(g.op, " gemm b", g.batch, " m", g.rows, " k", g.inner, " n", g.cols, " a", operand(g.a), " b",
                        operand(g.b),
                        g.bias ? detail::concat(" bias", g.bias->row_stride, ",", g.bias->col_stride) : std::string(),
                        g.residual.defined() ? " residual" : "",
                        vulkan_precision() == Precision::FP16 ? " precision fp16" : " precision fp32");
}

// Tuning one product (tuning.h), as run_convolution tunes a layer: every method that can run it
// timed on random stand-ins for its fp32 operands (which a plan being recorded has not computed
// yet; fp16 operands are packed weights, used as they are), each output checked against the
// reference's (`preferred`, the rules' choice), the fastest correct one returned and written to
// `table`. Runs eagerly, outside any capture this thread records, and waits for its work.
GemmMethod tune_gemm_method(const GemmProblem& g, GemmMethod preferred, const std::string& signature,
                            TuningTable& table, TuningClock& clock) {
  std::vector<std::string> methods{to_string(preferred)};
  for (const GemmMethod m : kGemmMethods)
    if (m != preferred && gemm_method_can_run(m, g)) methods.push_back(to_string(m));
  if (methods.size() == 1) return preferred;
  CommandStream::CaptureSuspension suspension;
  std::vector<std::pair<Tensor, Tensor>> stand_ins;  // (operand, its random stand-in)
  auto stand_in = [&](const Tensor& t, bool half) {
    if (half) return t;
    for (const auto& [original, random] : stand_ins)
      if (original.storage() == t.storage()) return random;
    Tensor random = rand(t.sizes(), static_cast<uint64_t>(stand_ins.size() + 1), tvk::Device::Vulkan);
    stand_ins.emplace_back(t, random);
    return random;
  };
  GemmProblem trial = g;
  trial.a.tensor = stand_in(g.a.tensor, g.a.half);
  trial.b.tensor = stand_in(g.b.tensor, g.b.half);
  GemmBias bias;
  if (g.bias) {
    bias = *g.bias;
    bias.tensor = stand_in(g.bias->tensor, g.bias->half);
    trial.bias = &bias;
  }
  const std::string best = tune_methods(
      signature, methods, [&] { return empty_vulkan(g.out.sizes()); },
      [&](const std::string& m, const Tensor& result) {
        trial.out = result;
        run_gemm_method(*gemm_method_named(m), trial);
      },
      tuning_tolerance(g.a.half || g.b.half || vulkan_precision() == Precision::FP16), table, clock);
  return *gemm_method_named(best);
}

// Whether tuning may time `g` on stand-ins: its fp32 operands and output are whole contiguous
// tensors (the strides it reads them by then mean the same in a stand-in of their sizes).
bool tunable(const GemmProblem& g) {
  auto whole = [](const Tensor& t, bool half) { return half || (t.is_contiguous() && t.storage_offset() == 0); };
  return whole(g.a.tensor, g.a.half) && whole(g.b.tensor, g.b.half) && (!g.bias || whole(g.bias->tensor, g.bias->half)) &&
         !g.residual.defined() && g.blocks.block == 0;
}
}  // namespace

GemmMethod run_gemm(const GemmProblem& g) {
  const KernelOptions& options = kernel_options();
  // A product inside another op's method (a convolution's) runs under that method's name, and
  // is tuned as part of it.
  const bool own_op = current_method() == nullptr;
  GemmMethod method = choose_gemm_method(g);
  if (own_op && options.gemm == GemmMethod::Auto) {
    const auto name = tuned_method(
        options, [&] { return gemm_signature(g); },
        [&](const std::string& signature, TuningTable& table, TuningClock& clock) {
          return std::string(to_string(tunable(g) ? tune_gemm_method(g, method, signature, table, clock) : method));
        });
    const auto tuned = name ? gemm_method_named(*name) : std::nullopt;
    if (tuned && gemm_method_can_run(*tuned, g)) method = *tuned;
  }
  const OpMethod recorded(g.op, to_string(method));
  run_gemm_method(method, g);
  return method;
}

void launch_tiled_gemm(const char* op, const Tensor& out, int64_t batch, int64_t rows, int64_t inner, int64_t cols,
                       const GemmOperand& a, const GemmOperand& b, const GemmBias* bias, double alpha, double beta,
                       const Epilogue& epilogue, const Tensor& residual, const GemmColumnBlocks& blocks) {
  run_gemm(GemmProblem{.op = op, .batch = batch, .rows = rows, .inner = inner, .cols = cols, .a = a, .b = b,
                       .bias = bias, .out = out, .residual = residual, .blocks = blocks, .alpha = alpha,
                       .beta = beta, .epilogue = epilogue});
}

namespace {
void run_tiled_gemm(GemmMethod method, const GemmProblem& g) {
  const char* op = g.op;
  const int64_t batch = g.batch, rows = g.rows, inner = g.inner, cols = g.cols;
  const GemmOperand &a = g.a, &b = g.b;
  const GemmBias* bias = g.bias;
  const Tensor &out = g.out, &residual = g.residual;
  const GemmColumnBlocks& blocks = g.blocks;
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  const bool blocked = blocks.block > 0;
  TVK_CHECK(method != GemmMethod::Rows && gemm_method_can_run(method, g), op, ": the ", to_string(method),
            " matrix product cannot run a product of ", batch, " x ", rows, " x ", inner, " x ", cols, " here");
  const int64_t out_values = blocked ? cols / blocks.block * rows * blocks.valid : batch * rows * cols;
  TVK_CHECK(out.numel() >= out_values, op, ": the product's output ", out.shape_string(), " holds fewer than ",
            out_values, " values");
  TVK_CHECK(!residual.defined() || residual.numel() == out_values, op, ": residual ", residual.shape_string(),
            " is not ", out_values, " values");
  const TiledGemmParams p{i32(rows), i32(cols), i32(inner), i32(batch),
                          i32(a.batch_stride), i32(a.row_stride), i32(a.col_stride),
                          i32(b.batch_stride), i32(b.row_stride), i32(b.col_stride),
                          bias ? i32(bias->offset) : 0, bias ? i32(bias->row_stride) : 0,
                          bias ? i32(bias->col_stride) : 0, bias ? 1 : 0,
                          static_cast<float>(g.alpha), static_cast<float>(g.beta), g.epilogue.min, g.epilogue.max,
                          residual.defined() ? 1 : 0};
  // Every index the shaders form stays inside 32 bits: the last element of each operand.
  (void)i32((batch - 1) * a.batch_stride + (rows - 1) * a.row_stride + (inner - 1) * a.col_stride);
  (void)i32((batch - 1) * b.batch_stride + (inner - 1) * b.row_stride + (cols - 1) * b.col_stride);
  (void)i32(batch * rows * cols);
  if (batch == 0 || rows == 0 || cols == 0) return;
  const Binding bias_texels = bias ? texels(bias->tensor, bias->half, false) : texels(a.tensor, a.half, false);
  const Binding residual_texels = residual.defined() ? texels1(residual) : texels(a.tensor, a.half, false);
  // Tensor cores, operands rounded to fp16.
  if (method == GemmMethod::Coopmat) {
    const PhysicalDeviceInfo& device = Context::get()->device().physical();
    const CoopmatTile tile = coopmat_tile();
    auto tiles = [op](int64_t n, uint32_t side) { return static_cast<uint32_t>(to_i32(op, (n + side - 1) / side)); };
    const bool a_vec4 = a_quads(a, inner);
    const uint32_t b_mode = b_quads(b, cols) ? 1 : b_k_quads_fit(b, inner) ? 2 : 0;
    // B staged [n][k] where its unit stride runs along k.
    const bool b_k_major = b_mode == 2 || (b_mode == 0 && b.row_stride == 1 && b.col_stride != 1);
    // An fp32 operand against fp16 weights (activations, or a stem's fp32 weights against fp16
    // patches) keeps what its rounding loses as a second fp16 operand: on the H200, mobilenet_v2
    // in fp16 over 8 images at batch 8 went from 1.22e-2 to 6.9e-3 off fp32 at worst, for 0-3%
    // more GPU time at batch 32 (docs/benchmarks.md). TVK_COOPMAT_SPLIT=0 rounds it, to compare.
    const bool split_on = kernel_options().coopmat_split;
    const bool a_split = split_on && !a.half && b.half, b_split = split_on && !b.half && a.half;
    ShaderLaunch l;
    l.shader = a_split || b_split ? "gemm_coopmat_split" : "gemm_coopmat";
    l.local = {tile.threads(), 1, 1};
    l.global = {tiles(cols, tile.bn) * tile.threads(), tiles(rows, tile.bm), static_cast<uint32_t>(i32(batch))};
    l.constants = {device.coopmat_m, device.coopmat_n, device.coopmat_k, tile.bm, tile.bn, tile.wm, tile.wn,
                   a_vec4 ? 1u : 0u, b_mode, b_k_major ? 1u : 0u, a_split ? 1u : 0u, b_split ? 1u : 0u};
    l.activation = g.epilogue.activation();
    launch(l, {out, texels(a.tensor, a.half, a_vec4), texels(b.tensor, b.half, b_mode != 0), bias_texels, residual_texels},
           p);
    return;
  }
  // Tiles of 128 columns x 128 or 64 rows, 8 x 8 per invocation; B's rows read as vec4.
  if (method == GemmMethod::Tile128) {
    // TVK_GEMM_TILE_M=64 or 128 forces one row count, to compare.
    const int forced_rows = kernel_options().gemm_tile_m;
    const int64_t tile_rows = forced_rows ? (forced_rows == 64 ? kTile128HalfRows : kTile128)
                              : rows <= kTile128HalfRows ? kTile128HalfRows : kTile128;
    const int64_t tiles = (cols + kTile128 - 1) / kTile128 * ((rows + tile_rows - 1) / tile_rows) * batch;
    // Split K for 4/3 work groups per multiprocessor, up to 4 parts of 128+ terms. On the H200
    // (132 multiprocessors), resnet18 at batch 32: 52 tiles of 2304 terms took 0.308 ms whole and
    // 0.135 in 4 parts, 144 of 512 terms 0.118 and 0.101 in 2; 196 tiles of 576 terms lost
    // (0.134 -> 0.142 in 2), hence a bar between.
    // TVK_GEMM_SPLITS=<n> forces n parts, to compare.
    uint32_t splits = gemm_k_splits(tiles, inner, batch * rows * cols, compute_units() * 4 / 3, 4, 128);
    if (const int forced = kernel_options().gemm_splits) splits = static_cast<uint32_t>(forced);
    run_tile128(op, "gemm_tile128", {tile_rows, kTile128, splits}, {}, out, a.tensor, b.tensor, bias, residual, blocks,
                p, g.epilogue.activation(), nullptr, 0);
    return;
  }
  if (method == GemmMethod::SharedTiles) {
    auto groups = [&](int64_t n) { return static_cast<uint32_t>(i32((n + kGemmTile - 1) / kGemmTile) * kGemmGroupSide); };
    launch(ShaderLaunch{"gemm_tiled", {groups(cols), groups(rows), static_cast<uint32_t>(i32(batch))},
                        {kGemmGroupSide, kGemmGroupSide, 1}, {}, g.epilogue.activation()},
           {out, texels(a.tensor, a.half, false), texels(b.tensor, b.half, false), bias_texels, residual_texels}, p);
    return;
  }
  const bool a_vec4 = a_quads(a, inner);
  const bool b_k_quads = a_vec4 && b_k_quads_fit(b, inner), b_vec4 = !b_k_quads && b_quads(b, cols);
  const std::array<uint32_t, 3> grid{static_cast<uint32_t>(i32((cols + kRowsTileCols - 1) / kRowsTileCols)),
                                     static_cast<uint32_t>(i32((rows + kRowsTileRows - 1) / kRowsTileRows)),
                                     static_cast<uint32_t>(i32(batch))};
  ShaderLaunch rows_launch =
      grid_launch("gemm_rows", grid, {a_vec4 ? 1u : 0u, b_k_quads ? 2u : b_vec4 ? 1u : 0u, kRowsTileRows});
  rows_launch.activation = g.epilogue.activation();
  launch(rows_launch,
         {out, texels(a.tensor, a.half, a_vec4), texels(b.tensor, b.half, b_vec4 || b_k_quads), bias_texels,
          residual_texels},
         p);
}
}  // namespace

namespace {

struct MatmulParams {
  int32_t rows, cols, inner, batch;
  int32_t a_batch_stride, a_row_stride, a_inner_stride;
  int32_t b_batch_stride, b_inner_stride, b_col_stride;
  int32_t bias_row_stride, bias_col_stride, has_bias;
  float alpha, beta;
};

// A matrix operand: a contiguous Vulkan buffer and the (batch, row, col) strides to read it by.
struct Operand {
  Tensor buffer;
  int64_t batch_stride, row_stride, col_stride;
};
Operand matrix(const Tensor& t) { return {t, t.sizes()[0] * t.sizes()[1], t.sizes()[1], 1}; }          // [n, m]
Operand batched(const Tensor& t) { return {t, t.sizes()[1] * t.sizes()[2], t.sizes()[2], 1}; }         // [B, n, m]
Operand transposed(const Tensor& t) { return {t, t.sizes()[0] * t.sizes()[1], 1, t.sizes()[1]}; }      // [m, n] as [n, m]

// The eager products' row kernel (GemmMethod::Rows): matmul.glsl, one output per invocation.
void matmul_rows(const GemmProblem& g) {
  auto i32 = [&g](int64_t v) { return to_i32(g.op, v); };
  const MatmulParams p{i32(g.rows), i32(g.cols), i32(g.inner), i32(g.batch),
                       i32(g.a.batch_stride), i32(g.a.row_stride), i32(g.a.col_stride),
                       i32(g.b.batch_stride), i32(g.b.row_stride), i32(g.b.col_stride),
                       g.bias ? i32(g.bias->row_stride) : 0, g.bias ? i32(g.bias->col_stride) : 0, g.bias ? 1 : 0,
                       static_cast<float>(g.alpha), static_cast<float>(g.beta)};
  const std::array<uint32_t, 3> grid{static_cast<uint32_t>(i32(g.cols)), static_cast<uint32_t>(i32(g.rows)),
                                     static_cast<uint32_t>(i32(g.batch))};
  launch(grid_launch("matmul", grid),
         {g.out, texels1(g.a.tensor), texels1(g.b.tensor), texels1(g.bias ? g.bias->tensor : g.a.tensor)}, p);
}

// out [batch, rows, cols] = beta * bias + alpha * a @ b, `bias` broadcast to [rows, cols].
Tensor product(const char* op, const IntList& out_sizes, int64_t batch, int64_t rows, int64_t inner, int64_t cols,
               const Operand& a, const Operand& b, const Tensor& bias, double beta, double alpha) {
  Tensor out = empty_vulkan(out_sizes);
  const bool use_bias = bias.defined() && beta != 0;  // beta == 0 ignores the bias, NaN included
  IntList bias_strides{0, 0};
  if (use_bias) {
    check_vulkan_float(op, bias, "bias");
    bias_strides = ops::broadcast_strides(bias, {rows, cols});
  }
  for (const Tensor* t : {&a.buffer, &b.buffer, &bias})
    TVK_CHECK(!t->defined() || texel_view_fits(*t, Buffer::TexelFormat::R32), op, ": an operand ",
              t->shape_string(), " exceeds this device's texel buffer limit (maxTexelBufferElements)");
  const GemmBias gemm_bias{use_bias ? bias : a.buffer, 0, bias_strides[0], bias_strides[1]};
  run_gemm(GemmProblem{.op = op, .batch = batch, .rows = rows, .inner = inner, .cols = cols,
                       .a = {a.buffer, a.batch_stride, a.row_stride, a.col_stride},
                       .b = {b.buffer, b.batch_stride, b.row_stride, b.col_stride},
                       .bias = use_bias ? &gemm_bias : nullptr, .out = out, .alpha = alpha, .beta = beta,
                       .row_kernel = matmul_rows});
  return out;
}

Tensor mm(const Tensor& self, const Tensor& mat2) {
  const char* op = "aten::mm";
  ops::check_mm(op, self, mat2);
  check_vulkan_float(op, self, "self");
  check_vulkan_float(op, mat2, "mat2");
  const int64_t n = self.sizes()[0], m = self.sizes()[1], p = mat2.sizes()[1];
  return product(op, {n, p}, 1, n, m, p, matrix(self), matrix(mat2), Tensor(), 0, 1);
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  const char* op = "aten::bmm";
  ops::check_bmm(op, self, mat2);
  check_vulkan_float(op, self, "self");
  check_vulkan_float(op, mat2, "mat2");
  const int64_t batch = self.sizes()[0], n = self.sizes()[1], m = self.sizes()[2], p = mat2.sizes()[2];
  return product(op, {batch, n, p}, batch, n, m, p, batched(self), batched(mat2), Tensor(), 0, 1);
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, ops::Scalar beta, ops::Scalar alpha) {
  const char* op = "aten::addmm";
  ops::check_mm(op, mat1, mat2);
  check_vulkan_float(op, mat1, "mat1");
  check_vulkan_float(op, mat2, "mat2");
  check_vulkan_float(op, self, "self");
  const int64_t n = mat1.sizes()[0], m = mat1.sizes()[1], p = mat2.sizes()[1];
  const IntList out_sizes{n, p};
  TVK_CHECK(ops::broadcast_shapes(op, self.sizes(), out_sizes) == out_sizes, op, ": self ", self.shape_string(),
            " does not broadcast to the product's shape ", shape_string(out_sizes));
  return product(op, out_sizes, 1, n, m, p, matrix(mat1), matrix(mat2), self, beta, alpha);
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const char* op = "aten::linear";
  ops::check_linear(input, weight, bias);
  check_vulkan_float(op, input, "input");
  check_vulkan_float(op, weight, "weight");
  const int64_t in = weight.sizes()[1], out = weight.sizes()[0];
  const int64_t rows = in == 0 ? 0 : input.numel() / in;
  IntList out_sizes = input.sizes();
  out_sizes.back() = out;
  return product(op, out_sizes, 1, rows, in, out, {input, rows * in, in, 1}, transposed(weight),
                 bias.defined() ? bias.view({out}) : bias, 1, 1);
}

// Expands a (possibly unsqueezed) operand to its broadcast batch shape; a copy only when the
// batch dims actually broadcast.
Tensor expand_operand(const Tensor& t, const IntList& sizes) {
  if (t.sizes() == sizes) return t;
  if (numel_of(t.sizes()) == numel_of(sizes)) return t.view(sizes);
  return materialize("aten::matmul", t, ops::expand_geometry("aten::matmul", t, sizes));
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  const char* op = "aten::matmul";
  check_vulkan_float(op, self, "self");
  check_vulkan_float(op, other, "other");
  Tensor a, b;
  const ops::MatmulShape s = ops::matmul_shape(self, other, a, b);
  const int64_t batch = numel_of(s.batch);
  const Tensor a3 = expand_operand(a, s.a_sizes).view({batch, s.rows, s.inner});
  const Tensor b3 = expand_operand(b, s.b_sizes).view({batch, s.inner, s.cols});
  return product(op, s.out_sizes, batch, s.rows, s.inner, s.cols, batched(a3), batched(b3), Tensor(), 0, 1);
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::mm", mm);
TVK_REGISTER_VULKAN_KERNEL("aten::bmm", bmm);
TVK_REGISTER_VULKAN_KERNEL("aten::addmm", addmm);
TVK_REGISTER_VULKAN_KERNEL("aten::linear", linear);
TVK_REGISTER_VULKAN_KERNEL("aten::matmul", matmul);

}  // namespace tvk::vulkan
