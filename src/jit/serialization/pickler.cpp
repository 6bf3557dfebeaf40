// Pickler: mirrors torch/csrc/jit/serialization/pickler.cpp's encoding choices (integer widths,
// big-endian BINFLOAT, memoized strings and globals, type-tagged generic containers).
#include "jit/serialization/pickler.h"

#include "ops/custom_class.h"

#include <bit>
#include <limits>

#include "core/little_endian.h"
#include "jit/serialization/pickle_opcodes.h"
#include "core/storage.h"
#include "jit/serialization/storage_record.h"
#include "tvk/error.h"

namespace tvk::jit {
namespace {

using namespace pickle;

template <typename T>
void append(std::vector<uint8_t>& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<uint8_t>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF));
}

std::string common_type(const List& items) {
  if (items.empty()) return "Any";
  std::string t = infer_type_name(items[0]);
  for (size_t i = 1; i < items.size(); ++i)
    if (infer_type_name(items[i]) != t) return "Any";
  return t;
}

}  // namespace

std::string infer_type_name(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return "NoneType";
    case IValue::Tag::Tensor: return "Tensor";
    case IValue::Tag::Double: return "float";
    case IValue::Tag::Int: return "int";
    case IValue::Tag::Bool: return "bool";
    case IValue::Tag::String: return "str";
    case IValue::Tag::Device: return "Device";
    case IValue::Tag::List: return "List[" + common_type(v.toList()) + "]";
    case IValue::Tag::Tuple: {
      std::string t = "Tuple[";
      const List& items = v.toTuple();
      for (size_t i = 0; i < items.size(); ++i) t += (i ? ", " : "") + infer_type_name(items[i]);
      return t + "]";
    }
    case IValue::Tag::Dict: {
      List keys, values;
      for (const auto& [k, val] : v.toDict()->items) {
        keys.push_back(k);
        values.push_back(val);
      }
      return "Dict[" + common_type(keys) + ", " + common_type(values) + "]";
    }
    case IValue::Tag::Object: return v.toObject()->type_name;
  }
  return "Any";
}

Pickler::Pickler(StorageSink sink) : sink_(std::move(sink)) {}

std::vector<uint8_t> Pickler::pickle(const IValue& root) {
  TVK_CHECK(!used_, "Pickler::pickle called twice");
  used_ = true;
  op(PROTO);
  op(2);
  push(root, 0);
  op(STOP);
  return std::move(out_);
}

uint32_t Pickler::next_memo() {
  const uint32_t id = memo_count_++;
  if (id < 256) {
    op(BINPUT);
    op(static_cast<uint8_t>(id));
  } else {
    op(LONG_BINPUT);
    append<uint32_t>(out_, id);
  }
  return id;
}

void Pickler::push_memo_get(uint32_t index) {
  if (index < 256) {
    op(BINGET);
    op(static_cast<uint8_t>(index));
  } else {
    op(LONG_BINGET);
    append<uint32_t>(out_, index);
  }
}

bool Pickler::push_memoized(const void* key) {
  auto it = memo_.find(key);
  if (it == memo_.end()) return false;
  push_memo_get(it->second);
  return true;
}

void Pickler::put_memo(const void* key) { memo_[key] = next_memo(); }

void Pickler::push_int(int64_t v) {
  if (v >= 0 && v <= 0xFF) {
    op(BININT1);
    op(static_cast<uint8_t>(v));
  } else if (v >= 0 && v <= 0xFFFF) {
    op(BININT2);
    append<uint16_t>(out_, static_cast<uint16_t>(v));
  } else if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
    op(BININT);
    append<uint32_t>(out_, static_cast<uint32_t>(static_cast<int32_t>(v)));
  } else {
    op(LONG1);
    op(8);  // torch always writes the full 8 bytes, and its reader requires it
    append<uint64_t>(out_, static_cast<uint64_t>(v));
  }
}

void Pickler::push_double(double v) {
  op(BINFLOAT);
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  for (int i = 7; i >= 0; --i) op(static_cast<uint8_t>(bits >> (8 * i)));  // big-endian
}

