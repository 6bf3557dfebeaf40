// Whole models through tvk::jit::load and Module::forward, compared with torch's eager output:
// files written by the local torch 1.13 (made by the `models_generate` fixture) and by torch
// 2.11 (kept in tests/models/torch2), on the CPU and on Vulkan.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "io/npy.h"
#include "tvk/optimize.h"
#include "jit/runtime/interpreter.h"
#include "jit/serialization/zip_reader.h"
#include "jit/serialization/zip_writer.h"
#include "ops/custom_class.h"
#include "ops/quantized.h"
#include "model_support.h"
#include "support/test_support.h"

using namespace tvk;
namespace fs = std::filesystem;

namespace {

// The folders holding <model>_<mode>.pt, <model>_input.npy and <model>_expected<i>.npy.
std::string torch113_dir() { return testing_support::env_or("TVK_MODELS_DIR", TVK_DEFAULT_MODELS_DIR); }
std::string torch211_dir() { return TVK_SOURCE_DIR "/tests/models/torch2"; }

std::vector<Tensor> flatten(const IValue& v) {
  std::vector<Tensor> out;
  if (v.isTensor()) out.push_back(v.toTensor());
  else if (v.isList() || v.isTuple())
    for (const IValue& e : v.toList())
      for (const Tensor& t : flatten(e)) out.push_back(t);
  else if (v.isObject() && v.toObject()->named_tuple)
    for (const auto& field : v.toObject()->attributes)
      for (const Tensor& t : flatten(field.second)) out.push_back(t);
  else if (v.isDict())
    for (const auto& item : v.toDict()->items)
      for (const Tensor& t : flatten(item.second)) out.push_back(t);
  return out;
}

struct ModelCase {
  std::string dir_kind;  // "torch113" or "torch211"
  std::string model;     // mobilenet_v2, resnet18, squeezenet1_1, control_flow
  std::string mode;      // script, trace; frozen, mobile (optimize_for_mobile for the CPU), lite (.ptl);
                         // bytecode (a .ptl without code/: tvk's bytecode interpreter)
  Device device;
};

void PrintTo(const ModelCase& c, std::ostream* os) {
  *os << c.dir_kind << " " << c.model << " " << c.mode << " on " << to_string(c.device);
}

std::string case_name(const ::testing::TestParamInfo<ModelCase>& info) {
  const ModelCase& c = info.param;
  return c.dir_kind + "_" + c.model + "_" + c.mode + "_" + to_string(c.device);
}

class ModelMatchesTorch : public ::testing::TestWithParam<ModelCase> {};

TEST_P(ModelMatchesTorch, WithinRelativeTolerance) {
  const ModelCase& c = GetParam();
  if (c.device == Device::Vulkan) TVK_NEED_VULKAN();
  const std::string dir = c.dir_kind == "torch113" ? torch113_dir() : torch211_dir();
  if (dir.empty()) {
    if (testing_support::vulkan_required()) FAIL() << "TVK_MODELS_DIR is not set (run through ctest)";
    GTEST_SKIP() << "TVK_MODELS_DIR is not set";
  }
  const bool lite = c.mode == "lite" || c.mode == "bytecode";
  const std::string path = dir + "/" + c.model + "_" + c.mode + (lite ? ".ptl" : ".pt");
  ASSERT_TRUE(fs::exists(path)) << path;
  jit::Module module = jit::load(path, c.device);
  Tensor input = io::read_npy(dir + "/" + c.model + "_input.npy");
  std::vector<IValue> inputs;
  inputs.emplace_back(input);
  std::vector<Tensor> outputs = flatten(module.forward(std::move(inputs)));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string expected_path = dir + "/" + c.model + "_expected" + std::to_string(i) + ".npy";
    ASSERT_TRUE(fs::exists(expected_path)) << "the model returned more outputs than torch: " << expected_path;
    Tensor expected = io::read_npy(expected_path);
    EXPECT_EQ(outputs[i].device(), Device::CPU) << "CPU inputs give CPU outputs";
    EXPECT_EQ(outputs[i].dtype(), expected.dtype()) << path << " output " << i;
    const double diff = testing_support::max_abs_diff(outputs[i], expected);
    const double scale = testing_support::max_abs(expected);
    ASSERT_GT(scale, 1e-3) << "torch's output is too small for a relative comparison to mean anything";
    EXPECT_LE(diff / scale, testing_support::tolerance_for(c.model)) << path << " output " << i << " on " << to_string(c.device) << ": max |diff| "
                                  << diff << ", max |expected| " << scale;
  }
  EXPECT_FALSE(fs::exists(dir + "/" + c.model + "_expected" + std::to_string(outputs.size()) + ".npy"))
      << "the model returned fewer outputs than torch";
}

