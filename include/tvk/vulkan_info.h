// What `tvk info` reports about the Vulkan installation, without exposing Vulkan handles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tvk {

struct VulkanDeviceInfo {
  uint32_t index = 0;
  std::string name;
  std::string type;  // "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  std::string driver;
  std::string api_version;
  uint32_t subgroup_size = 0;
  uint32_t compute_units = 0;  // multiprocessors, where the driver says (NVIDIA, AMD); else 0
  bool fp16_arithmetic = false;
  bool storage_16bit = false;
  // Tensor-core fragments for fp16 matrix products ("16x16x16": M x N x K), used by the matrix
  // kernels in fp16 precision; empty where the device has no cooperative matrices.
  std::string cooperative_matrix;
  // Whether the device reads host memory in place (VK_EXT_external_memory_host): replays then
  // send a large page-aligned input straight from the caller's tensor, with no staging copy.
  bool host_memory_import = false;
  uint64_t device_local_bytes = 0;
  bool usable = false;  // has a compute queue and Vulkan 1.1
  bool selected = false;
};

struct VulkanInfo {
  bool built = false;         // compiled with TVK_USE_VULKAN
  bool loader_found = false;  // libvulkan could be loaded
  bool validation = false;    // the Khronos validation layer is active
  std::string error;          // why no device is selected, if none is
  std::vector<VulkanDeviceInfo> devices;
  std::string pipeline_cache_file;
};

// Enumerates devices and marks the one tvk uses; never throws.
VulkanInfo vulkan_info();

// Counters of the Vulkan device tvk uses (all zero when none is in use); for benchmarks.
struct VulkanCounters {
  uint64_t dispatches = 0;       // since start
  uint64_t submits = 0;          // since start
  uint64_t waited_ns = 0;        // host time spent waiting for the GPU's fences, since start
  uint64_t host_uploads = 0;     // replay inputs sent straight from host memory, since start
  // Device memory of every pool (the context's and the recordings' arenas):
  uint64_t used_bytes = 0;       // handed out to tensors and staging now
  uint64_t peak_used_bytes = 0;  // the most handed out at once since vulkan_reset_peak_memory()
  uint64_t reserved_bytes = 0;   // in VkDeviceMemory blocks (an arena keeps its blocks)
};
VulkanCounters vulkan_counters();
void vulkan_reset_peak_memory();
// Waits for all submitted Vulkan work.
void vulkan_synchronize();

// GPU time per op from timestamp queries around every dispatch (profiling slows dispatch
// down a little; leave it off for latency figures). Throws when the device has no timestamps.
void vulkan_set_profiling(bool on);
struct OpGpuTime {
  std::string op;  // the op the model called (or the shader, for work outside an op)
  double gpu_ms = 0;
  uint64_t dispatches = 0;
};
// Totals since the last call, largest first; synchronizes first.
std::vector<OpGpuTime> vulkan_take_profile();

// Precision of the weights Vulkan kernels keep packed. FP16 (`--precision fp16`): the weights
// of convolutions and linear layers are stored as 16-bit floats when they are packed (by
// optimize_for_mobile's contexts at load, or per call for unpacked convolutions); activations,
// inputs and outputs stay fp32. Arithmetic stays fp32 too, except that on devices with
// cooperative matrices (VulkanDeviceInfo::cooperative_matrix) matrix products of 16+ rows run
// on tensor cores with both operands rounded to fp16 (sums in fp32). Applies to weights packed
// after the call. Setting FP16 throws UnsupportedError when the device cannot read 16-bit float
// texel buffers.
enum class Precision { FP32, FP16 };
void set_vulkan_precision(Precision precision);
Precision vulkan_precision();
const char* to_string(Precision precision);

// Kernel tuning (cuDNN's benchmark mode, for Vulkan). On: while a model records its plan, each
// layer that more than one kernel method can run, and that the device's tuning table does not
// know, has every such method timed on the device (random inputs of its shapes) and checked
// against the rules' choice; the fastest correct one is kept and written to the table in the
// cache directory. Cached (the default): the table's choices are used, nothing is timed, and
// layers it lacks take the rules' choice. Off: the rules only. TVK_TUNE (0, cached, 1) sets the
// default; Module::set_tuning, `tvk tune` and `tvk bench --tune` set it per model.
enum class Tuning { Off, Cached, On };
const char* to_string(Tuning tuning);
// "off", "cached", "on" (also "0", "1"); throws tvk::Error otherwise.
Tuning parse_tuning(const std::string& name);
// The selected device's tuning table: one entry per layer signature tuned on it.
struct TunedLayer {
  std::string layer;   // "conv2d n1 i32x112x112 o16x112x112 k3x3 ..."
  std::string method;  // "split"
  std::string detail;  // each candidate's time, or why it was rejected
};
std::vector<TunedLayer> vulkan_tuned_layers();
// Where the table is kept (empty: memory only, or no device).
std::string vulkan_tuning_file();

}  // namespace tvk
