// How Vulkan kernels are chosen: a typed options object (forced methods, comparison switches)
// made once from the environment (the one place the kernel-choice TVK_* variables are read) and
// given to a stretch of work by ScopedKernelOptions, and the convolution's named methods.
// Kernels read the options in force with kernel_options(); a test flips them per call, as
// ncnn's Option is flipped per layer test, instead of re-running a suite under a variable.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tvk/vulkan_info.h"

namespace tvk::vulkan {

class TuningTable;  // tuning.h
class TuningClock;

// The ways tvk runs a convolution (conv.cpp). Each is one named kernel path; which can run a
// layer is a predicate of its geometry, weights and the device (conv_method_can_run), and which
// runs is one decision (choose_conv_method).
enum class ConvMethod : uint8_t {
  Auto,            // chosen per layer
  Direct,          // conv2d.glsl: any grouping, one output quad of 4 channels per invocation
  Transposed,      // conv_transpose2d.glsl
  Depthwise,       // conv2d_dw.glsl: 4 rows x 4 pixels per invocation, texel reads (CPU devices)
  DepthwisePixel,  // conv2d_dw_pixel.glsl: one output per invocation, storage reads (GPUs)
  Oc8,             // conv2d_oc8.glsl: 4 pixels x 8 output channels per invocation, split K over y
  Split,           // conv2d_split.glsl: one tile per work-group row, its K split over the lanes
  Im2colOc8,       // conv2d_im2col.glsl, then conv2d_oc8's pointwise GEMM over whole texels
  Winograd,        // F(4,3): conv2d_wino_in, 36 products (conv2d_oc8 or a GEMM kernel), conv2d_wino_out
  PointwiseGemm,   // a 1x1 convolution as one batched GEMM (gemm.h)
  Im2colGemm,      // conv2d_im2col, then a GEMM kernel (gemm.h)
  ImplicitGemm,    // conv2d_igemm: the GEMM gathers its patches from the input as it reads them
};
inline constexpr std::array<ConvMethod, 11> kConvMethods{
    ConvMethod::Direct,    ConvMethod::Transposed,    ConvMethod::Depthwise,  ConvMethod::DepthwisePixel,
    ConvMethod::Oc8,       ConvMethod::Split,         ConvMethod::Im2colOc8,  ConvMethod::Winograd,
    ConvMethod::PointwiseGemm, ConvMethod::Im2colGemm, ConvMethod::ImplicitGemm};
// "direct", "split", "im2col_gemm", ...: the names the profile, the environment and the CLI use.
const char* to_string(ConvMethod method);
std::optional<ConvMethod> conv_method_named(std::string_view name);

// The ways tvk runs a matrix product (mm, bmm, addmm, linear, matmul, the packed linear, and
// the products inside convolutions; linear.cpp, gemm.h). Which can run a product is a predicate
// of its operands and the device (gemm_method_can_run), and which runs is one decision
// (choose_gemm_method).
enum class GemmMethod : uint8_t {
  Auto,           // chosen per product
  Rows,           // one output (quad) per invocation: matmul.glsl, or linear_t4.glsl for the packed linear
  RegisterTiles,  // gemm_rows.glsl: 8 x 8 outputs per invocation from texel reads (CPU devices)
  SharedTiles,    // gemm_tiled.glsl: 64 x 64 tiles staged through shared memory (GPUs)
  Tile128,        // gemm_tile128.glsl: 128-column tiles, 8 x 8 per lane, K split where tiles are few
  Coopmat,        // gemm_coopmat.glsl: tensor cores, operands rounded to fp16 (fp16 precision only)
};
inline constexpr std::array<GemmMethod, 5> kGemmMethods{GemmMethod::Rows, GemmMethod::RegisterTiles,
                                                        GemmMethod::SharedTiles, GemmMethod::Tile128,
                                                        GemmMethod::Coopmat};
// "rows", "register_tiles", "shared_tiles", "tile128", "coopmat".
const char* to_string(GemmMethod method);
std::optional<GemmMethod> gemm_method_named(std::string_view name);

// The ways tvk runs max_pool2d, avg_pool2d and the adaptive pools (pooling.cpp).
enum class PoolMethod : uint8_t {
  Auto,         // chosen per call
  Window,       // pool2d.glsl, adaptive_{avg,max}_pool2d.glsl: one output per invocation, its window in a loop
  Tile,         // pool2d_tile.glsl: 4 outputs per invocation, windows up to 7x7 unrolled, texel reads
  TileStorage,  // pool2d_tile_storage: the same from a storage buffer (GPUs, tensors past a texel view)
  Group,        // adaptive_{avg,max}_pool2d.glsl GROUP 1: a work group per output, meeting in shared memory
};
inline constexpr std::array<PoolMethod, 4> kPoolMethods{PoolMethod::Window, PoolMethod::Tile,
                                                        PoolMethod::TileStorage, PoolMethod::Group};
const char* to_string(PoolMethod method);  // "window", "tile", "tile_storage", "group"
std::optional<PoolMethod> pool_method_named(std::string_view name);

// The ways tvk runs softmax and log_softmax (reduction.cpp): softmax.glsl's WIDE modes.
enum class SoftmaxMethod : uint8_t {
  Auto,      // chosen per call
  Thread,    // one invocation per row (dims of up to 65535 values: lavapipe's loop cap)
  Group,     // a work group of 64 per row, meeting in shared memory (long dims)
  Subgroup,  // a subgroup per row, coalesced reads, subgroup arithmetic (the dim innermost)
};
inline constexpr std::array<SoftmaxMethod, 3> kSoftmaxMethods{SoftmaxMethod::Thread, SoftmaxMethod::Group,
                                                              SoftmaxMethod::Subgroup};
const char* to_string(SoftmaxMethod method);  // "thread", "group", "subgroup"
std::optional<SoftmaxMethod> softmax_method_named(std::string_view name);

// Where chosen methods are written, in order, as "op method" (the tests' and tools' view of
// which path ran for each layer). Safe to share between threads.
class MethodLog {
 public:
  void add(std::string op, const char* method);
  std::vector<std::pair<std::string, std::string>> entries() const;
  void clear();

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> entries_;
};

enum class Toggle : uint8_t { Auto, On, Off };

struct KernelOptions {
  // The method every convolution that it can run takes (Auto: chosen per layer). One that
  // cannot run a layer leaves it to the choice it would have had.
  ConvMethod conv = ConvMethod::Auto;
  // The method every matrix product that it can run takes (Auto: chosen per product). One that
  // cannot run a product leaves it to the choice it would have had.
  GemmMethod gemm = GemmMethod::Auto;
  // The methods pooling (max, average, adaptive average) and softmax take where they can (Auto:
  // chosen per call).
  PoolMethod pool = PoolMethod::Auto;
  SoftmaxMethod softmax = SoftmaxMethod::Auto;
  // Convolutions on the GEMM kernels: On wherever they fit (batch 1 too), Off never, Auto where
  // they pay (tensor cores in fp16, GPUs in fp32 for all but pointwise layers).
  Toggle conv_gemm = Toggle::Auto;
  // N > 0: every split-K kernel splits by the largest power of two up to N (capped per kernel),
  // and kernels take their GPU shapes on any device (to run the GPU paths on lavapipe).
  uint32_t reduction_split = 0;
  // Whether kernels take their GPU shapes (storage-buffer reads, split reductions): Auto on
  // GPUs and wherever reduction_split is set; On everywhere; Off nowhere, so that a GPU runs the
  // texel-view paths lavapipe (and tensors past a storage binding) take.
  Toggle gpu_shapes = Toggle::Auto;

