// torch.export programs (.pt2, issue 51): the fixtures torch 2.11 wrote (tests/models/torch2/
// export) against torch's own outputs on both devices, as loaded and as optimized; their input
// checks; and archives made malformed or hostile from them, which must be clean errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>

#include "io/npy.h"
#include "jit/serialization/import.h"
#include "jit/serialization/zip_reader.h"
#include "jit/serialization/zip_writer.h"
#include "model_support.h"
#include "support/test_support.h"
#include "tvk/optimize.h"

using namespace tvk;
using namespace tvk::testing_support;
namespace fs = std::filesystem;

namespace {

const std::string kDir = TVK_SOURCE_DIR "/tests/models/torch2/export/";

std::vector<IValue> inputs_of(const std::string& name, const std::string& tag = "") {
  std::vector<IValue> out;
  for (int i = 0; fs::exists(kDir + name + tag + "_input" + std::to_string(i) + ".npy"); ++i)
    out.emplace_back(io::read_npy(kDir + name + tag + "_input" + std::to_string(i) + ".npy"));
  return out;
}

std::vector<Tensor> expected_of(const std::string& name, const std::string& tag = "") {
  std::vector<Tensor> out;
  for (int i = 0; fs::exists(kDir + name + tag + "_expected" + std::to_string(i) + ".npy"); ++i)
    out.push_back(io::read_npy(kDir + name + tag + "_expected" + std::to_string(i) + ".npy"));
  return out;
}

// Tensors of a result in pytree order (dict values in insertion order), as the fixtures are.
void flatten(const IValue& v, std::vector<Tensor>& out) {
  if (v.isTensor()) out.push_back(v.toTensor().cpu());
  else if (v.isList() || v.isTuple())
    for (const IValue& e : v.toList()) flatten(e, out);
  else if (v.isDict())
    for (const auto& [k, e] : v.toDict()->items) flatten(e, out);
}

void expect_matches(jit::Module& m, const std::string& name, const std::string& tag, const std::string& how) {
  std::vector<Tensor> got;
  flatten(m.forward(inputs_of(name, tag)), got);
  const std::vector<Tensor> want = expected_of(name, tag);
  ASSERT_EQ(got.size(), want.size()) << how;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].sizes(), want[i].sizes()) << how << " output " << i;
    EXPECT_LT(relative_diff(got[i], want[i]), 1e-5) << how << " output " << i;
  }
}

// The fixture file (the legacy layout is cnn_bn's program) and the cases it is checked on.
struct Fixture {
  std::string file, cases;
  std::vector<std::string> tags;
};
const std::vector<Fixture> kFixtures = {
    {"cnn_bn", "cnn_bn", {""}},
    {"cnn_bn_legacy", "cnn_bn", {""}},
    {"cnn_bn_pickled_weights", "cnn_bn", {""}},
    {"mlp_ln_gelu", "mlp_ln_gelu", {""}},
    {"attention", "attention", {""}},
    {"nested_outputs", "nested_outputs", {""}},
    {"dynamic_batch", "dynamic_batch", {"", "_1"}},
};

void PrintTo(const Fixture& f, std::ostream* os) { *os << f.file; }

class ExportedFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(ExportedFixture, MatchesTorchOnEachDeviceAsLoadedAndOptimized) {
  const Fixture& f = GetParam();
  const std::string path = kDir + f.file + ".pt2";
  jit::Module cpu = jit::load(path, Device::CPU);
  EXPECT_TRUE(cpu.is_exported_program());
  for (const std::string& tag : f.tags) expect_matches(cpu, f.cases, tag, "CPU");
  TVK_NEED_VULKAN();
  jit::Module gpu = jit::load(path, Device::Vulkan);
  for (const std::string& tag : f.tags) expect_matches(gpu, f.cases, tag, "Vulkan, as loaded");
  MobileOptimizerOptions options;
  options.backend = MobileBackend::Vulkan;
  jit::Module optimized = optimize_for_mobile(cpu, options);
  for (const std::string& tag : f.tags) expect_matches(optimized, f.cases, tag, "Vulkan, optimized");
  // Written as TorchScript and read back, as `tvk optimize model.pt2 -o out.pt` does.
  const std::string saved = (fs::temp_directory_path() / ("tvk_export_" + f.file + ".pt")).string();
  optimized.save(saved);
  jit::Module reloaded = jit::load(saved, Device::CPU);
  EXPECT_FALSE(reloaded.is_exported_program());
  for (const std::string& tag : f.tags) expect_matches(reloaded, f.cases, tag, "optimized, saved and loaded");
  fs::remove(saved);
}

