// ZipReader: read-only access to the records of a TorchScript archive (the zip that
// torch.jit.save writes). Treats the file as untrusted: every offset and size is checked.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tvk::jit {

class ZipReader {
 public:
  // Reads the whole file into memory and parses its central directory; throws tvk::Error.
  static ZipReader open(const std::string& path);
  // The same over bytes already in memory; `display_name` is what error messages call it.
  static ZipReader from_bytes(std::vector<uint8_t> bytes, std::string display_name);

  // The archive's top folder including the trailing '/', e.g. "mobilenet2/".
  const std::string& prefix() const { return prefix_; }
  const std::string& display_name() const { return name_; }

  // `record` is relative to the prefix ("data.pkl", "data/0") or an absolute entry name.
  bool has(const std::string& record) const;
  // The uncompressed bytes, CRC-checked. Throws tvk::Error naming the archive, record and offset.
  std::vector<uint8_t> read(const std::string& record) const;
  // Uncompressed size as the central directory declares it (checked against the limits).
  uint64_t size_of(const std::string& record) const;
  // Every entry name, relative to the prefix when it lies under it, in central-directory order.
  std::vector<std::string> records() const;

  // A record's stored (compressed) bytes, copied out of the archive so that it can be inflated
  // later, after the archive is gone: what a module keeps of records nobody has asked for yet.
  struct StoredRecord {
    std::string archive, record;
    uint16_t method = 0;
    uint64_t size = 0;
    uint32_t crc32 = 0;
    std::vector<uint8_t> data;
  };
  StoredRecord stored(const std::string& record) const;
  // Inflates and CRC-checks a stored record; throws tvk::Error as read() does.
  static std::vector<uint8_t> inflate(const StoredRecord& stored);

  // No record may inflate to more than this, whatever the archive claims.
  static constexpr uint64_t kMaxRecordSize = uint64_t{4} << 30;

 private:
  struct Entry {
    std::string name;  // full name, prefix included
    uint64_t header_offset = 0;
    uint64_t compressed_size = 0;
    uint64_t size = 0;
    uint32_t crc32 = 0;
    uint16_t method = 0;
  };

  ZipReader(std::vector<uint8_t> bytes, std::string name);
  void parse();
  const Entry* find(const std::string& record) const;
  const Entry& require(const std::string& record) const;
  [[noreturn]] void fail(const std::string& what, uint64_t offset, const std::string& message) const;
  // Where the record's stored bytes start, its local header checked against the directory.
  uint64_t data_offset(const Entry& e, const std::string& what) const;
  // The uncompressed, CRC-checked bytes of `data` (e's stored bytes at `offset` in `archive`).
  static std::vector<uint8_t> decode(const std::string& archive, const std::string& what, uint16_t method,
                                     uint64_t size, uint32_t crc32, const uint8_t* data, uint64_t compressed_size,
                                     uint64_t offset);

  std::vector<uint8_t> bytes_;
  std::string name_;
  std::string prefix_;
  std::vector<Entry> entries_;
  std::map<std::string, size_t> index_;  // full name -> entries_ index
};

}  // namespace tvk::jit
