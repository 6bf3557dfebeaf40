#include "tvk/tensor.h"

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "core/storage.h"

namespace tvk {

const char* to_string(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
  }
  return "?";
}

const char* to_string(Device d) { return d == Device::CPU ? "cpu" : "vulkan"; }

Device parse_device(const std::string& name) {
  std::string base = name.substr(0, name.find(':'));
  if (base == "cpu") return Device::CPU;
  if (base == "vulkan") return Device::Vulkan;
  throw Error(detail::concat("unknown device '", name, "' (expected cpu or vulkan)"));
}

IntList contiguous_strides(const IntList& sizes) {
  IntList strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    if (__builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s))
      throw Error(detail::concat("the strides of sizes ", shape_string(sizes), " overflow int64"));
  }
  return strides;
}

int64_t numel_of(const IntList& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    if (__builtin_mul_overflow(n, s, &n))
      throw Error(detail::concat("sizes ", shape_string(sizes), " hold more elements than int64 counts"));
  return n;
}

uint64_t view_end_bytes(const IntList& sizes, const IntList& strides, int64_t offset, size_t element_size) {
  TVK_CHECK(sizes.size() == strides.size(), "sizes ", shape_string(sizes), " and strides ", shape_string(strides),
            " differ in rank");
  TVK_CHECK(offset >= 0, "negative storage offset ", offset);
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TVK_CHECK(sizes[i] >= 0 && strides[i] >= 0, "negative size or stride in sizes ", shape_string(sizes),
              ", strides ", shape_string(strides));
    if (sizes[i] == 0) empty = true;
  }
  (void)numel_of(sizes);  // throws on overflow, even for views that hold no element
  if (empty) return 0;
  int64_t last = offset;  // the last element the view reaches
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t reach = 0;
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach);
    overflow |= __builtin_add_overflow(last, reach, &last);
  }
  uint64_t end_bytes = 0;
  overflow |= __builtin_mul_overflow(static_cast<uint64_t>(last) + 1, static_cast<uint64_t>(element_size), &end_bytes);
  TVK_CHECK(!overflow, "the view with sizes ", shape_string(sizes), ", strides ", shape_string(strides),
            " and offset ", offset, " reaches past what 64-bit offsets address");
  return end_bytes;
}

void check_view_in_bounds(const IntList& sizes, const IntList& strides, int64_t offset, size_t element_size,
                          size_t storage_bytes) {
  TVK_CHECK(view_end_bytes(sizes, strides, offset, element_size) <= storage_bytes, "the view with sizes ",
            shape_string(sizes), ", strides ", shape_string(strides), " and offset ", offset,
            " reaches past the end of its ", storage_bytes, "-byte storage");
}

std::string shape_string(const IntList& sizes) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < sizes.size(); ++i) out << (i ? ", " : "") << sizes[i];
  out << ']';
  return out.str();
}

Tensor::Tensor(std::shared_ptr<Storage> storage, IntList sizes, IntList strides, int64_t offset, DType dtype)
    : storage_(std::move(storage)), sizes_(std::move(sizes)), strides_(std::move(strides)), offset_(offset),
      dtype_(dtype) {
  TVK_CHECK(sizes_.size() == strides_.size(), "tensor sizes ", tvk::shape_string(sizes_), " and strides ",
            tvk::shape_string(strides_), " differ in rank");
  for (int64_t s : sizes_) TVK_CHECK(s >= 0, "negative size in ", tvk::shape_string(sizes_));
  if (storage_) check_view_in_bounds(sizes_, strides_, offset_, element_size(dtype_), storage_->nbytes());
  else (void)numel_of(sizes_);
}

int64_t Tensor::size(int64_t d) const {
  int64_t n = dim();
  TVK_CHECK(d >= -n && d < n, "dimension ", d, " out of range for a tensor of rank ", n);
  return sizes_[d < 0 ? d + n : d];
}

int64_t Tensor::stride(int64_t d) const {
  int64_t n = dim();
  TVK_CHECK(d >= -n && d < n, "dimension ", d, " out of range for a tensor of rank ", n);
  return strides_[d < 0 ? d + n : d];
}

int64_t Tensor::numel() const { return numel_of(sizes_); }

Device Tensor::device() const { return storage_ ? storage_->device() : Device::CPU; }

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) return false;
    expected *= sizes_[i];
  }
  return true;
}

