// Unpickler: a bounded stack machine over the pickle opcodes torch.jit.save emits, with the
// torch-specific GLOBALs (tensor rebuild, typed lists, devices) applied natively.
#include "jit/serialization/unpickler.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/little_endian.h"
#include "jit/serialization/pickle_opcodes.h"
#include "tvk/error.h"

namespace tvk::jit {
namespace {

using namespace pickle;

constexpr size_t kMaxGlobalName = 64 * 1024;
constexpr size_t kMaxSlowDictKeys = 4096;
constexpr int64_t kMaxTensorElements = int64_t{1} << 34;

// What a GLOBAL resolves to. Carried on the stack as an Object whose payload is this, because
// the storage class must travel inside the persistent-id tuple like any other value.
enum class GlobalKind {
  RebuildTensorV2,
  RebuildParameter,  // torch.save of an nn.Parameter: its tensor (requires_grad and hooks dropped)
  OrderedDict,
  BuildIntList,
  BuildDoubleList,
  BuildBoolList,
  BuildTensorList,
  RestoreTypeTag,
  Device,
  StorageType,
  Class,
  RebuildQTensor,
  QScheme,  // torch.per_tensor_affine / per_channel_affine: a marker inside quantizer parameters
};

struct GlobalRef final : CustomClassPayload {
  GlobalRef(GlobalKind k, std::string m, std::string n) : kind(k), module(std::move(m)), name(std::move(n)) {}
  GlobalKind kind;
  std::string module, name;
  std::string qualified() const { return module + "." + name; }
};

const GlobalRef* as_global(const IValue& v) {
  if (!v.isObject()) return nullptr;
  return dynamic_cast<const GlobalRef*>(v.toObject()->payload.get());
}

// The object behind a container IValue, used as its identity.
const void* container_ptr(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::List:
    case IValue::Tag::Tuple: return v.toListRef().get();
    case IValue::Tag::Dict: return v.toDict().get();
    case IValue::Tag::Object: return v.toObject().get();
    default: return nullptr;
  }
}

std::shared_ptr<void> container_owner(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::List:
    case IValue::Tag::Tuple: return v.toListRef();
    case IValue::Tag::Dict: return v.toDict();
    case IValue::Tag::Object: return v.toObject();
    default: return nullptr;
  }
}

// A one-letter type tag + body. (Not "x" + std::string: GCC 12 warns falsely about that.)
std::string tagged(char tag, const std::string& body) {
  std::string out;
  out.reserve(body.size() + 1);
  out.push_back(tag);
  out.append(body);
  return out;
}

// Equal keys (as ivalue_equal sees them) map to equal strings; empty for keys without one.
std::string canonical_key(const IValue& k, size_t& nan_counter) {
  switch (k.tag()) {
    case IValue::Tag::None: return "N";
    case IValue::Tag::String: return tagged('s', k.toStringRef());
    case IValue::Tag::Int:
    case IValue::Tag::Bool: return tagged('n', std::to_string(k.toInt()));
    case IValue::Tag::Double: {
      const double d = k.toDouble();
      if (std::isnan(d)) return tagged('x', std::to_string(nan_counter++));  // NaN equals nothing
      if (d == std::trunc(d) && std::fabs(d) < 9.2e18) return tagged('n', std::to_string(static_cast<int64_t>(d)));
      return tagged('d', std::to_string(std::bit_cast<uint64_t>(d)));
    }
    case IValue::Tag::Device: return tagged('v', to_string(k.toDevice()));
    default: return {};
  }
}

// An int's value, else its type: never repr(), whose cost a hostile value could make explode.
std::string describe(const IValue& v) { return v.isInt() ? std::to_string(v.toInt()) : std::string("of type ") + v.tag_name(); }

const char* op_name(uint8_t op) {
  switch (op) {
    case APPEND: return "APPEND";
    case APPENDS: return "APPENDS";
    case SETITEM: return "SETITEM";
    case SETITEMS: return "SETITEMS";
    default: return "opcode";
  }
}

}  // namespace

