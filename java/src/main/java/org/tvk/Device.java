package org.tvk;

/** Where a module's parameters live and its ops run (the seed's org.pytorch.Device). */
public enum Device {
  CPU(1),
  VULKAN(2);

  final int jniCode;

  Device(int jniCode) {
    this.jniCode = jniCode;
  }
}
