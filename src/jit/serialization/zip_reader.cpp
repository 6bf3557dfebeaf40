// ZipReader: central-directory driven parsing (stored + deflate, ZIP64) with bounds checks on
// every field, because model files come from anywhere.
#include "jit/serialization/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/little_endian.h"
#include "core/run_scope.h"
#include "tvk/error.h"

namespace tvk::jit {
namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEocdSig = 0x06054b50;
constexpr uint32_t kEocd64Sig = 0x06064b50;
constexpr uint32_t kEocd64LocatorSig = 0x07064b50;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEocdSize = 22;
constexpr size_t kEocd64Size = 56;
constexpr size_t kEocd64LocatorSize = 20;
constexpr uint16_t kZip64ExtraId = 0x0001;
// Raw deflate cannot expand data by more than ~1032:1; anything claiming more is lying.
constexpr uint64_t kMaxDeflateRatio = 1032;

// True when [offset, offset + length) lies inside [0, limit), without overflow.
bool fits(uint64_t offset, uint64_t length, uint64_t limit) { return offset <= limit && length <= limit - offset; }

}  // namespace

ZipReader::ZipReader(std::vector<uint8_t> bytes, std::string name) : bytes_(std::move(bytes)), name_(std::move(name)) {}

ZipReader ZipReader::open(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  TVK_CHECK(in.good(), "cannot open '", path, "': no such file or not readable");
  const std::streamoff end = in.tellg();
  TVK_CHECK(end >= 0, "cannot determine the size of '", path, "'");
  std::vector<uint8_t> bytes(static_cast<size_t>(end));
  in.seekg(0);
  if (!bytes.empty()) in.read(reinterpret_cast<char*>(bytes.data()), end);
  TVK_CHECK(in.good() || (in.eof() && in.gcount() == end), "cannot read '", path, "'");
  return from_bytes(std::move(bytes), path);
}

ZipReader ZipReader::from_bytes(std::vector<uint8_t> bytes, std::string display_name) {
  ZipReader reader(std::move(bytes), std::move(display_name));
  reader.parse();
  return reader;
}

void ZipReader::fail(const std::string& what, uint64_t offset, const std::string& message) const {
  throw Error(detail::concat(name_, ": ", what, " at offset ", offset, ": ", message));
}