  // Comparison switches: each, turned off, replaces a faster path by the one it replaced, to
  // measure one against the other (docs/benchmarks.md).
  bool winograd = true;            // 3x3 stride-1 convolutions by Winograd F(4,3)
  bool conv_split = true;          // batch-1 convolutions on GPUs by Split
  bool split_vec_in = true;        // Split's pointwise layers read 4 pixels per load
  bool split_row3 = true;          // Split's 3-wide filter rows read as 3 vec4s
  bool defer_weights = true;       // batch-2+ weight forms made at their first use on GPUs
  bool conv_igemm = true;          // ImplicitGemm where it applies
  bool im2col_one_product = true;  // Im2colGemm as one product over the batch
  bool tiled_gemm = true;          // products of 16+ rows on the GEMM kernels
  bool gemm_shared = true;         // shared-memory GEMM tiles on GPUs
  bool gemm_tile128 = true;        // gemm_tile128 for large fp32 products
  bool gemm_split_k = true;        // gemm_tile128 splits K where its tiles are few
  bool coopmat = true;             // tensor cores in fp16 precision
  bool coopmat_split = true;       // fp32 operands kept as two halves on tensor cores

  // Forced tiles and splits, to compare (empty / 0: chosen per product).
  std::string coopmat_tile;  // "BMxBNxWMxWN"
  std::string igemm_tile;    // "<rows>x<cols>", each 64 or 128
  int igemm_splits = 0, gemm_splits = 0, gemm_tile_m = 0;

