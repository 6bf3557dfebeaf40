// Every op against PyTorch: runs the cases tests/ops/gen_op_cases.py wrote (inputs and torch's
// outputs, CTest fixture OpCases.generate) through the dispatcher, once on the CPU kernels and
// once on the Vulkan kernels, and compares with torch. Invalid cases must throw tvk::Error
// naming the op on both backends. One test per op and backend: Aten/OpCases.Cpu/aten_conv2d.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "ops/registry.h"
#include "support/test_support.h"
#include "tvk/vulkan_info.h"
#if TVK_USE_VULKAN
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>

#include "vulkan/api/context.h"
#include "vulkan/api/shader_library.h"
#include "vulkan/ops/kernel_options.h"
#include "vulkan/ops/shader_dispatch.h"
#endif

using namespace tvk;

namespace {

// One case of the manifest; args and outs keep their tokens until a backend converts them.
struct Case {
  std::string op, name;
  std::vector<std::vector<std::string>> args, outs;
  bool expect_error = false;
  std::string torch_error;
};

struct Manifest {
  std::string problem;   // why there are no cases (missing file, no torch)
  bool no_torch = false;
  std::vector<Case> cases;
};

std::string cases_dir() {
  const char* env = std::getenv("TVK_OP_CASES_DIR");
  return env && *env ? env : TVK_OP_CASES_DIR;
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> tokens;
  for (std::string t; in >> t;) tokens.push_back(t);
  return tokens;
}

const Manifest& manifest() {
  static const Manifest m = [] {
    Manifest out;
    const std::string path = cases_dir() + "/manifest.txt";
    std::ifstream in(path);
    if (!in) {
      out.problem = "no " + path + "; the CTest fixture OpCases.generate writes it (run the tests with ctest)";
      return out;
    }
    std::string line;
    Case current;
    while (std::getline(in, line)) {
      if (line.rfind("no-torch", 0) == 0) {
        out.no_torch = true;
        out.problem = line;
        return out;
      }
      std::vector<std::string> t = split(line);
      if (t.empty()) continue;
      const std::string kind = t[0];
      t.erase(t.begin());
      if (kind == "case") current = Case{t.at(0), t.at(1), {}, {}, false, ""};
      else if (kind == "arg") current.args.push_back(t);
      else if (kind == "out") current.outs.push_back(t);
      else if (kind == "expect_error") current.expect_error = true, current.torch_error = line.substr(13);
      else if (kind == "end") out.cases.push_back(current);
    }
    return out;
  }();
  return m;
}

// Reads tokens "<file> <dtype> <rank> <sizes...>" from `t` at `i`.
Tensor load_tensor(const std::vector<std::string>& t, size_t& i) {
  const std::string file = t.at(i++), code = t.at(i++);
  const DType dtype = code == "f32" ? DType::Float32 : code == "i64" ? DType::Int64 : DType::Bool;
  const int64_t rank = std::stoll(t.at(i++));
  IntList sizes;
  for (int64_t d = 0; d < rank; ++d) sizes.push_back(std::stoll(t.at(i++)));
  Tensor out = empty(sizes, dtype);
  std::ifstream in(cases_dir() + "/" + file, std::ios::binary);
  in.read(static_cast<char*>(out.raw_data()), static_cast<std::streamsize>(out.nbytes()));
  if (!in && out.nbytes() > 0) throw Error("cannot read " + cases_dir() + "/" + file);
  return out;
}

IValue to_arg(const std::vector<std::string>& t, Device device) {
  const std::string& kind = t.at(0);
  size_t i = 1;
  auto place = [device](Tensor x) { return device == Device::Vulkan ? x.vulkan() : x; };
  if (kind == "tensor") return place(load_tensor(t, i));
  if (kind == "none") return IValue();
  if (kind == "int") return IValue(static_cast<int64_t>(std::stoll(t.at(1))));
  if (kind == "float") return IValue(std::strtod(t.at(1).c_str(), nullptr));
  if (kind == "bool") return IValue(t.at(1) == "1");
  if (kind == "str") return IValue(t.at(1));
  if (kind == "device") return IValue(device);
  const size_t n = std::stoull(t.at(1));
  i = 2;
  List items;
  for (size_t k = 0; k < n; ++k) {
    if (kind == "ints") items.emplace_back(static_cast<int64_t>(std::stoll(t.at(i++))));
    else if (kind == "floats") items.emplace_back(std::strtod(t.at(i++).c_str(), nullptr));
    else if (kind == "tensors") items.emplace_back(place(load_tensor(t, i)));
    else if (kind == "opttensors" && t.at(i) == "none") items.emplace_back(), ++i;
    else if (kind == "opttensors") items.emplace_back(place(load_tensor(t, i)));
    else throw Error("unknown manifest argument kind " + kind);
  }
  return IValue::list(std::move(items));
}

std::string join(const std::vector<std::string>& t) {
  std::string s;
  for (const std::string& x : t) s += (s.empty() ? "" : " ") + x;
  return s;
}

std::string describe(const Case& c) {
  std::string s = c.op + " case " + c.name + " with args:";
  for (const auto& a : c.args) s += "\n    " + join(a);
  return s;
}

// The relative tolerance of float results: 1e-4, or a test's own (fp16 weights: 1e-2).
double tolerance = 1e-4;

// Compares one float tensor with torch's: max |a - b| <= tolerance * max(1, max |expected|); NaN
// must meet NaN. Returns "" or what is wrong, with the worst element.
std::string compare_values(const Tensor& got, const Tensor& want) {
  const Tensor g = got.contiguous();
  if (want.dtype() != DType::Float32) {
    const size_t n = want.nbytes();
    if (std::memcmp(g.raw_data(), want.raw_data(), n) == 0) return "";
    for (int64_t k = 0; k < want.numel(); ++k) {
      const int64_t a = want.dtype() == DType::Int64 ? g.data<int64_t>()[k] : g.data<bool>()[k];
      const int64_t b = want.dtype() == DType::Int64 ? want.data<int64_t>()[k] : want.data<bool>()[k];
      if (a != b) return detail::concat("element ", k, " is ", a, ", expected ", b);
    }
    return "";
  }
  const float* pg = g.data<float>();
  const float* pw = want.data<float>();
  double scale = 1, worst = 0;
  int64_t worst_at = -1;
  for (int64_t k = 0; k < want.numel(); ++k)
    if (std::isfinite(pw[k])) scale = std::max(scale, std::fabs(static_cast<double>(pw[k])));
  for (int64_t k = 0; k < want.numel(); ++k) {
    if (std::isnan(pw[k]) || std::isnan(pg[k])) {
      if (std::isnan(pw[k]) != std::isnan(pg[k])) return detail::concat("element ", k, " is ", pg[k], ", expected ", pw[k]);
      continue;
    }
    const double d = pw[k] == pg[k] ? 0 : std::fabs(static_cast<double>(pg[k]) - pw[k]);
    if (d > worst) worst = d, worst_at = k;
  }
  if (worst <= tolerance * scale) return "";
  return detail::concat("max |got - expected| = ", worst, " > ", tolerance * scale, " at element ", worst_at, ": got ",
                        pg[worst_at], ", expected ", pw[worst_at]);
}

std::string compare_output(const IValue& got, const std::vector<std::string>& want, Device device, bool tensor_inputs) {
  const std::string& kind = want.at(0);
  size_t i = 1;
  if (kind == "tensor" || kind == "meta") {
    if (!got.isTensor()) return std::string("expected a Tensor, got ") + got.tag_name();
    const Tensor& t = got.toTensor();
    // Under the CPU fallback, float results come back to Vulkan and others (indices, masks) stay
    // on the CPU, where the ops that use them run; a Vulkan kernel that took the case itself
    // leaves them on Vulkan.
    const bool either_device = device == Device::Vulkan && cpu_fallback_enabled() && t.dtype() != DType::Float32;
    if (tensor_inputs && !either_device && t.device() != device)
      return std::string("the result is on the ") + to_string(t.device());
    if (kind == "meta") {
      const std::string code = want.at(i++);
      const DType dtype = code == "f32" ? DType::Float32 : code == "i64" ? DType::Int64 : DType::Bool;
      const int64_t rank = std::stoll(want.at(i++));
      IntList sizes, strides;
      for (int64_t d = 0; d < rank; ++d) sizes.push_back(std::stoll(want.at(i++)));
      for (int64_t d = 0; d < rank; ++d) strides.push_back(std::stoll(want.at(i++)));
      if (t.dtype() != dtype || t.sizes() != sizes) return "expected a " + std::string(to_string(dtype)) + " tensor " +
                                                            shape_string(sizes) + ", got " + t.shape_string();
      // Vulkan tensors are contiguous whatever strides were asked for.
      if (device == Device::CPU && t.strides() != strides)
        return "expected strides " + shape_string(strides) + ", got " + shape_string(t.strides());
      return "";
    }
    const Tensor expected = load_tensor(want, i);
    if (t.dtype() != expected.dtype())
      return std::string("expected dtype ") + to_string(expected.dtype()) + ", got " + to_string(t.dtype());
    if (t.sizes() != expected.sizes()) return "expected shape " + expected.shape_string() + ", got " + t.shape_string();
    return compare_values(t.cpu(), expected);
  }
  if (kind == "int") {
    if (!got.isInt()) return std::string("expected an int, got ") + got.tag_name();
    return got.toInt() == std::stoll(want.at(1)) ? "" : "got " + got.repr() + ", expected " + want.at(1);
  }
  if (kind == "float") {
    if (!got.isDouble()) return std::string("expected a float, got ") + got.tag_name();
    const double w = std::strtod(want.at(1).c_str(), nullptr);
    return std::fabs(got.toDouble() - w) <= 1e-6 * std::max(1.0, std::fabs(w)) ? "" : "got " + got.repr() + ", expected " + want.at(1);
  }
  if (kind == "bool") {
    if (!got.isBool()) return std::string("expected a bool, got ") + got.tag_name();
    return got.toBool() == (want.at(1) == "1") ? "" : "got " + got.repr() + ", expected " + want.at(1);
  }
  if (kind == "ints") {
    IntList w;
    for (size_t k = 2; k < want.size(); ++k) w.push_back(std::stoll(want[k]));
    if (!got.isList()) return std::string("expected an int list, got ") + got.tag_name();
    return got.toIntList() == w ? "" : "got " + got.repr() + ", expected " + shape_string(w);
  }
  return "unknown manifest output kind " + kind;
}

void run_case(const Case& c, Device device) {
  Stack args;
  bool tensor_inputs = false;
  for (const auto& a : c.args) {
    args.push_back(to_arg(a, device));
    tensor_inputs = tensor_inputs || a.at(0) == "tensor" || a.at(0) == "tensors" || a.at(0) == "opttensors" ||
                    a.at(0) == "device";
  }
  if (c.expect_error) {
    const std::string op_name = c.op.substr(0, c.op.find('.'));
    try {
      call_op(c.op, args);
      ADD_FAILURE() << describe(c) << "\n  should throw tvk::Error (PyTorch: " << c.torch_error << ")";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(op_name), std::string::npos)
          << describe(c) << "\n  the error does not name " << op_name << ": " << e.what();
    }
    return;
  }
  IValue result;
  try {
    result = call_op(c.op, args);
  } catch (const std::exception& e) {
    ADD_FAILURE() << describe(c) << "\n  threw: " << e.what();
    return;
  }
  const bool tensor_list = result.isList() && !result.toList().empty() && result.toList()[0].isTensor();
  if (c.outs.size() > 1 || tensor_list) {
    // Several outputs: a tuple, or a Tensor[] (aten::chunk, also of one piece), item by item.
    if (!(result.isTuple() || result.isList()) || result.toList().size() != c.outs.size()) {
      ADD_FAILURE() << describe(c) << "\n  expected " << c.outs.size() << " outputs, got " << result.repr();
      return;
    }
    for (size_t k = 0; k < c.outs.size(); ++k) {
      const std::string problem = compare_output(result.toList()[k], c.outs[k], device, tensor_inputs);
      if (!problem.empty()) ADD_FAILURE() << describe(c) << "\n  output " << k << ": " << problem;
    }
    return;
  }
  const std::string problem = compare_output(result, c.outs.at(0), device, tensor_inputs);
  if (!problem.empty()) ADD_FAILURE() << describe(c) << "\n  " << problem;
}

