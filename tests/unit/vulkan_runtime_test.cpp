// The Vulkan runtime: device choice, pooled memory, pipeline cache, command stream, timestamps.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "support/test_support.h"
#include "tvk/ops.h"
#include "tvk/vulkan_info.h"
#include "vulkan/api/context.h"
#include "vulkan/api/faults.h"
#include "vulkan/api/memory_pool.h"
#include "vulkan/api/shader_library.h"
#include "vulkan/api/spirv_reflect.h"
#include "vulkan/ops/shader_dispatch.h"
#include "vulkan/ops/strided_copy.h"

using namespace tvk;

TEST(VulkanRuntime, AvailabilityIsStableAndInfoListsTheSelectedDevice) {
  TVK_NEED_VULKAN();
  EXPECT_TRUE(is_vulkan_available());
  VulkanInfo info = vulkan_info();
  EXPECT_TRUE(info.built);
  EXPECT_TRUE(info.loader_found);
  int selected = 0;
  for (const auto& d : info.devices) selected += d.selected ? 1 : 0;
  EXPECT_EQ(selected, 1);
  if (testing_support::validation_required()) {
    EXPECT_TRUE(info.validation) << "TVK_VALIDATION is set but the validation layer is not active";
  }
}

TEST(VulkanRuntime, DeviceSelectionPrefersDiscreteAndHonoursOverride) {
  using vulkan::PhysicalDeviceInfo;
  std::vector<PhysicalDeviceInfo> devs(3);
  devs[0].name = "llvmpipe";
  devs[0].type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  devs[1].name = "Some iGPU";
  devs[1].type = VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
  devs[2].name = "Big dGPU";
  devs[2].type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  for (uint32_t i = 0; i < 3; ++i) {
    devs[i].index = i;
    devs[i].compute_queue_family = 0;
    devs[i].api_version = VK_API_VERSION_1_1;
  }
  EXPECT_EQ(vulkan::select_physical_device(devs, "").name, "Big dGPU");
  EXPECT_EQ(vulkan::select_physical_device(devs, "0").name, "llvmpipe");
  EXPECT_EQ(vulkan::select_physical_device(devs, "iGPU").name, "Some iGPU");
  EXPECT_THROW(vulkan::select_physical_device(devs, "nonexistent"), Error);
  EXPECT_THROW(vulkan::select_physical_device(devs, "7"), Error);
  devs[2].compute_queue_family = -1;  // unusable devices are never picked
  EXPECT_EQ(vulkan::select_physical_device(devs, "").name, "Some iGPU");
  EXPECT_THROW(vulkan::select_physical_device(devs, "Big"), Error);
  EXPECT_THROW(vulkan::select_physical_device({}, ""), Error);
}

// Issue 14: tvk reads and writes mapped memory with memcpy and never flushes or invalidates,
// so memory it maps must be host-coherent. lavapipe offers only coherent types, so the choice
// is checked on a made-up device: a cached but non-coherent type must never be staging memory
// nor mapped, however much better it would otherwise rank.
TEST(VulkanRuntime, NonCoherentMemoryIsNeverStagingNorMapped) {
  using tvk::vulkan::MemoryUsage;
  VkPhysicalDeviceMemoryProperties mem{};
  mem.memoryHeapCount = 2;
  mem.memoryHeaps[0].size = VkDeviceSize{8} << 30;  // device
  mem.memoryHeaps[1].size = VkDeviceSize{16} << 30;  // host
  mem.memoryTypeCount = 4;
  mem.memoryTypes[0] = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
  mem.memoryTypes[1] = {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1};
  mem.memoryTypes[2] = {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 1};
  mem.memoryTypes[3] = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0};
  EXPECT_EQ(tvk::vulkan::memory_type_candidates(mem, 0xF, MemoryUsage::Staging), std::vector<uint32_t>{2});
  EXPECT_TRUE(tvk::vulkan::memory_type_candidates(mem, 0xB, MemoryUsage::Staging).empty())
      << "no coherent host-visible type allowed: staging has no type";
  // Device tensors: device-local first (the non-coherent BAR type is not taken as mappable).
  const std::vector<uint32_t> tensor = tvk::vulkan::memory_type_candidates(mem, 0xF, MemoryUsage::DeviceTensor);
  ASSERT_FALSE(tensor.empty());
  EXPECT_EQ(tensor.front(), 0u);
  for (uint32_t i = 0; i < mem.memoryTypeCount; ++i)
    EXPECT_EQ(tvk::vulkan::maps_memory_type(mem.memoryTypes[i].propertyFlags), i == 2) << "type " << i;
}

