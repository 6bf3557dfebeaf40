// Little-endian loads and stores of fixed-width integers, shared by the file-format readers and
// writers (zip, pickle, npy). memcpy-based so unaligned input is fine on every target.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace tvk {

template <typename T>
inline T load_le(const uint8_t* p) {
  // Assembled byte by byte so the result does not depend on the host byte order.
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>(v | (static_cast<T>(p[i]) << (8 * i)));
  return v;
}

template <typename T>
inline void append_le(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF));
}

}  // namespace tvk
