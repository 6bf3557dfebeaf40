// tvk: the command-line tool. Every failure is one line on stderr and exit status 1.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "ops/registry.h"
#include "tvk/tvk.h"
#include "tvk/vulkan_info.h"

namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

int cmd_info() {
  std::printf("tvk %s\n", TVK_VERSION);
  std::printf("build options:\n");
  std::printf("  TVK_USE_VULKAN          %s\n", TVK_USE_VULKAN ? "ON" : "OFF");
  std::printf("  TVK_USE_VULKAN_WRAPPER  %s\n", TVK_USE_VULKAN_WRAPPER ? "ON" : "OFF");
  std::printf("  TVK_USE_SHADERC_RUNTIME %s\n", TVK_USE_SHADERC_RUNTIME ? "ON" : "OFF");
  const tvk::VulkanInfo info = tvk::vulkan_info();
  std::printf("vulkan loader: %s\n", info.built ? (info.loader_found ? "found" : "not found") : "not built");
  if (info.built && info.loader_found) std::printf("validation layer: %s\n", info.validation ? "on" : "off");
  std::printf("vulkan devices: %zu\n", info.devices.size());
  for (const auto& d : info.devices) {
    std::printf("  [%u] %s%s\n", d.index, d.name.c_str(), d.selected ? "  (selected)" : "");
    std::printf("      type: %s, Vulkan %s, driver: %s\n", d.type.c_str(), d.api_version.c_str(),
                d.driver.empty() ? "unknown" : d.driver.c_str());
    std::printf("      subgroup size: %u, fp16 arithmetic: %s, 16-bit storage: %s\n", d.subgroup_size,
                yes_no(d.fp16_arithmetic), yes_no(d.storage_16bit));
    std::printf("      device-local memory: %.1f GiB%s\n", static_cast<double>(d.device_local_bytes) / (1 << 30),
                d.usable ? "" : "  (not usable: no compute queue or Vulkan < 1.1)");
  }
  bool any_selected = false;
  for (const auto& d : info.devices) any_selected |= d.selected;
  if (any_selected) {
    if (!info.pipeline_cache_file.empty()) std::printf("pipeline cache: %s\n", info.pipeline_cache_file.c_str());
    std::printf("vulkan available: yes\n");
  } else {
    std::printf("vulkan available: no (%s)\n", info.error.c_str());
  }
  return 0;
}

int cmd_ops() {
  auto ops = tvk::ops::Registry::global().all();
  std::printf("%-36s %-4s %-6s\n", "op", "cpu", "vulkan");
  size_t vulkan = 0;
  for (const auto* op : ops) {
    std::printf("%-36s %-4s %-6s\n", op->schema.full_name().c_str(), yes_no(static_cast<bool>(op->cpu)),
                yes_no(static_cast<bool>(op->vulkan)));
    vulkan += op->vulkan ? 1 : 0;
  }
  std::printf("%zu ops, %zu with a Vulkan kernel\n", ops.size(), vulkan);
  return 0;
}

void usage() {
  std::fprintf(stderr,
               "usage: tvk <command> [args]\n"
               "commands:\n"
               "  info    build options, Vulkan devices and the one selected\n"
               "  ops     the op registry: each op and whether CPU and Vulkan support it\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    usage();
    return argc < 2 ? 1 : 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "info") return cmd_info();
    if (command == "ops") return cmd_ops();
    std::fprintf(stderr, "tvk: unknown command '%s' (try tvk --help)\n", command.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tvk %s: %s\n", command.c_str(), e.what());
    return 1;
  }
}