std::string Tensor::shape_string() const { return tvk::shape_string(sizes_); }

bool Tensor::is_same(const Tensor& o) const {
  return storage_ == o.storage_ && sizes_ == o.sizes_ && strides_ == o.strides_ && offset_ == o.offset_;
}

void Tensor::check_data_access(DType want) const {
  TVK_CHECK(defined(), "data access on an undefined tensor");
  TVK_CHECK(dtype_ == want, "tensor holds ", to_string(dtype_), ", not ", to_string(want));
}

void* Tensor::raw_data() const {
  TVK_CHECK(defined(), "data access on an undefined tensor");
  TVK_CHECK(device() == Device::CPU, "tensor data is on ", to_string(device()), "; call .cpu() first");
  auto* base = static_cast<uint8_t*>(static_cast<CpuStorage*>(storage_.get())->data());
  return base + offset_ * static_cast<int64_t>(element_size(dtype_));
}

namespace {

// Copies a strided CPU view into contiguous memory at `dst`.
void copy_strided_to_contiguous(const Tensor& src, uint8_t* dst) {
  const size_t es = element_size(src.dtype());
  const int64_t n = src.numel();
  if (n == 0) return;
  auto* base = static_cast<const uint8_t*>(src.raw_data());
  if (src.is_contiguous()) {
    std::memcpy(dst, base, static_cast<size_t>(n) * es);
    return;
  }
  const int64_t rank = src.dim();
  IntList index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d) off += index[d] * src.strides()[d];
    std::memcpy(dst + i * es, base + off * static_cast<int64_t>(es), es);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < src.sizes()[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

Tensor Tensor::to(Device target) const {
  TVK_CHECK(defined(), "cannot move an undefined tensor to ", to_string(target));
  const Device here = device();
  if (here == target) return *this;
  if (target == Device::CPU) {
    // Device tensors are contiguous with offset 0 (an invariant of every backend).
    DeviceBackend& backend = require_device_backend(here);
    Tensor out = empty(sizes_, dtype_, Device::CPU);
    backend.download(*storage_, out.raw_data(), nbytes());
    return out;
  }
  DeviceBackend& backend = require_device_backend(target);
  Tensor src = contiguous();
  auto storage = backend.allocate(nbytes());
  backend.upload(storage, src.raw_data(), nbytes());
  return Tensor(std::move(storage), sizes_, contiguous_strides(sizes_), 0, dtype_);
}

Tensor Tensor::as_strided(IntList sizes, IntList strides, int64_t offset) const {
  TVK_CHECK(defined(), "as_strided on an undefined tensor");
  Tensor out(storage_, std::move(sizes), std::move(strides), offset, dtype_);
  if (device() != Device::CPU)
    TVK_CHECK(out.is_contiguous() && offset == 0, "a ", to_string(device()),
              " tensor can only be viewed contiguously; got strides ", tvk::shape_string(out.strides_));
  // Bounds: checked by the constructor (check_view_in_bounds).
  return out;
}

Tensor Tensor::view(IntList sizes) const {
  TVK_CHECK(defined(), "view of an undefined tensor");
  // Resolve one -1.
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      TVK_CHECK(infer < 0, "view: only one dimension can be -1, got ", tvk::shape_string(sizes));
      infer = static_cast<int64_t>(i);
    } else {
      TVK_CHECK(sizes[i] >= 0, "view: invalid size ", sizes[i], " in ", tvk::shape_string(sizes));
      TVK_CHECK(!__builtin_mul_overflow(known, sizes[i], &known), "view: shape ", tvk::shape_string(sizes),
                " holds more elements than int64 counts");
    }
  }
  if (infer >= 0) {
    TVK_CHECK(known != 0 && numel() % known == 0, "shape ", tvk::shape_string(sizes),
              " is invalid for input of size ", numel());
    sizes[infer] = numel() / known;
  }
  TVK_CHECK(numel_of(sizes) == numel(), "shape ", tvk::shape_string(sizes), " is invalid for input of size ",
            numel());
  TVK_CHECK(is_contiguous(), "view ", tvk::shape_string(sizes), " of a non-contiguous tensor ", shape_string(),
            "; use reshape()");
  IntList strides = contiguous_strides(sizes);
  return Tensor(storage_, std::move(sizes), std::move(strides), offset_, dtype_);
}

