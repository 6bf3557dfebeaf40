// JNI for org.tvk (java/src/main/java/org/tvk): Module load/run/destroy and the conversion of
// org.tvk.IValue / Tensor to and from tvk::IValue. Java tensors are copied into tvk tensors on
// the way in (the Java buffer may change or be freed after the call) and outputs are copied into
// new direct buffers on the way out. Every native error becomes an org.tvk.TvkException.
#include <jni.h>

#include <cstdarg>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tvk/tvk.h"

namespace {

// Type codes of org.tvk.IValue and DType (IValue.java, DType.java).
enum : jint {
  kNull = 1, kTensor = 2, kBool = 3, kLong = 4, kDouble = 5, kString = 6, kTuple = 7, kList = 8,
  kDictStringKey = 9, kDictLongKey = 10
};
enum : jint { kFloat32 = 1, kInt64 = 2, kBoolType = 3 };
constexpr int kMaxNesting = tvk::ValueWalk::kMaxDepth;  // deeper Java inputs are refused, as outputs are

// A Java exception is already pending: unwind to the JNI entry point and return.
struct JavaExceptionPending {};

struct Ids {
  jclass ivalue, tensor, dtype, tvk_exception, boolean_class, long_class, double_class, object_class;
  jfieldID iv_type, iv_data, t_data, t_shape, t_dtype, dtype_code;
  jmethodID iv_null, iv_from_tensor, iv_from_bool, iv_from_long, iv_from_double, iv_from_string, iv_tuple, iv_list,
      iv_dict_keys, iv_dict_values, iv_dict_from_native, t_allocate, boolean_value, long_value, double_value,
      boolean_of, long_of;
};
Ids ids;

jclass global_class(JNIEnv* env, const char* name) {
  jclass local = env->FindClass(name);
  if (!local) return nullptr;
  auto global = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  return global;
}

void check_java(JNIEnv* env) {
  if (env->ExceptionCheck()) throw JavaExceptionPending{};
}

tvk::DType dtype_from_code(jint code) {
  switch (code) {
    case kFloat32: return tvk::DType::Float32;
    case kInt64: return tvk::DType::Int64;
    case kBoolType: return tvk::DType::Bool;
  }
  throw tvk::Error("unknown dtype code " + std::to_string(code));
}

jint code_of(tvk::DType t) {
  switch (t) {
    case tvk::DType::Float32: return kFloat32;
    case tvk::DType::Int64: return kInt64;
    case tvk::DType::Bool: return kBoolType;
  }
  return 0;
}

std::string java_string(JNIEnv* env, jstring s) {
  if (!s) throw tvk::Error("a string argument is null");
  const char* chars = env->GetStringUTFChars(s, nullptr);
  check_java(env);
  std::string out(chars);
  env->ReleaseStringUTFChars(s, chars);
  return out;
}

tvk::Tensor tensor_from_java(JNIEnv* env, jobject t) {
  jobject buffer = env->GetObjectField(t, ids.t_data);
  auto shape_array = static_cast<jlongArray>(env->GetObjectField(t, ids.t_shape));
  jobject dtype_obj = env->GetObjectField(t, ids.t_dtype);
  const tvk::DType dtype = dtype_from_code(env->GetIntField(dtype_obj, ids.dtype_code));
  const jsize dims = env->GetArrayLength(shape_array);
  std::vector<jlong> shape(static_cast<size_t>(dims));
  env->GetLongArrayRegion(shape_array, 0, dims, shape.data());
  check_java(env);
  tvk::IntList sizes(shape.begin(), shape.end());
  tvk::Tensor out = tvk::empty(sizes, dtype);  // checks sizes and their product
  void* data = env->GetDirectBufferAddress(buffer);
  const jlong capacity = env->GetDirectBufferCapacity(buffer);  // in elements of the buffer's type
  if (!data || capacity != out.numel())
    throw tvk::Error(tvk::detail::concat("a Tensor's buffer holds ", capacity, " elements, its shape ",
                                         out.shape_string(), " needs ", out.numel()));
  std::memcpy(out.raw_data(), data, out.nbytes());
  env->DeleteLocalRef(buffer);
  env->DeleteLocalRef(shape_array);
  env->DeleteLocalRef(dtype_obj);
  return out;
}

tvk::IValue from_java(JNIEnv* env, jobject v, int depth = 0);

tvk::List items_from_java(JNIEnv* env, jobjectArray array, int depth) {
  tvk::List items;
  const jsize n = env->GetArrayLength(array);
  for (jsize i = 0; i < n; ++i) {
    jobject item = env->GetObjectArrayElement(array, i);
    check_java(env);
    items.push_back(from_java(env, item, depth + 1));
    env->DeleteLocalRef(item);
  }
  return items;
}

tvk::IValue from_java(JNIEnv* env, jobject v, int depth) {
  if (!v) throw tvk::Error("a null IValue");
  if (depth > kMaxNesting)
    throw tvk::Error(tvk::detail::concat("an IValue nested more than ", kMaxNesting, " levels deep"));
  const jint type = env->GetIntField(v, ids.iv_type);
  jobject data = env->GetObjectField(v, ids.iv_data);
  tvk::IValue out;
  switch (type) {
    case kNull: break;
    case kTensor: out = tvk::IValue(tensor_from_java(env, data)); break;
    case kBool: out = tvk::IValue(static_cast<bool>(env->CallBooleanMethod(data, ids.boolean_value))); break;
    case kLong: out = tvk::IValue(static_cast<int64_t>(env->CallLongMethod(data, ids.long_value))); break;
    case kDouble: out = tvk::IValue(static_cast<double>(env->CallDoubleMethod(data, ids.double_value))); break;
    case kString: out = tvk::IValue(java_string(env, static_cast<jstring>(data))); break;
    case kTuple: out = tvk::IValue::tuple(items_from_java(env, static_cast<jobjectArray>(data), depth)); break;
    case kList: out = tvk::IValue::list(items_from_java(env, static_cast<jobjectArray>(data), depth)); break;
    case kDictStringKey:
    case kDictLongKey: {
      auto keys = static_cast<jobjectArray>(env->CallObjectMethod(v, ids.iv_dict_keys));
      check_java(env);
      auto values = static_cast<jobjectArray>(env->CallObjectMethod(v, ids.iv_dict_values));
      check_java(env);
      auto dict = std::make_shared<tvk::Dict>();
      const tvk::List vals = items_from_java(env, values, depth);
      for (jsize i = 0; i < env->GetArrayLength(keys); ++i) {
        jobject key = env->GetObjectArrayElement(keys, i);
        if (!key) throw tvk::Error("a null dict key");
        tvk::IValue k = type == kDictStringKey ? tvk::IValue(java_string(env, static_cast<jstring>(key)))
                                               : tvk::IValue(static_cast<int64_t>(env->CallLongMethod(key, ids.long_value)));
        check_java(env);
        dict->set(std::move(k), vals[static_cast<size_t>(i)]);
        env->DeleteLocalRef(key);
      }
      out = tvk::IValue(dict);
      env->DeleteLocalRef(keys);
      env->DeleteLocalRef(values);
      break;
    }
    default: throw tvk::Error("unknown IValue type code " + std::to_string(type));
  }
  check_java(env);
  if (data) env->DeleteLocalRef(data);
  return out;
}

jobject call_static(JNIEnv* env, jclass c, jmethodID m, ...) {
  va_list args;
  va_start(args, m);
  jobject r = env->CallStaticObjectMethodV(c, m, args);
  va_end(args);
  check_java(env);
  return r;
}

jobject to_java(JNIEnv* env, const tvk::IValue& v, tvk::ValueWalk& walk, int depth);

jobjectArray array_to_java(JNIEnv* env, const tvk::List& items, tvk::ValueWalk& walk, int depth) {
  jobjectArray array = env->NewObjectArray(static_cast<jsize>(items.size()), ids.ivalue, nullptr);
  check_java(env);
  for (size_t i = 0; i < items.size(); ++i) {
    jobject item = to_java(env, items[i], walk, depth + 1);
    env->SetObjectArrayElement(array, static_cast<jsize>(i), item);
    env->DeleteLocalRef(item);
  }
  return array;
}

jobject tensor_to_java(JNIEnv* env, const tvk::Tensor& tensor) {
  tvk::Tensor t = tensor.cpu().contiguous();
  jlongArray shape = env->NewLongArray(static_cast<jsize>(t.dim()));
  check_java(env);
  std::vector<jlong> sizes(t.sizes().begin(), t.sizes().end());
  env->SetLongArrayRegion(shape, 0, static_cast<jsize>(sizes.size()), sizes.data());
  jobject jt = call_static(env, ids.tensor, ids.t_allocate, code_of(t.dtype()), shape);
  jobject buffer = env->GetObjectField(jt, ids.t_data);
  void* data = env->GetDirectBufferAddress(buffer);
  if (!data && t.nbytes() > 0) throw tvk::Error("no direct buffer for an output tensor");
  if (t.nbytes() > 0) std::memcpy(data, t.raw_data(), t.nbytes());
  env->DeleteLocalRef(buffer);
  env->DeleteLocalRef(shape);
  jobject iv = call_static(env, ids.ivalue, ids.iv_from_tensor, jt);
  env->DeleteLocalRef(jt);
  return iv;
}

jobject to_java(JNIEnv* env, const tvk::IValue& v, tvk::ValueWalk& walk, int depth) {
  walk.enter(depth);
  switch (v.tag()) {
    case tvk::IValue::Tag::None: return call_static(env, ids.ivalue, ids.iv_null);
    case tvk::IValue::Tag::Tensor: return tensor_to_java(env, v.toTensor());
    case tvk::IValue::Tag::Bool: return call_static(env, ids.ivalue, ids.iv_from_bool, static_cast<jboolean>(v.toBool()));
    case tvk::IValue::Tag::Int: return call_static(env, ids.ivalue, ids.iv_from_long, static_cast<jlong>(v.toInt()));
    case tvk::IValue::Tag::Double: return call_static(env, ids.ivalue, ids.iv_from_double, static_cast<jdouble>(v.toDouble()));
    case tvk::IValue::Tag::String: {
      jstring s = env->NewStringUTF(v.toStringRef().c_str());
      check_java(env);
      jobject r = call_static(env, ids.ivalue, ids.iv_from_string, s);
      env->DeleteLocalRef(s);
      return r;
    }
    case tvk::IValue::Tag::Tuple:
    case tvk::IValue::Tag::List: {
      jobjectArray items = array_to_java(env, v.toList(), walk, depth);
      jobject r = call_static(env, ids.ivalue, v.isTuple() ? ids.iv_tuple : ids.iv_list, items);
      env->DeleteLocalRef(items);
      return r;
    }
    case tvk::IValue::Tag::Dict: {
      const auto& dict = *v.toDict();
      bool string_keys = true, int_keys = true;
      for (const auto& [k, _] : dict.items) {
        string_keys &= k.isString();
        int_keys &= k.isInt();
      }
      if (!string_keys && !int_keys) throw tvk::Error("a dict output whose keys are neither all str nor all int");
      jobjectArray keys = env->NewObjectArray(static_cast<jsize>(dict.items.size()), ids.object_class, nullptr);
      tvk::List values;
      for (size_t i = 0; i < dict.items.size(); ++i) {
        const tvk::IValue& k = dict.items[i].first;
        jobject key = string_keys ? static_cast<jobject>(env->NewStringUTF(k.toStringRef().c_str()))
                                  : call_static(env, ids.long_class, ids.long_of, static_cast<jlong>(k.toInt()));
        check_java(env);
        env->SetObjectArrayElement(keys, static_cast<jsize>(i), key);
        env->DeleteLocalRef(key);
        values.push_back(dict.items[i].second);
      }
      jobjectArray vals = array_to_java(env, values, walk, depth);
      jobject r = call_static(env, ids.ivalue, ids.iv_dict_from_native, static_cast<jboolean>(string_keys), keys, vals);
      env->DeleteLocalRef(keys);
      env->DeleteLocalRef(vals);
      return r;
    }
    case tvk::IValue::Tag::Object:
      if (v.toObject()->named_tuple) {  // a NamedTuple: its fields, in order, as a tuple
        tvk::List fields;
        for (const auto& [name, value] : v.toObject()->attributes) fields.push_back(value);
        return to_java(env, tvk::IValue::tuple(std::move(fields)), walk, depth);
      }
      [[fallthrough]];
    default:
      throw tvk::Error(std::string("the method returned a ") + v.tag_name() + ", which Java cannot represent");
  }
}

// Runs `body`, turning C++ errors into a TvkException (or leaving a pending Java one).
template <typename F, typename R = decltype(std::declval<F>()())>
R guarded(JNIEnv* env, F body, R on_error = R{}) {
  try {
    return body();
  } catch (const JavaExceptionPending&) {
  } catch (const std::exception& e) {
    if (!env->ExceptionCheck()) env->ThrowNew(ids.tvk_exception, e.what());
  } catch (...) {
    if (!env->ExceptionCheck()) env->ThrowNew(ids.tvk_exception, "unknown native error");
  }
  return on_error;
}

}  // namespace

