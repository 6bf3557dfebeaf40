// The operator registry and dispatcher: one table read by the C++ API, the interpreter,
// `tvk ops`, `tvk check` and the optimizer. An op is added with one TVK_REGISTER_OP line
// beside its CPU kernel and one TVK_REGISTER_VULKAN_KERNEL line beside its Vulkan kernel.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/schema.h"
#include "tvk/ivalue.h"

namespace tvk::ops {

// A kernel takes every schema argument in order (defaults already filled) and returns the
// op's result (a Tuple for several returns, None for none).
using BoxedKernel = std::function<IValue(Stack&)>;

struct OpEntry {
  Schema schema;
  BoxedKernel cpu;
  BoxedKernel vulkan;
  bool mutates_self = false;  // its first argument is `Tensor(a!)`
  bool supports(Device d) const { return d == Device::CPU ? static_cast<bool>(cpu) : static_cast<bool>(vulkan); }
};

class Registry {
 public:
  static Registry& global();

  OpEntry& define(const std::string& schema_text, BoxedKernel cpu);
  // Attaches a kernel for `device` to an op; ops may be defined later (static init order).
  void set_kernel(const std::string& full_name, Device device, BoxedKernel kernel);
  // nullptr when unknown.
  const OpEntry* find(const std::string& full_name) const;
  // Every overload of `name` ("aten::add").
  std::vector<const OpEntry*> overloads(const std::string& name) const;
  std::vector<const OpEntry*> all() const;

 private:
  std::map<std::string, OpEntry> ops_;
  std::map<std::string, std::vector<std::pair<Device, BoxedKernel>>> pending_;
};

// The device an op call runs on: that of its tensor arguments (all must agree), else a Device
// argument, else the CPU.
Device dispatch_device(const OpEntry& op, const Stack& args);
// 0-D integer tensors (a traced model's shape arithmetic, batch norm's num_batches_tracked)
// stay on the CPU when a model or its constants move to a device: Vulkan kernels compute in
// float32 only, and these feed int() and size arithmetic on the host.
bool scalar_stays_on_cpu(const Tensor& t);
// A factory call asking for a float32 tensor on the CPU (a traced model's new_zeros(...,
// dtype=6, device=cpu); a scripted torch.zeros(b, 10), dtype and device None), which a model on
// another device makes there instead: the index of the call's device argument, or -1. `arg(i)`
// gives argument i's constant value, or nullptr.
int cpu_float_factory_device_arg(const OpEntry& op, const std::function<const IValue*(size_t)>& arg);
// Runs `op` on complete arguments. Throws UnsupportedError when the device has no kernel.
IValue call(const OpEntry& op, Stack args);
// Calls the CPU fallback has run so far, in every thread (tests tell a Vulkan kernel's own
// result from the fallback's with it).
uint64_t cpu_fallback_runs();
// Looks up `full_name` and runs it; fills trailing defaults for a shorter argument list.
IValue call(const std::string& full_name, Stack args);
const OpEntry& require_op(const std::string& full_name);
// The outermost op running on this thread (for profiles), or nullptr.
const OpEntry* current_op();

// ---- boxing: typed C++ kernels to BoxedKernel --------------------------------------------

using Scalar = double;

template <typename T, typename = void> struct ArgFrom;
template <> struct ArgFrom<Tensor> { static Tensor get(const IValue& v) { return v.isNone() ? Tensor() : v.toTensor(); } };
template <> struct ArgFrom<double> { static double get(const IValue& v) { return v.toDouble(); } };
template <> struct ArgFrom<int64_t> { static int64_t get(const IValue& v) { return v.toInt(); } };
template <> struct ArgFrom<bool> { static bool get(const IValue& v) { return v.toBool(); } };
template <> struct ArgFrom<std::string> { static std::string get(const IValue& v) { return v.toStringRef(); } };
template <> struct ArgFrom<Device> { static Device get(const IValue& v) { return v.toDevice(); } };
template <> struct ArgFrom<IValue> { static IValue get(const IValue& v) { return v; } };
template <> struct ArgFrom<IntList> {
  static IntList get(const IValue& v) { return v.isInt() ? IntList{v.toInt()} : v.toIntList(); }
};
template <> struct ArgFrom<std::vector<double>> { static std::vector<double> get(const IValue& v) { return v.toDoubleList(); } };
template <> struct ArgFrom<std::vector<Tensor>> { static std::vector<Tensor> get(const IValue& v) { return v.toTensorList(); } };
template <typename T> struct ArgFrom<std::optional<T>> {
  static std::optional<T> get(const IValue& v) {
    if (v.isNone()) return std::nullopt;
    return ArgFrom<T>::get(v);
  }
};

inline IValue to_ivalue(Tensor t) { return IValue(std::move(t)); }
inline IValue to_ivalue(IValue v) { return v; }
inline IValue to_ivalue(double v) { return IValue(v); }
inline IValue to_ivalue(int64_t v) { return IValue(v); }
inline IValue to_ivalue(bool v) { return IValue(v); }
inline IValue to_ivalue(const IntList& v) { return IValue(v); }
inline IValue to_ivalue(std::vector<Tensor> ts) {
  List items(ts.begin(), ts.end());
  return IValue::list(std::move(items));
}
template <typename... T> IValue to_ivalue(std::tuple<T...> t) {
  return std::apply([](auto&&... x) { return IValue::tuple(List{to_ivalue(std::move(x))...}); }, std::move(t));
}

template <typename R, typename... A, size_t... I>
IValue invoke_boxed(R (*fn)(A...), Stack& s, std::index_sequence<I...>) {
  if constexpr (std::is_void_v<R>) {
    fn(ArgFrom<std::decay_t<A>>::get(s[I])...);
    return IValue();
  } else {
    return to_ivalue(fn(ArgFrom<std::decay_t<A>>::get(s[I])...));
  }
}

template <typename R, typename... A>
BoxedKernel box(R (*fn)(A...)) {
  return [fn](Stack& s) -> IValue {
    if (s.size() != sizeof...(A))
      throw Error(detail::concat("kernel takes ", sizeof...(A), " arguments, got ", s.size()));
    return invoke_boxed(fn, s, std::index_sequence_for<A...>{});
  };
}
inline BoxedKernel box(BoxedKernel k) { return k; }

}  // namespace tvk::ops

