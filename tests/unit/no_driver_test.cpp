// Run by CTest with the Vulkan driver hidden (TVK_EXPECT_NO_VULKAN=1): nothing may crash.
#include <cstdlib>

#include "support/test_support.h"
#include "tvk/vulkan_info.h"

using namespace tvk;

namespace {
bool expecting_no_vulkan() { return std::getenv("TVK_EXPECT_NO_VULKAN") != nullptr; }
}  // namespace

TEST(NoDriver, IsVulkanAvailableSaysNoWithoutThrowing) {
  if (!expecting_no_vulkan()) GTEST_SKIP() << "run by the NoDriver.unit_tests CTest entry";
  EXPECT_FALSE(is_vulkan_available());
  EXPECT_FALSE(is_vulkan_available());  // stable on repeat
  VulkanInfo info = vulkan_info();
  EXPECT_FALSE(info.error.empty());
  // Built with Vulkan, the error says what to install; built without, that it was left out.
  EXPECT_NE(info.error.find(info.built ? "install mesa-vulkan-drivers" : "TVK_USE_VULKAN"), std::string::npos)
      << info.error;
  for (const auto& d : info.devices) EXPECT_FALSE(d.selected);
}

TEST(NoDriver, MovingToVulkanIsAClearErrorAndCpuStillWorks) {
  if (!expecting_no_vulkan()) GTEST_SKIP() << "run by the NoDriver.unit_tests CTest entry";
  Tensor t = tvk::rand({2, 2});
  try {
    t.vulkan();
    FAIL() << "expected tvk::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(vulkan_info().built ? "install mesa-vulkan-drivers" : "TVK_USE_VULKAN"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(relu(t));  // the process stays usable
}