std::vector<ModelCase> all_cases() {
  std::vector<ModelCase> cases;
  for (Device d : {Device::CPU, Device::Vulkan}) {
    for (const char* m : {"mobilenet_v2", "resnet18", "squeezenet1_1", "mobilenet_v3_small"})
      for (const char* mode : {"script", "trace"}) cases.push_back({"torch113", m, mode, d});
    cases.push_back({"torch113", "control_flow", "script", d});
    cases.push_back({"torch113", "inplace_shape", "script", d});  // issue 10: transpose_ kept (3, 6)
    cases.push_back({"torch113", "named_tuple", "script", d});    // issue 10: googlenet's NamedTuple
    cases.push_back({"torch113", "dense_shuffle", "script", d});  // issue 10: densenet, shufflenet
    cases.push_back({"torch113", "torch_flags", "script", d});    // issue 10: vit's attention asks these
    cases.push_back({"torch113", "attention", "script", d});      // issue 10: vit's multi-head attention
    cases.push_back({"torch113", "segmentation", "script", d});   // issue 10: dict outputs, bilinear
    cases.push_back({"torch113", "segmentation", "trace", d});    // issue 10: prim::NumToTensor sizes
    cases.push_back({"torch113", "shifted_windows", "script", d}); // issue 10: swin_t's writes into slices
    cases.push_back({"torch113", "dynamic_quant", "script", d});   // issue 11: quantize_dynamic's linears
    cases.push_back({"torch113", "static_quant", "script", d});    // issue 11: a statically quantized CNN
    // issue 11: quantized models frozen, CPU-optimized and as lite files, as apps ship them
    // (torch's serializer writes their packed convolutions as version 2 states)
    for (const char* m : {"dynamic_quant", "static_quant"})
      for (const char* mode : {"frozen", "mobile", "lite"}) cases.push_back({"torch113", m, mode, d});
    // issue 11: lite files with bytecode only (loops, raise, NamedTuple and dict outputs,
    // interpolate, quantized modules' __setstate__, XNNPACK contexts)
    for (const char* m : {"control_flow", "named_tuple", "segmentation", "dynamic_quant", "static_quant", "xnnpack"})
      cases.push_back({"torch113", m, "bytecode", d});
    cases.push_back({"torch113", "xnnpack", "script", d});        // issue 11: CPU-prepacked contexts
    // issue 11: archives in the forms PyTorch 1.3 (v1) and 1.4-1.5 (v2) wrote (legacy_archive.py);
    // legacy_ops: integer div and full with their meaning of then
    for (const char* m : {"control_flow", "named_tuple", "segmentation", "mobilenet_v2", "legacy_ops"})
      for (const char* mode : {"v1", "v2"}) cases.push_back({"torch113", m, mode, d});
    // issue 48: sequence, audio and image-to-image families (tests/models/families.py)
    for (const char* m : testing_support::kFamilies)
      for (const char* mode : {"script", "trace"}) cases.push_back({"torch113", m, mode, d});
    for (const char* m : {"mobilenet_v2", "squeezenet1_1"})
      for (const char* mode : {"script", "trace"}) cases.push_back({"torch211", m, mode, d});
    cases.push_back({"torch211", "control_flow", "script", d});
    cases.push_back({"torch211", "dynamic_quant", "script", d});  // issue 11: files from torch 2.11
    cases.push_back({"torch211", "static_quant", "script", d});
    cases.push_back({"torch211", "xnnpack", "script", d});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Models, ModelMatchesTorch, ::testing::ValuesIn(all_cases()), case_name);

// The same model as legacy_ops_v1.pt, written by torch 1.13 (format version 5): there integer
// div is true division and full with an integer fill makes int64, and an optimized copy of each
// keeps its meaning when saved and loaded again (the saved version follows the ops it calls).
TEST(ModelLoader, VersionedOpsKeepTheMeaningOfTheirArchive) {
  const std::string dir = torch113_dir();
  if (dir.empty()) GTEST_SKIP() << "TVK_MODELS_DIR is not set";
  const Tensor input = io::read_npy(dir + "/legacy_ops_input.npy");
  auto check = [&](jit::Module& module, const std::string& expected_prefix, const std::string& what) {
    std::vector<IValue> inputs;
    inputs.emplace_back(input);
    const std::vector<Tensor> outputs = flatten(module.forward(std::move(inputs)));
    ASSERT_EQ(outputs.size(), 4u) << what;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor expected = io::read_npy(dir + "/" + expected_prefix + std::to_string(i) + ".npy");
      EXPECT_EQ(outputs[i].dtype(), expected.dtype()) << what << " output " << i;
      EXPECT_LE(testing_support::max_abs_diff(outputs[i], expected), 1e-6) << what << " output " << i;
    }
  };
  struct Case {
    const char* file;
    const char* expected;
  };
  for (const Case& c : {Case{"legacy_ops_script.pt", "legacy_ops_modern_expected"},
                        Case{"legacy_ops_v1.pt", "legacy_ops_expected"}}) {
    jit::Module module = jit::load(dir + "/" + c.file);
    check(module, c.expected, c.file);
    jit::Module optimized = optimize_for_mobile(module);
    const std::string saved = ::testing::TempDir() + "tvk_versioned_" + c.file;
    optimized.save(saved);
    jit::Module reloaded = jit::load(saved);
    check(reloaded, c.expected, std::string(c.file) + ", optimized, saved and loaded");
    fs::remove(saved);
  }
}

