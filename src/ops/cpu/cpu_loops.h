// Strided loops for the CPU reference kernels: plain and obviously right, not fast.
#pragma once

#include <array>
#include <cstdint>

#include "tvk/tensor.h"

namespace tvk::ops::cpu {

// Visits every index of `sizes` in row-major order, calling fn(i, off[0], ..., off[N-1]) where
// i is the linear index and off[k] the element offset for the k-th stride list.
template <size_t N, typename F>
void strided_loop(const IntList& sizes, const std::array<IntList, N>& strides, F&& fn) {
  const int64_t n = numel_of(sizes);
  const size_t rank = sizes.size();
  IntList index(rank, 0);
  std::array<int64_t, N> off{};
  for (int64_t i = 0; i < n; ++i) {
    std::apply([&](auto... o) { fn(i, o...); }, off);
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (index[d] < sizes[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * index[d];
      index[d] = 0;
    }
  }
}

// dst[...] = src, src broadcast to dst's shape and converted to dst's dtype; dst may be a
// strided view (ops/cpu/shape.cpp).
void copy_converting(const Tensor& dst, const Tensor& src);

// out[i] = f(in[i]) over any strided float input; out is a new contiguous tensor.
template <typename F>
Tensor map_float(const Tensor& in, F&& f) {
  Tensor out = empty(in.sizes());
  const float* src = in.data<float>();
  float* dst = out.data<float>();
  strided_loop<1>(in.sizes(), {in.strides()}, [&](int64_t i, int64_t o) { dst[i] = f(src[o]); });
  return out;
}

// In place: t[i] = f(t[i]) over a strided float tensor.
template <typename F>
void apply_float(const Tensor& t, F&& f) {
  float* p = t.data<float>();
  strided_loop<1>(t.sizes(), {t.strides()}, [&](int64_t, int64_t o) { p[o] = f(p[o]); });
}

}  // namespace tvk::ops::cpu