bool has_non_float_tensor(const Case& c) {
  auto non_float = [](const std::vector<std::string>& t) {
    for (size_t k = 1; k < t.size(); ++k)
      if (t[k] == "i64" || t[k] == "bool") return true;
    return false;
  };
  for (const auto& a : c.args)
    if (non_float(a)) return true;
  for (const auto& o : c.outs)
    if (non_float(o)) return true;
  return false;
}

void run_cases(const std::string& op, Device device) {
  const Manifest& m = manifest();
  if (m.no_torch) {
    if (testing_support::vulkan_required()) FAIL() << "TVK_REQUIRE_VULKAN is set but " << m.problem;
    GTEST_SKIP() << m.problem;
  }
  ASSERT_TRUE(m.problem.empty()) << m.problem;
  // An op with only a CPU kernel, on Vulkan tensors: it throws naming itself while the CPU
  // fallback is off (the seed's rule), and gives torch's results, on Vulkan, with it on.
  const ops::OpEntry* entry = ops::Registry::global().find(op);
  const bool cpu_only = device == Device::Vulkan && entry && !entry->vulkan;
  int n = 0, non_float_cases = 0, native_non_float_cases = 0;
  for (const Case& c : m.cases) {
    if (c.op != op) continue;
    ++n;
    if (cpu_only && !c.expect_error) {
      set_cpu_fallback(false);
      Stack args;
      for (const auto& a : c.args) args.push_back(to_arg(a, device));
      try {
        call_op(c.op, args);
        ADD_FAILURE() << describe(c) << "\n  runs on Vulkan without a Vulkan kernel while the CPU fallback is off";
      } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
      }
    }
    // Vulkan kernels compute float32: one given (or asked to make) an int64 or bool tensor may
    // decline with UnsupportedError, and then the fallback must give torch's results.
    const bool non_float = device == Device::Vulkan && has_non_float_tensor(c);
    set_cpu_fallback(cpu_only || non_float);
    const uint64_t fallbacks = ops::cpu_fallback_runs();
    run_case(c, device);
    set_cpu_fallback(false);
    if (non_float && !cpu_only && !c.expect_error) {
      ++non_float_cases;
      if (ops::cpu_fallback_runs() == fallbacks) ++native_non_float_cases;
    }
  }
  EXPECT_GT(n, 0) << "no PyTorch cases for " << op << "; add them to tests/ops/gen_op_cases.py";
  // Those cases run with the fallback on, which would hide a Vulkan kernel that stopped
  // handling its int64 or bool tensors: these kernels must give every such case themselves.
  static const std::set<std::string> kNativeNonFloat = {
      "aten::adaptive_max_pool2d", "aten::argmax",   "aten::embedding",         "aten::eq.Scalar", "aten::ne.Scalar",
      "aten::lt.Scalar",           "aten::le.Scalar", "aten::gt.Scalar",         "aten::ge.Scalar", "aten::index.Tensor",
      "aten::index_select",        "aten::where.self", "aten::masked_fill.Scalar", "aten::fill_.Scalar"};
  if (device == Device::Vulkan && kNativeNonFloat.count(op)) {
    EXPECT_GT(non_float_cases, 0) << op << " has no int64 or bool case left to check its Vulkan kernel with";
    EXPECT_EQ(native_non_float_cases, non_float_cases)
        << op << ": " << non_float_cases - native_non_float_cases << " of its " << non_float_cases
        << " int64/bool cases fell back to the CPU instead of running its Vulkan kernel";
  }
}

