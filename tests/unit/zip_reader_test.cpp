// ZipReader on archives written by torch.jit.save, and on broken ones: truncated, bit-flipped,
// lying about sizes. Every failure must be a tvk::Error that says where.
#include <cstring>
#include <random>
#include <sstream>

#include "core/little_endian.h"
#include "jit/serialization/zip_reader.h"
#include "support/file_bytes.h"
#include "support/torch_fixtures.h"

using namespace tvk;
using tvk::jit::ZipReader;
using namespace tvk::testing_support;

namespace {

struct PyRecord {
  std::string name;
  uint64_t size;
  int method;
};

std::vector<PyRecord> python_records(const std::string& archive) {
  std::ifstream in(torch_fixture_dir() + archive + ".records.txt");
  std::vector<PyRecord> out;
  PyRecord r;
  while (in >> r.name >> r.size >> r.method) out.push_back(r);
  return out;
}

// Offset of the central-directory header naming `name`, found by scanning the raw bytes.
size_t central_entry(const std::vector<uint8_t>& b, const std::string& name) {
  for (size_t p = 0; p + 46 <= b.size(); ++p) {
    if (load_le<uint32_t>(b.data() + p) != 0x02014b50) continue;
    const uint16_t len = load_le<uint16_t>(b.data() + p + 28);
    if (len == name.size() && p + 46 + len <= b.size() && std::memcmp(b.data() + p + 46, name.data(), len) == 0)
      return p;
  }
  ADD_FAILURE() << "no central directory entry for " << name;
  return 0;
}

size_t eocd_offset(const std::vector<uint8_t>& b) {
  for (size_t p = b.size() - 22 + 1; p-- > 0;)
    if (load_le<uint32_t>(b.data() + p) == 0x06054b50) return p;
  ADD_FAILURE() << "no end of central directory";
  return 0;
}

void put_u16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = v & 0xFF;
  b[at + 1] = v >> 8;
}
void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = (v >> (8 * i)) & 0xFF;
}

// Opens and reads every record; what a loader would do with an archive.
void read_everything(std::vector<uint8_t> bytes, const std::string& name) {
  ZipReader zip = ZipReader::from_bytes(std::move(bytes), name);
  for (const std::string& r : zip.records()) zip.read(r);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(ZipReader, ListsAndReadsEveryRecordOfATorchScriptArchive) {
  TVK_NEED_TORCH_FIXTURES();
  for (const char* file : {"conv.pt", "attrs.pt", "seq.pt", "conv.ptl"}) {
    SCOPED_TRACE(file);
    ZipReader zip = ZipReader::open(torch_fixture_dir() + file);
    const std::string stem = std::string(file).substr(0, std::string(file).find('.'));
    EXPECT_EQ(zip.prefix(), stem + "/");
    const std::vector<PyRecord> expected = python_records(file);
    const std::vector<std::string> records = zip.records();
    ASSERT_EQ(records.size(), expected.size());
    for (size_t i = 0; i < records.size(); ++i) {
      EXPECT_EQ(zip.prefix() + records[i], expected[i].name);
      EXPECT_EQ(zip.size_of(records[i]), expected[i].size);
      EXPECT_EQ(zip.read(records[i]).size(), expected[i].size);  // CRC-checked
    }
    EXPECT_TRUE(zip.has("data.pkl"));
    EXPECT_TRUE(zip.has(zip.prefix() + "data.pkl"));  // absolute names work too
    EXPECT_FALSE(zip.has("nothing.pkl"));
    const std::vector<uint8_t> version = zip.read("version");
    EXPECT_EQ(std::string(version.begin(), version.end()), "3\n");
  }
}

TEST(ZipReader, InflatesDeflatedCodeRecords) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "attrs.pt");
  bool saw_deflate = false;
  for (const PyRecord& r : python_records("attrs.pt")) {
    if (r.method != 8) continue;
    saw_deflate = true;
    ASSERT_TRUE(zip.has(r.name));
    EXPECT_EQ(zip.read(r.name).size(), r.size);
  }
  ASSERT_TRUE(saw_deflate) << "the fixture should contain a deflated record";
  const std::vector<uint8_t> code = zip.read("code/__torch__.py");
  EXPECT_NE(std::string(code.begin(), code.end()).find("def forward"), std::string::npos);
}