void ZipReader::parse() {
  const uint64_t size = bytes_.size();
  const uint8_t* b = bytes_.data();
  const bool starts_like_zip = size >= 4 && load_le<uint32_t>(b) == kLocalHeaderSig;
  auto not_a_zip = [&]() {
    if (size >= 8 && std::memcmp(b + 4, "PTMF", 4) == 0)
      throw Error(detail::concat(name_, " is a FlatBuffer mobile model (bytecode v9), not a zip archive; "
                                        "re-save it with torch.jit.save or _save_for_lite_interpreter"));
    if (size >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5)  // a pickle's PROTO opcode
      throw UnsupportedError(detail::concat(name_, " is a pickle (torch.save before torch 1.6, or pickle.dump), not "
                                                   "TorchScript: save the model with "
                                                   "torch.jit.save(torch.jit.script(model), path)"));
    throw Error(detail::concat(name_, " is not a zip archive (TorchScript files are zip archives written by "
                                      "torch.jit.save)"));
  };
  if (!starts_like_zip) not_a_zip();

  // The end-of-central-directory record is within the last 22 + 65535 (comment) bytes.
  uint64_t eocd = std::numeric_limits<uint64_t>::max();
  if (size >= kEocdSize) {
    const uint64_t lowest = size - kEocdSize > 0xFFFF ? size - kEocdSize - 0xFFFF : 0;
    for (uint64_t p = size - kEocdSize + 1; p-- > lowest;) {
      if (load_le<uint32_t>(b + p) == kEocdSig) {
        eocd = p;
        break;
      }
    }
  }
  if (eocd == std::numeric_limits<uint64_t>::max())
    fail("end of file", size, "end of central directory record not found (truncated or corrupt zip archive)");

  const uint16_t disk = load_le<uint16_t>(b + eocd + 4);
  const uint16_t cd_disk = load_le<uint16_t>(b + eocd + 6);
  uint64_t count = load_le<uint16_t>(b + eocd + 10);
  uint64_t cd_size = load_le<uint32_t>(b + eocd + 12);
  uint64_t cd_offset = load_le<uint32_t>(b + eocd + 16);
  if (disk != 0 || cd_disk != 0) fail("end of central directory", eocd, "multi-disk archives are not supported");
  uint64_t cd_end_limit = eocd;  // the central directory must end before the records that follow it

  // ZIP64: needed whenever a classic field is saturated (torch writes the records always).
  const bool saturated = count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF;
  if (saturated) {
    if (eocd < kEocd64LocatorSize || load_le<uint32_t>(b + eocd - kEocd64LocatorSize) != kEocd64LocatorSig)
      fail("end of central directory", eocd, "ZIP64 fields are used but the ZIP64 locator is missing");
    const uint64_t locator = eocd - kEocd64LocatorSize;
    const uint64_t eocd64 = load_le<uint64_t>(b + locator + 8);
    if (!fits(eocd64, kEocd64Size, locator))
      fail("ZIP64 end of central directory locator", locator, detail::concat("points at offset ", eocd64,
                                                                              " outside the archive"));
    if (load_le<uint32_t>(b + eocd64) != kEocd64Sig)
      fail("ZIP64 end of central directory", eocd64, "bad signature");
    if (count == 0xFFFF) count = load_le<uint64_t>(b + eocd64 + 32);
    if (cd_size == 0xFFFFFFFF) cd_size = load_le<uint64_t>(b + eocd64 + 40);
    if (cd_offset == 0xFFFFFFFF) cd_offset = load_le<uint64_t>(b + eocd64 + 48);
    cd_end_limit = eocd64;
  } else if (eocd >= kEocd64LocatorSize && load_le<uint32_t>(b + eocd - kEocd64LocatorSize) == kEocd64LocatorSig) {
    // Not needed, but the ZIP64 records sit between the directory and the classic EOCD.
    const uint64_t eocd64 = load_le<uint64_t>(b + eocd - kEocd64LocatorSize + 8);
    if (eocd64 < eocd) cd_end_limit = eocd64;
  }

  if (!fits(cd_offset, cd_size, cd_end_limit))
    fail("central directory", cd_offset,
         detail::concat("declares ", cd_size, " bytes, which do not fit before offset ", cd_end_limit,
                        " (truncated or corrupt archive)"));
  if (count > cd_size / kCentralHeaderSize)
    fail("central directory", cd_offset,
         detail::concat("declares ", count, " entries, more than its ", cd_size, " bytes can hold"));
  if (count == 0) fail("central directory", cd_offset, "the archive has no records");

  entries_.reserve(static_cast<size_t>(count));
  uint64_t p = cd_offset;
  const uint64_t cd_end = cd_offset + cd_size;
  for (uint64_t i = 0; i < count; ++i) {
    const std::string what = detail::concat("central directory entry ", i);
    if (!fits(p, kCentralHeaderSize, cd_end)) fail(what, p, "truncated central directory header");
    if (load_le<uint32_t>(b + p) != kCentralHeaderSig) fail(what, p, "bad central directory signature");
    const uint16_t flags = load_le<uint16_t>(b + p + 8);
    Entry e;
    e.method = load_le<uint16_t>(b + p + 10);
    e.crc32 = load_le<uint32_t>(b + p + 16);
    e.compressed_size = load_le<uint32_t>(b + p + 20);
    e.size = load_le<uint32_t>(b + p + 24);
    const uint16_t name_len = load_le<uint16_t>(b + p + 28);
    const uint16_t extra_len = load_le<uint16_t>(b + p + 30);
    const uint16_t comment_len = load_le<uint16_t>(b + p + 32);
    const uint16_t entry_disk = load_le<uint16_t>(b + p + 34);
    e.header_offset = load_le<uint32_t>(b + p + 42);
    const uint64_t var_len = uint64_t{name_len} + extra_len + comment_len;
    if (!fits(p + kCentralHeaderSize, var_len, cd_end)) fail(what, p, "name or extra field runs past the central directory");
    e.name.assign(reinterpret_cast<const char*>(b + p + kCentralHeaderSize), name_len);
    const std::string rwhat = detail::concat("record '", e.name, "'");
    if (e.name.empty()) fail(what, p, "empty record name");
    if (flags & 1) fail(rwhat, p, "encrypted records are not supported");
    if (entry_disk != 0) fail(rwhat, p, "multi-disk archives are not supported");

    // ZIP64 extra field: 64-bit values for exactly the saturated 32-bit fields, in this order.
    uint64_t x = p + kCentralHeaderSize + name_len;
    const uint64_t x_end = x + extra_len;
    while (x + 4 <= x_end) {
      const uint16_t id = load_le<uint16_t>(b + x);
      const uint16_t len = load_le<uint16_t>(b + x + 2);
      if (!fits(x + 4, len, x_end)) fail(rwhat, x, "extra field runs past its header");
      if (id == kZip64ExtraId) {
        uint64_t q = x + 4;
        const uint64_t q_end = x + 4 + len;
        auto take = [&](uint64_t& field, const char* field_name) {
          if (!fits(q, 8, q_end)) fail(rwhat, q, detail::concat("ZIP64 extra field lacks the ", field_name));
          field = load_le<uint64_t>(b + q);
          q += 8;
        };
        if (e.size == 0xFFFFFFFF) take(e.size, "uncompressed size");
        if (e.compressed_size == 0xFFFFFFFF) take(e.compressed_size, "compressed size");
        if (e.header_offset == 0xFFFFFFFF) take(e.header_offset, "local header offset");
      }
      x += 4 + uint64_t{len};
    }

    if (e.method != 0 && e.method != 8)
      fail(rwhat, p, detail::concat("compression method ", e.method, " is not supported (only stored and deflate)"));
    if (e.size > kMaxRecordSize)
      fail(rwhat, p, detail::concat("declares ", e.size, " bytes, more than the ", kMaxRecordSize, "-byte limit"));
    if (e.method == 0 && e.size != e.compressed_size)
      fail(rwhat, p, detail::concat("stored record declares compressed size ", e.compressed_size,
                                    " but uncompressed size ", e.size));
    if (e.method == 8 && e.size > e.compressed_size * kMaxDeflateRatio + 1024)
      fail(rwhat, p, detail::concat("declares ", e.size, " bytes from ", e.compressed_size,
                                    " compressed bytes, more than deflate can produce"));
    if (!fits(e.header_offset, kLocalHeaderSize, cd_offset) ||
        !fits(e.header_offset + kLocalHeaderSize, e.compressed_size, cd_offset))
      fail(rwhat, p, detail::concat("local header offset ", e.header_offset, " and size ", e.compressed_size,
                                    " lie outside the data area (truncated or corrupt archive)"));
    if (index_.count(e.name)) fail(rwhat, p, "duplicate record name");
    index_.emplace(e.name, entries_.size());
    entries_.push_back(std::move(e));
    p += kCentralHeaderSize + var_len;
  }

  // Each record's local header and data must lie apart from every other's, as Python's zipfile
  // requires: overlapping records would let a small file name the same huge stream many times.
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // [local header, end of data)
  spans.reserve(entries_.size());
  for (const Entry& e : entries_) {
    const uint64_t h = e.header_offset;
    const uint64_t var = uint64_t{load_le<uint16_t>(b + h + 26)} + load_le<uint16_t>(b + h + 28);
    if (!fits(h + kLocalHeaderSize, var, cd_offset) || !fits(h + kLocalHeaderSize + var, e.compressed_size, cd_offset))
      fail(detail::concat("record '", e.name, "'"), h, "truncated local header (its name, extra field or data run into the central directory)");
    spans.emplace_back(h, h + kLocalHeaderSize + var + e.compressed_size);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second)
      fail("local header", spans[i].first,
           detail::concat("overlaps the record whose data runs from offset ", spans[i - 1].first, " to ",
                          spans[i - 1].second, " (overlapping records are not a valid archive)"));

  // torch.jit.save and torch.export.save put everything under one folder; the first entry names
  // it. The layout torch.export.save wrote before the PT2 archive (torch 2.1-2.5) has none.
  const std::string& first = entries_.front().name;
  const size_t slash = first.find('/');
  if (slash == 0) fail(detail::concat("record '", first, "'"), cd_offset, "the first record's name starts with '/'");
  prefix_ = slash == std::string::npos ? std::string() : first.substr(0, slash + 1);
}

