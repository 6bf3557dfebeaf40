// The kernel options: parsing the environment once, the scopes that put options in force, the
// method names.
#include "vulkan/ops/kernel_options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "tvk/error.h"

namespace tvk::vulkan {

namespace {
constexpr std::pair<ConvMethod, const char*> kConvNames[] = {
    {ConvMethod::Auto, "auto"},
    {ConvMethod::Direct, "direct"},
    {ConvMethod::Transposed, "transposed"},
    {ConvMethod::Depthwise, "depthwise"},
    {ConvMethod::DepthwisePixel, "depthwise_pixel"},
    {ConvMethod::Oc8, "oc8"},
    {ConvMethod::Split, "split"},
    {ConvMethod::Im2colOc8, "im2col_oc8"},
    {ConvMethod::Winograd, "winograd"},
    {ConvMethod::PointwiseGemm, "pointwise_gemm"},
    {ConvMethod::Im2colGemm, "im2col_gemm"},
    {ConvMethod::ImplicitGemm, "implicit_gemm"},
};

constexpr std::pair<GemmMethod, const char*> kGemmNames[] = {
    {GemmMethod::Auto, "auto"},
    {GemmMethod::Rows, "rows"},
    {GemmMethod::RegisterTiles, "register_tiles"},
    {GemmMethod::SharedTiles, "shared_tiles"},
    {GemmMethod::Tile128, "tile128"},
    {GemmMethod::Coopmat, "coopmat"},
};

constexpr std::pair<PoolMethod, const char*> kPoolNames[] = {
    {PoolMethod::Auto, "auto"},
    {PoolMethod::Window, "window"},
    {PoolMethod::Tile, "tile"},
    {PoolMethod::TileStorage, "tile_storage"},
    {PoolMethod::Group, "group"},
};
constexpr std::pair<SoftmaxMethod, const char*> kSoftmaxNames[] = {
    {SoftmaxMethod::Auto, "auto"},
    {SoftmaxMethod::Thread, "thread"},
    {SoftmaxMethod::Group, "group"},
    {SoftmaxMethod::Subgroup, "subgroup"},
};

template <class Method, size_t N>
const char* name_in(const std::pair<Method, const char*> (&names)[N], Method method) {
  for (const auto& [m, name] : names)
    if (m == method) return name;
  return "?";
}
template <class Method, size_t N>
std::optional<Method> method_in(const std::pair<Method, const char*> (&names)[N], std::string_view name) {
  for (const auto& [m, n] : names)
    if (name == n) return m;
  return std::nullopt;
}

std::optional<std::string> env(const char* name);
// A forced method from `variable` (unset or empty: Auto; a name no method has: Auto, said once).
template <class Method, size_t N>
Method forced_method_env(const char* variable, const std::pair<Method, const char*> (&names)[N], const char* what) {
  const auto v = env(variable);
  if (!v || v->empty()) return Method::Auto;
  if (const auto m = method_in(names, *v)) return *m;
  std::fprintf(stderr, "tvk: %s=%s names no %s method; choosing per call\n", variable, v->c_str(), what);
  return Method::Auto;
}

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}
// A comparison switch: on unless set to "0".
bool switch_env(const char* name) { return env(name) != "0"; }
int int_env(const char* name, int low, int high) {
  const auto v = env(name);
  return v ? std::clamp(std::atoi(v->c_str()), low, high) : 0;
}

thread_local const KernelOptions* scoped_options = nullptr;
thread_local const char* scoped_method = nullptr;
}  // namespace

const char* to_string(ConvMethod method) { return name_in(kConvNames, method); }
std::optional<ConvMethod> conv_method_named(std::string_view name) { return method_in(kConvNames, name); }

const char* to_string(GemmMethod method) { return name_in(kGemmNames, method); }
std::optional<GemmMethod> gemm_method_named(std::string_view name) { return method_in(kGemmNames, name); }
const char* to_string(PoolMethod method) { return name_in(kPoolNames, method); }
std::optional<PoolMethod> pool_method_named(std::string_view name) { return method_in(kPoolNames, name); }
const char* to_string(SoftmaxMethod method) { return name_in(kSoftmaxNames, method); }
std::optional<SoftmaxMethod> softmax_method_named(std::string_view name) { return method_in(kSoftmaxNames, name); }

