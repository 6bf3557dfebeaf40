// What a compute shader's SPIR-V declares about its interface: the descriptor type of each
// binding (set 0) and the size of its push-constant block. Pipelines are laid out from this, and
// each dispatch is checked against it, so the GLSL and the C++ side cannot drift apart silently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tvk::vulkan {

enum class BindingKind : uint8_t { StorageBuffer, UniformTexelBuffer };

struct ShaderInterface {
  std::vector<BindingKind> bindings;  // by binding index 0..N-1
  // Whether the shader may read / write each binding (GLSL readonly and writeonly, which
  // SPIR-V keeps as NonWritable / NonReadable): barriers are placed from these.
  std::vector<bool> reads, writes;
  uint32_t push_constant_bytes = 0;   // 0: none (or a layout this reader does not size)
  std::vector<uint32_t> spec_ids;     // the specialisation constants it declares (SpecId)
};

// Throws tvk::Error naming `shader` on malformed SPIR-V, a binding outside set 0, a gap in the
// binding numbers, or a resource kind tvk does not bind.
ShaderInterface reflect_shader(const std::string& shader, const std::vector<uint32_t>& words);

}  // namespace tvk::vulkan
