// Vulkan reductions (shaders reduce_mean.glsl, softmax.glsl, argmax.glsl, cumsum.glsl): mean,
// sum, prod, amax and amin over dims (reduced dims are permuted to the end first when they are
// not already there), any and all through them, softmax, log_softmax, argmax, argmin, cumsum and cumprod.
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "ops/view_geometry.h"
#include "vulkan/api/context.h"
#include "vulkan/ops/kernel_options.h"
#include "vulkan/ops/shader_dispatch.h"
#include "vulkan/ops/strided_copy.h"

namespace tvk::vulkan {
namespace {

bool is_identity(const IntList& order) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// reduce_mean.glsl's MODE.
enum class RowReduction : uint32_t { Sum = 0, Mean = 1, Max = 2, Min = 3, Prod = 4 };

// Row reductions of float32 tensors; int64 and bool ones decline to the CPU.
Tensor reduce_rows(const char* op, const Tensor& self, const std::optional<IntList>& dims, bool keepdim,
                   std::optional<int64_t> dtype, RowReduction mode) {
  check_vulkan_float(op, self);
  ops::check_float_dtype_arg(op, dtype);
  const ops::ReducePlan plan = ops::plan_reduce(op, self, dims, keepdim);
  const bool extreme = mode == RowReduction::Max || mode == RowReduction::Min;
  TVK_CHECK(!extreme || plan.cols > 0 || plan.rows == 0, op, ": a reduced dimension of ",
            self.shape_string(), " is empty; its ", mode == RowReduction::Max ? "maximum" : "minimum", " is undefined");
  const Tensor rows =
      is_identity(plan.order) ? self : materialize(op, self, ops::permute_geometry(self, plan.order));
  Tensor out = empty_vulkan(plan.out_sizes);
  struct {
    uint32_t rows, cols;
  } params{static_cast<uint32_t>(plan.rows), static_cast<uint32_t>(plan.cols)};
  ShaderLaunch l = row_groups_launch("reduce_mean", plan.rows, 64);  // 64: the shader's kGroup
  l.constants = {static_cast<uint32_t>(mode)};
  launch(l, {out, rows}, params);
  return out;
}
Tensor mean_dim(const Tensor& self, std::optional<IntList> dim, bool keepdim, std::optional<int64_t> dtype) {
  return reduce_rows("aten::mean", self, dim, keepdim, dtype, RowReduction::Mean);
}
Tensor mean_all(const Tensor& self, std::optional<int64_t> dtype) {
  return reduce_rows("aten::mean", self, std::nullopt, false, dtype, RowReduction::Mean);
}
Tensor sum_dim(const Tensor& self, std::optional<IntList> dim, bool keepdim, std::optional<int64_t> dtype) {
  return reduce_rows("aten::sum", self, dim, keepdim, dtype, RowReduction::Sum);
}
Tensor sum_all(const Tensor& self, std::optional<int64_t> dtype) {
  return reduce_rows("aten::sum", self, std::nullopt, false, dtype, RowReduction::Sum);
}
Tensor prod_dim(const Tensor& self, int64_t dim, bool keepdim, std::optional<int64_t> dtype) {
  return reduce_rows("aten::prod", self, IntList{dim}, keepdim, dtype, RowReduction::Prod);
}
Tensor prod_all(const Tensor& self, std::optional<int64_t> dtype) {
  return reduce_rows("aten::prod", self, std::nullopt, false, dtype, RowReduction::Prod);
}
// any / all: whether the largest (smallest) of each line's non-zero flags, as 0 or 1, is 1.
Tensor any_all_of(const char* op, const Tensor& self, const std::optional<IntList>& dims, bool keepdim, bool all) {
  ops::check_defined(op, self);
  const ops::ReducePlan plan = ops::plan_reduce(op, self, dims, keepdim);
  if (plan.cols == 0) return tvk::full(plan.out_sizes, all ? 1.0 : 0.0, DType::Bool, tvk::Device::Vulkan);  // all of none
  const Tensor set = self.dtype() == DType::Bool ? self : ops::call("aten::ne.Scalar", {IValue(self), IValue(0.0)}).toTensor();
  const Tensor flags = ops::to_dtype(set, DType::Float32);
  const Tensor r = reduce_rows(op, flags, dims, keepdim, std::nullopt, all ? RowReduction::Min : RowReduction::Max);
  return ops::call("aten::gt.Scalar", {IValue(r), IValue(0.0)}).toTensor();
}
Tensor any_dim(const Tensor& self, int64_t dim, bool keepdim) { return any_all_of("aten::any", self, IntList{dim}, keepdim, false); }
Tensor all_dim(const Tensor& self, int64_t dim, bool keepdim) { return any_all_of("aten::all", self, IntList{dim}, keepdim, true); }
// max() / min() of every element: a 0-D tensor; an empty tensor has none.
Tensor max_all(const Tensor& self) {
  TVK_CHECK(self.numel() > 0, "aten::max: max(): Expected reduction dim to be specified for input.numel() == 0.");
  return reduce_rows("aten::max", self, std::nullopt, false, std::nullopt, RowReduction::Max);
}
Tensor min_all(const Tensor& self) {
  TVK_CHECK(self.numel() > 0, "aten::min: min(): Expected reduction dim to be specified for input.numel() == 0.");
  return reduce_rows("aten::min", self, std::nullopt, false, std::nullopt, RowReduction::Min);
}
Tensor any_all(const Tensor& self) { return any_all_of("aten::any", self, std::nullopt, false, false); }
Tensor all_all(const Tensor& self) { return any_all_of("aten::all", self, std::nullopt, false, true); }
// An empty dim list reduces every dim, as torch.amax does.
Tensor amax(const Tensor& self, IntList dim, bool keepdim) {
  return reduce_rows("aten::amax", self, dim.empty() ? std::nullopt : std::optional<IntList>(dim), keepdim, std::nullopt,
                     RowReduction::Max);
}
Tensor amin(const Tensor& self, IntList dim, bool keepdim) {
  return reduce_rows("aten::amin", self, dim.empty() ? std::nullopt : std::optional<IntList>(dim), keepdim, std::nullopt,
                     RowReduction::Min);
}

Tensor softmax_impl(const char* op, const Tensor& self, int64_t dim, std::optional<int64_t> dtype, bool log) {
  check_vulkan_float(op, self);
  ops::check_float_dtype_arg(op, dtype);
  const int64_t d = ops::wrap_dim(op, dim, self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  int64_t inner = 1;
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.sizes()[i];
  const int64_t outer = size * inner == 0 ? 0 : self.numel() / (size * inner);
  Tensor out = empty_vulkan(self.sizes());
  struct {
    uint32_t outer, size, inner;
  } params{static_cast<uint32_t>(outer), static_cast<uint32_t>(size), static_cast<uint32_t>(inner)};
  // On GPUs a softmax over the innermost dim takes a subgroup per row (a work group of 64 holds
  // 64 / subgroup size rows). Elsewhere long dims get a work group per (outer, inner) pair, short
  // ones an invocation.
  constexpr int64_t kWide = 4096, kMaxLoopIterations = 65535;
  const PhysicalDeviceInfo& device = Context::get()->device().physical();
  const uint32_t subgroup = device.subgroup_size;
  auto can_run = [&](SoftmaxMethod m) {
    switch (m) {
      case SoftmaxMethod::Auto: return false;
      case SoftmaxMethod::Thread: return size <= kMaxLoopIterations;
      case SoftmaxMethod::Group: return true;
      case SoftmaxMethod::Subgroup:
        return inner == 1 && device.subgroup_arithmetic && subgroup >= 1 && subgroup <= 64 &&
               size / subgroup <= kMaxLoopIterations;
    }
    return false;
  };
  const SoftmaxMethod preferred = inner == 1 && gpu_shaped_kernels() && can_run(SoftmaxMethod::Subgroup)
                                      ? SoftmaxMethod::Subgroup
                                  : size > kWide ? SoftmaxMethod::Group
                                                 : SoftmaxMethod::Thread;
  const SoftmaxMethod method = choose_method(op, kernel_options().softmax, preferred, kSoftmaxMethods, can_run);
  const OpMethod recorded(op, to_string(method));
  ShaderLaunch l =
      method == SoftmaxMethod::Subgroup ? row_groups_launch("softmax", (outer + 64 / subgroup - 1) / (64 / subgroup), 64)
      : method == SoftmaxMethod::Group  ? row_groups_launch("softmax", outer * inner, 64)
                                        : ShaderLaunch{"softmax", elementwise_global(outer * inner), {64, 1, 1}, {}};
  // softmax.glsl's WIDE: 0 an invocation per row, 1 a work group, 2 a subgroup.
  l.constants = {log ? 1u : 0u, method == SoftmaxMethod::Subgroup ? 2u : method == SoftmaxMethod::Group ? 1u : 0u};
  launch(l, {out, self}, params);
  return out;
}

// argmax.glsl (argmin with MIN = 1): a work group of 64 per (outer, inner) pair; each invocation scans at most
// 65535 values (lavapipe's loop cap), so a dim holds at most 64 x 65535.
template <bool kMin>
Tensor arg_extreme(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const char* op = kMin ? "aten::argmin" : "aten::argmax";
  check_vulkan_float(op, self);
  TVK_CHECK(self.numel() > 0, op, ": cannot take the ", kMin ? "argmin" : "argmax", " of an empty tensor");
  // Without a dim, over the flattened tensor.
  const ops::DimSplit split = ops::split_at_dim(op, dim ? self.sizes() : IntList{self.numel()}, dim.value_or(0));
  const int64_t size = split.size, inner = split.inner;
  const IntList out_sizes = ops::reduced_sizes(op, self.sizes(), dim, keepdim);
  constexpr int64_t kGroup = 64, kMaxPerInvocation = 65535;
  TVK_CHECK(size <= kGroup * kMaxPerInvocation, op, ": a dim of ", size, " values exceeds the Vulkan kernel's ",
            kGroup * kMaxPerInvocation);
  const int64_t pairs = self.numel() / size;
  Tensor out = empty(out_sizes, DType::Int64, tvk::Device::Vulkan);
  struct {
    uint32_t pairs, size, inner;
  } params{static_cast<uint32_t>(to_i32(op, pairs)), static_cast<uint32_t>(to_i32(op, size)),
           static_cast<uint32_t>(to_i32(op, inner))};
  ShaderLaunch l = row_groups_launch("argmax", pairs, kGroup);
  l.constants = {kMin ? 1u : 0u};
  launch(l, {out, self}, params);
  return out;
}

// Running sums along `dim` (cumsum.glsl), float32; int64 tensors and lines longer than gallivm's
// loop limit decline to the CPU fallback.
Tensor running(const char* op, const Tensor& self, int64_t dim, std::optional<int64_t> dtype, bool product) {
  check_vulkan_float(op, self);
  ops::check_float_dtype_arg(op, dtype);
  const ops::DimSplit s = ops::split_at_dim(op, self.dim() == 0 ? IntList{1} : self.sizes(), self.dim() == 0 ? 0 : dim);
  if (s.size > 65535)
    throw UnsupportedError(detail::concat(op, ": a running ", product ? "product" : "sum", " over ", s.size,
                                          " values is longer than a Vulkan kernel's loop may run here (65535); the CPU "
                                          "fallback runs it"));
  Tensor out = empty_vulkan(self.sizes());
  const int64_t lines = s.outer * s.inner;
  if (lines == 0 || s.size == 0) return out;
  struct {
    uint32_t lines, size, inner;
  } params{static_cast<uint32_t>(to_i32(op, lines)), static_cast<uint32_t>(s.size), static_cast<uint32_t>(s.inner)};
  launch(ShaderLaunch{"cumsum", elementwise_global(lines), {64, 1, 1}, {product ? 1u : 0u}}, {out, self}, params);
  return out;
}
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<int64_t> dtype) {
  return running("aten::cumsum", self, dim, dtype, false);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<int64_t> dtype) {
  return running("aten::cumprod", self, dim, dtype, true);
}

Tensor softmax(const Tensor& self, int64_t dim, std::optional<int64_t> dtype) {
  return softmax_impl("aten::softmax", self, dim, dtype, false);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<int64_t> dtype) {
  return softmax_impl("aten::log_softmax", self, dim, dtype, true);
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::mean.dim", mean_dim);
TVK_REGISTER_VULKAN_KERNEL("aten::mean", mean_all);
TVK_REGISTER_VULKAN_KERNEL("aten::sum.dim_IntList", sum_dim);
TVK_REGISTER_VULKAN_KERNEL("aten::sum", sum_all);
TVK_REGISTER_VULKAN_KERNEL("aten::softmax.int", softmax);
TVK_REGISTER_VULKAN_KERNEL("aten::log_softmax.int", log_softmax);
TVK_REGISTER_VULKAN_KERNEL("aten::argmax", arg_extreme<false>);
TVK_REGISTER_VULKAN_KERNEL("aten::argmin", arg_extreme<true>);
TVK_REGISTER_VULKAN_KERNEL("aten::amax", amax);
TVK_REGISTER_VULKAN_KERNEL("aten::prod.dim_int", prod_dim);
TVK_REGISTER_VULKAN_KERNEL("aten::prod", prod_all);
TVK_REGISTER_VULKAN_KERNEL("aten::any.dim", any_dim);
TVK_REGISTER_VULKAN_KERNEL("aten::all.dim", all_dim);
TVK_REGISTER_VULKAN_KERNEL("aten::any", any_all);
TVK_REGISTER_VULKAN_KERNEL("aten::max", max_all);
TVK_REGISTER_VULKAN_KERNEL("aten::min", min_all);
TVK_REGISTER_VULKAN_KERNEL("aten::all", all_all);
TVK_REGISTER_VULKAN_KERNEL("aten::amin", amin);
TVK_REGISTER_VULKAN_KERNEL("aten::cumsum", cumsum);
TVK_REGISTER_VULKAN_KERNEL("aten::cumprod", cumprod);

}  // namespace tvk::vulkan