// Extra files (torch.jit.save's _extra_files, a lite file's mobile_info.json) stay with the
// module through optimize_for_mobile and are written back by save (issue 11).
TEST(ModelLoader, ExtraFilesSurviveOptimizeSaveAndLoad) {
  jit::Module module = jit::load(torch211_dir() + "/control_flow_script.pt");
  EXPECT_TRUE(module.extra_files().empty());
  module.set_extra_file("labels.txt", "cat\ndog\n");
  module.set_extra_file("mobile_info.json", "{\"model_name\": \"control_flow\"}");
  EXPECT_THROW(module.set_extra_file("../escape", "x"), Error);
  jit::Module optimized = optimize_for_mobile(module);
  const std::string saved = ::testing::TempDir() + "tvk_extra_files.pt";
  optimized.save(saved);
  const jit::ZipReader zip = jit::ZipReader::open(saved);
  EXPECT_TRUE(zip.has("extra/labels.txt"));
  jit::Module reloaded = jit::load(saved);
  EXPECT_EQ(reloaded.extra_files(), module.extra_files());
  fs::remove(saved);
}

// A wrong number or kind of inputs is the same clear error for a loaded module and for one
// optimized for Vulkan (whose runs look up a recorded plan by the inputs first), on every call.
TEST(ModelLoader, WrongInputsAreTheSameClearErrorLoadedAndOptimized) {
  jit::Module loaded = jit::load(torch211_dir() + "/control_flow_script.pt");
  std::vector<std::pair<std::string, jit::Module>> modules;
  modules.emplace_back("loaded", loaded);
  if (is_vulkan_available()) modules.emplace_back("optimized", optimize_for_mobile(loaded));
  const Tensor x = tvk::rand({1, 3, 8, 8});
  struct Case {
    std::vector<IValue> inputs;
    const char* message;
  };
  const std::vector<Case> cases = {{{IValue(x), IValue(x)}, "forward() takes 1 input(s), got 2"},
                                   {{}, "forward() takes 1 input(s), got 0"},
                                   {{IValue::list({IValue(x)})}, "must be a Tensor, got List"}};
  for (auto& [what, module] : modules) {
    module.forward({IValue(x)});  // a plan recorded first: the checks come before its lookup
    for (const Case& c : cases) {
      for (int call = 0; call < 2; ++call) {
        try {
          module.forward(c.inputs);
          ADD_FAILURE() << what << ": " << c.message << ": ran";
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << what << ": " << e.what();
        }
      }
    }
    EXPECT_NO_THROW(module.forward({IValue(x)})) << what;  // and the module still runs
  }
}