StorageFormat storage_format(const std::string& storage_type) {
  using K = StorageFormat::Kind;
  // Quantized tensors' integers; _rebuild_qtensor dequantizes them.
  if (storage_type == "QInt8Storage") return {DType::Int64, 1, K::Int8};
  if (storage_type == "QUInt8Storage") return {DType::Int64, 1, K::UInt8};
  if (storage_type == "QInt32Storage") return {DType::Int64, 4, K::Int32};
  if (storage_type == "FloatStorage") return {DType::Float32, 4, K::Same};
  if (storage_type == "LongStorage") return {DType::Int64, 8, K::Same};
  if (storage_type == "BoolStorage") return {DType::Bool, 1, K::Same};
  if (storage_type == "DoubleStorage") return {DType::Float32, 8, K::Float64};
  if (storage_type == "HalfStorage") return {DType::Float32, 2, K::Float16};
  if (storage_type == "IntStorage") return {DType::Int64, 4, K::Int32};
  if (storage_type == "ShortStorage") return {DType::Int64, 2, K::Int16};
  if (storage_type == "CharStorage") return {DType::Int64, 1, K::Int8};
  if (storage_type == "ByteStorage") return {DType::Int64, 1, K::UInt8};
  throw Error(detail::concat("tensors of storage type torch.", storage_type,
                             " are not supported (tvk holds float32, int64 and bool tensors, and converts "
                             "float64, float16 and narrower integers to them)"));
}

DType storage_dtype(const std::string& storage_type) { return storage_format(storage_type).dtype; }

Unpickler::Unpickler(const uint8_t* data, size_t size, std::string context, UnpicklerHooks hooks)
    : data_(data), size_(size), context_(std::move(context)), hooks_(std::move(hooks)) {}

IValue Unpickler::unpickle(const std::vector<uint8_t>& bytes, std::string context, UnpicklerHooks hooks) {
  Unpickler u(bytes.data(), bytes.size(), std::move(context), std::move(hooks));
  return u.parse();
}

void Unpickler::fail(const std::string& message) const { fail_at(op_offset_, message); }

void Unpickler::fail_at(size_t offset, const std::string& message) const {
  throw Error(detail::concat(context_, " at offset ", offset, ": ", message));
}

const uint8_t* Unpickler::take(size_t n) {
  if (n > size_ - pos_)
    fail_at(pos_, detail::concat("truncated pickle: needs ", n, " more bytes, ", size_ - pos_, " left"));
  const uint8_t* p = data_ + pos_;
  pos_ += n;
  return p;
}

std::string Unpickler::read_line() {
  const size_t start = pos_;
  const size_t limit = std::min(size_, pos_ + kMaxGlobalName);
  for (size_t i = pos_; i < limit; ++i) {
    if (data_[i] == '\n') {
      pos_ = i + 1;
      return std::string(reinterpret_cast<const char*>(data_ + start), i - start);
    }
  }
  fail_at(start, limit == size_ ? "truncated pickle: GLOBAL name has no end of line" : "GLOBAL name is too long");
}

template <typename F>
auto Unpickler::call_hook(const char* hook, F&& f) -> decltype(f()) {
  // Hook errors (a missing record, an unsupported class) get the pickle position added, their
  // type kept (a limit or out-of-memory error from __setstate__ stays one).
  try {
    return f();
  } catch (const Error& e) {
    rethrow_with_context(e, detail::concat(context_, " at offset ", op_offset_, ": ", hook));
  }
}

// ---- stack -------------------------------------------------------------------------------

void Unpickler::push(IValue value) {
  if (stack_.size() >= kMaxStack) fail(detail::concat("pickle stack exceeds ", kMaxStack, " values"));
  stack_.push_back(std::move(value));
}

IValue Unpickler::pop(const char* op) {
  if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
    fail(detail::concat(op, " needs a value but the stack is empty"));
  IValue v = std::move(stack_.back());
  stack_.pop_back();
  return v;
}

IValue& Unpickler::top(const char* op) {
  if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
    fail(detail::concat(op, " needs a value but the stack is empty"));
  return stack_.back();
}

List Unpickler::pop_to_mark(const char* op) {
  if (marks_.empty()) fail(detail::concat(op, " without a preceding MARK"));
  const size_t mark = marks_.back();
  marks_.pop_back();
  // pop() never crosses the innermost mark, so mark <= size always holds; check anyway.
  if (mark > stack_.size()) fail(detail::concat(op, ": MARK lies above the stack top"));
  List items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(mark)),
             std::make_move_iterator(stack_.end()));
  stack_.resize(mark);
  return items;
}

List Unpickler::pop_n(size_t n, const char* op) {
  const size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() < floor + n) fail(detail::concat(op, " needs ", n, " values, the stack has fewer"));
  List items(std::make_move_iterator(stack_.end() - static_cast<std::ptrdiff_t>(n)),
             std::make_move_iterator(stack_.end()));
  stack_.resize(stack_.size() - n);
  return items;
}

// ---- container bookkeeping ---------------------------------------------------------------

