#include "vulkan/api/shader_library.h"

#include <cstring>

#include "tvk/error.h"

#if TVK_USE_SHADERC_RUNTIME
#include <shaderc/shaderc.h>
#endif

namespace tvk::vulkan {

namespace {
const EmbeddedShader& find_shader(const std::string& name) {
  size_t count = 0;
  const EmbeddedShader* shaders = embedded_shaders(&count);
  for (size_t i = 0; i < count; ++i)
    if (name == shaders[i].name) return shaders[i];
  throw Error(detail::concat("no compute shader named '", name, "' is built into tvk"));
}

#if TVK_USE_SHADERC_RUNTIME
std::vector<uint32_t> compile_glsl(const EmbeddedShader& shader) {
  shaderc_compiler_t compiler = shaderc_compiler_initialize();
  shaderc_compile_options_t options = shaderc_compile_options_initialize();
  shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_1);
  shaderc_compile_options_set_optimization_level(options, shaderc_optimization_level_performance);
  shaderc_compilation_result_t result =
      shaderc_compile_into_spv(compiler, reinterpret_cast<const char*>(shader.data), shader.size,
                               shaderc_compute_shader, shader.name, "main", options);
  std::vector<uint32_t> words;
  const bool ok = shaderc_result_get_compilation_status(result) == shaderc_compilation_status_success;
  std::string message = ok ? "" : shaderc_result_get_error_message(result);
  if (ok) {
    words.resize(shaderc_result_get_length(result) / 4);
    std::memcpy(words.data(), shaderc_result_get_bytes(result), words.size() * 4);
  }
  shaderc_result_release(result);
  shaderc_compile_options_release(options);
  shaderc_compiler_release(compiler);
  if (!ok) throw Error(detail::concat("shaderc failed to compile shader '", shader.name, "': ", message));
  return words;
}
#endif
}  // namespace

std::vector<uint32_t> shader_spirv(const std::string& name) {
  const EmbeddedShader& shader = find_shader(name);
#if TVK_USE_SHADERC_RUNTIME
  return compile_glsl(shader);
#else
  std::vector<uint32_t> words(shader.size / 4);
  std::memcpy(words.data(), shader.data, words.size() * 4);
  return words;
#endif
}

bool shaders_are_glsl() { return TVK_USE_SHADERC_RUNTIME != 0; }

std::vector<std::string> shader_names() {
  size_t count = 0;
  const EmbeddedShader* shaders = embedded_shaders(&count);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) out.emplace_back(shaders[i].name);
  return out;
}

}  // namespace tvk::vulkan
