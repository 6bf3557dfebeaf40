package org.tvk;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;

/**
 * A CPU tensor: a shape, an element type and its elements in a direct, native-order buffer that
 * native code reads and writes without copying through the Java heap (the seed's
 * org.pytorch.Tensor). A module loaded on Vulkan takes these and returns these; the copies to the
 * GPU and back happen inside {@link Module#forward}.
 */
public final class Tensor {
  private final Buffer data; // direct FloatBuffer, LongBuffer or ByteBuffer (BOOL), native order
  private final long[] shape;
  private final DType dtype;

  private Tensor(Buffer data, long[] shape, DType dtype) {
    this.data = data;
    this.shape = shape.clone();
    this.dtype = dtype;
  }

  /** A direct, native-order buffer for {@code numElements} floats, for {@link #fromBlob}. */
  public static FloatBuffer allocateFloatBuffer(int numElements) {
    return allocate(numElements, 4).asFloatBuffer();
  }

  /** A direct, native-order buffer for {@code numElements} longs. */
  public static LongBuffer allocateLongBuffer(int numElements) {
    return allocate(numElements, 8).asLongBuffer();
  }

  private static ByteBuffer allocate(int numElements, int elementSize) {
    if (numElements < 0) throw new IllegalArgumentException("negative element count " + numElements);
    long bytes = (long) numElements * elementSize;
    if (bytes > Integer.MAX_VALUE) throw new IllegalArgumentException(numElements + " elements do not fit one buffer");
    return ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
  }

  /** Number of elements of a shape; throws for negative sizes or overflow. */
  public static long numel(long[] shape) {
    if (shape == null) throw new IllegalArgumentException("shape is null");
    long n = 1;
    for (long d : shape) {
      if (d < 0) throw new IllegalArgumentException("negative size in shape " + Arrays.toString(shape));
      n = Math.multiplyExact(n, d);
    }
    return n;
  }

  private static void checkCapacity(Buffer data, long[] shape) {
    long n = numel(shape);
    if (data.capacity() != n) {
      throw new IllegalArgumentException(
          "the buffer holds " + data.capacity() + " elements but shape " + Arrays.toString(shape) + " needs " + n);
    }
  }

  /** A float32 tensor over {@code data}, which must be direct and native-order (see
   *  {@link #allocateFloatBuffer}) and hold exactly numel(shape) elements. No copy is made. */
  public static Tensor fromBlob(FloatBuffer data, long[] shape) {
    if (!data.isDirect() || data.order() != ByteOrder.nativeOrder()) {
      throw new IllegalArgumentException("the buffer must be direct and in native byte order (Tensor.allocateFloatBuffer)");
    }
    checkCapacity(data, shape);
    return new Tensor(data, shape, DType.FLOAT32);
  }

  /** An int64 tensor over a direct, native-order buffer. No copy is made. */
  public static Tensor fromBlob(LongBuffer data, long[] shape) {
    if (!data.isDirect() || data.order() != ByteOrder.nativeOrder()) {
      throw new IllegalArgumentException("the buffer must be direct and in native byte order (Tensor.allocateLongBuffer)");
    }
    checkCapacity(data, shape);
    return new Tensor(data, shape, DType.INT64);
  }

  /** A float32 tensor holding a copy of {@code data}. */
  public static Tensor fromBlob(float[] data, long[] shape) {
    checkLength(data.length, shape);
    FloatBuffer b = allocateFloatBuffer(data.length);
    b.put(data);
    b.rewind();
    return new Tensor(b, shape, DType.FLOAT32);
  }

  /** An int64 tensor holding a copy of {@code data}. */
  public static Tensor fromBlob(long[] data, long[] shape) {
    checkLength(data.length, shape);
    LongBuffer b = allocateLongBuffer(data.length);
    b.put(data);
    b.rewind();
    return new Tensor(b, shape, DType.INT64);
  }

  /** A bool tensor holding a copy of {@code data}. */
  public static Tensor fromBlob(boolean[] data, long[] shape) {
    checkLength(data.length, shape);
    ByteBuffer b = allocate(data.length, 1);
    for (boolean v : data) b.put((byte) (v ? 1 : 0));
    b.rewind();
    return new Tensor(b, shape, DType.BOOL);
  }

  private static void checkLength(int length, long[] shape) {
    long n = numel(shape);
    if (length != n) {
      throw new IllegalArgumentException(
          "the array holds " + length + " elements but shape " + Arrays.toString(shape) + " needs " + n);
    }
  }

  /** Made by native code for outputs: a zeroed tensor that native code then fills. */
  static Tensor allocate(int dtypeCode, long[] shape) {
    DType dtype = DType.fromJniCode(dtypeCode);
    long n = numel(shape);
    if (n > Integer.MAX_VALUE) throw new IllegalArgumentException("a tensor of " + n + " elements is too large for Java");
    ByteBuffer bytes = allocate((int) n, dtype.elementSize);
    Buffer data = dtype == DType.FLOAT32 ? bytes.asFloatBuffer() : dtype == DType.INT64 ? bytes.asLongBuffer() : bytes;
    return new Tensor(data, shape, dtype);
  }

  public long[] shape() {
    return shape.clone();
  }

  public DType dtype() {
    return dtype;
  }

  public long numel() {
    return numel(shape);
  }

  /** The buffer the elements live in (no copy). */
  public Buffer getRawDataBuffer() {
    return data;
  }

  public float[] getDataAsFloatArray() {
    if (dtype != DType.FLOAT32) throw new IllegalStateException("a " + dtype + " tensor has no float data");
    FloatBuffer b = ((FloatBuffer) data).duplicate();
    b.rewind();
    float[] out = new float[b.remaining()];
    b.get(out);
    return out;
  }

  public long[] getDataAsLongArray() {
    if (dtype != DType.INT64) throw new IllegalStateException("a " + dtype + " tensor has no long data");
    LongBuffer b = ((LongBuffer) data).duplicate();
    b.rewind();
    long[] out = new long[b.remaining()];
    b.get(out);
    return out;
  }

  public boolean[] getDataAsBooleanArray() {
    if (dtype != DType.BOOL) throw new IllegalStateException("a " + dtype + " tensor has no boolean data");
    ByteBuffer b = ((ByteBuffer) data).duplicate();
    b.rewind();
    boolean[] out = new boolean[b.remaining()];
    for (int i = 0; i < out.length; ++i) out[i] = b.get() != 0;
    return out;
  }

  @Override
  public String toString() {
    return "Tensor(" + Arrays.toString(shape) + ", " + dtype + ")";
  }
}
