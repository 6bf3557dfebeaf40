package org.tvk;

/** Element types of a {@link Tensor}: those tvk tensors hold. */
public enum DType {
  FLOAT32(1, 4),
  INT64(2, 8),
  BOOL(3, 1);

  final int jniCode;
  final int elementSize;

  DType(int jniCode, int elementSize) {
    this.jniCode = jniCode;
    this.elementSize = elementSize;
  }

  static DType fromJniCode(int code) {
    for (DType t : values()) {
      if (t.jniCode == code) return t;
    }
    throw new IllegalArgumentException("unknown dtype code " + code);
  }
}