TEST(ModelLoader, RaiseExceptionReachesTheCallerWithTheModelsMessage) {
  const std::string path = torch211_dir() + "/control_flow_script.pt";
  jit::Module module = jit::load(path);
  std::vector<IValue> inputs;
  inputs.emplace_back(tvk::rand({3, 8, 8}));
  try {
    module.forward(std::move(inputs));
    FAIL() << "expected a tvk::Error";
  } catch (const jit::ScriptException& e) {
    EXPECT_EQ(std::string(e.what()), "ControlFlow expects a 4-D input, got 3-D");
    EXPECT_EQ(e.python_class(), "builtins.ValueError");
  }
  // The module stays usable afterwards.
  std::vector<IValue> good;
  good.emplace_back(tvk::rand({1, 3, 8, 8}));
  EXPECT_NO_THROW(module.forward(std::move(good)));
}

TEST(ModelLoader, ApiExposesParametersAttributesAndMethods) {
  jit::Module module = jit::load(torch211_dir() + "/control_flow_script.pt");
  EXPECT_EQ(module.type_name(), "__torch__.ControlFlow");
  EXPECT_TRUE(module.has_method("forward"));
  auto params = module.named_parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].first, "conv.weight");
  EXPECT_EQ(params[0].second.sizes(), (IntList{4, 3, 3, 3}));
  EXPECT_EQ(params[1].first, "conv.bias");
  EXPECT_EQ(module.attr("scales").toDoubleList(), (std::vector<double>{0.5, 1.5}));
  EXPECT_THROW(module.attr("no_such_attribute"), Error);
  EXPECT_THROW(module.run_method("no_such_method", {}), Error);
}

TEST(ModelLoader, WrongInputCountIsAnError) {
  jit::Module module = jit::load(torch211_dir() + "/control_flow_script.pt");
  EXPECT_THROW(module.forward({}), Error);
}

// Batch 0: an empty batch in, an empty batch of the output's shape out, on every device and
// optimized for Vulkan, as torch gives it (issue 49).
TEST(ModelLoader, AnEmptyBatchGivesAnEmptyResultOnEveryDevice) {
  std::vector<Device> devices{Device::CPU};
  if (is_vulkan_available()) devices.push_back(Device::Vulkan);
  for (const char* name : {"mobilenet_v2_script.pt", "squeezenet1_1_trace.pt", "resnet18_script.pt"}) {
    const std::string path = torch113_dir() + "/" + name;
    if (!fs::exists(path)) continue;
    std::vector<jit::Module> modules;
    for (Device device : devices) modules.push_back(jit::load(path, device));
    if (is_vulkan_available()) {
      MobileOptimizerOptions options;
      options.backend = MobileBackend::Vulkan;
      modules.push_back(optimize_for_mobile(modules.front(), options));
    }
    IntList shape;
    for (jit::Module& m : modules) {
      std::vector<IValue> in;
      in.emplace_back(tvk::zeros({0, 3, 64, 64}));
      const Tensor out = m.forward(std::move(in)).toTensor();
      EXPECT_EQ(out.numel(), 0) << name;
      ASSERT_EQ(out.dim(), 2) << name;
      if (shape.empty()) shape = out.sizes();
      EXPECT_EQ(out.sizes(), shape) << name << " on " << to_string(m.device());
    }
    EXPECT_EQ(shape[0], 0);
    EXPECT_GT(shape[1], 0);
  }
}

