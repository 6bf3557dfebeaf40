// Tensor storages as archive records: reading `data/<key>` into a flat tvk tensor (the usual
// UnpicklerHooks::load_storage) and the byte image a writer stores for a tensor's storage.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tvk/tensor.h"

namespace tvk::jit {

class ZipReader;

// Reads `record` (e.g. "data/3") as `numel` elements of torch.<storage_type>, checking that
// the record holds exactly numel * element size bytes. Throws tvk::Error naming the record.
Tensor read_storage_record(const ZipReader& zip, const std::string& record, const std::string& storage_type,
                           int64_t numel);

// Tensor storages of one pickle: `<folder>/<key>` records, each loaded once.
class StorageLoader {
 public:
  StorageLoader(const ZipReader& zip, std::string folder) : zip_(zip), folder_(std::move(folder)) {}

  Tensor operator()(const std::string& key, const std::string& storage_type, int64_t numel, const std::string& = {}) {
    auto it = loaded_.find(key);
    if (it != loaded_.end()) return it->second;
    Tensor t = read_storage_record(zip_, folder_ + "/" + key, storage_type, numel);
    loaded_.emplace(key, t);
    return t;
  }

 private:
  const ZipReader& zip_;
  std::string folder_;
  std::map<std::string, Tensor> loaded_;
};

// "FloatStorage" / "LongStorage" / "BoolStorage" for the dtypes tvk tensors hold.
const char* storage_type_name(DType dtype);

}  // namespace tvk::jit
