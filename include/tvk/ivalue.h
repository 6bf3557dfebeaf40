// tvk::IValue: the dynamically typed value that ops, the interpreter and the API exchange
// (PyTorch's c10::IValue, reduced to what TorchScript models use).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tvk/tensor.h"

namespace tvk {

class IValue;
using List = std::vector<IValue>;
struct Dict;
struct Object;

// Native state behind a TorchScript custom class (e.g. a packed convolution context).
class CustomClassPayload {
 public:
  virtual ~CustomClassPayload() = default;
};

class IValue {
 public:
  enum class Tag { None, Tensor, Double, Int, Bool, String, List, Tuple, Dict, Object, Device };

  IValue() = default;
  IValue(std::nullopt_t) {}
  IValue(tvk::Tensor t) : v_(std::move(t)) {}
  IValue(double d) : v_(d) {}
  IValue(float d) : v_(static_cast<double>(d)) {}
  IValue(int64_t i) : v_(i) {}
  IValue(int i) : v_(static_cast<int64_t>(i)) {}
  IValue(bool b) : v_(b) {}
  IValue(std::string s) : v_(std::move(s)) {}
  IValue(const char* s) : v_(std::string(s)) {}
  IValue(tvk::Device d) : v_(d) {}
  IValue(const IntList& ints);
  static IValue list(List items);
  static IValue tuple(List items);
  IValue(std::shared_ptr<tvk::Dict> d) : v_(std::move(d)) {}
  IValue(std::shared_ptr<tvk::Object> o) : v_(std::move(o)) {}

  Tag tag() const { return static_cast<Tag>(v_.index()); }
  const char* tag_name() const;
  bool isNone() const { return tag() == Tag::None; }
  bool isTensor() const { return tag() == Tag::Tensor; }
  bool isDouble() const { return tag() == Tag::Double; }
  bool isInt() const { return tag() == Tag::Int; }
  bool isBool() const { return tag() == Tag::Bool; }
  bool isString() const { return tag() == Tag::String; }
  bool isList() const { return tag() == Tag::List; }
  bool isTuple() const { return tag() == Tag::Tuple; }
  bool isDict() const { return tag() == Tag::Dict; }
  bool isObject() const { return tag() == Tag::Object; }
  bool isDevice() const { return tag() == Tag::Device; }
  bool isNumber() const { return isInt() || isDouble() || isBool(); }

  // Checked accessors: throw tvk::Error naming the expected and actual type.
  const tvk::Tensor& toTensor() const;
  tvk::Tensor& toTensor();
  double toDouble() const;  // Int and Bool convert, as a Scalar would
  int64_t toInt() const;    // Bool converts
  bool toBool() const;
  const std::string& toStringRef() const;
  tvk::Device toDevice() const;
  // The shared element vector of a List or Tuple (lists alias, as in TorchScript).
  const std::shared_ptr<List>& toListRef() const;
  const List& toList() const { return *toListRef(); }
  const List& toTuple() const;
  std::vector<int64_t> toIntList() const;
  std::vector<double> toDoubleList() const;
  std::vector<tvk::Tensor> toTensorList() const;
  const std::shared_ptr<tvk::Dict>& toDict() const;
  const std::shared_ptr<tvk::Object>& toObject() const;

  // Identity (`is`): same object for reference types, equal value for the rest.
  bool is(const IValue& other) const;
  std::string repr() const;

 private:
  struct TupleBox {
    std::shared_ptr<List> items;
  };
  [[noreturn]] void type_error(const char* want) const;
  std::variant<std::monostate, tvk::Tensor, double, int64_t, bool, std::string, std::shared_ptr<List>, TupleBox,
               std::shared_ptr<tvk::Dict>, std::shared_ptr<tvk::Object>, tvk::Device>
      v_;
};

using Stack = std::vector<IValue>;

// `v` with every tensor in it (through nested lists and tuples) moved to `device`.
IValue to_device(const IValue& v, Device device);

// Bounds a recursive walk over a value a model returned (printing it, converting it for Python
// or Java): its nesting, since each level is a native frame, and its size, since a list shared n
// times over holds 2^n paths though model code makes it in n steps. enter() throws tvk::Error
// naming `what` past either bound.
class ValueWalk {
 public:
  static constexpr int kMaxDepth = 64;
  static constexpr uint64_t kMaxVisits = uint64_t{1} << 22;
  explicit ValueWalk(std::string what) : what_(std::move(what)) {}
  void enter(int depth);

 private:
  std::string what_;
  uint64_t visits_ = 0;
};

// Equality of keys and values as TorchScript's == on ints, floats, bools, strings and None.
bool ivalue_equal(const IValue& a, const IValue& b);

struct Dict {
  Dict() = default;
  Dict(const Dict&) = default;
  Dict& operator=(const Dict&) = default;
  ~Dict();  // releases nested values without recursion
  std::vector<std::pair<IValue, IValue>> items;  // insertion order, as Python dicts
  IValue* find(const IValue& key);
  void set(IValue key, IValue value);
};

struct Object {
  Object() = default;
  Object(const Object&) = default;
  Object& operator=(const Object&) = default;
  ~Object();  // releases nested values without recursion
  std::string type_name;  // qualified, e.g. "__torch__.torchvision.models.mobilenetv2.MobileNetV2"
  std::vector<std::pair<std::string, IValue>> attributes;
  std::shared_ptr<CustomClassPayload> payload;  // set for native custom classes
  // An instance of a NamedTuple class (a model's structured output, e.g. torchvision's
  // GoogLeNetOutputs): its attributes are the tuple's fields, in declaration order.
  bool named_tuple = false;

  IValue* find(const std::string& name);
  const IValue& get(const std::string& name) const;
  void set(const std::string& name, IValue value);
};

}  // namespace tvk