// The ops these tests cover: every aten op that takes or returns a tensor, and tvk's own ops
// that take plain tensors (the others take packed contexts, which the model tests cover).
std::vector<std::string> tested_ops() {
  static const std::set<std::string> kTvkOps = {"tvk::legacy_div", "tvk::gather_dim", "tvk::lstm_gates",
                                                "tvk::gru_gates", "tvk::layer_norm_channels"};
  std::vector<std::string> names;
  for (const ops::OpEntry* e : ops::Registry::global().all())
    if ((e->schema.name.rfind("aten::", 0) == 0 && e->schema.text.find("Tensor") != std::string::npos) ||
        kTvkOps.count(e->schema.name))
      names.push_back(e->schema.full_name());
  return names;
}

class OpCases : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(OpCases, Cpu) { run_cases(GetParam(), Device::CPU); }

TEST_P(OpCases, Vulkan) {
  TVK_NEED_VULKAN();
  run_cases(GetParam(), Device::Vulkan);
}

INSTANTIATE_TEST_SUITE_P(Aten, OpCases, ::testing::ValuesIn(tested_ops()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

// Each case names a registered op (a typo in the generator would otherwise go unnoticed).
TEST(OpCasesManifest, EveryCaseNamesARegisteredOp) {
  const Manifest& m = manifest();
  if (m.no_torch) GTEST_SKIP() << m.problem;
  ASSERT_TRUE(m.problem.empty()) << m.problem;
  for (const Case& c : m.cases) EXPECT_NE(ops::Registry::global().find(c.op), nullptr) << c.op << " " << c.name;
  EXPECT_GE(m.cases.size(), 500u);
}

#if TVK_USE_VULKAN
namespace {
// Runs torch's cases of `ops` on Vulkan in `precision` with `force` applied to the kernel
// options: each must run some method (the log says which) and match torch (within 1e-4 in fp32,
// 2e-2 in fp16). Returns how many cases ran the method named `method`, and of how many.
std::pair<int, int> run_forced(const std::set<std::string>& ops,
                               const std::function<void(vulkan::KernelOptions&)>& force, const std::string& method,
                               Precision precision = Precision::FP32) {
  struct Restore {
    ~Restore() {
      set_vulkan_precision(Precision::FP32);
      tolerance = 1e-4;
    }
  } restore;
  SCOPED_TRACE("forced method " + method + " in " + to_string(precision));
  set_vulkan_precision(precision);
  // fp16: 2e-2. Winograd with its transformed inputs in halves too (where the GEMM kernels run
  // its products in fp16, as the conv_gemm flip has them on lavapipe) reaches 1.1% on one of the
  // random convolution cases, 16 -> 24 channels at 34x31.
  tolerance = precision == Precision::FP16 ? 2e-2 : 1e-4;
  vulkan::MethodLog log;
  vulkan::KernelOptions options = vulkan::kernel_options();
  force(options);
  options.log = &log;
  const vulkan::ScopedKernelOptions scope(options);
  int taken = 0, cases = 0;
  for (const Case& c : manifest().cases) {
    if (!ops.count(c.op) || c.expect_error) continue;
    ++cases;
    log.clear();
    run_case(c, Device::Vulkan);
    const auto entries = log.entries();
    EXPECT_FALSE(entries.empty()) << describe(c) << "\n  ran no method";
    taken += std::any_of(entries.begin(), entries.end(), [&](const auto& e) { return e.second == method; });
  }
  std::printf("%s in %s: took %d of %d cases\n", method.c_str(), to_string(precision), taken, cases);
  return {taken, cases};
}

}  // namespace

// The op cases' manifest, or a skip (no torch here) or a failure (a broken manifest).
#define TVK_NEED_OP_CASES()                                          \
  do {                                                               \
    if (manifest().no_torch) GTEST_SKIP() << manifest().problem;    \
    ASSERT_TRUE(manifest().problem.empty()) << manifest().problem;  \
  } while (0)

// Every method of each op family, forced through the kernel options on each of torch's cases of
// that family in turn (one test per method): the cases it can run must take it (the method log
// says which ran) and match torch, the others must match torch on the method chosen for them.
// Each method must take some case, unless this device lacks what it needs.

// Convolutions, in fp32 and fp16 weights (Split needs subgroup shuffles over 8+ lanes).
class ConvMethods : public ::testing::TestWithParam<vulkan::ConvMethod> {};

TEST_P(ConvMethods, ForcedMethodMatchesTorchOnTheCasesItRuns) {
  TVK_NEED_VULKAN();
  TVK_NEED_OP_CASES();
  const vulkan::ConvMethod method = GetParam();
  const auto& device = vulkan::Context::get()->device().physical();
  const bool split_possible = device.subgroup_shuffle && device.subgroup_size >= 8 && device.subgroup_size <= 256;
  for (const Precision precision : {Precision::FP32, Precision::FP16}) {
    const auto [taken, cases] = run_forced({"aten::conv2d", "aten::conv_transpose2d.input"},
                                           [&](vulkan::KernelOptions& o) { o.conv = method; },
                                           vulkan::to_string(method), precision);
    EXPECT_GT(cases, 20);
    if (method != vulkan::ConvMethod::Split || split_possible) {
      EXPECT_GT(taken, 0) << vulkan::to_string(method) << " ran none of the " << cases << " cases";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Vulkan, ConvMethods, ::testing::ValuesIn(vulkan::kConvMethods),
                         [](const ::testing::TestParamInfo<vulkan::ConvMethod>& info) {
                           return std::string(vulkan::to_string(info.param));
                         });

// Matrix products: torch's mm, bmm, addmm, linear and matmul cases and packed linears of several
// shapes, in fp32 and fp16 (coopmat needs cooperative matrices and fp16 precision, and must take
// none where it cannot run).
class GemmMethods : public ::testing::TestWithParam<vulkan::GemmMethod> {};

TEST_P(GemmMethods, ForcedMethodMatchesTorchOnTheCasesItRuns) {
  TVK_NEED_VULKAN();
  TVK_NEED_OP_CASES();
  const vulkan::GemmMethod method = GetParam();
  const std::string name = vulkan::to_string(method);
  const bool coopmat_possible = vulkan::Context::get()->device().physical().cooperative_matrix();
  auto force = [&](vulkan::KernelOptions& o) { o.gemm = method; };
  for (const Precision precision : {Precision::FP32, Precision::FP16}) {
    auto [taken, cases] =
        run_forced({"aten::mm", "aten::bmm", "aten::addmm", "aten::linear", "aten::matmul"}, force, name, precision);
    // Packed linears: rows 1 to 70, features and outputs off multiples of 4, as models run them.
    struct RestoreFp32 {
      ~RestoreFp32() { set_vulkan_precision(Precision::FP32); }
    } restore;
    set_vulkan_precision(precision);
    const double tol = precision == Precision::FP16 ? 2e-2 : 1e-4;
    vulkan::MethodLog log;
    vulkan::KernelOptions options = vulkan::kernel_options();
    force(options);
    options.log = &log;
    const vulkan::ScopedKernelOptions scope(options);
    for (const IntList& shape : {IntList{1, 37, 10}, IntList{20, 64, 70}, IntList{70, 33, 5}}) {
      const Tensor x = randn({shape[0], shape[1]}, 90), w = randn({shape[2], shape[1]}, 91), b = randn({shape[2]}, 92);
      ++cases;
      log.clear();
      const IValue ctx = ops::call("vulkan_prepack::create_linear_context", {IValue(t(w).contiguous()), IValue(b)});
      const Tensor got = ops::call("vulkan_prepack::run_linear_context", {IValue(x.vulkan()), ctx}).toTensor().cpu();
      const Tensor want = linear(x, w, b);
      EXPECT_LE(testing_support::max_abs_diff(got, want), tol * testing_support::max_abs(want))
          << "packed linear " << shape[0] << " x " << shape[1] << " -> " << shape[2];
      const auto entries = log.entries();
      ASSERT_EQ(entries.size(), 1u) << "packed linear: one product, one method";
      taken += entries[0].second == name;
    }
    EXPECT_GT(cases, 100);
    if (method != vulkan::GemmMethod::Coopmat || (coopmat_possible && precision == Precision::FP16)) {
      EXPECT_GT(taken, 0) << name << " ran none of the " << cases << " cases";
    } else {
      EXPECT_EQ(taken, 0) << name << " ran where it cannot";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Vulkan, GemmMethods, ::testing::ValuesIn(vulkan::kGemmMethods),
                         [](const ::testing::TestParamInfo<vulkan::GemmMethod>& info) {
                           return std::string(vulkan::to_string(info.param));
                         });

// Pooling: torch's max_pool2d, avg_pool2d and adaptive pooling cases.
class PoolMethods : public ::testing::TestWithParam<vulkan::PoolMethod> {};

TEST_P(PoolMethods, ForcedMethodMatchesTorchOnTheCasesItRuns) {
  TVK_NEED_VULKAN();
  TVK_NEED_OP_CASES();
  const vulkan::PoolMethod method = GetParam();
  const auto [taken, cases] = run_forced({"aten::max_pool2d", "aten::avg_pool2d", "aten::adaptive_avg_pool2d",
                                          "aten::adaptive_max_pool2d"},
                                         [&](vulkan::KernelOptions& o) { o.pool = method; }, vulkan::to_string(method));
  EXPECT_GT(cases, 20);
  EXPECT_GT(taken, 0);
}

INSTANTIATE_TEST_SUITE_P(Vulkan, PoolMethods, ::testing::ValuesIn(vulkan::kPoolMethods),
                         [](const ::testing::TestParamInfo<vulkan::PoolMethod>& info) {
                           return std::string(vulkan::to_string(info.param));
                         });

// Softmax: torch's softmax and log_softmax cases (subgroup needs subgroup arithmetic).
class SoftmaxMethods : public ::testing::TestWithParam<vulkan::SoftmaxMethod> {};

TEST_P(SoftmaxMethods, ForcedMethodMatchesTorchOnTheCasesItRuns) {
  TVK_NEED_VULKAN();
  TVK_NEED_OP_CASES();
  const vulkan::SoftmaxMethod method = GetParam();
  const auto [taken, cases] =
      run_forced({"aten::softmax.int", "aten::log_softmax.int"},
                 [&](vulkan::KernelOptions& o) { o.softmax = method; }, vulkan::to_string(method));
  EXPECT_GT(cases, 10);
  const auto& device = vulkan::Context::get()->device().physical();
  if (method != vulkan::SoftmaxMethod::Subgroup || device.subgroup_arithmetic) {
    EXPECT_GT(taken, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Vulkan, SoftmaxMethods, ::testing::ValuesIn(vulkan::kSoftmaxMethods),
                         [](const ::testing::TestParamInfo<vulkan::SoftmaxMethod>& info) {
                           return std::string(vulkan::to_string(info.param));
                         });
#endif

#if TVK_USE_VULKAN
// The portability pass (scripts/test_arm64.sh --portability; docs/reliability.md): every compute
// pipeline tvk makes, made and run on this device. Every op case runs under every option set that
// changes which pipelines run (each convolution method and each matrix product method forced, in
// fp32 and fp16, with and without the GPU shapes; the GEMM and comparison switches), and convolutions and linear layers also run
// from packed contexts, with a fused residual, against the CPU kernels. A driver whose compiler
// aborts on a shader kills this test. TVK_PIPELINE_LIST=FILE writes each pipeline made (shader,
// bindings, work group, specialisation constants) with the run that made it first (option set,
// op and case). TVK_PIPELINE_REPLAY=FILE (another device's list: scripts/test_arm64.sh
// --portability under qemu) runs only those runs, then makes every listed pipeline they did not
// make here, so that this driver compiles each one and runs all it can; with TVK_PIPELINE_COVER=1
// only a cover of the list (covering_pipelines: every code-choosing constant set, each size
// constant as 0, 1 and more), which is what CI compiles under emulation.
namespace {

struct OptionSet {
  std::string name;
  vulkan::KernelOptions options;
  Precision precision = Precision::FP32;
  bool all_ops = false;  // every op's cases, or only those with weights (convolutions, products)
  std::set<std::string> ops;  // where not empty: only these ops' cases
};

std::vector<OptionSet> variant_option_sets() {
  const vulkan::KernelOptions base;  // not the environment's: the pass spans every choice itself
  std::vector<OptionSet> sets;
  for (const uint32_t split : {0u, 4u}) {
    for (const Precision precision : {Precision::FP32, Precision::FP16}) {
      OptionSet s{std::string("split") + std::to_string(split) + " " + to_string(precision), base, precision,
                  precision == Precision::FP32, {}};
      s.options.reduction_split = split;
      // Without a split, the texel-view paths on every device (a GPU takes them only for tensors
      // past a storage binding); with one, the GPU shapes.
      s.options.gpu_shapes = split ? vulkan::Toggle::On : vulkan::Toggle::Off;
      sets.push_back(s);
      for (const vulkan::ConvMethod m : vulkan::kConvMethods) {
        OptionSet f = s;
        f.name += std::string(" conv=") + vulkan::to_string(m);
        f.options.conv = m;
        f.all_ops = false;
        sets.push_back(f);
      }
      OptionSet g = s;
      g.name += " conv_gemm";
      g.options.conv_gemm = vulkan::Toggle::On;
      g.all_ops = false;
      sets.push_back(g);
      // Each pooling and softmax method forced (their ops have no weights: every op's cases run).
      if (precision == Precision::FP32) {
        for (const vulkan::PoolMethod m : vulkan::kPoolMethods) {
          OptionSet f = s;
          f.name += std::string(" pool=") + vulkan::to_string(m);
          f.options.pool = m;
          f.ops = {"aten::max_pool2d", "aten::avg_pool2d", "aten::adaptive_avg_pool2d",
                   "aten::adaptive_max_pool2d"};
          sets.push_back(f);
        }
        for (const vulkan::SoftmaxMethod m : vulkan::kSoftmaxMethods) {
          OptionSet f = s;
          f.name += std::string(" softmax=") + vulkan::to_string(m);
          f.options.softmax = m;
          f.ops = {"aten::softmax.int", "aten::log_softmax.int"};
          sets.push_back(f);
        }
      }
      // Each matrix product method forced (fp16 changes only coopmat's pipelines).
      for (const vulkan::GemmMethod m : vulkan::kGemmMethods) {
        if (precision == Precision::FP16 && m != vulkan::GemmMethod::Coopmat) continue;
        OptionSet f = s;
        f.name += std::string(" gemm=") + vulkan::to_string(m);
        f.options.gemm = m;
        f.all_ops = false;
        sets.push_back(f);
      }
    }
    // Each comparison switch off in turn, in fp32 (fp16 takes the same shaders with halves).
    const std::vector<std::pair<const char*, bool vulkan::KernelOptions::*>> switches{
        {"winograd", &vulkan::KernelOptions::winograd},
        {"conv_split", &vulkan::KernelOptions::conv_split},
        {"split_vec_in", &vulkan::KernelOptions::split_vec_in},
        {"split_row3", &vulkan::KernelOptions::split_row3},
        {"defer_weights", &vulkan::KernelOptions::defer_weights},
        {"conv_igemm", &vulkan::KernelOptions::conv_igemm},
        {"im2col_one_product", &vulkan::KernelOptions::im2col_one_product},
        {"tiled_gemm", &vulkan::KernelOptions::tiled_gemm},
        {"gemm_shared", &vulkan::KernelOptions::gemm_shared},
        {"gemm_tile128", &vulkan::KernelOptions::gemm_tile128},
        {"gemm_split_k", &vulkan::KernelOptions::gemm_split_k},
    };
    for (const auto& [name, member] : switches) {
      OptionSet s{std::string("split") + std::to_string(split) + " " + name + "=0", base, Precision::FP32, false, {}};
      s.options.reduction_split = split;
      s.options.gpu_shapes = split ? vulkan::Toggle::On : vulkan::Toggle::Off;
      s.options.*member = false;
      sets.push_back(s);
    }
  }
  return sets;
}

bool has_weights(const std::string& op) {
  static const std::set<std::string> kOps = {
      "aten::conv2d",  "aten::convolution", "aten::_convolution", "aten::_convolution.deprecated",
      "aten::conv_transpose2d.input", "aten::linear", "aten::addmm", "aten::mm", "aten::bmm", "aten::matmul",
      "aten::baddbmm", "aten::_native_multi_head_attention"};
  return kOps.count(op) > 0;
}

// A convolution's or linear layer's case from packed contexts (and, for convolutions, with a
// fused residual), against the CPU kernels on the same arguments.
void run_packed(const Case& c, double tol) {
  auto cpu_arg = [&](size_t i) { return to_arg(c.args.at(i), Device::CPU); };
  auto check = [&](const Tensor& got, const Tensor& want, const char* what) {
    const double scale = std::max(1.0, testing_support::max_abs(want));
    EXPECT_LE(testing_support::max_abs_diff(got.cpu(), want), tol * scale) << describe(c) << "\n  " << what;
  };
  if (c.op == "aten::conv2d" && c.args.size() == 7) {
    const Tensor x = cpu_arg(0).toTensor(), w = cpu_arg(1).toTensor();
    if (x.dim() != 4) return;
    const IValue b = cpu_arg(2), stride = cpu_arg(3), padding = cpu_arg(4), dilation = cpu_arg(5), groups = cpu_arg(6);
    const Tensor want = call_op(c.op, {IValue(x), IValue(w), b, stride, padding, dilation, groups}).toTensor();
    const IValue ctx = ops::call("vulkan_prepack::create_conv2d_context",
                                 {IValue(w.vulkan()), b.isTensor() ? IValue(b.toTensor().vulkan()) : IValue(), stride,
                                  padding, dilation, groups, IValue(), IValue()});
    check(ops::call("vulkan_prepack::run_conv2d_context", {IValue(x.vulkan()), ctx}).toTensor(), want, "packed");
    const Tensor residual = randn(want.sizes(), 7);
    check(ops::call("tvk::run_conv2d_context_add", {IValue(x.vulkan()), ctx, IValue(residual.vulkan()), IValue(0.0),
                                                    IValue()})
              .toTensor(),
          clamp(add(want, residual), 0.0, std::nullopt), "packed + residual, relu");
  } else if (c.op == "aten::linear" && c.args.size() == 3) {
    const Tensor x = cpu_arg(0).toTensor(), w = cpu_arg(1).toTensor();
    const IValue b = cpu_arg(2);
    if (w.dim() != 2 || x.dim() < 2) return;
    const Tensor want = call_op(c.op, {IValue(x), IValue(w), b}).toTensor();
    const IValue ctx = ops::call("vulkan_prepack::create_linear_context",
                                 {IValue(t(w).contiguous().vulkan()),
                                  b.isTensor() ? IValue(b.toTensor().vulkan()) : IValue()});
    check(ops::call("vulkan_prepack::run_linear_context", {IValue(x.vulkan()), ctx}).toTensor(), want, "packed");
  }
}

std::string key_line(const vulkan::PipelineKey& k) {
  std::ostringstream s;
  s << k.shader << ' ' << k.buffers << ' ' << k.local_size[0] << ' ' << k.local_size[1] << ' ' << k.local_size[2]
    << " :";
  for (const uint32_t c : k.constants) s << ' ' << c;
  if (k.activation) s << " act=" << k.activation;  // fused_activation.glslh's constant 31
  return s.str();
}

vulkan::PipelineKey parse_key(const std::string& line) {
  std::istringstream in(line);
  vulkan::PipelineKey k;
  std::string colon;
  in >> k.shader >> k.buffers >> k.local_size[0] >> k.local_size[1] >> k.local_size[2] >> colon;
  if (!in || colon != ":") throw Error("bad pipeline line: " + line);
  for (std::string word; in >> word;) {
    if (word.rfind("act=", 0) == 0)
      k.activation = static_cast<uint32_t>(std::stoul(word.substr(4)));
    else
      k.constants.push_back(static_cast<uint32_t>(std::stoul(word)));
  }
  return k;
}

// The specialisation constants whose value is a layer's size (kernel, stride, dilation, how many
// parts a reduction is split into, a tile's valid columns), not a choice of code. Their value
// matters to a compiler only as 0, 1 or more (a loop that vanishes, runs once, or runs), so the
// portability pass covers each of those classes, not each size the op cases happened to have.
const std::set<std::string> kSizeConstants = {"KH", "KW", "SH", "SW", "DH", "DW",
                                              "SPLITS", "KSPLIT", "COL_BLOCK", "COL_VALID"};

// Each shader's specialisation constant names by constant_id, read from its GLSL (the embedded
// SPIR-V keeps no names); a VARIANT line makes a shader of the same file.
std::map<std::string, std::map<uint32_t, std::string>> shader_constant_names(const std::string& glsl_dir) {
  std::map<std::string, std::map<uint32_t, std::string>> out;
  const std::regex constant(R"(constant_id\s*=\s*(\d+)\s*\)\s*const\s+\w+\s+(\w+))");
  const std::regex variant(R"(^// VARIANT (\w+) )");
  for (const auto& file : std::filesystem::directory_iterator(glsl_dir)) {
    if (file.path().extension() != ".glsl") continue;
    std::ifstream in(file.path());
    std::map<uint32_t, std::string> names;
    std::vector<std::string> shaders{file.path().stem().string()};
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (std::regex_search(line, m, constant)) names[static_cast<uint32_t>(std::stoul(m[1]))] = m[2];
      if (std::regex_search(line, m, variant)) shaders.push_back(m[1]);
    }
    for (const std::string& shader : shaders) out[shader] = names;
  }
  return out;
}

// The listed pipelines the portability pass compiles on another driver: per shader, bindings
// and code-choosing constant values, enough pipelines that each size constant (and each local
// size) is seen as 0, 1 and more wherever the list has it so. Greedy set cover, in list order.
std::set<std::string> covering_pipelines(const std::vector<std::string>& lines, const std::string& glsl_dir) {
  const auto names = shader_constant_names(glsl_dir);
  using Classes = std::set<std::pair<std::string, uint32_t>>;  // (constant, 0 / 1 / 2 for more)
  std::map<std::string, std::vector<std::pair<Classes, std::string>>> groups;  // by code-choosing key
  for (const std::string& line : lines) {
    const vulkan::PipelineKey k = parse_key(line);
    std::ostringstream key;
    key << k.shader << ' ' << k.buffers << " act=" << k.activation;  // each activation's code too
    Classes classes;
    for (const char* d : {"local_size_x", "local_size_y", "local_size_z"})
      classes.insert({d, std::min(k.local_size[static_cast<size_t>(d[11] - 'x')], 2u)});
    const auto it = names.find(k.shader);
    for (size_t i = 0; i < k.constants.size(); ++i) {
      const auto id = static_cast<uint32_t>(i + 3);  // 0..2 are the local size
      const std::string name = it != names.end() && it->second.count(id) ? it->second.at(id) : std::to_string(id);
      if (kSizeConstants.count(name))
        classes.insert({name, std::min(k.constants[i], 2u)});
      else
        key << ' ' << name << '=' << k.constants[i];
    }
    groups[key.str()].emplace_back(classes, line);
  }
  std::set<std::string> chosen;
  for (auto& [key, members] : groups) {
    Classes needed;
    for (const auto& m : members) needed.insert(m.first.begin(), m.first.end());
    while (!needed.empty()) {
      size_t best = 0, best_count = 0;
      for (size_t i = 0; i < members.size(); ++i) {
        size_t count = 0;
        for (const auto& c : members[i].first) count += needed.count(c);
        if (count > best_count) best = i, best_count = count;
      }
      chosen.insert(members[best].second);
      for (const auto& c : members[best].first) needed.erase(c);
    }
  }
  return chosen;
}

}  // namespace

TEST(PipelineVariants, DISABLED_EveryPipelineIsMadeAndRunAgainstTheReference) {
  TVK_NEED_VULKAN();
  const Manifest& m = manifest();
  if (m.no_torch) GTEST_SKIP() << m.problem;
  ASSERT_TRUE(m.problem.empty()) << m.problem;
  struct Restore {
    ~Restore() {
      set_vulkan_precision(Precision::FP32);
      tolerance = 1e-4;
    }
  } restore;
  const auto start = std::chrono::steady_clock::now();
  auto& pipelines = vulkan::Context::get()->pipelines();
  const char* replay_file = std::getenv("TVK_PIPELINE_REPLAY");
  const bool replay = replay_file && *replay_file;
  // Replay: the runs that made pipelines on the device that wrote the list, and the pipelines.
  std::set<std::pair<std::string, std::string>> runs;  // (option set, op and case)
  std::vector<std::pair<std::pair<std::string, std::string>, std::string>> listed;  // (run, pipeline)
  if (replay) {
    std::ifstream in(replay_file);
    ASSERT_TRUE(in) << "cannot read " << replay_file;
    for (std::string line; std::getline(in, line);) {
      const size_t bar = line.find(" | "), bar2 = line.find(" | ", bar + 3);
      ASSERT_NE(bar2, std::string::npos) << "bad line in " << replay_file << ": " << line;
      const std::pair<std::string, std::string> run{line.substr(0, bar), line.substr(bar + 3, bar2 - bar - 3)};
      runs.insert(run);
      listed.emplace_back(run, line.substr(bar2 + 3));
    }
    ASSERT_FALSE(listed.empty()) << replay_file << " lists no pipelines";
    // TVK_PIPELINE_COVER=1: only the covering pipelines (covering_pipelines), and the runs that made them.
    if (const char* cover = std::getenv("TVK_PIPELINE_COVER"); cover && std::string(cover) == "1") {
      std::vector<std::string> lines;
      for (const auto& l : listed) lines.push_back(l.second);
      const std::set<std::string> chosen = covering_pipelines(lines, TVK_SOURCE_DIR "/src/vulkan/glsl");
      std::printf("covering %zu of the %zu listed pipelines\n", chosen.size(), listed.size());
      listed.erase(std::remove_if(listed.begin(), listed.end(), [&](const auto& l) { return !chosen.count(l.second); }),
                   listed.end());
      runs.clear();
      for (const auto& l : listed) runs.insert(l.first);
    }
  }
  // TVK_PIPELINE_SHARD=i/n: this process takes every n-th run and listed pipeline from the i-th
  // (several processes share the replay's compiling: scripts/test_arm64.sh --portability).
  size_t shard = 0, shards = 1;
  if (const char* v = std::getenv("TVK_PIPELINE_SHARD"); v && *v) {
    ASSERT_EQ(std::sscanf(v, "%zu/%zu", &shard, &shards), 2) << "TVK_PIPELINE_SHARD=" << v << " is not i/n";
    ASSERT_TRUE(shards >= 1 && shard < shards) << "TVK_PIPELINE_SHARD=" << v;
  }
  size_t run_index = 0;
  std::map<std::pair<std::string, std::string>, size_t> shard_of;  // each replayed run's shard
  // Each pipeline, with the run that made it first: "option set | op case | pipeline".
  std::vector<std::string> made_by;
  std::set<std::string> seen;
  auto note_new = [&](const std::string& set, const std::string& what) {
    for (const auto& k : pipelines.keys()) {
      const std::string line = key_line(k);
      if (seen.insert(line).second) made_by.push_back(set + " | " + what + " | " + line);
    }
  };
  int runs_made = 0;
  struct RunTime {
    double run_s, packed_s;
    size_t new_pipelines;
    std::string what;
  };
  std::vector<RunTime> run_times;  // the slowest are printed: what the pass spends its time on
  for (const OptionSet& set : variant_option_sets()) {
    SCOPED_TRACE("options: " + set.name);
    set_vulkan_precision(set.precision);
    tolerance = set.precision == Precision::FP16 ? 2e-2 : 1e-4;
    const vulkan::ScopedKernelOptions scope(set.options);
    for (const Case& c : m.cases) {
      if (c.expect_error || (!set.ops.empty() ? !set.ops.count(c.op) : !set.all_ops && !has_weights(c.op))) continue;
      const ops::OpEntry* entry = ops::Registry::global().find(c.op);
      if (!entry || !entry->vulkan) continue;
      const std::string what = c.op + " " + c.name;
      if (replay && !runs.count({set.name, what})) continue;
      shard_of[{set.name, what}] = run_index % shards;
      if (run_index++ % shards != shard) continue;
      ++runs_made;
      const auto run_start = std::chrono::steady_clock::now();
      // As in OpCases.Vulkan: int64 and bool cases may fall back to the CPU where a kernel declines.
      set_cpu_fallback(has_non_float_tensor(c));
      run_case(c, Device::Vulkan);
      set_cpu_fallback(false);
      const auto ran = std::chrono::steady_clock::now();
      run_packed(c, tolerance);
      const auto packed = std::chrono::steady_clock::now();
      const size_t before = seen.size();
      note_new(set.name, what);
      run_times.push_back({std::chrono::duration<double>(ran - run_start).count(),
                           std::chrono::duration<double>(packed - ran).count(), seen.size() - before,
                           set.name + " | " + what});
    }
  }
  // Fused activations (fused_activation.glslh's constant 31) are code in every epilogue shader that
  // the runs above make without one: each activation is made on one pipeline of each such shader
  // (the first made), listed, so that the portability pass compiles every activation's code on
  // the other driver too. A shader without the constant refuses (pipeline.cpp's check).
  if (!replay) {
    std::set<std::string> tried;
    constexpr uint32_t kActivations = 7;  // ops::FusedActivation after None
    for (const vulkan::PipelineKey& k : pipelines.keys()) {
      if (k.activation != 0 || !tried.insert(k.shader).second) continue;
      for (uint32_t act = 1; act <= kActivations; ++act) {
        vulkan::PipelineKey with = k;
        with.activation = act;
        try {
          pipelines.get(with);
        } catch (const Error& e) {
          ASSERT_EQ(act, 1u) << with.shader << " made activation 1 but not " << act << ": " << e.what();
          EXPECT_NE(std::string(e.what()).find("has no fused activation"), std::string::npos) << e.what();
          break;
        }
        const std::string line = key_line(with);
        if (seen.insert(line).second) made_by.push_back("activations | " + with.shader + " | " + line);
      }
    }
  }
  std::set<std::string> shaders;
  for (const auto& k : pipelines.keys()) shaders.insert(k.shader);
  // Listed pipelines the runs did not make here (those that depend on the device: subgroup
  // sizes, features) are made without a run, so that this driver compiles each of them too.
  size_t compiled_only = 0;
  // Each by the shard that ran the run which made it on the listing device; those no run made
  // (the activation variants) in turn over the shards.
  size_t runless = 0;
  for (const auto& [run, line] : listed) {
    const auto it = shard_of.find(run);
    const size_t owner = it != shard_of.end() ? it->second : runless++ % shards;
    if (seen.count(line) || owner != shard) continue;
    const vulkan::PipelineKey k = parse_key(line);
    if (!vulkan::shader_selectable(k.shader)) continue;  // never chosen here: another device's variant
    try {
      pipelines.get(k);
      ++compiled_only;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "pipeline " << line << " could not be made here: " << e.what();
    }
  }
  // Every shader of the library made a pipeline, but those that need a feature this device lacks.
  if (!replay && shards == 1) {
    for (const std::string& name : vulkan::shader_names()) {
      if (!vulkan::shader_selectable(name)) continue;
      EXPECT_TRUE(shaders.count(name)) << "no op case under any option set made a pipeline of shader " << name;
    }
    EXPECT_GT(seen.size(), 100u);
  }
  if (const char* out = std::getenv("TVK_PIPELINE_LIST"); out && *out) {
    std::ofstream f(out);
    for (const std::string& line : made_by) f << line << "\n";
    ASSERT_TRUE(f.good()) << "cannot write " << out;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(run_times.begin(), run_times.end(),
            [](const RunTime& a, const RunTime& b) { return a.run_s + a.packed_s > b.run_s + b.packed_s; });
  double run_total = 0, packed_total = 0;
  for (const RunTime& r : run_times) run_total += r.run_s, packed_total += r.packed_s;
  std::printf("runs %.1f s, packed runs %.1f s; the slowest:\n", run_total, packed_total);
  for (size_t i = 0; i < run_times.size() && i < 12; ++i)
    std::printf("  %6.2f s + %6.2f s packed, %zu new pipelines: %s\n", run_times[i].run_s, run_times[i].packed_s,
                run_times[i].new_pipelines, run_times[i].what.c_str());
  std::printf("%zu pipelines of %zu shaders made by %d runs, %zu more made without a run, %.1f s\n", seen.size(),
              shaders.size(), runs_made, compiled_only, seconds);
}
#endif
