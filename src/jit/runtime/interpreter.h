// Interpreter: runs the methods of a loaded TorchScript model by walking their syntax trees.
// Every tensor op goes to the dispatcher; names like `torch.add` resolve to registered ops or
// to the builtins TorchScript code uses on ints, floats, strings and lists.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jit/runtime/compilation_unit.h"
#include "jit/ir/graph_recorder.h"
#include "jit/runtime/op_call.h"

namespace tvk::jit {

// A `raise` / `ops.prim.RaiseException` in the model: the model's own message reaches the caller.
class ScriptException : public Error {
 public:
  ScriptException(std::string python_class, const std::string& message)
      : Error(message), python_class_(std::move(python_class)) {}
  const std::string& python_class() const { return python_class_; }

 private:
  std::string python_class_;
};

class Interpreter {
 public:
  Interpreter(const CompilationUnit& unit, Device device) : unit_(unit), device_(device) {}

  // self.method(args...); throws tvk::Error naming the class when there is no such method.
  IValue call_method(const std::shared_ptr<Object>& self, const std::string& method, Stack args,
                     const Kwargs& kwargs = {});
  IValue call_function(const FunctionDef& fn, const std::string& qualified_name, Stack args, const Kwargs& kwargs);
  // The class constants (Final) and attributes of a script object.
  IValue get_attr(const std::shared_ptr<Object>& self, const std::string& name);

  Device device() const { return device_; }
  // Freezing: with a recorder attached, input-dependent work becomes graph nodes (see
  // jit/ir/graph_recorder.h) instead of running.
  void attach(GraphRecorder* recorder) { recorder_ = recorder; }
  // Freezing a loaded module in place: an assignment to an attribute is an error, since the
  // frozen graph would keep the attribute's value from the recording.
  void forbid_attribute_writes(bool on) { forbid_attribute_writes_ = on; }
  // When set, every op call is counted here by full name ("aten::conv2d"), for `tvk check`.
  void record_ops(std::map<std::string, int64_t>* counts) { op_counts_ = counts; }
  bool recording_ops() const { return op_counts_ != nullptr; }
  std::map<std::string, int64_t>* op_counts() const { return op_counts_; }
  // Bounds the interpreter's native recursion (model calls nesting), so hostile code cannot
  // overflow the stack.
  static constexpr int kMaxCallDepth = 200;

 private:
  struct Frame {
    std::unordered_map<std::string, IValue> vars;
    std::string function;  // for error messages
  };
  // Raised: (freezing only) the block ended in a Raise node; nothing after it runs.
  enum class Flow { Normal, Break, Continue, Return, Raised };

  Flow exec_block(const Block& block, Frame& frame, IValue& result);
  Flow exec(const Stmt& stmt, Frame& frame, IValue& result);
  // Counts a step of the current run; throws tvk::LimitError at `loc` when a limit is reached.
  static void step(const SourceLocation& loc);
  void assign(const Expr& target, IValue value, Frame& frame);
  IValue eval(const Expr& expr, Frame& frame);
  IValue eval_name(const NameExpr& name, Frame& frame);
  IValue eval_attribute(const AttributeExpr& attr, Frame& frame);
  IValue eval_subscript(const SubscriptExpr& sub, Frame& frame);
  IValue eval_call(const CallExpr& call, Frame& frame);
  IValue eval_binary(BinaryOp op, const IValue& a, const IValue& b);
  bool eval_compare(CompareOp op, const IValue& a, const IValue& b);
  IValue call_path(const std::string& path, Stack args, const Kwargs& kwargs, const SourceLocation& loc);
  IValue call_op(const std::string& op_name, Stack args, const Kwargs& kwargs);
  void factory_on_model_device(const ops::OpEntry& op, Stack& bound) const;
  IValue call_value(const IValue& callee, Stack args, const Kwargs& kwargs, const SourceLocation& loc);
  bool matches_type(const Expr& type, const IValue& value);
  // Runs (or, when freezing with dynamic arguments, records) the plain builtin `path`.
  bool builtin(const std::string& path, Stack& args, const Kwargs& kwargs, IValue* result, const SourceLocation& loc);
  bool condition(const IValue& value, const SourceLocation& loc);
  Flow exec_dynamic_if(const IfStmt& s, const IValue& cond, Frame& frame, IValue& result);
  // annotate(number|int|float, v): a 0-D tensor v as the number it holds (or, while freezing, a
  // node converting it); other values unchanged.
  IValue number_of_tensor(const IValue& v, const std::string& type, const SourceLocation& loc);
  Flow exec_range_for(const ForStmt& s, const Stack& bounds, Frame& frame, IValue& result);
  Flow exec_static_for(const ForStmt& s, const IValue& iter, Frame& frame, IValue& result);
  // Freezing a for loop whose length depends on the input (range of an input's size, a list of
  // unknown length): one Loop node, its body recorded once. `trip` is the iteration count and
  // item(i) gives the loop variable for iteration i (both dynamic values).
  Flow exec_dynamic_for(const ForStmt& s, const IValue& trip, const std::function<IValue(const IValue&)>& item,
                        Frame& frame, IValue& result);
  IValue class_constant(const ClassInfo& cls, const std::string& name);

  const CompilationUnit& unit_;
  Device device_;
  std::map<std::string, int64_t>* op_counts_ = nullptr;
  GraphRecorder* recorder_ = nullptr;
  bool forbid_attribute_writes_ = false;
  // Freezing only: a Raise node ended the current block. A freezing interpreter is private to
  // one freeze at a time (ModuleState::graphs_mutex); interpreters that run calls keep no
  // per-call state in members (the call depth is per thread), so threads can share them.
  bool raised_ = false;
};

// A reference to a dotted name (`torch`, `torch.add`, `__torch__.a.b.f`): what Name and
// Attribute expressions evaluate to before a call resolves them.
IValue make_path_ref(const std::string& path);
// The path of a reference made by make_path_ref, or nullptr for any other value.
const std::string* path_of(const IValue& value);

// Truthiness of a condition value (bool, int, float, None, 1-element tensor).
bool truthy(const IValue& value);

}  // namespace tvk::jit
