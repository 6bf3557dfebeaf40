#include "ops/shape_utils.h"

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

void check_defined(const char* op, const Tensor& t, const char* arg) {
  TVK_CHECK(t.defined(), op, ": argument '", arg, "' is an undefined tensor");
}

void check_float(const char* op, const Tensor& t, const char* arg) {
  check_defined(op, t, arg);
  TVK_CHECK(t.dtype() == DType::Float32, op, ": argument '", arg, "' must be float32, got ", to_string(t.dtype()));
}

}  // namespace tvk::ops
