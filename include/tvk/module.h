// tvk::jit::Module: a TorchScript model loaded from a torch.jit.save archive, run by tvk's
// interpreter on the CPU or on Vulkan (like torch::jit::load / Module::forward).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tvk/ivalue.h"
#include "tvk/limits.h"
#include "tvk/vulkan_info.h"

namespace tvk::jit {

struct ModuleState;

class Module {
 public:
  explicit Module(std::shared_ptr<ModuleState> state);

  // Runs `forward`. With a Vulkan module, CPU tensor inputs are moved to the GPU, and outputs
  // come back on the CPU when any input was a CPU tensor (as the seed's Java API does).
  IValue forward(std::vector<IValue> inputs);
  IValue run_method(const std::string& method, std::vector<IValue> inputs);
  // The same under other limits for this call (a call's own timeout or cancel token).
  IValue run_method(const std::string& method, std::vector<IValue> inputs, const Limits& limits);
  bool has_method(const std::string& method) const;
  std::vector<std::string> method_names() const;

  // An attribute of the root module (a parameter, buffer, submodule or constant).
  IValue attr(const std::string& name) const;
  // Parameters as "features.0.0.weight" -> tensor, in declaration order.
  std::vector<std::pair<std::string, Tensor>> named_parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(bool recurse = true) const;
  // The class of the root module, e.g. "__torch__.torchvision.models.mobilenetv2.MobileNetV2".
  std::string type_name() const;
  Device device() const;
  // Writes the module as a TorchScript archive (zip with data.pkl, code/, constants.pkl) that
  // tvk::jit::load and PyTorch read. Available for modules made by optimize_for_mobile.
  void save(const std::string& path) const;
  // The archive's extra files (torch.jit.save's _extra_files, a lite file's mobile_info.json)
  // by name, which save() writes back; set_extra_file adds or replaces one.
  const std::map<std::string, std::string>& extra_files() const;
  void set_extra_file(const std::string& name, std::string contents);
  // True for modules made by optimize_for_mobile(backend=Vulkan), or loaded from such a file.
  bool optimized_for_vulkan() const;
  // A torch.export program (.pt2): load() reads those too. Its forward checks its inputs as
  // torch's guards do (rank, static sizes, dynamic ones within the exported ranges).
  bool is_exported_program() const;
  // TorchScript source, as torch's ScriptModule.code gives it: a loaded module's `method` as its
  // archive wrote it (a .pt2's as tvk translated its graph), an optimized module's as save()
  // would write it. Throws tvk::Error when the module has no such method or holds only bytecode.
  std::string code(const std::string& method = "forward") const;
  // The method's frozen graph, printed, as ScriptModule.graph: an optimized module's, or a loaded
  // one's once a call has frozen it (the first run); nullopt before that, or for a method that
  // runs interpreted.
  std::optional<std::string> graph(const std::string& method = "forward") const;
  // Inputs the file holds for forward (a .pt2's sample inputs); empty when it holds none.
  const std::vector<IValue>& example_inputs() const;

  // Kernel tuning for this module's Vulkan layers (tvk/vulkan_info.h: Off, Cached, On); by
  // default TVK_TUNE's, else Cached. It applies to plans recorded after the call: set it before
  // the first run (a run that records a plan with On tunes every layer not yet tuned).
  // The limits every run of this module's code runs under (tvk/limits.h); LoadOptions::limits
  // at load. Setting them starts a new memory count.
  void set_limits(const Limits& limits);
  const Limits& limits() const;

  void set_tuning(Tuning tuning);
  std::optional<Tuning> tuning() const;  // unset: the environment's

  // The loaded object graph (for tools and passes).
  const std::shared_ptr<Object>& object() const;
  const std::shared_ptr<ModuleState>& state() const { return state_; }

 private:
  IValue run_method_in_run(const std::string& method, std::vector<IValue> inputs);
  std::shared_ptr<ModuleState> state_;
};

// Loads a TorchScript archive written by torch.jit.save (any PyTorch from 1.x to 2.x), or a
// torch.export program written by torch.export.save (torch 2.1 and later). With
// Device::Vulkan, parameters and buffers are moved to the GPU once, here.
// Throws tvk::Error naming the file and the place (record, offset, line) on bad input.
Module load(const std::string& path, Device device = Device::CPU);

// Options of a load beyond the device.
struct LoadOptions {
  Device device = Device::CPU;
  std::optional<Tuning> tuning;  // Module::set_tuning's, set on the loaded module; unset: TVK_TUNE's
  Limits limits;                 // for loading (its __setstate__ code) and every later run
};
Module load(const std::string& path, const LoadOptions& options);

}  // namespace tvk::jit