TEST(VulkanRuntime, ManyTensorsShareFewMemoryBlocks) {
  TVK_NEED_VULKAN();
  auto& memory = vulkan::Context::get()->memory();
  const auto before = memory.stats();
  std::vector<Tensor> tensors;
  for (int i = 0; i < 200; ++i) tensors.push_back(empty({1, 3, 16, 16}, DType::Float32, Device::Vulkan));
  const auto during = memory.stats();
  EXPECT_LE(during.allocations - before.allocations, 1u) << "sub-allocation should not call vkAllocateMemory per tensor";
  EXPECT_GE(during.used_bytes, before.used_bytes + 200u * 3 * 16 * 16 * 4);
  tensors.clear();
  vulkan::Context::get()->stream().synchronize();
  EXPECT_EQ(memory.stats().used_bytes, before.used_bytes);
}

TEST(VulkanRuntime, MemoryIsReusedAfterFree) {
  TVK_NEED_VULKAN();
  auto& memory = vulkan::Context::get()->memory();
  { Tensor warm = empty({1 << 20}, DType::Float32, Device::Vulkan); }
  const auto before = memory.stats().allocations;
  for (int i = 0; i < 20; ++i) Tensor t = empty({1 << 20}, DType::Float32, Device::Vulkan);
  EXPECT_EQ(memory.stats().allocations, before);
}

// Every shader built into tvk compiles (GLSL under TVK_USE_SHADERC_RUNTIME) and has an
// interface tvk can bind, including those only GPUs choose (conv2d_oc8_storage, a variant built
// from conv2d_oc8.glsl), which lavapipe's runs would otherwise never compile.
TEST(VulkanRuntime, EveryBuiltInShaderCompilesAndReflects) {
  const std::vector<std::string> names = vulkan::shader_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "conv2d_oc8_storage"), names.end());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const std::vector<uint32_t> words = vulkan::shader_spirv(name);
    ASSERT_FALSE(words.empty());
    const vulkan::ShaderInterface iface = vulkan::reflect_shader(name, words);
    EXPECT_FALSE(iface.bindings.empty());
  }
}

TEST(VulkanRuntime, PipelineCacheIsWrittenToTheCacheDirectory) {
  TVK_NEED_VULKAN();
  auto& pipelines = vulkan::Context::get()->pipelines();
  Tensor x = tvk::rand({8}).vulkan();
  relu(x).cpu();  // makes at least one pipeline
  ASSERT_FALSE(pipelines.cache_file().empty());
  pipelines.save();
  EXPECT_TRUE(std::filesystem::exists(pipelines.cache_file())) << pipelines.cache_file();
  // At least the VkPipelineCache header (some drivers, lavapipe among them, store no more).
  EXPECT_GE(std::filesystem::file_size(pipelines.cache_file()), 16u + VK_UUID_SIZE);
  // The next process (here: a second cache object) accepts the file as its own device's.
  vulkan::PipelineCache reloaded(vulkan::Context::get()->device(), pipelines.cache_file());
  EXPECT_EQ(reloaded.loaded_bytes(), std::filesystem::file_size(pipelines.cache_file()));
}

