// Test main: enables VK_LAYER_KHRONOS_validation (TVK_VALIDATION=1 unless set) and fails every
// test during which the layer reported an error or warning.
#include <gtest/gtest.h>

#include <cstdlib>

#include "support/test_support.h"
#include "tvk/tvk.h"

#if TVK_USE_VULKAN
#include "vulkan/api/instance.h"
#endif

namespace {

class ValidationListener : public testing::EmptyTestEventListener {
 public:
  void OnTestStart(const testing::TestInfo&) override { start_ = count(); }
  void OnTestEnd(const testing::TestInfo&) override {
    const uint64_t now = count() - tvk::testing_support::expected_validation_messages;
    tvk::testing_support::expected_validation_messages = 0;
    if (now != start_)
      ADD_FAILURE() << (now - start_) << " Vulkan validation message(s) during this test; last: " << last();
  }

 private:
  static uint64_t count() {
#if TVK_USE_VULKAN
    return tvk::vulkan::validation_message_count();
#else
    return 0;
#endif
  }
  static std::string last() {
#if TVK_USE_VULKAN
    return tvk::vulkan::last_validation_message();
#else
    return "";
#endif
  }
  uint64_t start_ = 0;
};

}  // namespace

namespace tvk::testing_support {

uint64_t expected_validation_messages = 0;
bool validation_set_by_environment = false;

bool validation_required() { return validation_set_by_environment && vulkan_required(); }

bool vulkan_required() {
  const char* v = std::getenv("TVK_REQUIRE_VULKAN");
  return v && *v && std::string(v) != "0";
}

}  // namespace tvk::testing_support

int main(int argc, char** argv) {
  // TVK_VALIDATION=1 requires the layer; =0 turns it off (the sanitizer pass); unset, it is on
  // where it is installed.
  const char* validation = std::getenv("TVK_VALIDATION");
  tvk::testing_support::validation_set_by_environment = validation != nullptr && std::string(validation) != "0";
  setenv("TVK_VALIDATION", "1", /*overwrite=*/0);
  testing::InitGoogleTest(&argc, argv);
  testing::UnitTest::GetInstance()->listeners().Append(new ValidationListener);
  return RUN_ALL_TESTS();
}
