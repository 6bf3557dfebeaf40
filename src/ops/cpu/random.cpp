// CPU kernels of the random fills (ops/random.h): rand_like, randn_like, uniform_, normal_.
#include <atomic>
#include <chrono>

#include "ops/random.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops {

uint64_t next_random_seed() {
  static const uint64_t start =
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9e3779b97f4a7c15ull;
  static std::atomic<uint64_t> counter{0};
  return start ^ (counter.fetch_add(1) * 0xbf58476d1ce4e5b9ull);
}

namespace cpu {
namespace {

// Fills `out` (contiguous float32) with `uniform` ? U[lo, hi) : N(lo, hi).
void fill(const Tensor& out, bool uniform, double lo, double hi) {
  const uint64_t seed = next_random_seed();
  const auto s_lo = static_cast<uint32_t>(seed), s_hi = static_cast<uint32_t>(seed >> 32);
  float* p = out.data<float>();
  for (int64_t i = 0; i < out.numel(); ++i) {
    const auto idx = static_cast<uint32_t>(i);
    p[i] = uniform ? static_cast<float>(lo + (hi - lo) * random_uniform(s_lo, s_hi, idx, 0))
                   : static_cast<float>(lo + hi * random_normal(s_lo, s_hi, idx));
  }
}

void check_like(const char* op, const Tensor& self, std::optional<int64_t> dtype, std::optional<Device> device) {
  check_defined(op, self);
  check_float_dtype_arg(op, dtype ? dtype : std::optional<int64_t>(dtype_code(self.dtype())));
  TVK_CHECK(!device || *device == Device::CPU, op, ": a device other than the input's is not supported");
}

Tensor rand_like(const Tensor& self, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<Device> device,
                 std::optional<bool>, std::optional<int64_t>) {
  check_like("aten::rand_like", self, dtype, device);
  Tensor out = empty(self.sizes());
  fill(out, true, 0.0, 1.0);
  return out;
}
Tensor randn_like(const Tensor& self, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<Device> device,
                  std::optional<bool>, std::optional<int64_t>) {
  check_like("aten::randn_like", self, dtype, device);
  Tensor out = empty(self.sizes());
  fill(out, false, 0.0, 1.0);
  return out;
}
// In place: drawn contiguous, then written through self's strides.
Tensor fill_in_place(const char* op, const Tensor& self, bool uniform, double a, double b) {
  check_float(op, self);
  Tensor drawn = empty(self.sizes());
  fill(drawn, uniform, a, b);
  return call("aten::copy_", {IValue(self), IValue(drawn), IValue(false)}).toTensor();
}
Tensor uniform_(const Tensor& self, double from, double to, IValue) {
  TVK_CHECK(from <= to, "aten::uniform_: expects to return a [from, to) range, but found from=", from, " > to=", to);
  return fill_in_place("aten::uniform_", self, true, from, to);
}
Tensor normal_(const Tensor& self, double mean, double std, IValue) {
  TVK_CHECK(std >= 0, "aten::normal_: expects std >= 0.0, but found std ", std);
  return fill_in_place("aten::normal_", self, false, mean, std);
}

}  // namespace
}  // namespace cpu

TVK_REGISTER_OP("aten::rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                cpu::rand_like);
TVK_REGISTER_OP("aten::randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                cpu::randn_like);
TVK_REGISTER_OP("aten::uniform_(Tensor(a!) self, float from=0, float to=1, *, Any? generator=None) -> Tensor(a!)",
                cpu::uniform_);
TVK_REGISTER_OP("aten::normal_(Tensor(a!) self, float mean=0, float std=1, *, Any? generator=None) -> Tensor(a!)",
                cpu::normal_);

}  // namespace tvk::ops
