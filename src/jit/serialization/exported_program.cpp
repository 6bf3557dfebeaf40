#include "jit/serialization/exported_program.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "core/run_scope.h"
#include "jit/frontend/parser.h"
#include "jit/runtime/builtins.h"
#include "jit/serialization/code_literals.h"
#include "jit/serialization/import.h"
#include "jit/serialization/storage_record.h"
#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"
#include "ops/registry.h"

namespace tvk::jit {

using json = nlohmann::json;

namespace {

// The schema majors tvk reads (torch/_export/serde/schema.py's SCHEMA_VERSION): torch 2.1 wrote
// 1.x-3.x, torch 2.11 writes 8.x. Fields tvk needs have kept their names throughout.
constexpr int64_t kMinSchemaMajor = 1;
constexpr int64_t kMaxSchemaMajor = 8;
// Nesting and size bounds for the JSON, which is untrusted: real programs nest a dozen levels.
constexpr int kMaxJsonDepth = 256;
constexpr uint64_t kMaxJsonBytes = uint64_t{512} << 20;
// What a parsed JSON document holds in memory per byte of text, at most (counted against the
// load's memory limit before parsing).
constexpr uint64_t kJsonMemoryPerByte = 12;

std::string text_of(const std::vector<uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// JSON as Python's json.dumps writes it, which may hold NaN, Infinity and -Infinity (a float
// argument, an unbounded range): those become the strings "NaN", "Infinity", "-Infinity" here.
// Refuses nesting past kMaxJsonDepth before anything is parsed.
std::string prepare_json(const std::vector<uint8_t>& bytes, const std::string& where) {
  if (bytes.size() > kMaxJsonBytes)
    throw Error(detail::concat(where, ": ", bytes.size(), " bytes of JSON, more than tvk reads (", kMaxJsonBytes, ")"));
  if (MemoryBudget* budget = RunScope::memory()) budget->check_fits(bytes.size() * kJsonMemoryPerByte, where.c_str());
  std::string out;
  out.reserve(bytes.size() + 64);
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const char c = static_cast<char>(bytes[i]);
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < bytes.size()) out.push_back(static_cast<char>(bytes[++i]));
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw Error(detail::concat(where, ": JSON nested more than ", kMaxJsonDepth, " levels deep at byte ", i));
    } else if (c == ']' || c == '}') {
      --depth;
    }
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      const size_t n = std::char_traits<char>::length(word);
      if (bytes.size() - i >= n && std::equal(word, word + n, bytes.begin() + static_cast<std::ptrdiff_t>(i))) {
        out.push_back('"');
        out.append(word);
        out.push_back('"');
        i += n - 1;
        goto next;
      }
    }
    out.push_back(c);
  next:;
  }
  return out;
}

json parse_json(const std::vector<uint8_t>& bytes, const std::string& where) {
  const std::string text = prepare_json(bytes, where);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw Error(detail::concat(where, ": not valid JSON: ", e.what()));
  }
}

// Checked access to the untrusted document: every miss names where it was looked for.
const json& field(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) throw Error(detail::concat(where, ": expected an object holding '", key, "'"));
  auto it = obj.find(key);
  if (it == obj.end()) throw Error(detail::concat(where, ": no '", key, "'"));
  return *it;
}
const json* optional_field(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}
const json& array_of(const json& v, const std::string& where) {
  if (!v.is_array()) throw Error(detail::concat(where, ": expected a list"));
  return v;
}
int64_t int_of(const json& v, const std::string& where) {
  if (!v.is_number_integer()) throw Error(detail::concat(where, ": expected an integer, found ", v.type_name()));
  return v.get<int64_t>();
}
double float_of(const json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  throw Error(detail::concat(where, ": expected a number, found ", v.type_name()));
}
const std::string& string_of(const json& v, const std::string& where) {
  if (!v.is_string()) throw Error(detail::concat(where, ": expected a string, found ", v.type_name()));
  return v.get_ref<const std::string&>();
}
// A union (Argument, SymInt, OptionalTensor...): one set field, the others absent or null.
std::pair<std::string, const json*> union_of(const json& v, const std::string& where) {
  if (!v.is_object()) throw Error(detail::concat(where, ": expected a tagged value, found ", v.type_name()));
  for (auto it = v.begin(); it != v.end(); ++it)
    if (!it.value().is_null()) return {it.key(), &it.value()};
  if (!v.empty()) return {v.begin().key(), &v.begin().value()};  // {"as_none": null}
  throw Error(detail::concat(where, ": an empty tagged value"));
}

// A name the file gives, quoted for an error message: printable ASCII only, bounded.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < 80; ++i) out.push_back(s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?');
  if (s.size() > 80) out += "...";
  return out + "'";
}

// torch/_export/serde/schema.py's ScalarType as a torch storage class (what tvk's storage
// reader converts) and as c10's ScalarType code (what TorchScript source passes as dtype=).
struct SerdeDtype {
  const char* storage;
  int64_t c10;
};
SerdeDtype serde_dtype(int64_t code, const std::string& where) {
  switch (code) {
    case 1: return {"ByteStorage", 0};
    case 2: return {"CharStorage", 1};
    case 3: return {"ShortStorage", 2};
    case 4: return {"IntStorage", 3};
    case 5: return {"LongStorage", 4};
    case 6: return {"HalfStorage", 5};
    case 7: return {"FloatStorage", 6};
    case 8: return {"DoubleStorage", 7};
    case 12: return {"BoolStorage", 11};
    case 13: return {"BFloat16Storage", 15};
    default: break;
  }
  throw UnsupportedError(detail::concat(where, ": dtype code ", code, " (complex, 8-bit float or unsigned wide integers) "
                                               "is not one tvk holds"));
}
DType tvk_dtype_of_serde(int64_t code, const std::string& where) {
  return storage_dtype(serde_dtype(code, where).storage);
}

int64_t memory_format_code(int64_t serde, const std::string& where) {
  switch (serde) {
    case 1: return 0;  // contiguous
    case 2: return 2;  // channels_last
    case 3: return 3;  // channels_last_3d
    case 4: return 1;  // preserve
    default: throw Error(detail::concat(where, ": memory format code ", serde, " is not one torch defines"));
  }
}

std::string float_literal(double d) { return python_float_literal(d); }