namespace {
tvk::Limits limits_of(jdouble timeout_s, jlong max_memory, jlong max_steps, jlong max_device_memory) {
  if (!(timeout_s >= 0) || max_memory < 0 || max_steps < 0 || max_device_memory < 0)
    throw tvk::Error("limits must not be negative");
  tvk::Limits limits;
  limits.timeout_s = timeout_s;
  if (max_memory > 0) limits.max_memory = static_cast<uint64_t>(max_memory);
  if (max_steps > 0) limits.max_steps = static_cast<uint64_t>(max_steps);
  if (max_device_memory > 0) limits.max_device_memory = static_cast<uint64_t>(max_device_memory);
  return limits;
}
}  // namespace

extern "C" {

JNIEXPORT jint JNI_OnLoad(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) != JNI_OK) return JNI_ERR;
  ids.ivalue = global_class(env, "org/tvk/IValue");
  ids.tensor = global_class(env, "org/tvk/Tensor");
  ids.dtype = global_class(env, "org/tvk/DType");
  ids.tvk_exception = global_class(env, "org/tvk/TvkException");
  ids.boolean_class = global_class(env, "java/lang/Boolean");
  ids.long_class = global_class(env, "java/lang/Long");
  ids.double_class = global_class(env, "java/lang/Double");
  ids.object_class = global_class(env, "java/lang/Object");
  if (env->ExceptionCheck()) return JNI_ERR;
  ids.iv_type = env->GetFieldID(ids.ivalue, "typeCode", "I");
  ids.iv_data = env->GetFieldID(ids.ivalue, "data", "Ljava/lang/Object;");
  ids.t_data = env->GetFieldID(ids.tensor, "data", "Ljava/nio/Buffer;");
  ids.t_shape = env->GetFieldID(ids.tensor, "shape", "[J");
  ids.t_dtype = env->GetFieldID(ids.tensor, "dtype", "Lorg/tvk/DType;");
  ids.dtype_code = env->GetFieldID(ids.dtype, "jniCode", "I");
  const char* iv = "Lorg/tvk/IValue;";
  ids.iv_null = env->GetStaticMethodID(ids.ivalue, "optionalNull", (std::string("()") + iv).c_str());
  ids.iv_from_tensor = env->GetStaticMethodID(ids.ivalue, "from", (std::string("(Lorg/tvk/Tensor;)") + iv).c_str());
  ids.iv_from_bool = env->GetStaticMethodID(ids.ivalue, "from", (std::string("(Z)") + iv).c_str());
  ids.iv_from_long = env->GetStaticMethodID(ids.ivalue, "from", (std::string("(J)") + iv).c_str());
  ids.iv_from_double = env->GetStaticMethodID(ids.ivalue, "from", (std::string("(D)") + iv).c_str());
  ids.iv_from_string = env->GetStaticMethodID(ids.ivalue, "from", (std::string("(Ljava/lang/String;)") + iv).c_str());
  ids.iv_tuple = env->GetStaticMethodID(ids.ivalue, "tupleFrom", (std::string("([Lorg/tvk/IValue;)") + iv).c_str());
  ids.iv_list = env->GetStaticMethodID(ids.ivalue, "listFrom", (std::string("([Lorg/tvk/IValue;)") + iv).c_str());
  ids.iv_dict_keys = env->GetMethodID(ids.ivalue, "dictKeys", "()[Ljava/lang/Object;");
  ids.iv_dict_values = env->GetMethodID(ids.ivalue, "dictValues", "()[Lorg/tvk/IValue;");
  ids.iv_dict_from_native = env->GetStaticMethodID(ids.ivalue, "dictFromNative",
                                                   (std::string("(Z[Ljava/lang/Object;[Lorg/tvk/IValue;)") + iv).c_str());
  ids.t_allocate = env->GetStaticMethodID(ids.tensor, "allocate", "(I[J)Lorg/tvk/Tensor;");
  ids.boolean_value = env->GetMethodID(ids.boolean_class, "booleanValue", "()Z");
  ids.long_value = env->GetMethodID(ids.long_class, "longValue", "()J");
  ids.double_value = env->GetMethodID(ids.double_class, "doubleValue", "()D");
  ids.long_of = env->GetStaticMethodID(ids.long_class, "valueOf", "(J)Ljava/lang/Long;");
  if (env->ExceptionCheck()) return JNI_ERR;
  return JNI_VERSION_1_6;
}

