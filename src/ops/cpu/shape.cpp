// Shape and view ops: view, reshape, flatten, unsqueeze, select, slice, transpose(_), permute, t,
// expand, contiguous, unbind, meshgrid, cat, stack, repeat, copy_ (into a view); and the block
// copies roll, constant_pad_nd and pad. On the CPU the
// view ops return real views sharing storage, as PyTorch does.
#include "ops/block_copy.h"
#include "ops/cpu/cpu_loops.h"
#include "ops/index_plan.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "ops/view_geometry.h"

#include <optional>
#include <string>

namespace tvk::ops::cpu {

// dst[...] = src: src broadcast to dst's shape and converted to dst's dtype; dst may be a view.
template <typename To, typename From>
static void convert_into(const Tensor& dst, const Tensor& src) {
  To* pd = dst.data<To>();
  const From* ps = src.data<From>();
  strided_loop<2>(dst.sizes(), {dst.strides(), broadcast_strides(src, dst.sizes())},
                  [&](int64_t, int64_t od, int64_t os) { pd[od] = static_cast<To>(ps[os]); });
}
template <typename To>
static void convert_from_any(const Tensor& dst, const Tensor& src) {
  switch (src.dtype()) {
    case DType::Float32: return convert_into<To, float>(dst, src);
    case DType::Int64: return convert_into<To, int64_t>(dst, src);
    case DType::Bool: return convert_into<To, bool>(dst, src);
  }
}
void copy_converting(const Tensor& dst, const Tensor& src) {
  switch (dst.dtype()) {
    case DType::Float32: return convert_from_any<float>(dst, src);
    case DType::Int64: return convert_from_any<int64_t>(dst, src);
    case DType::Bool: return convert_from_any<bool>(dst, src);
  }
}

namespace {


Tensor view(const Tensor& self, IntList size) {
  const IntList shape = infer_size("aten::view", std::move(size), self.numel());
  const auto strides = view_strides(self.sizes(), self.strides(), shape);
  TVK_CHECK(strides.has_value(), "aten::view: the strides ", shape_string(self.strides()), " of the input ",
            self.shape_string(), " cannot be viewed as ", shape_string(shape), "; use reshape");
  return self.as_strided(shape, *strides, self.storage_offset());
}

// A view when the layout allows one, else a contiguous copy.
Tensor reshape(const Tensor& self, IntList shape) {
  shape = infer_size("aten::reshape", std::move(shape), self.numel());
  if (auto strides = view_strides(self.sizes(), self.strides(), shape))
    return self.as_strided(shape, *strides, self.storage_offset());
  return self.contiguous().view(shape);
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  const IntList sizes = flatten_sizes(self, start_dim, end_dim);
  if (sizes == self.sizes()) return self;
  return reshape(self, sizes);
}

Tensor unsqueeze(const Tensor& self, int64_t dim) { return as_view(self, unsqueeze_geometry(self, dim)); }
Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  return as_view(self, select_geometry(self, dim, index));
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  return as_view(self, slice_geometry(self, dim, start, end, step));
}
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return as_view(self, transpose_geometry("aten::transpose", self, dim0, dim1));
}
// tvk tensors are values, so "in place" means: the result is self's storage with the new
// geometry; callers use the returned tensor (as TorchScript's interpreter does).
Tensor transpose_(const Tensor& self, int64_t dim0, int64_t dim1) {
  return as_view(self, transpose_geometry("aten::transpose_", self, dim0, dim1));
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  const ChunkPlan plan = chunk_plan(self, chunks, dim);
  std::vector<Tensor> out;
  for (const auto& [start, end] : plan.pieces) out.push_back(as_view(self, slice_geometry(self, plan.dim, start, end, 1)));
  return out;
}
Tensor permute(const Tensor& self, IntList dims) { return as_view(self, permute_geometry(self, dims)); }
Tensor t(const Tensor& self) { return as_view(self, t_geometry(self)); }
Tensor as_strided(const Tensor& self, IntList size, IntList stride, std::optional<int64_t> storage_offset) {
  return as_view(self, as_strided_geometry(self, size, stride, storage_offset));
}

