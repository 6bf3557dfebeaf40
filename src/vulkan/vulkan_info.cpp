#include "tvk/vulkan_info.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "tvk/error.h"
#include "vulkan/api/context.h"
#include "vulkan/ops/tuning.h"

namespace tvk {

VulkanInfo vulkan_info() {
  VulkanInfo info;
  info.built = true;
  std::string reason;
  info.loader_found = vulkan::load_vulkan_loader(&reason);
  if (!info.loader_found) {
    info.error = reason;
    return info;
  }
  std::string context_error;
  auto context = vulkan::Context::try_get(&context_error);
  try {
    // Enumerate through the live context when there is one, else a fresh instance.
    std::unique_ptr<vulkan::Instance> own;
    const vulkan::Instance* instance = context ? &context->instance() : nullptr;
    if (!instance) {
      own = std::make_unique<vulkan::Instance>(false);
      instance = own.get();
    }
    info.validation = context && context->instance().validation_enabled();
    for (const auto& d : instance->physical_devices()) {
      VulkanDeviceInfo v;
      v.index = d.index;
      v.name = d.name;
      v.type = d.type_name();
      v.driver = d.driver_name.empty() ? "" : d.driver_name + (d.driver_info.empty() ? "" : " " + d.driver_info);
      v.api_version = d.api_version_string();
      v.subgroup_size = d.subgroup_size;
      v.compute_units = d.compute_units;
      v.fp16_arithmetic = d.fp16_arithmetic;
      v.storage_16bit = d.storage_16bit;
      v.host_memory_import = d.host_import_alignment != 0;
      if (d.cooperative_matrix())
        v.cooperative_matrix = std::to_string(d.coopmat_m) + "x" + std::to_string(d.coopmat_n) + "x" + std::to_string(d.coopmat_k);
      v.device_local_bytes = d.device_local_bytes;
      v.usable = d.usable();
      v.selected = context && context->device().physical().index == d.index;
      info.devices.push_back(v);
    }
    if (context) info.pipeline_cache_file = context->pipelines().cache_file();
  } catch (const std::exception& e) {
    info.error = e.what();
  }
  if (!context && info.error.empty()) info.error = context_error;
  return info;
}

}  // namespace tvk

namespace tvk {

namespace {
// The context only if one exists already: counters must not start a device.
std::shared_ptr<vulkan::Context> live_context() {
  std::string ignored;
  return vulkan::Context::try_get(&ignored);
}
}  // namespace

VulkanCounters vulkan_counters() {
  VulkanCounters c;
  auto ctx = live_context();
  if (!ctx) return c;
  c.dispatches = ctx->stream().dispatches();
  c.submits = ctx->stream().submits();
  c.waited_ns = ctx->stream().waited_ns();
  c.host_uploads = ctx->stream().host_uploads();
  const vulkan::MemoryStats m = vulkan::MemoryPool::process_stats();  // capture arenas included
  c.used_bytes = m.used_bytes;
  c.peak_used_bytes = m.peak_used_bytes;
  c.reserved_bytes = m.reserved_bytes;
  return c;
}

void vulkan_reset_peak_memory() {
  if (live_context()) vulkan::MemoryPool::reset_process_peak();
}

void vulkan_synchronize() {
  if (auto ctx = live_context()) ctx->stream().synchronize();
}

void vulkan_set_profiling(bool on) { vulkan::Context::get()->stream().set_profiling(on); }

std::vector<OpGpuTime> vulkan_take_profile() {
  auto ctx = live_context();
  if (!ctx) return {};
  ctx->stream().synchronize();
  std::vector<OpGpuTime> out;
  for (const auto& [label, stat] : ctx->stream().take_profile()) out.push_back({label, stat.gpu_ns / 1e6, stat.dispatches});
  std::sort(out.begin(), out.end(), [](const OpGpuTime& a, const OpGpuTime& b) { return a.gpu_ms > b.gpu_ms; });
  return out;
}

namespace {
std::atomic<Precision> g_precision{Precision::FP32};
}  // namespace

void set_vulkan_precision(Precision precision) {
  if (precision == Precision::FP16) {
    const vulkan::PhysicalDeviceInfo& dev = vulkan::Context::get()->device().physical();
    for (VkFormat format : {VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT}) {
      VkFormatProperties props{};
      vkGetPhysicalDeviceFormatProperties(dev.handle, format, &props);
      if (!(props.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT))
        throw UnsupportedError("fp16 precision: " + dev.name + " cannot read 16-bit float texel buffers");
    }
  }
  g_precision = precision;
}

Precision vulkan_precision() { return g_precision; }

const char* to_string(Precision precision) { return precision == Precision::FP16 ? "fp16" : "fp32"; }

std::vector<TunedLayer> vulkan_tuned_layers() {
  std::vector<TunedLayer> out;
  auto ctx = vulkan::Context::try_get(nullptr);
  if (!ctx) return out;
  for (auto& [layer, e] : ctx->tuning().entries()) out.push_back({layer, e.method, e.detail});
  return out;
}

std::string vulkan_tuning_file() {
  auto ctx = vulkan::Context::try_get(nullptr);
  return ctx ? ctx->tuning().file() : "";
}

}  // namespace tvk
