#include "vulkan/api/pipeline.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <filesystem>
#include <fstream>
#include <tuple>
#include <vector>

#include "tvk/error.h"
#include "vulkan/api/faults.h"
#include "vulkan/api/shader_library.h"

namespace tvk::vulkan {

bool PipelineKey::operator<(const PipelineKey& o) const {
  return std::tie(shader, buffers, local_size, constants, activation) <
         std::tie(o.shader, o.buffers, o.local_size, o.constants, o.activation);
}

Pipeline::~Pipeline() { vkDestroyPipeline(device_, pipeline_, nullptr); }

std::string default_cache_dir() {
  if (const char* dir = std::getenv("TVK_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tvk";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tvk";
  return "";
}

namespace {

// TVK_PIPELINE_STATS=1: one line per pipeline on stderr with what the driver says of its
// compiled code (on NVIDIA: registers per invocation, shared memory, local-memory spills), so
// that a kernel's occupancy can be read off rather than guessed.
void print_statistics(VkDevice device, VkPipeline pipeline, const PipelineKey& key) {
  auto get_executables = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
  auto get_statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
  if (!get_executables || !get_statistics) return;
  auto pipeline_info = make_info<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
  pipeline_info.pipeline = pipeline;
  uint32_t executables = 0;
  if (get_executables(device, &pipeline_info, &executables, nullptr) != VK_SUCCESS) return;
  std::string line = "tvk: pipeline " + key.shader + " local=" + std::to_string(key.local_size[0]) + "x" +
                     std::to_string(key.local_size[1]) + "x" + std::to_string(key.local_size[2]) + " spec=";
  for (size_t i = 0; i < key.constants.size(); ++i) {
    if (i) line += ',';
    line += std::to_string(key.constants[i]);
  }
  if (key.activation) line += " activation=" + std::to_string(key.activation);
  for (uint32_t e = 0; e < executables; ++e) {
    auto executable_info = make_info<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
    executable_info.pipeline = pipeline;
    executable_info.executableIndex = e;
    uint32_t count = 0;
    if (get_statistics(device, &executable_info, &count, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        count, make_info<VkPipelineExecutableStatisticKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR));
    if (get_statistics(device, &executable_info, &count, stats.data()) != VK_SUCCESS) continue;
    for (const VkPipelineExecutableStatisticKHR& st : stats) {
      line += std::string("; ") + st.name + " ";
      switch (st.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: line += st.value.b32 ? "yes" : "no"; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: line += std::to_string(st.value.i64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: line += std::to_string(st.value.u64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: line += std::to_string(st.value.f64); break;
        default: line += "?";
      }
    }
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

// The header every VkPipelineCache blob starts with (VK_PIPELINE_CACHE_HEADER_VERSION_ONE).
// Checked here so a stale or corrupt file from another driver is ignored, not handed to it.
bool header_matches(const std::vector<char>& data, const PhysicalDeviceInfo& dev) {
  if (data.size() < 16 + VK_UUID_SIZE) return false;
  uint32_t header[4];
  std::memcpy(header, data.data(), sizeof(header));
  return header[0] >= 16 + VK_UUID_SIZE && header[0] <= data.size() &&
         header[1] == VK_PIPELINE_CACHE_HEADER_VERSION_ONE && header[2] == dev.vendor_id &&
         header[3] == dev.device_id && std::memcmp(data.data() + 16, dev.pipeline_cache_uuid, VK_UUID_SIZE) == 0;
}
}  // namespace

PipelineCache::PipelineCache(const Device& device, std::string cache_file)
    : device_(device), cache_file_(std::move(cache_file)) {
  std::vector<char> data;
  if (!cache_file_.empty()) {
    std::ifstream in(cache_file_, std::ios::binary);
    if (in) {
      in.seekg(0, std::ios::end);
      const std::streamoff size = in.tellg();
      if (size > 0 && size < (std::streamoff{256} << 20)) {
        data.resize(static_cast<size_t>(size));
        in.seekg(0);
        in.read(data.data(), size);
        if (!in || !header_matches(data, device.physical())) data.clear();
      }
    }
  }
  auto info = make_info<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  if (vkCreatePipelineCache(device.handle(), &info, nullptr, &cache_) != VK_SUCCESS) {
    info.initialDataSize = 0;
    info.pInitialData = nullptr;
    VK_CHECK(vkCreatePipelineCache(device.handle(), &info, nullptr, &cache_));
  } else {
    loaded_bytes_ = data.size();
  }
}

PipelineCache::~PipelineCache() {
  try {
    save();
  } catch (...) {
    // A cache that cannot be written only costs compile time on the next run.
  }
  pipelines_.clear();
  VkDevice dev = device_.handle();
  for (auto& [_, m] : modules_) vkDestroyShaderModule(dev, m.module, nullptr);
  for (auto& [_, layouts] : layouts_) {
    vkDestroyPipelineLayout(dev, layouts.second, nullptr);
    vkDestroyDescriptorSetLayout(dev, layouts.first, nullptr);
  }
  vkDestroyPipelineCache(dev, cache_, nullptr);
}

void PipelineCache::save() const {
  if (cache_file_.empty() || created_ == 0) return;
  size_t size = 0;
  VK_CHECK(vkGetPipelineCacheData(device_.handle(), cache_, &size, nullptr));
  std::vector<char> data(size);
  VK_CHECK(vkGetPipelineCacheData(device_.handle(), cache_, &size, data.data()));
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(cache_file_).parent_path(), ec);
  const std::string tmp = cache_file_ + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(data.data(), static_cast<std::streamsize>(size));
  }
  std::filesystem::rename(tmp, cache_file_, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

std::pair<VkDescriptorSetLayout, VkPipelineLayout> PipelineCache::layouts_for(const std::vector<BindingKind>& kinds) {
  auto it = layouts_.find(kinds);
  if (it != layouts_.end()) return it->second;
  const auto buffers = static_cast<uint32_t>(kinds.size());
  std::vector<VkDescriptorSetLayoutBinding> bindings(buffers);
  for (uint32_t i = 0; i < buffers; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = kinds[i] == BindingKind::UniformTexelBuffer ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                                                            : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  auto set_info = make_info<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  set_info.bindingCount = buffers;
  set_info.pBindings = bindings.data();
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorSetLayout(device_.handle(), &set_info, nullptr, &set_layout));

  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kMaxPushConstantBytes};
  auto layout_info = make_info<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkResult r = vkCreatePipelineLayout(device_.handle(), &layout_info, nullptr, &layout);
  if (r != VK_SUCCESS) {
    vkDestroyDescriptorSetLayout(device_.handle(), set_layout, nullptr);
    throw_vk_error(r, "vkCreatePipelineLayout", __FILE__, __LINE__);
  }
  return layouts_[kinds] = {set_layout, layout};
}

std::vector<PipelineKey> PipelineCache::keys() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<PipelineKey> out;
  out.reserve(pipelines_.size());
  for (const auto& entry : pipelines_) out.push_back(entry.first);
  return out;
}

const Pipeline& PipelineCache::get(const PipelineKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return *it->second;

  auto found = modules_.find(key.shader);
  if (found == modules_.end()) {
    Module m;
    const std::vector<uint32_t> words = shader_spirv(key.shader);
    m.interface = reflect_shader(key.shader, words);
    auto info = make_info<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    info.codeSize = words.size() * 4;
    info.pCode = words.data();
    VK_CHECK(vkCreateShaderModule(device_.handle(), &info, nullptr, &m.module));
    try {
      found = modules_.emplace(key.shader, std::move(m)).first;
    } catch (...) {
      vkDestroyShaderModule(device_.handle(), m.module, nullptr);
      throw;
    }
  }
  const Module& shader = found->second;
  TVK_CHECK(shader.interface.bindings.size() == key.buffers, "shader ", key.shader, " declares ",
            shader.interface.bindings.size(), " bindings, the kernel binds ", key.buffers);
  auto [set_layout, layout] = layouts_for(shader.interface.bindings);

  std::vector<uint32_t> values{key.local_size[0], key.local_size[1], key.local_size[2]};
  values.insert(values.end(), key.constants.begin(), key.constants.end());
  std::vector<VkSpecializationMapEntry> entries(values.size());
  for (uint32_t i = 0; i < values.size(); ++i) entries[i] = {i, i * 4u, 4u};
  if (key.activation) {
    // A kernel asked for an activation its shader would silently leave out.
    const auto& ids = shader.interface.spec_ids;
    TVK_CHECK(std::find(ids.begin(), ids.end(), kActivationConstantId) != ids.end(), "shader ", key.shader,
              " has no fused activation (fused_activation.glslh), asked for activation ", key.activation);
    TVK_CHECK(values.size() < kActivationConstantId, "shader ", key.shader, ": too many specialisation constants");
    entries.push_back({kActivationConstantId, static_cast<uint32_t>(values.size() * 4), 4u});
    values.push_back(key.activation);
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), values.size() * 4, values.data()};

  auto info = make_info<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = shader.module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = &spec;
  info.layout = layout;
  if (device_.captures_pipeline_statistics()) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateComputePipelines(device_.handle(), cache_, 1, &info, nullptr, &pipeline));
  if (device_.captures_pipeline_statistics()) print_statistics(device_.handle(), pipeline, key);
  // From here the pipeline has an owner whatever throws: the Pipeline object, or this handler.
  std::unique_ptr<Pipeline> owned;
  try {
    if (faults::hit(faults::Point::PipelineInsert)) throw std::bad_alloc();
    owned = std::make_unique<Pipeline>(device_.handle(), pipeline, layout, set_layout, key, shader.interface);
  } catch (...) {
    vkDestroyPipeline(device_.handle(), pipeline, nullptr);
    throw;
  }
  ++created_;
  return *(pipelines_[key] = std::move(owned));
}

}  // namespace tvk::vulkan
