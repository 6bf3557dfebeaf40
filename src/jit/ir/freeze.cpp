#include "jit/ir/freeze.h"

#include <set>

#include "jit/ir/graph_recorder.h"
#include "jit/serialization/import.h"

namespace tvk::jit {

namespace {

ValueType annotation_type(const Expr* annotation) {
  if (annotation == nullptr || !annotation->is<NameExpr>()) return ValueType::Any;
  const std::string& n = annotation->as<NameExpr>().id;
  if (n == "Tensor") return ValueType::Tensor;
  if (n == "int") return ValueType::Int;
  if (n == "float") return ValueType::Float;
  if (n == "bool") return ValueType::Bool;
  if (n == "str") return ValueType::Str;
  return ValueType::Any;
}

void set_training(const std::shared_ptr<Object>& obj, const CompilationUnit& unit, std::set<const Object*>& seen) {
  if (!seen.insert(obj.get()).second) return;
  const ClassInfo* cls = unit.find_class(obj->type_name);
  if (cls == nullptr || !cls->is_module) return;
  if (obj->find("training")) obj->set("training", IValue(false));
  for (auto& [name, v] : obj->attributes)
    if (v.isObject()) set_training(v.toObject(), unit, seen);
}

}  // namespace

void set_eval_mode(ModuleState& state) {
  std::set<const Object*> seen;
  set_training(state.root, *state.unit, seen);
}

bool frozen_as_none(const Param& p) {
  return p.default_value && p.default_value->is<ConstantExpr>() &&
         p.default_value->as<ConstantExpr>().type == ConstantExpr::Type::None;
}

std::unique_ptr<Graph> freeze_method(ModuleState& state, const std::string& method,
                                     const std::vector<std::optional<DType>>& input_dtypes) {
  const ClassInfo* cls = state.unit->find_class(state.root->type_name);
  const FunctionDef* fn = cls ? cls->method(method) : nullptr;
  if (fn == nullptr) throw Error(detail::concat(state.root->type_name, " has no method '", method, "' to freeze"));

  auto graph = std::make_unique<Graph>();
  GraphRecorder recorder(*graph);
  Stack args;
  args.emplace_back(state.root);
  for (size_t i = 1; i < fn->params.size(); ++i) {
    const Param& p = fn->params[i];
    if (frozen_as_none(p)) {
      args.emplace_back();
      continue;
    }
    Value* input = graph->add_input(p.name, annotation_type(p.annotation.get()));
    if (i - 1 < input_dtypes.size()) input->dtype = input_dtypes[i - 1];
    if (p.default_value && p.default_value->is<ConstantExpr>()) {  // a number, a string
      const auto& c = p.default_value->as<ConstantExpr>();
      switch (c.type) {
        case ConstantExpr::Type::Bool: input->default_value = IValue(c.bool_value); break;
        case ConstantExpr::Type::Int: input->default_value = IValue(c.int_value); break;
        case ConstantExpr::Type::Float: input->default_value = IValue(c.float_value); break;
        case ConstantExpr::Type::String: input->default_value = IValue(c.string_value); break;
        default: break;
      }
    }
    args.push_back(recorder.wrap(input));
  }
  Interpreter& interpreter = *state.interpreter;
  interpreter.attach(&recorder);
  IValue result;
  try {
    result = interpreter.call_function(*fn, state.root->type_name + "." + method, std::move(args), {});
  } catch (...) {
    interpreter.attach(nullptr);
    throw;
  }
  interpreter.attach(nullptr);
  graph->outputs().push_back(recorder.to_arg(result));
  return graph;
}

}  // namespace tvk::jit