void Pickler::push_string(const std::string& s) {
  auto it = string_memo_.find(s);
  if (it != string_memo_.end()) {
    push_memo_get(it->second);
    return;
  }
  TVK_CHECK(s.size() <= 0xFFFFFFFFu, "cannot pickle a string of ", s.size(), " bytes");
  op(BINUNICODE);
  append<uint32_t>(out_, static_cast<uint32_t>(s.size()));
  out_.insert(out_.end(), s.begin(), s.end());
  string_memo_.emplace(s, next_memo());
}

void Pickler::push_global(const std::string& module, const std::string& name) {
  // Globals share the string memo under a key no BINUNICODE string can collide with.
  const std::string key = std::string(1, '\0') + module + "\n" + name;
  auto it = string_memo_.find(key);
  if (it != string_memo_.end()) {
    push_memo_get(it->second);
    return;
  }
  TVK_CHECK(module.find('\n') == std::string::npos && name.find('\n') == std::string::npos && !name.empty(),
            "cannot pickle the global '", module, ".", name, "'");
  op(GLOBAL);
  out_.insert(out_.end(), module.begin(), module.end());
  op('\n');
  out_.insert(out_.end(), name.begin(), name.end());
  op('\n');
  string_memo_.emplace(key, next_memo());
}

void Pickler::push_storage(const Tensor& t) {
  const Storage* storage = t.storage().get();
  if (push_memoized(storage)) return;
  const int64_t numel = static_cast<int64_t>(t.storage()->nbytes() / element_size(t.dtype()));
  const Tensor flat(t.storage(), {numel}, {1}, 0, t.dtype());
  std::string key;
  if (sink_) {
    key = sink_(flat);
  } else {
    key = std::to_string(storages_.size());
    storages_.emplace_back(key, flat);
  }
  op(MARK);
  push_string("storage");
  push_global("torch", storage_type_name(t.dtype()));
  push_string(key);
  push_string("cpu");
  push_int(numel);
  op(TUPLE);
  op(BINPERSID);
  put_memo(storage);
}

void Pickler::push_tensor(const Tensor& tensor) {
  Tensor t = tensor;
  if (t.device() != Device::CPU) {
    t = t.cpu();
    keep_alive_.push_back(t);
  }
  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks)
  push_global("torch._utils", "_rebuild_tensor_v2");
  op(MARK);
  push_storage(t);
  push_int(t.storage_offset());
  op(MARK);
  for (int64_t s : t.sizes()) push_int(s);
  op(TUPLE);
  op(MARK);
  for (int64_t s : t.strides()) push_int(s);
  op(TUPLE);
  op(NEWFALSE);
  push_global("collections", "OrderedDict");
  op(EMPTY_TUPLE);
  op(REDUCE);
  op(TUPLE);
  op(REDUCE);
}

void Pickler::push_list(const IValue& v, int depth) {
  const List& items = v.toList();
  const char* builder = nullptr;
  if (!items.empty()) {
    auto all = [&](bool (IValue::*is)() const) {
      for (const IValue& x : items)
        if (!(x.*is)()) return false;
      return true;
    };
    builder = all(&IValue::isInt)      ? "build_intlist"
              : all(&IValue::isDouble) ? "build_doublelist"
              : all(&IValue::isBool)   ? "build_boollist"
              : all(&IValue::isTensor) ? "build_tensorlist"
                                       : nullptr;
  }
  if (builder) {
    // GLOBAL build_xlist, MARK EMPTY_LIST MARK items APPENDS TUPLE REDUCE
    push_global("torch.jit._pickle", builder);
    op(MARK);
    op(EMPTY_LIST);
    op(MARK);
    for (const IValue& x : items) push(x, depth + 1);
    op(APPENDS);
    op(TUPLE);
    op(REDUCE);
    return;
  }
  // restore_type_tag(list, 'List[T]')
  push_global("torch.jit._pickle", "restore_type_tag");
  op(EMPTY_LIST);
  op(MARK);
  for (const IValue& x : items) push(x, depth + 1);
  op(APPENDS);
  push_string(infer_type_name(v));
  op(TUPLE2);
  op(REDUCE);
}