INSTANTIATE_TEST_SUITE_P(Torch211, ExportedFixture, ::testing::ValuesIn(kFixtures),
                         [](const auto& info) { return info.param.file; });

TEST(ExportedPrograms, NestedOutputsKeepTheProgramsStructure) {
  jit::Module m = jit::load(kDir + "nested_outputs.pt2");
  const IValue out = m.forward(inputs_of("nested_outputs"));
  ASSERT_TRUE(out.isDict());
  const auto& items = out.toDict()->items;
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].first.toStringRef(), "logits");
  EXPECT_EQ(items[1].first.toStringRef(), "aux");
  ASSERT_TRUE(items[1].second.isTuple());
  const List& aux = items[1].second.toTuple();
  ASSERT_EQ(aux.size(), 2u);
  EXPECT_TRUE(aux[0].isTensor());
  ASSERT_TRUE(aux[1].isList());
  EXPECT_EQ(aux[1].toList().size(), 2u);
}

TEST(ExportedPrograms, SampleInputsAreReadInBothLayouts) {
  for (const char* file : {"cnn_bn", "cnn_bn_legacy"}) {
    jit::Module m = jit::load(kDir + file + ".pt2");
    ASSERT_EQ(m.example_inputs().size(), 1u) << file;
    const Tensor want = io::read_npy(kDir + "cnn_bn_input0.npy");
    EXPECT_EQ(max_abs_diff(m.example_inputs()[0].toTensor(), want), 0.0) << file;
  }
}

// Sizes inside the exported range run (each a plan of its own); outside it, and where the program
// fixed a size, they are errors naming the input, the dimension and the range.
TEST(ExportedPrograms, InputsAreCheckedAgainstTheExportedShapes) {
  jit::Module m = jit::load(kDir + "dynamic_batch.pt2");
  auto run_batch = [&](int64_t b, int64_t h = 32, int64_t rank = 4) {
    IntList shape = rank == 4 ? IntList{b, 3, h, 32} : IntList{3, h, 32};
    std::vector<IValue> in;
    in.emplace_back(rand(shape, 1));
    return m.forward(std::move(in));
  };
  for (int64_t b : {1, 2, 16}) EXPECT_EQ(run_batch(b).toTensor().size(0), b);
  auto expect_error = [&](auto&& fn, const std::string& pattern) {
    try {
      fn();
      ADD_FAILURE() << "no error; expected " << pattern;
    } catch (const Error& e) {
      EXPECT_TRUE(std::regex_search(e.what(), std::regex(pattern))) << e.what();
    }
  };
  expect_error([&] { run_batch(17); }, "input 0 \\('x'\\) has size 17 in dimension 0, outside the range \\[1, 16\\]");
  expect_error([&] { run_batch(0); }, "outside the range \\[1, 16\\]");
  expect_error([&] { run_batch(2, 31); }, "size 31 in dimension 2; the program was exported with that size fixed at 32");
  expect_error([&] { run_batch(2, 32, 3); }, "has 3 dimensions; the program was exported for 4");
  expect_error([&] { m.forward({}); }, "forward takes 1 inputs, given 0");
  expect_error(
      [&] {
        std::vector<IValue> in;
        in.emplace_back(zeros({2, 3, 32, 32}, DType::Int64));
        m.forward(std::move(in));
      },
      "holds int64; the program was exported for float32");
  EXPECT_EQ(run_batch(3).toTensor().size(0), 3) << "usable after the errors";
  // optimize_for_mobile keeps the checks (a file it saves is TorchScript, without them).
  if (!is_vulkan_available()) return;
  MobileOptimizerOptions options;
  options.backend = MobileBackend::Vulkan;
  m = optimize_for_mobile(m, options);
  EXPECT_EQ(m.example_inputs().size(), 1u);
  EXPECT_EQ(run_batch(5).toTensor().size(0), 5);
  expect_error([&] { run_batch(17); }, "outside the range \\[1, 16\\]");
}

// --- malformed and hostile archives ------------------------------------------------------------

// cnn_bn.pt2's records, with `edit` applied to each (name, bytes), written back as an archive.
std::vector<uint8_t> edited(const std::function<void(const std::string&, std::string&)>& edit,
                            const std::string& file = "cnn_bn") {
  const jit::ZipReader zip = jit::ZipReader::open(kDir + file + ".pt2");
  jit::ZipWriter out = jit::ZipWriter::in_memory(file);
  for (const std::string& record : zip.records()) {
    const std::vector<uint8_t> bytes = zip.read(record);
    std::string text(bytes.begin(), bytes.end());
    edit(record, text);
    out.add(record, text);
  }
  out.finish();
  return out.bytes();
}

