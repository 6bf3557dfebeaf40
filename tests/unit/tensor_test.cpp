// Core tensors: factories, views, strides, contiguity and their errors.
#include <limits>

#include "support/test_support.h"
#include "tvk/ops.h"

using namespace tvk;

TEST(Tensor, FactoriesFillValues) {
  Tensor z = zeros({2, 3});
  Tensor o = ones({2, 3});
  Tensor f = full({4}, 2.5);
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(z.data<float>()[i], 0.f);
    EXPECT_EQ(o.data<float>()[i], 1.f);
  }
  EXPECT_EQ(f.data<float>()[3], 2.5f);
  EXPECT_EQ(z.strides(), (IntList{3, 1}));
  EXPECT_TRUE(z.is_contiguous());
}

TEST(Tensor, RandIsDeterministicPerSeedAndInRange) {
  Tensor a = tvk::rand({100}, 7), b = tvk::rand({100}, 7), c = tvk::rand({100}, 8);
  EXPECT_EQ(testing_support::max_abs_diff(a, b), 0.0);
  EXPECT_GT(testing_support::max_abs_diff(a, c), 0.0);
  for (int64_t i = 0; i < 100; ++i) {
    EXPECT_GE(a.data<float>()[i], 0.f);
    EXPECT_LT(a.data<float>()[i], 1.f);
  }
}

TEST(Tensor, FromBlobSharesCallerMemory) {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(data.data(), {2, 3});
  data[4] = 42;
  EXPECT_EQ(t.data<float>()[4], 42.f);
  EXPECT_EQ(t.sizes(), (IntList{2, 3}));
}

TEST(Tensor, ViewInfersMinusOneAndRejectsBadShapes) {
  Tensor t = tvk::rand({2, 3, 4});
  EXPECT_EQ(t.view({-1, 4}).sizes(), (IntList{6, 4}));
  EXPECT_THROW(t.view({5, -1}), Error);
  EXPECT_THROW(t.view({-1, -1}), Error);
  EXPECT_THROW(t.view({7, 7}), Error);
}

TEST(Tensor, TransposedViewIsNotContiguousAndContiguousCopies) {
  Tensor t = tensor_from({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor tt = t.as_strided({3, 2}, {1, 3}, 0);  // transpose
  EXPECT_FALSE(tt.is_contiguous());
  Tensor c = tt.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  const float expected[] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c.data<float>()[i], expected[i]);
  EXPECT_THROW(tt.view({6}), Error);
  EXPECT_EQ(tt.reshape({6}).data<float>()[1], 4.f);
}

TEST(Tensor, AsStridedOutsideStorageThrows) {
  Tensor t = zeros({4});
  EXPECT_THROW(t.as_strided({5}, {1}, 0), Error);
  EXPECT_THROW(t.as_strided({2}, {1}, 3), Error);
}

TEST(Tensor, DataAccessChecksDtype) {
  Tensor t = zeros({2}, DType::Int64);
  EXPECT_NO_THROW(t.data<int64_t>());
  EXPECT_THROW(t.data<float>(), Error);
  EXPECT_EQ(element_size(DType::Int64), 8u);
}

TEST(Tensor, NegativeSizesAndHugeTensorsAreErrors) {
  EXPECT_THROW(empty({-1, 2}), Error);
  EXPECT_THROW(empty({int64_t{1} << 30, int64_t{1} << 30}), Error);
}

TEST(Tensor, ItemReadsOneElement) {
  EXPECT_DOUBLE_EQ(full({1, 1}, 3.0).item(), 3.0);
  EXPECT_THROW(zeros({2}).item(), Error);
}

TEST(Device, ParsesPyTorchNames) {
  EXPECT_EQ(parse_device("vulkan"), Device::Vulkan);
  EXPECT_EQ(parse_device("cpu:0"), Device::CPU);
  EXPECT_THROW(parse_device("cuda"), Error);
}

// Sizes come from model files: their products must not wrap (issue 14's hostile view wrapped
// [4611686018427387905, 4] to 4 elements).
TEST(Tensor, SizeProductsThatOverflowAreErrors) {
  const int64_t huge = int64_t{1} << 62;
  EXPECT_THROW(numel_of({huge + 1, 4}), Error);
  EXPECT_THROW(contiguous_strides({0, huge, 4}), Error);
  EXPECT_THROW(ones({4}).view({huge + 1, 4}), Error);
  EXPECT_THROW(ones({4}).view({-1, huge, 8}), Error);
  EXPECT_THROW(empty({huge, 4}), Error);
  EXPECT_EQ(numel_of({0, huge, 2}), 0);
  EXPECT_THROW(numel_of({huge, 4, 0}), Error);  // empty, but a partial product wraps: refused
}

TEST(Tensor, ViewsReachingPastTheirStorageAreErrorsWhenMade) {
  Tensor t = ones({2, 3});
  EXPECT_THROW(t.as_strided({2, 2}, {int64_t{1} << 62, 1}, 0), Error);      // reach overflows
  EXPECT_THROW(t.as_strided({2}, {(int64_t{1} << 62) + 1}, 5), Error);     // wraps back inside
  EXPECT_THROW(t.as_strided({1}, {1}, 6), Error);                          // one past the end
  EXPECT_THROW(t.as_strided({3}, {-1}, 2), Error);                         // negative stride
  EXPECT_NO_THROW(t.as_strided({0, 5}, {100, 100}, 6));                    // empty views reach nothing
  EXPECT_NO_THROW(t.as_strided({3}, {2}, 1));
  EXPECT_THROW(check_view_in_bounds({4}, {1}, 0, 4, 15), Error);
  EXPECT_NO_THROW(check_view_in_bounds({4}, {1}, 0, 4, 16));
}

TEST(Tensor, SliceStepsNearInt64MaxDoNotWrap) {
  Tensor t = tvk::rand({10}, 3);
  Tensor s = tvk::slice(t, 0, 1, std::nullopt, std::numeric_limits<int64_t>::max());
  ASSERT_EQ(s.sizes(), (IntList{1}));
  EXPECT_EQ(s.contiguous().data<float>()[0], t.data<float>()[1]);
}
