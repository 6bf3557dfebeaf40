#include "jit/runtime/bytecode.h"

#include <algorithm>

#include "core/run_scope.h"
#include "jit/runtime/builtins.h"
#include "jit/runtime/interpreter.h"
#include "jit/runtime/op_call.h"
#include "ops/shape_utils.h"

namespace tvk::jit {

namespace {

// Registers and stack entries a function may use: far above what a model needs, low enough
// that a hostile register_size cannot ask for gigabytes.
constexpr int64_t kMaxRegisters = int64_t{1} << 20;
constexpr size_t kMaxStack = size_t{1} << 20;
constexpr int kMaxCallDepth = 64;

const std::map<std::string, BytecodeOp>& opcodes() {
  static const std::map<std::string, BytecodeOp> table = {
      {"OP", BytecodeOp::OP}, {"OPN", BytecodeOp::OPN}, {"LOAD", BytecodeOp::LOAD}, {"MOVE", BytecodeOp::MOVE},
      {"STORE", BytecodeOp::STORE}, {"STOREN", BytecodeOp::STOREN}, {"DROP", BytecodeOp::DROP},
      {"DROPR", BytecodeOp::DROPR}, {"LOADC", BytecodeOp::LOADC}, {"GET_ATTR", BytecodeOp::GET_ATTR},
      {"SET_ATTR", BytecodeOp::SET_ATTR}, {"JF", BytecodeOp::JF}, {"JMP", BytecodeOp::JMP},
      {"LOOP", BytecodeOp::LOOP}, {"RET", BytecodeOp::RET}, {"WARN", BytecodeOp::WARN},
      {"LIST_CONSTRUCT", BytecodeOp::LIST_CONSTRUCT}, {"LIST_UNPACK", BytecodeOp::LIST_UNPACK},
      {"TUPLE_CONSTRUCT", BytecodeOp::TUPLE_CONSTRUCT}, {"TUPLE_SLICE", BytecodeOp::TUPLE_SLICE},
      {"TUPLE_INDEX", BytecodeOp::TUPLE_INDEX}, {"DICT_CONSTRUCT", BytecodeOp::DICT_CONSTRUCT},
      {"DICT_INDEX", BytecodeOp::DICT_INDEX}, {"NAMED_TUPLE_CONSTRUCT", BytecodeOp::NAMED_TUPLE_CONSTRUCT},
      {"CREATE_OBJECT", BytecodeOp::CREATE_OBJECT}, {"RAISE_EXCEPTION", BytecodeOp::RAISE_EXCEPTION},
      {"__IS__", BytecodeOp::IS}, {"__ISNOT__", BytecodeOp::ISNOT}, {"__NOT__", BytecodeOp::NOT},
      {"UN_INITIALIZED", BytecodeOp::UN_INITIALIZED}, {"FORMAT", BytecodeOp::FORMAT},
      {"DEVICE", BytecodeOp::DEVICE}, {"DTYPE", BytecodeOp::DTYPE}, {"DIM", BytecodeOp::DIM},
      {"NUM_TO_TENSOR", BytecodeOp::NUM_TO_TENSOR}, {"IS_CUDA", BytecodeOp::IS_CUDA},
      {"INTERFACE_CALL", BytecodeOp::INTERFACE_CALL}, {"CALL", BytecodeOp::CALL}};
  return table;
}

const char* opcode_name(BytecodeOp op) {
  for (const auto& [name, code] : opcodes())
    if (code == op) return name.c_str();
  return "?";
}

const List& items(const IValue& v, const std::string& what) {
  TVK_CHECK(v.isTuple() || v.isList(), what, " must be a tuple, got ", v.tag_name());
  return v.toList();
}

// The value of `key` among ("key", value) pairs.
const IValue& field(const List& pairs, const char* key, const std::string& where) {
  for (const IValue& p : pairs) {
    if (!(p.isTuple() || p.isList()) || p.toList().size() != 2) continue;
    const IValue& k = p.toList()[0];
    if (k.isString() && k.toStringRef() == key) return p.toList()[1];
  }
  throw Error(detail::concat(where, ": no '", key, "'"));
}

const std::string& text(const IValue& v, const std::string& what) {
  TVK_CHECK(v.isString(), what, " must be a string, got ", v.tag_name());
  return v.toStringRef();
}

int64_t integer(const IValue& v, const std::string& what) {
  TVK_CHECK(v.isInt(), what, " must be an int, got ", v.tag_name());
  return v.toInt();
}

// Inline prim ops: no registered op or builtin stands for them.
constexpr const char* kUncheckedCast = "@unchecked_cast";
constexpr const char* kRaise = "@RaiseException";
constexpr const char* kTupleUnpack = "@TupleUnpack";
constexpr const char* kMissing = "@missing";

BytecodeOperator resolve_operator(const IValue& entry, const std::string& where) {
  const List& e = items(entry, where);
  TVK_CHECK(e.size() == 2 || e.size() == 3, where, " must be (name, overload[, number of arguments])");
  BytecodeOperator out;
  const std::string& name = text(e[0], where + " name");
  const std::string& overload = text(e[1], where + " overload");
  out.name = overload.empty() ? name : name + "." + overload;
  if (e.size() == 3) {
    out.given = integer(e[2], where + " number of arguments");
    TVK_CHECK(out.given >= 0 && out.given < 256, where, ": ", out.given, " arguments");
  }
  if ((out.op = ops::Registry::global().find(out.name))) return out;
  if (name == "prim::unchecked_cast") out.builtin = kUncheckedCast;
  else if (name == "prim::RaiseException") out.builtin = kRaise;
  else if (name == "prim::TupleIndex") out.builtin = "__getitem__";
  else if (name == "prim::TupleUnpack") out.builtin = kTupleUnpack;
  if (!out.builtin.empty()) return out;
  // aten::len.t, aten::__getitem__.t, aten::add.int, aten::Int.Tensor...: the builtin table.
  std::string base = name.substr(name.find("::") == std::string::npos ? 0 : name.find("::") + 2);
  if (base == "Int" || base == "Float" || base == "Bool") base[0] = static_cast<char>(base[0] - 'A' + 'a');
  out.builtin = builtin_table_name("ops.aten." + base);
  // An operator tvk lacks fails when it runs, not at load: F.interpolate's code names the
  // 1-D and 3-D kernels beside the 2-D one a model calls.
  if (out.builtin.empty()) out.builtin = kMissing;
  return out;
}

// Before bytecode 6 an operator's entry does not say how many arguments the code pushes: all
// of the schema's for registered ops, and for builtins their arity.
int64_t builtin_arity(const std::string& builtin) {
  static const std::map<std::string, int64_t> arity = {
      {"len", 1}, {"__getitem__", 2}, {"add", 2}, {"sub", 2}, {"mul", 2}, {"div", 2}, {"floordiv", 2},
      {"remainder", 2}, {"pow", 2}, {"eq", 2}, {"ne", 2}, {"lt", 2}, {"le", 2}, {"gt", 2}, {"ge", 2},
      {"neg", 1}, {"__not__", 1}, {"__and__", 2}, {"__or__", 2}, {"__is__", 2}, {"__isnot__", 2}, {"str", 1},
      {"int", 1}, {"float", 1}, {"bool", 1}, {"abs", 1}, {"floor", 1}, {"ceil", 1}, {"sqrt", 1}, {"append", 2},
      {"list", 1}, {"__contains__", 2}, {"_set_item", 3}, {"keys", 1}, {"values", 1}, {"items", 1},
      {"warn", 2}, {"slice", 4}, {kUncheckedCast, 1}, {kRaise, 2}, {kTupleUnpack, 1}, {kMissing, 0}};
  auto it = arity.find(builtin);
  return it == arity.end() ? -1 : it->second;
}

BytecodeFunction parse_function(const IValue& entry, int64_t version, const std::string& context) {
  const List& f = items(entry, context + ": a function");
  TVK_CHECK(f.size() >= 2, context, ": a function must be (name, code[, schema])");
  BytecodeFunction fn;
  fn.name = text(f[0], context + ": a function's name");
  const std::string where = context + ": function " + fn.name;
  const List& code = items(f[1], where + " code");

  for (const IValue& c : items(field(code, "constants", where), where + " constants")) fn.constants.push_back(c);
  for (const IValue& t : items(field(code, "types", where), where + " types")) fn.types.push_back(text(t, where + " type"));
  fn.register_size = integer(field(code, "register_size", where), where + " register_size");
  TVK_CHECK(fn.register_size >= 0 && fn.register_size <= kMaxRegisters, where, ": register_size ", fn.register_size,
            " is out of range");
  const List& operators = items(field(code, "operators", where), where + " operators");
  for (size_t i = 0; i < operators.size(); ++i) {
    BytecodeOperator op = resolve_operator(operators[i], detail::concat(where, " operator ", i));
    if (op.given < 0) op.given = op.op ? static_cast<int64_t>(op.op->schema.arguments.size()) : builtin_arity(op.builtin);
    TVK_CHECK(op.given >= 0, where, " operator ", i, ": bytecode version ", version, " does not say how many arguments ",
              op.name, " takes");
    fn.operators.push_back(std::move(op));
  }

  const List& instructions = items(field(code, "instructions", where), where + " instructions");
  for (size_t pc = 0; pc < instructions.size(); ++pc) {
    const std::string at = detail::concat(where, " instruction ", pc);
    const List& in = items(instructions[pc], at);
    TVK_CHECK(in.size() == 3, at, " must be (opcode, X, N)");
    auto op = opcodes().find(text(in[0], at + " opcode"));
    TVK_CHECK(op != opcodes().end(), at, ": opcode ", in[0].toStringRef(), " is not a bytecode instruction tvk knows");
    BytecodeInstruction inst{op->second, integer(in[1], at + " X"), integer(in[2], at + " N")};
    // Table indices are checked now, registers and the stack when the instruction runs.
    auto in_range = [&](int64_t index, size_t size, const char* table) {
      TVK_CHECK(index >= 0 && static_cast<size_t>(index) < size, at, " (", op->first, "): ", table, " index ", index,
                " out of range (", size, " entries)");
    };
    switch (inst.op) {
      case BytecodeOp::OP:
      case BytecodeOp::OPN: in_range(inst.x, fn.operators.size(), "operator"); break;
      case BytecodeOp::LOADC:
      case BytecodeOp::INTERFACE_CALL: in_range(inst.x, fn.constants.size(), "constant"); break;
      case BytecodeOp::LIST_CONSTRUCT:
      case BytecodeOp::DICT_CONSTRUCT:
      case BytecodeOp::NAMED_TUPLE_CONSTRUCT:
      case BytecodeOp::CREATE_OBJECT: in_range(inst.x, fn.types.size(), "type"); break;
      case BytecodeOp::JF:
      case BytecodeOp::JMP:
      case BytecodeOp::LOOP: {
        const int64_t target = static_cast<int64_t>(pc) + inst.x;
        TVK_CHECK(target >= 0 && target < static_cast<int64_t>(instructions.size()), at, " (", op->first,
                  "): jumps to ", target, ", outside the function's ", instructions.size(), " instructions");
        break;
      }
      default: break;
    }
    TVK_CHECK(inst.n >= 0 && inst.n < (int64_t{1} << 20), at, " (", op->first, "): N ", inst.n, " is out of range");
    fn.instructions.push_back(inst);
  }
  TVK_CHECK(!fn.instructions.empty(), where, " has no instructions");

  if (f.size() >= 3 && version >= 6) {
    const List& schema = items(f[2], where + " schema");
    for (const IValue& arg : items(field(schema, "arguments", where + " schema"), where + " arguments")) {
      const List& a = items(arg, where + " argument");
      fn.argument_names.push_back(text(field(a, "name", where + " argument"), where + " argument name"));
      const IValue& d = field(a, "default_value", where + " argument");
      fn.argument_defaults.push_back(d);
      fn.has_default.push_back(!d.isNone());
    }
  }
  return fn;
}

// The field names of a NamedTuple type as bytecode writes it:
// "__torch__.m.Outputs[NamedTuple, [[logits, Tensor],[aux, Optional[Tensor]]]]"; empty when
// it does not parse.
std::vector<std::string> named_tuple_fields(const std::string& type, std::string* name) {
  std::vector<std::string> fields;
  const std::string marker = "[NamedTuple, [";
  const size_t at = type.find(marker);
  if (at == std::string::npos) return fields;
  *name = type.substr(0, at);
  // Each field is "[name, Type]" one level inside the list that follows the marker.
  int depth = 0;
  for (size_t i = at + marker.size(); i < type.size(); ++i) {
    if (type[i] == '[') {
      if (++depth == 1) {
        const size_t end = type.find(',', i);
        if (end == std::string::npos) return {};
        std::string f = type.substr(i + 1, end - i - 1);
        f.erase(0, f.find_first_not_of(' '));
        fields.push_back(f);
      }
    } else if (type[i] == ']') {
      if (--depth < 0) break;
    }
  }
  return fields;
}

class Machine {
 public:
  Machine(const BytecodeUnit& unit, const BytecodeFunction& fn, Stack args, int depth,
          std::map<std::string, int64_t>* op_counts)
      : unit_(unit), fn_(fn), stack_(std::move(args)), registers_(fn.register_size), depth_(depth),
        op_counts_(op_counts) {}

