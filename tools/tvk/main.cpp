// tvk: the command-line tool. Every failure is one line on stderr and exit status 1.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "classify.h"
#include "io/npy.h"
#include "jit/runtime/op_references.h"
#include "jit/serialization/import.h"
#include "jit/serialization/exported_program.h"
#include "ops/registry.h"
#include "tvk/tvk.h"
#include "tvk/vulkan_info.h"

namespace {

using tvk::cli::apply_cpu_fallback;
using tvk::cli::apply_precision;
using tvk::cli::Args;
using tvk::cli::json_string;
using tvk::cli::split_commas;

const char* yes_no(bool b) { return b ? "yes" : "no"; }

int cmd_info() {
  std::printf("tvk %s\n", TVK_VERSION);
  std::printf("build options:\n");
  std::printf("  TVK_USE_VULKAN          %s\n", TVK_USE_VULKAN ? "ON" : "OFF");
  std::printf("  TVK_USE_VULKAN_WRAPPER  %s\n", TVK_USE_VULKAN_WRAPPER ? "ON" : "OFF");
  std::printf("  TVK_USE_SHADERC_RUNTIME %s\n", TVK_USE_SHADERC_RUNTIME ? "ON" : "OFF");
  const tvk::VulkanInfo info = tvk::vulkan_info();
  std::printf("vulkan loader: %s\n", info.built ? (info.loader_found ? "found" : "not found") : "not built");
  if (info.built && info.loader_found) std::printf("validation layer: %s\n", info.validation ? "on" : "off");
  std::printf("vulkan devices: %zu\n", info.devices.size());
  for (const auto& d : info.devices) {
    std::printf("  [%u] %s%s\n", d.index, d.name.c_str(), d.selected ? "  (selected)" : "");
    std::printf("      type: %s, Vulkan %s, driver: %s\n", d.type.c_str(), d.api_version.c_str(),
                d.driver.empty() ? "unknown" : d.driver.c_str());
    std::printf("      subgroup size: %u, fp16 arithmetic: %s, 16-bit storage: %s, cooperative matrices: %s\n",
                d.subgroup_size, yes_no(d.fp16_arithmetic), yes_no(d.storage_16bit),
                d.cooperative_matrix.empty() ? "no" : d.cooperative_matrix.c_str());
    if (d.compute_units) std::printf("      multiprocessors: %u\n", d.compute_units);
    std::printf("      host memory import: %s\n", yes_no(d.host_memory_import));
    std::printf("      device-local memory: %.1f GiB%s\n", static_cast<double>(d.device_local_bytes) / (1 << 30),
                d.usable ? "" : "  (not usable: no compute queue or Vulkan < 1.1)");
  }
  bool any_selected = false;
  for (const auto& d : info.devices) any_selected |= d.selected;
  if (any_selected) {
    if (!info.pipeline_cache_file.empty()) std::printf("pipeline cache: %s\n", info.pipeline_cache_file.c_str());
    std::printf("vulkan available: yes\n");
  } else {
    std::printf("vulkan available: no (%s)\n", info.error.c_str());
  }
  return 0;
}

int cmd_ops() {
  auto ops = tvk::ops::Registry::global().all();
  std::printf("%-40s %-4s %-6s\n", "op", "cpu", "vulkan");
  size_t vulkan = 0;
  for (const auto* op : ops) {
    std::printf("%-40s %-4s %-6s\n", op->schema.full_name().c_str(), yes_no(static_cast<bool>(op->cpu)),
                yes_no(static_cast<bool>(op->vulkan)));
    vulkan += op->vulkan ? 1 : 0;
  }
  std::printf("%zu ops, %zu with a Vulkan kernel\n", ops.size(), vulkan);
  return 0;
}

// Tensors of an output value, flattened in order from nested tuples, lists, NamedTuples and
// dicts (one output per field or key; None fields have none). `names` gets each tensor's path, e.g.
// "logits" for a NamedTuple field, "1" for a tuple's second element, "" for a lone tensor.
void flatten_into(const tvk::IValue& v, tvk::ValueWalk& walk, int depth, std::vector<tvk::Tensor>& out,
                  std::vector<std::string>* names, const std::string& path) {
  walk.enter(depth);
  auto join = [&](const std::string& part) { return path.empty() ? part : path + "." + part; };
  if (v.isTensor()) {
    out.push_back(v.toTensor());
    if (names) names->push_back(path);
  } else if (v.isList() || v.isTuple()) {
    const auto& items = v.toList();
    for (size_t i = 0; i < items.size(); ++i) flatten_into(items[i], walk, depth + 1, out, names, join(std::to_string(i)));
  } else if (v.isObject() && v.toObject()->named_tuple) {
    for (const auto& [field, value] : v.toObject()->attributes) flatten_into(value, walk, depth + 1, out, names, join(field));
  } else if (v.isDict()) {
    // In insertion order, named by key (segmentation models return {"out": ..., "aux": ...}).
    for (const auto& [key, value] : v.toDict()->items)
      flatten_into(value, walk, depth + 1, out, names,
                   join(key.isString() ? key.toStringRef() : key.isInt() ? std::to_string(key.toInt()) : key.tag_name()));
  } else if (!v.isNone()) {
    throw tvk::Error(std::string("the model returned a ") + v.tag_name() + ", which has no .npy form");
  }
}

void flatten_outputs(const tvk::IValue& v, std::vector<tvk::Tensor>& out, std::vector<std::string>* names = nullptr) {
  tvk::ValueWalk walk("reading the model's outputs");
  flatten_into(v, walk, 0, out, names, "");
}

// --input-list: the input tensors go to the model as one List[Tensor] (torchvision's detection
// models take a list of images).
void pass_as_list_if_asked(const Args& args, std::vector<tvk::IValue>& inputs) {
  if (!args.has("--input-list")) return;
  tvk::List items(inputs.begin(), inputs.end());
  inputs.assign(1, tvk::IValue::list(std::move(items)));
}

int cmd_run(int argc, char** argv) {
  Args args(argc, argv, {"--input", "--output", "--device", "--method", "--precision"}, {"--cpu-fallback", "--input-list"});
  apply_cpu_fallback(args);
  const tvk::Device device = tvk::parse_device(args.get("--device", "cpu"));
  apply_precision(args, device);
  tvk::jit::Module module = tvk::jit::load(args.model(), tvk::jit::LoadOptions{device, std::nullopt, args.limits()});
  std::vector<tvk::IValue> inputs;
  for (const std::string& path : args.all("--input")) inputs.emplace_back(tvk::io::read_npy(path));
  if (inputs.empty()) inputs = module.example_inputs();  // a .pt2's sample inputs, when it has them
  pass_as_list_if_asked(args, inputs);
  tvk::IValue result = module.run_method(args.get("--method", "forward"), std::move(inputs));
  std::vector<tvk::Tensor> outputs;
  std::vector<std::string> names;
  flatten_outputs(result, outputs, &names);
  const auto out_paths = args.all("--output");
  if (!out_paths.empty() && out_paths.size() != outputs.size())
    throw tvk::Error(tvk::detail::concat("the model has ", outputs.size(), " output tensor(s) but ", out_paths.size(),
                                         " --output path(s) were given"));
  for (size_t i = 0; i < outputs.size(); ++i) {
    tvk::Tensor t = outputs[i].cpu();
    if (!out_paths.empty()) {
      tvk::io::write_npy(out_paths[i], t);
      continue;
    }
    // Named only where a NamedTuple field is on the path ("logits", "1.aux"), not for plain tuples.
    const bool named = std::any_of(names[i].begin(), names[i].end(), [](char c) { return std::isalpha(c); });
    const std::string name = named ? " (" + names[i] + ")" : "";
    std::printf("output %zu%s: %s %s", i, name.c_str(), t.shape_string().c_str(), to_string(t.dtype()));
    tvk::Tensor c = t.contiguous();
    for (int64_t k = 0; k < std::min<int64_t>(c.numel(), 8); ++k) {
      if (t.dtype() == tvk::DType::Float32) std::printf(" %.6g", c.data<float>()[k]);
      else if (t.dtype() == tvk::DType::Int64) std::printf(" %lld", static_cast<long long>(c.data<int64_t>()[k]));
      else std::printf(" %d", c.data<bool>()[k] ? 1 : 0);
    }
    std::printf("%s\n", c.numel() > 8 ? " ..." : "");
  }
  return 0;
}

// "1,3,224,224" -> {1, 3, 224, 224}, for --input-shape.
tvk::IntList parse_shape(const std::string& text) {
  tvk::IntList shape;
  for (const std::string& d : split_commas(text)) {
    try {
      size_t used = 0;
      shape.push_back(std::stoll(d, &used));
      if (used != d.size() || shape.back() < 0) throw std::invalid_argument(d);
    } catch (const std::exception&) {
      throw tvk::Error("--input-shape needs comma-separated non-negative integers, got '" + text + "'");
    }
  }
  return shape;
}

// Runs the model once on the CPU (with --input files, or a random input of --input-shape,
// default [1, 3, 224, 224]) recording
// every op it calls, and reports which backends support each.
// What the file is before what it calls: format version, lite bytecode, extra files, and the
// prepacked or quantized parts of its module graph.
void print_archive_summary(const tvk::jit::ZipReader& zip, const tvk::jit::ModuleState& module) {
  if (const auto& ep = module.exported) {
    std::printf("torch.export program (%s; schema %s; exported by torch %s); sample inputs: %zu\n", ep->format.c_str(),
                ep->schema_version.empty() ? "?" : ep->schema_version.c_str(),
                ep->torch_version.empty() ? "(not recorded)" : ep->torch_version.c_str(), module.example_inputs.size());
    for (const auto& [symbol, range] : ep->ranges) {
      const bool open = range.max == std::numeric_limits<int64_t>::max();
      std::printf("dynamic size %s: %lld to %s\n", symbol.c_str(), static_cast<long long>(range.min),
                  open ? "any" : std::to_string(range.max).c_str());
    }
    return;
  }
  const tvk::jit::ArchiveSummary s = tvk::jit::summarize_archive(zip, module);
  std::printf("archive format version %lld (written by PyTorch, which records no producer version in it); "
              "TorchScript code: %s; lite-interpreter bytecode (.ptl): %s\n",
              static_cast<long long>(s.format_version), yes_no(s.has_code), yes_no(s.lite));
  if (s.lite && !s.has_code) std::printf("bytecode only: its methods run on tvk's bytecode interpreter, op by op\n");
  // As torch's upgraders do for such files (jit/runtime/interpreter.cpp, upgraded_call).
  for (const std::string& meaning : s.old_meanings)
    std::printf("as at format version %lld: %s\n", static_cast<long long>(s.format_version), meaning.c_str());
  for (const std::string& extra : s.extra_files) std::printf("extra file: %s\n", extra.c_str());
  for (const auto& [cls, n] : s.custom_classes) std::printf("packed parts: %lld x %s\n", static_cast<long long>(n), cls.c_str());
  if (s.quantized_modules)
    std::printf("quantized modules: %lld (int8 weights dequantized at load)\n", static_cast<long long>(s.quantized_modules));
}

int cmd_check(int argc, char** argv) {
  Args args(argc, argv, {"--input", "--input-shape", "--method"}, {"--cpu-fallback", "--input-list"});
  apply_cpu_fallback(args);
  // One read of the file serves the module and its summary; its bytes go before the run.
  std::optional<tvk::jit::Module> loaded;
  {
    const tvk::jit::ZipReader zip = tvk::jit::ZipReader::open(args.model());
    loaded.emplace(tvk::jit::import_archive(zip, args.model(), tvk::Device::CPU, args.limits()));
    print_archive_summary(zip, *loaded->state());
  }
  tvk::jit::Module& module = *loaded;
  std::vector<tvk::IValue> inputs;
  for (const std::string& path : args.all("--input")) inputs.emplace_back(tvk::io::read_npy(path));
  if (inputs.empty() && !args.flags.count("--input-shape")) inputs = module.example_inputs();
  if (inputs.empty()) inputs.emplace_back(tvk::rand(parse_shape(args.get("--input-shape", "1,3,224,224")), 0));
  pass_as_list_if_asked(args, inputs);
  std::map<std::string, int64_t> counts;
  module.state()->interpreter->record_ops(&counts);
  // An op tvk has no kernel for stops the run: report the ops seen up to it, then that op.
  std::string stopped_at;
  try {
    module.run_method(args.get("--method", "forward"), std::move(inputs));
  } catch (const tvk::UnsupportedError& e) {
    stopped_at = e.what();
  }
  module.state()->interpreter->record_ops(nullptr);

  std::printf("%-40s %6s %-4s %-6s\n", "op", "calls", "cpu", "vulkan");
  size_t missing = 0;
  for (const auto& [name, n] : counts) {
    const tvk::ops::OpEntry* op = tvk::ops::Registry::global().find(name);
    const bool vk = op && op->supports(tvk::Device::Vulkan);
    missing += vk ? 0 : 1;
    std::printf("%-40s %6lld %-4s %-6s\n", name.c_str(), static_cast<long long>(n), yes_no(op && op->supports(tvk::Device::CPU)),
                yes_no(vk));
  }
  // Read from the code, every call at once: what running stops at first, and what this input's
  // path does not reach.
  const tvk::jit::OpReferences refs = tvk::jit::op_references(*module.state()->unit);
  auto list = [](const char* title, const std::map<std::string, std::vector<std::string>>& ops) {
    if (ops.empty()) return;
    std::printf("%s\n", title);
    for (const auto& [name, places] : ops)
      std::printf("  %-38s %s%s\n", name.c_str(), places.front().c_str(),
                  places.size() > 1 ? (" and " + std::to_string(places.size() - 1) + " more").c_str() : "");
  };
  list("ops the model's code calls that tvk has no kernel for, on any device (on this input's path or not):",
       refs.unknown);
  list("ops the model's code calls that tvk has a CPU kernel only for (the CPU fallback runs them):", refs.cpu_only);
  if (!stopped_at.empty()) {
    std::printf("the run stopped at an op tvk does not have, on any device:\n  %s\n", stopped_at.c_str());
    std::printf("%zu ops before it; this model does NOT run on tvk\n", counts.size());
    return 2;
  }
  const bool fallback = tvk::cpu_fallback_enabled();
  if (missing && fallback) {
    std::printf("%zu ops, %zu without a Vulkan kernel: with the CPU fallback they run on the CPU, the rest on "
                "Vulkan\n", counts.size(), missing);
    if (tvk::is_vulkan_available()) {  // the partition tvk optimize --cpu-fallback would make
      tvk::MobileOptimizerOptions options;
      options.backend = tvk::MobileBackend::Vulkan;
      options.cpu_fallback = true;
      tvk::OptimizationReport report;
      try {
        tvk::optimize_for_mobile(module, options, &report);
        std::printf("optimized for Vulkan, forward puts %zu node(s) on the CPU with %d CPU<->Vulkan transfer(s) at "
                    "the borders\n", report.cpu_nodes.size(), report.cpu_fallback_transfers);
      } catch (const tvk::Error& e) {
        std::printf("tvk optimize cannot partition it (%s); unoptimized, it runs with the fallback op by op\n",
                    e.what());
      }
    }
    return 0;
  }
  std::printf("%zu ops, %zu without a Vulkan kernel: %s\n", counts.size(), missing,
              missing ? "this model does NOT run entirely on Vulkan (--cpu-fallback runs them on the CPU)"
                      : "every op runs on Vulkan");
  return missing ? 2 : 0;
}

int cmd_optimize(int argc, char** argv) {
  Args args(argc, argv, {"-o", "--output", "--backend", "--blocklist", "--preserve", "--input"}, {"--cpu-fallback"});
  apply_cpu_fallback(args);
  const std::string out = args.get("-o", args.get("--output", ""));
  if (out.empty()) throw tvk::Error("tvk optimize needs -o OUT");
  tvk::MobileOptimizerOptions options;
  const std::string backend = args.get("--backend", "vulkan");
  if (backend == "vulkan") options.backend = tvk::MobileBackend::Vulkan;
  else if (backend == "cpu") options.backend = tvk::MobileBackend::CPU;
  else throw tvk::Error("--backend must be vulkan or cpu, got '" + backend + "'");
  for (const std::string& name : split_commas(args.get("--blocklist", "")))
    options.optimization_blocklist.insert(tvk::parse_mobile_optimizer_type(name));
  options.preserved_methods = split_commas(args.get("--preserve", ""));
  options.cpu_fallback = args.has("--cpu-fallback");
  // Example inputs tell forward's input dtypes (a bool mask, int64 ids); their values are not used.
  for (const std::string& path : args.all("--input")) options.input_dtypes.push_back(tvk::io::read_npy(path).dtype());

  // Progress on a terminal: big models take seconds to load, freeze and pack.
  const bool tty = isatty(fileno(stderr));
  auto show = [&](const std::string& what) {
    if (tty) std::fprintf(stderr, "\r\033[Koptimize: %s ...", what.c_str());
  };
  options.progress = show;
  show("loading " + args.model());
  tvk::jit::Module module = tvk::jit::load(args.model(), tvk::jit::LoadOptions{tvk::Device::CPU, std::nullopt, args.limits()});
  tvk::OptimizationReport report;
  tvk::jit::Module optimized = tvk::optimize_for_mobile(module, options, &report);
  show("writing " + out);
  optimized.save(out);
  if (tty) std::fprintf(stderr, "\r\033[K");
  std::printf("optimized %s for the %s backend -> %s\n", args.model().c_str(), backend.c_str(), out.c_str());
  std::printf("%s\n", report.summary().c_str());
  return 0;
}

// Resident set size of this process (Linux /proc; 0 where it cannot be read).
uint64_t resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long pages_total = 0, pages_resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &pages_total, &pages_resident);
  std::fclose(f);
  return n == 2 ? pages_resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

