// ShaderLibrary: the compute shaders built into tvk, by name. With TVK_USE_SHADERC_RUNTIME the
// library holds GLSL and compiles it with libshaderc at first use; otherwise SPIR-V from glslc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tvk::vulkan {

struct EmbeddedShader {
  const char* name;  // file stem, e.g. "add"
  const unsigned char* data;
  size_t size;
};

// Filled by the generated tvk_shaders.cpp.
const EmbeddedShader* embedded_shaders(size_t* count);
bool shaders_are_glsl();

// SPIR-V words of shader `name`; throws tvk::Error for an unknown name or a compile error.
std::vector<uint32_t> shader_spirv(const std::string& name);
std::vector<std::string> shader_names();

}  // namespace tvk::vulkan
