#include "ops/index_plan.h"

#include "ops/shape_utils.h"

namespace tvk::ops {

IndexPlan index_plan(const char* op, const Tensor& self, const std::vector<Tensor>& indices) {
  check_defined(op, self);
  TVK_CHECK(static_cast<int64_t>(indices.size()) <= self.dim(), op, ": too many indices (", indices.size(),
            ") for a tensor of shape ", self.shape_string());
  int64_t first = -1, last = -1;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined()) continue;
    TVK_CHECK(indices[d].dtype() == DType::Int64, op, ": index ", d, " must be an int64 tensor, got ",
              to_string(indices[d].dtype()), " (boolean masks are not supported)");
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