Unpickler::Meta* Unpickler::meta(const IValue& v) {
  const void* p = container_ptr(v);
  if (!p) return nullptr;
  auto it = meta_.find(p);
  if (it == meta_.end()) {
    // A container made by a hook (make_object): start tracking it now.
    it = meta_.emplace(p, Meta{}).first;
    it->second.keep_alive = container_owner(v);
  }
  return &it->second;
}

int Unpickler::depth_of(const IValue& v) {
  Meta* m = meta(v);
  return m ? m->depth : 0;
}

void Unpickler::seal(const IValue& v, const char* op) {
  if (as_global(v)) fail(detail::concat(op, ": a GLOBAL (", as_global(v)->qualified(), ") cannot be stored as a value"));
  if (Meta* m = meta(v)) m->sealed = true;
}

void Unpickler::check_mutable(const IValue& container, const char* op) {
  Meta* m = meta(container);
  if (m && m->sealed)
    fail(detail::concat(op, " modifies a ", container.tag_name(),
                        " that is already inside another container (cyclic or reordered pickles are not supported)"));
}

void Unpickler::grow_depth(const IValue& container, int child_depth) {
  Meta* m = meta(container);
  if (!m) return;
  if (child_depth + 1 > m->depth) m->depth = child_depth + 1;
  if (m->depth > kMaxDepth) fail(detail::concat("containers nest deeper than ", kMaxDepth, " levels"));
}

IValue Unpickler::make_list(List items) {
  IValue list = IValue::list({});
  meta(list);
  append(list, std::move(items), "LIST");
  return list;
}

IValue Unpickler::make_tuple(List items) {
  int depth = 0;
  for (const IValue& v : items) {
    // Tuples may hold a GLOBAL: the persistent id ('storage', torch.FloatStorage, ...) does.
    if (!as_global(v)) seal(v, "TUPLE");
    depth = std::max(depth, depth_of(v));
  }
  IValue t = IValue::tuple(std::move(items));
  grow_depth(t, depth);
  return t;
}

IValue Unpickler::make_dict() {
  IValue d(std::make_shared<Dict>());
  meta(d);
  return d;
}

void Unpickler::append(IValue& list, List items, const char* op) {
  if (!list.isList()) fail(detail::concat(op, " on a ", list.tag_name(), ", expected a list"));
  for (const IValue& v : items) seal(v, op);
  check_mutable(list, op);
  const std::shared_ptr<List>& dst = list.toListRef();
  if (dst->size() + items.size() > kMaxStack) fail(detail::concat(op, ": list exceeds ", kMaxStack, " items"));
  for (IValue& v : items) {
    grow_depth(list, depth_of(v));
    dst->push_back(std::move(v));
  }
}

void Unpickler::set_items(IValue& dict, List items, const char* op) {
  if (!dict.isDict()) fail(detail::concat(op, " on a ", dict.tag_name(), ", expected a dict"));
  if (items.size() % 2 != 0) fail(detail::concat(op, " with an odd number of values (", items.size(), ")"));
  for (const IValue& v : items) seal(v, op);
  check_mutable(dict, op);
  Meta* m = meta(dict);
  Dict& d = *dict.toDict();
  size_t nan_counter = d.items.size();
  for (size_t i = 0; i < items.size(); i += 2) {
    grow_depth(dict, std::max(depth_of(items[i]), depth_of(items[i + 1])));
    const std::string key = canonical_key(items[i], nan_counter);
    if (key.empty()) {
      // TorchScript dict keys are str, int, float, bool or Tensor; tensors compare by identity.
      if (!items[i].isTensor())
        fail(detail::concat(op, ": dict keys of type ", items[i].tag_name(), " are not supported"));
      if (++m->slow_keys > kMaxSlowDictKeys)
        fail(detail::concat(op, ": more than ", kMaxSlowDictKeys, " dict keys of type ", items[i].tag_name()));
      d.set(std::move(items[i]), std::move(items[i + 1]));
      continue;
    }
    auto [it, fresh] = m->key_index.emplace(key, d.items.size());
    if (fresh) {
      d.items.emplace_back(std::move(items[i]), std::move(items[i + 1]));
    } else {
      d.items[it->second].second = std::move(items[i + 1]);
    }
  }
}

// ---- memo --------------------------------------------------------------------------------

void Unpickler::memo_put(uint32_t index) {
  const IValue& v = top("BINPUT");
  auto it = memo_.find(index);
  if (it != memo_.end()) {
    it->second = v;
    return;
  }
  if (memo_.size() >= kMaxMemo) fail(detail::concat("pickle memo exceeds ", kMaxMemo, " entries"));
  memo_.emplace(index, v);
}

