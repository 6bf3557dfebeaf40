// Pickler: writes IValues as the pickle protocol-2 streams TorchScript archives hold (data.pkl,
// constants.pkl), using only opcodes torch's C++ unpickler accepts.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tvk/ivalue.h"

namespace tvk::jit {

class Pickler {
 public:
  // Receives each distinct tensor storage once, in first-use order, as a flat 1-D CPU tensor
  // over the whole storage; returns the key the pickle records (the `data/<key>` record name).
  using StorageSink = std::function<std::string(const Tensor& storage)>;

  // Without a sink, storages get keys "0", "1", ... and are kept for storages().
  explicit Pickler(StorageSink sink = {});

  // Pickles `root` (PROTO 2 ... STOP). Call once per Pickler.
  std::vector<uint8_t> pickle(const IValue& root);
  // (key, flat storage) pairs collected when no sink was given.
  const std::vector<std::pair<std::string, Tensor>>& storages() const { return storages_; }

  static constexpr int kMaxDepth = 512;  // also catches containers that contain themselves

 private:
  void push(const IValue& v, int depth);
  void push_int(int64_t v);
  void push_double(double v);
  void push_string(const std::string& s);
  void push_global(const std::string& module, const std::string& name);
  void push_tensor(const Tensor& t);
  void push_storage(const Tensor& t);
  void push_list(const IValue& v, int depth);
  void push_dict(const IValue& v, int depth);
  void push_object(const IValue& v, int depth);
  void push_memo_get(uint32_t index);  // BINGET or LONG_BINGET
  bool push_memoized(const void* key);  // BINGET when already written
  void put_memo(const void* key);
  uint32_t next_memo();
  void op(uint8_t code) { out_.push_back(code); }

  StorageSink sink_;
  std::vector<uint8_t> out_;
  uint32_t memo_count_ = 0;
  std::unordered_map<const void*, uint32_t> memo_;  // containers by identity, storages
  std::unordered_map<std::string, uint32_t> string_memo_;  // strings and globals by value
  std::vector<std::pair<std::string, Tensor>> storages_;
  std::vector<Tensor> keep_alive_;
  std::vector<IValue> keep_alive_containers_;  // CPU copies of device tensors, so their addresses stay unique
  bool used_ = false;
};

// The TorchScript type annotation restore_type_tag records for `v` ('List[int]', 'Dict[str, Tensor]'),
// inferred from the values; empty or mixed containers become Any.
std::string infer_type_name(const IValue& v);

}  // namespace tvk::jit
