// Unpickler: turns the pickle protocol-2 streams of a TorchScript archive (data.pkl,
// constants.pkl, bytecode.pkl) into tvk::IValues. The stream is untrusted: every read is bounded.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tvk/ivalue.h"

namespace tvk::jit {

// How the jit layer plugs archive-specific behaviour into the unpickler.
struct UnpicklerHooks {
  // Persistent id ('storage', torch.<Type>Storage, key, location, numel): returns the whole
  // storage as a flat 1-D CPU tensor of `numel` elements (the `data/<key>` record).
  // `storage_type` is the class name, e.g. "FloatStorage". Required when the stream has tensors.
  std::function<Tensor(const std::string& key, const std::string& storage_type, int64_t numel,
                       const std::string& location)>
      load_storage;
  // GLOBAL '__torch__.a.b' 'C' + EMPTY_TUPLE + NEWOBJ. Default: an empty Object of that type.
  std::function<std::shared_ptr<Object>(const std::string& qualified_class_name)> make_object;
  // BUILD. Default: `state` must be a dict of str -> value, each set as an attribute.
  std::function<void(const std::shared_ptr<Object>&, IValue state)> set_state;
};

// How a torch storage class's bytes become a tvk tensor: float32, int64 and bool as they are;
// float64 and float16 converted to float32, and int32, int16, int8 and uint8 to int64, on load
// (traced models keep float64 constants; tvk computes in float32). Throws tvk::Error naming the
// class for the ones tvk cannot hold (complex, bfloat16, quantized).
struct StorageFormat {
  DType dtype;            // what the tensor holds
  uint64_t stored_bytes;  // bytes of one element in the record
  enum class Kind { Same, Float64, Float16, Int32, Int16, Int8, UInt8 } kind;
};
StorageFormat storage_format(const std::string& storage_type);
DType storage_dtype(const std::string& storage_type);

class Unpickler {
 public:
  // `context` prefixes every error, e.g. "model.pt: record 'data.pkl'"; errors add the offset.
  Unpickler(const uint8_t* data, size_t size, std::string context, UnpicklerHooks hooks = {});

  // Runs the stream to STOP and returns the single value it leaves. Call once.
  IValue parse();

  static IValue unpickle(const std::vector<uint8_t>& bytes, std::string context, UnpicklerHooks hooks = {});

  // Bounds that keep a hostile stream from exhausting memory or the native stack.
  static constexpr size_t kMaxStack = size_t{1} << 22;
  static constexpr size_t kMaxMemo = size_t{1} << 22;
  static constexpr int kMaxDepth = 512;  // nesting of containers (IValue destructors recurse)

 private:
  struct Meta {
    std::shared_ptr<void> keep_alive;  // so the address cannot be reused by a new container
    int depth = 1;
    bool sealed = false;
    // Dicts: canonical scalar key -> position, so SETITEMS stays linear in the item count.
    std::unordered_map<std::string, size_t> key_index;
    size_t slow_keys = 0;  // tensor keys, compared linearly by identity; capped
  };

  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at(size_t offset, const std::string& message) const;
  const uint8_t* take(size_t n);
  uint8_t u8() { return *take(1); }
  std::string read_line();

  void push(IValue value);
  IValue pop(const char* op);
  IValue& top(const char* op);
  List pop_to_mark(const char* op);
  List pop_n(size_t n, const char* op);

  bool step();  // runs one opcode; false at STOP
  void op_global();
  void op_reduce();
  void op_newobj();
  void op_build();
  void op_persid();
  void memo_put(uint32_t index);
  void memo_get(uint32_t index);

  IValue make_list(List items);
  IValue make_tuple(List items);
  IValue make_dict();
  void append(IValue& list, List items, const char* op);
  void set_items(IValue& dict, List items, const char* op);
  Tensor rebuild_tensor(const List& args);
  Tensor rebuild_qtensor(const List& args);
  template <typename F> auto call_hook(const char* hook, F&& f) -> decltype(f());
  // Container bookkeeping: nesting depth, and refusing to mutate a container after it was placed
  // inside another (torch never does; it is how cycles and unbounded nesting would be built).
  Meta* meta(const IValue& v);
  int depth_of(const IValue& v);
  void seal(const IValue& v, const char* op);
  void check_mutable(const IValue& container, const char* op);
  void grow_depth(const IValue& container, int child_depth);

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t op_offset_ = 0;  // offset of the opcode being executed, for errors
  std::string context_;
  UnpicklerHooks hooks_;
  std::vector<IValue> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, IValue> memo_;
  std::unordered_map<const void*, Meta> meta_;
  bool parsed_ = false;
};

}  // namespace tvk::jit