void MethodLog::add(std::string op, const char* method) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.emplace_back(std::move(op), method);
}

std::vector<std::pair<std::string, std::string>> MethodLog::entries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_;
}

void MethodLog::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

KernelOptions KernelOptions::from_environment() {
  KernelOptions o;
  if (const auto m = env("TVK_CONV_METHOD"); m && !m->empty()) {
    if (const auto method = conv_method_named(*m)) {
      o.conv = *method;
    } else {
      std::fprintf(stderr, "tvk: TVK_CONV_METHOD=%s names no convolution method; choosing per layer\n", m->c_str());
    }
  }
  o.gemm = forced_method_env("TVK_GEMM_METHOD", kGemmNames, "matrix product");
  o.pool = forced_method_env("TVK_POOL_METHOD", kPoolNames, "pooling");
  o.softmax = forced_method_env("TVK_SOFTMAX_METHOD", kSoftmaxNames, "softmax");
  if (const auto t = env("TVK_TUNE"); t && !t->empty()) {
    try {
      o.tuning = parse_tuning(*t);
    } catch (const std::exception&) {
      std::fprintf(stderr, "tvk: TVK_TUNE=%s is not 0, cached or 1; using cached\n", t->c_str());
    }
  }
  const auto gemm = env("TVK_CONV_GEMM");
  o.conv_gemm = gemm == "1" ? Toggle::On : gemm == "0" ? Toggle::Off : Toggle::Auto;
  if (const int n = int_env("TVK_REDUCTION_SPLIT", 0, 256); n >= 1) {
    uint32_t p = 1;
    while (p * 2 <= static_cast<uint32_t>(n)) p *= 2;
    o.reduction_split = p;
  }
  o.winograd = switch_env("TVK_WINOGRAD");
  o.conv_split = switch_env("TVK_CONV_SPLIT");
  o.split_vec_in = switch_env("TVK_SPLIT_VEC_IN");
  o.split_row3 = switch_env("TVK_SPLIT_ROW3");
  o.defer_weights = switch_env("TVK_DEFER_WEIGHTS");
  o.conv_igemm = switch_env("TVK_CONV_IGEMM");
  o.im2col_one_product = switch_env("TVK_IM2COL_ONE_PRODUCT");
  o.tiled_gemm = switch_env("TVK_TILED_GEMM");
  o.gemm_shared = switch_env("TVK_GEMM_SHARED");
  o.gemm_tile128 = switch_env("TVK_GEMM_TILE128");
  o.gemm_split_k = switch_env("TVK_GEMM_SPLIT_K");
  o.coopmat = switch_env("TVK_COOPMAT");
  o.coopmat_split = switch_env("TVK_COOPMAT_SPLIT");
  o.coopmat_tile = env("TVK_COOPMAT_TILE").value_or("");
  o.igemm_tile = env("TVK_IGEMM_TILE").value_or("");
  o.igemm_splits = int_env("TVK_IGEMM_SPLITS", 1, 64);
  o.gemm_splits = int_env("TVK_GEMM_SPLITS", 1, 64);
  if (const auto rows = env("TVK_GEMM_TILE_M")) o.gemm_tile_m = *rows == "64" ? 64 : 128;
  return o;
}

const KernelOptions& kernel_options() {
  if (scoped_options) return *scoped_options;
  static const KernelOptions from_env = KernelOptions::from_environment();
  return from_env;
}

ScopedKernelOptions::ScopedKernelOptions(KernelOptions options)
    : options_(std::move(options)), previous_(scoped_options) {
  scoped_options = &options_;
}

ScopedKernelOptions::~ScopedKernelOptions() { scoped_options = previous_; }

MethodScope::MethodScope(const char* method) : previous_(scoped_method) {
  scoped_method = method;
}

MethodScope::~MethodScope() { scoped_method = previous_; }

OpMethod::OpMethod(const char* op, const char* method) {
  if (current_method()) return;  // inside another op's method, which names the launches
  if (MethodLog* log = kernel_options().log) log->add(op, method);
  scope_.emplace(method);
}

void throw_no_method(const char* op) {
  throw Error(detail::concat(op, ": no Vulkan method can run this call on this device"));
}

const char* current_method() { return scoped_method; }

}  // namespace tvk::vulkan
