#include "jit/runtime/op_call.h"

#include <sstream>

#include "core/int_math.h"
#include "core/run_scope.h"

namespace tvk::jit {

namespace {
std::string strip_alias(std::string type) {
  // "Tensor(a!)" -> "Tensor", "Tensor(a)[]" -> "Tensor[]"
  const size_t open = type.find('(');
  if (open != std::string::npos) {
    const size_t close = type.find(')', open);
    if (close != std::string::npos) type.erase(open, close - open + 1);
  }
  return type;
}

}  // namespace

bool value_matches_type(const std::string& raw_type, const IValue& v) {
  return value_matches_type_with(raw_type, v, value_matches_type);
}

bool value_matches_type_with(const std::string& raw_type, const IValue& v, TypeMatcher element_matches) {
  std::string type = strip_alias(raw_type);
  if (type.empty()) return false;
  if (type.back() == '?') {
    if (v.isNone()) return true;
    type.pop_back();
  }
  const size_t bracket = type.find('[');
  if (bracket != std::string::npos && type.back() == ']') {
    const std::string elem = type.substr(0, bracket);
    const bool fixed = type.size() > bracket + 2;  // int[2]
    if ((elem == "int" || elem == "SymInt") && fixed && v.isInt()) return true;
    if (!v.isList() && !v.isTuple()) return false;
    RunScope::visit("a nested argument");
    for (const IValue& e : v.toList())
      if (!element_matches(elem, e)) return false;
    return true;
  }
  if (type == "Tensor") return v.isTensor();
  if (type == "Scalar") return v.isInt() || v.isDouble() || v.isBool();
  if (type == "int" || type == "SymInt") return v.isInt() || v.isBool();
  if (type == "float") return v.isDouble() || v.isInt();
  if (type == "bool") return v.isBool() || v.isInt();
  if (type == "str") return v.isString();
  if (type == "Device") return v.isDevice() || v.isString();
  if (type == "ScalarType" || type == "Layout" || type == "MemoryFormat") return v.isInt();
  if (type == "Any" || type == "t") return true;  // t: a schema's type variable (tensor(t[] data))
  // Custom classes (packed weights): any object of that class.
  if (type.rfind("__torch__.", 0) == 0) return v.isObject() && v.toObject()->type_name == type;
  return false;
}

bool bind_arguments(const ops::OpEntry& op, const Stack& args, const Kwargs& kwargs, Stack* bound,
                    std::string* why, TypeMatcher matches) {
  const auto& params = op.schema.arguments;
  std::vector<const IValue*> slots(params.size(), nullptr);
  size_t positional = 0;
  for (const IValue& a : args) {
    while (positional < params.size() && params[positional].kwarg_only) ++positional;
    if (positional >= params.size()) {
      *why = detail::concat("takes ", params.size(), " arguments, got ", args.size());
      return false;
    }
    slots[positional++] = &a;
  }
  for (const auto& [name, value] : kwargs) {
    const int idx = op.schema.index_of(name);
    if (idx < 0) {
      *why = "has no argument '" + name + "'";
      return false;
    }
    if (slots[idx]) {
      *why = "got argument '" + name + "' twice";
      return false;
    }
    slots[idx] = &value;
  }
  bound->clear();
  for (size_t i = 0; i < params.size(); ++i) {
    if (slots[i]) {
      if (!matches(params[i].type, *slots[i])) {
        *why = detail::concat("argument '", params[i].name, "' must be ", params[i].type, ", got ",
                              slots[i]->tag_name());
        return false;
      }
      // int[2] given as one int: broadcast as PyTorch does.
      const std::string& t = params[i].type;
      if (slots[i]->isInt() && t.find('[') != std::string::npos && t.rfind("int", 0) == 0) {
        const int64_t n = std::max<int64_t>(1, std::atoll(t.c_str() + t.find('[') + 1));
        List items;
        for (int64_t k = 0; k < n; ++k) items.emplace_back(slots[i]->toInt());
        bound->push_back(IValue::list(std::move(items)));
      } else {
        bound->push_back(*slots[i]);
      }
    } else if (params[i].default_value) {
      bound->push_back(*params[i].default_value);
    } else {
      *why = "missing argument '" + params[i].name + "'";
      return false;
    }
  }
  return true;
}

bool value_matches_type_exactly(const std::string& schema_type, const IValue& v) {
  std::string type = strip_alias(schema_type);
  if (!type.empty() && type.back() == '?') {
    if (v.isNone()) return true;
    type.pop_back();
  }
  if (v.isInt() && (type == "float" || type == "bool")) return false;
  if (v.isBool() && (type == "int" || type == "SymInt" || type == "float")) return false;
  return value_matches_type(schema_type, v);
}

IValue number_of_0d_tensor(const IValue& v) {
  if (!v.isTensor() || !v.toTensor().defined() || v.toTensor().dim() != 0) return v;
  const Tensor& t = v.toTensor();
  if (t.dtype() == DType::Float32) return IValue(t.item());
  return IValue(float_to_int(t.item(), "a 0-D tensor used as an int"));
}

const ops::OpEntry* resolve_overload(const std::string& name, const Stack& args, const Kwargs& kwargs, Stack* bound,
                                     TypeMatcher matches, TypeMatcher exact) {
  const auto overloads = ops::Registry::global().overloads(name);
  if (overloads.empty()) return nullptr;
  if (overloads.size() > 1 && exact != nullptr) {
    std::string ignored;
    for (const ops::OpEntry* op : overloads)
      if (bind_arguments(*op, args, kwargs, bound, &ignored, exact)) return op;
  }
  std::ostringstream reasons;
  for (const ops::OpEntry* op : overloads) {
    std::string why;
    if (bind_arguments(*op, args, kwargs, bound, &why, matches)) return op;
    reasons << "\n  " << op->schema.text << ": " << why;
  }
  // A traced graph passes 0-D tensors where numbers go (torch.arange(x.size(1)) records the size
  // as a tensor): TorchScript converts them implicitly, and so does this last try.
  const auto as_number = number_of_0d_tensor;
  Stack numbers;
  bool converted = false;
  for (const IValue& a : args) {
    numbers.push_back(as_number(a));
    converted = converted || (a.isTensor() && !numbers.back().isTensor());
  }
  Kwargs named;
  for (const auto& [k, v] : kwargs) {
    named.emplace_back(k, as_number(v));
    converted = converted || (v.isTensor() && !named.back().second.isTensor());
  }
  if (converted) {
    std::string ignored;
    for (const ops::OpEntry* op : overloads)
      if (bind_arguments(*op, numbers, named, bound, &ignored, matches)) return op;
  }
  std::ostringstream got;
  for (size_t i = 0; i < args.size(); ++i) got << (i ? ", " : "") << args[i].tag_name();
  for (const auto& [k, v] : kwargs) got << ", " << k << "=" << v.tag_name();
  throw Error(detail::concat("no overload of ", name, " accepts (", got.str(), "):", reasons.str()));
}

}  // namespace tvk::jit
