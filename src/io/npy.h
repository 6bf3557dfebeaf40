// NumPy .npy files <-> tvk tensors (float32, int64 and bool; C order), so tests and tools can
// exchange reference data with Python. Files are untrusted input: the header is fully validated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvk/tensor.h"

namespace tvk::io {

// Reads a version 1.0/2.0/3.0 .npy of dtype '<f4', '<i8' or '|b1' in C order into a CPU tensor.
// Throws tvk::Error naming the file and the byte offset of what is wrong.
Tensor read_npy(const std::string& path);
Tensor parse_npy(const std::vector<uint8_t>& bytes, const std::string& display_name);

// Writes a version 1.0 .npy (2.0 when the header needs it) of any CPU or Vulkan tensor.
void write_npy(const std::string& path, const Tensor& tensor);
std::vector<uint8_t> npy_bytes(const Tensor& tensor);

}  // namespace tvk::io
