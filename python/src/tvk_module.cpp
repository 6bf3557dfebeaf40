// _tvk: the native half of the Python package `tvk` (python/tvk). It binds tensors, modules,
// optimize_for_mobile and the op registry; the Python half gives them PyTorch's shape (jit.load,
// utils.mobile_optimizer, numpy and torch in, the same kind out).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/storage.h"
#include "jit/runtime/op_call.h"
#include "ops/registry.h"
#include "tvk/device.h"
#include "tvk/error.h"
#include "tvk/module.h"
#include "tvk/optimize.h"
#include "tvk/tensor.h"
#include "tvk/version.h"
#include "tvk/vulkan_info.h"

namespace py = pybind11;
using tvk::Device;
using tvk::DType;
using tvk::IValue;
using tvk::Tensor;

namespace {

// ---- DLPack (v0.8 ABI, the one torch 1.13-2.x and numpy 1.22+ speak) -------------------------
// Written out here: the struct layouts are the protocol, and Debian has no dlpack header.
struct DLDevice {
  int32_t device_type;  // 1 = kDLCPU
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // 0 int, 1 uint, 2 float, 6 bool
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL = compact row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
constexpr int32_t kDLCPU = 1;

// What a tvk tensor lends through __dlpack__: the tensor (its storage stays alive) and the
// arrays DLTensor points at.
struct Lent {
  DLManagedTensor managed{};
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

DLDataType dl_type_of(DType d) {
  switch (d) {
    case DType::Float32: return {2, 32, 1};
    case DType::Int64: return {0, 64, 1};
    case DType::Bool: return {6, 8, 1};
  }
  return {2, 32, 1};
}

py::capsule to_dlpack(const Tensor& t) {
  TVK_CHECK(t.device() == Device::CPU, "__dlpack__: a ", tvk::to_string(t.device()),
            " tensor has no host memory to share; call .cpu() first");
  auto* lent = new Lent;
  lent->tensor = t;
  lent->shape = t.sizes();
  lent->strides = t.strides();
  DLTensor& dl = lent->managed.dl_tensor;
  dl.data = const_cast<void*>(t.raw_data());
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dl_type_of(t.dtype());
  dl.shape = lent->shape.data();
  dl.strides = lent->strides.data();
  dl.byte_offset = 0;
  lent->managed.manager_ctx = lent;
  lent->managed.deleter = [](DLManagedTensor* self) { delete static_cast<Lent*>(self->manager_ctx); };
  // A capsule nobody consumed still owns the tensor; a consumer renames it "used_dltensor".
  return py::capsule(&lent->managed, "dltensor", [](PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
      if (m && m->deleter) m->deleter(m);
    }
  });
}

// A CPU tensor over the memory a DLPack capsule hands over (no copy); the producer's deleter
// runs when the last tvk tensor on it goes.
Tensor from_dlpack_capsule(py::capsule capsule) {
  TVK_CHECK(PyCapsule_IsValid(capsule.ptr(), "dltensor"),
            "from_dlpack: expected an unused DLPack capsule named 'dltensor'");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const DLTensor& dl = m->dl_tensor;
  TVK_CHECK(dl.device.device_type == kDLCPU, "from_dlpack: only CPU memory can be shared (device type ",
            dl.device.device_type, "); move the tensor to the CPU first");
  TVK_CHECK(dl.dtype.lanes == 1, "from_dlpack: vector dtypes are not supported");
  DType dtype;
  if (dl.dtype.code == 2 && dl.dtype.bits == 32) dtype = DType::Float32;
  else if (dl.dtype.code == 0 && dl.dtype.bits == 64) dtype = DType::Int64;
  else if ((dl.dtype.code == 6 || dl.dtype.code == 1) && dl.dtype.bits == 8) dtype = DType::Bool;
  else throw tvk::UnsupportedError(tvk::detail::concat("from_dlpack: dtype code ", int(dl.dtype.code), " with ",
                                                       int(dl.dtype.bits), " bits is not supported (float32, int64, bool)"));
  TVK_CHECK(dl.ndim >= 0 && dl.ndim <= 64, "from_dlpack: rank ", dl.ndim, " is out of range");
  tvk::IntList sizes(dl.shape, dl.shape + dl.ndim);
  tvk::IntList strides = dl.strides ? tvk::IntList(dl.strides, dl.strides + dl.ndim) : tvk::contiguous_strides(sizes);
  TVK_CHECK(dl.byte_offset % tvk::element_size(dtype) == 0, "from_dlpack: unaligned byte offset");
  // The storage spans exactly what the view reaches (checked without overflow).
  const size_t nbytes = tvk::view_end_bytes(sizes, strides, 0, tvk::element_size(dtype));
  auto* base = static_cast<uint8_t*>(dl.data) + dl.byte_offset;
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  auto storage = std::make_shared<tvk::CpuStorage>(base, nbytes, [m](void*) {
    if (m->deleter) m->deleter(m);
  });
  return Tensor(std::move(storage), std::move(sizes), std::move(strides), 0, dtype);
}

// ---- numpy -------------------------------------------------------------------------------------

py::dtype numpy_dtype(DType d) {
  switch (d) {
    case DType::Float32: return py::dtype::of<float>();
    case DType::Int64: return py::dtype::of<int64_t>();
    case DType::Bool: return py::dtype::of<bool>();
  }
  return py::dtype::of<float>();
}

// A numpy view of a CPU tensor's memory; the array keeps the tensor alive.
py::array to_numpy(const Tensor& t) {
  TVK_CHECK(t.device() == Device::CPU, "numpy(): a ", tvk::to_string(t.device()),
            " tensor lives on the GPU; call .cpu() first");
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides;
  for (int64_t s : t.strides()) strides.push_back(static_cast<py::ssize_t>(s * tvk::element_size(t.dtype())));
  auto* keep = new Tensor(t);
  py::capsule owner(keep, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(numpy_dtype(t.dtype()), shape, strides, t.raw_data(), owner);
}

// A tvk tensor holding a copy of a numpy array (float64 becomes float32, as torch's default).
Tensor from_numpy(py::array array) {
  py::array a;
  DType dtype;
  if (py::isinstance<py::array_t<bool>>(array) && array.dtype().kind() == 'b') {
    a = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(array);
    dtype = DType::Bool;
  } else if (array.dtype().kind() == 'i' || array.dtype().kind() == 'u') {
    a = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(array);
    dtype = DType::Int64;
  } else if (array.dtype().kind() == 'f') {
    a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(array);
    dtype = DType::Float32;
  } else {
    throw tvk::UnsupportedError(std::string("from_numpy: dtype ") + py::str(array.dtype()).cast<std::string>() +
                                " is not supported (float, integer and bool arrays are)");
  }
  tvk::IntList sizes(a.shape(), a.shape() + a.ndim());
  Tensor t = tvk::empty(sizes, dtype);
  if (t.nbytes()) std::memcpy(t.raw_data(), a.data(), t.nbytes());
  return t;
}

// ---- IValue <-> Python ---------------------------------------------------------------------

// Values cross between Python and tvk at most this deep (as in Java), so a hostile nesting is
// an error, not a stack overflow in the conversion.
constexpr int kMaxNesting = tvk::ValueWalk::kMaxDepth;  // inputs, as ValueWalk bounds outputs

void check_nesting(int depth) {
  if (depth > kMaxNesting) throw tvk::Error(tvk::detail::concat("a value nested more than ", kMaxNesting, " deep"));
}

IValue to_ivalue(py::handle h, int depth = 0) {
  check_nesting(depth);
  if (h.is_none()) return IValue();
  if (py::isinstance<Tensor>(h)) return IValue(h.cast<Tensor>());
  if (py::isinstance<py::bool_>(h)) return IValue(h.cast<bool>());
  if (py::isinstance<py::int_>(h)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow != 0)
      throw tvk::Error("the Python int " + py::str(h).cast<std::string>().substr(0, 64) +
                       " does not fit TorchScript's int (64 bits)");
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return IValue(static_cast<int64_t>(v));
  }
  if (py::isinstance<py::float_>(h)) return IValue(h.cast<double>());
  if (py::isinstance<py::str>(h)) return IValue(h.cast<std::string>());
  if (py::isinstance<py::array>(h)) return IValue(from_numpy(h.cast<py::array>()));
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    tvk::List items;
    for (py::handle e : h) items.push_back(to_ivalue(e, depth + 1));
    return py::isinstance<py::list>(h) ? IValue::list(std::move(items)) : IValue::tuple(std::move(items));
  }
  throw tvk::UnsupportedError(std::string("cannot pass a Python ") + py::str(py::type::of(h)).cast<std::string>() +
                              " to tvk (tensors, numbers, strings, None, lists and tuples can be passed)");
}

py::object from_ivalue(const IValue& v, tvk::ValueWalk& walk, int depth) {
  walk.enter(depth);
  switch (v.tag()) {
    case IValue::Tag::None: return py::none();
    case IValue::Tag::Tensor: return py::cast(v.toTensor());
    case IValue::Tag::Double: return py::float_(v.toDouble());
    case IValue::Tag::Int: return py::int_(v.toInt());
    case IValue::Tag::Bool: return py::bool_(v.toBool());
    case IValue::Tag::String: return py::str(v.toStringRef());
    case IValue::Tag::Device: return py::str(tvk::to_string(v.toDevice()));
    case IValue::Tag::List: {
      py::list out;
      for (const IValue& e : v.toList()) out.append(from_ivalue(e, walk, depth + 1));
      return out;
    }
    case IValue::Tag::Tuple: {
      const tvk::List& items = v.toTuple();
      py::tuple out(items.size());
      for (size_t i = 0; i < items.size(); ++i) out[i] = from_ivalue(items[i], walk, depth + 1);
      return out;
    }
    case IValue::Tag::Dict: {
      py::dict out;
      for (const auto& [key, value] : v.toDict()->items)
        out[from_ivalue(key, walk, depth + 1)] = from_ivalue(value, walk, depth + 1);
      return out;
    }
    case IValue::Tag::Object: {
      const auto& obj = v.toObject();
      if (obj->named_tuple) {
        // (type name, field names, values): the Python half makes a collections.namedtuple.
        py::list names, values;
        for (const auto& [field, value] : obj->attributes) {
          names.append(field);
          values.append(from_ivalue(value, walk, depth + 1));
        }
        return py::make_tuple(py::str("__named_tuple__"), obj->type_name, names, values);
      }
      throw tvk::UnsupportedError("a script object (" + obj->type_name + ") cannot be returned to Python");
    }
  }
  return py::none();
}

// A value a run returned, as Python objects.
py::object from_ivalue(const IValue& v) {
  tvk::ValueWalk walk("converting the result to Python");
  return from_ivalue(v, walk, 0);
}

std::vector<IValue> to_stack(const py::args& args) {
  std::vector<IValue> out;
  for (py::handle a : args) out.push_back(to_ivalue(a));
  return out;
}

Device device_of(const std::string& name) { return tvk::parse_device(name); }

// tvk::Limits from load()'s and set_limits()'s keywords; None keeps the default.
tvk::Limits limits_of(std::optional<double> timeout, std::optional<uint64_t> max_memory,
                      std::optional<uint64_t> max_steps, std::optional<uint64_t> max_device_memory = std::nullopt) {
  tvk::Limits limits;
  if (timeout) {
    if (!(*timeout > 0)) throw tvk::Error("timeout must be a positive number of seconds");
    limits.timeout_s = *timeout;
  }
  if (max_memory) limits.max_memory = *max_memory;
  if (max_steps) limits.max_steps = *max_steps;
  if (max_device_memory) limits.max_device_memory = *max_device_memory;
  return limits;
}

}  // namespace

