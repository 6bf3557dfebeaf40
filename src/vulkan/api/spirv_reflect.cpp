#include "vulkan/api/spirv_reflect.h"

#include <map>

#include "tvk/error.h"

namespace tvk::vulkan {

namespace {
// SPIR-V opcodes, decorations and storage classes used below (SPIR-V 1.x specification).
enum : uint32_t {
  OpTypeInt = 21, OpTypeFloat = 22, OpTypeVector = 23, OpTypeImage = 25, OpTypeSampledImage = 27,
  OpTypeArray = 28, OpTypeRuntimeArray = 29, OpTypeStruct = 30, OpTypePointer = 32, OpVariable = 59, OpDecorate = 71,
  OpMemberDecorate = 72,
};
enum : uint32_t {
  DecorationNonWritable = 24, DecorationNonReadable = 25, DecorationBinding = 33, DecorationDescriptorSet = 34,
  DecorationOffset = 35, DecorationSpecId = 1
};
enum : uint32_t { ClassUniformConstant = 0, ClassUniform = 2, ClassPushConstant = 9, ClassStorageBuffer = 12 };
constexpr uint32_t kDimBuffer = 5;
}  // namespace

ShaderInterface reflect_shader(const std::string& shader, const std::vector<uint32_t>& words) {
  auto fail = [&](const std::string& why) { return Error("shader " + shader + ": " + why); };
  if (words.size() < 5 || words[0] != 0x07230203u) throw fail("not SPIR-V");
  struct Type {
    uint32_t op = 0;
    std::vector<uint32_t> operands;  // after the result id
  };
  std::map<uint32_t, Type> types;
  std::map<uint32_t, uint32_t> binding_of, set_of;
  std::map<uint32_t, std::map<uint32_t, uint32_t>> member_offsets;  // struct -> member -> offset
  std::map<uint32_t, std::map<uint32_t, std::pair<bool, bool>>> member_access;  // struct -> member -> (no write, no read)
  std::map<uint32_t, std::pair<bool, bool>> var_access;                         // variable -> (no write, no read)
  std::vector<std::pair<uint32_t, uint32_t>> variables;             // (pointer type, id)
  std::vector<uint32_t> spec_ids;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, op = words[i] & 0xFFFFu;
    if (count == 0 || i + count > words.size()) throw fail("truncated instruction");
    const uint32_t* w = &words[i];
    switch (op) {
      case OpTypeInt: case OpTypeFloat: case OpTypeVector: case OpTypeImage: case OpTypeSampledImage:
      case OpTypeRuntimeArray: case OpTypeStruct: case OpTypePointer:
        if (count >= 2) types[w[1]] = Type{op, std::vector<uint32_t>(w + 2, w + count)};
        break;
      case OpTypeArray:
        if (count >= 2) types[w[1]] = Type{op, {}};  // only told apart, never sized
        break;
      case OpVariable:
        if (count >= 4) variables.emplace_back(w[1], w[2]);
        break;
      case OpDecorate:
        if (count >= 4 && w[2] == DecorationBinding) binding_of[w[1]] = w[3];
        if (count >= 4 && w[2] == DecorationSpecId) spec_ids.push_back(w[3]);
        if (count >= 4 && w[2] == DecorationDescriptorSet) set_of[w[1]] = w[3];
        if (count >= 3 && w[2] == DecorationNonWritable) var_access[w[1]].first = true;
        if (count >= 3 && w[2] == DecorationNonReadable) var_access[w[1]].second = true;
        break;
      case OpMemberDecorate:
        if (count >= 5 && w[3] == DecorationOffset) member_offsets[w[1]][w[2]] = w[4];
        if (count >= 4 && w[3] == DecorationNonWritable) member_access[w[1]][w[2]].first = true;
        if (count >= 4 && w[3] == DecorationNonReadable) member_access[w[1]][w[2]].second = true;
        break;
      default:
        break;
    }
    i += count;
  }
  auto type = [&](uint32_t id) -> const Type& {
    auto it = types.find(id);
    if (it == types.end()) throw fail("undefined type id " + std::to_string(id));
    return it->second;
  };
  auto scalar_bytes = [&](uint32_t id) -> uint32_t {
    const Type& t = type(id);
    if (t.op == OpTypeInt || t.op == OpTypeFloat) return t.operands.at(0) / 8;
    if (t.op == OpTypeVector) {
      const Type& e = type(t.operands.at(0));
      if (e.op == OpTypeInt || e.op == OpTypeFloat) return e.operands.at(0) / 8 * t.operands.at(1);
    }
    return 0;  // not sized here
  };