JNIEXPORT jboolean JNICALL Java_org_tvk_Tvk_nativeIsVulkanAvailable(JNIEnv* env, jclass) {
  return guarded(env, [] { return static_cast<jboolean>(tvk::is_vulkan_available()); });
}

JNIEXPORT jstring JNICALL Java_org_tvk_Tvk_nativeVersion(JNIEnv* env, jclass) {
  return env->NewStringUTF(TVK_VERSION);
}

JNIEXPORT jlong JNICALL Java_org_tvk_Module_nativeLoad(JNIEnv* env, jclass, jstring path, jint device) {
  return guarded(env, [&] {
    const tvk::Device d = device == 2 ? tvk::Device::Vulkan : tvk::Device::CPU;
    auto* module = new tvk::jit::Module(tvk::jit::load(java_string(env, path), d));
    return reinterpret_cast<jlong>(module);
  });
}

JNIEXPORT jlong JNICALL Java_org_tvk_Module_nativeLoadWithLimits(JNIEnv* env, jclass, jstring path, jint device,
                                                                 jdouble timeout_s, jlong max_memory, jlong max_steps,
                                                                 jlong max_device_memory) {
  return guarded(env, [&] {
    tvk::jit::LoadOptions options;
    options.device = device == 2 ? tvk::Device::Vulkan : tvk::Device::CPU;
    options.limits = limits_of(timeout_s, max_memory, max_steps, max_device_memory);
    auto* module = new tvk::jit::Module(tvk::jit::load(java_string(env, path), options));
    return reinterpret_cast<jlong>(module);
  });
}

