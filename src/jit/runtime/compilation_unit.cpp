#include "jit/runtime/compilation_unit.h"

namespace tvk::jit {

namespace {
// The names of a `__parameters__ = ["weight", "bias", ]` list.
std::vector<std::string> string_list(const Expr& e) {
  std::vector<std::string> out;
  if (!e.is<ListExpr>()) return out;
  for (const ExprPtr& el : e.as<ListExpr>().elements)
    if (el->is<ConstantExpr>() && el->as<ConstantExpr>().type == ConstantExpr::Type::String)
      out.push_back(el->as<ConstantExpr>().string_value);
  return out;
}

bool is_final(const Expr& annotation) {
  return annotation.is<SubscriptExpr>() && annotation.as<SubscriptExpr>().value->is<NameExpr>() &&
         annotation.as<SubscriptExpr>().value->as<NameExpr>().id == "Final";
}
}  // namespace

const FunctionDef* ClassInfo::method(const std::string& name) const {
  auto it = methods.find(name);
  return it == methods.end() ? nullptr : it->second;
}

void CompilationUnit::add_source(std::shared_ptr<const SourceModule> source, const std::string& qualifier) {
  for (const StmtPtr& stmt : source->body) {
    if (stmt->is<FunctionDef>()) {
      const auto& fn = stmt->as<FunctionDef>();
      functions_[qualifier + "." + fn.name] = &fn;
      continue;
    }
    if (!stmt->is<ClassDef>()) continue;
    const auto& cls = stmt->as<ClassDef>();
    ClassInfo info;
    info.qualified_name = qualifier + "." + cls.name;
    info.def = &cls;
    for (const ExprPtr& base : cls.bases)
    {
      if (base->is<NameExpr>() && base->as<NameExpr>().id == "Module") info.is_module = true;
      if (base->is<NameExpr>() && base->as<NameExpr>().id == "NamedTuple") info.is_named_tuple = true;
    }
    for (const StmtPtr& member : cls.body) {
      if (member->is<FunctionDef>()) {
        info.methods[member->as<FunctionDef>().name] = &member->as<FunctionDef>();
      } else if (member->is<AnnAssignStmt>()) {
        const auto& decl = member->as<AnnAssignStmt>();
        if (!decl.target->is<NameExpr>()) continue;
        const std::string& name = decl.target->as<NameExpr>().id;
        if (decl.value && is_final(*decl.annotation)) info.constants[name] = decl.value.get();
        else info.declared.push_back(name);
      } else if (member->is<AssignStmt>()) {
        const auto& assign = member->as<AssignStmt>();
        if (assign.targets.size() != 1 || !assign.targets[0]->is<NameExpr>()) continue;
        const std::string& name = assign.targets[0]->as<NameExpr>().id;
        if (name == "__parameters__") info.parameters = string_list(*assign.value);
        else if (name == "__buffers__") info.buffers = string_list(*assign.value);
      }
    }
    classes_[info.qualified_name] = std::move(info);
  }
  sources_.push_back(std::move(source));
}

const ClassInfo* CompilationUnit::find_class(const std::string& name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

const FunctionDef* CompilationUnit::find_function(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

std::string qualifier_of_code_record(const std::string& record) {
  std::string path = record;
  if (path.rfind("code/", 0) == 0) path = path.substr(5);
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0) path.resize(path.size() - 3);
  for (char& c : path)
    if (c == '/') c = '.';
  return path;
}

}  // namespace tvk::jit
