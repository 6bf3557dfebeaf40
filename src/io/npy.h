// NumPy .npy files <-> tvk tensors (float32, int64 and bool; C order), so tests and tools can
// exchange reference data with Python. Files are untrusted input: the header is fully validated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvk/tensor.h"

namespace tvk::io {

// Reads a version 1.0/2.0/3.0 .npy in C order into a CPU tensor: '<f4', '<f2' and '<f8' as
// float32, '<i8', '<i4', '<i2', '|i1' and '|u1' as int64, '|b1' as bool.
// Throws tvk::Error naming the file and the byte offset of what is wrong.
Tensor read_npy(const std::string& path);
Tensor parse_npy(const std::vector<uint8_t>& bytes, const std::string& display_name);

// An IEEE half's value (exact in float).
float half_to_float(uint16_t bits);

// Writes a version 1.0 .npy (2.0 when the header needs it) of any CPU or Vulkan tensor.
void write_npy(const std::string& path, const Tensor& tensor);
std::vector<uint8_t> npy_bytes(const Tensor& tensor);

}  // namespace tvk::io
