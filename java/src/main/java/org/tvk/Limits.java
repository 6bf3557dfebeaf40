package org.tvk;

/**
 * Limits on each run of a model's code (loading it, each call): a TorchScript file is a program.
 * A run past one throws {@link TvkException} naming it. Zero keeps tvk's default (see
 * docs/reliability.md): no timeout, 10 million steps, half the machine's memory up to 8 GiB, and
 * for Vulkan tensors the device's largest memory heap.
 */
public final class Limits {
  public final double timeoutSeconds;
  public final long maxMemoryBytes;
  public final long maxSteps;
  /** Device memory a run's Vulkan tensors may hold at once (0: the device's largest heap). */
  public final long maxDeviceMemoryBytes;

  public Limits(double timeoutSeconds, long maxMemoryBytes, long maxSteps, long maxDeviceMemoryBytes) {
    if (!(timeoutSeconds >= 0) || maxMemoryBytes < 0 || maxSteps < 0 || maxDeviceMemoryBytes < 0) {
      throw new IllegalArgumentException("limits must not be negative");
    }
    this.timeoutSeconds = timeoutSeconds;
    this.maxMemoryBytes = maxMemoryBytes;
    this.maxSteps = maxSteps;
    this.maxDeviceMemoryBytes = maxDeviceMemoryBytes;
  }

  public Limits(double timeoutSeconds, long maxMemoryBytes, long maxSteps) {
    this(timeoutSeconds, maxMemoryBytes, maxSteps, 0);
  }

  /** tvk's defaults. */
  public Limits() {
    this(0, 0, 0, 0);
  }

  public Limits withTimeout(double seconds) {
    return new Limits(seconds, maxMemoryBytes, maxSteps, maxDeviceMemoryBytes);
  }

  public Limits withMaxMemory(long bytes) {
    return new Limits(timeoutSeconds, bytes, maxSteps, maxDeviceMemoryBytes);
  }

  public Limits withMaxSteps(long steps) {
    return new Limits(timeoutSeconds, maxMemoryBytes, steps, maxDeviceMemoryBytes);
  }

  public Limits withMaxDeviceMemory(long bytes) {
    return new Limits(timeoutSeconds, maxMemoryBytes, maxSteps, bytes);
  }
}