double percentile(const std::vector<double>& sorted, double q) {
  const size_t i = std::min(sorted.size() - 1, static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5));
  return sorted[i];
}

// --input x.npy ..., else the file's own sample inputs (a .pt2's), else one random tensor of
// --input-shape (default 1,3,224,224).
std::vector<tvk::IValue> timing_inputs(const Args& args, const tvk::jit::Module& module) {
  std::vector<tvk::IValue> inputs;
  for (const std::string& path : args.all("--input")) inputs.emplace_back(tvk::io::read_npy(path));
  const bool shape_given = args.flags.count("--input-shape") || args.flags.count("--shape");
  if (inputs.empty() && !shape_given && !module.example_inputs().empty()) return module.example_inputs();
  if (inputs.empty()) {
    const std::string text = args.flags.count("--input-shape") ? args.get("--input-shape", "") : args.get("--shape", "1,3,224,224");
    inputs.emplace_back(tvk::rand(parse_shape(text), 0));
  }
  pass_as_list_if_asked(args, inputs);
  return inputs;
}

// --tune (on) or --tuning off|cached|on; unset: the environment's (TVK_TUNE, else cached).
std::optional<tvk::Tuning> tuning_asked(const Args& args) {
  if (args.has("--tune")) return tvk::Tuning::On;
  if (args.flags.count("--tuning")) return tvk::parse_tuning(args.get("--tuning", ""));
  return std::nullopt;
}

