#include "jit/serialization/export.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "jit/runtime/graph_executor.h"
#include "jit/serialization/code_literals.h"
#include "jit/serialization/pickler.h"
#include "jit/serialization/zip_writer.h"

namespace tvk::jit {

namespace {

std::string quote(const std::string& s) { return python_string_literal(s); }
std::string float_literal(double d) { return python_float_literal(d); }

// Prints one module class whose methods are frozen graphs.
class CodePrinter {
 public:
  explicit CodePrinter(const ModuleState& state) : state_(state) {}

  std::string print();
  // Constant tensors (CONSTANTS.c<i>) and packed objects (module attributes), in first-use order.
  const std::vector<IValue>& constants() const { return constants_; }
  const std::vector<std::pair<std::string, IValue>>& packed_attributes() const { return packed_; }
  // NamedTuple classes the methods construct: qualified name -> "class X(NamedTuple): ..." text.
  const std::map<std::string, std::string>& named_tuple_classes() const { return named_tuples_; }
  // The archive format version the printed code needs: 3, or the version from which an op it
  // calls has today's meaning (as torch.jit.save decides it; older versions would have torch
  // apply its upgraders, e.g. round integer division toward zero).
  int64_t format_version() const { return format_version_; }

 private:
  std::string arg(const Arg& a);
  std::string constant(const IValue& v);
  std::string name(const Value* v);
  void print_block(const NodeBlock& block, int indent, std::ostringstream& out);
  void print_node(const Node& n, int indent, std::ostringstream& out);
  std::string call_args(const Node& n);
  std::string type_of_output(const Arg& a);

  const ModuleState& state_;
  std::string method_;
  std::map<const Value*, std::string> names_;
  std::vector<IValue> constants_;
  std::map<std::pair<const void*, std::string>, size_t> constant_index_;
  std::vector<std::pair<std::string, IValue>> packed_;
  std::map<const Object*, std::string> packed_names_;
  std::map<std::string, std::string> named_tuples_;
  int64_t format_version_ = 3;
};

// aten ops whose meaning changed, with the format version that has today's: PyTorch's
// operator version map (torch/csrc/jit/operator_upgraders/version_map.cpp).
int64_t format_version_for(const std::string& aten_base) {
  static const std::map<std::string, int64_t> versions{{"div", 4},      {"div_", 4},     {"full", 5},
                                                        {"linspace", 8}, {"logspace", 9}, {"gelu", 10}};
  const auto it = versions.find(aten_base);
  return it == versions.end() ? 3 : it->second;
}

std::string CodePrinter::name(const Value* v) {
  auto it = names_.find(v);
  if (it != names_.end()) return it->second;
  std::string n = "_" + std::to_string(v->id);
  names_[v] = n;
  return n;
}

std::string CodePrinter::constant(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return "None";
    case IValue::Tag::Bool: return v.toBool() ? "True" : "False";
    case IValue::Tag::Int: return std::to_string(v.toInt());
    case IValue::Tag::Double: return float_literal(v.toDouble());
    case IValue::Tag::String: return quote(v.toStringRef());
    case IValue::Tag::Device: return std::string("torch.device(") + quote(to_string(v.toDevice())) + ")";
    case IValue::Tag::List:
    case IValue::Tag::Tuple: {
      std::string s = v.isList() ? "[" : "(";
      const List& items = v.toList();
      for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + constant(items[i]);
      if (v.isTuple() && items.size() == 1) s += ",";
      return s + (v.isList() ? "]" : ")");
    }
    case IValue::Tag::Tensor: {
      const Tensor& t = v.toTensor();
      const auto key = std::make_pair(static_cast<const void*>(t.storage().get()), t.shape_string());
      auto it = constant_index_.find(key);
      size_t index = 0;
      if (it == constant_index_.end()) {
        index = constants_.size();
        constants_.push_back(v);
        constant_index_[key] = index;
      } else {
        index = it->second;
      }
      return "CONSTANTS.c" + std::to_string(index);
    }
    case IValue::Tag::Object: {
      const Object* obj = v.toObject().get();
      auto it = packed_names_.find(obj);
      if (it == packed_names_.end()) {
        const std::string attr = "prepack_folding_" + method_ + "._jit_pass_packed_weight_" + std::to_string(packed_.size());
        packed_.emplace_back(attr, v);
        it = packed_names_.emplace(obj, attr).first;
      }
      return "getattr(self, " + quote(it->second) + ")";
    }
    default: throw Error(std::string("cannot print a constant of type ") + v.tag_name());
  }
}

std::string CodePrinter::arg(const Arg& a) { return a.is_value() ? name(a.value) : constant(a.constant); }

std::string CodePrinter::call_args(const Node& n) {
  const auto& params = n.op->schema.arguments;
  // Trailing positional arguments equal to their defaults are left out, as PyTorch's printer does.
  size_t last = n.args.size();
  while (last > 0) {
    const auto& p = params[last - 1];
    const Arg& a = n.args[last - 1];
    if (p.kwarg_only || a.is_value() || !p.default_value || !ivalue_equal(a.constant, *p.default_value)) break;
    --last;
  }
  std::string s;
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (params[i].kwarg_only) {
      const Arg& a = n.args[i];
      if (!a.is_value() && params[i].default_value && ivalue_equal(a.constant, *params[i].default_value)) continue;
      s += (s.empty() ? "" : ", ") + params[i].name + "=" + arg(a);
    } else if (i < last) {
      s += (s.empty() ? "" : ", ") + arg(n.args[i]);
    }
  }
  return s;
}

