#include "ops/index_plan.h"

#include <algorithm>

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

std::vector<DimGather> flip_plan(const char* op, const Tensor& self, const IntList& dims) {
  check_defined(op, self);
  std::vector<DimGather> plan;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(op, d, self.dim());
    TVK_CHECK(!seen[static_cast<size_t>(w)], op, ": dim ", w, " appears multiple times in the list of dims");
    seen[static_cast<size_t>(w)] = true;
    if (self.dim() == 0) continue;
    const int64_t n = self.sizes()[static_cast<size_t>(w)];
    DimGather g{w, std::vector<int64_t>(static_cast<size_t>(n))};
    for (int64_t i = 0; i < n; ++i) g.rows[static_cast<size_t>(i)] = n - 1 - i;
    plan.push_back(std::move(g));
  }
  return plan;
}

std::vector<DimGather> pad_plan_by_rows(const char* op, const Tensor& self, const IntList& pad, const std::string& mode) {
  check_defined(op, self);
  TVK_CHECK(mode == "reflect" || mode == "replicate" || mode == "circular", op, ": padding mode \"", mode,
            "\" is not supported (constant, reflect, replicate, circular)");
  TVK_CHECK(pad.size() % 2 == 0, op, ": padding length must be divisible by 2, got ", pad.size());
  const int64_t k = static_cast<int64_t>(pad.size()) / 2;
  TVK_CHECK(k <= self.dim(), op, ": padding of ", k, " dimensions for a tensor of shape ", self.shape_string());
  std::vector<DimGather> plan;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t dim = self.dim() - 1 - j, n = self.sizes()[static_cast<size_t>(dim)];
    const int64_t before = pad[static_cast<size_t>(2 * j)], after = pad[static_cast<size_t>(2 * j + 1)];
    if (before == 0 && after == 0) continue;
    if (mode == "reflect")
      TVK_CHECK(before < n && after < n, op, ": reflection padding (", before, ", ", after,
                ") must be less than the size ", n, " of dimension ", dim, " of input of shape ", self.shape_string());
    if (mode == "circular")
      TVK_CHECK(before <= n && after <= n, op, ": circular padding (", before, ", ", after,
                ") must be at most the size ", n, " of dimension ", dim, " of input of shape ", self.shape_string());
    TVK_CHECK(n > 0, op, ": ", mode, " padding of the empty dimension ", dim, " of input of shape ",
              self.shape_string());
    int64_t out = 0;
    TVK_CHECK(!__builtin_add_overflow(n, before, &out) && !__builtin_add_overflow(out, after, &out) && out >= 0, op,
              ": padding (", before, ", ", after, ") of dimension ", dim, " of size ", n, " gives a negative or overflowing size");
    (void)numel_of([&] {
      IntList s = self.sizes();
      s[static_cast<size_t>(dim)] = out;
      return s;
    }());
    DimGather g{dim, std::vector<int64_t>(static_cast<size_t>(out))};
    for (int64_t o = 0; o < out; ++o) {
      int64_t i = o - before;
      if (mode == "reflect") i = i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
      else if (mode == "replicate") i = std::min(std::max<int64_t>(i, 0), n - 1);
      else i = ((i % n) + n) % n;
      g.rows[static_cast<size_t>(o)] = i;
    }
    plan.push_back(std::move(g));
  }
  return plan;
}

Tensor run_gathers(const Tensor& self, const std::vector<DimGather>& plan) {
  if (plan.empty()) return call("aten::clone", {IValue(self), IValue()}).toTensor();
  Tensor x = self;
  for (const DimGather& g : plan)
    x = call("tvk::gather_dim", {IValue(x), IValue(g.dim), IValue(IntList(g.rows))}).toTensor();
  return x;
}

}  // namespace tvk::ops
