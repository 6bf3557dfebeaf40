// tvk: the command-line tool. Every failure is one line on stderr and exit status 1.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "io/npy.h"
#include "jit/serialization/import.h"
#include "ops/registry.h"
#include "tvk/tvk.h"
#include "tvk/vulkan_info.h"

namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// Command-line arguments after the command name: flags with values, and positionals.
struct Args {
  std::vector<std::string> positional;
  std::multimap<std::string, std::string> flags;

  Args(int argc, char** argv, std::initializer_list<const char*> value_flags) {
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      bool known = false;
      for (const char* f : value_flags) {
        if (a == f) {
          if (i + 1 >= argc) throw tvk::Error(a + " needs a value");
          flags.emplace(a, argv[++i]);
          known = true;
        }
      }
      if (known) continue;
      if (a.size() > 1 && a[0] == '-') throw tvk::Error("unknown option " + a);
      positional.push_back(a);
    }
  }
  std::vector<std::string> all(const std::string& flag) const {
    std::vector<std::string> out;
    auto [lo, hi] = flags.equal_range(flag);
    for (auto it = lo; it != hi; ++it) out.push_back(it->second);
    return out;
  }
  std::string get(const std::string& flag, const std::string& fallback) const {
    auto v = all(flag);
    if (v.size() > 1) throw tvk::Error(flag + " given more than once");
    return v.empty() ? fallback : v[0];
  }
  const std::string& model() const {
    if (positional.size() != 1) throw tvk::Error("expected exactly one MODEL path");
    return positional[0];
  }
};

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
    std::printf("      subgroup size: %u, fp16 arithmetic: %s, 16-bit storage: %s\n", d.subgroup_size,
                yes_no(d.fp16_arithmetic), yes_no(d.storage_16bit));
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

// Tensors of an output value, flattened in order from nested tuples and lists.
void flatten_outputs(const tvk::IValue& v, std::vector<tvk::Tensor>& out) {
  if (v.isTensor()) {
    out.push_back(v.toTensor());
  } else if (v.isList() || v.isTuple()) {
    for (const tvk::IValue& e : v.toList()) flatten_outputs(e, out);
  } else if (!v.isNone()) {
    throw tvk::Error(std::string("the model returned a ") + v.tag_name() + ", which has no .npy form");
  }
}

