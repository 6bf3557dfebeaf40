// Fault injection for tests: makes the next calls at a point fail the way the driver would, so
// the recovery paths (clean tvk::Error, nothing leaked, the next call working) can be tested on
// a device that never fails by itself. Off unless a test arms it; a hit costs one atomic load.
#pragma once

namespace tvk::vulkan::faults {

enum class Point {
  DeviceMemory,    // vkAllocateMemory returns VK_ERROR_OUT_OF_DEVICE_MEMORY
  DeviceLost,      // a fence wait or status query returns VK_ERROR_DEVICE_LOST
  PipelineInsert,  // making a new pipeline's owner (before the cache holds it) throws std::bad_alloc
  kCount
};

// The next `count` hits of `point` fail (count < 0: every hit until disarmed).
void arm(Point point, int count = 1);
void disarm_all();
// Called at the point: true when it should fail now (and one armed failure is used up).
bool hit(Point point);

}  // namespace tvk::vulkan::faults