PYBIND11_MODULE(_tvk, m) {
  m.doc() = "tvk: PyTorch models on Vulkan GPUs, without libtorch (native half)";
  m.attr("__version__") = TVK_VERSION;

  // Exceptions: tvk.Error and its subclasses carry the C++ message. pybind11 tries the most
  // recently registered translator first, so subclasses come after Error.
  static py::exception<tvk::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<tvk::UnsupportedError> unsupported(m, "UnsupportedError", error.ptr());
  static py::exception<tvk::OutOfMemoryError> out_of_memory(m, "OutOfMemoryError", error.ptr());
  static py::exception<tvk::VulkanError> vulkan_error(m, "VulkanError", error.ptr());
  static py::exception<tvk::LimitError> limit_error(m, "LimitError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tvk::OutOfMemoryError& e) {
      out_of_memory(e.what());
    } catch (const tvk::UnsupportedError& e) {
      unsupported(e.what());
    } catch (const tvk::VulkanError& e) {
      vulkan_error(e.what());
    } catch (const tvk::LimitError& e) {
      limit_error(e.what());
    } catch (const tvk::Error& e) {
      error(e.what());
    }
  });

  m.def("is_vulkan_available", &tvk::is_vulkan_available, "Whether a Vulkan device can run tvk's kernels.");
  m.def(
      "devices",
      [] {
        py::list out;
        for (const tvk::VulkanDeviceInfo& d : tvk::vulkan_info().devices) {
          py::dict info;
          info["index"] = d.index;
          info["name"] = d.name;
          info["type"] = d.type;
          info["driver"] = d.driver;
          info["api_version"] = d.api_version;
          info["subgroup_size"] = d.subgroup_size;
          info["compute_units"] = d.compute_units;
          info["fp16_arithmetic"] = d.fp16_arithmetic;
          info["storage_16bit"] = d.storage_16bit;
          info["cooperative_matrix"] = d.cooperative_matrix;
          info["device_local_bytes"] = d.device_local_bytes;
          info["usable"] = d.usable;
          info["selected"] = d.selected;
          out.append(info);
        }
        return out;
      },
      "The Vulkan devices the loader reports; the one tvk uses has selected=True.");

  py::class_<Tensor>(m, "Tensor", "A tvk tensor on the CPU or on Vulkan (float32, int64 or bool).")
      .def_property_readonly("shape", [](const Tensor& t) { return py::tuple(py::cast(t.sizes())); })
      .def_property_readonly("dtype", [](const Tensor& t) { return std::string(tvk::to_string(t.dtype())); })
      .def_property_readonly("device", [](const Tensor& t) { return std::string(tvk::to_string(t.device())); })
      .def("dim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("size", [](const Tensor& t) { return py::tuple(py::cast(t.sizes())); })
      .def("stride", [](const Tensor& t) { return py::tuple(py::cast(t.strides())); })
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("contiguous", &Tensor::contiguous)
      .def("clone", &Tensor::clone)
      .def("cpu", [](const Tensor& t) {
        py::gil_scoped_release release;
        return t.cpu();
      })
      .def("vulkan", [](const Tensor& t) {
        py::gil_scoped_release release;
        return t.vulkan();
      })
      .def(
          "to",
          [](const Tensor& t, const std::string& device) {
            const Device d = device_of(device);
            py::gil_scoped_release release;
            return t.to(d);
          },
          py::arg("device"))
      .def("numpy", &to_numpy, "A numpy array sharing this CPU tensor's memory.")
      .def("__dlpack__", [](const Tensor& t, py::object /*stream*/) { return to_dlpack(t); },
           py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const Tensor& t) {
        TVK_CHECK(t.device() == Device::CPU, "__dlpack_device__: only CPU tensors are shared");
        return py::make_tuple(kDLCPU, 0);
      });

  m.def(
      "set_vulkan_precision",
      [](const std::string& precision) {
        if (precision == "fp32") tvk::set_vulkan_precision(tvk::Precision::FP32);
        else if (precision == "fp16") tvk::set_vulkan_precision(tvk::Precision::FP16);
        else throw tvk::Error("set_vulkan_precision: expected 'fp32' or 'fp16', got '" + precision + "'");
      },
      py::arg("precision"),
      "'fp16': weights packed from now on (models loaded or optimized after the call) are stored as "
      "16-bit floats; activations and arithmetic stay fp32.");
  m.def("vulkan_precision", [] { return std::string(tvk::to_string(tvk::vulkan_precision())); });
  m.def("set_cpu_fallback", &tvk::set_cpu_fallback, py::arg("enabled"),
        "True: ops without a Vulkan kernel run on the CPU for Vulkan tensors (copies there and back) "
        "instead of raising tvk.UnsupportedError. Also TVK_CPU_FALLBACK=1.");
  m.def("cpu_fallback_enabled", &tvk::cpu_fallback_enabled);
  m.def("from_numpy", &from_numpy, py::arg("array"), "A CPU tensor with a copy of a numpy array.");
  m.def("from_dlpack_capsule", &from_dlpack_capsule, py::arg("capsule"));
  m.def(
      "rand", [](const std::vector<int64_t>& shape, uint64_t seed) { return tvk::rand(shape, seed); },
      py::arg("shape"), py::arg("seed") = 0);
  m.def(
      "randn", [](const std::vector<int64_t>& shape, uint64_t seed) { return tvk::randn(shape, seed); },
      py::arg("shape"), py::arg("seed") = 0);
  m.def(
      "zeros", [](const std::vector<int64_t>& shape) { return tvk::zeros(shape); }, py::arg("shape"));
  m.def(
      "ones", [](const std::vector<int64_t>& shape) { return tvk::ones(shape); }, py::arg("shape"));

  // Ops by name, overloads chosen by the arguments as TorchScript does.
  m.def("has_op", [](const std::string& name) { return !tvk::ops::Registry::global().overloads(name).empty(); });
  m.def(
      "op_overloads",
      [](const std::string& name) {
        py::list out;
        for (const tvk::ops::OpEntry* op : tvk::ops::Registry::global().overloads(name))
          out.append(py::make_tuple(op->schema.text, op->supports(Device::CPU), op->supports(Device::Vulkan)));
        return out;
      },
      py::arg("name"), "(schema, has a CPU kernel, has a Vulkan kernel) for each overload of an op.");
  m.def("call_op", [](const std::string& name, py::args args, py::kwargs kwargs) {
    std::vector<IValue> stack = to_stack(args);
    tvk::jit::Kwargs named;
    for (auto item : kwargs) named.emplace_back(item.first.cast<std::string>(), to_ivalue(item.second));
    IValue out;
    {
      py::gil_scoped_release release;
      tvk::Stack bound;
      const tvk::ops::OpEntry* op = tvk::jit::resolve_overload(name, stack, named, &bound);
      if (op == nullptr) throw tvk::UnsupportedError("unknown op " + name + " (`tvk ops` lists the ops tvk has)");
      out = tvk::ops::call(*op, std::move(bound));
    }
    return from_ivalue(out);
  });

  py::class_<tvk::jit::Module>(m, "Module")
      .def("run_method",
           [](tvk::jit::Module& self, const std::string& method, py::args args, py::kwargs kwargs) {
             std::vector<IValue> inputs = to_stack(args);
             // timeout= (seconds) for this call, else the module's limits.
             tvk::Limits limits = self.limits();
             for (auto item : kwargs) {
               const std::string key = item.first.cast<std::string>();
               if (key != "timeout") throw tvk::Error("run_method() got an unexpected keyword argument '" + key + "'");
               if (!item.second.is_none()) limits.timeout_s = item.second.cast<double>();
             }
             IValue out;
             {
               py::gil_scoped_release release;  // inference runs without the GIL
               out = self.run_method(method, std::move(inputs), limits);
             }
             return from_ivalue(out);
           })
      .def("set_limits",
           [](tvk::jit::Module& self, std::optional<double> timeout, std::optional<uint64_t> max_memory,
              std::optional<uint64_t> max_steps, std::optional<uint64_t> max_device_memory) {
             self.set_limits(limits_of(timeout, max_memory, max_steps, max_device_memory));
           },
           py::arg("timeout") = py::none(), py::arg("max_memory") = py::none(), py::arg("max_steps") = py::none(),
           py::arg("max_device_memory") = py::none())
      .def("has_method", &tvk::jit::Module::has_method)
      .def("method_names", &tvk::jit::Module::method_names)
      .def("save", &tvk::jit::Module::save, py::arg("path"))
      // {name: bytes}: the archive's extra files (torch.jit.save's _extra_files), written back by save().
      .def_property_readonly("extra_files",
                             [](const tvk::jit::Module& self) {
                               py::dict out;
                               for (const auto& [name, contents] : self.extra_files()) out[py::str(name)] = py::bytes(contents);
                               return out;
                             })
      .def("set_extra_file", [](tvk::jit::Module& self, const std::string& name, const py::bytes& contents) {
        self.set_extra_file(name, std::string(contents));
      }, py::arg("name"), py::arg("contents"))
      .def_property_readonly("device", [](const tvk::jit::Module& self) { return tvk::to_string(self.device()); })
      .def_property_readonly("type_name", &tvk::jit::Module::type_name)
      .def_property_readonly("optimized_for_vulkan", &tvk::jit::Module::optimized_for_vulkan)
      .def_property_readonly("is_exported_program", &tvk::jit::Module::is_exported_program)
      .def("code", &tvk::jit::Module::code, py::arg("method") = "forward")
      .def("graph", &tvk::jit::Module::graph, py::arg("method") = "forward")
      .def_property_readonly("example_inputs",
                             [](const tvk::jit::Module& self) {
                               py::list out;
                               for (const IValue& v : self.example_inputs()) out.append(from_ivalue(v));
                               return out;
                             })
      .def("named_parameters", [](const tvk::jit::Module& self) { return self.named_parameters(); })
      .def("set_tuning", [](tvk::jit::Module& self, const std::string& mode) { self.set_tuning(tvk::parse_tuning(mode)); },
           py::arg("mode"))
      .def_property_readonly("tuning", [](const tvk::jit::Module& self) -> py::object {
        if (const auto t = self.tuning()) return py::str(tvk::to_string(*t));
        return py::none();
      });

  m.def(
      "load",
      [](const std::string& path, const std::string& device, std::optional<double> timeout,
         std::optional<uint64_t> max_memory, std::optional<uint64_t> max_steps, std::optional<uint64_t> max_device_memory) {
        const tvk::jit::LoadOptions options{device_of(device), std::nullopt,
                                            limits_of(timeout, max_memory, max_steps, max_device_memory)};
        py::gil_scoped_release release;
        return tvk::jit::load(path, options);
      },
      py::arg("path"), py::arg("device") = "cpu", py::arg("timeout") = py::none(), py::arg("max_memory") = py::none(),
      py::arg("max_steps") = py::none(), py::arg("max_device_memory") = py::none());

  m.def(
      "optimize_for_mobile",
      [](const tvk::jit::Module& module, const std::vector<int>& blocklist,
         const std::vector<std::string>& preserved_methods, const std::string& backend, bool cpu_fallback,
         const std::vector<std::optional<std::string>>& input_dtypes) {
        tvk::MobileOptimizerOptions options;
        options.cpu_fallback = cpu_fallback;
        for (const auto& d : input_dtypes) {
          std::optional<tvk::DType> dtype;
          if (d == "float32") dtype = tvk::DType::Float32;
          else if (d == "int64") dtype = tvk::DType::Int64;
          else if (d == "bool") dtype = tvk::DType::Bool;
          else if (d) throw tvk::Error("optimize_for_mobile: example input dtype '" + *d + "' is not float32, int64 or bool");
          options.input_dtypes.push_back(dtype);
        }
        std::string b = backend;
        for (char& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (b == "vulkan") options.backend = tvk::MobileBackend::Vulkan;
        else if (b == "cpu") options.backend = tvk::MobileBackend::CPU;
        else throw tvk::Error("optimize_for_mobile: unknown backend '" + backend + "' (expected 'CPU' or 'Vulkan')");
        for (int type : blocklist) {
          TVK_CHECK(type >= 0 && type <= 6, "optimize_for_mobile: unknown MobileOptimizerType ", type);
          options.optimization_blocklist.insert(static_cast<tvk::MobileOptimizerType>(type));
        }
        options.preserved_methods = preserved_methods;
        py::gil_scoped_release release;
        return tvk::optimize_for_mobile(module, options);
      },
      py::arg("module"), py::arg("blocklist"), py::arg("preserved_methods"), py::arg("backend"),
      py::arg("cpu_fallback") = false, py::arg("input_dtypes") = std::vector<std::optional<std::string>>{});
}