void CodePrinter::print_node(const Node& n, int indent, std::ostringstream& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string lhs;
  for (size_t i = 0; i < n.outputs.size(); ++i) lhs += (i ? ", " : "") + name(n.outputs[i]);
  if (n.kind != NodeKind::If && n.kind != NodeKind::Loop && !lhs.empty()) lhs += " = ";
  switch (n.kind) {
    case NodeKind::Op: {
      const ops::Schema& schema = n.op->schema;
      const size_t colons = schema.name.find("::");
      const std::string ns = schema.name.substr(0, colons), base = schema.name.substr(colons + 2);
      const std::string callee = ns == "aten" ? "torch." + base : "ops." + ns + "." + base;
      if (ns == "aten") format_version_ = std::max(format_version_, format_version_for(base));
      out << pad << lhs << callee << "(" << call_args(n) << ")\n";
      return;
    }
    case NodeKind::Builtin: {
      const bool bare = n.name == "str" || n.name == "int" || n.name == "float" || n.name == "bool";
      std::string args;
      for (size_t i = 0; i < n.args.size(); ++i) args += (i ? ", " : "") + arg(n.args[i]);
      out << pad << lhs << (bare ? "" : "torch.") << n.name << "(" << args << ")\n";
      return;
    }
    case NodeKind::ListConstruct:
    case NodeKind::TupleConstruct: {
      const bool list = n.kind == NodeKind::ListConstruct;
      std::string items;
      for (size_t i = 0; i < n.args.size(); ++i) items += (i ? ", " : "") + arg(n.args[i]);
      if (!list && n.args.size() == 1) items += ",";
      out << pad << lhs << (list ? "[" : "(") << items << (list ? "]" : ")") << "\n";
      return;
    }
    case NodeKind::NamedTupleConstruct: {
      std::string items, fields;
      for (size_t i = 0; i < n.args.size(); ++i) {
        items += (i ? ", " : "") + arg(n.args[i]);
        // A field the recording saw as None is Optional[Tensor] (torchvision's aux outputs).
        const std::string type = n.args[i].is_value() ? type_of_output(n.args[i])
                                 : n.args[i].constant.isNone() ? "Optional[Tensor]"
                                                               : "Any";
        fields += "  " + n.fields[i] + " : " + type + "\n";
      }
      named_tuples_[n.name] = "class " + n.name.substr(n.name.rfind('.') + 1) + "(NamedTuple):\n" + fields;
      out << pad << lhs << n.name << "(" << items << ")\n";
      return;
    }
    case NodeKind::DictConstruct: {
      std::string items;
      for (size_t i = 0; i + 1 < n.args.size(); i += 2)
        items += (i ? ", " : "") + arg(n.args[i]) + ": " + arg(n.args[i + 1]);
      out << pad << lhs << "{" << items << "}\n";
      return;
    }
    case NodeKind::TupleIndex:
      out << pad << lhs << arg(n.args[0]) << "[" << n.index << "]\n";
      return;
    case NodeKind::Raise:
      out << pad << "ops.prim.RaiseException(" << arg(n.args[0]) << ", " << quote(n.name) << ")\n";
      return;
    case NodeKind::Loop: {
      // out = initial; for i in range(trip): carried = out; body; out = body's outputs
      const NodeBlock& body = *n.blocks[0];
      for (size_t i = 0; i < n.outputs.size(); ++i) out << pad << name(n.outputs[i]) << " = " << arg(n.args[i + 1]) << "\n";
      out << pad << "for " << name(body.inputs[0]) << " in range(" << arg(n.args[0]) << "):\n";
      std::ostringstream inner;
      for (size_t i = 0; i < n.outputs.size(); ++i)
        inner << pad << "  " << name(body.inputs[i + 1]) << " = " << name(n.outputs[i]) << "\n";
      print_block(body, indent + 2, inner);
      for (size_t i = 0; i < n.outputs.size(); ++i)
        inner << pad << "  " << name(n.outputs[i]) << " = " << arg(body.outputs[i]) << "\n";
      out << (inner.str().empty() ? pad + "  pass\n" : inner.str());
      return;
    }
    case NodeKind::If: {
      out << pad << "if " << arg(n.args[0]) << ":\n";
      for (int b = 0; b < 2; ++b) {
        if (b == 1) out << pad << "else:\n";
        std::ostringstream body;
        print_block(*n.blocks[b], indent + 2, body);
        for (size_t i = 0; i < n.outputs.size(); ++i)
          body << pad << "  " << name(n.outputs[i]) << " = " << arg(n.blocks[b]->outputs[i]) << "\n";
        out << (body.str().empty() ? pad + "  pass\n" : body.str());
      }
      return;
    }
  }
}

