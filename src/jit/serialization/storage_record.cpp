// Storage records: validated conversion between `data/<key>` bytes and flat CPU tensors.
#include "jit/serialization/storage_record.h"

#include <bit>
#include <cstring>

#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"
#include "tvk/error.h"

namespace tvk::jit {

Tensor read_storage_record(const ZipReader& zip, const std::string& record, const std::string& storage_type,
                           int64_t numel) {
  static_assert(std::endian::native == std::endian::little, "storage records are little-endian");
  const DType dtype = storage_dtype(storage_type);
  const uint64_t es = element_size(dtype);
  TVK_CHECK(numel >= 0 && static_cast<uint64_t>(numel) <= ZipReader::kMaxRecordSize / es, zip.display_name(),
            ": storage record '", record, "' declares ", numel, " elements");
  const uint64_t nbytes = static_cast<uint64_t>(numel) * es;
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
  if (nbytes > 0) std::memcpy(out.raw_data(), bytes.data(), nbytes);
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