int cmd_run(int argc, char** argv) {
  Args args(argc, argv, {"--input", "--output", "--device", "--method"});
  const tvk::Device device = tvk::parse_device(args.get("--device", "cpu"));
  tvk::jit::Module module = tvk::jit::load(args.model(), device);
  std::vector<tvk::IValue> inputs;
  for (const std::string& path : args.all("--input")) inputs.emplace_back(tvk::io::read_npy(path));
  tvk::IValue result = module.run_method(args.get("--method", "forward"), std::move(inputs));
  std::vector<tvk::Tensor> outputs;
  flatten_outputs(result, outputs);
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
    std::printf("output %zu: %s %s", i, t.shape_string().c_str(), to_string(t.dtype()));
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

// Runs the model once on the CPU (with --input files, or a [1, 3, 224, 224] image) recording
// every op it calls, and reports which backends support each.
int cmd_check(int argc, char** argv) {
  Args args(argc, argv, {"--input", "--method"});
  tvk::jit::Module module = tvk::jit::load(args.model(), tvk::Device::CPU);
  std::vector<tvk::IValue> inputs;
  for (const std::string& path : args.all("--input")) inputs.emplace_back(tvk::io::read_npy(path));
  if (inputs.empty()) inputs.emplace_back(tvk::rand({1, 3, 224, 224}, 0));
  std::map<std::string, int64_t> counts;
  module.state()->interpreter->record_ops(&counts);
  module.run_method(args.get("--method", "forward"), std::move(inputs));
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
  std::printf("%zu ops, %zu without a Vulkan kernel: %s\n", counts.size(), missing,
              missing ? "this model does NOT run entirely on Vulkan" : "every op runs on Vulkan");
  return missing ? 2 : 0;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

int cmd_optimize(int argc, char** argv) {
  Args args(argc, argv, {"-o", "--output", "--backend", "--blocklist", "--preserve"});
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

  tvk::jit::Module module = tvk::jit::load(args.model(), tvk::Device::CPU);
  tvk::OptimizationReport report;
  tvk::jit::Module optimized = tvk::optimize_for_mobile(module, options, &report);
  optimized.save(out);
  std::printf("optimized %s for the %s backend -> %s\n", args.model().c_str(), backend.c_str(), out.c_str());
  std::printf("%s\n", report.summary().c_str());
  return 0;
}

// Latency of forward on one input: warm-up runs (pipeline creation, first allocations), then
// timed runs, each ending when its output is back on the CPU.
int cmd_bench(int argc, char** argv) {
  Args args(argc, argv, {"--input", "--device", "--iterations", "--warmup", "--shape"});
  const tvk::Device device = tvk::parse_device(args.get("--device", "vulkan"));
  tvk::jit::Module module = tvk::jit::load(args.model(), device);
  std::vector<tvk::IValue> inputs;
  for (const std::string& path : args.all("--input")) inputs.emplace_back(tvk::io::read_npy(path));
  if (inputs.empty()) {
    tvk::IntList shape;
    for (const std::string& d : split_commas(args.get("--shape", "1,3,224,224"))) shape.push_back(std::stoll(d));
    inputs.emplace_back(tvk::rand(shape, 0));
  }
  const int iterations = std::stoi(args.get("--iterations", "20"));
  const int warmup = std::stoi(args.get("--warmup", "3"));
  if (iterations < 1 || warmup < 0) throw tvk::Error("--iterations must be >= 1 and --warmup >= 0");
  auto once = [&] {
    std::vector<tvk::Tensor> outs;
    flatten_outputs(module.forward(inputs), outs);
    for (const tvk::Tensor& t : outs) t.cpu();
  };
  for (int i = 0; i < warmup; ++i) once();
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    once();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double v : ms) sum += v;
  std::printf("%s on %s: mean %.3f ms, median %.3f ms, min %.3f ms over %d runs (%d warm-up)\n", args.model().c_str(),
              to_string(device), sum / iterations, ms[ms.size() / 2], ms.front(), iterations, warmup);
  return 0;
}

void usage() {
  std::fprintf(stderr,
               "usage: tvk <command> [args]\n"
               "commands:\n"
               "  info                      build options, Vulkan devices and the one selected\n"
               "  ops                       the op registry: each op and whether CPU and Vulkan support it\n"
               "  run MODEL [--input x.npy ...] [--output y.npy ...] [--device cpu|vulkan] [--method NAME]\n"
               "                            run a TorchScript model on .npy inputs\n"
               "  check MODEL [--input x.npy ...]\n"
               "                            list the ops the model calls and whether Vulkan supports each;\n"
               "                            exit 0 only when every op runs on Vulkan\n"
               "  bench MODEL [--device vulkan|cpu] [--input x.npy | --shape 1,3,224,224] [--iterations N]\n"
               "                            forward latency, output back on the CPU included\n"
               "  optimize MODEL -o OUT [--backend vulkan|cpu] [--blocklist NAME,...] [--preserve METHOD,...]\n"
               "                            optimize_for_mobile: fold batch norms, pack weights for Vulkan, fuse\n"
               "                            activations, remove dropout, insert CPU<->Vulkan transfers (unless\n"
               "                            VULKAN_AUTOMATIC_GPU_TRANSFER is blocklisted); backend defaults to vulkan\n");
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
    std::fprintf(stderr, "tvk: unknown command '%s' (try tvk --help)\n", command.c_str());
    return 1;
  } catch (const std::exception& e) {
    // One line: the first line of the message.
    std::string message = e.what();
    const size_t newline = message.find('\n');
    if (newline != std::string::npos) message = message.substr(0, newline);
    std::fprintf(stderr, "tvk %s: %s\n", command.c_str(), message.c_str());
    return 1;
  }
}
