// ZipWriter: archives laid out as torch writes them, read back by ZipReader and Python's zipfile.
#include "core/little_endian.h"
#include "jit/serialization/zip_reader.h"
#include "jit/serialization/zip_writer.h"
#include "support/file_bytes.h"
#include "support/torch_fixtures.h"

using namespace tvk;
using namespace tvk::jit;
using namespace tvk::testing_support;

namespace {

std::string big_code() {
  std::string code = "class Foo(Module):\n  __parameters__ = []\n";
  for (int i = 0; i < 40; ++i) code += "  def f" + std::to_string(i) + "(self: __torch__.Foo) -> int:\n    return 1\n";
  return code;
}

std::string as_string(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

// Writes a small archive; checks layout invariants torch relies on.
std::vector<uint8_t> sample_archive(ZipWriter::Options options = {}) {
  ZipWriter w = ZipWriter::in_memory("model", options);
  std::vector<uint8_t> tensor(1000);
  for (size_t i = 0; i < tensor.size(); ++i) tensor[i] = static_cast<uint8_t>(i * 7);
  w.add("data/0", tensor);
  w.add("data.pkl", std::string("\x80\x02N.", 4));
  w.add("code/__torch__.py", big_code());
  w.add("code/small.py", std::string("def f(x: int) -> int:\n  return x\n"));
  w.add("extra/empty", std::string());
  w.finish();
  return w.bytes();
}

}  // namespace

TEST(ZipWriter, ReadsBackWithZipReader) {
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64 ? "forced zip64" : "plain");
    ZipWriter::Options options;
    options.force_zip64 = zip64;
    ZipReader zip = ZipReader::from_bytes(sample_archive(options), "written.pt");
    EXPECT_EQ(zip.prefix(), "model/");
    EXPECT_EQ(zip.records(), (std::vector<std::string>{"data/0", "data.pkl", "code/__torch__.py", "code/small.py",
                                                        "extra/empty", "version"}));
    EXPECT_EQ(as_string(zip.read("version")), "3\n");
    EXPECT_EQ(as_string(zip.read("code/__torch__.py")), big_code());
    EXPECT_EQ(zip.read("data/0")[999], static_cast<uint8_t>(999 * 7));
    EXPECT_TRUE(zip.read("extra/empty").empty());
  }
}

TEST(ZipWriter, AlignsDataTo64BytesAndDeflatesOnlyLargeCode) {
  const std::vector<uint8_t> b = sample_archive();
  int entries = 0;
  for (size_t p = 0; p + 30 <= b.size(); ++p) {
    if (load_le<uint32_t>(b.data() + p) != 0x04034b50) continue;
    const uint16_t method = load_le<uint16_t>(b.data() + p + 8);
    const uint16_t name_len = load_le<uint16_t>(b.data() + p + 26);
    const uint16_t extra_len = load_le<uint16_t>(b.data() + p + 28);
    const std::string name(reinterpret_cast<const char*>(b.data() + p + 30), name_len);
    if (name.rfind("model/", 0) != 0) continue;  // a chance match inside data
    ++entries;
    EXPECT_EQ((p + 30 + name_len + extra_len) % 64, 0u) << name;
    EXPECT_EQ(load_le<uint16_t>(b.data() + p + 30 + name_len), 0x4246) << name;  // "FB"
    EXPECT_EQ(method, name == "model/code/__torch__.py" ? 8 : 0) << name;
  }
  EXPECT_EQ(entries, 6);
  // Ends with ZIP64 end record, its locator and the classic end record, as torch's files do.
  ASSERT_GT(b.size(), 98u);
  EXPECT_EQ(load_le<uint32_t>(b.data() + b.size() - 22), 0x06054b50u);
  EXPECT_EQ(load_le<uint32_t>(b.data() + b.size() - 42), 0x07064b50u);
  EXPECT_EQ(load_le<uint32_t>(b.data() + b.size() - 98), 0x06064b50u);
}

TEST(ZipWriter, PythonZipfileReadsWhatWeWrite) {
  TVK_NEED_TORCH_FIXTURES();
  for (bool zip64 : {false, true}) {
    ZipWriter::Options options;
    options.force_zip64 = zip64;
    const std::string path = ::testing::TempDir() + (zip64 ? "tvk_written64.pt" : "tvk_written.pt");
    write_bytes(path, sample_archive(options));
    const std::string script =
        "import zipfile, sys\n"
        "z = zipfile.ZipFile(sys.argv[1])\n"
        "assert z.testzip() is None\n"
        "names = z.namelist()\n"
        "assert names == ['model/data/0', 'model/data.pkl', 'model/code/__torch__.py', 'model/code/small.py',"
        " 'model/extra/empty', 'model/version'], names\n"
        "assert z.read('model/version') == b'3\\n'\n"
        "assert z.read('model/data/0')[999] == (999 * 7) % 256\n"
        "assert z.getinfo('model/code/__torch__.py').compress_type == 8\n"
        "assert z.read('model/code/__torch__.py').startswith(b'class Foo(Module)')\n";
    EXPECT_EQ(run_python(script, "zip_check", path), 0) << (zip64 ? "zip64" : "plain");
  }
}

TEST(ZipWriter, FileWriterStreamsAndRemovesUnfinishedFiles) {
  const std::string path = ::testing::TempDir() + "tvk_stream.pt";
  {
    ZipWriter w(path, "stream");
    w.add("data.pkl", std::string("\x80\x02N.", 4));
    w.finish();
  }
  EXPECT_EQ(ZipReader::open(path).prefix(), "stream/");
  const std::string broken = ::testing::TempDir() + "tvk_unfinished.pt";
  {
    ZipWriter w(broken, "unfinished");
    w.add("data.pkl", std::string("x"));
  }
  EXPECT_TRUE(read_bytes(broken).empty());
  EXPECT_THROW(ZipReader::open(broken), Error);
}

TEST(ZipWriter, RejectsBadOrDuplicateNames) {
  ZipWriter w = ZipWriter::in_memory("m");
  w.add("a", std::string("1"));
  EXPECT_THROW(w.add("a", std::string("2")), Error);
  EXPECT_THROW(w.add("../evil", std::string("2")), Error);
  EXPECT_THROW(w.add("/abs", std::string("2")), Error);
  EXPECT_THROW(w.bytes(), Error);  // not finished
  w.finish();
  EXPECT_THROW(w.add("b", std::string("2")), Error);
  EXPECT_THROW(ZipWriter::in_memory("a/b"), Error);
}
