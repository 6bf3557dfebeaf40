#include "ops/shape_utils.h"

#include "ops/registry.h"

#include <algorithm>

namespace tvk::ops {

IntList broadcast_shapes(const char* op, const IntList& a, const IntList& b) {
  const size_t rank = std::max(a.size(), b.size());
  IntList out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error(detail::concat(op, ": shapes ", shape_string(a), " and ", shape_string(b),
                                 " cannot be broadcast together (dimension ", i, ")"));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

IntList broadcast_strides(const Tensor& t, const IntList& sizes) {
  IntList strides(sizes.size(), 0);
  const size_t shift = sizes.size() - static_cast<size_t>(t.dim());
  for (size_t i = 0; i < static_cast<size_t>(t.dim()); ++i)
    strides[i + shift] = t.sizes()[i] == 1 ? 0 : t.strides()[i];
  return strides;
}

int64_t wrap_dim(const char* op, int64_t dim, int64_t rank) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r)
    throw Error(detail::concat(op, ": dimension ", dim, " is out of range for a tensor of rank ", rank,
                               " (expected in [", -r, ", ", r - 1, "])"));
  return dim < 0 ? dim + r : dim;
}

DimSplit split_at_dim(const char* op, const IntList& sizes, int64_t dim) {
  DimSplit s;
  if (sizes.empty()) return s;
  s.dim = wrap_dim(op, dim, static_cast<int64_t>(sizes.size()));
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    const int64_t n = sizes[static_cast<size_t>(i)];
    if (i < s.dim) s.outer *= n;
    else if (i == s.dim) s.size = n;
    else s.inner *= n;
  }
  return s;
}

IntList reduced_sizes(const char* op, const IntList& sizes, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) return keepdim ? IntList(sizes.size(), 1) : IntList{};
  IntList out = sizes;
  if (sizes.empty()) return out;
  const int64_t d = wrap_dim(op, *dim, static_cast<int64_t>(sizes.size()));
  if (keepdim) out[static_cast<size_t>(d)] = 1;
  else out.erase(out.begin() + d);
  return out;
}

void check_defined(const char* op, const Tensor& t, const char* arg) {
  TVK_CHECK(t.defined(), op, ": argument '", arg, "' is an undefined tensor");
}

void check_float(const char* op, const Tensor& t, const char* arg) {
  check_defined(op, t, arg);
  TVK_CHECK(t.dtype() == DType::Float32, op, ": argument '", arg, "' must be float32, got ", to_string(t.dtype()));
}

void check_rank(const char* op, const Tensor& t, int64_t min_rank, int64_t max_rank, const char* layout,
                const char* arg) {
  check_defined(op, t, arg);
  if (t.dim() >= min_rank && t.dim() <= max_rank) return;
  const std::string ranks = min_rank == max_rank ? std::to_string(min_rank)
                                                 : detail::concat(min_rank, "-D or ", max_rank);
  throw Error(detail::concat(op, ": expected a ", ranks, "-D ", arg, " ", layout, ", got ", t.shape_string()));
}

IntList expand_triple(const char* op, const char* arg, const IntList& values) {
  TVK_CHECK(values.size() == 1 || values.size() == 3, op, ": '", arg, "' must have 1 or 3 values, got ",
            shape_string(values));
  return values.size() == 1 ? IntList{values[0], values[0], values[0]} : values;
}

std::array<int64_t, 2> expand_pair(const char* op, const char* arg, const IntList& values) {
  TVK_CHECK(values.size() == 1 || values.size() == 2, op, ": '", arg, "' must have 1 or 2 values, got ",
            shape_string(values));
  return {values[0], values.back()};
}

IntList infer_size(const char* op, IntList shape, int64_t numel) {
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TVK_CHECK(infer < 0, op, ": only one dimension can be -1, got ", shape_string(shape));
      infer = static_cast<int64_t>(i);
    } else {
      TVK_CHECK(shape[i] >= 0, op, ": invalid size ", shape[i], " in ", shape_string(shape));
      TVK_CHECK(!__builtin_mul_overflow(known, shape[i], &known), op, ": shape ", shape_string(shape),
                " holds more elements than int64 counts");
    }
  }
  if (infer >= 0) {
    TVK_CHECK(known != 0 && numel % known == 0, op, ": shape ", shape_string(shape),
              " is invalid for an input of ", numel, " elements");
    shape[infer] = numel / known;
  }
  TVK_CHECK(numel_of(shape) == numel, op, ": shape ", shape_string(shape), " is invalid for an input of ", numel,
            " elements");
  return shape;
}

