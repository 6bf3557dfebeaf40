// .npy reading and writing: numpy's own files, round trips, and malformed headers.
#include <cmath>
#include <cstring>
#include <random>

#include "io/npy.h"
#include "support/file_bytes.h"
#include "support/torch_fixtures.h"

using namespace tvk;
using namespace tvk::testing_support;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<uint8_t> npy_with_header(const std::string& dict, const std::string& data) {
  std::string h = dict;
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h.push_back('\n');
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(h.size() & 0xFF));
  out.push_back(static_cast<char>(h.size() >> 8));
  return to_bytes(out + h + data);
}

}  // namespace

TEST(Npy, ReadsWhatNumpyWrote) {
  TVK_NEED_TORCH_FIXTURES();
  Tensor w = io::read_npy(torch_fixture_dir() + "attrs_window.npy");
  EXPECT_EQ(w.dtype(), DType::Float32);
  EXPECT_EQ(w.sizes(), (IntList{2, 3}));
  // base = arange(24).reshape(4, 6); window = base[1:3, 2:5]
  EXPECT_EQ(w.data<float>()[0], 8.0f);
  EXPECT_EQ(w.data<float>()[5], 16.0f);
  Tensor f = io::read_npy(torch_fixture_dir() + "fortran.npy");  // np.asfortranarray(np.ones((2, 3)))
  EXPECT_EQ(f.sizes(), (IntList{2, 3}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(f.data<float>()[i], 1.0f);
}

// Fortran-order arrays read as numpy reads them (the same values at the same indices), and
// bytes after the array are ignored, as np.load ignores them.
TEST(Npy, FortranOrderAndTrailingBytesReadAsNumpyReadsThem) {
  TVK_NEED_TORCH_FIXTURES();
  const std::string dir = ::testing::TempDir();
  const std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) * 1.5 - 7\n"
      "np.save(d + 'c.npy', a)\n"
      "np.save(d + 'f.npy', np.asfortranarray(a))\n"
      "np.save(d + 'fi.npy', np.asfortranarray(np.arange(6, dtype=np.int32).reshape(3, 2)))\n"
      "np.save(d + 'ci.npy', np.arange(6, dtype=np.int32).reshape(3, 2))\n"
      "open(d + 'tail.npy', 'wb').write(open(d + 'c.npy', 'rb').read() + b'trailing bytes')\n"
      "assert (np.load(d + 'tail.npy') == a).all()\n";
  ASSERT_EQ(run_python(script, "npy_fortran", dir), 0);
  for (const auto& [fortran, c] : {std::pair<const char*, const char*>{"f.npy", "c.npy"}, {"fi.npy", "ci.npy"},
                                   {"tail.npy", "c.npy"}}) {
    const Tensor got = io::read_npy(dir + fortran), want = io::read_npy(dir + c);
    ASSERT_EQ(got.sizes(), want.sizes()) << fortran;
    ASSERT_EQ(got.dtype(), want.dtype()) << fortran;
    EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), want.nbytes()), 0) << fortran;
  }
}

TEST(Npy, NumpyReadsWhatWeWrite) {
  TVK_NEED_TORCH_FIXTURES();
  const std::string dir = ::testing::TempDir();
  Tensor f = tensor_from({1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f}, {2, 3});
  io::write_npy(dir + "tvk_f.npy", f.as_strided({3, 2}, {1, 3}, 0));  // a non-contiguous view
  Tensor l = empty({3}, DType::Int64);
  l.data<int64_t>()[0] = -1;
  l.data<int64_t>()[1] = int64_t{1} << 40;
  l.data<int64_t>()[2] = 7;
  io::write_npy(dir + "tvk_l.npy", l);
  Tensor b = empty({}, DType::Bool);
  b.data<bool>()[0] = true;
  io::write_npy(dir + "tvk_b.npy", b);
  const std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "f = np.load(d + 'tvk_f.npy'); assert f.dtype == np.float32 and f.shape == (3, 2), f\n"
      "assert (f == np.array([[1.5, -2.0, 3.25, 0, 7, 8]], np.float32).reshape(2, 3).T).all(), f\n"
      "l = np.load(d + 'tvk_l.npy'); assert l.dtype == np.int64 and list(l) == [-1, 2**40, 7], l\n"
      "b = np.load(d + 'tvk_b.npy'); assert b.dtype == np.bool_ and b.shape == () and b, b\n";
  EXPECT_EQ(run_python(script, "npy_check", dir), 0);
}