// Tunes a model's Vulkan layers (tvk/vulkan_info.h, Tuning::On) on one input: one run records its
// plan, timing every method of each layer the device's table lacks; prints what was chosen.
int cmd_tune(int argc, char** argv) {
  Args args(argc, argv, {"--input", "--shape", "--input-shape", "--precision"}, {"--cpu-fallback", "--input-list", "--json"});
  apply_cpu_fallback(args);
  const std::string precision = apply_precision(args, tvk::Device::Vulkan);
  const auto t0 = std::chrono::steady_clock::now();
  tvk::jit::Module module = tvk::jit::load(args.model(), tvk::jit::LoadOptions{tvk::Device::Vulkan, std::nullopt, args.limits()});
  module.set_tuning(tvk::Tuning::On);
  std::vector<tvk::IValue> inputs = timing_inputs(args, module);
  std::map<std::string, std::string> known;
  for (const tvk::TunedLayer& l : tvk::vulkan_tuned_layers()) known[l.layer] = l.method;
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<tvk::Tensor> outs;
  flatten_outputs(module.forward(inputs), outs);
  for (tvk::Tensor& t : outs) t = t.cpu();
  const auto t2 = std::chrono::steady_clock::now();
  const double load_s = std::chrono::duration<double>(t1 - t0).count();
  const double run_s = std::chrono::duration<double>(t2 - t1).count();
  std::vector<tvk::TunedLayer> tuned;
  for (const tvk::TunedLayer& l : tvk::vulkan_tuned_layers())
    if (!known.count(l.layer)) tuned.push_back(l);
  const std::string file = tvk::vulkan_tuning_file();
  if (args.has("--json")) {
    std::printf("{\"model\": %s, \"precision\": \"%s\", \"load_s\": %.3f, \"tuning_run_s\": %.3f, \"table\": %s, "
                "\"already_tuned\": %zu, \"tuned\": [",
                json_string(args.model()).c_str(), precision.c_str(), load_s, run_s, json_string(file).c_str(),
                known.size());
    for (size_t i = 0; i < tuned.size(); ++i)
      std::printf("%s{\"layer\": %s, \"method\": %s, \"detail\": %s}", i ? ", " : "", json_string(tuned[i].layer).c_str(),
                  json_string(tuned[i].method).c_str(), json_string(tuned[i].detail).c_str());
    std::printf("]}\n");
    return 0;
  }
  std::printf("%s: tuned %zu layer signatures in a %.2f s run (load %.2f s); the table held %zu before\n",
              args.model().c_str(), tuned.size(), run_s, load_s, known.size());
  for (const tvk::TunedLayer& l : tuned)
    std::printf("  %-16s %s\n  %16s (%s)\n", l.method.c_str(), l.layer.c_str(), "", l.detail.c_str());
  std::printf("table: %s\n", file.empty() ? "(memory only: no cache directory)" : file.c_str());
  return 0;
}

