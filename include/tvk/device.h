// The devices a tensor can live on.
#pragma once

#include <string>

namespace tvk {

enum class Device { CPU, Vulkan };

const char* to_string(Device d);
// "cpu" / "vulkan" (as PyTorch spells them, "cpu:0" accepted); throws tvk::Error otherwise.
Device parse_device(const std::string& name);

// True when a Vulkan loader, driver and device exist and a context could be made.
// Initialises the backend on first call; never throws.
bool is_vulkan_available();

}  // namespace tvk