void Unpickler::memo_get(uint32_t index) {
  auto it = memo_.find(index);
  if (it == memo_.end()) fail(detail::concat("memo index ", index, " was never stored (BINPUT)"));
  push(it->second);
}

// ---- the machine -------------------------------------------------------------------------

IValue Unpickler::parse() {
  if (parsed_) throw Error(detail::concat(context_, ": Unpickler::parse called twice"));
  parsed_ = true;
  while (step()) {
  }
  if (!marks_.empty()) fail("STOP with an unclosed MARK");
  if (stack_.size() != 1) fail(detail::concat("STOP with ", stack_.size(), " values on the stack, expected 1"));
  if (as_global(stack_.back())) fail("the pickle's result is a bare GLOBAL");
  IValue result = std::move(stack_.back());
  stack_.clear();
  memo_.clear();
  meta_.clear();
  return result;
}

bool Unpickler::step() {
  op_offset_ = pos_;
  if (pos_ >= size_) fail_at(pos_, "truncated pickle: ended without STOP");
  const uint8_t op = u8();
  switch (op) {
    case PROTO: {
      const uint8_t v = u8();
      if (v != 2) fail(detail::concat("pickle protocol ", int{v}, " is not supported (TorchScript writes protocol 2)"));
      break;
    }
    case STOP: return false;
    case MARK:
      if (marks_.size() >= kMaxStack) fail("too many MARKs");
      marks_.push_back(stack_.size());
      break;
    case POP: pop("POP"); break;
    case NONE: push(IValue()); break;
    case NEWTRUE: push(IValue(true)); break;
    case NEWFALSE: push(IValue(false)); break;
    case BININT1: push(IValue(int64_t{u8()})); break;
    case BININT2: push(IValue(int64_t{load_le<uint16_t>(take(2))})); break;
    case BININT: push(IValue(int64_t{static_cast<int32_t>(load_le<uint32_t>(take(4)))})); break;
    case LONG1: {
      const uint8_t n = u8();
      if (n > 8) fail(detail::concat("LONG1 of ", int{n}, " bytes does not fit in int64"));
      const uint8_t* p = take(n);
      uint64_t v = 0;
      for (uint8_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
      if (n > 0 && n < 8 && (p[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
      push(IValue(static_cast<int64_t>(v)));
      break;
    }
    case BINFLOAT: {
      const uint8_t* p = take(8);
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];  // big-endian, unlike everything else
      push(IValue(std::bit_cast<double>(bits)));
      break;
    }
    case BINUNICODE: {
      const uint32_t n = load_le<uint32_t>(take(4));
      const uint8_t* p = take(n);
      push(IValue(std::string(reinterpret_cast<const char*>(p), n)));
      break;
    }
    case EMPTY_LIST: push(make_list({})); break;
    case EMPTY_DICT: push(make_dict()); break;
    case EMPTY_TUPLE: push(make_tuple({})); break;
    case TUPLE: push(make_tuple(pop_to_mark("TUPLE"))); break;
    case TUPLE1: push(make_tuple(pop_n(1, "TUPLE1"))); break;
    case TUPLE2: push(make_tuple(pop_n(2, "TUPLE2"))); break;
    case TUPLE3: push(make_tuple(pop_n(3, "TUPLE3"))); break;
    case LIST: push(make_list(pop_to_mark("LIST"))); break;
    case DICT: {
      List items = pop_to_mark("DICT");
      IValue d = make_dict();
      set_items(d, std::move(items), "DICT");
      push(std::move(d));
      break;
    }
    case APPEND: {
      List items;
      items.push_back(pop("APPEND"));
      append(top("APPEND"), std::move(items), op_name(op));
      break;
    }
    case APPENDS: {
      List items = pop_to_mark("APPENDS");
      append(top("APPENDS"), std::move(items), op_name(op));
      break;
    }
    case SETITEM: {
      List items = pop_n(2, "SETITEM");
      set_items(top("SETITEM"), std::move(items), op_name(op));
      break;
    }
    case SETITEMS: {
      List items = pop_to_mark("SETITEMS");
      set_items(top("SETITEMS"), std::move(items), op_name(op));
      break;
    }
    case BINPUT: memo_put(u8()); break;
    case LONG_BINPUT: memo_put(load_le<uint32_t>(take(4))); break;
    case BINGET: memo_get(u8()); break;
    case LONG_BINGET: memo_get(load_le<uint32_t>(take(4))); break;
    case GLOBAL: op_global(); break;
    case REDUCE: op_reduce(); break;
    case NEWOBJ: op_newobj(); break;
    case BUILD: op_build(); break;
    case BINPERSID: op_persid(); break;
    default: {
      const bool printable = op >= 0x20 && op < 0x7f;
      fail(detail::concat("unknown or unsupported pickle opcode 0x", "0123456789abcdef"[op >> 4],
                          "0123456789abcdef"[op & 15], printable ? std::string(" '") + char(op) + "'" : std::string()));
    }
  }
  return true;
}

void Unpickler::op_global() {
  const std::string module = read_line();
  const std::string name = read_line();
  GlobalKind kind;
  if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
    kind = GlobalKind::RebuildTensorV2;
  } else if (module == "torch._utils" && name == "_rebuild_parameter") {
    kind = GlobalKind::RebuildParameter;
  } else if (module == "collections" && name == "OrderedDict") {
    kind = GlobalKind::OrderedDict;
  } else if (module == "torch.jit._pickle" && name == "build_intlist") {
    kind = GlobalKind::BuildIntList;
  } else if (module == "torch.jit._pickle" && name == "build_doublelist") {
    kind = GlobalKind::BuildDoubleList;
  } else if (module == "torch.jit._pickle" && name == "build_boollist") {
    kind = GlobalKind::BuildBoolList;
  } else if (module == "torch.jit._pickle" && name == "build_tensorlist") {
    kind = GlobalKind::BuildTensorList;
  } else if (module == "torch.jit._pickle" && name == "restore_type_tag") {
    kind = GlobalKind::RestoreTypeTag;
  } else if (module == "torch" && name == "device") {
    kind = GlobalKind::Device;
  } else if (module == "torch" && name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0) {
    kind = GlobalKind::StorageType;
  } else if (module == "__torch__" || module.rfind("__torch__.", 0) == 0) {
    kind = GlobalKind::Class;
  } else if (module == "torch._utils" && name == "_rebuild_qtensor") {
    kind = GlobalKind::RebuildQTensor;
  } else if (module == "torch" && (name == "per_tensor_affine" || name == "per_channel_affine" ||
                                   name == "per_channel_affine_float_qparams" || name == "per_tensor_symmetric" ||
                                   name == "per_channel_symmetric")) {
    kind = GlobalKind::QScheme;
  } else if (module == "builtins" && name == "complex") {
    fail("complex numbers (builtins.complex) are not supported");
  } else {
    fail(detail::concat("unknown GLOBAL '", module, ".", name, "'"));
  }
  if (name.empty()) fail(detail::concat("GLOBAL '", module, "' has an empty name"));
  auto obj = std::make_shared<Object>();
  obj->type_name = module + "." + name;
  obj->payload = std::make_shared<GlobalRef>(kind, module, name);
  push(IValue(std::move(obj)));
}

void Unpickler::op_reduce() {
  IValue args = pop("REDUCE");
  IValue callable = pop("REDUCE");
  const GlobalRef* g = as_global(callable);
  if (!g) fail(detail::concat("REDUCE applies a ", callable.tag_name(), ", not a GLOBAL"));
  if (!args.isTuple()) fail(detail::concat("REDUCE arguments of ", g->qualified(), " are a ", args.tag_name(), ", not a tuple"));
  const List& a = args.toTuple();
  auto want_args = [&](size_t n) {
    if (a.size() != n) fail(detail::concat(g->qualified(), " takes ", n, " arguments, got ", a.size()));
  };
  switch (g->kind) {
    case GlobalKind::RebuildTensorV2: push(IValue(rebuild_tensor(a))); return;
    case GlobalKind::RebuildParameter:
      want_args(3);
      if (!a[0].isTensor()) fail("_rebuild_parameter: the first argument is not a tensor");
      push(a[0]);
      return;
    case GlobalKind::OrderedDict: want_args(0); push(make_dict()); return;
    case GlobalKind::BuildIntList:
    case GlobalKind::BuildDoubleList:
    case GlobalKind::BuildBoolList:
    case GlobalKind::BuildTensorList: {
      want_args(1);
      if (!a[0].isList()) fail(detail::concat(g->qualified(), " expects a list, got a ", a[0].tag_name()));
      for (const IValue& v : a[0].toList()) {
        const bool ok = g->kind == GlobalKind::BuildIntList      ? v.isInt()
                        : g->kind == GlobalKind::BuildDoubleList ? v.isDouble()
                        : g->kind == GlobalKind::BuildBoolList   ? v.isBool()
                                                                 : v.isTensor();
        if (!ok) fail(detail::concat(g->qualified(), " list holds a ", v.tag_name()));
      }
      push(a[0]);
      return;
    }
    case GlobalKind::RestoreTypeTag:
      // The annotation ('Dict[str, int]') only matters to a typed runtime; IValue lists are untyped.
      want_args(2);
      if (!a[1].isString()) fail("restore_type_tag expects a type string");
      push(a[0]);
      return;
    case GlobalKind::Device:
      want_args(1);
      if (!a[0].isString()) fail("torch.device expects a string");
      push(IValue(call_hook("torch.device", [&] { return parse_device(a[0].toStringRef()); })));
      return;
    case GlobalKind::RebuildQTensor: push(IValue(rebuild_qtensor(a))); return;
    case GlobalKind::QScheme: fail(detail::concat("torch.", g->name, " may only appear in quantizer parameters"));
    case GlobalKind::StorageType: fail(detail::concat("torch.", g->name, " may only appear in a persistent id"));
    case GlobalKind::Class:
      fail(detail::concat("REDUCE on class ", g->qualified(), " (TorchScript enums) is not supported"));
  }
}

void Unpickler::op_newobj() {
  IValue args = pop("NEWOBJ");
  IValue cls = pop("NEWOBJ");
  const GlobalRef* g = as_global(cls);
  if (!g || g->kind != GlobalKind::Class)
    fail(detail::concat("NEWOBJ of ", g ? g->qualified() : std::string(cls.tag_name()), ", not a TorchScript class"));
  if (!args.isTuple() || !args.toTuple().empty()) fail(detail::concat("NEWOBJ of ", g->qualified(), " with arguments"));
  const std::string qualified = g->qualified();
  std::shared_ptr<Object> obj;
  if (hooks_.make_object) {
    obj = call_hook("make_object", [&] { return hooks_.make_object(qualified); });
    if (!obj) fail(detail::concat("make_object returned no object for ", qualified));
  } else {
    obj = std::make_shared<Object>();
    obj->type_name = qualified;
  }
  IValue v(std::move(obj));
  meta(v);
  push(std::move(v));
}

void Unpickler::op_build() {
  IValue state = pop("BUILD");
  IValue& target = top("BUILD");
  if (!target.isObject() || as_global(target)) fail(detail::concat("BUILD on a ", target.tag_name(), ", expected an object"));
  seal(state, "BUILD");
  check_mutable(target, "BUILD");
  grow_depth(target, depth_of(state));
  const std::shared_ptr<Object>& obj = target.toObject();
  if (hooks_.set_state) {
    call_hook("set_state", [&] { hooks_.set_state(obj, state); });
    return;
  }
  if (!state.isDict())
    fail(detail::concat("BUILD state of ", obj->type_name, " is a ", state.tag_name(),
                        ", not a dict of attributes (classes with __setstate__ need UnpicklerHooks::set_state)"));
  // Dict keys are already unique, so a fresh object takes them without Object::set's linear scan.
  const bool fresh = obj->attributes.empty();
  for (const auto& [k, v] : state.toDict()->items) {
    if (!k.isString()) fail(detail::concat("BUILD state of ", obj->type_name, " has a ", k.tag_name(), " key"));
    if (fresh) {
      obj->attributes.emplace_back(k.toStringRef(), v);
    } else {
      obj->set(k.toStringRef(), v);
    }
  }
}

void Unpickler::op_persid() {
  IValue pid = pop("BINPERSID");
  // Archives of PyTorch 1.3-1.5 (format versions 1 and 2) add a sixth element, the view metadata:
  // None, or (view key, offset, size) for a storage that is a slice of the one named.
  if (!pid.isTuple() || (pid.toTuple().size() != 5 && pid.toTuple().size() != 6))
    fail("BINPERSID expects ('storage', storage type, key, location, numel[, view metadata])");
  const List& t = pid.toTuple();
  const GlobalRef* type = as_global(t[1]);
  if (!t[0].isString() || t[0].toStringRef() != "storage" || !type || type->kind != GlobalKind::StorageType ||
      !t[2].isString() || !t[3].isString() || !t[4].isInt())
    fail("BINPERSID expects ('storage', torch.<Type>Storage, key: str, location: str, numel: int)");
  const std::string& key = t[2].toStringRef();
  const int64_t numel = t[4].toInt();
  if (numel < 0 || numel > kMaxTensorElements)
    fail(detail::concat("storage '", key, "' declares ", numel, " elements"));
  if (!hooks_.load_storage) fail(detail::concat("storage '", key, "' found but no load_storage hook is set"));
  Tensor s = call_hook("load_storage", [&] { return hooks_.load_storage(key, type->name, numel, t[3].toStringRef()); });
  if (!s.defined() || s.device() != Device::CPU || s.dim() != 1 || s.numel() != numel || !s.is_contiguous())
    fail(detail::concat("load_storage for '", key, "' must return a contiguous 1-D CPU tensor of ", numel,
                        " elements, got ", s.defined() ? s.shape_string() : "an undefined tensor"));
  if (t.size() == 6 && !t[5].isNone()) {
    const IValue& view = t[5];
    if (!view.isTuple() || view.toTuple().size() != 3 || !view.toTuple()[0].isString() || !view.toTuple()[1].isInt() ||
        !view.toTuple()[2].isInt())
      fail("BINPERSID view metadata must be None or (view key: str, offset: int, size: int)");
    const int64_t offset = view.toTuple()[1].toInt(), size = view.toTuple()[2].toInt();
    if (offset < 0 || size < 0 || offset > numel || size > numel - offset)
      fail(detail::concat("storage view '", view.toTuple()[0].toStringRef(), "' of ", size, " elements at offset ",
                          offset, " lies outside storage '", key, "' of ", numel, " elements"));
    s = s.as_strided({size}, {1}, offset).contiguous();
  }
  push(IValue(std::move(s)));
}

Tensor Unpickler::rebuild_tensor(const List& a) {
  // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata (2.x)])
  if (a.size() != 6 && a.size() != 7)
    fail(detail::concat("_rebuild_tensor_v2 takes 6 or 7 arguments, got ", a.size()));
  if (!a[0].isTensor()) fail("_rebuild_tensor_v2: the first argument is not a storage");
  if (!a[1].isInt() || !a[2].isTuple() || !a[3].isTuple())
    fail("_rebuild_tensor_v2 expects (storage, offset: int, size: tuple, stride: tuple, ...)");
  const Tensor& storage = a[0].toTensor();
  const int64_t offset = a[1].toInt();
  IntList sizes, strides;
  for (const IValue& v : a[2].toTuple()) {
    if (!v.isInt() || v.toInt() < 0) fail(detail::concat("_rebuild_tensor_v2: bad size ", describe(v)));
    sizes.push_back(v.toInt());
  }
  for (const IValue& v : a[3].toTuple()) {
    if (!v.isInt() || v.toInt() < 0) fail(detail::concat("_rebuild_tensor_v2: bad stride ", describe(v)));
    strides.push_back(v.toInt());
  }
  if (sizes.size() != strides.size())
    fail(detail::concat("_rebuild_tensor_v2: size ", shape_string(sizes), " and stride ", shape_string(strides),
                        " differ in rank"));
  const int64_t storage_numel = storage.numel();
  if (offset < 0 || offset > storage_numel)
    fail(detail::concat("_rebuild_tensor_v2: offset ", offset, " outside a storage of ", storage_numel, " elements"));
  int64_t numel = 1, last = offset;
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) empty = true;
    if (__builtin_mul_overflow(numel, sizes[i], &numel) || numel > kMaxTensorElements) {
      if (!empty) fail(detail::concat("_rebuild_tensor_v2: size ", shape_string(sizes), " is too large"));
      numel = 0;
    }
  }
  if (!empty) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      int64_t reach;
      if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) || __builtin_add_overflow(last, reach, &last))
        fail(detail::concat("_rebuild_tensor_v2: stride ", shape_string(strides), " overflows"));
    }
    if (last >= storage_numel)
      fail(detail::concat("_rebuild_tensor_v2: view ", shape_string(sizes), " stride ", shape_string(strides),
                          " offset ", offset, " reaches element ", last, " of a storage of ", storage_numel));
  }
  return call_hook("_rebuild_tensor_v2",
                   [&] { return storage.as_strided(sizes, strides, storage.storage_offset() + offset); });
}