// Latency of forward on one input: warm-up runs (pipeline creation, first allocations), then
// timed runs, each ending when its output is back on the CPU.
int cmd_bench(int argc, char** argv) {
  Args args(argc, argv, {"--input", "--device", "--iters", "--iterations", "--warmup", "--shape", "--input-shape",
                         "--precision", "--trace", "--memory-every", "--tuning"},
            {"--json", "--profile", "--verify", "--cpu-fallback", "--input-list", "--fresh-inputs", "--tune"});
  apply_cpu_fallback(args);
  const tvk::Device device = tvk::parse_device(args.get("--device", "vulkan"));
  const std::string precision = apply_precision(args, device);
  const bool json = args.has("--json");
  const std::string trace_path = args.get("--trace", "");
  const bool profile = args.has("--profile") || !trace_path.empty();
  if (profile && device != tvk::Device::Vulkan) throw tvk::Error("--profile and --trace need --device vulkan");
  const int iterations = args.get_int(args.flags.count("--iters") ? "--iters" : "--iterations", 20, 1);
  const int warmup = args.get_int("--warmup", 3, 0);
  // --memory-every K (soak runs): host RSS and device memory after every K timed runs.
  const int memory_every = args.get_int("--memory-every", 0, 0);

  const auto t0 = std::chrono::steady_clock::now();
  tvk::jit::Module module = tvk::jit::load(args.model(), tvk::jit::LoadOptions{device, std::nullopt, args.limits()});
  const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (const std::optional<tvk::Tuning> tuning = tuning_asked(args)) module.set_tuning(*tuning);
  std::vector<tvk::IValue> inputs = timing_inputs(args, module);
  const bool vulkan = device == tvk::Device::Vulkan;
  // --verify: every timed run must give the first timed run's outputs bit for bit (a race on
  // the device, a missing barrier say, shows up as a difference).
  const bool verify = args.has("--verify");
  std::vector<tvk::Tensor> reference;
  int verified = 0;
  auto once = [&] {
    std::vector<tvk::Tensor> outs;
    flatten_outputs(module.forward(inputs), outs);
    for (tvk::Tensor& t : outs) t = t.cpu();
    if (!verify) return;
    if (reference.empty()) {
      reference = outs;
      return;
    }
    TVK_CHECK(outs.size() == reference.size(), "--verify: run ", verified + 1, " returned ", outs.size(),
              " outputs, the first ", reference.size());
    for (size_t i = 0; i < outs.size(); ++i)
      TVK_CHECK(outs[i].sizes() == reference[i].sizes() &&
                    std::memcmp(outs[i].contiguous().raw_data(), reference[i].contiguous().raw_data(),
                                outs[i].nbytes()) == 0,
                "--verify: output ", i, " of run ", verified + 1, " differs from the first run's");
    ++verified;
  };
  auto since = [](std::chrono::steady_clock::time_point s) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
  };
  const bool progress = !json && isatty(fileno(stderr));
  auto show_progress = [&](const char* what, int i, int n) {
    if (progress) std::fprintf(stderr, "\r%s %d/%d", what, i, n);
    if (progress && i == n) std::fprintf(stderr, "\r\033[K");
  };

  if (vulkan) {
    // Work queued at load (weights being packed) holds its temporaries until it has run: let it
    // finish, so the peak is that of inference.
    tvk::vulkan_synchronize();
    tvk::vulkan_reset_peak_memory();
  }
  auto start = std::chrono::steady_clock::now();
  once();
  const double first_ms = since(start);
  for (int i = 0; i < warmup; ++i) {
    once();
    show_progress("warm-up", i + 1, warmup);
  }
  const tvk::VulkanCounters before = vulkan ? tvk::vulkan_counters() : tvk::VulkanCounters{};
  // --fresh-inputs: each timed run gets inputs in new memory (copies made outside the timing),
  // as a service given a new batch per call would; by default every run reuses the same tensors.
  const bool fresh_inputs = args.has("--fresh-inputs");
  std::vector<double> ms;
  const auto loop_start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    if (fresh_inputs)
      for (tvk::IValue& v : inputs)
        if (v.isTensor()) v = tvk::IValue(v.toTensor().clone());
    start = std::chrono::steady_clock::now();
    once();
    ms.push_back(since(start));
    show_progress("iteration", i + 1, iterations);
    if (memory_every > 0 && (i + 1) % memory_every == 0) {
      const tvk::VulkanCounters c = vulkan ? tvk::vulkan_counters() : tvk::VulkanCounters{};
      std::printf("memory after %d runs: host RSS %.1f MiB, device %.1f MiB in use, %.1f MiB reserved\n", i + 1,
                  static_cast<double>(resident_bytes()) / (1 << 20), static_cast<double>(c.used_bytes) / (1 << 20),
                  static_cast<double>(c.reserved_bytes) / (1 << 20));
      std::fflush(stdout);
    }
  }
  const double loop_ms = since(loop_start);
  const tvk::VulkanCounters after = vulkan ? tvk::vulkan_counters() : tvk::VulkanCounters{};
  const tvk::VulkanCounters peak = after;  // before the profiled pass, which runs op by op
  // GPU time: a separate profiled pass, so timestamps do not slow down the timed runs.
  std::vector<tvk::OpGpuTime> ops;
  double gpu_ms = -1;
  int profiled = 0;
  if (vulkan) {  // the module loaded on Vulkan, so a device is there
    try {
      tvk::vulkan_set_profiling(true);
      tvk::vulkan_take_profile();
      profiled = std::min(iterations, 10);
      for (int i = 0; i < profiled; ++i) once();
      ops = tvk::vulkan_take_profile();
      tvk::vulkan_set_profiling(false);
      gpu_ms = 0;
      for (tvk::OpGpuTime& op : ops) {
        op.gpu_ms /= profiled;
        gpu_ms += op.gpu_ms;
      }
    } catch (const tvk::Error& e) {
      if (profile) throw;
      gpu_ms = -1;
    }
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double v : ms) sum += v;
  const double median = percentile(sorted, 0.5);
  const double per_inference = 1.0 / iterations;
  const double dispatches = static_cast<double>(after.dispatches - before.dispatches) * per_inference;
  const double submits = static_cast<double>(after.submits - before.submits) * per_inference;
  // Of the latency, the time the host sat waiting for the GPU's fences: the rest is host work
  // (uploads, read-backs, op dispatch), measured on the timed runs themselves.
  const double wait_ms = static_cast<double>(after.waited_ns - before.waited_ns) * per_inference / 1e6;
  // Host time: what the CPU spends per inference outside waiting for the GPU, estimated as
  // latency minus GPU time (the GPU runs while the host waits at the end).
  const double host_ms = gpu_ms >= 0 ? std::max(0.0, median - gpu_ms) : median;
  int batch = 1;
  if (!inputs.empty() && inputs[0].isTensor() && inputs[0].toTensor().dim() > 0)
    batch = static_cast<int>(inputs[0].toTensor().size(0));

  if (json) {
    std::printf("{\"model\": %s, \"device\": \"%s\", \"precision\": \"%s\", \"batch\": %d, \"iterations\": %d, "
                "\"warmup\": %d, \"load_ms\": %.3f, \"first_ms\": %.3f, \"min_ms\": %.4f, \"median_ms\": %.4f, "
                "\"mean_ms\": %.4f, \"p90_ms\": %.4f, \"max_ms\": %.4f, \"throughput_per_s\": %.2f, "
                "\"peak_device_bytes\": %llu, \"reserved_device_bytes\": %llu, \"dispatches_per_inference\": %.1f, \"submits_per_inference\": %.1f, "
                "\"gpu_ms\": %.4f, \"host_ms\": %.4f, \"wait_ms\": %.4f",
                json_string(args.model()).c_str(), to_string(device), precision.c_str(), batch, iterations, warmup,
                load_ms, first_ms, sorted.front(), median, sum / iterations, percentile(sorted, 0.9), sorted.back(),
                1000.0 * batch * iterations / loop_ms, static_cast<unsigned long long>(peak.peak_used_bytes),
                static_cast<unsigned long long>(peak.reserved_bytes),
                dispatches, submits, gpu_ms, host_ms, wait_ms);
    if (args.has("--profile")) {
      std::printf(", \"profile\": [");
      for (size_t i = 0; i < ops.size(); ++i)
        std::printf("%s{\"op\": %s, \"gpu_ms\": %.4f, \"dispatches\": %.1f}", i ? ", " : "",
                    json_string(ops[i].op).c_str(), ops[i].gpu_ms, static_cast<double>(ops[i].dispatches) / profiled);
      std::printf("]");
    }
    std::printf("}\n");
  } else {
    std::printf("%s on %s: median %.3f ms, min %.3f ms, mean %.3f ms, p90 %.3f ms over %d runs (%d warm-up); "
                "load %.1f ms, first run %.1f ms\n",
                args.model().c_str(), to_string(device), median, sorted.front(), sum / iterations,
                percentile(sorted, 0.9), iterations, warmup, load_ms, first_ms);
    if (vulkan)
      std::printf("  %.0f dispatches and %.1f submits per inference, GPU %.3f ms, host %.3f ms (waiting for the GPU "
                  "%.3f ms), peak device memory %.1f MiB (%.1f MiB reserved)\n",
                  dispatches, submits, gpu_ms, host_ms, wait_ms, static_cast<double>(peak.peak_used_bytes) / (1 << 20),
                  static_cast<double>(peak.reserved_bytes) / (1 << 20));
    if (args.has("--profile")) {
      std::printf("  GPU time per inference by op (mean of %d profiled runs):\n", profiled);
      for (const tvk::OpGpuTime& op : ops)
        std::printf("    %8.3f ms %5.1f%%  %6.1f dispatches  %s\n", op.gpu_ms, gpu_ms > 0 ? 100.0 * op.gpu_ms / gpu_ms : 0.0,
                    static_cast<double>(op.dispatches) / profiled, op.op.c_str());
    }
  }
  if (verify && !json) std::printf("  verify: %d runs gave the first run's outputs bit for bit\n", verified);
  if (!trace_path.empty()) {
    // Chrome/Perfetto trace: the timed runs on the host track, and the per-op GPU time of one
    // inference (the profiled mean) laid end to end on a GPU track.
    FILE* f = std::fopen(trace_path.c_str(), "w");
    if (!f) throw tvk::Error("cannot write the trace file " + trace_path);
    std::fprintf(f, "{\"traceEvents\": [\n");
    std::fprintf(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"tvk bench\"}},\n");
    std::fprintf(f, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"host: forward\"}},\n");
    std::fprintf(f, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 2, \"args\": {\"name\": \"GPU: time per op in one inference\"}}");
    double t = 0;
    for (size_t i = 0; i < ms.size(); ++i) {
      std::fprintf(f, ",\n{\"name\": \"forward %zu\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f, \"dur\": %.3f}", i, t * 1e3, ms[i] * 1e3);
      t += ms[i];
    }
    t = 0;
    for (const tvk::OpGpuTime& op : ops) {
      std::fprintf(f, ",\n{\"name\": %s, \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"dispatches\": %.1f}}",
                   json_string(op.op).c_str(), t * 1e3, op.gpu_ms * 1e3, static_cast<double>(op.dispatches) / profiled);
      t += op.gpu_ms;
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
  }
  return 0;
}

