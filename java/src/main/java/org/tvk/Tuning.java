package org.tvk;

/**
 * Whether a module's Vulkan layers are tuned on the device (tvk::Tuning; docs/architecture.md,
 * "Tuning on the device"): OFF, the built-in rules only; CACHED, the device's tuning table where
 * it knows a layer, nothing timed (the default); ON, layers the table lacks are timed, checked
 * and added to it while the model first runs.
 */
public enum Tuning {
  OFF(0),
  CACHED(1),
  ON(2);

  final int jniCode;

  Tuning(int jniCode) {
    this.jniCode = jniCode;
  }
}
