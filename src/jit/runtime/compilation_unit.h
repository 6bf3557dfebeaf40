// CompilationUnit: the classes and functions of a model's code files, by qualified name, and
// the code constants (CONSTANTS.c0 ...). Owns the parsed syntax trees.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "jit/frontend/ast.h"
#include "tvk/ivalue.h"

namespace tvk::jit {

struct ClassInfo {
  std::string qualified_name;  // "__torch__.torch.nn.modules.conv.Conv2d"
  const ClassDef* def = nullptr;
  std::map<std::string, const FunctionDef*> methods;
  std::map<std::string, const Expr*> constants;  // `x : Final[int] = 3` -> the value expression
  std::vector<std::string> parameters;           // __parameters__
  std::vector<std::string> buffers;              // __buffers__
  std::vector<std::string> declared;             // attribute declarations, in order
  bool is_module = false;                        // derives from Module
  bool is_named_tuple = false;                   // derives from NamedTuple

  const FunctionDef* method(const std::string& name) const;
};

class CompilationUnit {
 public:
  // Adds a parsed file whose definitions live under `qualifier` ("__torch__.torch.nn.modules.conv").
  void add_source(std::shared_ptr<const SourceModule> source, const std::string& qualifier);

  const ClassInfo* find_class(const std::string& qualified_name) const;
  const FunctionDef* find_function(const std::string& qualified_name) const;
  size_t class_count() const { return classes_.size(); }
  // The parsed code files (op_references.h reads every call in them).
  const std::vector<std::shared_ptr<const SourceModule>>& sources() const { return sources_; }

  std::vector<IValue> constants;  // constants.pkl, addressed as CONSTANTS.c<i>
  // The archive's format version: ops whose meaning changed since (integer div, full with an
  // integer fill) keep the meaning of that version when the code runs (Interpreter).
  int64_t format_version = 10;  // code not from an archive: today's meanings

 private:
  std::vector<std::shared_ptr<const SourceModule>> sources_;
  std::map<std::string, ClassInfo> classes_;
  std::map<std::string, const FunctionDef*> functions_;
};

// "code/__torch__/torch/nn/modules/conv.py" -> "__torch__.torch.nn.modules.conv".
std::string qualifier_of_code_record(const std::string& record);

}  // namespace tvk::jit