Tensor expand(const Tensor& self, IntList size, bool) {
  const size_t shift = size.size() - std::min<size_t>(size.size(), static_cast<size_t>(self.dim()));
  for (size_t i = shift; i < size.size(); ++i)
    if (size[i] == -1) size[i] = self.sizes()[i - shift];
  return as_view(self, expand_geometry("aten::expand", self, size));
}

// memory_format 0 is contiguous_format; channels_last (2) is accepted and also returns a
// row-major tensor (same values, tvk kernels do not depend on the layout).
Tensor contiguous(const Tensor& self, int64_t memory_format) {
  TVK_CHECK(memory_format == 0 || memory_format == 2, "aten::contiguous: memory_format ", memory_format,
            " is not supported (0 = contiguous_format, 2 = channels_last)");
  return self.contiguous();
}


Tensor run_blocks(const char* op, const Tensor& self, const BlockPlan& plan) {
  check_float(op, self);
  Tensor out = plan.fill ? full(plan.out_sizes, plan.value) : empty(plan.out_sizes);
  for (const Block& b : plan.blocks)
    copy_converting(as_view(out, block_geometry(out, b.dst)), as_view(self, block_geometry(self, b.src)));
  return out;
}

Tensor roll(const Tensor& self, IntList shifts, IntList dims) {
  if (dims.empty()) {  // the flattened tensor, rolled, in the input's shape
    const Tensor flat = reshape(self.contiguous(), {self.numel()});
    return run_blocks("aten::roll", flat, roll_plan(flat, shifts, dims)).view(self.sizes());
  }
  return run_blocks("aten::roll", self, roll_plan(self, shifts, dims));
}

Tensor constant_pad_nd(const Tensor& self, IntList pad, double value) {
  return run_blocks("aten::constant_pad_nd", self, pad_plan("aten::constant_pad_nd", self, pad, value));
}

Tensor pad(const Tensor& self, IntList pad, const std::string& mode, std::optional<double> value) {
  if (mode != "constant") {
    TVK_CHECK(!value || *value == 0.0, "aten::pad: padding mode \"", mode, "\" doesn't take in value argument");
    return run_gathers(self, pad_plan_by_rows("aten::pad", self, pad, mode));
  }
  return run_blocks("aten::pad", self, pad_plan("aten::pad", self, pad, value.value_or(0.0)));
}

Tensor cat_impl(const char* op, const std::vector<Tensor>& tensors, int64_t dim) {
  const CatPlan plan = plan_cat(op, tensors, dim);
  Tensor out = empty(plan.out_sizes, plan.inputs.empty() ? tensors.front().dtype() : plan.inputs.front().dtype());
  int64_t start = 0;
  for (const Tensor& t : plan.inputs) {
    const int64_t len = t.sizes()[plan.dim];
    copy_converting(as_view(out, slice_geometry(out, plan.dim, start, start + len, 1)), t);
    start += len;
  }
  return out;
}
Tensor copy_(const Tensor& self, const Tensor& src, bool) {
  const char* op = "aten::copy_";
  check_defined(op, self);
  check_defined(op, src, "src");
  broadcast_shapes(op, self.sizes(), src.sizes());
  TVK_CHECK(src.dim() <= self.dim() && broadcast_shapes(op, self.sizes(), src.sizes()) == self.sizes(), op,
            ": src of shape ", src.shape_string(), " cannot be broadcast to ", self.shape_string());
  // A source that shares self's storage is read in full before anything is written.
  const Tensor from = src.storage() == self.storage() ? src.clone() : src;
  copy_converting(self, from);
  return self;
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl("aten::cat", tensors, dim); }

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  const auto [parts, d] = stack_as_cat("aten::stack", tensors, dim);
  return cat_impl("aten::stack", parts, d);
}

// unbind: select at every index along dim, through the dispatcher, so one kernel serves both
// devices (CPU views, Vulkan copies that write back).
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  check_defined("aten::unbind", self);
  TVK_CHECK(self.dim() > 0, "aten::unbind: a 0-D tensor cannot be unbound");
  const int64_t d = wrap_dim("aten::unbind", dim, self.dim());
  const OpEntry& select_op = require_op("aten::select.int");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.sizes()[d]; ++i)
    out.push_back(call(select_op, {IValue(self), IValue(d), IValue(i)}).toTensor());
  return out;
}