// Strings from the file reach generated code as literals: printable ASCII only.
std::string string_literal(const std::string& s, const std::string& where) {
  for (char c : s)
    if (c < 0x20 || c >= 0x7f) throw UnsupportedError(detail::concat(where, ": a string argument with a non-ASCII or control character"));
  return python_string_literal(s);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 100 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The one symbol a size expression is ("s77", or sympy's srepr "Symbol('s77', positive=True,
// integer=True)" that newer torch writes), or "" for a compound expression such as 2*s77.
std::string symbol_of(const std::string& expr) {
  if (is_identifier(expr)) return expr;
  const std::string head = "Symbol('";
  if (expr.rfind(head, 0) != 0 || expr.find("Symbol(", head.size()) != std::string::npos) return "";
  const size_t end = expr.find('\'', head.size());
  if (end == std::string::npos || expr.back() != ')') return "";
  const std::string name = expr.substr(head.size(), end - head.size());
  return is_identifier(name) ? name : "";
}

// --- tree specs -----------------------------------------------------------------------------

TreeSpec parse_tree_spec(const json& node, const std::string& where, int depth) {
  if (depth > 64) throw Error(detail::concat(where, ": a tree spec nested more than 64 levels"));
  RunScope::visit("a tree spec");
  TreeSpec spec;
  const json* type = optional_field(node, "type");
  if (!type) return spec;  // a leaf
  const std::string& t = string_of(*type, where + ": type");
  const json& children = array_of(field(node, "children_spec", where), where + ": children_spec");
  for (const json& c : children) spec.children.push_back(parse_tree_spec(c, where, depth + 1));
  if (t == "builtins.tuple" || t == "collections.namedtuple" || t == "torch.return_types") {
    spec.kind = TreeSpec::Kind::Tuple;
  } else if (t == "builtins.list" || t == "torch.fx.immutable_collections.immutable_list") {
    spec.kind = TreeSpec::Kind::List;
  } else if (t == "builtins.dict" || t == "collections.OrderedDict" || t == "collections.defaultdict" ||
             t == "torch.fx.immutable_collections.immutable_dict") {
    spec.kind = TreeSpec::Kind::Dict;
    const json* context = optional_field(node, "context");
    if (!context) throw Error(detail::concat(where, ": a dict spec without its keys"));
    json keys = context->is_string() ? parse_json(std::vector<uint8_t>(context->get_ref<const std::string&>().begin(),
                                                                       context->get_ref<const std::string&>().end()),
                                                  where + ": dict keys")
                                     : *context;
    if (t == "collections.defaultdict" && keys.is_object()) keys = field(keys, "dict_context", where);
    for (const json& k : array_of(keys, where + ": dict keys")) {
      if (k.is_string()) spec.keys.emplace_back(k.get<std::string>());
      else if (k.is_number_integer()) spec.keys.emplace_back(k.get<int64_t>());
      else throw UnsupportedError(detail::concat(where, ": a dict key that is neither a string nor an int"));
    }
    if (spec.keys.size() != spec.children.size())
      throw Error(detail::concat(where, ": a dict spec with ", spec.keys.size(), " keys and ", spec.children.size(),
                                 " values"));
  } else {
    // A pytree node type registered by the model's code (a dataclass, a ModelOutput): its leaves
    // come back as a tuple.
    spec.kind = TreeSpec::Kind::Tuple;
  }
  return spec;
}

// treespec_dumps's form: [protocol, spec] as a JSON string.
TreeSpec parse_tree_spec_text(const std::string& text, const std::string& where) {
  const json doc = parse_json(std::vector<uint8_t>(text.begin(), text.end()), where);
  const json& arr = array_of(doc, where);
  if (arr.size() != 2) throw Error(detail::concat(where, ": expected [protocol, spec]"));
  return parse_tree_spec(arr[1], where, 0);
}

// --- the program ---------------------------------------------------------------------------

// One tensor the program holds (a parameter, buffer or constant), as its config describes it.
Tensor tensor_from_raw(const ZipReader& zip, const std::string& record, const json& meta, const std::string& where) {
  const std::string storage = serde_dtype(int_of(field(meta, "dtype", where), where + ": dtype"), where).storage;
  auto ints = [&](const char* key) {
    IntList out;
    for (const json& s : array_of(field(meta, key, where), where + ": " + key)) {
      auto [tag, v] = union_of(s, where + ": " + key);
      if (tag != "as_int") throw Error(detail::concat(where, ": ", key, " of a stored tensor is symbolic"));
      out.push_back(int_of(*v, where + ": " + key));
    }
    return out;
  };
  const IntList sizes = ints("sizes"), strides = ints("strides");
  int64_t offset = 0;
  if (const json* o = optional_field(meta, "storage_offset")) {
    auto [tag, v] = union_of(*o, where + ": storage_offset");
    if (tag != "as_int") throw Error(detail::concat(where, ": storage_offset is symbolic"));
    offset = int_of(*v, where + ": storage_offset");
  }
  if (sizes.size() != strides.size())
    throw Error(detail::concat(where, ": ", sizes.size(), " sizes but ", strides.size(), " strides"));
  const uint64_t stored = storage_format(storage).stored_bytes;
  const uint64_t bytes = zip.has(record) ? zip.size_of(record) : 0;
  if (bytes % stored != 0)
    throw Error(detail::concat(zip.display_name(), ": record '", record, "' holds ", bytes, " bytes, not a whole number of ",
                               stored, "-byte elements"));
  const int64_t numel = static_cast<int64_t>(bytes / stored);
  Tensor flat = read_storage_record(zip, record, storage, numel);
  check_view_in_bounds(sizes, strides, offset, 1, static_cast<size_t>(numel));
  return flat.as_strided(sizes, strides, offset).contiguous();
}

// A dict of name -> tensor from a torch.save file (the older layouts' state dicts).
std::map<std::string, Tensor> tensor_dict(const IValue& v, const std::string& where) {
  std::map<std::string, Tensor> out;
  if (!v.isDict()) throw Error(detail::concat(where, ": holds a ", v.tag_name(), ", not a dict of tensors"));
  for (const auto& [k, t] : v.toDict()->items) {
    if (!k.isString()) throw Error(detail::concat(where, ": a key that is not a string"));
    if (!t.isTensor()) continue;  // custom objects are refused where the program uses them
    out[k.toStringRef()] = t.toTensor();
  }
  return out;
}

class Translator {
 public:
  Translator(const json& program, std::string where, ExportedSignature& signature)
      : program_(program), where_(std::move(where)), sig_(signature) {}

  // Writes the module's class; `tensors` are the program's parameters, buffers and constants
  // by name (a parameter's FQN), set on `root` as attributes.
  std::string translate(const std::map<std::string, Tensor>& tensors, Object& root);

 private:
  std::string value(const std::string& fx_name);  // the Python name for a graph value
  std::string define(const std::string& fx_name);  // a new value: its fresh Python name
  std::string arg(const json& a, const std::string& where);
  std::string sym(const json& s, const char* literal, const std::string& where);
  void node(const json& n, size_t index);
  std::string call(const std::string& target, const json& inputs, const std::string& where);
  void assign(const json& outputs, const std::string& expr, const std::string& where);
  std::string output_expr(const TreeSpec& spec, const std::vector<std::string>& leaves, size_t& next);
  void line(const std::string& s) { body_ += "    " + s + "\n"; }

  const json& program_;
  std::string where_;
  ExportedSignature& sig_;
  std::map<std::string, std::string> names_;  // FX value name -> Python name
  std::set<std::string> used_;
  std::string body_;
  std::map<std::string, int> unsupported_;
  int temps_ = 0;
};

std::string Translator::value(const std::string& fx_name) {
  auto it = names_.find(fx_name);
  if (it == names_.end()) throw Error(detail::concat(where_, ": value ", quoted(fx_name), " is used before it is made"));
  return it->second;
}

std::string Translator::define(const std::string& fx_name) {
  if (names_.count(fx_name)) throw Error(detail::concat(where_, ": value ", quoted(fx_name), " is made twice"));
  std::string name = is_identifier(fx_name) ? "v_" + fx_name : "v" + std::to_string(names_.size());
  while (used_.count(name)) name += "_";
  used_.insert(name);
  names_[fx_name] = name;
  return name;
}

std::string Translator::sym(const json& s, const char* literal, const std::string& where) {
  auto [tag, v] = union_of(s, where);
  if (tag == "as_name") return value(string_of(*v, where));
  if (tag == literal) {
    if (tag == std::string("as_int")) return std::to_string(int_of(*v, where));
    if (tag == std::string("as_float")) return float_literal(float_of(*v, where));
    if (tag == std::string("as_bool")) return v->get<bool>() ? "True" : "False";
  }
  throw Error(detail::concat(where, ": a symbolic value tagged '", tag, "'"));
}

std::string Translator::arg(const json& a, const std::string& where) {
  auto [tag, v] = union_of(a, where);
  auto list = [&](const json& items, auto&& each) {
    std::string out = "[";
    for (const json& e : array_of(items, where)) out += each(e) + ", ";
    return out + "]";
  };
  if (tag == "as_none") return "None";
  if (tag == "as_tensor") return value(string_of(field(*v, "name", where), where));
  if (tag == "as_tensors")
    return list(*v, [&](const json& e) { return value(string_of(field(e, "name", where), where)); });
  if (tag == "as_optional_tensors" || tag == "as_optional_tensor") {
    auto one = [&](const json& e) {
      auto [t, x] = union_of(e, where);
      if (t == "as_none") return std::string("None");
      if (t == "as_tensor") return value(string_of(field(*x, "name", where), where));
      throw Error(detail::concat(where, ": an optional tensor tagged '", t, "'"));
    };
    return tag == "as_optional_tensor" ? one(*v) : list(*v, one);
  }
  if (tag == "as_int") return std::to_string(int_of(*v, where));
  if (tag == "as_ints") return list(*v, [&](const json& e) { return std::to_string(int_of(e, where)); });
  if (tag == "as_float") return float_literal(float_of(*v, where));
  if (tag == "as_floats") return list(*v, [&](const json& e) { return float_literal(float_of(e, where)); });
  if (tag == "as_bool") {
    if (!v->is_boolean()) throw Error(detail::concat(where, ": expected a bool"));
    return v->get<bool>() ? "True" : "False";
  }
  if (tag == "as_bools")
    return list(*v, [&](const json& e) {
      if (!e.is_boolean()) throw Error(detail::concat(where, ": expected a bool"));
      return std::string(e.get<bool>() ? "True" : "False");
    });
  if (tag == "as_string") return string_literal(string_of(*v, where), where);
  if (tag == "as_strings") return list(*v, [&](const json& e) { return string_literal(string_of(e, where), where); });
  if (tag == "as_sym_int") return sym(*v, "as_int", where);
  if (tag == "as_sym_ints") return list(*v, [&](const json& e) { return sym(e, "as_int", where); });
  if (tag == "as_sym_float") return sym(*v, "as_float", where);
  if (tag == "as_sym_floats") return list(*v, [&](const json& e) { return sym(e, "as_float", where); });
  if (tag == "as_sym_bool") return sym(*v, "as_bool", where);
  if (tag == "as_sym_bools") return list(*v, [&](const json& e) { return sym(e, "as_bool", where); });
  if (tag == "as_scalar_type") return std::to_string(serde_dtype(int_of(*v, where), where).c10);
  if (tag == "as_memory_format") return std::to_string(memory_format_code(int_of(*v, where), where));
  if (tag == "as_layout") {
    if (int_of(*v, where) != 7) throw UnsupportedError(detail::concat(where, ": a sparse or mkldnn layout"));
    return "0";
  }
  // Programs exported on a GPU name it: tvk makes such tensors where the module runs.
  if (tag == "as_device") return "torch.device(\"cpu\")";
  throw UnsupportedError(detail::concat(where, ": an argument of kind '", tag, "' (",
                                        tag == "as_graph" ? "a subgraph: torch.cond or another higher-order op"
                                                          : "custom objects, operators and complex numbers",
                                        ") is not supported"));
}

// The call expression for one node, or "" when the node computes nothing tvk needs (asserts).
std::string Translator::call(const std::string& target, const json& inputs, const std::string& where) {
  std::vector<std::pair<std::string, std::string>> args;  // (name, source), in the file's order
  std::vector<bool> kwarg_only;
  for (const json& in : array_of(inputs, where + ": inputs")) {
    const std::string name = optional_field(in, "name") ? string_of(field(in, "name", where), where) : "";
    args.emplace_back(name, arg(field(in, "arg", where), where + (name.empty() ? "" : ": argument '" + name + "'")));
    const json* kind = optional_field(in, "kind");
    kwarg_only.push_back(kind && kind->is_number_integer() && kind->get<int64_t>() == 2);
  }
  auto positional = [&](size_t n, const char* what) {
    if (args.size() != n) throw Error(detail::concat(where, ": ", what, " takes ", n, " arguments, found ", args.size()));
  };
  // Python operators on symbolic sizes, and sym_* helpers.
  static const std::map<std::string, std::string> binary = {
      {"_operator.add", "+"}, {"_operator.sub", "-"},  {"_operator.mul", "*"},  {"_operator.floordiv", "//"},
      {"_operator.truediv", "/"}, {"_operator.mod", "%"}, {"_operator.pow", "**"}, {"_operator.eq", "=="},
      {"_operator.ne", "!="}, {"_operator.lt", "<"},   {"_operator.le", "<="},  {"_operator.gt", ">"},
      {"_operator.ge", ">="}, {"_operator.and_", "and"}, {"_operator.or_", "or"}};
  if (auto it = binary.find(target); it != binary.end()) {
    positional(2, target.c_str());
    return "(" + args[0].second + " " + it->second + " " + args[1].second + ")";
  }
  static const std::map<std::string, std::pair<const char*, const char*>> unary = {
      {"_operator.neg", {"(-", ")"}},         {"_operator.not_", {"(not ", ")"}}, {"torch.sym_not", {"(not ", ")"}},
      {"torch.sym_int", {"int(", ")"}},       {"math.trunc", {"int(", ")"}},      {"math.floor", {"math.floor(", ")"}},
      {"math.ceil", {"math.ceil(", ")"}},     {"torch.sym_float", {"float(", ")"}}, {"torch.sym_sqrt", {"math.sqrt(", ")"}},
      {"math.sqrt", {"math.sqrt(", ")"}}};
  if (auto it = unary.find(target); it != unary.end()) {
    positional(1, target.c_str());
    return it->second.first + args[0].second + it->second.second;
  }
  if (target == "_operator.getitem") {
    positional(2, "getitem");
    return args[0].second + "[" + args[1].second + "]";
  }
  if (target == "torch.sym_max" || target == "torch.sym_min") {
    positional(2, target.c_str());
    return std::string(target == "torch.sym_max" ? "max(" : "min(") + args[0].second + ", " + args[1].second + ")";
  }
  // Checks torch.export inserts for what it assumed of sizes: tvk checks the inputs instead.
  static const std::set<std::string> asserts = {
      "torch.ops.aten._assert_scalar.default", "torch.ops.aten._assert_async.msg", "torch.ops.aten._assert_async.default",
      "torch.ops.aten.sym_constrain_range.default", "torch.ops.aten.sym_constrain_range_for_size.default",
      "torch.ops.aten._assert_tensor_metadata.default", "torch.ops.aten._functional_assert_scalar.default",
      "torch._check", "torch._check_is_size"};
  if (asserts.count(target)) return "";

  const std::string prefix = "torch.ops.";
  if (target.rfind(prefix, 0) != 0) {
    ++unsupported_[target];
    return "None";
  }
  if (target.rfind("torch.ops.higher_order.", 0) == 0) {
    ++unsupported_[target + " (control flow or another higher-order op)"];
    return "None";
  }
  const std::string rest = target.substr(prefix.size());  // "aten.conv2d.default"
  const size_t dot1 = rest.find('.'), dot2 = rest.rfind('.');
  if (dot1 == std::string::npos || dot2 == dot1) {
    ++unsupported_[target];
    return "None";
  }
  const std::string ns = rest.substr(0, dot1), op = rest.substr(dot1 + 1, dot2 - dot1 - 1),
                    overload = rest.substr(dot2 + 1);
  if ((ns != "aten" && ns != "prim") || !is_identifier(op) || !is_identifier(overload)) {
    ++unsupported_[target];
    return "None";
  }
  // Sizes, read off the tensors at run time.
  static const std::map<std::string, std::pair<const char*, size_t>> sizes = {
      {"sym_size", {"ops.aten.size(", 2}}, {"sym_numel", {"ops.aten.numel(", 1}}, {"sym_stride", {"ops.aten.stride(", 2}}};
  if (auto it = sizes.find(op); it != sizes.end()) {
    positional(it->second.second, op.c_str());
    return it->second.first + args[0].second + (it->second.second == 2 ? ", " + args[1].second : std::string()) + ")";
  }
  if (op == "sym_storage_offset") return "0";
  // The decomposed (core ATen) form of inference batch norm: batch_norm, which the optimizer
  // folds into the convolution before it. Its other two results are empty, as torch's are.
  std::string full = ns + "::" + op;
  if (op == "_native_batch_norm_legit_no_training") {
    positional(7, op.c_str());
    return "(ops.aten.batch_norm(" + args[0].second + ", " + args[1].second + ", " + args[2].second + ", " +
           args[3].second + ", " + args[4].second + ", False, " + args[5].second + ", " + args[6].second +
           ", True), ops.aten.empty([0]), ops.aten.empty([0]))";
  }
  // Other core ATen ops (run_decompositions' IR) as the ops tvk's passes know. An argument by its
  // schema name, else by position, else a default.
  auto arg_or = [&](const char* arg_name, size_t position, const std::string& fallback) {
    for (const auto& [n, src] : args)
      if (n == arg_name) return src;
    return position < args.size() && args[position].first.empty() ? args[position].second : fallback;
  };
  if (op == "_unsafe_view" || op == "view_copy")
    return "ops.aten.reshape(" + arg_or("self", 0, "None") + ", " + arg_or("size", 1, "None") + ")";
  if (op == "alias_copy") return "ops.aten.clone(" + arg_or("self", 0, "None") + ")";
  if (op == "_to_copy") {
    const std::string dtype = arg_or("dtype", 99, "None");
    const std::string self = arg_or("self", 0, "None");
    return dtype == "None" ? "ops.aten.clone(" + self + ")" : "ops.aten.to(" + self + ", " + dtype + ", False, True)";
  }
  if (op == "max_pool2d_with_indices") {  // the indices are for max_unpool: not computed
    return "(ops.aten.max_pool2d(" + arg_or("self", 0, "None") + ", " + arg_or("kernel_size", 1, "None") + ", " +
           arg_or("stride", 2, "[]") + ", " + arg_or("padding", 3, "[0, 0]") + ", " + arg_or("dilation", 4, "[1, 1]") +
           ", " + arg_or("ceil_mode", 5, "False") + "), None)";
  }
  if (op == "native_group_norm") {  // mean and rstd are for the backward pass
    return "(ops.aten.group_norm(" + arg_or("input", 0, "None") + ", " + arg_or("group", 6, "1") + ", " +
           arg_or("weight", 1, "None") + ", " + arg_or("bias", 2, "None") + ", " + arg_or("eps", 7, "1e-05") +
           "), None, None)";
  }
  const ops::Registry& registry = ops::Registry::global();
  const ops::OpEntry* exact = registry.find(overload == "default" ? full : full + "." + overload);
  if (!exact && registry.overloads(full).empty() && builtin_table_name("ops." + ns + "." + op).empty()) {
    ++unsupported_[full];
    return "None";
  }
  // Positional while the file's arguments follow the schema without a gap, keywords after (the
  // serializer leaves out arguments at their defaults).
  std::string out = "ops." + ns + "." + op + "(";
  bool keywords = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& [name, source] = args[i];
    if (exact && !name.empty()) {
      const int at = exact->schema.index_of(name);
      if (at < 0)
        throw UnsupportedError(detail::concat(where, ": argument '", name, "' of ", exact->schema.full_name(),
                                              " is not in tvk's schema of it"));
      keywords = keywords || kwarg_only[i] || at != static_cast<int>(i) || exact->schema.arguments[at].kwarg_only;
    } else {
      keywords = keywords || kwarg_only[i];
    }
    if (keywords && name.empty()) throw Error(detail::concat(where, ": an unnamed argument after a keyword"));
    out += keywords ? name + "=" + source + ", " : source + ", ";
  }
  return out + ")";
}

void Translator::assign(const json& outputs, const std::string& expr, const std::string& where) {
  const json& outs = array_of(outputs, where + ": outputs");
  // A target for one output; a list output is unpacked into its elements' names.
  auto target = [&](const json& o, std::vector<std::pair<std::string, const json*>>& lists) -> std::string {
    auto [tag, v] = union_of(o, where + ": output");
    if (tag == "as_tensor") return define(string_of(field(*v, "name", where), where));
    if (tag == "as_sym_int" || tag == "as_sym_float" || tag == "as_sym_bool") {
      auto [t, x] = union_of(*v, where + ": output");
      if (t != "as_name") return "_";
      return define(string_of(*x, where));
    }
    if (tag == "as_tensors" || tag == "as_optional_tensors") {
      const std::string tmp = "_t" + std::to_string(temps_++);
      lists.emplace_back(tmp, v);
      return tmp;
    }
    if (tag == "as_none") return "_";
    throw UnsupportedError(detail::concat(where, ": an output of kind '", tag, "'"));
  };
  std::vector<std::pair<std::string, const json*>> lists;
  if (outs.empty()) {
    line(expr);
    return;
  }
  if (outs.size() == 1) {
    line(target(outs[0], lists) + " = " + expr);
  } else {
    const std::string tmp = "_t" + std::to_string(temps_++);
    line(tmp + " = " + expr);
    for (size_t i = 0; i < outs.size(); ++i) {
      const std::string t = target(outs[i], lists);
      if (t != "_") line(t + " = " + tmp + "[" + std::to_string(i) + "]");
    }
  }
  for (const auto& [tmp, items] : lists) {
    size_t i = 0;
    for (const json& e : array_of(*items, where + ": outputs")) {
      std::string name;
      if (e.is_object() && e.contains("name")) {
        name = define(string_of(e["name"], where));
      } else {
        auto [t, x] = union_of(e, where + ": output");
        if (t == "as_tensor") name = define(string_of(field(*x, "name", where), where));
      }
      if (!name.empty()) line(name + " = " + tmp + "[" + std::to_string(i) + "]");
      ++i;
    }
  }
}

void Translator::node(const json& n, size_t index) {
  const std::string target = string_of(field(n, "target", where_ + ": node " + std::to_string(index)), where_);
  std::string where = detail::concat(where_, ": node ", index);
  if (const json* name = optional_field(n, "name"); name && name->is_string()) where += " " + quoted(name->get<std::string>());
  where += " (" + target + ")";
  RunScope::visit("an exported graph's node");
  const std::string expr = call(target, field(n, "inputs", where), where);
  const json& outputs = field(n, "outputs", where);
  if (expr.empty()) {
    for (const json& o : array_of(outputs, where)) {  // asserts return nothing tvk uses; keep names defined
      auto [tag, v] = union_of(o, where);
      if (tag == "as_tensor") line(define(string_of(field(*v, "name", where), where)) + " = None");
    }
    return;
  }
  assign(outputs, expr, where);
}

std::string Translator::output_expr(const TreeSpec& spec, const std::vector<std::string>& leaves, size_t& next) {
  RunScope::visit("an output spec");
  if (spec.kind == TreeSpec::Kind::Leaf) {
    if (next >= leaves.size()) throw Error(detail::concat(where_, ": the output spec has more leaves than the program outputs"));
    return leaves[next++];
  }
  std::string out;
  for (size_t i = 0; i < spec.children.size(); ++i) {
    if (spec.kind == TreeSpec::Kind::Dict) {
      const IValue& k = spec.keys[i];
      out += (k.isString() ? string_literal(k.toStringRef(), where_) : std::to_string(k.toInt())) + ": ";
    }
    out += output_expr(spec.children[i], leaves, next) + ", ";
  }
  switch (spec.kind) {
    case TreeSpec::Kind::Tuple: return "(" + out + ")";
    case TreeSpec::Kind::List: return "[" + out + "]";
    default: return "{" + out + "}";
  }
}

std::string Translator::translate(const std::map<std::string, Tensor>& tensors, Object& root) {
  const json& gm = field(program_, "graph_module", where_);
  const json& graph = field(gm, "graph", where_ + ": graph_module");
  const json& signature = field(gm, "signature", where_ + ": graph_module");
  const std::string gwhere = where_ + ": graph";
  const json& graph_inputs = array_of(field(graph, "inputs", gwhere), gwhere + ": inputs");
  const json& input_specs = array_of(field(signature, "input_specs", where_ + ": signature"), where_ + ": input_specs");
  if (graph_inputs.size() != input_specs.size())
    throw Error(detail::concat(where_, ": ", graph_inputs.size(), " graph inputs but ", input_specs.size(), " input specs"));
  const json* tensor_values = optional_field(graph, "tensor_values");

  std::vector<std::string> params;        // forward's parameters
  std::vector<std::string> prologue;      // attribute reads and constants
  std::vector<std::string> attr_names;    // attributes, declared in the class
  std::set<std::string> attr_used;
  for (size_t i = 0; i < input_specs.size(); ++i) {
    const std::string iw = detail::concat(where_, ": input spec ", i);
    auto [kind, spec] = union_of(input_specs[i], iw);
    auto [atag, a] = union_of(graph_inputs[i], iw + ": graph input");
    if (kind == "user_input") {
      ExportedSignature::Input in;
      const std::string pname = "a" + std::to_string(sig_.inputs.size());
      if (atag == "as_tensor") {
        const std::string fx = string_of(field(*a, "name", iw), iw);
        in.name = fx;
        in.tensor = true;
        if (tensor_values && tensor_values->contains(fx)) {
          const json& meta = (*tensor_values)[fx];
          in.shape_known = true;
          in.dtype = tvk_dtype_of_serde(int_of(field(meta, "dtype", iw), iw + ": dtype"), iw);
          for (const json& s : array_of(field(meta, "sizes", iw), iw + ": sizes")) {
            auto [st, sv] = union_of(s, iw + ": sizes");
            ExportedSignature::Dim d;
            if (st == "as_int") {
              d.size = int_of(*sv, iw + ": sizes");
            } else if (st == "as_expr") {
              const json* e = sv->is_object() ? optional_field(*sv, "expr_str") : sv;
              if (e && e->is_string()) d.symbol = symbol_of(e->get<std::string>());
            }
            in.dims.push_back(d);
          }
        }
        params.push_back(define(fx) + ": Tensor");
      } else {
        // A non-tensor input the program was specialized on: taken and ignored, as torch does.
        params.push_back(pname);
        if (atag == "as_sym_int" || atag == "as_sym_float" || atag == "as_sym_bool") {
          auto [st, sv] = union_of(*a, iw);
          if (st == "as_name") params.back() = define(string_of(*sv, iw));
        }
      }
      sig_.inputs.push_back(in);
      continue;
    }
    if (kind == "parameter" || kind == "buffer" || kind == "tensor_constant") {
      const char* key = kind == "parameter" ? "parameter_name" : kind == "buffer" ? "buffer_name" : "tensor_constant_name";
      const std::string fqn = string_of(field(*spec, key, iw), iw);
      if (atag != "as_tensor") throw Error(detail::concat(iw, ": a ", kind, " that is not a tensor"));
      const std::string fx = string_of(field(*a, "name", iw), iw);
      auto it = tensors.find(fqn);
      if (it == tensors.end())
        throw Error(detail::concat(where_, ": ", kind, " ", quoted(fqn), " is not among the archive's stored tensors"));
      std::string attr = fqn;
      std::replace(attr.begin(), attr.end(), '.', '_');
      if (!is_identifier(attr)) attr = "t" + std::to_string(i);
      while (attr_used.count(attr) || attr == "training") attr += "_";
      attr_used.insert(attr);
      attr_names.push_back(attr);
      root.set(attr, IValue(it->second));
      prologue.push_back(define(fx) + " = self." + attr);
      continue;
    }
    if (kind == "constant_input") {
      const std::string name = string_of(field(*spec, "name", iw), iw);
      prologue.push_back(define(name) + " = " + arg(field(*spec, "value", iw), iw));
      continue;
    }
    throw UnsupportedError(detail::concat(iw, ": an input of kind '", kind, "' (",
                                          kind == "custom_obj" ? "a script object" : "an effect token",
                                          ") is not supported"));
  }

  // The program's nodes, in order.
  const json& nodes = array_of(field(graph, "nodes", gwhere), gwhere + ": nodes");
  for (size_t i = 0; i < nodes.size(); ++i) node(nodes[i], i);
  if (!unsupported_.empty()) {
    std::string list;
    for (const auto& [op, count] : unsupported_)
      list += detail::concat(list.empty() ? "" : ", ", quoted(op).substr(1, quoted(op).size() - 2),
                             count > 1 ? detail::concat(" (", count, " nodes)") : std::string());
    throw UnsupportedError(detail::concat(where_, ": ops tvk does not have: ", list));
  }

  // User outputs, nested as the program's output spec says.
  std::vector<std::string> leaves;
  for (const json& o : array_of(field(signature, "output_specs", where_), where_ + ": output_specs")) {
    auto [kind, spec] = union_of(o, where_ + ": output spec");
    if (kind != "user_output") continue;  // buffer updates of training-mode layers
    leaves.push_back(arg(field(*spec, "arg", where_ + ": output spec"), where_ + ": output spec"));
  }
  TreeSpec out_spec;
  bool have_out_spec = false;
  if (const json* calls = optional_field(gm, "module_call_graph"); calls && calls->is_array() && !calls->empty()) {
    const json& top = (*calls)[0];
    if (const json* s = optional_field(top, "signature")) {
      if (const json* in = optional_field(*s, "in_spec"); in && in->is_string())
        sig_.in_spec = parse_tree_spec_text(in->get<std::string>(), where_ + ": in_spec");
      if (const json* out = optional_field(*s, "out_spec"); out && out->is_string()) {
        out_spec = parse_tree_spec_text(out->get<std::string>(), where_ + ": out_spec");
        have_out_spec = true;
      }
    }
  }
  std::string result;
  if (have_out_spec && out_spec.leaves() == leaves.size()) {
    size_t next = 0;
    result = output_expr(out_spec, leaves, next);
  } else {
    for (const std::string& l : leaves) result += l + ", ";
    result = leaves.size() == 1 ? leaves[0] : "(" + result + ")";
  }

  // forward's parameters as the in spec nests them: (args, kwargs), each arg a leaf or a
  // structure whose leaves are unpacked here.
  std::string forward_params;
  std::vector<std::string> unpack;
  const TreeSpec& in = sig_.in_spec;
  const bool nested = in.kind == TreeSpec::Kind::Tuple && in.children.size() == 2 &&
                      in.leaves() == sig_.inputs.size() &&
                      std::any_of(in.children[0].children.begin(), in.children[0].children.end(),
                                  [](const TreeSpec& c) { return c.kind != TreeSpec::Kind::Leaf; });
  if (nested) {
    // Leaves in order, each read from its argument by index or key.
    size_t leaf = 0;
    std::vector<std::string> top;
    std::function<void(const TreeSpec&, const std::string&)> walk = [&](const TreeSpec& s, const std::string& path) {
      if (s.kind == TreeSpec::Kind::Leaf) {
        std::string p = params[leaf++];
        const size_t colon = p.find(':');
        unpack.push_back((colon == std::string::npos ? p : p.substr(0, colon)) + " = " + path);
        return;
      }
      for (size_t i = 0; i < s.children.size(); ++i) {
        const std::string key = s.kind == TreeSpec::Kind::Dict
                                    ? (s.keys[i].isString() ? string_literal(s.keys[i].toStringRef(), where_)
                                                            : std::to_string(s.keys[i].toInt()))
                                    : std::to_string(i);
        walk(s.children[i], path + "[" + key + "]");
      }
    };
    for (size_t i = 0; i < in.children.size(); ++i)
      for (size_t j = 0; j < in.children[i].children.size(); ++j) {
        const std::string p = "arg" + std::to_string(top.size());
        top.push_back(p);
        walk(in.children[i].children[j], p);
      }
    for (const std::string& p : top) forward_params += ", " + p;
  } else {
    for (const std::string& p : params) forward_params += ", " + p;
  }

  std::string src = "class ExportedProgram(Module):\n  __parameters__ = []\n  __buffers__ = []\n  training : bool\n";
  for (const std::string& a : attr_names) src += "  " + a + " : Tensor\n";
  src += "  def forward(self" + forward_params + "):\n";
  for (const std::string& u : unpack) src += "    " + u + "\n";
  for (const std::string& p : prologue) src += "    " + p + "\n";
  src += body_;
  src += "    return " + result + "\n";
  return src;
}

// The program's JSON, its stored tensors and sample inputs, for either layout.
struct Archive {
  json program;
  std::string json_record;
  std::map<std::string, Tensor> tensors;
  IValue sample_inputs;  // (args, kwargs), or None
  std::string format;
};

std::map<std::string, Tensor> tensors_from_config(const ZipReader& zip, const std::string& folder, const std::string& config) {
  std::map<std::string, Tensor> out;
  if (!zip.has(config)) return out;
  const std::string where = zip.display_name() + ": " + config;
  const json doc = parse_json(zip.read(config), where);
  const json& entries = field(doc, "config", where);
  if (!entries.is_object()) throw Error(detail::concat(where, ": 'config' is not an object"));
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    const std::string ew = where + ": " + quoted(it.key());
    const std::string file = string_of(field(it.value(), "path_name", ew), ew);
    if (file.find('/') != std::string::npos || file.find("..") != std::string::npos)
      throw Error(detail::concat(ew, ": path_name ", quoted(file), " leaves its folder"));
    const std::string record = folder + file;
    const json* pickle = optional_field(it.value(), "use_pickle");
    if (pickle && pickle->is_boolean() && pickle->get<bool>()) {
      const IValue v = read_torch_save(zip.read(record), zip.display_name() + ": " + record);
      if (!v.isTensor()) throw UnsupportedError(detail::concat(ew, ": a pickled ", v.tag_name(), ", not a tensor"));
      out[it.key()] = v.toTensor();
      continue;
    }
    out[it.key()] = tensor_from_raw(zip, record, field(it.value(), "tensor_meta", ew), ew);
  }
  return out;
}

