// Element types a tvk::Tensor can hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tvk {

enum class DType : uint8_t { Float32, Int64, Bool };

constexpr size_t element_size(DType t) {
  switch (t) {
    case DType::Float32: return 4;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
  }
  return 0;
}

const char* to_string(DType t);

template <typename T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::Float32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };

}  // namespace tvk
