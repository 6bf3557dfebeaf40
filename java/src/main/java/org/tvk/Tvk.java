package org.tvk;

/** Library-wide queries. */
public final class Tvk {
  static {
    NativeLoader.load();
  }

  private Tvk() {}

  /** True when a usable Vulkan device exists (the seed's torch.is_vulkan_available()). */
  public static boolean isVulkanAvailable() {
    return nativeIsVulkanAvailable();
  }

  /** The tvk version, e.g. "0.1.0". */
  public static String version() {
    return nativeVersion();
  }

  private static native boolean nativeIsVulkanAvailable();

  private static native String nativeVersion();
}