Archive read_archive(const ZipReader& zip, const std::string& path) {
  Archive a;
  if (zip.has("serialized_exported_program.json")) {
    // torch 2.1-2.5: the program, torch.save'd state dict, constants and example inputs.
    a.format = "torch 2.1-2.5 layout";
    a.json_record = "serialized_exported_program.json";
    a.program = parse_json(zip.read(a.json_record), path + ": " + a.json_record);
    for (const char* record : {"serialized_state_dict.pt", "serialized_constants.pt"}) {
      if (!zip.has(record)) continue;
      for (auto& [k, t] : tensor_dict(read_torch_save(zip.read(record), path + ": " + record), path + ": " + record))
        a.tensors[k] = t;
    }
    if (zip.has("serialized_example_inputs.pt"))
      a.sample_inputs = read_torch_save(zip.read("serialized_example_inputs.pt"), path + ": serialized_example_inputs.pt");
    return a;
  }
  const std::string format = trimmed(text_of(zip.read("archive_format")));
  if (format != "pt2") throw Error(detail::concat(path, ": archive_format is ", quoted(format), ", not 'pt2'"));
  if (zip.has("archive_version")) {
    const std::string version = trimmed(text_of(zip.read("archive_version")));
    if (version != "0")
      throw Error(detail::concat(path, ": PT2 archive version ", quoted(version), " is not one tvk reads (0)"));
  }
  if (zip.has("byteorder")) {
    const std::string order = trimmed(text_of(zip.read("byteorder")));
    if (order != "little")
      throw UnsupportedError(detail::concat(path, ": byte order ", quoted(order), ": tvk reads little-endian archives"));
  }
  // models/<name>.json: torch.export.save writes "model"; a package of several programs is read
  // for its first, "model" when present.
  std::string name;
  for (const std::string& r : zip.records()) {
    if (r.rfind("models/", 0) != 0 || r.size() < 13 || r.compare(r.size() - 5, 5, ".json") != 0) continue;
    const std::string n = r.substr(7, r.size() - 12);
    if (n.find('/') != std::string::npos) continue;
    if (name.empty() || n == "model") name = n;
  }
  if (name.empty()) throw Error(detail::concat(path, ": a PT2 archive without a program (no models/<name>.json)"));
  a.format = "PT2 archive, version 0";
  a.json_record = "models/" + name + ".json";
  a.program = parse_json(zip.read(a.json_record), path + ": " + a.json_record);
  for (const char* kind : {"weights", "constants"}) {
    const std::string folder = std::string("data/") + kind + "/";
    const std::string config = folder + name + "_" + kind + "_config.json";
    if (zip.has(config)) {
      for (auto& [k, t] : tensors_from_config(zip, folder, config)) a.tensors[k] = t;
    } else if (zip.has(folder + name + ".pt")) {  // torch 2.6-2.7: one torch.save'd dict
      for (auto& [k, t] : tensor_dict(read_torch_save(zip.read(folder + name + ".pt"), path + ": " + folder + name + ".pt"),
                                      path + ": " + folder + name + ".pt"))
        a.tensors[k] = t;
    }
  }
  if (zip.has("data/sample_inputs/" + name + ".pt"))
    a.sample_inputs = read_torch_save(zip.read("data/sample_inputs/" + name + ".pt"),
                                      path + ": data/sample_inputs/" + name + ".pt");
  return a;
}

