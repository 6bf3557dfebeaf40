#include "vulkan/api/host_import.h"

#include "tvk/error.h"

namespace tvk::vulkan {

HostImport::HostImport(const Device& device, const void* data, VkDeviceSize bytes)
    : device_(device), data_(data), bytes_(bytes) {
  const VkDeviceSize alignment = device.physical().host_import_alignment;
  TVK_CHECK(alignment != 0, "this Vulkan device cannot import host memory");
  TVK_CHECK(bytes > 0 && reinterpret_cast<uintptr_t>(data) % alignment == 0 && bytes % alignment == 0,
            "host memory to import must start and end on ", alignment, "-byte boundaries");
  VkDevice dev = device.handle();
  constexpr auto kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  auto get_properties = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
      vkGetDeviceProcAddr(dev, "vkGetMemoryHostPointerPropertiesEXT"));
  if (!get_properties) throw_vk_error(VK_ERROR_EXTENSION_NOT_PRESENT, "vkGetMemoryHostPointerPropertiesEXT", __FILE__, __LINE__);
  auto pointer_properties =
      make_info<VkMemoryHostPointerPropertiesEXT>(VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT);
  VK_CHECK(get_properties(dev, kHandle, data, &pointer_properties));

  auto external = make_info<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
  external.handleTypes = kHandle;
  auto buffer_info = make_info<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  buffer_info.pNext = &external;
  buffer_info.size = bytes;
  buffer_info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(dev, &buffer_info, nullptr, &buffer_));
  try {
    VkMemoryRequirements needs;
    vkGetBufferMemoryRequirements(dev, buffer_, &needs);
    // A type the pointer allows and the buffer takes; host-coherent first, so that the host's
    // writes before a submission need no flush.
    const uint32_t types = pointer_properties.memoryTypeBits & needs.memoryTypeBits;
    const VkPhysicalDeviceMemoryProperties& mem = device.memory_properties();
    uint32_t chosen = UINT32_MAX;
    for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
      if (!(types & (1u << i))) continue;
      const bool coherent = (mem.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
      if (chosen == UINT32_MAX || coherent) chosen = i;
      if (coherent) break;
    }
    if (chosen == UINT32_MAX ||
        !(mem.memoryTypes[chosen].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
      throw_vk_error(VK_ERROR_FORMAT_NOT_SUPPORTED, "importing host memory (no host-coherent memory type)", __FILE__,
                     __LINE__);
    auto import = make_info<VkImportMemoryHostPointerInfoEXT>(VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT);
    import.handleType = kHandle;
    import.pHostPointer = const_cast<void*>(data);
    auto alloc = make_info<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    alloc.pNext = &import;
    alloc.allocationSize = bytes;
    alloc.memoryTypeIndex = chosen;
    VK_CHECK(vkAllocateMemory(dev, &alloc, nullptr, &memory_));
    VK_CHECK(vkBindBufferMemory(dev, buffer_, memory_, 0));
  } catch (...) {
    release();
    throw;
  }
}

HostImport::~HostImport() { release(); }

void HostImport::release() {
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_.handle(), buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_.handle(), memory_, nullptr);
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
}

}  // namespace tvk::vulkan
