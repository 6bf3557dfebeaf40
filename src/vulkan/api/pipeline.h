// Compute pipelines and the VkPipelineCache persisted between runs.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vulkan/api/device.h"
#include "vulkan/api/spirv_reflect.h"

namespace tvk::vulkan {

// Every tvk shader binds `buffers` storage buffers at bindings 0..N-1 and takes up to
// kMaxPushConstantBytes of push constants.
constexpr uint32_t kMaxPushConstantBytes = 128;

// The specialisation constant of fused_activation.glslh's ACT.
inline constexpr uint32_t kActivationConstantId = 31;

struct PipelineKey {
  std::string shader;
  uint32_t buffers = 0;
  std::array<uint32_t, 3> local_size{64, 1, 1};  // specialisation constants 0..2
  std::vector<uint32_t> constants;               // specialisation constants 3..
  // A fused activation (ops::FusedActivation): specialisation constant kActivationConstantId,
  // which only shaders including fused_activation.glslh declare.
  uint32_t activation = 0;
  bool operator<(const PipelineKey& o) const;
};

class Pipeline {
 public:
  Pipeline(VkDevice device, VkPipeline pipeline, VkPipelineLayout layout, VkDescriptorSetLayout set_layout,
           PipelineKey key, ShaderInterface interface)
      : device_(device), pipeline_(pipeline), layout_(layout), set_layout_(set_layout), key_(std::move(key)),
        interface_(std::move(interface)) {}
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  VkPipeline handle() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  const PipelineKey& key() const { return key_; }
  // The shader's bindings and push-constant size, read from its SPIR-V.
  const ShaderInterface& interface() const { return interface_; }

 private:
  VkDevice device_;
  VkPipeline pipeline_;
  VkPipelineLayout layout_;            // owned by PipelineCache (shared per buffer count)
  VkDescriptorSetLayout set_layout_;   // owned by PipelineCache
  PipelineKey key_;
  ShaderInterface interface_;
};

class PipelineCache {
 public:
  // Loads `cache_file` when it exists and its header matches this device; empty path: no file.
  PipelineCache(const Device& device, std::string cache_file);
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // Returns the pipeline for `key`, creating it on first use.
  const Pipeline& get(const PipelineKey& key);
  // Writes the VkPipelineCache to the cache file (atomically, via a temporary file).
  void save() const;
  const std::string& cache_file() const { return cache_file_; }
  size_t pipelines_created() const { return created_; }
  // The keys of every pipeline made so far (the portability pass lists and replays them).
  std::vector<PipelineKey> keys();
  size_t loaded_bytes() const { return loaded_bytes_; }

 private:
  std::pair<VkDescriptorSetLayout, VkPipelineLayout> layouts_for(const std::vector<BindingKind>& bindings);
  struct Module {
    VkShaderModule module = VK_NULL_HANDLE;
    ShaderInterface interface;
  };

  const Device& device_;
  std::string cache_file_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::mutex mutex_;
  std::map<std::vector<BindingKind>, std::pair<VkDescriptorSetLayout, VkPipelineLayout>> layouts_;
  std::map<PipelineKey, std::unique_ptr<Pipeline>> pipelines_;
  std::map<std::string, Module> modules_;
  size_t created_ = 0;
  size_t loaded_bytes_ = 0;
};

// TVK_CACHE_DIR, else $XDG_CACHE_HOME/tvk, else $HOME/.cache/tvk; empty when none is known.
std::string default_cache_dir();

}  // namespace tvk::vulkan