void flatten_into(const IValue& v, const TreeSpec& spec, std::vector<IValue>& out, const std::string& where) {
  RunScope::visit("an input structure");
  if (spec.kind == TreeSpec::Kind::Leaf) {
    out.push_back(v);
    return;
  }
  if (spec.kind == TreeSpec::Kind::Dict) {
    if (!v.isDict()) throw Error(detail::concat(where, ": expected a dict, found a ", v.tag_name()));
    for (size_t i = 0; i < spec.keys.size(); ++i) {
      IValue* e = v.toDict()->find(spec.keys[i]);
      if (!e) throw Error(detail::concat(where, ": no key ", spec.keys[i].repr()));
      flatten_into(*e, spec.children[i], out, where);
    }
    return;
  }
  if (!v.isList() && !v.isTuple())
    throw Error(detail::concat(where, ": expected a ", spec.kind == TreeSpec::Kind::List ? "list" : "tuple", ", found a ",
                               v.tag_name()));
  const List& items = v.toList();
  if (items.size() != spec.children.size())
    throw Error(detail::concat(where, ": expected ", spec.children.size(), " items, found ", items.size()));
  for (size_t i = 0; i < items.size(); ++i) flatten_into(items[i], spec.children[i], out, where);
}

}  // namespace

size_t TreeSpec::leaves() const {
  if (kind == Kind::Leaf) return 1;
  size_t n = 0;
  for (const TreeSpec& c : children) n += c.leaves();
  return n;
}