std::vector<uint8_t> with_program(const std::function<void(std::string&)>& edit) {
  return edited([&](const std::string& record, std::string& text) {
    if (record == "models/model.json") edit(text);
  });
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// Loads and runs the archive on its sample input; returns the error, or "" when it ran.
std::string load_error(std::vector<uint8_t> bytes) {
  try {
    jit::Module m(jit::import_archive(jit::ZipReader::from_bytes(std::move(bytes), "edited.pt2"), "edited.pt2", Device::CPU));
    m.forward(inputs_of("cnn_bn"));
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(ExportedPrograms, MalformedProgramsAreCleanErrors) {
  struct Case {
    const char* what;
    std::function<void(std::string&)> edit;
    const char* error;  // a regex the message must match
  };
  const std::vector<Case> cases = {
      {"cut short", [](std::string& t) { t.resize(t.size() / 2); }, "models/model.json: not valid JSON"},
      {"not JSON", [](std::string& t) { t = "{\"graph_module\": nope}"; }, "not valid JSON"},
      {"nested deep", [](std::string& t) { t = std::string(100000, '[') + std::string(100000, ']'); },
       "JSON nested more than 256 levels deep"},
      {"a list, not a program", [](std::string& t) { t = "[1, 2]"; }, "no 'graph_module'|expected an object"},
      {"a newer schema", [](std::string& t) { replace_all(t, "\"major\": 8", "\"major\": 99"); },
       "schema version 99.17 is not one tvk reads"},
      {"an op tvk lacks",
       [](std::string& t) { replace_all(t, "torch.ops.aten.hardswish.default", "torch.ops.aten.no_such_op.default"); },
       "ops tvk does not have: aten::no_such_op"},
      {"control flow",
       [](std::string& t) { replace_all(t, "torch.ops.aten.relu.default", "torch.ops.higher_order.cond"); },
       "torch.ops.higher_order.cond \\(control flow"},
      {"a value used before it is made",
       [](std::string& t) {
         const size_t outputs = t.find("\"outputs\"", t.find("\"nodes\""));
         t.replace(t.find("\"conv2d\"", outputs), 8, "\"renamed\"");
       },
       "value 'conv2d' is used before it is made"},
      {"a weight it does not store", [](std::string& t) { replace_all(t, "\"stem.0.weight\"", "\"stem.9.weight\""); },
       "parameter 'stem.9.weight' is not among the archive's stored tensors"},
      {"a float argument spelled Infinity",
       [](std::string& t) { replace_all(t, "\"as_float\": 6.0", "\"as_float\": Infinity"); }, ""},
  };
  for (const Case& c : cases) {
    const std::string error = load_error(with_program(c.edit));
    if (std::string(c.error).empty()) {
      EXPECT_EQ(error, "") << c.what;
    } else {
      EXPECT_TRUE(std::regex_search(error, std::regex(c.error))) << c.what << ": " << error;
      EXPECT_EQ(error.find('\n'), std::string::npos) << c.what << ": one line";
    }
  }
}

TEST(ExportedPrograms, MalformedArchivesAreCleanErrors) {
  auto record_edit = [](const char* name, std::function<void(std::string&)> fn) {
    return edited([=](const std::string& record, std::string& text) {
      if (record == name) fn(text);
    });
  };
  EXPECT_NE(load_error(record_edit("archive_version", [](std::string& t) { t = "7"; })).find("PT2 archive version '7'"),
            std::string::npos);
  EXPECT_NE(load_error(record_edit("archive_format", [](std::string& t) { t = "pt3"; })).find("archive_format is 'pt3'"),
            std::string::npos);
  EXPECT_NE(load_error(record_edit("byteorder", [](std::string& t) { t = "big"; })).find("little-endian"), std::string::npos);
  const char* config = "data/weights/model_weights_config.json";
  EXPECT_NE(load_error(record_edit(config, [](std::string& t) { replace_all(t, "\"weight_0\"", "\"../weight_0\""); }))
                .find("leaves its folder"),
            std::string::npos);
  // A tensor larger than its record, and sizes whose product overflows.
  for (const char* size : {"{\"as_int\": 17}", "{\"as_int\": 4611686018427387904}"}) {
    const std::string error = load_error(record_edit(config, [&](std::string& t) {
      const size_t at = t.find("{\"as_int\": 16}");
      t.replace(at, 14, size);
    }));
    EXPECT_NE(error, "") << size;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  EXPECT_NE(load_error(record_edit("data/weights/weight_0", [](std::string& t) { t.resize(t.size() - 4); })), "");
}

// Random damage anywhere in the program's JSON and the weights' config: a result or a tvk::Error.
TEST(ExportedPrograms, MutatedProgramsNeverCrash) {
  const jit::ZipReader zip = jit::ZipReader::open(kDir + "cnn_bn.pt2");
  std::mt19937 rng(51);
  int ran = 0, refused = 0;
  for (const char* target : {"models/model.json", "data/weights/model_weights_config.json"}) {
    const std::vector<uint8_t> original = zip.read(target);
    for (int i = 0; i < 60; ++i) {
      const std::string error = load_error(edited([&](const std::string& record, std::string& text) {
        if (record != target) return;
        text.assign(original.begin(), original.end());
        for (int k = 0; k < 4; ++k) {
          const size_t at = rng() % text.size();
          // Digits and structure characters reach further into the reader than random bytes.
          const char pool[] = "0123456789-[]{}\",:aeEx ";
          text[at] = rng() % 2 ? pool[rng() % (sizeof pool - 1)] : static_cast<char>(rng() % 256);
        }
      }));
      (error.empty() ? ran : refused) += 1;
    }
  }
  EXPECT_GT(refused, 0);
  // Cut short anywhere: the zip's own checks, or the reader's.
  const std::vector<uint8_t> whole = edited([](const std::string&, std::string&) {});
  for (size_t cut = 0; cut < whole.size(); cut += whole.size() / 40)
    EXPECT_NE(load_error(std::vector<uint8_t>(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut))), "");
}

}  // namespace

namespace {

// A program in the core ATen form written here, for what the fixtures do not reach: sizes read at
// run time (sym_size) and computed on (_operator.mul), the decomposed batch norm with its three
// outputs, a list output, a size as a user output, and a dict output spec. Checked against the
// same arithmetic done here element by element.
const char* kCoreProgram = R"json({"graph_module": {"graph": {
  "inputs": [{"as_tensor": {"name": "p_w"}}, {"as_tensor": {"name": "p_b"}}, {"as_tensor": {"name": "b_rm"}},
             {"as_tensor": {"name": "b_rv"}}, {"as_tensor": {"name": "x"}}],
  "outputs": [],
  "nodes": [
   {"target": "torch.ops.aten.sym_size.int", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
     {"name": "dim", "arg": {"as_int": 0}, "kind": 1}], "outputs": [{"as_sym_int": {"as_name": "s0"}}]},
   {"target": "torch.ops.aten._native_batch_norm_legit_no_training.default", "inputs": [
     {"name": "input", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}, {"name": "weight", "arg": {"as_tensor": {"name": "p_w"}}, "kind": 1},
     {"name": "bias", "arg": {"as_tensor": {"name": "p_b"}}, "kind": 1}, {"name": "running_mean", "arg": {"as_tensor": {"name": "b_rm"}}, "kind": 1},
     {"name": "running_var", "arg": {"as_tensor": {"name": "b_rv"}}, "kind": 1}, {"name": "momentum", "arg": {"as_float": 0.1}, "kind": 1},
     {"name": "eps", "arg": {"as_float": 1e-05}, "kind": 1}],
    "outputs": [{"as_tensor": {"name": "bn"}}, {"as_tensor": {"name": "bn_1"}}, {"as_tensor": {"name": "bn_2"}}]},
   {"target": "_operator.mul", "inputs": [{"name": "a", "arg": {"as_sym_int": {"as_name": "s0"}}, "kind": 1},
     {"name": "b", "arg": {"as_int": 36}, "kind": 1}], "outputs": [{"as_sym_int": {"as_name": "numel"}}]},
   {"target": "torch.ops.aten._assert_scalar.default", "inputs": [{"name": "self", "arg": {"as_sym_bool": {"as_name": "s0"}}, "kind": 1},
     {"name": "assert_msg", "arg": {"as_string": "s0 > 0"}, "kind": 1}], "outputs": [{"as_none": true}]},
   {"target": "torch.ops.aten.view.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "bn"}}, "kind": 1},
     {"name": "size", "arg": {"as_sym_ints": [{"as_name": "s0"}, {"as_int": 36}]}, "kind": 1}], "outputs": [{"as_tensor": {"name": "flat"}}]},
   {"target": "torch.ops.aten.split_with_sizes.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "flat"}}, "kind": 1},
     {"name": "split_sizes", "arg": {"as_ints": [12, 24]}, "kind": 1}, {"name": "dim", "arg": {"as_int": 1}, "kind": 1}],
    "outputs": [{"as_tensors": [{"name": "head"}, {"name": "tail"}]}]},
   {"target": "torch.ops.aten.sum.dim_IntList", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "head"}}, "kind": 1},
     {"name": "dim", "arg": {"as_ints": [1]}, "kind": 1}], "outputs": [{"as_tensor": {"name": "total"}}]},
   {"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "tail"}}, "kind": 1}],
    "outputs": [{"as_tensor": {"name": "relu"}}]},
   {"target": "torch.ops.aten.add.Tensor", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "relu"}}, "kind": 1},
     {"name": "other", "arg": {"as_tensor": {"name": "relu"}}, "kind": 1}, {"name": "alpha", "arg": {"as_int": 2}, "kind": 2}],
    "outputs": [{"as_tensor": {"name": "tripled"}}]}
  ],
  "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "Symbol('s0', positive=True, integer=True)", "hint": {"as_int": 2}}},
     {"as_int": 4}, {"as_int": 3}, {"as_int": 3}], "requires_grad": false, "device": {"type": "cpu", "index": null},
     "strides": [{"as_int": 36}, {"as_int": 9}, {"as_int": 3}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7}}},
 "signature": {
  "input_specs": [{"parameter": {"arg": {"name": "p_w"}, "parameter_name": "bn.weight"}}, {"parameter": {"arg": {"name": "p_b"}, "parameter_name": "bn.bias"}},
   {"buffer": {"arg": {"name": "b_rm"}, "buffer_name": "bn.running_mean", "persistent": true}},
   {"buffer": {"arg": {"name": "b_rv"}, "buffer_name": "bn.running_var", "persistent": true}},
   {"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
  "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "total"}}}}, {"user_output": {"arg": {"as_tensor": {"name": "tripled"}}}},
   {"user_output": {"arg": {"as_sym_int": {"as_name": "numel"}}}}]},
 "module_call_graph": [{"fqn": "", "signature": {"inputs": [], "outputs": [],
   "in_spec": "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": null, \"context\": null, \"children_spec\": []}]}, {\"type\": \"builtins.dict\", \"context\": \"[]\", \"children_spec\": []}]}]",
   "out_spec": "[1, {\"type\": \"builtins.dict\", \"context\": \"[\\\"sum\\\", \\\"rest\\\"]\", \"children_spec\": [{\"type\": null, \"context\": null, \"children_spec\": []}, {\"type\": \"builtins.list\", \"context\": \"null\", \"children_spec\": [{\"type\": null, \"context\": null, \"children_spec\": []}, {\"type\": null, \"context\": null, \"children_spec\": []}]}]}]"}}]},
 "opset_version": {"aten": 10}, "range_constraints": {"s0": {"min_val": 1, "max_val": Infinity}},
 "schema_version": {"major": 8, "minor": 17}, "verifiers": ["ATEN"], "torch_version": "written by hand"})json";