std::optional<IntList> view_strides(const IntList& sizes, const IntList& strides, const IntList& shape) {
  IntList out(shape.size(), 1);
  if (sizes.empty()) return contiguous_strides(shape);
  const int64_t numel = numel_of(sizes);
  if (numel == 0) return sizes == shape ? strides : contiguous_strides(shape);
  // Walk the old dims from the back in chunks that are contiguous among themselves; each chunk
  // must be covered exactly by a run of new dims.
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

CatPlan plan_cat(const char* op, const std::vector<Tensor>& tensors, int64_t dim) {
  TVK_CHECK(!tensors.empty(), op, ": expected a non-empty list of tensors");
  CatPlan plan;
  for (const Tensor& t : tensors) {
    check_defined(op, t, "tensors");
    TVK_CHECK(t.dtype() == tensors.front().dtype(), op, ": the tensors must share one dtype (",
              to_string(tensors.front().dtype()), " and ", to_string(t.dtype()), ")");
    if (!(t.dim() == 1 && t.numel() == 0)) plan.inputs.push_back(t);
  }
  if (plan.inputs.empty()) {
    plan.out_sizes = {0};
    return plan;
  }
  const Tensor& first = plan.inputs.front();
  TVK_CHECK(first.dim() > 0, op, ": zero-dimensional tensors cannot be concatenated");
  plan.dim = wrap_dim(op, dim, first.dim());
  plan.out_sizes = first.sizes();
  plan.out_sizes[plan.dim] = 0;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const Tensor& t = plan.inputs[i];
    bool same = t.dim() == first.dim();
    for (int64_t d = 0; same && d < t.dim(); ++d) same = d == plan.dim || t.sizes()[d] == first.sizes()[d];
    TVK_CHECK(same, op, ": tensor ", i, " of shape ", t.shape_string(), " does not match ", first.shape_string(),
              " outside dimension ", plan.dim);
    plan.out_sizes[plan.dim] += t.sizes()[plan.dim];
  }
  return plan;
}

std::pair<std::vector<Tensor>, int64_t> stack_as_cat(const char* op, const std::vector<Tensor>& tensors, int64_t dim) {
  TVK_CHECK(!tensors.empty(), op, ": expected a non-empty list of tensors");
  const int64_t d = wrap_dim(op, dim, tensors.front().dim() + 1);
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    check_defined(op, t, "tensors");
    TVK_CHECK(t.sizes() == tensors.front().sizes(), op, ": stack expects each tensor to be equal size, but got ",
              tensors.front().shape_string(), " at entry 0 and ", t.shape_string(), " at entry ", i);
    IntList sizes = t.sizes(), strides = t.strides();
    sizes.insert(sizes.begin() + d, 1);
    strides.insert(strides.begin() + d, 1);
    if (t.numel() == 0) parts.push_back(empty(sizes, t.dtype(), t.device()));
    else if (t.device() == Device::CPU) parts.push_back(t.as_strided(sizes, strides, t.storage_offset()));
    else parts.push_back(t.view(sizes));  // Vulkan tensors are contiguous
  }
  return {parts, d};
}

ReducePlan plan_reduce(const char* op, const Tensor& t, const std::optional<IntList>& dims, bool keepdim) {
  const int64_t rank = t.dim();
  std::vector<bool> reduced(static_cast<size_t>(rank), !dims || dims->empty());
  if (dims)
    for (int64_t d : *dims) {
      const int64_t w = wrap_dim(op, d, rank);
      if (rank == 0) continue;
      TVK_CHECK(!reduced[w], op, ": dimension ", w, " appears more than once in ", shape_string(*dims));
      reduced[w] = true;
    }
  ReducePlan plan;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) continue;
    plan.order.push_back(d);
    plan.rows *= t.sizes()[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      plan.out_sizes.push_back(t.sizes()[d]);
      continue;
    }
    plan.order.push_back(d);
    plan.cols *= t.sizes()[d];
    if (keepdim) plan.out_sizes.push_back(1);
  }
  return plan;
}

DType dtype_from_code(const char* op, std::optional<int64_t> code) {
  if (!code) return DType::Float32;
  switch (*code) {
    // tvk computes in float32, int64 and bool: the other floating and integer types widen to
    // them (arange(..., dtype=torch.int32), x.half() in a model's code).
    case 5: case 6: case 7: case 15: return DType::Float32;  // float16, float32, float64, bfloat16
    case 0: case 1: case 2: case 3: case 4: return DType::Int64;  // uint8, int8, int16, int32, int64
    case 11: return DType::Bool;
    default:
      throw Error(detail::concat(op, ": dtype code ", *code,
                                 " is not supported (floating types are computed in float32, integer types in "
                                 "int64; complex and quantized types are not)"));
  }
}

int64_t dtype_code(DType t) { return t == DType::Float32 ? 6 : t == DType::Int64 ? 4 : 11; }

Tensor to_dtype(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  return call("aten::to.dtype", {IValue(t), IValue(dtype_code(dtype)), IValue(false), IValue(false), IValue()}).toTensor();
}

void check_float_dtype_arg(const char* op, std::optional<int64_t> code) {
  TVK_CHECK(!code || dtype_from_code(op, code) == DType::Float32, op,
            ": only floating dtypes (computed in float32) are supported, got dtype code ", *code);
}

}  // namespace tvk::ops