TEST(VulkanRuntime, PipelineCacheRejectsAForeignFile) {
  TVK_NEED_VULKAN();
  auto ctx = vulkan::Context::get();
  const std::string path = ::testing::TempDir() + "/tvk_foreign_cache.bin";
  {
    std::ofstream out(path, std::ios::binary);
    std::string junk(4096, '\x7f');
    out << junk;
  }
  // A corrupt file is ignored (compiles start from scratch), never handed to the driver.
  vulkan::PipelineCache cache(ctx->device(), path);
  EXPECT_EQ(cache.loaded_bytes(), 0u);
  const auto& p = cache.get({"unary", 2, {64, 1, 1}, {0}});
  EXPECT_NE(p.handle(), VK_NULL_HANDLE);
  std::filesystem::remove(path);
}

TEST(VulkanRuntime, UnknownShaderIsAClearError) {
  TVK_NEED_VULKAN();
  auto& pipelines = vulkan::Context::get()->pipelines();
  try {
    pipelines.get({"no_such_shader", 1, {64, 1, 1}, {}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_shader"), std::string::npos);
  }
}

TEST(VulkanRuntime, CommandStreamBatchesDispatchesUntilASyncPoint) {
  TVK_NEED_VULKAN();
  auto& stream = vulkan::Context::get()->stream();
  stream.synchronize();
  Tensor x = tvk::randn({1000}, 3).vulkan();
  const uint64_t submits = stream.submits();
  Tensor y = x;
  for (int i = 0; i < 10; ++i) y = add(y, 1.0);
  EXPECT_EQ(stream.submits(), submits) << "dispatches should be recorded, not submitted one by one";
  Tensor out = y.cpu();
  EXPECT_EQ(stream.submits(), submits + 1);
  EXPECT_LT(testing_support::max_abs_diff(out, add(x.cpu(), 10.0)), 1e-5);
}

TEST(VulkanRuntime, TimestampsMeasureDispatches) {
  TVK_NEED_VULKAN();
  auto& stream = vulkan::Context::get()->stream();
  if (!stream.timestamps_supported()) GTEST_SKIP() << "device has no timestamp queries";
  Tensor x = tvk::randn({1 << 16}).vulkan();
  stream.reset_timestamps();
  const uint32_t a = stream.mark_timestamp();
  Tensor y = relu(x);
  const uint32_t b = stream.mark_timestamp();
  stream.synchronize();
  EXPECT_GE(stream.elapsed_ns(a, b), 0.0);
  EXPECT_LT(stream.elapsed_ns(a, b), 10e9);
}

TEST(VulkanRuntime, ValidationLayerReportsAnInvalidCall) {
  TVK_NEED_VULKAN();
  if (!vulkan::Context::get()->instance().validation_enabled()) {
    if (testing_support::validation_required()) FAIL() << "the validation layer is not active";
    GTEST_SKIP() << "no validation layer";
  }
  // The tests' guarantee "no validation message" is only worth something if messages arrive.
  auto ctx = vulkan::Context::get();
#if TVK_USE_VULKAN_WRAPPER
  ASSERT_EQ(volkInitialize(), VK_SUCCESS);
  volkLoadInstanceOnly(ctx->instance().handle());
  volkLoadDevice(ctx->device().handle());
#endif
  const uint64_t before = vulkan::validation_message_count();
  auto info = vulkan::make_info<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = 0;  // invalid: VUID-VkBufferCreateInfo-size-00912
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (vkCreateBuffer(ctx->device().handle(), &info, nullptr, &buffer) == VK_SUCCESS && buffer != VK_NULL_HANDLE)
    vkDestroyBuffer(ctx->device().handle(), buffer, nullptr);
  const uint64_t provoked = vulkan::validation_message_count() - before;
  EXPECT_GE(provoked, 1u);
  testing_support::expected_validation_messages = provoked;
}

TEST(VulkanRuntime, TensorsBeyondTheDeviceAreOutOfMemoryErrorsAndTheProcessGoesOn) {
  TVK_NEED_VULKAN();
  // 2^36 floats (256 GiB): larger than lavapipe's heap and any storage-buffer range.
  EXPECT_THROW(empty({int64_t{1} << 36}, DType::Float32, Device::Vulkan), OutOfMemoryError);
  Tensor small = tvk::rand({16}).vulkan();
  EXPECT_EQ(testing_support::max_abs_diff(relu(small), relu(small.cpu())), 0.0);
}

TEST(VulkanRuntime, ForcedStagingIsReportedByTheContext) {
  TVK_NEED_VULKAN();
  const char* env = std::getenv("TVK_VULKAN_FORCE_STAGING");
  const bool want = env && std::string(env) != "0";
  EXPECT_EQ(vulkan::Context::get()->force_staging(), want);
}

// The second line of defence of issue 14: whatever geometry an op computes, the strided copy
// (where every Vulkan view op's geometry reaches a kernel) refuses one outside its buffers.
TEST(VulkanRuntime, StridedCopyRefusesGeometryOutsideItsBuffers) {
  TVK_NEED_VULKAN();
  const Tensor src = tvk::rand({4}, 1).vulkan();
  const Tensor dst = empty({2}, DType::Float32, Device::Vulkan);
  const ops::ViewGeometry whole = ops::geometry_of(dst);
  EXPECT_THROW(vulkan::strided_copy(dst, whole, src, ops::ViewGeometry{{2}, {1}, 4000000}), Error);
  EXPECT_THROW(vulkan::strided_copy(dst, whole, src, ops::ViewGeometry{{2}, {int64_t{1} << 62}, 0}), Error);
  EXPECT_THROW(vulkan::strided_copy(dst, ops::ViewGeometry{{2}, {3}, 0}, src, ops::ViewGeometry{{2}, {1}, 0}), Error);
  vulkan::strided_copy(dst, whole, src, ops::ViewGeometry{{2}, {2}, 1});  // elements 1 and 3
  const Tensor got = dst.cpu(), want = src.cpu();
  EXPECT_EQ(got.data<float>()[0], want.data<float>()[1]);
  EXPECT_EQ(got.data<float>()[1], want.data<float>()[3]);
}

// fp16 precision stores weights as halves rounded to nearest, ties to even, on every device
// (half_round.glslh). lavapipe's packHalf2x16 truncated values read from buffers, which took
// the fp16 mobilenet_v2 fixture from 1.3% to 2.8% off fp32. The reference below is a search over
// every finite half, so it shares nothing with the shader's bit arithmetic.
namespace {
double half_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}
uint16_t nearest_half(float f) {
  if (std::isnan(f)) return 0x7e00;
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7c00;  // at or past half-way from 65504 to 2^16
  uint16_t best = 0;
  for (uint16_t h = 1; h < 0x7c00; ++h) {
    const double d = std::fabs(half_value(h) - a), best_d = std::fabs(half_value(best) - a);
    if (d < best_d || (d == best_d && (h & 1) == 0 && (best & 1) == 1)) best = h;
  }
  return sign | best;
}
}  // namespace

TEST(VulkanRuntime, Fp16WeightsRoundToNearestEven) {
  TVK_NEED_VULKAN();
  struct RestoreFp32 {
    ~RestoreFp32() { set_vulkan_precision(Precision::FP32); }
  } restore;
  set_vulkan_precision(Precision::FP16);
  std::vector<float> values;
  // Eighths of a half's ulp over two ulps at 1, 1000 and at a subnormal, both signs: ties go
  // to the even neighbour, the rest to the nearest. Each lands in both halves of a uint.
  for (float base : {1.0f, 1000.0f, 0.0f})
    for (float sign : {1.0f, -1.0f})
      for (int k = 0; k < 17; ++k) {
        const float ulp = base == 0.0f ? std::ldexp(1.0f, -24) : std::ldexp(1.0f, std::ilogb(base) - 10);
        values.push_back(sign * (base + k * ulp / 8));
      }
  // Borders: the largest subnormal and smallest normal, the top of the range, infinities, NaN.
  for (float v : {std::ldexp(1023.5f, -24), std::ldexp(1.0f, -14) * (1 - std::ldexp(1.0f, -13)), 65504.0f,
                  65519.0f, 65520.0f, 1e6f, INFINITY, -INFINITY, NAN, -0.0f, 1e-30f})
    values.push_back(v);
  const Tensor random = tvk::randn({301}, 7);
  for (int i = 0; i < 301; ++i) values.push_back(random.data<float>()[i] * 3);
  const int64_t count = static_cast<int64_t>(values.size());
  const vulkan::StoredWeights stored = vulkan::store_weights(
      tensor_from(values, {count}).vulkan(), vulkan::Buffer::TexelFormat::R32, vulkan::Buffer::TexelFormat::R16F);
  ASSERT_EQ(stored.format, vulkan::Buffer::TexelFormat::R16F);
  const Tensor pairs = stored.storage.cpu();
  ASSERT_EQ(pairs.numel(), (count + 1) / 2);
  std::vector<uint16_t> halves(static_cast<size_t>(pairs.numel()) * 2);
  std::memcpy(halves.data(), pairs.data<float>(), halves.size() * 2);  // the low half of each uint first
  for (int64_t i = 0; i < count; ++i)
    EXPECT_EQ(halves[i], nearest_half(values[i])) << "value " << i << ": " << values[i];
}

// Issue 14: synchronize() popped a batch before waiting for it, so a wait that timed out
// destroyed the batch and freed buffers the GPU was still using (the validation layer reports
// that; the tests fail on any message). Now the batch stays in flight until a wait sees it done.
TEST(VulkanRuntime, AWaitThatTimesOutLeavesTheWorkItsResources) {
  TVK_NEED_VULKAN();
  auto& stream = vulkan::Context::get()->stream();
  const Tensor a = tvk::rand({384, 384}, 1), b = tvk::rand({384, 384}, 2);
  Tensor kept;
  {
    // Enough work that it cannot be done at once; the temporaries live only in the batch.
    Tensor x = tvk::matmul(a.vulkan(), b.vulkan());
    for (int i = 0; i < 4; ++i) x = tvk::matmul(tvk::relu(x), b.vulkan());
    kept = x;
  }
  stream.flush();
  stream.set_wait_timeout_ns(0);
  bool timed_out = false;
  try {
    stream.synchronize();
  } catch (const VulkanError& e) {
    timed_out = true;
    EXPECT_NE(std::string(e.what()).find("did not finish"), std::string::npos) << e.what();
  }
  stream.set_wait_timeout_ns(120ull * 1000 * 1000 * 1000);
  stream.synchronize();
  EXPECT_TRUE(timed_out) << "the work finished before a zero-length wait; the test needs more of it";
  Tensor expected = tvk::matmul(a, b);
  for (int i = 0; i < 4; ++i) expected = tvk::matmul(tvk::relu(expected), b);
  EXPECT_LE(testing_support::max_abs_diff(kept.cpu(), expected) / testing_support::max_abs(expected), 1e-5);
}

// Fault injection (issue 14): each fault gives a tvk::Error, and the next call works.
class Faults : public ::testing::Test {
 protected:
  void TearDown() override { vulkan::faults::disarm_all(); }
};

// Memory that only GPU work still holds (tensors dropped by the program, kept alive by queued
// work) comes back when an allocation runs short: the pool retires that work and retries
// before reporting out of memory. The old pool reported it at once.
TEST_F(Faults, AllocationRetiresFinishedWorkBeforeReportingOutOfMemory) {
  TVK_NEED_VULKAN();
  auto ctx = vulkan::Context::get();
  constexpr int64_t kFloats = 1 << 18;  // 1 MiB tensors
  (void)tvk::empty({kFloats}, DType::Float32, Device::Vulkan);  // the pool has a block
  ctx->stream().synchronize();
  vulkan::faults::arm(vulkan::faults::Point::DeviceMemory, -1);  // and cannot grow
  std::vector<Tensor> filler;
  try {
    for (int i = 0; i < 4096; ++i) filler.push_back(tvk::empty({kFloats}, DType::Float32, Device::Vulkan));
    FAIL() << "4 GiB of tensors fit in the pool's blocks";
  } catch (const OutOfMemoryError&) {
  }
  ASSERT_GE(filler.size(), 4u);
  // Queue work on a few of them (in place: it needs no new memory) as one batch, submit it, and
  // drop them: now only that batch, still running or finished but not yet retired, holds them.
  const size_t few = std::min<size_t>(8, filler.size() / 2);
  for (size_t i = filler.size() - few; i < filler.size(); ++i) tvk::relu_(filler[i]);
  ctx->stream().flush();
  filler.resize(filler.size() - few);
  Tensor fresh = tvk::empty({kFloats}, DType::Float32, Device::Vulkan);
  EXPECT_EQ(fresh.numel(), kFloats);
  // The fault cleared, the device works: a new block, and an op on it.
  vulkan::faults::disarm_all();
  filler.clear();
  const Tensor x = tvk::rand({4, 1024}, 3);
  EXPECT_LE(testing_support::max_abs_diff(tvk::relu(x.vulkan()).cpu(), tvk::relu(x)), 0.0);
}

TEST_F(Faults, DeviceMemoryFailureIsAnOutOfMemoryErrorAndTheNextCallWorks) {
  TVK_NEED_VULKAN();
  const auto before = vulkan::Context::get()->memory().stats();
  vulkan::faults::arm(vulkan::faults::Point::DeviceMemory, -1);
  // Larger than any block the pool has, so it must allocate one.
  const int64_t floats = static_cast<int64_t>(before.reserved_bytes / 4) + (int64_t{1} << 24);
  EXPECT_THROW(tvk::empty({floats}, DType::Float32, Device::Vulkan), OutOfMemoryError);
  EXPECT_THROW(tvk::rand({floats}, 1).vulkan(), OutOfMemoryError);
  vulkan::faults::disarm_all();
  const auto after = vulkan::Context::get()->memory().stats();
  EXPECT_EQ(after.used_bytes, before.used_bytes) << "the failed allocations leaked";
  const Tensor x = tvk::rand({3, 5}, 4);
  EXPECT_LE(testing_support::max_abs_diff(tvk::add(x.vulkan(), x.vulkan()).cpu(), tvk::add(x, x)), 0.0);
}

TEST_F(Faults, DeviceLossIsAVulkanErrorAndTheWorkKeepsItsResources) {
  TVK_NEED_VULKAN();
  auto& stream = vulkan::Context::get()->stream();
  const Tensor a = tvk::rand({64, 64}, 5);
  Tensor y = tvk::matmul(a.vulkan(), a.vulkan());
  vulkan::faults::arm(vulkan::faults::Point::DeviceLost);  // hit by the first fence check
  try {
    stream.synchronize();
    FAIL() << "a lost device went unreported";
  } catch (const VulkanError& e) {
    EXPECT_NE(std::string(e.what()).find("VK_ERROR_DEVICE_LOST"), std::string::npos) << e.what();
  }
  // The (simulated) loss cleared: the batch was kept, and its result is right.
  EXPECT_LE(testing_support::max_abs_diff(y.cpu(), tvk::matmul(a, a)) / testing_support::max_abs(tvk::matmul(a, a)),
            1e-5);
}

// A pipeline whose owner cannot be made is destroyed, not leaked (the validation layer reports a
// leaked VkPipeline when the device is destroyed; the old code leaked it), and the next request
// for it makes it.
TEST_F(Faults, APipelineThatCannotBeStoredIsDestroyed) {
  TVK_NEED_VULKAN();
  vulkan::PipelineCache& cache = vulkan::Context::get()->pipelines();
  vulkan::PipelineKey key;
  key.shader = "conv2d_wino_pack";  // two bindings
  key.buffers = 2;
  key.local_size = {7, 3, 1};  // a shape no kernel asks for, so the cache does not hold it yet
  const uint64_t created = cache.pipelines_created();
  vulkan::faults::arm(vulkan::faults::Point::PipelineInsert);
  EXPECT_THROW(cache.get(key), std::bad_alloc);
  EXPECT_EQ(cache.pipelines_created(), created);
  const vulkan::Pipeline& made = cache.get(key);
  EXPECT_EQ(made.key().local_size[0], 7u);
  EXPECT_EQ(cache.pipelines_created(), created + 1);
}
