// ZipWriter: writes a TorchScript archive the way PyTorch's miniz-based writer does (one top
// folder, 64-byte aligned record data, data descriptors, ZIP64 end records, a `version` record).
#pragma once

#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace tvk::jit {

struct ZipWriterOptions {
  // Write ZIP64 extra fields for every record even when nothing needs them (tests use this to
  // exercise the >4 GiB code paths without writing 4 GiB).
  bool force_zip64 = false;
  // Contents of the `version` record finish() adds (torch 1.13 reads 1..10; 3 is the oldest
  // it writes, for code calling none of the ops whose meaning changed since).
  uint64_t version = 3;
};

class ZipWriter {
 public:
  using Options = ZipWriterOptions;

  // Streams records into the file at `path`; every record goes under "<top_folder>/".
  ZipWriter(const std::string& path, std::string top_folder, Options options);
  ZipWriter(const std::string& path, std::string top_folder) : ZipWriter(path, std::move(top_folder), Options{}) {}
  // Builds the archive in memory; take it with bytes() after finish().
  static ZipWriter in_memory(std::string top_folder, Options options = {});  // (guaranteed elision)
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;
  // A file writer that was never finished deletes its file, so no half archive is left behind.
  ~ZipWriter();

  // Adds `<top_folder>/<record>`. Records under code/ and *.debug_pkl above 200 bytes are
  // deflated, everything else stored, as torch does.
  void add(const std::string& record, const void* data, size_t size);
  void add(const std::string& record, const std::vector<uint8_t>& data) { add(record, data.data(), data.size()); }
  void add(const std::string& record, const std::string& data) { add(record, data.data(), data.size()); }
  // Writes the `version` record (unless one was added), the central directory and end records.
  void finish();
  bool finished() const { return finished_; }
  const std::vector<uint8_t>& bytes() const;

 private:
  struct Entry {
    std::string name;
    uint64_t offset, compressed_size, size;
    uint32_t crc32;
    uint16_t method, flags;
  };
  ZipWriter(std::string top_folder, Options options);
  void write(const void* data, size_t size);
  void write(const std::string& s) { write(s.data(), s.size()); }
  bool zip64_for(uint64_t size, uint64_t offset) const;

  std::string path_;  // empty: in memory
  std::ofstream file_;
  std::vector<uint8_t> memory_;
  std::string top_;
  Options options_;
  uint64_t offset_ = 0;
  std::vector<Entry> entries_;
  std::set<std::string> names_;
  bool finished_ = false;
};

}  // namespace tvk::jit