void ExportedSignature::check(const std::vector<IValue>& args, const std::string& path) const {
  // The flat inputs: forward's arguments are the in spec's args (kwargs follow positionally).
  std::vector<IValue> flat;
  const bool structured = in_spec.kind == TreeSpec::Kind::Tuple && in_spec.children.size() == 2 &&
                          in_spec.leaves() == inputs.size();
  if (structured) {
    std::vector<const TreeSpec*> tops;
    for (const TreeSpec& group : in_spec.children)
      for (const TreeSpec& c : group.children) tops.push_back(&c);
    if (args.size() != tops.size())
      throw Error(detail::concat(path, ": forward takes ", tops.size(), " inputs, given ", args.size()));
    for (size_t i = 0; i < args.size(); ++i) flatten_into(args[i], *tops[i], flat, detail::concat(path, ": input ", i));
  } else {
    flat = args;
  }
  if (flat.size() != inputs.size())
    throw Error(detail::concat(path, ": forward takes ", inputs.size(), " inputs, given ", flat.size()));
  std::map<std::string, std::pair<int64_t, std::string>> bound;  // symbol -> (size, where it was seen)
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    if (!in.tensor) continue;
    const std::string which = detail::concat("input ", i, " (", quoted(in.name), ")");
    if (!flat[i].isTensor()) throw Error(detail::concat(path, ": ", which, " must be a tensor, given a ", flat[i].tag_name()));
    const Tensor& t = flat[i].toTensor();
    if (!in.shape_known) continue;
    if (t.dim() != static_cast<int64_t>(in.dims.size()))
      throw Error(detail::concat(path, ": ", which, " has ", t.dim(), " dimensions; the program was exported for ",
                                 in.dims.size()));
    const bool want_float = in.dtype == DType::Float32, got_float = t.dtype() == DType::Float32;
    if (want_float != got_float || (in.dtype == DType::Bool) != (t.dtype() == DType::Bool))
      throw Error(detail::concat(path, ": ", which, " holds ", to_string(t.dtype()), "; the program was exported for ",
                                 to_string(in.dtype)));
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const Dim& dim = in.dims[d];
      const int64_t size = t.size(static_cast<int64_t>(d));
      if (dim.size >= 0 && size != dim.size)
        throw Error(detail::concat(path, ": ", which, " has size ", size, " in dimension ", d,
                                   "; the program was exported with that size fixed at ", dim.size));
      if (dim.symbol.empty()) continue;
      auto r = ranges.find(dim.symbol);
      if (r != ranges.end() && (size < r->second.min || size > r->second.max))
        throw Error(detail::concat(path, ": ", which, " has size ", size, " in dimension ", d, ", outside the range [",
                                   r->second.min, ", ",
                                   r->second.max == std::numeric_limits<int64_t>::max() ? std::string("inf")
                                                                                          : std::to_string(r->second.max),
                                   "] the program was exported for"));
      auto [it, fresh] = bound.emplace(dim.symbol, std::make_pair(size, which));
      if (!fresh && it->second.first != size)
        throw Error(detail::concat(path, ": ", which, " has size ", size, " in dimension ", d, ", but ", it->second.second,
                                   " gave the same dynamic size ", it->second.first));
    }
  }
}