std::vector<uint8_t> core_program_archive(const std::vector<float>& w, const std::vector<float>& b,
                                          const std::vector<float>& rm, const std::vector<float>& rv) {
  jit::ZipWriter out = jit::ZipWriter::in_memory("core");
  out.add("archive_format", std::string("pt2"));
  out.add("archive_version", std::string("0"));
  out.add("byteorder", std::string("little"));
  out.add("models/model.json", std::string(kCoreProgram));
  std::string config = "{\"config\": {";
  const std::pair<const char*, const std::vector<float>*> tensors[] = {
      {"bn.weight", &w}, {"bn.bias", &b}, {"bn.running_mean", &rm}, {"bn.running_var", &rv}};
  for (size_t i = 0; i < 4; ++i) {
    const auto& [name, values] = tensors[i];
    out.add("data/weights/w" + std::to_string(i), values->data(), values->size() * sizeof(float));
    config += std::string(i ? ", " : "") + "\"" + name + "\": {\"path_name\": \"w" + std::to_string(i) +
              "\", \"is_param\": true, \"use_pickle\": false, \"tensor_meta\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 4}], "
              "\"strides\": [{\"as_int\": 1}], \"storage_offset\": {\"as_int\": 0}, \"layout\": 7}}";
  }
  out.add("data/weights/model_weights_config.json", config + "}}");
  out.finish();
  return out.bytes();
}