const ZipReader::Entry* ZipReader::find(const std::string& record) const {
  auto it = index_.find(prefix_ + record);
  if (it == index_.end()) it = index_.find(record);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const ZipReader::Entry& ZipReader::require(const std::string& record) const {
  const Entry* e = find(record);
  if (!e) throw Error(detail::concat(name_, ": no record '", record, "' (looked for '", prefix_, record, "')"));
  return *e;
}

bool ZipReader::has(const std::string& record) const { return find(record) != nullptr; }

uint64_t ZipReader::size_of(const std::string& record) const { return require(record).size; }

std::vector<std::string> ZipReader::records() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_)
    out.push_back(e.name.compare(0, prefix_.size(), prefix_) == 0 ? e.name.substr(prefix_.size()) : e.name);
  return out;
}

uint64_t ZipReader::data_offset(const Entry& e, const std::string& what) const {
  const uint8_t* b = bytes_.data();
  const uint64_t h = e.header_offset;
  // parse() checked that the header, name, extra field and data lie inside the data area.
  if (load_le<uint32_t>(b + h) != kLocalHeaderSig) fail(what, h, "bad local header signature");
  const uint16_t name_len = load_le<uint16_t>(b + h + 26);
  const uint16_t extra_len = load_le<uint16_t>(b + h + 28);
  const uint64_t data = h + kLocalHeaderSize + name_len + extra_len;
  if (!fits(h + kLocalHeaderSize, uint64_t{name_len} + extra_len, bytes_.size()) ||
      !fits(data, e.compressed_size, bytes_.size()))
    fail(what, h, "truncated local header");
  if (name_len != e.name.size() || std::memcmp(b + h + kLocalHeaderSize, e.name.data(), name_len) != 0)
    fail(what, h, "local header names a different record than the central directory");
  return data;
}