  // Where chosen methods are written (not owned; null: nowhere).
  MethodLog* log = nullptr;

  // Tuning (tvk/vulkan_info.h): Off, Cached (the table's choices, nothing timed), On (layers the
  // table lacks are timed, checked and added). A forced method (conv) is never tuned over.
  Tuning tuning = Tuning::Cached;
  // The table choices are read from and written to, and the clock candidates are timed by (not
  // owned; null: the device's table, GPU timestamps). Tests inject both.
  TuningTable* tuning_table = nullptr;
  TuningClock* tuning_clock = nullptr;

  // The options the environment asks for (docs: README's variable table): the kernel-choice
  // TVK_* variables are read here and nowhere else.
  static KernelOptions from_environment();
};

// The options in force on this thread: the innermost ScopedKernelOptions', else the
// environment's (read once per process).
const KernelOptions& kernel_options();

// Puts `options` in force on this thread until destroyed (scopes nest). Work recorded into a
// plan keeps the choices made while it was recorded.
class ScopedKernelOptions {
 public:
  explicit ScopedKernelOptions(KernelOptions options);
  ~ScopedKernelOptions();
  ScopedKernelOptions(const ScopedKernelOptions&) = delete;
  ScopedKernelOptions& operator=(const ScopedKernelOptions&) = delete;

 private:
  KernelOptions options_;
  const KernelOptions* previous_;
};

// The method a kernel is running, for the profile's labels and the method log: launches made
// while it lives carry "op method" as their label. Set by the op family's run function.
class MethodScope {
 public:
  explicit MethodScope(const char* method);
  ~MethodScope();
  MethodScope(const MethodScope&) = delete;
  MethodScope& operator=(const MethodScope&) = delete;

 private:
  const char* previous_;
};
// The innermost MethodScope's method on this thread, or null.
const char* current_method();

// The method an op runs, recorded where it is the op's own: written to the options' log and put
// in force (MethodScope) for the launches made while this lives. Inside another op's method (a
// convolution's products) it records nothing, and that method names the launches.
class OpMethod {
 public:
  OpMethod(const char* op, const char* method);
  OpMethod(const OpMethod&) = delete;
  OpMethod& operator=(const OpMethod&) = delete;

 private:
  std::optional<MethodScope> scope_;
};

// Throws the error of an op no method can run here.
[[noreturn]] void throw_no_method(const char* op);

// One op family's decision, for families whose methods need nothing but `can_run`: the forced
// method where it can run, else the preferred one (the rules'), else the first of `all` that can.
template <class Method, size_t N, class CanRun>
Method choose_method(const char* op, Method forced, Method preferred, const std::array<Method, N>& all,
                     CanRun&& can_run) {
  if (forced != Method::Auto && can_run(forced)) return forced;
  if (can_run(preferred)) return preferred;
  for (const Method m : all)
    if (can_run(m)) return m;
  throw_no_method(op);
}

}  // namespace tvk::vulkan
