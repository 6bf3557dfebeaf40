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

// Opt-in CPU fallback (off by default, as in PyTorch's Vulkan backend): an op without a Vulkan
// kernel, given Vulkan tensors, copies them to the CPU, runs its CPU kernel and copies the
// results back to Vulkan, instead of throwing tvk::UnsupportedError. Off, such an op throws
// and names itself. The environment variable TVK_CPU_FALLBACK=1 turns it on at start-up.
// In-place ops (those writing an argument) never fall back: they would write a copy.
void set_cpu_fallback(bool enabled);
bool cpu_fallback_enabled();

}  // namespace tvk
