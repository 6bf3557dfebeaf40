// The one way Vulkan kernels launch work: bind tensors in order, push a parameter struct, and
// cover a global size with work groups. Keeps every bound storage alive until the GPU is done.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

#include "ops/shape_utils.h"
#include "tvk/vulkan_info.h"
#include "vulkan/vulkan_storage.h"

namespace tvk::vulkan {

struct ShaderLaunch {
  std::string shader;
  std::array<uint32_t, 3> global{1, 1, 1};       // invocations wanted in x, y, z
  std::array<uint32_t, 3> local{64, 1, 1};        // work-group size
  std::vector<uint32_t> constants;                // specialisation constants 3..
  // The activation the kernel's epilogue applies after its clamp (ops::FusedActivation; 0:
  // none), for shaders that include fused_activation.glslh.
  uint32_t activation = 0;
};

// How a kernel binds a tensor: as a storage buffer (the default), or through a uniform texel
// buffer view (`samplerBuffer` in GLSL) of one float (R32) or four floats (RGBA32) per texel.
// Texel reads are gathered in SIMD on lavapipe, where storage-buffer reads inside loops are
// made one invocation at a time, and go through the texture cache on GPUs.
struct Binding {
  Binding(Tensor t) : tensor(std::move(t)) {}  // NOLINT: tensors bind as storage buffers
  Binding(Tensor t, Buffer::TexelFormat f) : tensor(std::move(t)), texel(true), format(f) {}
  Tensor tensor;
  bool texel = false;
  Buffer::TexelFormat format = Buffer::TexelFormat::R32;
  // Storage bindings: a byte range of the tensor (size 0: all of it), for kernels that split
  // work over parts of a tensor larger than one binding may hold (maxStorageBufferRange).
  VkDeviceSize byte_offset = 0, byte_size = 0;
};
// Bytes of one storage binding this device allows.
VkDeviceSize max_storage_binding();
inline Binding texels1(Tensor t) { return Binding(std::move(t), Buffer::TexelFormat::R32); }
inline Binding texels4(Tensor t) { return Binding(std::move(t), Buffer::TexelFormat::RGBA32); }
// Whether `t` (a float32 Vulkan tensor) can be bound as texels of `format` on this device.
bool texel_view_fits(const Tensor& t, Buffer::TexelFormat format);
// Whether the whole of `t`'s buffer can be bound as one storage buffer on this device.
bool storage_binding_fits(const Tensor& t);

// Weights in `precision` (by default the one set by set_vulkan_precision): `values` (a float32
// Vulkan tensor) itself under FP32, else a tensor holding its values as 16-bit floats (two per
// float32 element; ceil(n / 2) elements), to be bound with the 16-bit `half_format` (R16F or
// RGBA16F).
struct StoredWeights {
  Tensor storage;
  Buffer::TexelFormat format;
};
StoredWeights store_weights(const Tensor& values, Buffer::TexelFormat full_format, Buffer::TexelFormat half_format,
                            Precision precision = vulkan_precision());

// Records the dispatch; does nothing when the global size is empty.
void launch(const ShaderLaunch& launch, std::initializer_list<Binding> bindings, const void* params,
            uint32_t params_bytes);

template <typename Params>
void launch(const ShaderLaunch& l, std::initializer_list<Binding> bindings, const Params& params) {
  static_assert(sizeof(Params) <= kMaxPushConstantBytes, "push constants too large");
  launch(l, bindings, &params, sizeof(Params));
}

// A work-group shape for a 3-D launch: up to 8 x 8 in x and y, the rest of 64 in z, shrunk
// where the global size is smaller so small outputs do not idle most of a group.
std::array<uint32_t, 3> local_size_for(const std::array<uint32_t, 3>& global);
// A 3-D launch of `global` invocations with a work-group shape from local_size_for.
inline ShaderLaunch grid_launch(std::string shader, std::array<uint32_t, 3> global,
                                std::vector<uint32_t> constants = {}) {
  return ShaderLaunch{std::move(shader), global, local_size_for(global), std::move(constants)};
}
// How many ways to split a reduction of length `k` (over the y dimension of a work group) so
// that `invocations` x split reaches what fills the device: 1 on CPU devices (lavapipe), whose
// few cores are busy already; on GPUs up to `max_split`, keeping at least `min_per_slice`
// terms per slice.
uint32_t reduction_split(int64_t invocations, int64_t k, uint32_t max_split, int64_t min_per_slice = 16);
// Whether kernels take their GPU shape (loops unrolled for memory-level parallelism, say): true
// on GPUs, false on CPU devices such as lavapipe, true there too under TVK_REDUCTION_SPLIT.
bool gpu_shaped_kernels();
// One work group of `group` invocations (x) per row, `rows` groups folded into x and y when x
// would exceed the group-count limit (shaders find their row as WorkGroupID.x + .y * NumWorkGroups.x).
ShaderLaunch row_groups_launch(std::string shader, int64_t rows, uint32_t group);
// A 1-D launch over `n` elements, folded into y when x would exceed the group-count limit.
std::array<uint32_t, 3> elementwise_global(int64_t n, uint32_t local_x = 64);

// Whether fp16 weights are read as f16vec4 (the 16-bit-storage variants conv2d_oc8_storage16
// and conv2d_split16; half_weights.glslh): where the device has 16-bit storage and fp16
// arithmetic. Without the latter they are decoded in integer arithmetic: arm64 lavapipe reports
// 16-bit storage but no fp16 arithmetic, and its compiler aborts on the f16vec4 -> vec4
// conversion ("Cannot select v4f32 = fp_extend"). On an H100 the conversion is level with
// unpackHalf2x16 and the integer decode a third slower (docs/benchmarks.md).
bool reads_f16_storage();
// Whether kernels may choose `shader` on this device: the 16-bit-storage variants where
// reads_f16_storage(), the tensor-core GEMMs where the device has cooperative matrices, every
// other shader anywhere. The portability pass makes only these.
bool shader_selectable(const std::string& shader);

// A narrowing cast for push constants that names the op when a size does not fit 32 bits.
int32_t to_i32(const char* op, int64_t v);
// Elementwise shaders take shapes and strides as rank-6 push-constant arrays.
inline constexpr size_t kMaxElementwiseRank = 6;
// Right-aligns `values` (at most kMaxElementwiseRank of them) into `dst`, padded in front with `fill`.
inline void right_aligned(uint32_t (&dst)[kMaxElementwiseRank], const IntList& values, uint32_t fill) {
  const size_t shift = kMaxElementwiseRank - values.size();
  for (size_t i = 0; i < kMaxElementwiseRank; ++i) dst[i] = i < shift ? fill : static_cast<uint32_t>(values[i - shift]);
}
// A new contiguous float32 Vulkan tensor.
Tensor empty_vulkan(const IntList& sizes);
// Checks `t` is a float32 Vulkan tensor, naming the op.
// Throws UnsupportedError (which the CPU fallback takes) for a dtype other than float32.
void check_vulkan_float(const char* op, const Tensor& t, const char* arg = "self");

}  // namespace tvk::vulkan