#define TVK_OPS_CONCAT_(a, b) a##b
#define TVK_OPS_CONCAT(a, b) TVK_OPS_CONCAT_(a, b)
// Defines an op from its schema with its CPU reference kernel (or nullptr for none).
#define TVK_REGISTER_OP(schema_text, cpu_kernel)                                                     \
  static const bool TVK_OPS_CONCAT(tvk_op_registered_, __COUNTER__) =                               \
      (::tvk::ops::Registry::global().define(schema_text, ::tvk::ops::box(cpu_kernel)), true)
// Defines an op whose one kernel serves every device: it only reads metadata (size, dim) or makes
// tensors on the device it is given (zeros), so the CPU and Vulkan kernels are the same function.
#define TVK_REGISTER_OP_ANY_DEVICE(schema_text, kernel)                                              \
  static const bool TVK_OPS_CONCAT(tvk_op_registered_, __COUNTER__) =                               \
      (::tvk::ops::Registry::global().define(schema_text, ::tvk::ops::box(kernel)).vulkan =             \
           ::tvk::ops::box(kernel),                                                                  \
       true)
// Attaches a Vulkan kernel to an op defined elsewhere, by full name ("aten::add.Tensor").
#define TVK_REGISTER_VULKAN_KERNEL(full_name, kernel)                                                \
  static const bool TVK_OPS_CONCAT(tvk_vk_registered_, __COUNTER__) =                               \
      (::tvk::ops::Registry::global().set_kernel(full_name, ::tvk::Device::Vulkan, ::tvk::ops::box(kernel)), true)