TEST(ExportedPrograms, CoreAtenFormsWithRuntimeSizesMatchTheSameArithmetic) {
  const std::vector<float> w = {1.5f, -0.5f, 2.0f, 0.25f}, b = {0.1f, -0.2f, 0.3f, 0.0f}, rm = {0.5f, -1.0f, 0.0f, 2.0f},
                           rv = {1.0f, 0.25f, 4.0f, 0.5f};
  const std::vector<uint8_t> archive = core_program_archive(w, b, rm, rv);
  auto load_on = [&](Device device) {
    return jit::Module(jit::import_archive(jit::ZipReader::from_bytes(archive, "core.pt2"), "core.pt2", device));
  };
  std::vector<jit::Module> modules{load_on(Device::CPU)};
  if (is_vulkan_available()) {
    modules.push_back(load_on(Device::Vulkan));
    MobileOptimizerOptions options;
    options.backend = MobileBackend::Vulkan;
    modules.push_back(optimize_for_mobile(modules[0], options));
  }
  for (jit::Module& m : modules) {
    for (int64_t batch : {1, 3, 2}) {
      const Tensor x = randn({batch, 4, 3, 3}, static_cast<uint64_t>(batch));
      std::vector<IValue> in;
      in.emplace_back(x);
      const IValue out = m.forward(std::move(in));
      ASSERT_TRUE(out.isDict());
      const auto& items = out.toDict()->items;
      ASSERT_EQ(items.size(), 2u);
      const Tensor total = items[0].second.toTensor().cpu();
      const List& rest = items[1].second.toList();
      ASSERT_EQ(rest.size(), 2u);
      const Tensor tripled = rest[0].toTensor().cpu();
      EXPECT_EQ(rest[1].toInt(), batch * 36);
      ASSERT_EQ(total.sizes(), (IntList{batch}));
      ASSERT_EQ(tripled.sizes(), (IntList{batch, 24}));
      for (int64_t n = 0; n < batch; ++n) {
        double sum = 0;
        for (int64_t i = 0; i < 36; ++i) {
          const int64_t c = i / 9;
          const double v = (x.data<float>()[n * 36 + i] - rm[c]) / std::sqrt(rv[c] + 1e-5) * w[c] + b[c];
          if (i < 12) sum += v;
          else EXPECT_NEAR(tripled.data<float>()[n * 24 + i - 12], 3 * std::max(v, 0.0), 1e-5);
        }
        EXPECT_NEAR(total.data<float>()[n], sum, 1e-4);
      }
    }
  }
}

}  // namespace