std::vector<uint8_t> ZipReader::read(const std::string& record) const {
  const Entry& e = require(record);
  const std::string what = detail::concat("record '", record, "'");
  const uint64_t data = data_offset(e, what);
  // Inside a run (loading a model), the record must fit the run's host memory budget now.
  if (const MemoryBudget* budget = RunScope::memory()) budget->check_fits(e.size, ("inflating " + what).c_str());
  return decode(name_, what, e.method, e.size, e.crc32, bytes_.data() + data, e.compressed_size, data);
}

ZipReader::StoredRecord ZipReader::stored(const std::string& record) const {
  const Entry& e = require(record);
  const uint64_t data = data_offset(e, detail::concat("record '", record, "'"));
  StoredRecord out{name_, record, e.method, e.size, e.crc32, {}};
  out.data.assign(bytes_.begin() + static_cast<std::ptrdiff_t>(data),
                  bytes_.begin() + static_cast<std::ptrdiff_t>(data + e.compressed_size));
  return out;
}

std::vector<uint8_t> ZipReader::inflate(const StoredRecord& r) {
  return decode(r.archive, detail::concat("record '", r.record, "'"), r.method, r.size, r.crc32, r.data.data(),
                r.data.size(), 0);
}

std::vector<uint8_t> ZipReader::decode(const std::string& archive, const std::string& what, uint16_t method,
                                       uint64_t size, uint32_t crc32_declared, const uint8_t* in,
                                       uint64_t compressed_size, uint64_t offset) {
  auto fail = [&](const std::string& message) {
    throw Error(detail::concat(archive, ": ", what, " at offset ", offset, ": ", message));
  };
  std::vector<uint8_t> out;
  if (method == 0) {
    out.assign(in, in + compressed_size);
  } else {
    out.resize(static_cast<size_t>(size));
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) fail("zlib inflateInit2 failed");
    // RAII guard so every exit path releases zlib's state.
    struct End {
      z_stream* z;
      ~End() { inflateEnd(z); }
    } end{&z};
    uint64_t in_left = compressed_size, out_done = 0;
    constexpr uint64_t kChunk = 1u << 30;  // z_stream counters are 32-bit
    uint8_t scratch = 0;
    for (;;) {
      if (z.avail_in == 0 && in_left > 0) {
        z.next_in = const_cast<Bytef*>(in);
        z.avail_in = static_cast<uInt>(std::min(in_left, kChunk));
        in += z.avail_in;
        in_left -= z.avail_in;
      }
      // Once the declared size is reached, a 1-byte scratch tells "finished" from "more output".
      const bool full = out_done == out.size();
      z.next_out = full ? &scratch : out.data() + out_done;
      z.avail_out = full ? 1u : static_cast<uInt>(std::min<uint64_t>(out.size() - out_done, kChunk));
      const uInt in_before = z.avail_in, out_before = z.avail_out;
      const int rc = ::inflate(&z, Z_NO_FLUSH);
      const uInt produced = out_before - z.avail_out;
      if (full && produced > 0) fail(detail::concat("inflates to more than the declared ", size, " bytes"));
      out_done += produced;
      if (rc == Z_STREAM_END) break;
      if (rc != Z_OK && rc != Z_BUF_ERROR)
        fail(detail::concat("corrupt deflate data (zlib: ", z.msg ? z.msg : "error", ")"));
      // No progress although output room exists: the input has run out.
      if (produced == 0 && z.avail_in == in_before) fail("truncated deflate data");
    }
    if (out_done != out.size())
      fail(detail::concat("inflates to ", out_done, " bytes, but the archive declares ", size));
  }
  // zlib's crc32 takes uInt lengths; feed it in chunks.
  uLong crc = crc32(0L, Z_NULL, 0);
  for (uint64_t done = 0; done < out.size();) {
    const uInt n = static_cast<uInt>(std::min<uint64_t>(out.size() - done, 1u << 30));
    crc = crc32(crc, out.data() + done, n);
    done += n;
  }
  if (static_cast<uint32_t>(crc) != crc32_declared)
    fail(detail::concat("CRC-32 mismatch (archive says ", crc32_declared, ", data gives ", static_cast<uint32_t>(crc),
                        "): the file is corrupt"));
  return out;
}

}  // namespace tvk::jit
