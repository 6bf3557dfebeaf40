// ZipWriter: byte layout follows caffe2/serialize/inline_container.cc (miniz with ZIP64 and the
// "FB" alignment extra), so torch.jit.load and Python's zipfile read what we write.
#include "jit/serialization/zip_writer.h"

#include <zlib.h>

#include <cstdio>
#include <limits>

#include "core/little_endian.h"
#include "tvk/error.h"

namespace tvk::jit {
namespace {

constexpr uint64_t kAlignment = 64;  // kFieldAlignment: tensor data can be mmapped in place
constexpr size_t kMinToCompress = 200;
constexpr uint64_t k32 = 0xFFFFFFFF;

bool compressible(const std::string& record, size_t size) {
  const bool code = record.rfind("code/", 0) == 0;
  const bool debug = record.size() >= 10 && record.compare(record.size() - 10, 10, ".debug_pkl") == 0;
  return (code || debug) && size > kMinToCompress;
}

std::string deflate_raw(const void* data, size_t size, const std::string& name) {
  z_stream z{};
  TVK_CHECK(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK,
            "zlib deflateInit2 failed for '", name, "'");
  struct End {
    z_stream* z;
    ~End() { deflateEnd(z); }
  } end{&z};
  TVK_CHECK(size <= std::numeric_limits<uInt>::max() / 2, "record '", name, "' is too large to compress");
  std::string out(deflateBound(&z, static_cast<uLong>(size)), '\0');
  z.next_in = static_cast<Bytef*>(const_cast<void*>(data));
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  TVK_CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END, "zlib deflate failed for '", name, "'");
  out.resize(z.total_out);
  return out;
}

uint32_t crc_of(const void* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  while (size > 0) {
    const uInt n = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, p, n);
    p += n;
    size -= n;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

ZipWriter::ZipWriter(std::string top_folder, Options options) : top_(std::move(top_folder)), options_(options) {
  TVK_CHECK(!top_.empty() && top_.find('/') == std::string::npos, "zip top folder '", top_,
            "' must be one non-empty path component");
  top_ += '/';
}

ZipWriter::ZipWriter(const std::string& path, std::string top_folder, Options options)
    : ZipWriter(std::move(top_folder), options) {
  path_ = path;
  file_.open(path, std::ios::binary | std::ios::trunc);
  TVK_CHECK(file_.good(), "cannot open '", path, "' for writing");
}

ZipWriter ZipWriter::in_memory(std::string top_folder, Options options) {
  return ZipWriter(std::move(top_folder), options);
}

ZipWriter::~ZipWriter() {
  if (!path_.empty() && !finished_) {
    file_.close();
    std::remove(path_.c_str());
  }
}

void ZipWriter::write(const void* data, size_t size) {
  if (path_.empty()) {
    const auto* p = static_cast<const uint8_t*>(data);
    memory_.insert(memory_.end(), p, p + size);
  } else {
    file_.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    TVK_CHECK(file_.good(), "writing '", path_, "' failed at offset ", offset_);
  }
  offset_ += size;
}

bool ZipWriter::zip64_for(uint64_t size, uint64_t offset) const {
  return options_.force_zip64 || size >= k32 || offset >= k32;
}

void ZipWriter::add(const std::string& record, const void* data, size_t size) {
  TVK_CHECK(!finished_, "ZipWriter: add('", record, "') after finish()");
  TVK_CHECK(!record.empty() && record[0] != '/' && record.find('\\') == std::string::npos &&
                record.find("..") == std::string::npos,
            "ZipWriter: invalid record name '", record, "'");
  const std::string name = top_ + record;
  TVK_CHECK(name.size() <= 0xFFFF, "ZipWriter: record name '", record, "' is too long");
  TVK_CHECK(names_.insert(name).second, "ZipWriter: record '", record, "' added twice");

  Entry e{name, offset_, size, size, crc_of(data, size), 0, static_cast<uint16_t>(size > 0 ? 0x0808 : 0x0800)};
  std::string deflated;
  const void* payload = data;
  if (compressible(record, size)) {
    deflated = deflate_raw(data, size, name);
    e.method = 8;
    e.compressed_size = deflated.size();
    payload = deflated.data();
  }
  const bool z64 = zip64_for(e.size, e.offset);

  // Local header: CRC and sizes are zero here and follow the data in a descriptor (bit 3).
  std::string extra;
  if (z64) {
    // Same layout as miniz: sizes (only when large) and offset (only when large) - forced: both.
    const bool big_size = options_.force_zip64 || e.size >= k32;
    const bool big_offset = options_.force_zip64 || e.offset >= k32;
    append_le<uint16_t>(extra, 0x0001);
    append_le<uint16_t>(extra, static_cast<uint16_t>((big_size ? 16 : 0) + (big_offset ? 8 : 0)));
    if (big_size) {
      append_le<uint64_t>(extra, e.size);
      append_le<uint64_t>(extra, e.compressed_size);
    }
    if (big_offset) append_le<uint64_t>(extra, e.offset);
  }
  // "FB" extra padded with 'Z' so the data starts on a 64-byte boundary.
  const uint64_t start = e.offset + 30 + name.size() + extra.size() + 4;
  const uint64_t padding = (kAlignment - start % kAlignment) % kAlignment;
  append_le<uint16_t>(extra, 0x4246);
  append_le<uint16_t>(extra, static_cast<uint16_t>(padding));
  extra.append(padding, 'Z');

  std::string h;
  append_le<uint32_t>(h, 0x04034b50);
  append_le<uint16_t>(h, e.method == 8 ? 20 : 0);  // version needed
  append_le<uint16_t>(h, e.flags);
  append_le<uint16_t>(h, e.method);
  append_le<uint32_t>(h, 0);  // DOS time and date: torch writes 0
  append_le<uint32_t>(h, 0);  // crc
  append_le<uint32_t>(h, 0);  // compressed size
  append_le<uint32_t>(h, 0);  // size
  append_le<uint16_t>(h, static_cast<uint16_t>(name.size()));
  append_le<uint16_t>(h, static_cast<uint16_t>(extra.size()));
  h += name;
  h += extra;
  write(h);
  write(payload, e.compressed_size);

  std::string d;
  append_le<uint32_t>(d, 0x08074b50);
  append_le<uint32_t>(d, e.crc32);
  if (z64) {
    append_le<uint64_t>(d, e.compressed_size);
    append_le<uint64_t>(d, e.size);
  } else {
    append_le<uint32_t>(d, static_cast<uint32_t>(e.compressed_size));
    append_le<uint32_t>(d, static_cast<uint32_t>(e.size));
  }
  if (size > 0) write(d);  // miniz writes no descriptor for empty records (flag bit 3 clear)
  entries_.push_back(std::move(e));
}

void ZipWriter::finish() {
  TVK_CHECK(!finished_, "ZipWriter: finish() called twice");
  if (!names_.count(top_ + "version") && !names_.count(top_ + ".data/version"))
    add("version", std::to_string(options_.version) + "\n");

  const uint64_t cd_offset = offset_;
  for (const Entry& e : entries_) {
    const bool z64 = zip64_for(e.size, e.offset);
    std::string extra;
    if (z64) {
      append_le<uint16_t>(extra, 0x0001);
      append_le<uint16_t>(extra, 24);
      append_le<uint64_t>(extra, e.size);
      append_le<uint64_t>(extra, e.compressed_size);
      append_le<uint64_t>(extra, e.offset);
    }
    std::string c;
    append_le<uint32_t>(c, 0x02014b50);
    append_le<uint16_t>(c, 0);                                 // version made by
    append_le<uint16_t>(c, z64 ? 45 : (e.method == 8 ? 20 : 0));  // version needed
    append_le<uint16_t>(c, e.flags);
    append_le<uint16_t>(c, e.method);
    append_le<uint32_t>(c, 0);  // time, date
    append_le<uint32_t>(c, e.crc32);
    append_le<uint32_t>(c, z64 ? static_cast<uint32_t>(k32) : static_cast<uint32_t>(e.compressed_size));
    append_le<uint32_t>(c, z64 ? static_cast<uint32_t>(k32) : static_cast<uint32_t>(e.size));
    append_le<uint16_t>(c, static_cast<uint16_t>(e.name.size()));
    append_le<uint16_t>(c, static_cast<uint16_t>(extra.size()));
    append_le<uint16_t>(c, 0);  // comment
    append_le<uint16_t>(c, 0);  // disk
    append_le<uint16_t>(c, 0);  // internal attributes
    append_le<uint32_t>(c, 0);  // external attributes
    append_le<uint32_t>(c, z64 ? static_cast<uint32_t>(k32) : static_cast<uint32_t>(e.offset));
    c += e.name;
    c += extra;
    write(c);
  }
  const uint64_t cd_size = offset_ - cd_offset;
  const uint64_t count = entries_.size();

  // ZIP64 end record + locator, always (as torch), then the classic end record.
  const uint64_t eocd64 = offset_;
  std::string t;
  append_le<uint32_t>(t, 0x06064b50);
  append_le<uint64_t>(t, 44);  // size of the rest of this record
  append_le<uint16_t>(t, 45);
  append_le<uint16_t>(t, 45);
  append_le<uint32_t>(t, 0);
  append_le<uint32_t>(t, 0);
  append_le<uint64_t>(t, count);
  append_le<uint64_t>(t, count);
  append_le<uint64_t>(t, cd_size);
  append_le<uint64_t>(t, cd_offset);
  append_le<uint32_t>(t, 0x07064b50);
  append_le<uint32_t>(t, 0);
  append_le<uint64_t>(t, eocd64);
  append_le<uint32_t>(t, 1);
  const bool saturate = options_.force_zip64;
  append_le<uint32_t>(t, 0x06054b50);
  append_le<uint16_t>(t, 0);
  append_le<uint16_t>(t, 0);
  append_le<uint16_t>(t, static_cast<uint16_t>(saturate || count >= 0xFFFF ? 0xFFFF : count));
  append_le<uint16_t>(t, static_cast<uint16_t>(saturate || count >= 0xFFFF ? 0xFFFF : count));
  append_le<uint32_t>(t, static_cast<uint32_t>(saturate || cd_size >= k32 ? k32 : cd_size));
  append_le<uint32_t>(t, static_cast<uint32_t>(saturate || cd_offset >= k32 ? k32 : cd_offset));
  append_le<uint16_t>(t, 0);
  write(t);
  if (!path_.empty()) {
    file_.close();
    TVK_CHECK(!file_.fail(), "closing '", path_, "' failed");
  }
  finished_ = true;
}

const std::vector<uint8_t>& ZipWriter::bytes() const {
  TVK_CHECK(path_.empty(), "ZipWriter::bytes(): this writer writes to '", path_, "'");
  TVK_CHECK(finished_, "ZipWriter::bytes() before finish()");
  return memory_;
}

}  // namespace tvk::jit