TEST(ZipReader, MissingRecordNamesRecordAndArchive) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "conv.pt");
  const std::string msg = error_of([&] { zip.read("data/99"); });
  EXPECT_NE(msg.find("conv.pt"), std::string::npos) << msg;
  EXPECT_NE(msg.find("data/99"), std::string::npos) << msg;
}

TEST(ZipReader, NotAZipSaysSo) {
  const std::string msg = error_of([] { ZipReader::from_bytes(to_bytes("def forward(self): pass\n"), "model.pt"); });
  EXPECT_NE(msg.find("model.pt is not a zip archive"), std::string::npos) << msg;
  EXPECT_NE(msg.find("torch.jit.save"), std::string::npos) << msg;
  EXPECT_NE(error_of([] { ZipReader::from_bytes({}, "empty.pt"); }).find("not a zip archive"), std::string::npos);
  const std::string fb = error_of([] { ZipReader::from_bytes(to_bytes(std::string("\x14\0\0\0PTMF0000", 12)), "m.ptl"); });
  EXPECT_NE(fb.find("FlatBuffer"), std::string::npos) << fb;
}

TEST(ZipReader, MissingFileNamesPath) {
  const std::string msg = error_of([] { ZipReader::open("/nonexistent/dir/model.pt"); });
  EXPECT_NE(msg.find("/nonexistent/dir/model.pt"), std::string::npos) << msg;
}

TEST(ZipReader, TruncatedArchiveAtEveryCutThrowsError) {
  TVK_NEED_TORCH_FIXTURES();
  const std::vector<uint8_t> full = read_bytes(torch_fixture_dir() + "conv.pt");
  ASSERT_GT(full.size(), 1000u);
  for (size_t cut = 0; cut < full.size(); ++cut) {
    std::vector<uint8_t> part(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(cut));
    const std::string msg = error_of([&] { read_everything(std::move(part), "conv.pt"); });
    ASSERT_NE(msg, "(no error)") << "cut at " << cut;
    ASSERT_NE(msg.find("conv.pt"), std::string::npos) << msg;
  }
}

TEST(ZipReader, BadLocalHeaderNamesEntryAndOffset) {
  TVK_NEED_TORCH_FIXTURES();
  std::vector<uint8_t> b = read_bytes(torch_fixture_dir() + "conv.pt");
  const size_t cd = central_entry(b, "conv/data.pkl");
  const uint32_t header = load_le<uint32_t>(b.data() + cd + 42);
  b[header] = 'X';  // break the local header signature
  ZipReader zip = ZipReader::from_bytes(b, "mobilenet2.pt");
  const std::string msg = error_of([&] { zip.read("data.pkl"); });
  EXPECT_NE(msg.find("mobilenet2.pt: record 'data.pkl' at offset " + std::to_string(header)), std::string::npos) << msg;
}

TEST(ZipReader, TruncatedLocalHeaderNamesEntryAndOffset) {
  TVK_NEED_TORCH_FIXTURES();
  std::vector<uint8_t> b = read_bytes(torch_fixture_dir() + "conv.pt");
  const size_t cd = central_entry(b, "conv/version");
  const uint32_t header = load_le<uint32_t>(b.data() + cd + 42);
  put_u16(b, header + 28, 0xFFFF);  // extra field longer than the file
  // Found when the archive is opened, as every record's extent is checked against the others.
  const std::string msg = error_of([&] { ZipReader::from_bytes(b, "conv.pt"); });
  EXPECT_NE(msg.find("conv.pt: record 'conv/version' at offset " + std::to_string(header) + ": truncated local header"),
            std::string::npos)
      << msg;
}

TEST(ZipReader, CorruptDataFailsTheCrcCheck) {
  TVK_NEED_TORCH_FIXTURES();
  std::vector<uint8_t> b = read_bytes(torch_fixture_dir() + "conv.pt");
  const size_t cd = central_entry(b, "conv/data/0");
  const uint32_t header = load_le<uint32_t>(b.data() + cd + 42);
  const size_t data = header + 30 + load_le<uint16_t>(b.data() + header + 26) + load_le<uint16_t>(b.data() + header + 28);
  b[data + 5] ^= 0x40;
  ZipReader zip = ZipReader::from_bytes(b, "conv.pt");
  const std::string msg = error_of([&] { zip.read("data/0"); });
  EXPECT_NE(msg.find("CRC-32 mismatch"), std::string::npos) << msg;
  EXPECT_NE(msg.find("record 'data/0'"), std::string::npos) << msg;
}