// Issue 14: view sizes whose product overflows int64 to the input's own 4 elements, then a
// select four million floats past the buffer. Vulkan used to run it, writing out of bounds.
TEST(ModelLoader, HostileViewSizesAreAnErrorOnEveryDevice) {
  std::vector<Device> devices{Device::CPU};
  if (is_vulkan_available()) devices.push_back(Device::Vulkan);
  for (Device device : devices) {
    jit::Module module = jit::load(torch113_dir() + "/hostile_view_script.pt", device);
    std::vector<IValue> in;
    in.emplace_back(ones({4}).to(device));
    try {
      module.forward(std::move(in));
      ADD_FAILURE() << "the hostile view ran on " << to_string(device);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("more elements than int64 counts"), std::string::npos) << e.what();
    }
    // The process stays usable.
    Tensor x = tvk::rand({2, 3}, 5).to(device);
    EXPECT_EQ(testing_support::max_abs_diff(tvk::relu(x).cpu(), tvk::rand({2, 3}, 5)), 0.0);
  }
}

// A PyTorch Mobile lite-interpreter file (_save_for_lite_interpreter) of a CPU-optimized model,
// as apps ship them (issue 11): torch 1.13 and 2.11 write code/ beside bytecode.pkl, which tvk
// reads.
TEST(ModelLoader, LiteInterpreterFileWithXnnpackContextsRunsOnEveryDevice) {
  std::vector<Device> devices{Device::CPU};
  if (is_vulkan_available()) devices.push_back(Device::Vulkan);
  for (const std::string& dir : {torch113_dir(), torch211_dir()}) {
    const Tensor x = io::read_npy(dir + "/xnnpack_input.npy");
    const Tensor expected = io::read_npy(dir + "/xnnpack_expected0.npy");
    for (Device device : devices) {
      jit::Module module = jit::load(dir + "/xnnpack_lite.ptl", device);
      std::vector<IValue> in;
      in.emplace_back(x);
      const Tensor out = module.forward(std::move(in)).toTensor();
      EXPECT_LE(testing_support::max_abs_diff(out, expected) / testing_support::max_abs(expected), 1e-4)
          << dir << " on " << to_string(device);
    }
  }
}

// Conv2dPackedParamsBase states as each PyTorch version wrote them (conv_serialization.h): the
// same convolution from each; an unknown version is an error naming the known ones.
TEST(ModelLoader, QuantizedConvStatesOfEveryVersionGiveTheSameParameters) {
  const ops::CustomClass* cls = ops::find_custom_class(ops::kQuantizedConvClass);
  ASSERT_NE(cls, nullptr);
  const Tensor weight = tvk::rand({4, 2, 3, 3}, 1), bias = tvk::rand({4}, 2);
  auto one = [](int64_t v) {
    Tensor t = empty({1}, DType::Int64);
    t.data<int64_t>()[0] = v;
    return IValue(t);
  };
  const IntList config{2, 2, 1, 1, 0, 1, 2, 0, 0, 2, 0};  // stride (2, 1), padding (1, 0), dilation (1, 2), groups 2
  Tensor packed = empty({11}, DType::Int64);
  std::copy(config.begin(), config.end(), packed.data<int64_t>());
  const std::vector<std::pair<const char*, IValue>> states = {
      {"version 1", IValue::tuple({IValue(weight), IValue(bias), IValue::list({one(2), one(1)}),
                                   IValue::list({one(1), one(0)}), IValue::list({one(1), one(2)}), one(2)})},
      {"version 2", IValue::tuple({IValue(std::string("2")), IValue::list({IValue(packed), IValue(weight)}),
                                   IValue::list({IValue(bias)})})},
      {"version 3", IValue::tuple({IValue(int64_t{3}), IValue(config), IValue::list({IValue(), IValue(weight), IValue(bias)})})},
      {"version 3 as tvk wrote it before", IValue::tuple({IValue(int64_t{3}), IValue(config), IValue::list({IValue(weight), IValue(bias)})})},
  };
  for (const auto& [what, state] : states) {
    auto obj = std::make_shared<Object>();
    obj->type_name = ops::kQuantizedConvClass;
    cls->set_state(*obj, state);
    const ops::QuantizedConvParams* p = ops::quantized_conv_params(IValue(obj));
    ASSERT_NE(p, nullptr) << what;
    EXPECT_EQ(testing_support::max_abs_diff(p->weight, weight), 0) << what;
    EXPECT_EQ(testing_support::max_abs_diff(p->bias, bias), 0) << what;
    EXPECT_EQ(p->stride, (IntList{2, 1})) << what;
    EXPECT_EQ(p->padding, (IntList{1, 0})) << what;
    EXPECT_EQ(p->dilation, (IntList{1, 2})) << what;
    EXPECT_EQ(p->groups, 2) << what;
    // What tvk writes back is torch's version 3, which reads back the same.
    auto again = std::make_shared<Object>();
    again->type_name = ops::kQuantizedConvClass;
    cls->set_state(*again, cls->get_state(*obj));
    const ops::QuantizedConvParams* q = ops::quantized_conv_params(IValue(again));
    ASSERT_NE(q, nullptr) << what;
    EXPECT_EQ(q->dilation, (IntList{1, 2})) << what;
  }
  auto obj = std::make_shared<Object>();
  try {
    cls->set_state(*obj, IValue::tuple({IValue(std::string("4")), IValue::list({}), IValue::list({})}));
    FAIL() << "an unknown state version was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("versions 1, 2 and 3"), std::string::npos) << e.what();
  }
}

