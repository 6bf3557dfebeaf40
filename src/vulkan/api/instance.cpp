#include "vulkan/api/instance.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "tvk/error.h"

namespace tvk::vulkan {

namespace {
std::atomic<uint64_t> g_validation_messages{0};
std::mutex g_last_message_mutex;
std::string g_last_message;

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT type,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  // Loader chatter (type GENERAL, e.g. "Found no drivers") is not a validation finding: the
  // failing call reports it as an error anyway.
  const bool finding = type & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT);
  if (finding && severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    ++g_validation_messages;
    const char* text = data && data->pMessage ? data->pMessage : "(no message)";
    std::fprintf(stderr, "[tvk vulkan validation] %s\n", text);
    std::lock_guard<std::mutex> lock(g_last_message_mutex);
    g_last_message = text;
  }
  return VK_FALSE;
}

bool has_layer(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

bool has_instance_extension(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> exts(count);
  vkEnumerateInstanceExtensionProperties(nullptr, &count, exts.data());
  for (auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

bool has_device_extension(VkPhysicalDevice dev, const char* name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(dev, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> exts(count);
  vkEnumerateDeviceExtensionProperties(dev, nullptr, &count, exts.data());
  for (auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

// The fragment shape gemm_coopmat.glsl takes, of those the device lists for subgroups with
// fp16 A and B and fp32 C and D: 16 x 16 x 16 where listed, else any with M and N dividing 32
// and K dividing 32 (the kernel's subgroup tile and K step).
void find_coopmat_shape(VkInstance instance, VkPhysicalDevice dev, PhysicalDeviceInfo& info) {
  auto list = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (!list) return;
  uint32_t count = 0;
  if (list(dev, &count, nullptr) != VK_SUCCESS || count == 0) return;
  std::vector<VkCooperativeMatrixPropertiesNV> shapes(
      count, make_info<VkCooperativeMatrixPropertiesNV>(VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV));
  if (list(dev, &count, shapes.data()) != VK_SUCCESS) return;
  shapes.resize(count);
  auto divides32 = [](uint32_t v) { return v != 0 && v <= 32 && 32 % v == 0; };
  for (const auto& p : shapes) {
    const bool types = p.AType == VK_COMPONENT_TYPE_FLOAT16_NV && p.BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                       p.CType == VK_COMPONENT_TYPE_FLOAT32_NV && p.DType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                       p.scope == VK_SCOPE_SUBGROUP_NV;
    if (!types || !divides32(p.MSize) || !divides32(p.NSize) || !divides32(p.KSize)) continue;
    const bool square = p.MSize == 16 && p.NSize == 16 && p.KSize == 16;
    if (info.coopmat_m == 0 || square) {
      info.coopmat_m = p.MSize;
      info.coopmat_n = p.NSize;
      info.coopmat_k = p.KSize;
    }
  }
}

PhysicalDeviceInfo describe(VkInstance instance, VkPhysicalDevice dev, uint32_t index) {
  PhysicalDeviceInfo info;
  info.handle = dev;
  info.index = index;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(dev, &props);
  info.name = props.deviceName;
  info.type = props.deviceType;
  info.api_version = props.apiVersion;
  info.driver_version = props.driverVersion;
  info.vendor_id = props.vendorID;
  info.device_id = props.deviceID;
  info.limits = props.limits;
  std::memcpy(info.pipeline_cache_uuid, props.pipelineCacheUUID, VK_UUID_SIZE);
  info.timestamp_period_ns = props.limits.timestampPeriod;

  if (props.apiVersion >= VK_API_VERSION_1_1) {
    auto subgroup = make_info<VkPhysicalDeviceSubgroupProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
    auto driver = make_info<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
    const bool has_driver_props =
        props.apiVersion >= VK_API_VERSION_1_2 || has_device_extension(dev, "VK_KHR_driver_properties");
    if (has_driver_props) subgroup.pNext = &driver;
    // Each chained only where the device has its extension (chaining others is invalid).
    auto sm = make_info<VkPhysicalDeviceShaderSMBuiltinsPropertiesNV>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV);
    auto amd = make_info<VkPhysicalDeviceShaderCorePropertiesAMD>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD);
    const bool has_sm = has_device_extension(dev, "VK_NV_shader_sm_builtins");
    const bool has_amd_cores = has_device_extension(dev, "VK_AMD_shader_core_properties");
    void** tail = has_driver_props ? &driver.pNext : &subgroup.pNext;
    if (has_sm) {
      *tail = &sm;
      tail = &sm.pNext;
    }
    if (has_amd_cores) {
      *tail = &amd;
      tail = &amd.pNext;
    }
    auto host_import = make_info<VkPhysicalDeviceExternalMemoryHostPropertiesEXT>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT);
    const bool has_host_import = has_device_extension(dev, "VK_EXT_external_memory_host");
    if (has_host_import) *tail = &host_import;
    auto props2 = make_info<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    props2.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(dev, &props2);
    if (has_sm) info.compute_units = sm.shaderSMCount;
    else if (has_amd_cores)
      info.compute_units = amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray;
    if (has_host_import) info.host_import_alignment = host_import.minImportedHostPointerAlignment;
    info.subgroup_size = subgroup.subgroupSize;
    info.subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                               (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0;
    info.subgroup_shuffle = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                            (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0;
    if (has_driver_props) {
      info.driver_name = driver.driverName;
      info.driver_info = driver.driverInfo;
    }

    auto storage16 = make_info<VkPhysicalDevice16BitStorageFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
    auto f16 = make_info<VkPhysicalDeviceShaderFloat16Int8Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
    const bool has_f16 =
        props.apiVersion >= VK_API_VERSION_1_2 || has_device_extension(dev, "VK_KHR_shader_float16_int8");
    if (has_f16) storage16.pNext = &f16;
    auto features2 = make_info<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    features2.pNext = &storage16;
    vkGetPhysicalDeviceFeatures2(dev, &features2);
    info.storage_16bit = storage16.storageBuffer16BitAccess == VK_TRUE;
    info.pipeline_statistics = has_device_extension(dev, "VK_KHR_pipeline_executable_properties");
    info.fp16_arithmetic = has_f16 && f16.shaderFloat16 == VK_TRUE;

    // The cooperative-matrix kernel also needs the Vulkan memory model (core in 1.2) and 32-wide
    // subgroups (its work group is 4 of them).
    if (props.apiVersion >= VK_API_VERSION_1_2 && info.fp16_arithmetic && info.subgroup_size == 32 &&
        has_device_extension(dev, "VK_NV_cooperative_matrix")) {
      auto coop = make_info<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
      auto memory_model =
          make_info<VkPhysicalDeviceVulkanMemoryModelFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES);
      coop.pNext = &memory_model;
      auto more = make_info<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
      more.pNext = &coop;
      vkGetPhysicalDeviceFeatures2(dev, &more);
      if (coop.cooperativeMatrix == VK_TRUE && memory_model.vulkanMemoryModel == VK_TRUE)
        find_coopmat_shape(instance, dev, info);
    }
  }

  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(dev, &mem);
  for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) info.device_local_bytes += mem.memoryHeaps[i].size;

  uint32_t qcount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(dev, &qcount, nullptr);
  std::vector<VkQueueFamilyProperties> families(qcount);
  vkGetPhysicalDeviceQueueFamilyProperties(dev, &qcount, families.data());
  // Prefer a family with compute but without graphics (a dedicated compute queue).
  for (int pass = 0; pass < 2 && info.compute_queue_family < 0; ++pass) {
    for (uint32_t i = 0; i < qcount; ++i) {
      const bool compute = families[i].queueFlags & VK_QUEUE_COMPUTE_BIT;
      const bool graphics = families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT;
      if (compute && (pass == 1 || !graphics)) {
        info.compute_queue_family = static_cast<int>(i);
        info.timestamps = families[i].timestampValidBits > 0 && info.timestamp_period_ns > 0;
        break;
      }
    }
  }
  return info;
}
}  // namespace

uint64_t validation_message_count() { return g_validation_messages.load(); }
const std::string& last_validation_message() {
  std::lock_guard<std::mutex> lock(g_last_message_mutex);
  return g_last_message;
}

const char* PhysicalDeviceInfo::type_name() const {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

std::string PhysicalDeviceInfo::api_version_string() const {
  return detail::concat(VK_API_VERSION_MAJOR(api_version), ".", VK_API_VERSION_MINOR(api_version), ".",
                        VK_API_VERSION_PATCH(api_version));
}

int PhysicalDeviceInfo::type_rank() const {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

Instance::Instance(bool validation) {
  std::string reason;
  if (!load_vulkan_loader(&reason)) throw VulkanError(reason);

  uint32_t loader_version = VK_API_VERSION_1_0;
#if TVK_USE_VULKAN_WRAPPER
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loader_version);
#else
  vkEnumerateInstanceVersion(&loader_version);
#endif
  if (loader_version < VK_API_VERSION_1_1)
    throw VulkanError("the Vulkan loader supports only Vulkan 1.0; tvk needs 1.1");

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  const bool use_validation = validation && has_layer("VK_LAYER_KHRONOS_validation") &&
                              has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (validation && !use_validation)
    std::fprintf(stderr, "[tvk] TVK_VALIDATION is set but VK_LAYER_KHRONOS_validation is not installed\n");
  if (use_validation) {
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkInstanceCreateFlags flags = 0;
  if (has_instance_extension("VK_KHR_portability_enumeration")) {
    // MoltenVK and other portability drivers are listed only with this flag.
    extensions.push_back("VK_KHR_portability_enumeration");
    flags |= 0x00000001;  // VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
  }

  auto app = make_info<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "tvk";
  app.pEngineName = "tvk";
  app.apiVersion = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loader_version;

  auto messenger_info = make_info<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_debug_message;

  // TVK_SYNC_VALIDATION=1 adds the layer's synchronization validation: hazards between
  // dispatches and copies (a missing barrier) become validation messages, which lavapipe's
  // in-order execution would otherwise hide.
  const char* sync_env = std::getenv("TVK_SYNC_VALIDATION");
  const bool sync_validation = use_validation && sync_env && *sync_env && std::strcmp(sync_env, "0") != 0;
  VkValidationFeatureEnableEXT sync_feature = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  auto features = make_info<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync_feature;

  auto info = make_info<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.flags = flags;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (use_validation) info.pNext = &messenger_info;  // also covers vkCreate/DestroyInstance
  if (sync_validation) {
    features.pNext = info.pNext;
    info.pNext = &features;
  }
  const VkResult created = vkCreateInstance(&info, nullptr, &instance_);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER)  // the loader found no driver (ICD) at all
    throw Error(detail::concat("no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER): ",
                               kInstallDriverHint));
  VK_CHECK(created);
#if TVK_USE_VULKAN_WRAPPER
  volkLoadInstanceOnly(instance_);
#endif
  if (use_validation) {
    // Extension entry points are not exported by libvulkan: look them up in both build modes.
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    VkResult r = create && destroy_messenger_ ? create(instance_, &messenger_info, nullptr, &messenger_)
                                              : VK_ERROR_EXTENSION_NOT_PRESENT;
    if (r != VK_SUCCESS) {
      vkDestroyInstance(instance_, nullptr);
      throw_vk_error(r, "vkCreateDebugUtilsMessengerEXT", __FILE__, __LINE__);
    }
  }

  uint32_t count = 0;
  VkResult r = vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> handles(count);
  if (r == VK_SUCCESS && count) r = vkEnumeratePhysicalDevices(instance_, &count, handles.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    release();
    throw_vk_error(r, "vkEnumeratePhysicalDevices", __FILE__, __LINE__);
  }
  for (uint32_t i = 0; i < count; ++i) devices_.push_back(describe(instance_, handles[i], i));
}

Instance::~Instance() { release(); }

void Instance::release() {
  if (messenger_ != VK_NULL_HANDLE) destroy_messenger_(instance_, messenger_, nullptr);
  messenger_ = VK_NULL_HANDLE;
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
  instance_ = VK_NULL_HANDLE;
}

const PhysicalDeviceInfo& select_physical_device(const std::vector<PhysicalDeviceInfo>& devices,
                                                 const std::string& spec) {
  if (!spec.empty()) {
    const bool numeric = spec.find_first_not_of("0123456789") == std::string::npos;
    for (const auto& d : devices) {
      const bool match = numeric ? std::to_string(d.index) == spec : d.name.find(spec) != std::string::npos;
      if (match) {
        if (!d.usable())
          throw Error(detail::concat("TVK_VULKAN_DEVICE=", spec, " selects '", d.name,
                                     "', which has no compute queue or lacks Vulkan 1.1"));
        return d;
      }
    }
    throw Error(detail::concat("TVK_VULKAN_DEVICE=", spec, " matches none of the ", devices.size(),
                               " Vulkan devices (`tvk info` lists them)"));
  }
  const PhysicalDeviceInfo* best = nullptr;
  for (const auto& d : devices)
    if (d.usable() && (best == nullptr || d.type_rank() < best->type_rank())) best = &d;
  if (best == nullptr)
    throw Error(devices.empty() ? detail::concat("no Vulkan physical device was found: ", kInstallDriverHint)
                                : "no Vulkan device with a compute queue and Vulkan 1.1 was found (`tvk info` "
                                  "lists the devices and what each lacks)");
  return *best;
}

}  // namespace tvk::vulkan