void Pickler::push_dict(const IValue& v, int depth) {
  push_global("torch.jit._pickle", "restore_type_tag");
  op(EMPTY_DICT);
  op(MARK);
  for (const auto& [k, val] : v.toDict()->items) {
    push(k, depth + 1);
    push(val, depth + 1);
  }
  op(SETITEMS);
  push_string(infer_type_name(v));
  op(TUPLE2);
  op(REDUCE);
}

void Pickler::push_object(const IValue& v, int depth) {
  const Object& obj = *v.toObject();
  const ops::CustomClass* custom = obj.payload ? ops::find_custom_class(obj.type_name) : nullptr;
  TVK_CHECK(!obj.payload || (custom && custom->get_state), "cannot pickle ", obj.type_name,
            ": native custom-class objects need a registered __getstate__");
  const size_t dot = obj.type_name.rfind('.');
  TVK_CHECK(dot != std::string::npos && dot > 0 && dot + 1 < obj.type_name.size(), "cannot pickle an object of type '",
            obj.type_name, "': expected a qualified name like __torch__.Module");
  push_global(obj.type_name.substr(0, dot), obj.type_name.substr(dot + 1));
  op(EMPTY_TUPLE);
  op(NEWOBJ);
  if (custom) {
    // Custom classes pickle their __getstate__ value, as torch::class_ def_pickle does.
    push(custom->get_state(obj), depth + 1);
    op(BUILD);
    return;
  }
  op(EMPTY_DICT);
  op(MARK);
  for (const auto& [name, value] : obj.attributes) {
    push_string(name);
    push(value, depth + 1);
  }
  op(SETITEMS);
  op(BUILD);
}

void Pickler::push(const IValue& v, int depth) {
  TVK_CHECK(depth <= kMaxDepth, "cannot pickle values nested deeper than ", kMaxDepth,
            " levels (or a container that contains itself)");
  switch (v.tag()) {
    case IValue::Tag::None: op(NONE); return;
    case IValue::Tag::Bool: op(v.toBool() ? NEWTRUE : NEWFALSE); return;
    case IValue::Tag::Int: push_int(v.toInt()); return;
    case IValue::Tag::Double: push_double(v.toDouble()); return;
    case IValue::Tag::String: push_string(v.toStringRef()); return;
    case IValue::Tag::Tensor:
      if (!v.toTensor().defined()) {
        op(NONE);
      } else {
        push_tensor(v.toTensor());
      }
      return;
    case IValue::Tag::Device:
      push_global("torch", "device");
      push_string(to_string(v.toDevice()));
      op(TUPLE1);
      op(REDUCE);
      return;
    default: break;
  }
  // Containers: written once, referenced by memo afterwards (aliasing survives the round trip).
  const void* identity = v.isObject() ? static_cast<const void*>(v.toObject().get())
                         : v.isDict() ? static_cast<const void*>(v.toDict().get())
                                      : static_cast<const void*>(v.toListRef().get());
  if (push_memoized(identity)) return;
  // Memo keys are addresses: keep every container alive until pickle() returns, so a temporary
  // (such as a custom class's __getstate__ list) cannot free its address for another to reuse.
  keep_alive_containers_.push_back(v);
  if (v.isTuple()) {
    const List& items = v.toTuple();
    if (items.empty()) {
      op(EMPTY_TUPLE);
    } else if (items.size() <= 3) {
      for (const IValue& x : items) push(x, depth + 1);
      op(items.size() == 1 ? TUPLE1 : items.size() == 2 ? TUPLE2 : TUPLE3);
    } else {
      op(MARK);
      for (const IValue& x : items) push(x, depth + 1);
      op(TUPLE);
    }
  } else if (v.isList()) {
    push_list(v, depth);
  } else if (v.isDict()) {
    push_dict(v, depth);
  } else {
    push_object(v, depth);
  }
  put_memo(identity);
}

}  // namespace tvk::jit