void CodePrinter::print_block(const NodeBlock& block, int indent, std::ostringstream& out) {
  for (const auto& n : block.nodes) print_node(*n, indent, out);
}

std::string CodePrinter::type_of_output(const Arg& a) {
  if (!a.is_value()) return "Any";
  const Value* v = a.value;
  if (v->type == ValueType::Tensor) return "Tensor";
  if (v->type == ValueType::Int) return "int";
  if (v->type == ValueType::Float) return "float";
  if (v->type == ValueType::Bool) return "bool";
  if (v->type == ValueType::Str) return "str";
  const Node* p = v->producer;
  if (p && p->kind == NodeKind::NamedTupleConstruct) return p->name;
  if (p && p->kind == NodeKind::DictConstruct && p->args.size() >= 2) {
    const std::string key = p->args[0].is_value() ? "Any" : p->args[0].constant.isString() ? "str" : "int";
    return "Dict[" + key + ", " + type_of_output(p->args[1]) + "]";
  }
  if (p && (p->kind == NodeKind::TupleConstruct || p->kind == NodeKind::ListConstruct)) {
    std::string inner;
    for (size_t i = 0; i < p->args.size(); ++i) inner += (i ? ", " : "") + type_of_output(p->args[i]);
    if (p->kind == NodeKind::TupleConstruct) return "Tuple[" + inner + "]";
    return p->args.empty() ? "List[Tensor]" : "List[" + type_of_output(p->args[0]) + "]";
  }
  return "Any";
}

