// PyTorch Mobile bytecode (bytecode.pkl of a lite-interpreter file), for files that carry no
// TorchScript source (no code/): its functions run on a register machine as PyTorch's mobile
// interpreter runs them (torch/csrc/jit/mobile/interpreter.cpp). Files that have code/ beside
// their bytecode load from the source instead, which the freezer and optimizer understand.
//
// bytecode.pkl is a tuple: the bytecode version (3 to 9), then one entry per function,
//   (qualified name, (("instructions", ((opcode, X, N), ...)), ("operators", ((name,
//    overload[, number of arguments given]), ...)), ("constants", (...)), ("types", (...)),
//    ("register_size", n))[, (("arguments", ...), ("returns", ...))])
// Everything in it is checked when loaded or when run: an index out of range, a stack that
// would underflow or a register outside the function's is a tvk::Error naming the function
// and the instruction.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"
#include "ops/registry.h"

namespace tvk::jit {

enum class BytecodeOp {
  OP, OPN, LOAD, MOVE, STORE, STOREN, DROP, DROPR, LOADC, GET_ATTR, SET_ATTR, JF, JMP, LOOP, RET, WARN,
  LIST_CONSTRUCT, LIST_UNPACK, TUPLE_CONSTRUCT, TUPLE_SLICE, TUPLE_INDEX, DICT_CONSTRUCT, DICT_INDEX,
  NAMED_TUPLE_CONSTRUCT, CREATE_OBJECT, RAISE_EXCEPTION, IS, ISNOT, NOT, UN_INITIALIZED, FORMAT, DEVICE,
  DTYPE, DIM, NUM_TO_TENSOR, IS_CUDA, INTERFACE_CALL, CALL
};

struct BytecodeInstruction {
  BytecodeOp op;
  int64_t x = 0, n = 0;
};

// An operator of a function's table: a registered op, a builtin (len, __getitem__, add.int...)
// or one of the prim ops handled inline.
struct BytecodeOperator {
  std::string name;                   // "aten::add.Tensor"
  const ops::OpEntry* op = nullptr;   // a registered op
  std::string builtin;                // or a builtin's table name
  int64_t given = -1;                 // arguments the code pushes (the rest take defaults); -1: all
};

struct BytecodeFunction {
  std::string name;  // "__torch__.Net.forward"
  std::vector<BytecodeInstruction> instructions;
  std::vector<BytecodeOperator> operators;
  std::vector<IValue> constants;
  std::vector<std::string> types;
  int64_t register_size = 0;
  // From the schema (bytecode 6 and later): argument names (self first) and defaults.
  std::vector<std::string> argument_names;
  std::vector<IValue> argument_defaults;
  std::vector<bool> has_default;
};

class BytecodeUnit {
 public:
  // Reads `bytecode.pkl`; `hooks` load its tensors' storages and rebuild custom classes.
  static std::shared_ptr<BytecodeUnit> load(const ZipReader& zip, const std::string& path, UnpicklerHooks hooks);

  int64_t version() const { return version_; }
  // nullptr when the file has no such function.
  const BytecodeFunction* find(const std::string& qualified_name) const;
  std::vector<std::string> methods_of(const std::string& class_name) const;
  // Runs `fn` on `args` (self first) and returns what it returns; `op_counts` (tvk check)
  // counts the registered ops it calls.
  IValue run(const BytecodeFunction& fn, Stack args, std::map<std::string, int64_t>* op_counts = nullptr) const;
  // Every constant, for moving tensors to a device.
  std::vector<IValue*> constants();

 private:
  int64_t version_ = 0;
  std::map<std::string, BytecodeFunction> functions_;
};

}  // namespace tvk::jit
