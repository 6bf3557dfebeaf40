#include "ops/view_geometry.h"

#include <algorithm>
#include <limits>

#include "core/storage.h"
#include "ops/shape_utils.h"

namespace tvk::ops {

ViewGeometry geometry_of(const Tensor& t) { return {t.sizes(), t.strides(), t.storage_offset()}; }

ViewGeometry select_geometry(const Tensor& t, int64_t dim, int64_t index) {
  TVK_CHECK(t.dim() > 0, "aten::select: cannot select from a 0-D tensor");
  const int64_t d = wrap_dim("aten::select", dim, t.dim());
  const int64_t size = t.sizes()[d];
  TVK_CHECK(index >= -size && index < size, "aten::select: index ", index, " is out of range for dimension ", d,
            " of size ", size, " (tensor ", t.shape_string(), ")");
  if (index < 0) index += size;
  ViewGeometry g = geometry_of(t);
  g.offset += index * g.strides[d];
  g.sizes.erase(g.sizes.begin() + d);
  g.strides.erase(g.strides.begin() + d);
  return g;
}

ViewGeometry slice_geometry(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                            int64_t step) {
  TVK_CHECK(t.dim() > 0, "aten::slice: cannot slice a 0-D tensor");
  TVK_CHECK(step > 0, "aten::slice: step must be positive, got ", step);
  const int64_t d = wrap_dim("aten::slice", dim, t.dim());
  const int64_t size = t.sizes()[d];
  int64_t lo = start.value_or(0), hi = end.value_or(std::numeric_limits<int64_t>::max());
  if (lo < 0) lo += size;
  if (hi < 0) hi += size;
  lo = std::clamp<int64_t>(lo, 0, size);
  hi = std::clamp<int64_t>(hi, lo, size);
  ViewGeometry g = geometry_of(t);
  g.offset += lo * g.strides[d];
  // Written so that no step (one from a model file may be near INT64_MAX) overflows: with two
  // or more elements, step < size, so the product stays within the tensor's own reach.
  g.sizes[d] = hi == lo ? 0 : (hi - lo - 1) / step + 1;
  if (g.sizes[d] > 1) g.strides[d] *= step;
  return g;
}

ViewGeometry transpose_geometry(const char* op, const Tensor& t, int64_t dim0, int64_t dim1) {
  ViewGeometry g = geometry_of(t);
  const int64_t a = wrap_dim(op, dim0, t.dim()), b = wrap_dim(op, dim1, t.dim());
  if (t.dim() == 0) return g;
  std::swap(g.sizes[a], g.sizes[b]);
  std::swap(g.strides[a], g.strides[b]);
  return g;
}

ViewGeometry permute_geometry(const Tensor& t, const IntList& dims) {
  TVK_CHECK(static_cast<int64_t>(dims.size()) == t.dim(), "aten::permute: dims ", shape_string(dims),
            " do not match the rank of the input ", t.shape_string());
  ViewGeometry g{IntList(dims.size()), IntList(dims.size()), t.storage_offset()};
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim("aten::permute", dims[i], t.dim());
    TVK_CHECK(!seen[d], "aten::permute: dimension ", d, " appears twice in ", shape_string(dims));
    seen[d] = true;
    g.sizes[i] = t.sizes()[d];
    g.strides[i] = t.strides()[d];
  }
  return g;
}

ViewGeometry unsqueeze_geometry(const Tensor& t, int64_t dim) {
  const int64_t d = wrap_dim("aten::unsqueeze", dim, t.dim() + 1);
  ViewGeometry g = geometry_of(t);
  const int64_t stride = d < t.dim() ? g.sizes[d] * g.strides[d] : 1;
  g.sizes.insert(g.sizes.begin() + d, 1);
  g.strides.insert(g.strides.begin() + d, stride);
  return g;
}

ViewGeometry t_geometry(const Tensor& t) {
  TVK_CHECK(t.dim() <= 2, "aten::t: expected a tensor of rank <= 2, got ", t.shape_string());
  if (t.dim() < 2) return geometry_of(t);
  return transpose_geometry("aten::t", t, 0, 1);
}

