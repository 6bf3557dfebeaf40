// .npy reading and writing: the header is a Python dict literal, parsed here by a small strict
// parser that accepts exactly what numpy.save writes (in any key order).
#include "io/npy.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>

#include "core/little_endian.h"
#include "tvk/error.h"
#include "tvk/ops.h"

namespace tvk::io {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kMaxHeader = 1 << 20;  // numpy itself refuses headers above 10 KB by default
constexpr int kMaxRank = 64;
constexpr uint64_t kMaxBytes = uint64_t{1} << 36;

// Parser for the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(const std::string& text, size_t base, const std::string& name) : s_(text), base_(base), name_(name) {}

  void parse(std::string& descr, bool& fortran, IntList& shape) {
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{');
    for (;;) {
      skip_space();
      if (peek() == '}') break;
      const size_t key_at = i_;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order") {
        fortran = boolean();
        seen_fortran = true;
      } else if (key == "shape") {
        shape = int_tuple();
        seen_shape = true;
      } else {
        fail(key_at, "unknown header key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip_space();
      if (peek() != '}') fail(i_, "expected ',' or '}' in the header");
    }
    ++i_;
    skip_space();
    if (i_ != s_.size()) fail(i_, "text after the header dict");
    if (!seen_descr || !seen_fortran || !seen_shape)
      fail(0, "the header lacks one of 'descr', 'fortran_order', 'shape'");
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    throw Error(detail::concat(name_, ": bad .npy header at offset ", base_ + at, ": ", what));
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(i_, std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_literal() {
    skip_space();
    const char q = peek();
    if (q != '\'' && q != '"') fail(i_, "expected a quoted string");
    const size_t start = ++i_;
    while (i_ < s_.size() && s_[i_] != q) ++i_;
    if (i_ >= s_.size()) fail(start, "unterminated string");
    return s_.substr(start, i_++ - start);
  }
  bool boolean() {
    skip_space();
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    fail(i_, "expected True or False");
  }
  IntList int_tuple() {
    IntList out;
    expect('(');
    for (;;) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail(i_, "expected a dimension");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (INT64_MAX - 9) / 10) fail(i_, "dimension too large");
        v = v * 10 + (s_[i_++] - '0');
      }
      if (peek() == 'L') ++i_;  // Python 2 longs
      out.push_back(v);
      if (static_cast<int>(out.size()) > kMaxRank) fail(i_, "too many dimensions");
      skip_space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != ')') fail(i_, "expected ',' or ')' in the shape");
    }
    ++i_;
    return out;
  }

  const std::string& s_;
  size_t base_;
  const std::string& name_;
  size_t i_ = 0;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  TVK_CHECK(in.good(), "cannot open '", path, "': no such file or not readable");
  const std::streamoff end = in.tellg();
  TVK_CHECK(end >= 0, "cannot determine the size of '", path, "'");
  std::vector<uint8_t> bytes(static_cast<size_t>(end));
  in.seekg(0);
  if (end > 0) in.read(reinterpret_cast<char*>(bytes.data()), end);
  TVK_CHECK(static_cast<std::streamoff>(in.gcount()) == end, "cannot read '", path, "'");
  return bytes;
}

// The array's elements from data_at on, as a C-order tensor of `shape`.
Tensor read_data(const std::vector<uint8_t>& b, size_t data_at, uint64_t nbytes, const IntList& shape, DType dtype,
                 const std::string& descr, size_t source_size, const std::string& name);
}  // namespace

Tensor parse_npy(const std::vector<uint8_t>& b, const std::string& name) {
  static_assert(std::endian::native == std::endian::little, ".npy data is read as little-endian");
  if (b.size() < kMagicSize + 2 || std::memcmp(b.data(), kMagic, kMagicSize) != 0)
    throw Error(detail::concat(name, " is not a .npy file (no \\x93NUMPY magic)"));
  const uint8_t major = b[6];
  size_t header_len = 0, header_at = 0;
  if (major == 1) {
    TVK_CHECK(b.size() >= 10, name, ": truncated .npy header at offset 8");
    header_len = load_le<uint16_t>(b.data() + 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    TVK_CHECK(b.size() >= 12, name, ": truncated .npy header at offset 8");
    header_len = load_le<uint32_t>(b.data() + 8);
    header_at = 12;
  } else {
    throw Error(detail::concat(name, ": .npy format version ", int{major}, ".", int{b[7]}, " is not supported"));
  }
  TVK_CHECK(header_len <= kMaxHeader, name, ": .npy header of ", header_len, " bytes at offset ", header_at,
            " is larger than the ", kMaxHeader, "-byte limit");
  TVK_CHECK(header_len <= b.size() - header_at, name, ": truncated .npy header at offset ", header_at, " (declares ",
            header_len, " bytes, ", b.size() - header_at, " present)");
  const std::string header(reinterpret_cast<const char*>(b.data() + header_at), header_len);
  std::string descr;
  bool fortran = false;
  IntList shape;
  HeaderParser(header, header_at, name).parse(descr, fortran, shape);

  // The file's element type; float16 and float64 arrive as float32, narrower integers as int64
  // (what tvk computes in).
  struct Source {
    const char* descr;
    DType dtype;
    size_t size;
  };
  static const Source kSources[] = {{"<f4", DType::Float32, 4}, {"<i8", DType::Int64, 8}, {"|b1", DType::Bool, 1},
                                    {"<f2", DType::Float32, 2}, {"<f8", DType::Float32, 8}, {"<i4", DType::Int64, 4},
                                    {"<i2", DType::Int64, 2},   {"|i1", DType::Int64, 1},   {"|u1", DType::Int64, 1}};
  const Source* source = nullptr;
  for (const Source& s : kSources)
    if (descr == s.descr) source = &s;
  TVK_CHECK(source != nullptr, name, ": .npy dtype '", descr,
            "' is not supported (tvk reads '<f4', '<f2', '<f8' as float32, '<i8', '<i4', '<i2', '|i1', '|u1' as "
            "int64, and '|b1' bool)");
  const DType dtype = source->dtype;
  // A Fortran-order array's bytes are the C-order bytes of its transpose: read that, then
  // permute back (and make it contiguous, as every tensor from a file is).
  if (fortran) std::reverse(shape.begin(), shape.end());
  uint64_t nbytes = source->size;
  for (int64_t d : shape) {
    TVK_CHECK(d == 0 || nbytes <= kMaxBytes / static_cast<uint64_t>(d), name, ": .npy shape ", shape_string(shape),
              " is too large");
    nbytes *= static_cast<uint64_t>(d);
  }
  const size_t data_at = header_at + header_len;
  // Bytes past the array are ignored, as numpy's np.load does.
  TVK_CHECK(b.size() - data_at >= nbytes, name, ": .npy data at offset ", data_at, " has ", b.size() - data_at,
            " bytes, but shape ", shape_string(shape), " of ", descr, " needs ", nbytes);
  Tensor out = read_data(b, data_at, nbytes, shape, dtype, descr, source->size, name);
  if (!fortran || shape.size() < 2) return out;
  IntList reversed;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) reversed.push_back(d);
  return permute(out, reversed).contiguous();
}