void usage() {
  std::fprintf(stderr,
               "usage: tvk <command> [args]\n"
               "commands:\n"
               "  info                      build options, Vulkan devices and the one selected\n"
               "  ops                       the op registry: each op and whether CPU and Vulkan support it\n"
               "  run MODEL [--input x.npy ...] [--output y.npy ...] [--device cpu|vulkan] [--method NAME]\n"
               "            [--precision fp32|fp16] [--cpu-fallback] [--input-list]\n"
               "                            run a TorchScript model or torch.export program (.pt2) on .npy inputs\n"
               "                            (a .pt2's own sample inputs when none is given)\n"
               "  check MODEL [--input x.npy ... | --input-shape 1,3,224,224] [--cpu-fallback] [--input-list]\n"
               "                            list the ops the model calls and whether Vulkan supports each;\n"
               "                            exit 0 only when every op runs on Vulkan\n"
               "  bench MODEL [--device vulkan|cpu] [--input x.npy ... | --input-shape 1,3,224,224] [--warmup N]\n"
               "              [--iters N] [--precision fp32|fp16] [--json] [--profile] [--trace out.json] [--verify]\n"
               "              [--cpu-fallback] [--input-list] [--memory-every K] [--tune | --tuning off|cached|on]\n"
               "                            forward latency, CPU input to CPU output; --profile: GPU time per op\n"
               "                            and method; --tune: tune the layers first (as tvk tune)\n"
               "  tune MODEL [--input x.npy ... | --input-shape 1,3,224,224] [--precision fp32|fp16] [--json]\n"
               "             [--cpu-fallback] [--input-list]\n"
               "                            time every kernel method of each Vulkan layer on this device and keep\n"
               "                            the fastest correct one in the cache directory's tuning table, which\n"
               "                            later runs use (TVK_TUNE=0: not)\n"
               "  classify IMAGE... --model MODEL [--labels FILE] [--topk K] [--size S] [--resize R]\n"
               "           [--mean M,M,M --std S,S,S] [--channels 1|3] [--device vulkan|cpu] [--batch N] [--json]\n"
               "           [--no-softmax]\n"
               "                            top-k classes of PNG/JPEG/BMP images (files, folders, 'glob*' patterns;\n"
               "                            N per forward), with each image's time; preprocessed as torchvision does:\n"
               "                            resize the short side to R (default S*256/224, bilinear, antialiased),\n"
               "                            center-crop S x S (default 224), normalize (ImageNet's mean and std;\n"
               "                            0.5 for --channels 1); ImageNet-1k names for 1000 classes\n"
               "  optimize MODEL -o OUT [--backend vulkan|cpu] [--blocklist NAME,...] [--preserve METHOD,...]\n"
               "           [--cpu-fallback] [--input x.npy ...]\n"
               "                            optimize_for_mobile: fold batch norms, pack weights for Vulkan, fuse\n"
               "                            activations, remove dropout, insert CPU<->Vulkan transfers (unless\n"
               "                            VULKAN_AUTOMATIC_GPU_TRANSFER is blocklisted); backend defaults to vulkan;\n"
               "                            example --input files give forward's input dtypes (a bool mask, int64 ids)\n"
               "--cpu-fallback: ops without a Vulkan kernel run on the CPU (also TVK_CPU_FALLBACK=1); off, they fail\n"
               "--input-list: the inputs go to the model as one List[Tensor] (detection models take a list of images)\n"
               "--timeout SECONDS, --max-memory SIZE (512M, 4G), --max-device-memory SIZE (Vulkan tensors; default the\n"
               "  device's memory heap), --max-steps N: limits on each run of the model's\n"
               "  code (loading, each call, optimizing); past one, the command fails naming it (docs/reliability.md)\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    usage();
    return argc < 2 ? 1 : 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "info") return cmd_info();
    if (command == "ops") return cmd_ops();
    if (command == "run") return cmd_run(argc, argv);
    if (command == "check") return cmd_check(argc, argv);
    if (command == "optimize") return cmd_optimize(argc, argv);
    if (command == "bench") return cmd_bench(argc, argv);
    if (command == "tune") return cmd_tune(argc, argv);
    if (command == "classify") return tvk::cli::cmd_classify(argc, argv);
    std::fprintf(stderr, "tvk: unknown command '%s' (try tvk --help)\n", command.c_str());
    return 1;
  } catch (const std::exception& e) {
    // One line: the first line of the message.
    std::string message = e.what();
    const size_t newline = message.find('\n');
    if (newline != std::string::npos) message = message.substr(0, newline);
    std::fprintf(stderr, "tvk %s: %s\n", command.c_str(), message.c_str());
    // Work the failed run had queued finishes now, not in an exit handler: submitted that late,
    // the validation layer took minutes over it (an eager detection model's ~700 dispatches).
    try {
      tvk::vulkan_synchronize();  // only a context already made
    } catch (const std::exception&) {
      // A lost device: nothing more to finish.
    }
    return 1;
  }
}
