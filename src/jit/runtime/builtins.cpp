#include "jit/runtime/builtins.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <sstream>
#include <unordered_map>

#include "core/int_math.h"
#include "core/run_scope.h"
#include "jit/runtime/interpreter.h"
#include "ops/shape_utils.h"

namespace tvk::jit {

namespace {

using Builtin = std::function<bool(Stack&, IValue*)>;

bool has_tensor(const Stack& args) {
  for (const IValue& a : args)
    if (a.isTensor()) return true;
  return false;
}

// Argument i of a Python slice or str.find over a sequence of length n: None or absent gives
// dflt, a negative index counts from the end, and the result is clamped to [0, n].
int64_t slice_bound(const Stack& a, size_t i, int64_t n, int64_t dflt) {
  if (a.size() <= i || a[i].isNone()) return dflt;
  int64_t v = a[i].toInt();
  if (v < 0) v += n;
  return std::clamp<int64_t>(v, 0, n);
}

// all() (all_of = true) or any() of a List[bool]; false when the argument is not one.
bool reduce_bools(const Stack& a, IValue* out, bool all_of) {
  if (a.size() != 1 || !a[0].isList()) return false;
  bool r = all_of;
  for (const IValue& v : a[0].toList()) {
    if (!v.isBool()) return false;
    r = all_of ? (r && v.toBool()) : (r || v.toBool());
  }
  *out = IValue(r);
  return true;
}

bool numbers(const Stack& args, size_t n) {
  if (args.size() != n) return false;
  for (const IValue& a : args)
    if (!a.isNumber()) return false;
  return true;
}

bool any_double(const Stack& args) {
  for (const IValue& a : args)
    if (a.isDouble()) return true;
  return false;
}

// int("...") and float("..."): the whole text, as Python reads it; anything else is an error.
int64_t parse_int(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  while (end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (text.empty() || end == nullptr || *end != '\0' || errno == ERANGE)
    throw Error("int(): invalid literal or out of range: '" + text.substr(0, 64) + "'");
  return v;
}
double parse_float(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  while (end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (text.empty() || end == nullptr || *end != '\0')
    throw Error("float(): could not convert '" + text.substr(0, 64) + "' to a float");
  return v;
}

std::string format_double(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (std::isnan(d)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.12g", d);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".";
  return s;
}

// Arithmetic on two numbers with Python's int/float rules.
Builtin arith(char op) {
  return [op](Stack& a, IValue* out) {
    if (!numbers(a, 2)) {
      if (op == '+' && a.size() == 2 && a[0].isString() && a[1].isString()) {
        RunScope::charge_value(a[0].toStringRef().size() + a[1].toStringRef().size(), "a string");
        *out = IValue(a[0].toStringRef() + a[1].toStringRef());
        return true;
      }
      if (op == '+' && a.size() == 2 && a[0].isList() && a[1].isList()) {
        RunScope::charge_value((a[0].toList().size() + a[1].toList().size()) * sizeof(IValue), "a list");
        List joined = a[0].toList();
        joined.insert(joined.end(), a[1].toList().begin(), a[1].toList().end());
        *out = IValue::list(std::move(joined));
        return true;
      }
      // list * n and n * list: the list repeated (aten::mul.left_t / mul.right_).
      if (op == '*' && a.size() == 2 && (a[0].isList() || a[1].isList()) && (a[0].isInt() || a[1].isInt())) {
        const List& items = a[0].isList() ? a[0].toList() : a[1].toList();
        const int64_t times = std::max<int64_t>(0, a[0].isInt() ? a[0].toInt() : a[1].toInt());
        if (!items.empty() && static_cast<uint64_t>(times) > UINT64_MAX / sizeof(IValue) / items.size())
          throw OutOfMemoryError(detail::concat("list repeated ", times, " times is too long"));
        RunScope::charge_value(static_cast<uint64_t>(times) * items.size() * sizeof(IValue), "a repeated list");
        List repeated;
        for (int64_t i = 0; i < times; ++i) repeated.insert(repeated.end(), items.begin(), items.end());
        *out = IValue::list(std::move(repeated));
        return true;
      }
      return false;
    }
    if (op == '/') {
      if (a[1].toDouble() == 0) throw Error("float division by zero");
      *out = IValue(a[0].toDouble() / a[1].toDouble());
      return true;
    }
    if (any_double(a)) {
      const double x = a[0].toDouble(), y = a[1].toDouble();
      double r = 0;
      switch (op) {
        case '+': r = x + y; break;
        case '-': r = x - y; break;
        case '*': r = x * y; break;
        case 'f': r = std::floor(x / y); break;
        case '%': r = x - std::floor(x / y) * y; break;
        case '^': r = std::pow(x, y); break;
      }
      *out = IValue(r);
      return true;
    }
    // int64 wraps, as TorchScript's integers do.
    const int64_t x = a[0].toInt(), y = a[1].toInt();
    switch (op) {
      case '+': *out = IValue(wrapping_add(x, y)); break;
      case '-': *out = IValue(wrapping_sub(x, y)); break;
      case '*': *out = IValue(wrapping_mul(x, y)); break;
      case 'f': *out = IValue(floor_div_int(x, y, "//")); break;
      case '%': *out = IValue(python_mod_int(x, y, "%")); break;
      case '^':
        if (y < 0) *out = IValue(std::pow(static_cast<double>(x), static_cast<double>(y)));
        else *out = IValue(wrapping_pow(x, y));
        break;
    }
    return true;
  };
}

Builtin compare(const char* op) {
  const std::string o = op;
  return [o](Stack& a, IValue* out) {
    if (a.size() != 2 || has_tensor(a)) return false;
    if (o == "eq" || o == "ne") {
      const bool eq = ivalue_equal(a[0], a[1]);
      *out = IValue(o == "eq" ? eq : !eq);
      return true;
    }
    int cmp = 0;
    if (numbers(a, 2)) {
      const double x = a[0].toDouble(), y = a[1].toDouble();
      cmp = x < y ? -1 : (x > y ? 1 : 0);
    } else if (a[0].isString() && a[1].isString()) {
      cmp = a[0].toStringRef().compare(a[1].toStringRef());
    } else {
      return false;
    }
    bool r = false;
    if (o == "lt") r = cmp < 0;
    else if (o == "le") r = cmp <= 0;
    else if (o == "gt") r = cmp > 0;
    else r = cmp >= 0;
    *out = IValue(r);
    return true;
  };
}

int64_t list_index(int64_t i, size_t size, const char* what) {
  const int64_t n = static_cast<int64_t>(size);
  if (i < -n || i >= n) throw Error(detail::concat(what, " index ", i, " out of range for length ", n));
  return i < 0 ? i + n : i;
}

std::string format(const std::string& fmt, const Stack& args, size_t first) {
  std::string out;
  size_t next = first;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] == '{' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out += next < args.size() ? python_str(args[next++]) : "{}";
      ++i;
    } else {
      out += fmt[i];
    }
  }
  return out;
}

const std::unordered_map<std::string, Builtin>& table() {
  static const std::unordered_map<std::string, Builtin> builtins = [] {
    std::unordered_map<std::string, Builtin> t;
    t["add"] = arith('+');
    t["sub"] = arith('-');
    t["mul"] = arith('*');
    t["div"] = arith('/');
    t["floordiv"] = arith('f');
    t["remainder"] = arith('%');
    t["pow"] = arith('^');
    for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) t[op] = compare(op);
    t["neg"] = [](Stack& a, IValue* out) {
      if (!numbers(a, 1)) return false;
      *out = a[0].isDouble() ? IValue(-a[0].toDouble()) : IValue(wrapping_negate(a[0].toInt()));
      return true;
    };
    t["__not__"] = [](Stack& a, IValue* out) {
      if (a.size() != 1 || !a[0].isBool()) return false;
      *out = IValue(!a[0].toBool());
      return true;
    };
    t["__and__"] = [](Stack& a, IValue* out) {
      if (a.size() != 2 || !a[0].isBool() || !a[1].isBool()) return false;
      *out = IValue(a[0].toBool() && a[1].toBool());
      return true;
    };
    t["__or__"] = [](Stack& a, IValue* out) {
      if (a.size() != 2 || !a[0].isBool() || !a[1].isBool()) return false;
      *out = IValue(a[0].toBool() || a[1].toBool());
      return true;
    };
    t["__is__"] = [](Stack& a, IValue* out) {
      if (a.size() != 2) return false;
      *out = IValue(a[0].is(a[1]));
      return true;
    };
    t["__isnot__"] = [](Stack& a, IValue* out) {
      if (a.size() != 2) return false;
      *out = IValue(!a[0].is(a[1]));
      return true;
    };
    t["len"] = [](Stack& a, IValue* out) {
      if (a.size() != 1) return false;
      if (a[0].isList() || a[0].isTuple()) *out = IValue(static_cast<int64_t>(a[0].toList().size()));
      else if (a[0].isString()) *out = IValue(static_cast<int64_t>(a[0].toStringRef().size()));
      else if (a[0].isDict()) *out = IValue(static_cast<int64_t>(a[0].toDict()->items.size()));
      else if (a[0].isTensor()) {
        TVK_CHECK(a[0].toTensor().dim() > 0, "len() of a 0-d tensor");
        *out = IValue(a[0].toTensor().size(0));
      } else return false;
      return true;
    };
    t["format"] = [](Stack& a, IValue* out) {
      if (a.empty() || !a[0].isString()) return false;
      *out = IValue(format(a[0].toStringRef(), a, 1));
      return true;
    };
    t["str"] = [](Stack& a, IValue* out) {
      if (a.size() != 1) return false;
      *out = IValue(python_str(a[0]));
      return true;
    };
    t["int"] = [](Stack& a, IValue* out) {
      if (a.size() != 1) return false;
      if (a[0].isDouble()) *out = IValue(float_to_int(a[0].toDouble(), "int()"));
      else if (a[0].isNumber()) *out = IValue(a[0].toInt());
      else if (a[0].isTensor()) *out = IValue(float_to_int(a[0].toTensor().item(), "int()"));
      else if (a[0].isString()) *out = IValue(parse_int(a[0].toStringRef()));
      else return false;
      return true;
    };
    t["float"] = [](Stack& a, IValue* out) {
      if (a.size() != 1) return false;
      if (a[0].isNumber()) *out = IValue(a[0].toDouble());
      else if (a[0].isTensor()) *out = IValue(a[0].toTensor().item());
      else if (a[0].isString()) *out = IValue(parse_float(a[0].toStringRef()));
      else return false;
      return true;
    };
    t["bool"] = [](Stack& a, IValue* out) {
      if (a.size() != 1) return false;
      *out = IValue(truthy(a[0]));
      return true;
    };
    t["abs"] = [](Stack& a, IValue* out) {
      if (!numbers(a, 1)) return false;
      *out = a[0].isDouble() ? IValue(std::fabs(a[0].toDouble())) : IValue(a[0].toInt() < 0 ? wrapping_negate(a[0].toInt()) : a[0].toInt());
      return true;
    };
    auto minmax = [](bool is_min) {
      return [is_min](Stack& a, IValue* out) {
        Stack items = a;
        if (a.size() == 1 && (a[0].isList() || a[0].isTuple())) items = a[0].toList();
        if (items.empty()) return false;
        for (const IValue& v : items)
          if (!v.isNumber()) return false;
        IValue best = items[0];
        for (const IValue& v : items)
          if (is_min ? v.toDouble() < best.toDouble() : v.toDouble() > best.toDouble()) best = v;
        *out = best;
        return true;
      };
    };
    t["min"] = minmax(true);
    t["max"] = minmax(false);
    t["floor"] = [](Stack& a, IValue* out) {
      if (!numbers(a, 1)) return false;
      *out = IValue(a[0].isDouble() ? float_to_int(std::floor(a[0].toDouble()), "math.floor()") : a[0].toInt());
      return true;
    };
    t["ceil"] = [](Stack& a, IValue* out) {
      if (!numbers(a, 1)) return false;
      *out = IValue(a[0].isDouble() ? float_to_int(std::ceil(a[0].toDouble()), "math.ceil()") : a[0].toInt());
      return true;
    };
    t["sqrt"] = [](Stack& a, IValue* out) {
      if (!numbers(a, 1)) return false;
      *out = IValue(std::sqrt(a[0].toDouble()));
      return true;
    };
    // aten::slice.t: list[start:end:step] (Python's rules; the step must be positive).
    t["slice"] = [](Stack& a, IValue* out) {
      if (a.empty() || a.size() > 4 || !(a[0].isList() || a[0].isTuple())) return false;
      const List& items = a[0].toList();
      const int64_t n = static_cast<int64_t>(items.size());
      const int64_t step = a.size() > 3 && !a[3].isNone() ? a[3].toInt() : 1;
      TVK_CHECK(step > 0, "list slice: the step must be positive, got ", step);
      const int64_t lo = slice_bound(a, 1, n, 0), hi = slice_bound(a, 2, n, n);
      List picked;
      for (int64_t i = lo; i < hi; i += step) picked.push_back(items[static_cast<size_t>(i)]);
      *out = a[0].isTuple() ? IValue::tuple(std::move(picked)) : IValue::list(std::move(picked));
      return true;
    };
    // str.find(sub, start, end): the index of the first match in [start, end), or -1.
    t["find"] = [](Stack& a, IValue* out) {
      if (a.size() < 2 || a.size() > 4 || !a[0].isString() || !a[1].isString()) return false;
      const std::string& s = a[0].toStringRef();
      const int64_t n = static_cast<int64_t>(s.size());
      const int64_t lo = slice_bound(a, 2, n, 0), hi = slice_bound(a, 3, n, n);
      const size_t at = lo <= hi ? s.substr(0, static_cast<size_t>(hi)).find(a[1].toStringRef(), static_cast<size_t>(lo))
                                 : std::string::npos;
      *out = IValue(at == std::string::npos ? int64_t{-1} : static_cast<int64_t>(at));
      return true;
    };
    // all / any of a List[bool] (aten::all.bool / aten::any.bool).
    t["all"] = [](Stack& a, IValue* out) { return reduce_bools(a, out, true); };
    t["any"] = [](Stack& a, IValue* out) { return reduce_bools(a, out, false); };
    t["append"] = [](Stack& a, IValue* out) {
      if (a.size() != 2 || !a[0].isList()) return false;
      a[0].toListRef()->push_back(a[1]);
      *out = a[0];
      return true;
    };
    t["extend"] = [](Stack& a, IValue* out) {
      if (a.size() != 2 || !a[0].isList() || !(a[1].isList() || a[1].isTuple())) return false;
      List items = a[1].toList();
      a[0].toListRef()->insert(a[0].toListRef()->end(), items.begin(), items.end());
      *out = IValue();
      return true;
    };
    t["insert"] = [](Stack& a, IValue* out) {
      if (a.size() != 3 || !a[0].isList() || !a[1].isInt()) return false;
      auto& l = *a[0].toListRef();
      int64_t i = std::clamp<int64_t>(a[1].toInt() < 0 ? a[1].toInt() + static_cast<int64_t>(l.size()) : a[1].toInt(),
                                      0, static_cast<int64_t>(l.size()));
      l.insert(l.begin() + i, a[2]);
      *out = IValue();
      return true;
    };
    t["pop"] = [](Stack& a, IValue* out) {
      if (!a.empty() && a[0].isDict() && (a.size() == 2 || a.size() == 3)) {  // dict.pop(key[, default])
        auto& items = a[0].toDict()->items;
        for (auto it = items.begin(); it != items.end(); ++it)
          if (ivalue_equal(it->first, a[1])) {
            *out = it->second;
            items.erase(it);
            return true;
          }
        if (a.size() == 2) throw Error("KeyError: " + python_str(a[1]));
        *out = a[2];
        return true;
      }
      if (a.empty() || !a[0].isList()) return false;
      auto& l = *a[0].toListRef();
      const int64_t i = list_index(a.size() > 1 ? a[1].toInt() : -1, l.size(), "pop");
      *out = l[i];
      l.erase(l.begin() + i);
      return true;
    };
    t["list"] = [](Stack& a, IValue* out) {
      if (a.size() != 1 || !(a[0].isList() || a[0].isTuple())) return false;
      *out = IValue::list(a[0].toList());
      return true;
    };
    // list.copy() (swin_t copies its shift sizes before zeroing some): a new list, same items;
    // dict.copy() likewise.
    t["copy"] = [](Stack& a, IValue* out) {
      if (a.size() == 1 && a[0].isDict()) {
        auto dict = std::make_shared<Dict>();
        dict->items = a[0].toDict()->items;
        *out = IValue(dict);
        return true;
      }
      if (a.size() != 1 || !a[0].isList()) return false;
      *out = IValue::list(a[0].toList());
      return true;
    };
    // dict.update(other) (torchvision's detectors merge their loss dicts), clear(), setdefault().
    t["update"] = [](Stack& a, IValue* out) {
      if (a.size() != 2 || !a[0].isDict() || !a[1].isDict()) return false;
      Dict& d = *a[0].toDict();
      const auto other = a[1].toDict()->items;  // a copy: d.update(d) reads what it writes
      for (const auto& [k, v] : other) d.set(k, v);
      *out = IValue();
      return true;
    };
    t["clear"] = [](Stack& a, IValue* out) {
      if (a.size() != 1) return false;
      if (a[0].isDict()) a[0].toDict()->items.clear();
      else if (a[0].isList()) a[0].toListRef()->clear();
      else return false;
      *out = IValue();
      return true;
    };
    t["setdefault"] = [](Stack& a, IValue* out) {
      if (a.size() != 3 || !a[0].isDict()) return false;
      Dict& d = *a[0].toDict();
      if (IValue* v = d.find(a[1])) {
        *out = *v;
        return true;
      }
      d.set(a[1], a[2]);
      *out = a[2];
      return true;
    };
    // sum() of a list of numbers: an int when every item is an int (or bool), else a float.
    t["sum"] = [](Stack& a, IValue* out) {
      if (a.size() != 1 || !(a[0].isList() || a[0].isTuple())) return false;
      int64_t whole = 0;
      double real = 0;
      bool all_int = true;
      for (const IValue& v : a[0].toList()) {
        if (v.isInt() || v.isBool()) {
          const int64_t x = v.isBool() ? static_cast<int64_t>(v.toBool()) : v.toInt();
          whole += x;
          real += static_cast<double>(x);
        } else if (v.isDouble()) {
          all_int = false;
          real += v.toDouble();
        } else {
          return false;
        }
      }
      *out = all_int ? IValue(whole) : IValue(real);
      return true;
    };
    t["__getitem__"] = [](Stack& a, IValue* out) {
      if (a.size() != 2) return false;
      if ((a[0].isList() || a[0].isTuple()) && a[1].isInt()) {
        const List& l = a[0].toList();
        *out = l[list_index(a[1].toInt(), l.size(), "list")];
        return true;
      }
      if (a[0].isDict()) {
        IValue* v = a[0].toDict()->find(a[1]);
        if (!v) throw Error("KeyError: " + python_str(a[1]));
        *out = *v;
        return true;
      }
      return false;
    };
    t["_set_item"] = [](Stack& a, IValue* out) {
      if (a.size() != 3) return false;
      if (a[0].isList() && a[1].isInt()) {
        auto& l = *a[0].toListRef();
        l[list_index(a[1].toInt(), l.size(), "list assignment")] = a[2];
      } else if (a[0].isDict()) {
        a[0].toDict()->set(a[1], a[2]);
      } else {
        return false;
      }
      *out = a[0];
      return true;
    };
    t["__contains__"] = [](Stack& a, IValue* out) {
      if (a.size() != 2) return false;
      if (a[0].isDict()) *out = IValue(a[0].toDict()->find(a[1]) != nullptr);
      else if (a[0].isList() || a[0].isTuple()) {
        bool found = false;
        for (const IValue& v : a[0].toList()) found = found || ivalue_equal(v, a[1]);
        *out = IValue(found);
      } else if (a[0].isString() && a[1].isString()) {
        *out = IValue(a[0].toStringRef().find(a[1].toStringRef()) != std::string::npos);
      } else return false;
      return true;
    };
    // dict(): an empty dict; dict(d): a copy; dict(pairs): from a list of (key, value) tuples.
    t["dict"] = [](Stack& a, IValue* out) {
      auto dict = std::make_shared<Dict>();
      if (a.size() == 1 && a[0].isDict()) {
        dict->items = a[0].toDict()->items;
      } else if (a.size() == 1 && a[0].isList()) {
        for (const IValue& pair : a[0].toList()) {
          if (!pair.isTuple() || pair.toList().size() != 2) throw Error("dict(): each item must be a (key, value) pair");
          dict->set(pair.toList()[0], pair.toList()[1]);
        }
      } else if (!a.empty()) {
        return false;
      }
      *out = IValue(dict);
      return true;
    };
    t["keys"] = [](Stack& a, IValue* out) {
      if (a.size() != 1 || !a[0].isDict()) return false;
      List keys;
      for (auto& [k, v] : a[0].toDict()->items) keys.push_back(k);
      *out = IValue::list(std::move(keys));
      return true;
    };
    t["values"] = [](Stack& a, IValue* out) {
      if (a.size() != 1 || !a[0].isDict()) return false;
      List values;
      for (auto& [k, v] : a[0].toDict()->items) values.push_back(v);
      *out = IValue::list(std::move(values));
      return true;
    };
    t["items"] = [](Stack& a, IValue* out) {
      if (a.size() != 1 || !a[0].isDict()) return false;
      List items;
      for (auto& [k, v] : a[0].toDict()->items) {
        List pair;
        pair.push_back(k);
        pair.push_back(v);
        items.push_back(IValue::tuple(std::move(pair)));
      }
      *out = IValue::list(std::move(items));
      return true;
    };
    t["device"] = [](Stack& a, IValue* out) {
      if (a.size() != 1 || !a[0].isString()) return false;
      *out = IValue(parse_device(a[0].toStringRef()));
      return true;
    };
    t["warn"] = [](Stack& a, IValue* out) {
      if (a.empty()) return false;
      std::fprintf(stderr, "tvk: model warning: %s\n", python_str(a[0]).c_str());
      *out = IValue();
      return true;
    };
    t["print"] = [](Stack& a, IValue* out) {
      std::string line;
      for (size_t i = 0; i < a.size(); ++i) {
        if (i) line += ' ';
        line += python_str(a[i]);
      }
      std::printf("%s\n", line.c_str());
      *out = IValue();
      return true;
    };
    // `for i in range(a, b, c)` is printed with these two helpers.
    t["__range_length"] = [](Stack& a, IValue* out) {
      if (a.size() != 3) return false;
      const int64_t lo = a[0].toInt(), hi = a[1].toInt(), step = a[2].toInt();
      if (step == 0) throw Error("range() arg 3 must not be zero");
      int64_t n = step > 0 ? (hi - lo + step - 1) / step : (lo - hi - step - 1) / -step;
      *out = IValue(std::max<int64_t>(n, 0));
      return true;
    };
    t["__derive_index"] = [](Stack& a, IValue* out) {
      if (a.size() != 3) return false;
      *out = IValue(a[1].toInt() + a[0].toInt() * a[2].toInt());
      return true;
    };
    return t;
  }();
  return builtins;
}

}  // namespace