TEST(ZipReader, FlippedBytesEitherReadOrThrowError) {
  TVK_NEED_TORCH_FIXTURES();
  const std::vector<uint8_t> full = read_bytes(torch_fixture_dir() + "attrs.pt");
  std::mt19937 rng(1234);
  int failures = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> b = full;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) {
      // Half the flips hit the directory and headers near the end, where the structure is.
      const size_t at = (rng() % 2) ? rng() % b.size() : b.size() - 1 - rng() % std::min<size_t>(b.size(), 700);
      b[at] = static_cast<uint8_t>(rng());
    }
    try {
      read_everything(std::move(b), "attrs.pt");
    } catch (const Error&) {
      ++failures;
    }
  }
  EXPECT_GT(failures, 100);  // the corruption is noticed, not silently accepted
}

TEST(ZipReader, HugeDeclaredSizesAreRefused) {
  TVK_NEED_TORCH_FIXTURES();
  const std::vector<uint8_t> full = read_bytes(torch_fixture_dir() + "attrs.pt");
  {
    // A deflated record claiming an impossible expansion ratio.
    std::vector<uint8_t> b = full;
    const size_t cd = central_entry(b, "attrs/code/__torch__.py");
    ASSERT_EQ(load_le<uint16_t>(b.data() + cd + 10), 8);
    put_u32(b, cd + 24, 0xFFFFFF00u);
    const std::string msg = error_of([&] { ZipReader::from_bytes(b, "attrs.pt"); });
    EXPECT_NE(msg.find("record 'attrs/code/__torch__.py'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("more than deflate can produce"), std::string::npos) << msg;
  }
  {
    // A stored record larger than the file.
    std::vector<uint8_t> b = full;
    const size_t cd = central_entry(b, "attrs/data.pkl");
    put_u32(b, cd + 20, 0x7FFFFFFFu);
    put_u32(b, cd + 24, 0x7FFFFFFFu);
    const std::string msg = error_of([&] { ZipReader::from_bytes(b, "attrs.pt"); });
    EXPECT_NE(msg.find("outside the data area"), std::string::npos) << msg;
  }
  {
    // A deflated record declaring less than it inflates to.
    std::vector<uint8_t> b = full;
    const size_t cd = central_entry(b, "attrs/code/__torch__.py");
    put_u32(b, cd + 24, load_le<uint32_t>(b.data() + cd + 24) - 10);
    ZipReader zip = ZipReader::from_bytes(b, "attrs.pt");
    const std::string msg = error_of([&] { zip.read("code/__torch__.py"); });
    EXPECT_NE(msg.find("more than the declared"), std::string::npos) << msg;
  }
}

TEST(ZipReader, EntryCountBeyondTheDirectoryIsRefused) {
  TVK_NEED_TORCH_FIXTURES();
  std::vector<uint8_t> b = read_bytes(torch_fixture_dir() + "conv.pt");
  const size_t eocd = eocd_offset(b);
  put_u16(b, eocd + 8, 0xFFFE);
  put_u16(b, eocd + 10, 0xFFFE);
  const std::string msg = error_of([&] { ZipReader::from_bytes(b, "conv.pt"); });
  EXPECT_NE(msg.find("declares 65534 entries"), std::string::npos) << msg;
}

TEST(ZipReader, UsesZip64RecordsWhenClassicFieldsAreSaturated) {
  TVK_NEED_TORCH_FIXTURES();
  std::vector<uint8_t> b = read_bytes(torch_fixture_dir() + "conv.pt");
  const size_t eocd = eocd_offset(b);
  // torch always writes the ZIP64 end records; force the reader to depend on them.
  put_u16(b, eocd + 8, 0xFFFF);
  put_u16(b, eocd + 10, 0xFFFF);
  put_u32(b, eocd + 12, 0xFFFFFFFFu);
  put_u32(b, eocd + 16, 0xFFFFFFFFu);
  ZipReader zip = ZipReader::from_bytes(b, "conv.pt");
  EXPECT_EQ(zip.records().size(), python_records("conv.pt").size());
  EXPECT_EQ(zip.read("version").size(), 2u);
  // ... and a broken ZIP64 record is then an error, not a guess.
  const size_t locator = eocd - 20;
  put_u32(b, locator + 8, 0xFFFFFF00u);
  const std::string msg = error_of([&] { ZipReader::from_bytes(b, "conv.pt"); });
  EXPECT_NE(msg.find("ZIP64"), std::string::npos) << msg;
}