  ShaderInterface out;
  out.spec_ids = std::move(spec_ids);
  std::map<uint32_t, BindingKind> by_binding;
  std::map<uint32_t, std::pair<bool, bool>> access_of;  // binding -> (reads, writes), over aliases
  for (const auto& [pointer_type, id] : variables) {
    const Type& ptr = type(pointer_type);
    if (ptr.op != OpTypePointer || ptr.operands.size() < 2) continue;
    const uint32_t storage_class = ptr.operands[0];
    if (storage_class != ClassPushConstant && storage_class != ClassUniform && storage_class != ClassStorageBuffer &&
        storage_class != ClassUniformConstant)
      continue;  // function locals, invocation inputs, shared memory
    const Type& pointee = type(ptr.operands[1]);
    if (storage_class == ClassPushConstant && pointee.op == OpTypeStruct) {
      const auto& offsets = member_offsets[ptr.operands[1]];
      if (!offsets.empty()) {
        const auto& [last, offset] = *offsets.rbegin();
        const uint32_t bytes = scalar_bytes(pointee.operands.at(last));
        out.push_constant_bytes = bytes ? offset + bytes : 0;
      }
      continue;
    }
    auto b = binding_of.find(id);
    if (b == binding_of.end()) continue;  // not a descriptor
    if (set_of.count(id) && set_of[id] != 0) throw fail("binding outside descriptor set 0");
    BindingKind kind;
    bool reads = true, writes = false;
    if ((storage_class == ClassStorageBuffer || storage_class == ClassUniform) && pointee.op == OpTypeStruct) {
      kind = BindingKind::StorageBuffer;
      // readonly / writeonly on the variable, or on every member of its block.
      bool no_write = var_access[id].first, no_read = var_access[id].second;
      const auto& members = member_access[ptr.operands[1]];
      const size_t member_count = pointee.operands.size();
      bool all_no_write = member_count > 0, all_no_read = member_count > 0;
      for (size_t m = 0; m < member_count; ++m) {
        auto it = members.find(static_cast<uint32_t>(m));
        all_no_write = all_no_write && it != members.end() && it->second.first;
        all_no_read = all_no_read && it != members.end() && it->second.second;
      }
      writes = !(no_write || all_no_write);
      reads = !(no_read || all_no_read);
    } else if (storage_class == ClassUniformConstant && pointee.op == OpTypeSampledImage &&
               type(pointee.operands.at(0)).operands.at(1) == kDimBuffer) {
      kind = BindingKind::UniformTexelBuffer;
    } else {
      throw fail("binding " + std::to_string(b->second) + " is neither a storage buffer nor a samplerBuffer");
    }
    auto [it, inserted] = by_binding.emplace(b->second, kind);
    if (!inserted && it->second != kind) throw fail("binding " + std::to_string(b->second) + " is declared twice with different kinds");
    auto& access = access_of[b->second];
    access.first = access.first || reads;
    access.second = access.second || writes;
  }
  for (const auto& [binding, kind] : by_binding) {
    if (binding != out.bindings.size()) throw fail("binding numbers must run 0..N-1 without gaps");
    out.bindings.push_back(kind);
    out.reads.push_back(access_of[binding].first);
    out.writes.push_back(access_of[binding].second);
  }
  return out;
}

}  // namespace tvk::vulkan