JNIEXPORT void JNICALL Java_org_tvk_Module_nativeSetLimits(JNIEnv* env, jclass, jlong handle, jdouble timeout_s,
                                                           jlong max_memory, jlong max_steps, jlong max_device_memory) {
  guarded(env, [&] {
    reinterpret_cast<tvk::jit::Module*>(handle)->set_limits(limits_of(timeout_s, max_memory, max_steps, max_device_memory));
    return 0;
  });
}

JNIEXPORT jobject JNICALL Java_org_tvk_Module_nativeRunMethod(JNIEnv* env, jclass, jlong handle, jstring method,
                                                              jobjectArray inputs) {
  return guarded(env, [&]() -> jobject {
    auto* module = reinterpret_cast<tvk::jit::Module*>(handle);
    const std::string name = java_string(env, method);
    std::vector<tvk::IValue> args = items_from_java(env, inputs, 0);
    tvk::IValue result = module->run_method(name, std::move(args));
    tvk::ValueWalk walk("converting the result to Java");
    return to_java(env, result, walk, 0);
  });
}

JNIEXPORT jbyteArray JNICALL Java_org_tvk_Module_nativeExtraFile(JNIEnv* env, jclass, jlong handle, jstring name) {
  return guarded(env, [&]() -> jbyteArray {
    const auto& files = reinterpret_cast<tvk::jit::Module*>(handle)->extra_files();
    const auto it = files.find(java_string(env, name));
    if (it == files.end()) return nullptr;
    const std::string& contents = it->second;
    if (contents.size() > static_cast<size_t>(std::numeric_limits<jsize>::max()))
      throw tvk::Error("extra file '" + it->first + "' is too large for a Java array");
    const auto size = static_cast<jsize>(contents.size());
    jbyteArray bytes = env->NewByteArray(size);
    if (!bytes) throw JavaExceptionPending{};
    env->SetByteArrayRegion(bytes, 0, size, reinterpret_cast<const jbyte*>(contents.data()));
    return bytes;
  });
}