  IValue run() {
    size_t pc = 0;
    for (;;) {
      const BytecodeInstruction& in = fn_.instructions[pc];
      try {
        if (RunScope* run = RunScope::current(); run != nullptr && !run->step()) throw LimitError(run->why());
        if (step(in, pc)) return pop();
      } catch (const ScriptException&) {
        throw;  // the model's own raise, as it wrote it
      } catch (const Error& e) {
        rethrow_with_context(e, detail::concat(fn_.name, " instruction ", pc, " (", opcode_name(in.op), ")"));
      }
    }
  }

 private:
  IValue pop() {
    TVK_CHECK(!stack_.empty(), "the stack is empty");
    IValue v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  // The last n values, in order, removed from the stack.
  Stack pop_n(int64_t n) {
    TVK_CHECK(n >= 0 && static_cast<size_t>(n) <= stack_.size(), "needs ", n, " values, the stack holds ", stack_.size());
    Stack out(std::make_move_iterator(stack_.end() - n), std::make_move_iterator(stack_.end()));
    stack_.resize(stack_.size() - static_cast<size_t>(n));
    return out;
  }
  void push(IValue v) {
    TVK_CHECK(stack_.size() < kMaxStack, "the stack grew past ", kMaxStack, " values");
    stack_.push_back(std::move(v));
  }
  IValue& reg(int64_t r) {
    TVK_CHECK(r >= 1 && r <= static_cast<int64_t>(registers_.size()), "register ", r, " is outside the function's ",
              registers_.size());
    return registers_[static_cast<size_t>(r - 1)];
  }
  static Tensor tensor(const IValue& v) {
    TVK_CHECK(v.isTensor() && v.toTensor().defined(), "expected a tensor, got ", v.tag_name());
    return v.toTensor();
  }
  static std::shared_ptr<Object> object(const IValue& v) {
    TVK_CHECK(v.isObject(), "expected an object, got ", v.tag_name());
    return v.toObject();
  }

  void call_operator(const BytecodeOperator& op, int64_t pushed) {
    Stack args = pop_n(pushed);
    IValue out;
    if (op.op) {
      Stack bound;
      std::string why;
      if (!bind_arguments(*op.op, args, {}, &bound, &why)) throw Error(detail::concat(op.name, ": ", why));
      if (op_counts_) ++(*op_counts_)[op.name];
      out = ops::call(*op.op, std::move(bound));
      const size_t returns = op.op->schema.returns.size();
      if (returns > 1) {
        for (const IValue& v : out.toTuple()) push(v);
        return;
      }
      if (returns == 1) push(std::move(out));
      return;
    }
    if (op.builtin == kMissing) {
      if (op_counts_) ++(*op_counts_)[op.name];
      throw UnsupportedError(detail::concat("operator ", op.name, " is not supported (`tvk ops` lists the ops tvk has)"));
    } else if (op.builtin == kUncheckedCast) {
      TVK_CHECK(args.size() == 1, op.name, " takes 1 argument");
      out = std::move(args[0]);
    } else if (op.builtin == kRaise) {
      TVK_CHECK(!args.empty() && args[0].isString(), op.name, " takes a message");
      throw ScriptException(args.size() > 1 && args[1].isString() ? args[1].toStringRef() : "builtins.Exception",
                            args[0].toStringRef());
    } else if (op.builtin == kTupleUnpack) {
      TVK_CHECK(args.size() == 1 && (args[0].isTuple() || args[0].isList()), op.name, " takes a tuple");
      for (const IValue& v : args[0].toList()) push(v);
      return;
    } else if (!call_builtin("ops.aten." + op.builtin, args, {}, &out)) {
      throw Error(detail::concat(op.name, " does not accept these arguments"));
    }
    // Builtins whose schemas return nothing (_set_item, warn...) push nothing.
    if (op.builtin == "_set_item" || op.builtin == "warn" || op.builtin == "insert" || op.builtin == "print" ||
        op.builtin == "extend")
      return;
    push(std::move(out));
  }

  // The builtin `name` (builtins.h) on `args`: the prim instructions the interpreter's code
  // calls as builtins too.
  static IValue builtin(const char* name, Stack args) {
    IValue out;
    if (!call_builtin(name, args, {}, &out)) throw Error(detail::concat(name, " does not accept these arguments"));
    return out;
  }

  // Runs one instruction; true at RET.
  bool step(const BytecodeInstruction& in, size_t& pc) {
    switch (in.op) {
      case BytecodeOp::OP: {
        const BytecodeOperator& op = fn_.operators[static_cast<size_t>(in.x)];
        call_operator(op, op.given);
        break;
      }
      case BytecodeOp::OPN: call_operator(fn_.operators[static_cast<size_t>(in.x)], in.n); break;
      case BytecodeOp::LOAD: push(reg(in.x)); break;
      case BytecodeOp::MOVE: {
        IValue& r = reg(in.x);
        push(std::move(r));
        r = IValue();
        break;
      }
      case BytecodeOp::STORE: reg(in.x) = pop(); break;
      case BytecodeOp::STOREN:
        for (int64_t i = in.n; i > 0; --i) reg(in.x + i - 1) = pop();
        break;
      case BytecodeOp::DROP: pop(); break;
      case BytecodeOp::DROPR: reg(in.x) = IValue(); break;
      case BytecodeOp::LOADC: push(fn_.constants[static_cast<size_t>(in.x)]); break;
      case BytecodeOp::GET_ATTR: {
        // Attributes by slot: the order the module's state was pickled in.
        const std::shared_ptr<Object> obj = object(pop());
        TVK_CHECK(in.x >= 0 && static_cast<size_t>(in.x) < obj->attributes.size(), obj->type_name, " has no attribute slot ",
                  in.x, " (", obj->attributes.size(), " attributes)");
        push(obj->attributes[static_cast<size_t>(in.x)].second);
        break;
      }
      case BytecodeOp::SET_ATTR: {
        IValue v = pop();
        const std::shared_ptr<Object> obj = object(pop());
        TVK_CHECK(in.x >= 0 && in.x < kMaxRegisters, "attribute slot ", in.x, " is out of range");
        while (obj->attributes.size() <= static_cast<size_t>(in.x))
          obj->attributes.emplace_back(detail::concat("<slot ", obj->attributes.size(), ">"), IValue());
        obj->attributes[static_cast<size_t>(in.x)].second = std::move(v);
        break;
      }
      case BytecodeOp::JF: {
        const IValue c = pop();
        TVK_CHECK(c.isBool(), "JF needs a bool, got ", c.tag_name());
        pc = static_cast<size_t>(static_cast<int64_t>(pc) + (c.toBool() ? 1 : in.x));
        return false;
      }
      case BytecodeOp::JMP:
        pc = static_cast<size_t>(static_cast<int64_t>(pc) + in.x);
        return false;
      case BytecodeOp::LOOP: {
        // The stack: trip count, max trip count, condition, the loop-carried values (N - 2).
        TVK_CHECK(in.n >= 2 && static_cast<size_t>(in.n + 1) <= stack_.size(), "LOOP needs ", in.n + 1, " values");
        auto frame = stack_.end() - (in.n + 1);
        TVK_CHECK(frame[0].isInt() && frame[1].isInt() && frame[2].isBool(), "LOOP needs (int, int, bool, ...)");
        const int64_t trip = frame[0].toInt();
        if (trip < frame[1].toInt() && frame[2].toBool()) {
          frame[2] = IValue(trip);
          frame[0] = IValue(trip + 1);
          ++pc;
        } else {
          for (int64_t i = 0; i < in.n - 2; ++i) frame[i] = std::move(frame[i + 3]);
          stack_.resize(stack_.size() - 3);
          pc = static_cast<size_t>(static_cast<int64_t>(pc) + in.x);
        }
        return false;
      }
      case BytecodeOp::RET: return true;
      case BytecodeOp::WARN: {
        pop();  // the stack level
        pop();  // the message; warnings are not printed
        break;
      }
      case BytecodeOp::LIST_CONSTRUCT: push(IValue::list(pop_n(in.n))); break;
      case BytecodeOp::LIST_UNPACK: {
        const IValue list = pop();
        TVK_CHECK(list.isList() || list.isTuple(), "LIST_UNPACK needs a list, got ", list.tag_name());
        TVK_CHECK(static_cast<int64_t>(list.toList().size()) == in.x, "expected ", in.x, " elements, the list has ",
                  list.toList().size());
        for (const IValue& v : list.toList()) push(v);
        break;
      }
      case BytecodeOp::TUPLE_CONSTRUCT: push(IValue::tuple(pop_n(in.x))); break;
      case BytecodeOp::TUPLE_SLICE: {
        const IValue tuple = pop();
        TVK_CHECK(tuple.isTuple(), "TUPLE_SLICE needs a tuple, got ", tuple.tag_name());
        const List& t = tuple.toList();
        TVK_CHECK(in.x >= 0 && in.x + in.n <= static_cast<int64_t>(t.size()), "slice [", in.x, ", ", in.x + in.n,
                  ") of a ", t.size(), "-tuple");
        push(IValue::tuple(List(t.begin() + in.x, t.begin() + in.x + in.n)));
        break;
      }
      case BytecodeOp::TUPLE_INDEX: {
        Stack args = pop_n(2);
        TVK_CHECK(args[0].isTuple() || args[0].isList(), "TUPLE_INDEX needs a tuple, got ", args[0].tag_name());
        push(builtin("__getitem__", std::move(args)));
        break;
      }
      case BytecodeOp::DICT_CONSTRUCT: {
        TVK_CHECK(in.n % 2 == 0, "DICT_CONSTRUCT needs key, value pairs");
        Stack kv = pop_n(in.n);
        auto dict = std::make_shared<Dict>();
        for (size_t i = 0; i < kv.size(); i += 2) dict->set(std::move(kv[i]), std::move(kv[i + 1]));
        push(IValue(std::move(dict)));
        break;
      }
      case BytecodeOp::DICT_INDEX: {
        Stack args = pop_n(2);
        TVK_CHECK(args[0].isDict(), "DICT_INDEX needs a dict, got ", args[0].tag_name());
        push(builtin("__getitem__", std::move(args)));
        break;
      }
      case BytecodeOp::NAMED_TUPLE_CONSTRUCT: {
        std::string name;
        const std::vector<std::string> fields = named_tuple_fields(fn_.types[static_cast<size_t>(in.x)], &name);
        TVK_CHECK(static_cast<int64_t>(fields.size()) == in.n, "NamedTuple type ", fn_.types[static_cast<size_t>(in.x)],
                  " does not name ", in.n, " fields");
        Stack values = pop_n(in.n);
        auto tuple = std::make_shared<Object>();
        tuple->type_name = name;
        tuple->named_tuple = true;
        for (size_t i = 0; i < fields.size(); ++i) tuple->set(fields[i], std::move(values[i]));
        push(IValue(std::move(tuple)));
        break;
      }
      case BytecodeOp::CREATE_OBJECT: {
        auto obj = std::make_shared<Object>();
        obj->type_name = fn_.types[static_cast<size_t>(in.x)];
        push(IValue(std::move(obj)));
        break;
      }
      case BytecodeOp::RAISE_EXCEPTION: {
        const IValue cls = pop();
        const IValue message = pop();
        throw ScriptException(cls.isString() ? cls.toStringRef() : "builtins.Exception",
                              message.isString() ? message.toStringRef() : python_str(message));
      }
      case BytecodeOp::IS: push(builtin("__is__", pop_n(2))); break;
      case BytecodeOp::ISNOT: push(builtin("__isnot__", pop_n(2))); break;
      case BytecodeOp::NOT: push(builtin("__not__", pop_n(1))); break;
      case BytecodeOp::UN_INITIALIZED: push(IValue()); break;
      case BytecodeOp::FORMAT: push(builtin("format", pop_n(in.x))); break;
      case BytecodeOp::DEVICE: push(IValue(tensor(pop()).device())); break;
      case BytecodeOp::DTYPE: push(IValue(ops::dtype_code(tensor(pop()).dtype()))); break;
      case BytecodeOp::DIM: push(IValue(static_cast<int64_t>(tensor(pop()).dim()))); break;
      case BytecodeOp::NUM_TO_TENSOR: push(ops::call("prim::NumToTensor.Scalar", {pop()})); break;
      case BytecodeOp::IS_CUDA:
        tensor(pop());
        push(IValue(false));
        break;
      case BytecodeOp::INTERFACE_CALL: {
        // A method of the object N values down, by the name constant X, on those N values.
        const IValue& method = fn_.constants[static_cast<size_t>(in.x)];
        TVK_CHECK(method.isString(), "INTERFACE_CALL needs a method name");
        TVK_CHECK(in.n >= 1 && static_cast<size_t>(in.n) <= stack_.size(), "INTERFACE_CALL needs ", in.n, " values");
        const std::shared_ptr<Object> self = object(stack_[stack_.size() - static_cast<size_t>(in.n)]);
        const BytecodeFunction* callee = unit_.find(self->type_name + "." + method.toStringRef());
        TVK_CHECK(callee != nullptr, self->type_name, " has no bytecode method ", method.toStringRef(),
                  self->payload ? " (methods of native classes are not callable from bytecode in tvk)" : "");
        TVK_CHECK(depth_ < kMaxCallDepth, "calls nest deeper than ", kMaxCallDepth);
        push(Machine(unit_, *callee, pop_n(in.n), depth_ + 1, op_counts_).run());
        break;
      }
      case BytecodeOp::CALL:
        throw UnsupportedError("bytecode CALL instructions (calls of functions not inlined) are not supported");
    }
    ++pc;
    return false;
  }

  const BytecodeUnit& unit_;
  const BytecodeFunction& fn_;
  Stack stack_;
  std::vector<IValue> registers_;
  int depth_;
  std::map<std::string, int64_t>* op_counts_;
};

}  // namespace

std::shared_ptr<BytecodeUnit> BytecodeUnit::load(const ZipReader& zip, const std::string& path, UnpicklerHooks hooks) {
  const std::string context = path + ": record 'bytecode.pkl'";
  const IValue root = Unpickler::unpickle(zip.read("bytecode.pkl"), context, std::move(hooks));
  const List& entries = items(root, context);
  TVK_CHECK(!entries.empty(), context, " is empty");
  auto unit = std::make_shared<BytecodeUnit>();
  size_t first = 0;
  if (entries[0].isInt()) {
    unit->version_ = entries[0].toInt();
    first = 1;
  } else {
    unit->version_ = 3;  // before bytecode 4 the tuple held functions only
  }
  TVK_CHECK(unit->version_ >= 3 && unit->version_ <= 9, context, ": bytecode version ", unit->version_,
            " is not supported (tvk reads 3 to 9)");
  for (size_t i = first; i < entries.size(); ++i) {
    BytecodeFunction fn = parse_function(entries[i], unit->version_, context);
    std::string name = fn.name;
    unit->functions_.emplace(std::move(name), std::move(fn));
  }
  return unit;
}

const BytecodeFunction* BytecodeUnit::find(const std::string& qualified_name) const {
  auto it = functions_.find(qualified_name);
  return it == functions_.end() ? nullptr : &it->second;
}

std::vector<std::string> BytecodeUnit::methods_of(const std::string& class_name) const {
  std::vector<std::string> out;
  const std::string prefix = class_name + ".";
  for (const auto& [name, fn] : functions_)
    if (name.rfind(prefix, 0) == 0 && name.find('.', prefix.size()) == std::string::npos)
      out.push_back(name.substr(prefix.size()));
  return out;
}

IValue BytecodeUnit::run(const BytecodeFunction& fn, Stack args, std::map<std::string, int64_t>* op_counts) const {
  if (!fn.argument_names.empty()) {
    TVK_CHECK(args.size() <= fn.argument_names.size(), fn.name, " takes ", fn.argument_names.size() - 1,
              " input(s), got ", args.size() - 1);
    for (size_t i = args.size(); i < fn.argument_names.size(); ++i) {
      TVK_CHECK(fn.has_default[i], fn.name, " takes ", fn.argument_names.size() - 1, " input(s), got ", args.size() - 1,
                " (", fn.argument_names[i], " has no default)");
      args.push_back(fn.argument_defaults[i]);
    }
  }
  return Machine(*this, fn, std::move(args), 0, op_counts).run();
}

std::vector<IValue*> BytecodeUnit::constants() {
  std::vector<IValue*> out;
  for (auto& [name, fn] : functions_)
    for (IValue& c : fn.constants) out.push_back(&c);
  return out;
}

}  // namespace tvk::jit
