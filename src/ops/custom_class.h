// Custom classes (PyTorch's torch::class_): native objects that TorchScript code passes around,
// such as packed convolution weights. Each registers how to rebuild itself from its pickled
// state (__setstate__) and what state to pickle (__getstate__).
#pragma once

#include <functional>
#include <string>

#include "ops/registry.h"
#include "tvk/ivalue.h"

namespace tvk::ops {

struct CustomClass {
  std::string qualified_name;  // "__torch__.torch.classes.vulkan.Conv2dPackedContext"
  std::function<IValue(const Object& self)> get_state;
  std::function<void(Object& self, const IValue& state)> set_state;
};

void register_custom_class(CustomClass cls);

// The native payload of `self`, checked: a foreign payload under a class's name is an error,
// not undefined behaviour.
template <typename Payload>
const Payload& payload_of(const Object& self) {
  const auto* p = dynamic_cast<const Payload*>(self.payload.get());
  TVK_CHECK(p != nullptr, self.type_name, ": object has no packed weights");
  return *p;
}
// An op's context argument: an object of class `cls` with its payload.
template <typename Payload>
const Payload& context_payload(const IValue& v, const char* cls, const char* op) {
  TVK_CHECK(v.isObject() && v.toObject()->type_name == cls, op, ": expected a ", cls);
  return payload_of<Payload>(*v.toObject());
}
// nullptr when no class of that name is registered.
const CustomClass* find_custom_class(const std::string& qualified_name);

}  // namespace tvk::ops

#define TVK_REGISTER_CUSTOM_CLASS(...)                                              \
  static const bool TVK_OPS_CONCAT(tvk_class_registered_, __COUNTER__) =           \
      (::tvk::ops::register_custom_class(__VA_ARGS__), true)
