// Instance: the VkInstance, the optional Khronos validation layer with its message counter,
// and the physical devices it sees.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "vulkan/api/vk.h"

namespace tvk::vulkan {

struct PhysicalDeviceInfo {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  uint32_t index = 0;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t api_version = 0;
  uint32_t driver_version = 0;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::string driver_name;  // from VkPhysicalDeviceDriverProperties where known
  std::string driver_info;
  uint8_t pipeline_cache_uuid[VK_UUID_SIZE] = {};
  uint32_t subgroup_size = 0;
  // Multiprocessors (compute units) where the driver says: NVIDIA's shaderSMCount
  // (VK_NV_shader_sm_builtins), AMD's engines x arrays x compute units
  // (VK_AMD_shader_core_properties); 0 elsewhere. Sizes work grids (gemm_tile128's split K).
  uint32_t compute_units = 0;
  bool subgroup_arithmetic = false;  // subgroupAdd and friends in compute shaders
  bool subgroup_shuffle = false;     // subgroupShuffle and subgroupShuffleXor in compute shaders
  bool fp16_arithmetic = false;
  bool storage_16bit = false;
  // Cooperative matrices (VK_NV_cooperative_matrix, with shaderFloat16 and the Vulkan memory
  // model they need): the subgroup fragment shape M x N x K the device lists for fp16 inputs
  // and fp32 sums; all 0 where there is none. Device enables them when set.
  uint32_t coopmat_m = 0, coopmat_n = 0, coopmat_k = 0;
  bool cooperative_matrix() const { return coopmat_m != 0; }
  // VK_KHR_pipeline_executable_properties: the driver reports each pipeline's compiled
  // statistics (registers, shared memory, spills on NVIDIA); TVK_PIPELINE_STATS=1 prints them.
  bool pipeline_statistics = false;
  // VK_EXT_external_memory_host: host memory the device may import (and its copies read
  // directly), in pages of this alignment; 0 where the device has none.
  uint64_t host_import_alignment = 0;
  uint64_t device_local_bytes = 0;
  int compute_queue_family = -1;  // -1: none
  float timestamp_period_ns = 0;
  bool timestamps = false;
  VkPhysicalDeviceLimits limits{};

  const char* type_name() const;
  std::string api_version_string() const;
  // Lower is preferred: discrete, integrated, virtual, CPU, other.
  int type_rank() const;
  bool usable() const { return compute_queue_family >= 0 && api_version >= VK_API_VERSION_1_1; }
};

class Instance {
 public:
  // Throws VulkanError when no instance can be made. `validation` asks for the Khronos layer.
  explicit Instance(bool validation);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle() const { return instance_; }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }
  const std::vector<PhysicalDeviceInfo>& physical_devices() const { return devices_; }

 private:
  void release();

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
  std::vector<PhysicalDeviceInfo> devices_;
};

// Validation errors and warnings seen since start-up (the tests fail on any).
uint64_t validation_message_count();
const std::string& last_validation_message();

// Picks a device: TVK_VULKAN_DEVICE (an index or a name substring) when set, else the best
// type rank. Throws tvk::Error when `override_spec` matches nothing usable or nothing is usable.
const PhysicalDeviceInfo& select_physical_device(const std::vector<PhysicalDeviceInfo>& devices,
                                                 const std::string& override_spec);

}  // namespace tvk::vulkan