Tensor Tensor::contiguous() const {
  if (!defined() || is_contiguous()) return *this;
  TVK_CHECK(device() == Device::CPU, "non-contiguous ", to_string(device()), " tensor");
  Tensor out = empty(sizes_, dtype_);
  copy_strided_to_contiguous(*this, static_cast<uint8_t*>(out.raw_data()));
  return out;
}

Tensor Tensor::clone() const {
  TVK_CHECK(defined(), "clone of an undefined tensor");
  if (device() == Device::CPU) {
    Tensor out = empty(sizes_, dtype_);
    copy_strided_to_contiguous(*this, static_cast<uint8_t*>(out.raw_data()));
    return out;
  }
  DeviceBackend& backend = require_device_backend(device());
  auto storage = backend.allocate(nbytes());
  backend.copy(storage_, storage, nbytes());
  return Tensor(std::move(storage), sizes_, strides_, 0, dtype_);
}

Tensor Tensor::reshape(IntList sizes) const {
  if (is_contiguous()) return view(std::move(sizes));
  return contiguous().view(std::move(sizes));
}

double Tensor::item() const {
  TVK_CHECK(defined() && numel() == 1, "item() needs a one-element tensor, got ", shape_string());
  Tensor c = cpu();
  switch (dtype_) {
    case DType::Float32: return *c.data<float>();
    case DType::Int64: return static_cast<double>(*c.data<int64_t>());
    case DType::Bool: return *c.data<bool>() ? 1.0 : 0.0;
  }
  return 0;
}

Tensor empty(IntList sizes, DType dtype, Device device) {
  for (int64_t s : sizes) TVK_CHECK(s >= 0, "empty: negative size in ", shape_string(sizes));
  const int64_t n = numel_of(sizes);
  // Guard against sizes whose product overflows or cannot be addressed.
  TVK_CHECK(n >= 0 && n < (int64_t{1} << 40), "empty: tensor of ", n, " elements is too large");
  const size_t nbytes = static_cast<size_t>(n) * element_size(dtype);
  IntList strides = contiguous_strides(sizes);
  if (device == Device::CPU)
    return Tensor(std::make_shared<CpuStorage>(nbytes), std::move(sizes), std::move(strides), 0, dtype);
  DeviceBackend& backend = require_device_backend(device);
  return Tensor(backend.allocate(nbytes), std::move(sizes), std::move(strides), 0, dtype);
}

Tensor full(IntList sizes, double value, DType dtype, Device device) {
  Tensor t = empty(sizes, dtype);
  const int64_t n = t.numel();
  switch (dtype) {
    case DType::Float32: std::fill_n(t.data<float>(), n, static_cast<float>(value)); break;
    case DType::Int64: std::fill_n(t.data<int64_t>(), n, static_cast<int64_t>(value)); break;
    case DType::Bool: std::fill_n(t.data<bool>(), n, value != 0); break;
  }
  return t.to(device);
}

Tensor zeros(IntList sizes, DType dtype, Device device) { return full(std::move(sizes), 0.0, dtype, device); }
Tensor ones(IntList sizes, DType dtype, Device device) { return full(std::move(sizes), 1.0, dtype, device); }

Tensor rand(IntList sizes, uint64_t seed, Device device) {
  Tensor t = empty(std::move(sizes));
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(0.f, 1.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = dist(gen);
  return t.to(device);
}

Tensor randn(IntList sizes, uint64_t seed, Device device) {
  Tensor t = empty(std::move(sizes));
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = dist(gen);
  return t.to(device);
}

Tensor from_blob(void* data, IntList sizes, DType dtype, IntList strides) {
  TVK_CHECK(data != nullptr || numel_of(sizes) == 0, "from_blob: null data");
  if (strides.empty() && !sizes.empty()) strides = contiguous_strides(sizes);
  const size_t nbytes = view_end_bytes(sizes, strides, 0, element_size(dtype));
  auto storage = std::make_shared<CpuStorage>(data, nbytes, nullptr);
  return Tensor(std::move(storage), std::move(sizes), std::move(strides), 0, dtype);
}

Tensor tensor_from(const std::vector<float>& values, IntList sizes) {
  TVK_CHECK(numel_of(sizes) == static_cast<int64_t>(values.size()), "tensor_from: ", values.size(),
            " values do not fill ", shape_string(sizes));
  Tensor t = empty(std::move(sizes));
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

}  // namespace tvk
