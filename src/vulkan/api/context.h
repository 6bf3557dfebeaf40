// Context: everything one process needs to run on one Vulkan device, made once on first use.
#pragma once

#include <memory>
#include <string>

#include "vulkan/api/command_stream.h"
#include "vulkan/api/device.h"
#include "vulkan/api/instance.h"
#include "vulkan/api/memory_pool.h"
#include "vulkan/api/pipeline.h"

namespace tvk::vulkan {

class TuningTable;  // vulkan/ops/tuning.h

class Context {
 public:
  // Reads TVK_VALIDATION, TVK_VULKAN_DEVICE and TVK_CACHE_DIR. Throws on failure.
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // The process-wide context; throws tvk::Error saying why Vulkan is unavailable.
  static std::shared_ptr<Context> get();
  // As get(), but nullptr (with the reason) instead of a throw.
  static std::shared_ptr<Context> try_get(std::string* reason);

  Instance& instance() { return instance_; }
  Device& device() { return device_; }
  MemoryPool& memory() { return memory_; }
  PipelineCache& pipelines() { return pipelines_; }
  CommandStream& stream() { return stream_; }
  // The tuned kernel choices for this device, kept in the cache directory next to the pipeline
  // cache (vulkan/ops/tuning.h).
  TuningTable& tuning() { return *tuning_; }
  // TVK_VULKAN_FORCE_STAGING=1: move tensor data through staging buffers and copy commands even
  // where tensor memory is host-visible, as on discrete GPUs without ReBAR (tests that path on
  // lavapipe and unified-memory GPUs).
  bool force_staging() const { return force_staging_; }

 private:
  Instance instance_;
  Device device_;
  MemoryPool memory_;
  PipelineCache pipelines_;
  CommandStream stream_;
  std::unique_ptr<TuningTable> tuning_;
  bool force_staging_ = false;
};

// True when TVK_VALIDATION is set to a non-empty value other than 0.
bool validation_requested();

}  // namespace tvk::vulkan