JNIEXPORT void JNICALL Java_org_tvk_Module_nativeSetTuning(JNIEnv* env, jclass, jlong handle, jint tuning) {
  guarded(env, [&] {
    static constexpr tvk::Tuning kModes[] = {tvk::Tuning::Off, tvk::Tuning::Cached, tvk::Tuning::On};
    if (tuning < 0 || tuning > 2) throw tvk::Error("tuning code " + std::to_string(tuning) + " is not 0, 1 or 2");
    reinterpret_cast<tvk::jit::Module*>(handle)->set_tuning(kModes[tuning]);
    return 0;
  });
}

JNIEXPORT jint JNICALL Java_org_tvk_Module_nativeTuning(JNIEnv* env, jclass, jlong handle) {
  return guarded(env, [&]() -> jint {
    const std::optional<tvk::Tuning> t = reinterpret_cast<tvk::jit::Module*>(handle)->tuning();
    if (!t) return -1;
    return *t == tvk::Tuning::Off ? 0 : *t == tvk::Tuning::Cached ? 1 : 2;
  });
}

JNIEXPORT void JNICALL Java_org_tvk_Module_nativeDestroy(JNIEnv* env, jclass, jlong handle) {
  guarded(env, [&] {
    delete reinterpret_cast<tvk::jit::Module*>(handle);
    return 0;
  });
}

}  // extern "C"
