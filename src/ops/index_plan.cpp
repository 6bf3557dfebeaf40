#include "ops/index_plan.h"

#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops {

namespace {

// A bool mask over k dimensions stands for k int64 indices: the coordinates of its true
// elements, torch.where(mask) (as PyTorch's x[mask] does through nonzero). Masks are host
// tensors here, so that runs the CPU kernel.
std::vector<Tensor> masks_as_indices(const char* op, const Tensor& self, const std::vector<Tensor>& indices) {
  std::vector<Tensor> out;
  for (const Tensor& index : indices) {
    if (!index.defined() || index.dtype() != DType::Bool) {
      out.push_back(index);
      continue;
    }
    const int64_t d = static_cast<int64_t>(out.size()), k = index.dim();
    TVK_CHECK(d + k <= self.dim(), op, ": a mask of shape ", index.shape_string(), " at dimension ", d,
              " goes beyond the indexed tensor of shape ", self.shape_string());
    for (int64_t i = 0; i < k; ++i)
      TVK_CHECK(index.sizes()[i] == self.sizes()[d + i], op, ": the shape of the mask ", index.shape_string(),
                " at index ", i, " does not match the shape of the indexed tensor ", self.shape_string(),
                " at dimension ", d + i);
    TVK_CHECK(k > 0, op, ": 0-D boolean masks are not supported");
    const std::vector<Tensor> coords = call("aten::where", {IValue(index)}).toTensorList();  // one per mask dim
    out.insert(out.end(), coords.begin(), coords.end());
  }
  return out;
}

}  // namespace

IndexPlan index_plan(const char* op, const Tensor& self, const std::vector<Tensor>& given) {
  check_defined(op, self);
  const std::vector<Tensor> indices = masks_as_indices(op, self, given);
  TVK_CHECK(static_cast<int64_t>(indices.size()) <= self.dim(), op, ": too many indices (", indices.size(),
            ") for a tensor of shape ", self.shape_string());
  int64_t first = -1, last = -1;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined()) continue;
    TVK_CHECK(indices[d].dtype() == DType::Int64, op, ": index ", d, " must be an int64 or bool tensor, got ",
              to_string(indices[d].dtype()));
    if (first < 0) first = static_cast<int64_t>(d);
    TVK_CHECK(last < 0 || last == static_cast<int64_t>(d) - 1, op,
              ": tensor indices separated by a full slice are not supported");
    last = static_cast<int64_t>(d);
  }
  TVK_CHECK(first >= 0, op, ": at least one index must be a tensor");
  IntList shape = indices[static_cast<size_t>(first)].sizes();
  for (int64_t d = first + 1; d <= last; ++d) shape = broadcast_shapes(op, shape, indices[static_cast<size_t>(d)].sizes());

  IndexPlan p;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t s = self.sizes()[d];
    if (d < first) p.outer *= s;
    else if (d <= last) p.size *= s;
    else p.inner *= s;
  }
  p.out_sizes.assign(self.sizes().begin(), self.sizes().begin() + first);
  p.out_sizes.insert(p.out_sizes.end(), shape.begin(), shape.end());
  p.out_sizes.insert(p.out_sizes.end(), self.sizes().begin() + last + 1, self.sizes().end());

  const int64_t count = numel_of(shape);
  p.rows.assign(static_cast<size_t>(count), 0);
  int64_t block = 1;  // rows of the indexed block per step of dimension d
  for (int64_t d = last; d >= first; --d) {
    const Tensor idx = indices[static_cast<size_t>(d)].contiguous();
    const int64_t size = self.sizes()[d];
    const IntList strides = broadcast_strides(idx, shape);
    const int64_t* values = idx.data<int64_t>();
    for (int64_t i = 0; i < count; ++i) {
      int64_t at = 0, rest = i;  // i's coordinates in `shape`, through idx's broadcast strides
      for (int64_t k = static_cast<int64_t>(shape.size()) - 1; k >= 0; --k) {
        at += (rest % shape[k]) * strides[k];
        rest /= shape[k];
      }
      int64_t v = values[at];
      TVK_CHECK(v >= -size && v < size, op, ": index ", v, " is out of bounds for dimension ", d, " with size ", size);
      if (v < 0) v += size;
      p.rows[static_cast<size_t>(i)] += v * block;
    }
    block *= size;
  }
  return p;
}

std::vector<Tensor> optional_tensor_list(const IValue& list) {
  std::vector<Tensor> out;
  for (const IValue& v : list.toList()) out.push_back(v.isNone() ? Tensor() : v.toTensor());
  return out;
}

}  // namespace tvk::ops
