package org.tvk;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A value a TorchScript method takes or returns (the seed's org.pytorch.IValue): None, a tensor,
 * a bool, a long, a double, a string, a tuple, a list, or a dict with string or long keys.
 * A NamedTuple output comes back as a tuple of its fields, in order.
 */
public final class IValue {
  // Codes shared with tvk_jni.cpp.
  static final int TYPE_NULL = 1;
  static final int TYPE_TENSOR = 2;
  static final int TYPE_BOOL = 3;
  static final int TYPE_LONG = 4;
  static final int TYPE_DOUBLE = 5;
  static final int TYPE_STRING = 6;
  static final int TYPE_TUPLE = 7;
  static final int TYPE_LIST = 8;
  static final int TYPE_DICT_STRING_KEY = 9;
  static final int TYPE_DICT_LONG_KEY = 10;

  final int typeCode;
  final Object data;

  private IValue(int typeCode, Object data) {
    this.typeCode = typeCode;
    this.data = data;
  }

  public static IValue optionalNull() {
    return new IValue(TYPE_NULL, null);
  }

  public static IValue from(Tensor tensor) {
    if (tensor == null) throw new IllegalArgumentException("tensor is null");
    return new IValue(TYPE_TENSOR, tensor);
  }

  public static IValue from(boolean value) {
    return new IValue(TYPE_BOOL, value);
  }

  public static IValue from(long value) {
    return new IValue(TYPE_LONG, value);
  }

  public static IValue from(double value) {
    return new IValue(TYPE_DOUBLE, value);
  }

  public static IValue from(String value) {
    if (value == null) throw new IllegalArgumentException("string is null");
    return new IValue(TYPE_STRING, value);
  }

  public static IValue tupleFrom(IValue... items) {
    return new IValue(TYPE_TUPLE, checked(items));
  }

  public static IValue listFrom(IValue... items) {
    return new IValue(TYPE_LIST, checked(items));
  }

  public static IValue listFrom(Tensor... tensors) {
    IValue[] items = new IValue[tensors.length];
    for (int i = 0; i < tensors.length; ++i) items[i] = from(tensors[i]);
    return listFrom(items);
  }

  public static IValue listFrom(long... values) {
    IValue[] items = new IValue[values.length];
    for (int i = 0; i < values.length; ++i) items[i] = from(values[i]);
    return listFrom(items);
  }

  public static IValue listFrom(double... values) {
    IValue[] items = new IValue[values.length];
    for (int i = 0; i < values.length; ++i) items[i] = from(values[i]);
    return listFrom(items);
  }

  public static IValue dictStringKeyFrom(Map<String, IValue> map) {
    return new IValue(TYPE_DICT_STRING_KEY, Collections.unmodifiableMap(new LinkedHashMap<>(map)));
  }

  public static IValue dictLongKeyFrom(Map<Long, IValue> map) {
    return new IValue(TYPE_DICT_LONG_KEY, Collections.unmodifiableMap(new LinkedHashMap<>(map)));
  }

  private static IValue[] checked(IValue[] items) {
    for (IValue v : items) {
      if (v == null) throw new IllegalArgumentException("null item; use IValue.optionalNull()");
    }
    return items.clone();
  }

  public boolean isNull() { return typeCode == TYPE_NULL; }
  public boolean isTensor() { return typeCode == TYPE_TENSOR; }
  public boolean isBool() { return typeCode == TYPE_BOOL; }
  public boolean isLong() { return typeCode == TYPE_LONG; }
  public boolean isDouble() { return typeCode == TYPE_DOUBLE; }
  public boolean isString() { return typeCode == TYPE_STRING; }
  public boolean isTuple() { return typeCode == TYPE_TUPLE; }
  public boolean isList() { return typeCode == TYPE_LIST; }
  public boolean isDictStringKey() { return typeCode == TYPE_DICT_STRING_KEY; }
  public boolean isDictLongKey() { return typeCode == TYPE_DICT_LONG_KEY; }

  private void expect(int code, String what) {
    if (typeCode != code) throw new IllegalStateException("this IValue is a " + typeName() + ", not a " + what);
  }

  public Tensor toTensor() { expect(TYPE_TENSOR, "Tensor"); return (Tensor) data; }
  public boolean toBool() { expect(TYPE_BOOL, "Bool"); return (Boolean) data; }
  public long toLong() { expect(TYPE_LONG, "Long"); return (Long) data; }
  public double toDouble() { expect(TYPE_DOUBLE, "Double"); return (Double) data; }
  public String toStr() { expect(TYPE_STRING, "String"); return (String) data; }
  public IValue[] toTuple() { expect(TYPE_TUPLE, "Tuple"); return ((IValue[]) data).clone(); }
  public IValue[] toList() { expect(TYPE_LIST, "List"); return ((IValue[]) data).clone(); }

  public Tensor[] toTensorList() {
    IValue[] items = toList();
    Tensor[] out = new Tensor[items.length];
    for (int i = 0; i < items.length; ++i) out[i] = items[i].toTensor();
    return out;
  }

  @SuppressWarnings("unchecked")
  public Map<String, IValue> toDictStringKey() { expect(TYPE_DICT_STRING_KEY, "Dict[str, V]"); return (Map<String, IValue>) data; }

  @SuppressWarnings("unchecked")
  public Map<Long, IValue> toDictLongKey() { expect(TYPE_DICT_LONG_KEY, "Dict[int, V]"); return (Map<Long, IValue>) data; }

  String typeName() {
    switch (typeCode) {
      case TYPE_NULL: return "None";
      case TYPE_TENSOR: return "Tensor";
      case TYPE_BOOL: return "Bool";
      case TYPE_LONG: return "Long";
      case TYPE_DOUBLE: return "Double";
      case TYPE_STRING: return "String";
      case TYPE_TUPLE: return "Tuple";
      case TYPE_LIST: return "List";
      case TYPE_DICT_STRING_KEY: return "Dict[str, V]";
      default: return "Dict[int, V]";
    }
  }

  // For tvk_jni.cpp: dict entries as parallel arrays, and dicts built from them.
  Object[] dictKeys() { return ((Map<?, ?>) data).keySet().toArray(); }
  IValue[] dictValues() { return ((Map<?, ?>) data).values().toArray(new IValue[0]); }

  static IValue dictFromNative(boolean stringKeys, Object[] keys, IValue[] values) {
    Map<Object, IValue> map = new LinkedHashMap<>();
    for (int i = 0; i < keys.length; ++i) map.put(keys[i], values[i]);
    return new IValue(stringKeys ? TYPE_DICT_STRING_KEY : TYPE_DICT_LONG_KEY, Collections.unmodifiableMap(map));
  }

  @Override
  public String toString() {
    if (typeCode == TYPE_TUPLE || typeCode == TYPE_LIST) return typeName() + Arrays.toString((IValue[]) data);
    return typeName() + "(" + data + ")";
  }
}