std::string CodePrinter::print() {
  const std::string& qualified = state_.root->type_name;
  const std::string class_name = qualified.substr(qualified.rfind('.') + 1);
  std::ostringstream methods;
  for (const auto& [method, executor] : state_.frozen_methods) {
    method_ = method;
    const Graph& g = executor->graph();
    names_.clear();
    methods << "  def " << method << "(self: " << qualified;
    for (const Value* in : g.inputs()) {
      std::string n = in->name.empty() ? "input" : in->name;
      names_[in] = n;
      methods << ",\n    " << n << ": "
              << (in->type == ValueType::Tensor ? "Tensor" : in->type == ValueType::Int ? "int"
                                                           : in->type == ValueType::Float ? "float"
                                                           : in->type == ValueType::Bool  ? "bool"
                                                                                          : "Any");
      if (in->default_value) methods << "=" << constant(*in->default_value);
    }
    methods << ") -> " << type_of_output(g.outputs().at(0)) << ":\n";
    std::ostringstream body;
    print_block(g.top(), 4, body);
    methods << body.str() << "    return " << arg(g.outputs().at(0)) << "\n";
  }
  std::ostringstream out;
  out << "class " << class_name << "(Module):\n";
  out << "  __parameters__ = []\n  __buffers__ = []\n";
  for (const auto& [attr, value] : state_.root->attributes)
    if (value.isBool()) out << "  " << attr << " : bool\n";
  for (const auto& [attr, value] : packed_)
    out << "  __annotations__[" << quote(attr) << "] = " << value.toObject()->type_name << "\n";
  out << methods.str();
  return out.str();
}

// "code/__torch__/torchvision/models/mobilenetv2.py" for "__torch__.torchvision.models.mobilenetv2.X".
std::string code_record_for(const std::string& qualified) {
  const std::string qualifier = qualified.substr(0, qualified.rfind('.'));
  std::string path = qualifier;
  for (char& c : path)
    if (c == '.') c = '/';
  return "code/" + path + ".py";
}

}  // namespace

std::string print_frozen_code(const ModuleState& state) {
  TVK_CHECK(!state.frozen_methods.empty(), "print_frozen_code: the module has no frozen methods");
  CodePrinter printer(state);
  return printer.print();
}

void export_module(const ModuleState& state, const std::string& path) {
  TVK_CHECK(!state.frozen_methods.empty(),
            "save() writes modules made by optimize_for_mobile; a loaded module is already saved in ", state.path);
  CodePrinter printer(state);
  const std::string root_record = code_record_for(state.root->type_name);
  std::string code = "import torch\n" + printer.print();
  // NamedTuple classes go in their module's code file: the root's, or one of their own.
  std::map<std::string, std::string> other_code;
  for (const auto& [qualified, text] : printer.named_tuple_classes()) {
    const std::string record = code_record_for(qualified);
    if (record == root_record) code += text;
    else other_code[record] += (other_code[record].empty() ? "import torch\n" : "") + text;
  }

  // data.pkl: the module object, its flags and the packed contexts as attributes.
  auto root = std::make_shared<Object>();
  root->type_name = state.root->type_name;
  for (const auto& [name, value] : state.root->attributes) root->set(name, value);
  for (const auto& [name, value] : printer.packed_attributes()) root->set(name, value);
  Pickler data;
  const std::vector<uint8_t> data_pkl = data.pickle(IValue(root));
  Pickler constants;
  const std::vector<uint8_t> constants_pkl = constants.pickle(IValue::tuple(printer.constants()));

  std::string stem = std::filesystem::path(path).stem().string();
  if (stem.empty()) stem = "archive";
  ZipWriter::Options options;
  options.version = static_cast<uint64_t>(printer.format_version());
  ZipWriter zip(path, stem, options);
  auto storage_bytes = [](const Tensor& t) {
    Tensor c = t.cpu().contiguous();
    return std::vector<uint8_t>(static_cast<const uint8_t*>(c.raw_data()),
                                static_cast<const uint8_t*>(c.raw_data()) + c.nbytes());
  };
  for (const auto& [key, storage] : data.storages()) zip.add("data/" + key, storage_bytes(storage));
  zip.add("data.pkl", data_pkl);
  zip.add(root_record, code);
  for (const auto& [record, text] : other_code) zip.add(record, text);
  for (const auto& [key, storage] : constants.storages()) zip.add("constants/" + key, storage_bytes(storage));
  zip.add("constants.pkl", constants_pkl);
  for (const auto& [name, contents] : state.extras())
    zip.add("extra/" + name, contents);
  zip.finish();
}

}  // namespace tvk::jit