std::string python_str(const IValue& v) {
  if (v.isString()) return v.toStringRef();
  if (v.isDouble()) return format_double(v.toDouble());
  if (v.isList() || v.isTuple()) {
    RunScope::visit("str() of a nested value");
    std::string s = v.isList() ? "[" : "(";
    const List& items = v.toList();
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) s += ", ";
      s += items[i].isString() ? "'" + items[i].toStringRef() + "'" : python_str(items[i]);
    }
    if (v.isTuple() && items.size() == 1) s += ",";
    return s + (v.isList() ? "]" : ")");
  }
  return v.repr();
}

bool call_builtin(const std::string& path, Stack& args, const Kwargs& kwargs, IValue* result) {
  if (path == "ops.prim.RaiseException") {
    const std::string message = args.empty() ? "" : python_str(args[0]);
    const std::string cls = args.size() > 1 && args[1].isString() ? args[1].toStringRef() : "builtins.Exception";
    throw ScriptException(cls, message);
  }
  if (path == "ops.prim.Uninitialized") {
    *result = IValue();
    return true;
  }
  if (path == "ops.prim.device" && args.size() == 1 && args[0].isTensor()) {
    *result = IValue(args[0].toTensor().device());
    return true;
  }
  // device.type (torch 2.x's nn.MultiheadAttention asks `x.device.type in [...]`): "cpu" or
  // "vulkan", as str(device) spells it.
  if (path == "ops.prim.type" && args.size() == 1 && args[0].isDevice()) {
    *result = IValue(std::string(to_string(args[0].toDevice())));
    return true;
  }
  if (path == "ops.prim.dtype" && args.size() == 1 && args[0].isTensor()) {
    *result = IValue(ops::dtype_code(args[0].toTensor().dtype()));  // PyTorch's ScalarType code
    return true;
  }
  if (!kwargs.empty()) return false;
  const std::string name = builtin_table_name(path);
  if (name.empty()) return false;
  return table().at(name)(args, result);
}

std::string builtin_table_name(const std::string& path) {
  // torch.X, ops.aten.X, ops.prim.X, builtins.X, math.X and bare Python builtins share one table.
  std::string name = path;
  for (const char* prefix : {"torch.", "ops.aten.", "ops.prim.", "builtins.", "math."}) {
    const size_t n = std::char_traits<char>::length(prefix);
    if (path.compare(0, n, prefix) == 0) {
      name = path.substr(n);
      break;
    }
  }
  if (name.find('.') != std::string::npos || table().find(name) == table().end()) return "";
  return name;
}

}  // namespace tvk::jit