TEST(ModelLoader, ArchivesOfPyTorch10To12AreAnErrorNamingTheFormat) {
  const std::string path = ::testing::TempDir() + "tvk_legacy_model_json.pt";
  {
    jit::ZipWriter zip(path, "legacy");
    zip.add("version", std::string("1\n"));
    zip.add("model.json", std::string("{\"protoVersion\": \"3\", \"mainModule\": {}}"));
    zip.add("attributes.pkl", std::string("\x80\x02)."));
    zip.finish();
  }
  try {
    jit::load(path);
    FAIL() << "a model.json archive loaded";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("PyTorch 1.0-1.2 archive (model.json"), std::string::npos) << e.what();
  }
}

// Bytecode-only files with an invalid part (make_models.py write_hostile_bytecode): each is a
// tvk::Error naming what is wrong, at load or when the method runs, never a crash.
TEST(ModelLoader, HostileBytecodeIsAnErrorNamingWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"register", "register 999 is outside"},
      {"jump", "outside the function's"},
      {"operator", "operator index 999 out of range"},
      {"opcode", "opcode BOGUS is not a bytecode instruction"},
      {"underflow", "the stack is empty"},
      {"endless", "steps (Limits::max_steps"},
  };
  for (const auto& [name, message] : cases) {
    try {
      jit::Module module = jit::load(torch113_dir() + "/hostile_bytecode_" + name + ".ptl");
      std::vector<IValue> in;
      in.emplace_back(tvk::rand({1, 3, 8, 8}));
      module.forward(std::move(in));
      ADD_FAILURE() << name << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << name << ": " << e.what();
    }
  }
}

TEST(ModelLoader, VulkanModuleKeepsParametersOnTheGpu) {
  TVK_NEED_VULKAN();
  jit::Module module = jit::load(torch211_dir() + "/control_flow_script.pt", Device::Vulkan);
  for (const auto& [name, t] : module.named_parameters()) EXPECT_EQ(t.device(), Device::Vulkan) << name;
  // Vulkan inputs give Vulkan outputs; CPU inputs give CPU outputs.
  std::vector<IValue> inputs;
  inputs.emplace_back(tvk::rand({1, 3, 8, 8}).vulkan());
  IValue out = module.forward(std::move(inputs));
  EXPECT_EQ(out.toTuple()[0].toTensor().device(), Device::Vulkan);
}

}  // namespace

// ---- archives whose code or objects were tampered with ------------------------------------------