ViewGeometry as_strided_geometry(const Tensor& t, const IntList& sizes, const IntList& strides,
                                 std::optional<int64_t> offset) {
  const char* op = "aten::as_strided";
  check_defined(op, t);
  TVK_CHECK(sizes.size() == strides.size(), op, ": sizes ", shape_string(sizes), " and strides ", shape_string(strides),
            " differ in rank");
  for (int64_t s : sizes) TVK_CHECK(s >= 0, op, ": negative size in ", shape_string(sizes));
  for (int64_t s : strides) TVK_CHECK(s >= 0, op, ": negative strides are not supported, got ", shape_string(strides));
  const int64_t at = offset.value_or(t.storage_offset());
  TVK_CHECK(at >= 0, op, ": negative storage offset ", at);
  TVK_CHECK(view_end_bytes(sizes, strides, at, element_size(t.dtype())) <= t.storage()->nbytes(), op, ": sizes ",
            shape_string(sizes), ", strides ", shape_string(strides), " and offset ", at, " reach past the end of its ",
            t.storage()->nbytes(), "-byte storage");
  return {sizes, strides, at};
}

ViewGeometry repeat_geometry(const char* op, const Tensor& t, const IntList& repeats, IntList* out_sizes) {
  check_defined(op, t);
  TVK_CHECK(repeats.size() >= static_cast<size_t>(t.dim()), op, ": ", repeats.size(), " repeats for a tensor of ",
            t.dim(), " dimensions (at least as many are needed)");
  const size_t lead = repeats.size() - static_cast<size_t>(t.dim());
  ViewGeometry g{{}, {}, t.storage_offset()};
  out_sizes->clear();
  for (size_t i = 0; i < repeats.size(); ++i) {
    TVK_CHECK(repeats[i] >= 0, op, ": negative repeat ", repeats[i]);
    const int64_t s = i < lead ? 1 : t.sizes()[i - lead];
    TVK_CHECK(s == 0 || repeats[i] <= (int64_t{1} << 40) / s, op, ": repeats ", shape_string(repeats), " of ",
              t.shape_string(), " make too large a tensor");
    out_sizes->push_back(repeats[i] * s);
    if (repeats[i] != 1) {
      g.sizes.push_back(repeats[i]);
      g.strides.push_back(0);
    }
    if (s != 1) {
      g.sizes.push_back(s);
      g.strides.push_back(t.strides()[i - lead]);
    }
  }
  return g;
}

ViewGeometry expand_geometry(const char* op, const Tensor& t, const IntList& sizes) {
  TVK_CHECK(sizes.size() >= static_cast<size_t>(t.dim()), op, ": cannot expand ", t.shape_string(), " to ",
            shape_string(sizes));
  const size_t shift = sizes.size() - static_cast<size_t>(t.dim());
  ViewGeometry g{sizes, IntList(sizes.size(), 0), t.storage_offset()};
  for (size_t i = 0; i < static_cast<size_t>(t.dim()); ++i) {
    const int64_t have = t.sizes()[i];
    TVK_CHECK(have == sizes[i + shift] || have == 1, op, ": cannot expand ", t.shape_string(), " to ",
              shape_string(sizes));
    g.strides[i + shift] = have == 1 ? 0 : t.strides()[i];
  }
  return g;
}

IntList flatten_sizes(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  if (t.dim() == 0) return {1};
  const int64_t s = wrap_dim("aten::flatten", start_dim, t.dim()), e = wrap_dim("aten::flatten", end_dim, t.dim());
  TVK_CHECK(s <= e, "aten::flatten: start_dim ", start_dim, " comes after end_dim ", end_dim, " for a tensor ",
            t.shape_string());
  IntList sizes(t.sizes().begin(), t.sizes().begin() + s);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= t.sizes()[d];
  sizes.push_back(merged);
  sizes.insert(sizes.end(), t.sizes().begin() + e + 1, t.sizes().end());
  return sizes;
}

}  // namespace tvk::ops

namespace tvk::ops {

ChunkPlan chunk_plan(const Tensor& t, int64_t chunks, int64_t dim) {
  TVK_CHECK(chunks > 0, "aten::chunk: chunk expects `chunks` to be greater than 0, got: ", chunks);
  TVK_CHECK(t.dim() > 0, "aten::chunk: chunk expects at least a 1-dimensional tensor");
  ChunkPlan plan;
  plan.dim = wrap_dim("aten::chunk", dim, t.dim());
  const int64_t size = t.size(plan.dim);
  if (size == 0) {
    plan.pieces.assign(static_cast<size_t>(chunks), {0, 0});
    return plan;
  }
  const int64_t split = (size + chunks - 1) / chunks;
  for (int64_t start = 0; start < size; start += split) plan.pieces.emplace_back(start, std::min(start + split, size));
  return plan;
}

}  // namespace tvk::ops