// Files numpy writes in other dtypes: float16 and float64 read as float32 (float16 exactly,
// subnormals, infinities and NaN included), narrower integers as int64.
TEST(Npy, ReadsOtherFloatAndIntegerDtypesAsFloat32AndInt64) {
  TVK_NEED_TORCH_FIXTURES();
  const std::string dir = ::testing::TempDir();
  const std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "np.save(d + 'h.npy', np.array([1.5, -0.0, 65504, 6e-8, 1e-5, np.inf, -np.inf, np.nan, 0.1], np.float16))\n"
      "np.save(d + 'd.npy', np.array([[1.0 / 3, -2.5e300]], np.float64))\n"
      "np.save(d + 'i4.npy', np.array([-7, 2**31 - 1], np.int32))\n"
      "np.save(d + 'u1.npy', np.array([0, 255], np.uint8))\n";
  ASSERT_EQ(run_python(script, "npy_write", dir), 0);
  const Tensor h = io::read_npy(dir + "h.npy");
  ASSERT_EQ(h.dtype(), DType::Float32);
  const float* hv = h.data<float>();
  EXPECT_EQ(hv[0], 1.5f);
  EXPECT_TRUE(hv[1] == 0.0f && std::signbit(hv[1]));
  EXPECT_EQ(hv[2], 65504.0f);
  EXPECT_EQ(hv[3], 5.9604644775390625e-08f);  // the subnormal half nearest 6e-8: 2^-24
  EXPECT_EQ(hv[4], 1.0013580322265625e-05f);  // float16(1e-5), subnormal: 168 x 2^-24
  EXPECT_TRUE(std::isinf(hv[5]) && hv[5] > 0 && std::isinf(hv[6]) && hv[6] < 0 && std::isnan(hv[7]));
  EXPECT_EQ(hv[8], 0.0999755859375f);  // float16(0.1)
  const Tensor d = io::read_npy(dir + "d.npy");
  EXPECT_EQ(d.dtype(), DType::Float32);
  EXPECT_EQ(d.sizes(), (IntList{1, 2}));
  EXPECT_EQ(d.data<float>()[0], static_cast<float>(1.0 / 3));
  EXPECT_TRUE(std::isinf(d.data<float>()[1]));
  const Tensor i4 = io::read_npy(dir + "i4.npy"), u1 = io::read_npy(dir + "u1.npy");
  ASSERT_EQ(i4.dtype(), DType::Int64);
  EXPECT_EQ(i4.data<int64_t>()[0], -7);
  EXPECT_EQ(i4.data<int64_t>()[1], 2147483647);
  EXPECT_EQ(u1.data<int64_t>()[1], 255);
}

TEST(Npy, RoundTripsEveryDtypeAndShape) {
  Tensor f = rand({2, 3, 4}, 7);
  Tensor back = io::parse_npy(io::npy_bytes(f), "f.npy");
  EXPECT_EQ(back.sizes(), f.sizes());
  EXPECT_EQ(max_abs_diff(back, f), 0.0);
  Tensor e = empty({0, 5}, DType::Int64);
  EXPECT_EQ(io::parse_npy(io::npy_bytes(e), "e.npy").sizes(), (IntList{0, 5}));
  Tensor s = full({}, 3.0);
  EXPECT_EQ(io::parse_npy(io::npy_bytes(s), "s.npy").item(), 3.0);
  Tensor m = empty({4}, DType::Bool);
  for (int i = 0; i < 4; ++i) m.data<bool>()[i] = i % 2;
  Tensor mb = io::parse_npy(io::npy_bytes(m), "m.npy");
  EXPECT_EQ(mb.dtype(), DType::Bool);
  EXPECT_TRUE(mb.data<bool>()[3]);
  // Data starts 64-byte aligned, as numpy writes it.
  const std::vector<uint8_t> bytes = io::npy_bytes(f);
  EXPECT_EQ((bytes.size() - f.nbytes()) % 64, 0u);
}

TEST(Npy, ReadsVersion2Headers) {
  std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\n";
  std::string out = std::string("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((dict.size() >> (8 * i)) & 0xFF));
  out += dict;
  out += std::string("\x05\0\0\0\0\0\0\0\xfa\xff\xff\xff\xff\xff\xff\xff", 16);
  Tensor t = io::parse_npy(to_bytes(out), "v2.npy");
  EXPECT_EQ(t.data<int64_t>()[0], 5);
  EXPECT_EQ(t.data<int64_t>()[1], -6);
}

TEST(Npy, BadHeadersNameFileAndProblem) {
  auto err = [](const std::vector<uint8_t>& b) { return error_of([&] { io::parse_npy(b, "bad.npy"); }); };
  EXPECT_NE(err(to_bytes("PK\x03\x04 not numpy")).find("bad.npy is not a .npy file"), std::string::npos);
  EXPECT_NE(err(npy_with_header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')))
                .find("dtype '<c8' is not supported"),
            std::string::npos);
  EXPECT_NE(err(npy_with_header("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", std::string(4, '\0')))
                .find("needs 6"),
            std::string::npos);
  EXPECT_NE(err(npy_with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0')))
                .find("'>f4'"),
            std::string::npos);
  EXPECT_NE(err(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", std::string(4, '\0')))
                .find("needs 12"),
            std::string::npos);
  EXPECT_NE(err(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", ""))
                .find("too large"),
            std::string::npos);
  EXPECT_NE(err(npy_with_header("{'descr': '<f4', 'shape': (1,), }", std::string(4, '\0'))).find("lacks"),
            std::string::npos);
  EXPECT_NE(err(npy_with_header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", std::string(4, '\0')))
                .find("bad .npy header at offset"),
            std::string::npos);
  EXPECT_NE(err(npy_with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", "\x02"))
                .find("not a bool"),
            std::string::npos);
  std::vector<uint8_t> huge = to_bytes(std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12));
  EXPECT_NE(err(huge).find("limit"), std::string::npos);
  EXPECT_NE(error_of([] { io::read_npy("/nonexistent/x.npy"); }).find("/nonexistent/x.npy"), std::string::npos);
}

TEST(Npy, TruncatedAndCorruptedFilesThrowError) {
  const std::vector<uint8_t> good = io::npy_bytes(rand({3, 5}, 1));
  for (size_t cut = 0; cut < good.size(); ++cut) {
    std::vector<uint8_t> b(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
    ASSERT_NE(error_of([&] { io::parse_npy(b, "cut.npy"); }), "(no error)") << "cut " << cut;
  }
  std::mt19937 rng(5);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> b = good;
    b[rng() % 128] = static_cast<uint8_t>(rng());
    try {
      io::parse_npy(b, "flip.npy");
    } catch (const Error&) {
    }
  }
}
