// Tensor storages as archive records: reading `data/<key>` into a flat tvk tensor (the usual
// UnpicklerHooks::load_storage) and the byte image a writer stores for a tensor's storage.
#pragma once

#include <cstdint>
#include <string>

#include "tvk/tensor.h"

namespace tvk::jit {

class ZipReader;

// Reads `record` (e.g. "data/3") as `numel` elements of torch.<storage_type>, checking that
// the record holds exactly numel * element size bytes. Throws tvk::Error naming the record.
Tensor read_storage_record(const ZipReader& zip, const std::string& record, const std::string& storage_type,
                           int64_t numel);

// "FloatStorage" / "LongStorage" / "BoolStorage" for the dtypes tvk tensors hold.
const char* storage_type_name(DType dtype);

}  // namespace tvk::jit
