package org.tvk;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A TorchScript model loaded by tvk (the seed's org.pytorch.Module): files from torch.jit.save
 * or tvk optimize, and lite .ptl files that carry their code.
 *
 * <pre>
 * try (Module module = Module.load("mobilenet2-vulkan.pt", Device.VULKAN)) {
 *   FloatBuffer buffer = Tensor.allocateFloatBuffer(1 * 3 * 224 * 224);
 *   // ... fill buffer ...
 *   Tensor input = Tensor.fromBlob(buffer, new long[] {1, 3, 224, 224});
 *   Tensor output = module.forward(IValue.from(input)).toTensor();
 * }
 * </pre>
 *
 * Inputs are CPU tensors; with Device.VULKAN they are copied to the GPU and outputs come back
 * on the CPU. Calls from several threads may run at once; {@link #destroy} waits for them.
 */
public final class Module implements AutoCloseable {
  static {
    NativeLoader.load();
  }

  private long handle; // a native tvk::jit::Module; 0 once destroyed
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  private Module(long handle) {
    this.handle = handle;
  }

  /** Loads a model; with Device.VULKAN its parameters move to the GPU once, here.
   *  @throws TvkException for a missing, corrupt or unsupported file, or no Vulkan device. */
  public static Module load(String path, Device device) {
    if (path == null || device == null) throw new IllegalArgumentException("path and device must not be null");
    return new Module(nativeLoad(path, device.jniCode));
  }

  /**
   * Loads a model, as {@link #load(String, Device)}, under limits for loading (its code runs then)
   * and for every later call.
   */
  public static Module load(String path, Device device, Limits limits) {
    if (path == null || device == null || limits == null) {
      throw new IllegalArgumentException("path, device and limits must not be null");
    }
    return new Module(
        nativeLoadWithLimits(path, device.jniCode, limits.timeoutSeconds, limits.maxMemoryBytes, limits.maxSteps,
            limits.maxDeviceMemoryBytes));
  }

  /** Loads a model, as {@link #load(String, Device)}, with a tuning mode (see {@link #setTuning}). */
  public static Module load(String path, Device device, Tuning tuning) {
    Module module = load(path, device);
    try {
      module.setTuning(tuning);
    } catch (RuntimeException e) {
      module.destroy();
      throw e;
    }
    return module;
  }

  /** Loads a model on the CPU. */
  public static Module load(String path) {
    return load(path, Device.CPU);
  }

  /**
   * Loads a model, as {@link #load(String, Device)}, and reads extra files from it (what
   * torch.jit.save's _extra_files wrote), as org.pytorch.Module does: each key of extraFiles
   * that the file holds gets that extra file's contents, decoded as UTF-8; other keys keep
   * their values.
   */
  public static Module load(String path, Map<String, String> extraFiles, Device device) {
    if (extraFiles == null) throw new IllegalArgumentException("extraFiles must not be null");
    Module module = load(path, device);
    try {
      for (Map.Entry<String, String> entry : extraFiles.entrySet()) {
        if (entry.getKey() == null) throw new IllegalArgumentException("extraFiles has a null key");
        byte[] contents = nativeExtraFile(module.handle, entry.getKey());
        if (contents != null) entry.setValue(new String(contents, StandardCharsets.UTF_8));
      }
    } catch (RuntimeException e) {
      module.destroy();
      throw e;
    }
    return module;
  }

  public IValue forward(IValue... inputs) {
    return runMethod("forward", inputs);
  }

  public IValue runMethod(String method, IValue... inputs) {
    for (IValue v : inputs) {
      if (v == null) throw new IllegalArgumentException("null input; use IValue.optionalNull()");
    }
    lock.readLock().lock();
    try {
      return nativeRunMethod(checkedHandle(), method, inputs);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The tuning mode this module's calls run under from now on; until set, the process's
   * (TVK_TUNE, default CACHED).
   */
  public void setTuning(Tuning tuning) {
    if (tuning == null) throw new IllegalArgumentException("tuning must not be null");
    lock.writeLock().lock();
    try {
      nativeSetTuning(checkedHandle(), tuning.jniCode);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** The limits this module's later calls run under (see {@link Limits}). */
  public void setLimits(Limits limits) {
    if (limits == null) throw new IllegalArgumentException("limits must not be null");
    lock.writeLock().lock();
    try {
      nativeSetLimits(checkedHandle(), limits.timeoutSeconds, limits.maxMemoryBytes, limits.maxSteps,
          limits.maxDeviceMemoryBytes);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** The tuning mode set on this module, or null where none was. */
  public Tuning tuning() {
    lock.readLock().lock();
    try {
      int code = nativeTuning(checkedHandle());
      for (Tuning t : Tuning.values()) {
        if (t.jniCode == code) return t;
      }
      return null;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Frees the native model and its device memory now. Later calls throw IllegalStateException. */
  public void destroy() {
    lock.writeLock().lock();
    try {
      if (handle != 0) nativeDestroy(handle);
      handle = 0;
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public void close() {
    destroy();
  }

  private long checkedHandle() {
    if (handle == 0) throw new IllegalStateException("this Module was destroyed");
    return handle;
  }

  private static native long nativeLoad(String path, int device);

  private static native IValue nativeRunMethod(long handle, String method, IValue[] inputs);

  private static native void nativeDestroy(long handle);

  private static native void nativeSetTuning(long handle, int tuning);

  private static native long nativeLoadWithLimits(
      String path, int device, double timeoutSeconds, long maxMemoryBytes, long maxSteps,
      long maxDeviceMemoryBytes);

  private static native void nativeSetLimits(long handle, double timeoutSeconds, long maxMemoryBytes, long maxSteps,
                                             long maxDeviceMemoryBytes);

  /** The code of the module's tuning mode, or -1 where none was set. */
  private static native int nativeTuning(long handle);

  /** The extra file `name`'s bytes, or null where the model has none of that name. */
  private static native byte[] nativeExtraFile(long handle, String name);
}