bool is_exported_program(const ZipReader& zip) {
  return zip.has("archive_format") || zip.has("serialized_exported_program.json");
}

IValue read_torch_save(std::vector<uint8_t> bytes, const std::string& name) {
  if (bytes.size() >= 2 && bytes[0] == 0x80)
    throw UnsupportedError(detail::concat(name, ": a torch.save file in the format before torch 1.6 (not a zip)"));
  const ZipReader zip = ZipReader::from_bytes(std::move(bytes), name);
  if (!zip.has("data.pkl")) throw Error(detail::concat(name, ": no 'data.pkl' record (not a torch.save file)"));
  StorageLoader storages(zip, "data");
  UnpicklerHooks hooks;
  hooks.load_storage = std::ref(storages);
  hooks.make_object = [&](const std::string& type) -> std::shared_ptr<Object> {
    throw UnsupportedError(detail::concat(name, ": holds an object of class ", quoted(type), ", which tvk does not rebuild"));
  };
  return Unpickler::unpickle(zip.read("data.pkl"), name + ": record 'data.pkl'", hooks);
}

std::shared_ptr<ModuleState> import_exported_program(const ZipReader& zip, const std::string& path, Device device,
                                                     const Limits& limits, std::shared_ptr<MemoryBudget> memory) {
  Archive a = read_archive(zip, path);
  const std::string where = path + ": " + a.json_record;
  auto sig = std::make_shared<ExportedSignature>();
  sig->format = a.format;
  if (const json* v = optional_field(a.program, "schema_version")) {
    const int64_t major = int_of(field(*v, "major", where + ": schema_version"), where + ": schema_version");
    const int64_t minor = int_of(field(*v, "minor", where + ": schema_version"), where + ": schema_version");
    sig->schema_version = detail::concat(major, ".", minor);
    if (major < kMinSchemaMajor || major > kMaxSchemaMajor)
      throw Error(detail::concat(where, ": schema version ", sig->schema_version, " is not one tvk reads (", kMinSchemaMajor,
                                 ".x to ", kMaxSchemaMajor, ".x)"));
  }
  if (const json* t = optional_field(a.program, "torch_version"); t && t->is_string()) sig->torch_version = t->get<std::string>();
  if (const json* r = optional_field(a.program, "range_constraints"); r && r->is_object()) {
    for (auto it = r->begin(); it != r->end(); ++it) {
      const std::string rw = where + ": range of " + quoted(it.key());
      auto bound = [&](const char* key, int64_t unbounded) {
        const json* b = optional_field(it.value(), key);
        if (!b) return unbounded;
        if (b->is_number_integer()) return b->get<int64_t>();
        const double d = float_of(*b, rw);
        if (std::isinf(d)) return unbounded;
        if (std::isnan(d) || d < -9.2e18 || d > 9.2e18) throw Error(detail::concat(rw, ": not a size bound"));
        return static_cast<int64_t>(d);
      };
      sig->ranges[it.key()] = {bound("min_val", std::numeric_limits<int64_t>::min()),
                               bound("max_val", std::numeric_limits<int64_t>::max())};
    }
  }

  auto state = new_module_state(path, device, limits, std::move(memory));
  auto root = std::make_shared<Object>();
  root->type_name = "__torch__.ExportedProgram";
  root->set("training", IValue(false));
  Translator translator(a.program, where, *sig);
  const std::string source = translator.translate(a.tensors, *root);
  state->unit->add_source(parse_source(source, path + " (translated)"), "__torch__");
  state->interpreter = std::make_unique<Interpreter>(*state->unit, device);
  if (device != Device::CPU)
    for (auto& [name, v] : root->attributes)
      if (v.isTensor() && !ops::scalar_stays_on_cpu(v.toTensor())) v = IValue(v.toTensor().to(device));
  state->root = root;
  if (a.sample_inputs.isTuple() && a.sample_inputs.toTuple().size() == 2 && a.sample_inputs.toTuple()[0].isTuple())
    state->example_inputs = a.sample_inputs.toTuple()[0].toTuple();
  state->exported = sig;
  state->code_files["__torch__"] = source;
  return state;
}

}  // namespace tvk::jit