// torch._utils._rebuild_qtensor(storage, offset, size, stride, quantizer_params, requires_grad,
// backward_hooks): a quantized tensor, dequantized here into float32, (q - zero_point) * scale,
// per tensor or per channel along `axis`. The integers come from a QInt8/QUInt8/QInt32 storage,
// which loads as int64 (storage_format). Older forms are read too: per-channel scales and zero
// points as lists (build_doublelist, build_intlist) and the axis as a one-element list, as
// PyTorch 1.5's pickler wrote them; and PyTorch's 2019 per-tensor form of 8 arguments,
// (storage, offset, size, stride, scale, zero_point, requires_grad, backward_hooks).
Tensor Unpickler::rebuild_qtensor(const List& a) {
  const bool flat_per_tensor = a.size() == 8 && a[4].isNumber() && a[5].isInt();
  if (a.size() != 7 && !flat_per_tensor)
    fail(detail::concat("_rebuild_qtensor takes 7 arguments (or 8 with a flat scale and zero point), got ", a.size()));
  if (!flat_per_tensor && (!a[4].isTuple() || a[4].toTuple().empty() || !as_global(a[4].toTuple()[0]) ||
                           as_global(a[4].toTuple()[0])->kind != GlobalKind::QScheme))
    fail("_rebuild_qtensor: the quantizer parameters must be a tuple (torch.<qscheme>, ...)");
  const Tensor q = (flat_per_tensor ? rebuild_tensor(List{a[0], a[1], a[2], a[3], a[6], a[7]})
                                    : rebuild_tensor(List{a[0], a[1], a[2], a[3], a[5], a[6]}))
                       .contiguous();
  if (q.dtype() != DType::Int64) fail("_rebuild_qtensor: the storage is not a quantized integer storage");
  const List params = flat_per_tensor ? List{IValue(), a[4], a[5]} : a[4].toTuple();
  const std::string scheme = flat_per_tensor ? "per_tensor_affine" : as_global(params[0])->name;
  Tensor out = empty(q.sizes());
  const int64_t* in = q.data<int64_t>();
  float* o = out.data<float>();
  const int64_t n = q.numel();
  if (scheme == "per_tensor_affine" || scheme == "per_tensor_symmetric") {
    if (params.size() != 3 || !params[1].isNumber() || !params[2].isInt())
      fail("_rebuild_qtensor: per-tensor parameters must be (qscheme, scale: float, zero_point: int)");
    const double scale = params[1].toDouble();
    const int64_t zero = params[2].toInt();
    if (!(scale > 0) || !std::isfinite(scale)) fail(detail::concat("_rebuild_qtensor: scale ", scale, " is not positive"));
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(static_cast<double>(in[i] - zero) * scale);
    return out;
  }
  // Per channel: (qscheme, scales, zero_points, axis), each a tensor or a list of numbers.
  auto numbers = [](const IValue& v, std::vector<double>* out_values) {
    if (v.isTensor()) {
      const Tensor t = v.toTensor().contiguous();
      if (t.dtype() == DType::Bool) return false;
      for (int64_t i = 0; i < t.numel(); ++i)
        out_values->push_back(t.dtype() == DType::Int64 ? static_cast<double>(t.data<int64_t>()[i]) : t.data<float>()[i]);
      return true;
    }
    if (!v.isList()) return false;
    for (const IValue& e : v.toList()) {
      if (!e.isNumber()) return false;
      out_values->push_back(e.toDouble());
    }
    return true;
  };
  std::vector<double> scales, zeros;
  const bool axis_ok = params.size() == 4 && (params[3].isInt() || (params[3].isList() && params[3].toList().size() == 1 &&
                                                                    params[3].toList()[0].isInt()));
  if (!axis_ok || !numbers(params[1], &scales) || !numbers(params[2], &zeros))
    fail("_rebuild_qtensor: per-channel parameters must be (qscheme, scales, zero_points, axis: int)");
  const int64_t axis = params[3].isInt() ? params[3].toInt() : params[3].toList()[0].toInt();
  if (axis < 0 || axis >= q.dim()) fail(detail::concat("_rebuild_qtensor: axis ", axis, " of a ", q.dim(), "-D tensor"));
  const int64_t channels = q.sizes()[static_cast<size_t>(axis)];
  if (static_cast<int64_t>(scales.size()) != channels || static_cast<int64_t>(zeros.size()) != channels)
    fail(detail::concat("_rebuild_qtensor: ", channels, " channels need as many scales and zero points"));
  for (double scale : scales)
    if (!(scale > 0) || !std::isfinite(scale)) fail(detail::concat("_rebuild_qtensor: scale ", scale, " is not positive"));
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < q.dim(); ++d) inner *= q.sizes()[static_cast<size_t>(d)];
  for (int64_t i = 0; i < n; ++i) {
    const auto c = static_cast<size_t>((i / inner) % channels);
    o[i] = static_cast<float>((static_cast<double>(in[i]) - zeros[c]) * scales[c]);
  }
  return out;
}

}  // namespace tvk::jit