namespace {
Tensor read_data(const std::vector<uint8_t>& b, size_t data_at, uint64_t nbytes, const IntList& shape, DType dtype,
                 const std::string& descr, size_t source_size, const std::string& name) {
  if (dtype == DType::Bool) {
    for (size_t i = 0; i < nbytes; ++i)
      TVK_CHECK(b[data_at + i] <= 1, name, ": byte at offset ", data_at + i, " is not a bool (", int{b[data_at + i]}, ")");
  }
  Tensor out = empty(shape, dtype);
  if (nbytes == 0) return out;
  const uint8_t* src = b.data() + data_at;
  if (source_size == element_size(dtype)) {
    std::memcpy(out.raw_data(), src, nbytes);
    return out;
  }
  const int64_t n = out.numel();
  auto read = [&](auto tag, int64_t i) {
    decltype(tag) v;
    std::memcpy(&v, src + i * sizeof(v), sizeof(v));  // little-endian, as the descr says (and the host is)
    return v;
  };
  if (descr == "<f2") {
    for (int64_t i = 0; i < n; ++i) out.data<float>()[i] = half_to_float(read(uint16_t{}, i));
  } else if (descr == "<f8") {
    for (int64_t i = 0; i < n; ++i) out.data<float>()[i] = static_cast<float>(read(double{}, i));
  } else if (descr == "<i4") {
    for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = read(int32_t{}, i);
  } else if (descr == "<i2") {
    for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = read(int16_t{}, i);
  } else if (descr == "|i1") {
    for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = read(int8_t{}, i);
  } else {
    for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = read(uint8_t{}, i);
  }
  return out;
}
}  // namespace

Tensor read_npy(const std::string& path) { return parse_npy(read_file(path), path); }

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // infinity, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // normal: rebias 15 -> 127
  } else {
    // zero and subnormals: mantissa * 2^-24, exact in float
    const float v = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
    std::memcpy(&bits, &v, sizeof(bits));
    bits |= sign;
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

std::vector<uint8_t> npy_bytes(const Tensor& tensor) {
  TVK_CHECK(tensor.defined(), "write_npy of an undefined tensor");
  const Tensor t = tensor.cpu().contiguous();
  const char* descr = t.dtype() == DType::Float32 ? "<f4" : t.dtype() == DType::Int64 ? "<i8" : "|b1";
  std::string dict = detail::concat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (");
  for (size_t i = 0; i < t.sizes().size(); ++i) dict += detail::concat(i ? ", " : "", t.sizes()[i]);
  dict += t.sizes().size() == 1 ? ",), }" : "), }";
  // numpy pads with spaces and a final newline so the data starts 64-byte aligned.
  const bool v2 = dict.size() + 1 + 10 > 0xFFFF;
  const size_t prefix = v2 ? 12 : 10;
  const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::string out(kMagic, kMagicSize);
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back(0);
  if (v2) {
    append_le<uint32_t>(out, static_cast<uint32_t>(dict.size()));
  } else {
    append_le<uint16_t>(out, static_cast<uint16_t>(dict.size()));
  }
  out += dict;
  std::vector<uint8_t> bytes(out.begin(), out.end());
  const auto* data = static_cast<const uint8_t*>(t.raw_data());
  bytes.insert(bytes.end(), data, data + t.nbytes());
  return bytes;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  const std::vector<uint8_t> bytes = npy_bytes(tensor);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  TVK_CHECK(out.good(), "cannot open '", path, "' for writing");
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  TVK_CHECK(out.good(), "writing '", path, "' failed");
}

}  // namespace tvk::io
