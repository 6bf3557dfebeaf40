#include "vulkan/api/context.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "tvk/error.h"
#include "vulkan/ops/tuning.h"

namespace tvk::vulkan {

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string cache_file_for(const PhysicalDeviceInfo& dev) {
  std::string dir = default_cache_dir();
  if (dir.empty()) return "";
  char name[96];
  std::snprintf(name, sizeof(name), "/pipelines-%04x-%04x-%08x.bin", dev.vendor_id, dev.device_id, dev.driver_version);
  return dir + name;
}

std::string tuning_file_for(const PhysicalDeviceInfo& dev) {
  std::string dir = default_cache_dir();
  if (dir.empty()) return "";
  char name[64];
  std::snprintf(name, sizeof(name), "/tuning-%04x-%04x.txt", dev.vendor_id, dev.device_id);
  return dir + name;
}
}  // namespace

bool validation_requested() {
  const std::string v = env("TVK_VALIDATION");
  return !v.empty() && v != "0";
}

Context::Context()
    : instance_(validation_requested()),
      device_(instance_, select_physical_device(instance_.physical_devices(), env("TVK_VULKAN_DEVICE"))),
      memory_(device_),
      pipelines_(device_, cache_file_for(device_.physical())),
      stream_(device_),
      tuning_(std::make_unique<TuningTable>(tuning_identity(device_.physical()), tuning_file_for(device_.physical()))) {
  const std::string staging = env("TVK_VULKAN_FORCE_STAGING");
  force_staging_ = !staging.empty() && staging != "0";
  memory_.set_reclaimer([this] { return stream_.reclaim_memory(); });
}

Context::~Context() {
  memory_.set_reclaimer(nullptr);  // the stream goes before the pool
  try {
    stream_.synchronize();
  } catch (...) {
    // Members still release their objects; nothing more can be done for a lost device.
  }
}

std::shared_ptr<Context> Context::try_get(std::string* reason) {
  static std::once_flag once;
  static std::shared_ptr<Context> context;
  static std::string failure;
  std::call_once(once, [] {
    try {
      context = std::make_shared<Context>();
      // Release the device before the driver's own exit handlers run (they were registered
      // while the context was made, so a handler registered now runs first). Left to static
      // destruction, the NVIDIA driver crashes in vkDestroyDevice at exit.
      // Work still queued keeps its tensors alive, and tensors keep the context alive (a
      // cycle through the command stream): release the work first, so that dropping this
      // reference destroys the context unless the program itself still holds tensors.
      // Work only recorded is dropped, not run: nothing can read its results any more. Ending
      // its command buffer here hung in the validation layer's vkEndCommandBuffer (an endless
      // walk of a std::map, synchronization validation on) in about 1 of 6 runs of a test that
      // exits with an unread result, and in none of 20 once the test read it back.
      std::atexit([] {
        try {
          context->stream().drop_unsubmitted_and_wait();
        } catch (...) {
          // A lost device: nothing more to finish.
        }
        context.reset();
      });
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!context && reason) *reason = failure;
  return context;
}

std::shared_ptr<Context> Context::get() {
  std::string reason;
  std::shared_ptr<Context> context = try_get(&reason);
  if (!context) throw Error("Vulkan is not available: " + reason);
  return context;
}

}  // namespace tvk::vulkan
