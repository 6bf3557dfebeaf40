// Moving tensors between the CPU and Vulkan: exact round trips for every shape class.
#include <cstring>

#include "support/test_support.h"

using namespace tvk;

namespace {
void expect_round_trip(const Tensor& cpu) {
  Tensor gpu = cpu.vulkan();
  EXPECT_EQ(gpu.device(), Device::Vulkan);
  EXPECT_EQ(gpu.sizes(), cpu.sizes());
  Tensor back = gpu.cpu();
  EXPECT_EQ(back.device(), Device::CPU);
  ASSERT_EQ(back.sizes(), cpu.sizes());
  Tensor expected = cpu.contiguous();
  EXPECT_EQ(0, std::memcmp(back.raw_data(), expected.raw_data(), expected.nbytes())) << cpu.shape_string();
}
}  // namespace

TEST(RoundTrip, RanksZeroToFour) {
  TVK_NEED_VULKAN();
  expect_round_trip(full({}, 3.25));
  expect_round_trip(tvk::rand({7}, 1));
  expect_round_trip(tvk::rand({5, 3}, 2));
  expect_round_trip(tvk::rand({3, 5, 7}, 3));
  expect_round_trip(tvk::rand({2, 3, 17, 9}, 4));
}

TEST(RoundTrip, EmptyTensors) {
  TVK_NEED_VULKAN();
  expect_round_trip(empty({0}));
  expect_round_trip(empty({2, 0, 3}));
}

TEST(RoundTrip, ChannelsNotMultipleOfFour) {
  TVK_NEED_VULKAN();
  for (int64_t c : {1, 2, 3, 5, 6, 7, 13}) expect_round_trip(tvk::randn({1, c, 5, 4}, static_cast<uint64_t>(c)));
}

TEST(RoundTrip, BatchGreaterThanOne) {
  TVK_NEED_VULKAN();
  expect_round_trip(tvk::randn({4, 3, 8, 8}, 9));
}

TEST(RoundTrip, NonContiguousViews) {
  TVK_NEED_VULKAN();
  Tensor t = tvk::rand({4, 6}, 5);
  expect_round_trip(t.as_strided({6, 4}, {1, 6}, 0));   // transpose
  expect_round_trip(t.as_strided({2, 3}, {12, 2}, 1));  // strided slice with offset
}

TEST(RoundTrip, OtherDtypesKeepTheirBytes) {
  TVK_NEED_VULKAN();
  Tensor i = empty({5}, DType::Int64);
  for (int64_t k = 0; k < 5; ++k) i.data<int64_t>()[k] = (k - 2) * 1000000000000LL;
  expect_round_trip(i);
  Tensor b = empty({3}, DType::Bool);
  b.data<bool>()[1] = true;
  expect_round_trip(b);
}

TEST(RoundTrip, ToDeviceAndNoOpMoves) {
  TVK_NEED_VULKAN();
  Tensor t = tvk::rand({3, 3});
  Tensor g = t.to(Device::Vulkan);
  EXPECT_TRUE(g.to(Device::Vulkan).is_same(g));
  EXPECT_TRUE(t.cpu().is_same(t));
  EXPECT_THROW(g.data<float>(), Error);  // device memory is not host-addressable
  EXPECT_EQ(testing_support::max_abs_diff(g.clone(), t), 0.0);
}

TEST(RoundTrip, LargeTensorBeyondOneMemoryBlock) {
  TVK_NEED_VULKAN();
  // 80 MiB: larger than the pool's 64 MiB block, so it gets a block of its own.
  expect_round_trip(tvk::rand({20, 1024, 1024}, 11));
}