namespace {

// A copy of the control-flow fixture with `edit` applied to every record's bytes.
std::string rewritten_fixture(const std::string& name,
                              const std::function<void(const std::string&, std::string&)>& edit) {
  jit::ZipReader zip = jit::ZipReader::open(torch211_dir() + "/control_flow_script.pt");
  const std::string path = ::testing::TempDir() + name;
  jit::ZipWriter writer(path, "control_flow_script");
  for (const std::string& record : zip.records()) {
    if (record == "version" || record == ".data/version") continue;  // finish() writes it
    std::vector<uint8_t> bytes = zip.read(record);
    std::string text(bytes.begin(), bytes.end());
    edit(record, text);
    writer.add(record, text);
  }
  writer.finish();
  return path;
}

void replace_in(std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
}

std::string load_and_run_error(const std::string& path) {
  try {
    jit::Module m = jit::load(path);
    std::vector<IValue> inputs;
    inputs.emplace_back(tvk::rand({1, 3, 8, 8}));
    m.forward(std::move(inputs));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ModelLoader, RewrittenArchiveStillLoads) {
  // The harness itself: an unedited rewrite runs, so the failures below come from the edits.
  const std::string path = rewritten_fixture("same.pt", [](const std::string&, std::string&) {});
  EXPECT_EQ(load_and_run_error(path), "");
}

TEST(ModelLoader, SyntaxErrorNamesTheCodeFileAndLine) {
  const std::string path = rewritten_fixture("syntax.pt", [](const std::string& record, std::string& text) {
    if (record == "code/__torch__.py") replace_in(text, "total = torch.zeros_like(y)", "total = torch.zeros_like(y");
  });
  const std::string error = load_and_run_error(path);
  EXPECT_NE(error.find("code/__torch__.py:"), std::string::npos) << error;
}

TEST(ModelLoader, UnknownOpNamesTheOpAndLine) {
  const std::string path = rewritten_fixture("unknown_op.pt", [](const std::string& record, std::string& text) {
    if (record == "code/__torch__.py") replace_in(text, "torch.relu(", "torch.no_such_op(");
  });
  const std::string error = load_and_run_error(path);
  EXPECT_NE(error.find("aten::no_such_op"), std::string::npos) << error;
  EXPECT_NE(error.find("code/__torch__.py:"), std::string::npos) << error;
  // Issue 14: the error keeps its type through the interpreter (the location is added to the
  // message), so callers can tell an unsupported op from a broken file.
  jit::Module m = jit::load(path);
  std::vector<IValue> inputs;
  inputs.emplace_back(tvk::rand({1, 3, 8, 8}));
  EXPECT_THROW(m.forward(std::move(inputs)), UnsupportedError);
}

TEST(ModelLoader, UnknownClassInDataIsAnError) {
  const std::string path = rewritten_fixture("unknown_class.pt", [](const std::string& record, std::string& text) {
    if (record == "data.pkl") replace_in(text, "ControlFlow", "ControlFlaw");
  });
  const std::string error = load_and_run_error(path);
  EXPECT_NE(error.find("__torch__.ControlFlaw"), std::string::npos) << error;
}

TEST(ModelLoader, MissingTensorRecordIsAnError) {
  const std::string path = rewritten_fixture("missing_storage.pt", [](const std::string& record, std::string& text) {
    if (record == "data/0") text.resize(4);  // far fewer bytes than the weight needs
  });
  const std::string error = load_and_run_error(path);
  EXPECT_NE(error.find("data/0"), std::string::npos) << error;
}

TEST(ModelLoader, EndlessLoopInModelCodeIsAnErrorNotAHang) {
  const std::string path = rewritten_fixture("endless.pt", [](const std::string& record, std::string& text) {
    if (record != "code/__torch__.py") return;
    replace_in(text, "_3, total5, n = torch.lt(n0, 2), total6, n0", "_3, total5, n = True, total6, n0");
    replace_in(text, "total6 = torch.relu(total5)", "total6 = total5");  // cheap iterations
  });
  const std::string error = load_and_run_error(path);
  EXPECT_NE(error.find("steps (Limits::max_steps"), std::string::npos) << error;
}
