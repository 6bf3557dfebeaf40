// Storage records: validated conversion between `data/<key>` bytes and flat CPU tensors.
#include "jit/serialization/storage_record.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"
#include "tvk/error.h"

namespace tvk::jit {

namespace {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);  // zero or subnormal
  } else if (exponent == 31) {
    value = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  return sign ? -value : value;
}

template <typename From>
From load(const uint8_t* p) {
  From v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Converts `count` stored elements (little-endian) into `out`'s float32 or int64 elements.
void convert(StorageFormat::Kind kind, const uint8_t* in, int64_t count, const Tensor& out) {
  using K = StorageFormat::Kind;
  for (int64_t i = 0; i < count; ++i) {
    switch (kind) {
      case K::Float64: out.data<float>()[i] = static_cast<float>(load<double>(in + 8 * i)); break;
      case K::Float16: out.data<float>()[i] = half_to_float(load<uint16_t>(in + 2 * i)); break;
      case K::Int32: out.data<int64_t>()[i] = load<int32_t>(in + 4 * i); break;
      case K::Int16: out.data<int64_t>()[i] = load<int16_t>(in + 2 * i); break;
      case K::Int8: out.data<int64_t>()[i] = load<int8_t>(in + i); break;
      case K::UInt8: out.data<int64_t>()[i] = load<uint8_t>(in + i); break;
      case K::Same: break;
    }
  }
}

}  // namespace

Tensor read_storage_record(const ZipReader& zip, const std::string& record, const std::string& storage_type,
                           int64_t numel) {
  static_assert(std::endian::native == std::endian::little, "storage records are little-endian");
  const StorageFormat format = storage_format(storage_type);
  const DType dtype = format.dtype;
  const uint64_t es = std::max<uint64_t>(format.stored_bytes, element_size(dtype));
  TVK_CHECK(numel >= 0 && static_cast<uint64_t>(numel) <= ZipReader::kMaxRecordSize / es, zip.display_name(),
            ": storage record '", record, "' declares ", numel, " elements");
  const uint64_t nbytes = static_cast<uint64_t>(numel) * format.stored_bytes;
  // torch may omit the bytes of an empty storage.
  if (nbytes == 0 && !zip.has(record)) return empty({0}, dtype);
  const uint64_t actual = zip.size_of(record);
  TVK_CHECK(actual == nbytes, zip.display_name(), ": record '", record, "' holds ", actual, " bytes, but the pickle declares ",
            numel, " elements of torch.", storage_type, " (", nbytes, " bytes)");
  // Allocated only now that the record is known to hold that many bytes.
  Tensor out = empty({numel}, dtype);
  const std::vector<uint8_t> bytes = zip.read(record);
  if (dtype == DType::Bool) {
    // Any other byte in a C++ bool is undefined behaviour, so refuse it here.
    for (size_t i = 0; i < bytes.size(); ++i)
      TVK_CHECK(bytes[i] <= 1, zip.display_name(), ": record '", record, "' byte ", i, " is ", int{bytes[i]},
                ", not a bool");
  }
  if (format.kind != StorageFormat::Kind::Same) convert(format.kind, bytes.data(), numel, out);
  else if (nbytes > 0) std::memcpy(out.raw_data(), bytes.data(), nbytes);
  return out;
}

const char* storage_type_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "FloatStorage";
    case DType::Int64: return "LongStorage";
    case DType::Bool: return "BoolStorage";
  }
  throw Error("unknown dtype");
}

}  // namespace tvk::jit