namespace {

// ScriptModule.code and .graph: the source forward runs (a .pt2's as translated, a loaded
// TorchScript module's as its archive wrote it, an optimized module's as save() writes it) and the
// frozen graph once there is one.
TEST(ModuleText, CodeAndGraphOfLoadedExportedAndOptimizedModules) {
  jit::Module program = jit::load(kDir + "cnn_bn.pt2");
  const std::string code = program.code();
  EXPECT_EQ(code.rfind("def forward(self", 0), 0u) << code;
  EXPECT_NE(code.find("ops.aten.conv2d("), std::string::npos) << code;
  EXPECT_NE(code.find("return "), std::string::npos) << code;
  EXPECT_THROW(program.code("no_such_method"), Error);
  EXPECT_FALSE(program.graph().has_value()) << "nothing frozen before the first call";
  program.forward(inputs_of("cnn_bn"));
  ASSERT_TRUE(program.graph().has_value());
  EXPECT_NE(program.graph()->find("aten::conv2d"), std::string::npos) << *program.graph();

  jit::Module scripted = jit::load(TVK_SOURCE_DIR "/tests/models/torch2/control_flow_script.pt");
  const std::string source = scripted.code();
  EXPECT_EQ(source.rfind("def forward(self", 0), 0u) << source;

  if (!is_vulkan_available()) return;
  MobileOptimizerOptions options;
  options.backend = MobileBackend::Vulkan;
  jit::Module optimized = optimize_for_mobile(program, options);
  EXPECT_NE(optimized.code().find("run_conv2d_context"), std::string::npos) << optimized.code();
  ASSERT_TRUE(optimized.graph().has_value());
  EXPECT_NE(optimized.graph()->find("vulkan_prepack::run_conv2d_context"), std::string::npos) << *optimized.graph();
}

}  // namespace