Tensor repeat(const Tensor& self, IntList repeats) {
  IntList out_sizes;
  return as_view(self, repeat_geometry("aten::repeat", self, repeats, &out_sizes)).contiguous().view(out_sizes);
}

// meshgrid of 1-D (or 0-D) tensors: "ij" gives each the shape of all the lengths, varying along
// its own dimension; "xy" swaps the first two dimensions (as NumPy).
std::vector<Tensor> meshgrid_impl(const std::vector<Tensor>& tensors, const std::string& indexing) {
  const char* op = "aten::meshgrid";
  TVK_CHECK(indexing == "ij" || indexing == "xy", op, ": indexing must be \"ij\" or \"xy\", got \"", indexing, "\"");
  TVK_CHECK(!tensors.empty(), op, ": expected a non-empty list of tensors");
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  IntList lengths;
  for (const Tensor& t : tensors) {
    check_defined(op, t, "tensors");
    TVK_CHECK(t.dim() <= 1, op, ": expected 0-D or 1-D tensors, got ", t.shape_string());
    TVK_CHECK(t.dtype() == tensors.front().dtype() && t.device() == tensors.front().device(), op,
              ": the tensors must share one dtype and device");
    lengths.push_back(t.numel());
  }
  if (swap) std::swap(lengths[0], lengths[1]);
  std::vector<Tensor> out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const size_t axis = swap && i < 2 ? 1 - i : i;
    IntList strides(lengths.size(), 0);
    strides[axis] = tensors[i].dim() == 0 ? 0 : tensors[i].strides()[0];
    out.push_back(tensors[i].as_strided(lengths, strides, tensors[i].storage_offset()));
  }
  return out;
}
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors) { return meshgrid_impl(tensors, "ij"); }
std::vector<Tensor> meshgrid_indexing(const std::vector<Tensor>& tensors, const std::string& indexing) {
  return meshgrid_impl(tensors, indexing);
}
Tensor cat_underscore(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl("aten::_cat", tensors, dim); }

}  // namespace

TVK_REGISTER_OP("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)", view);
TVK_REGISTER_OP("aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", reshape);
TVK_REGISTER_OP("aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)", flatten);
TVK_REGISTER_OP("aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", unsqueeze);
TVK_REGISTER_OP("aten::select.int(Tensor(a) self, int dim, int index) -> Tensor(a)", select);
TVK_REGISTER_OP("aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
                "SymInt step=1) -> Tensor(a)",
                slice);
TVK_REGISTER_OP("aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", transpose);
TVK_REGISTER_OP("aten::transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)", transpose_);
TVK_REGISTER_OP("aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)", permute);
TVK_REGISTER_OP("aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", chunk);
TVK_REGISTER_OP("aten::t(Tensor(a) self) -> Tensor(a)", t);
TVK_REGISTER_OP("aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
                "-> Tensor(a)",
                as_strided);
TVK_REGISTER_OP("aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", expand);
TVK_REGISTER_OP("aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
                contiguous);
TVK_REGISTER_OP("aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", copy_);
TVK_REGISTER_OP("aten::cat(Tensor[] tensors, int dim=0) -> Tensor", cat);
TVK_REGISTER_OP("aten::_cat(Tensor[] tensors, int dim=0) -> Tensor", cat_underscore);
TVK_REGISTER_OP("aten::stack(Tensor[] tensors, int dim=0) -> Tensor", stack);
TVK_REGISTER_OP_ANY_DEVICE("aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", unbind);
TVK_REGISTER_OP("aten::repeat(Tensor self, SymInt[] repeats) -> Tensor", repeat);
TVK_REGISTER_OP("aten::meshgrid(Tensor[] tensors) -> Tensor[]", meshgrid);
TVK_REGISTER_OP("aten::meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]", meshgrid_indexing);
TVK_REGISTER_OP("aten::roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", roll);
TVK_REGISTER_OP("aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor", constant_pad_nd);
TVK_REGISTER_OP("aten::pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor", pad);

}  // namespace tvk::ops::cpu
