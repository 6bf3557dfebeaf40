#include "ops/block_copy.h"

#include <limits>

#include "ops/shape_utils.h"
#include "tvk/error.h"

namespace tvk::ops {

namespace {
std::vector<std::pair<int64_t, int64_t>> whole(const IntList& sizes) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (int64_t s : sizes) r.emplace_back(0, s);
  return r;
}
}  // namespace

BlockPlan roll_plan(const Tensor& self, const IntList& shifts, const IntList& dims) {
  const char* op = "aten::roll";
  check_defined(op, self);
  TVK_CHECK(!shifts.empty(), op, ": shifts must not be empty");
  TVK_CHECK(dims.empty() ? shifts.size() == 1 : shifts.size() == dims.size(), op, ": ", shifts.size(),
            " shifts for ", dims.size(), " dims (without dims, one shift rolls the flattened tensor)");
  BlockPlan plan;
  plan.out_sizes = self.sizes();
  plan.blocks.push_back({whole(self.sizes()), whole(self.sizes())});
  const int64_t rank = self.dim();
  const IntList rolled = dims.empty() ? IntList{0} : dims;
  TVK_CHECK(!dims.empty() || rank == 1, op, ": without dims the tensor is rolled flattened (view it as 1-D first)");
  for (size_t i = 0; i < rolled.size(); ++i) {
    const int64_t d = wrap_dim(op, rolled[i], rank);
    const int64_t n = self.sizes()[d];
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;  // output index (j + s) mod n takes input j
    if (s == 0) continue;
    // Each block so far splits in two along d: input [0, n - s) goes to [s, n), [n - s, n) to [0, s).
    std::vector<Block> next;
    for (const Block& b : plan.blocks) {
      Block lo = b, hi = b;
      lo.src[d] = {0, n - s};
      lo.dst[d] = {s, n};
      hi.src[d] = {n - s, n};
      hi.dst[d] = {0, s};
      next.push_back(lo);
      next.push_back(hi);
    }
    plan.blocks = std::move(next);
  }
  return plan;
}

BlockPlan pad_plan(const char* op, const Tensor& self, const IntList& pad, double value) {
  check_defined(op, self);
  TVK_CHECK(pad.size() % 2 == 0, op, ": the padding has ", pad.size(), " values; it must be pairs (before, after)");
  const int64_t rank = self.dim();
  TVK_CHECK(static_cast<int64_t>(pad.size() / 2) <= rank, op, ": ", pad.size() / 2,
            " padded dimensions for a tensor of rank ", rank);
  BlockPlan plan;
  plan.fill = true;
  plan.value = value;
  plan.out_sizes = self.sizes();
  Block b{whole(self.sizes()), whole(self.sizes())};
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 4;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = rank - 1 - static_cast<int64_t>(i);
    const int64_t before = pad[2 * i], after = pad[2 * i + 1], n = self.sizes()[d];
    TVK_CHECK(before > -kMax && before < kMax && after > -kMax && after < kMax, op, ": padding ", before, ", ",
              after, " is out of range");
    const int64_t out = n + before + after;
    TVK_CHECK(out >= 0, op, ": padding (", before, ", ", after, ") of dimension ", d, " (size ", n,
              ") leaves a negative size");
    plan.out_sizes[d] = out;
    // Negative pads crop the input; the rest of the input lands `before` along.
    const int64_t src_lo = std::max<int64_t>(0, -before), src_hi = n - std::max<int64_t>(0, -after);
    b.src[d] = {src_lo, std::max(src_lo, src_hi)};
    b.dst[d] = {src_lo + before, std::max(src_lo, src_hi) + before};
  }
  bool empty = false;
  for (const auto& r : b.src) empty |= r.second <= r.first;
  if (!empty) plan.blocks.push_back(b);
  return plan;
}

ViewGeometry block_geometry(const Tensor& t, const std::vector<std::pair<int64_t, int64_t>>& ranges) {
  ViewGeometry g = geometry_of(t);
  for (size_t d = 0; d < ranges.size(); ++d) {
    g.offset += ranges[d].first * g.strides[d];
    g.sizes[d] = ranges[d].second - ranges[d].first;
  }
  return g;
}

}  // namespace tvk::ops
