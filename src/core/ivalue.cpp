#include "tvk/ivalue.h"

#include <sstream>

#include "core/run_scope.h"

namespace tvk {

namespace {
// Nested values are released without recursion: a list built by `l = [l]` a million times
// would otherwise be destroyed a million frames deep. The first container released on a thread
// drains a queue; containers released while it drains hand their elements to that queue.
thread_local std::vector<IValue>* t_release_queue = nullptr;

bool is_container(const IValue& v) { return v.isList() || v.isTuple() || v.isDict() || v.isObject(); }

template <class Take>
void release_elements(size_t count, Take take) {
  if (t_release_queue != nullptr) {
    for (size_t i = 0; i < count; ++i) take(i, *t_release_queue);
    return;
  }
  std::vector<IValue> queue;
  for (size_t i = 0; i < count; ++i) take(i, queue);
  t_release_queue = &queue;
  while (!queue.empty()) {
    IValue v = std::move(queue.back());
    queue.pop_back();
  }  // v's last owner gone here: its elements join the queue
  t_release_queue = nullptr;
}

void give(IValue& v, std::vector<IValue>& queue) {
  if (is_container(v)) queue.push_back(std::move(v));
}

struct ListDeleter {
  void operator()(List* list) const {
    release_elements(list->size(), [&](size_t i, std::vector<IValue>& q) { give((*list)[i], q); });
    delete list;
  }
};

std::shared_ptr<List> make_list(List items) { return std::shared_ptr<List>(new List(std::move(items)), ListDeleter{}); }
}  // namespace

Dict::~Dict() {
  release_elements(items.size(), [&](size_t i, std::vector<IValue>& q) {
    give(items[i].first, q);
    give(items[i].second, q);
  });
}

Object::~Object() {
  release_elements(attributes.size(), [&](size_t i, std::vector<IValue>& q) { give(attributes[i].second, q); });
}

IValue::IValue(const IntList& ints) {
  List items;
  items.reserve(ints.size());
  for (int64_t i : ints) items.emplace_back(i);
  v_ = make_list(std::move(items));
}

IValue IValue::list(List items) {
  IValue v;
  v.v_ = make_list(std::move(items));
  return v;
}

IValue IValue::tuple(List items) {
  IValue v;
  v.v_ = TupleBox{make_list(std::move(items))};
  return v;
}

const char* IValue::tag_name() const {
  static const char* names[] = {"None", "Tensor", "float", "int", "bool", "str",
                                "List", "Tuple", "Dict", "Object", "Device"};
  return names[v_.index()];
}

void IValue::type_error(const char* want) const {
  throw Error(detail::concat("expected a value of type ", want, " but got ", tag_name()));
}

const Tensor& IValue::toTensor() const {
  if (!isTensor()) type_error("Tensor");
  return std::get<Tensor>(v_);
}
Tensor& IValue::toTensor() {
  if (!isTensor()) type_error("Tensor");
  return std::get<Tensor>(v_);
}
double IValue::toDouble() const {
  if (isDouble()) return std::get<double>(v_);
  if (isInt()) return static_cast<double>(std::get<int64_t>(v_));
  if (isBool()) return std::get<bool>(v_) ? 1.0 : 0.0;
  type_error("float");
}
int64_t IValue::toInt() const {
  if (isInt()) return std::get<int64_t>(v_);
  if (isBool()) return std::get<bool>(v_) ? 1 : 0;
  type_error("int");
}
bool IValue::toBool() const {
  if (isBool()) return std::get<bool>(v_);
  type_error("bool");
}
const std::string& IValue::toStringRef() const {
  if (!isString()) type_error("str");
  return std::get<std::string>(v_);
}
Device IValue::toDevice() const {
  if (!isDevice()) type_error("Device");
  return std::get<Device>(v_);
}
const std::shared_ptr<List>& IValue::toListRef() const {
  if (isTuple()) return std::get<TupleBox>(v_).items;
  if (!isList()) type_error("List");
  return std::get<std::shared_ptr<List>>(v_);
}
const List& IValue::toTuple() const {
  if (!isTuple()) type_error("Tuple");
  return *std::get<TupleBox>(v_).items;
}
std::vector<int64_t> IValue::toIntList() const {
  std::vector<int64_t> out;
  for (const IValue& v : toList()) out.push_back(v.toInt());
  return out;
}
std::vector<double> IValue::toDoubleList() const {
  std::vector<double> out;
  for (const IValue& v : toList()) out.push_back(v.toDouble());
  return out;
}
std::vector<Tensor> IValue::toTensorList() const {
  std::vector<Tensor> out;
  for (const IValue& v : toList()) out.push_back(v.toTensor());
  return out;
}
const std::shared_ptr<Dict>& IValue::toDict() const {
  if (!isDict()) type_error("Dict");
  return std::get<std::shared_ptr<Dict>>(v_);
}
const std::shared_ptr<Object>& IValue::toObject() const {
  if (!isObject()) type_error("Object");
  return std::get<std::shared_ptr<Object>>(v_);
}

bool IValue::is(const IValue& o) const {
  if (tag() != o.tag()) return false;
  switch (tag()) {
    case Tag::None: return true;
    case Tag::Tensor: return toTensor().is_same(o.toTensor());
    case Tag::List: return toListRef() == o.toListRef();
    case Tag::Tuple: return std::get<TupleBox>(v_).items == std::get<TupleBox>(o.v_).items;
    case Tag::Dict: return toDict() == o.toDict();
    case Tag::Object: return toObject() == o.toObject();
    default: return ivalue_equal(*this, o);
  }
}

void ValueWalk::enter(int depth) {
  if (depth > kMaxDepth) throw Error(detail::concat(what_, ": the value nests more than ", kMaxDepth, " levels deep"));
  if (++visits_ > kMaxVisits)
    throw Error(detail::concat(what_, ": the value holds more than ", kMaxVisits,
                               " elements, counting each shared list once per place it appears"));
}

IValue to_device(const IValue& v, Device device) {
  if (v.isTensor()) return v.toTensor().defined() ? IValue(v.toTensor().to(device)) : v;
  if (v.isList() || v.isTuple() || v.isDict() || v.isObject()) RunScope::visit("a nested value");
  if (v.isList() || v.isTuple()) {
    List items;
    for (const IValue& e : v.toList()) items.push_back(to_device(e, device));
    return v.isList() ? IValue::list(std::move(items)) : IValue::tuple(std::move(items));
  }
  if (v.isObject() && v.toObject()->named_tuple) {
    auto moved = std::make_shared<Object>(*v.toObject());
    for (auto& field : moved->attributes) field.second = to_device(field.second, device);
    return IValue(std::move(moved));
  }
  if (v.isDict()) {
    auto moved = std::make_shared<Dict>(*v.toDict());
    for (auto& item : moved->items) item.second = to_device(item.second, device);
    return IValue(std::move(moved));
  }
  return v;
}

bool ivalue_equal(const IValue& a, const IValue& b) {
  if (a.isNone() || b.isNone()) return a.isNone() && b.isNone();
  if (a.isNumber() && b.isNumber()) {
    if (a.isDouble() || b.isDouble()) return a.toDouble() == b.toDouble();
    return a.toInt() == b.toInt();
  }
  if (a.isString() && b.isString()) return a.toStringRef() == b.toStringRef();
  if (a.isDevice() && b.isDevice()) return a.toDevice() == b.toDevice();
  if ((a.isList() && b.isList()) || (a.isTuple() && b.isTuple())) {
    const List& x = a.toList();
    const List& y = b.toList();
    if (x.size() != y.size()) return false;
    RunScope::visit("comparing nested values");
    for (size_t i = 0; i < x.size(); ++i)
      if (!ivalue_equal(x[i], y[i])) return false;
    return true;
  }
  return a.is(b) && !a.isList();
}

std::string IValue::repr() const {
  std::ostringstream out;
  switch (tag()) {
    case Tag::None: out << "None"; break;
    case Tag::Tensor: {
      const Tensor& t = toTensor();
      out << "Tensor(" << (t.defined() ? t.shape_string() : "undefined") << ", "
          << (t.defined() ? to_string(t.device()) : "") << ")";
      break;
    }
    case Tag::Double: out << std::get<double>(v_); break;
    case Tag::Int: out << std::get<int64_t>(v_); break;
    case Tag::Bool: out << (std::get<bool>(v_) ? "True" : "False"); break;
    case Tag::String: out << '\'' << std::get<std::string>(v_) << '\''; break;
    case Tag::List:
    case Tag::Tuple: {
      RunScope::visit("printing a nested value");
      out << (isList() ? '[' : '(');
      const List& items = toList();
      for (size_t i = 0; i < items.size(); ++i) out << (i ? ", " : "") << items[i].repr();
      out << (isList() ? ']' : ')');
      break;
    }
    case Tag::Dict: out << "{...}"; break;
    case Tag::Object: out << "<" << toObject()->type_name << " object>"; break;
    case Tag::Device: out << "device('" << to_string(toDevice()) << "')"; break;
  }
  return out.str();
}

IValue* Dict::find(const IValue& key) {
  for (auto& [k, v] : items)
    if (ivalue_equal(k, key)) return &v;
  return nullptr;
}

void Dict::set(IValue key, IValue value) {
  if (IValue* v = find(key)) {
    *v = std::move(value);
    return;
  }
  items.emplace_back(std::move(key), std::move(value));
}

IValue* Object::find(const std::string& name) {
  for (auto& [k, v] : attributes)
    if (k == name) return &v;
  return nullptr;
}

const IValue& Object::get(const std::string& name) const {
  for (auto& [k, v] : attributes)
    if (k == name) return v;
  throw Error(detail::concat("object of type ", type_name, " has no attribute '", name, "'"));
}

void Object::set(const std::string& name, IValue value) {
  if (IValue* v = find(name)) {
    *v = std::move(value);
    return;
  }
  attributes.emplace_back(name, std::move(value));
}

}  // namespace tvk
