#include "jit/runtime/op_references.h"

#include "jit/runtime/builtins.h"
#include "ops/registry.h"

namespace tvk::jit {
namespace {

// "torch.X", "torch.nn.functional.X", "torch._C._nn.X" -> "aten::X"; "ops.NS.X" -> "NS::X"
// (prim ops are the interpreter's own); "" for anything else (methods, classes, builtins).
std::string op_of_call(const Expr& func) {
  std::vector<std::string> parts;
  const Expr* e = &func;
  while (e->is<AttributeExpr>()) {
    parts.insert(parts.begin(), e->as<AttributeExpr>().attr);
    e = e->as<AttributeExpr>().value.get();
  }
  if (!e->is<NameExpr>()) return "";
  const std::string root = e->as<NameExpr>().id;
  std::string path = root;
  for (const std::string& p : parts) path += "." + p;
  if (!builtin_table_name(path).empty()) return "";
  if (root == "torch") {
    const bool plain = parts.size() == 1;
    const bool functional = (parts.size() == 3 && parts[0] == "nn" && parts[1] == "functional") ||
                            (parts.size() == 3 && parts[0] == "_C" && parts[1] == "_nn");
    if (!plain && !functional) return "";
    return "aten::" + parts.back();
  }
  if (root == "ops" && parts.size() == 2 && parts[0] != "prim") return parts[0] + "::" + parts[1];
  return "";
}

// The names the interpreter itself answers under torch.X (not registered ops).
bool interpreter_handles(const std::string& op) {
  return op == "aten::_unwrap_optional" || op == "aten::device" || op == "aten::is_grad_enabled" ||
         op == "aten::is_autocast_enabled" || op == "aten::Float" || op == "aten::Int" || op == "aten::Bool";
}

class Scanner {
 public:
  explicit Scanner(OpReferences& out) : out_(out) {}

  void block(const Block& b) {
    for (const StmtPtr& s : b) stmt(*s);
  }

 private:
  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Expr: expr(s.as<ExprStmt>().value.get()); break;
      case StmtKind::Assign:
        for (const ExprPtr& t : s.as<AssignStmt>().targets) expr(t.get());
        expr(s.as<AssignStmt>().value.get());
        break;
      case StmtKind::AnnAssign: expr(s.as<AnnAssignStmt>().value.get()); break;
      case StmtKind::AugAssign:
        expr(s.as<AugAssignStmt>().target.get());
        expr(s.as<AugAssignStmt>().value.get());
        break;
      case StmtKind::If:
        expr(s.as<IfStmt>().test.get());
        block(s.as<IfStmt>().body);
        block(s.as<IfStmt>().orelse);
        break;
      case StmtKind::For:
        expr(s.as<ForStmt>().iter.get());
        block(s.as<ForStmt>().body);
        break;
      case StmtKind::While:
        expr(s.as<WhileStmt>().test.get());
        block(s.as<WhileStmt>().body);
        break;
      case StmtKind::With:
        for (const WithItem& item : s.as<WithStmt>().items) expr(item.context.get());
        block(s.as<WithStmt>().body);
        break;
      case StmtKind::Return: expr(s.as<ReturnStmt>().value.get()); break;
      case StmtKind::Raise: expr(s.as<RaiseStmt>().exception.get()); break;
      case StmtKind::Assert:
        expr(s.as<AssertStmt>().test.get());
        expr(s.as<AssertStmt>().message.get());
        break;
      case StmtKind::FunctionDef: block(s.as<FunctionDef>().body); break;
      case StmtKind::ClassDef: block(s.as<ClassDef>().body); break;
      default: break;
    }
  }

  void expr(const Expr* e) {
    if (e == nullptr) return;
    switch (e->kind) {
      case ExprKind::Attribute: expr(e->as<AttributeExpr>().value.get()); break;
      case ExprKind::Subscript:
        expr(e->as<SubscriptExpr>().value.get());
        for (const ExprPtr& i : e->as<SubscriptExpr>().indices) expr(i.get());
        break;
      case ExprKind::Slice:
        expr(e->as<SliceExpr>().lower.get());
        expr(e->as<SliceExpr>().upper.get());
        expr(e->as<SliceExpr>().step.get());
        break;
      case ExprKind::Call: {
        const auto& c = e->as<CallExpr>();
        note(op_of_call(*c.func), *e);
        expr(c.func.get());
        for (const ExprPtr& a : c.args) expr(a.get());
        for (const Keyword& k : c.keywords) expr(k.value.get());
        break;
      }
      case ExprKind::Tuple:
        for (const ExprPtr& x : e->as<TupleExpr>().elements) expr(x.get());
        break;
      case ExprKind::List:
        for (const ExprPtr& x : e->as<ListExpr>().elements) expr(x.get());
        break;
      case ExprKind::Dict:
        for (const ExprPtr& x : e->as<DictExpr>().keys) expr(x.get());
        for (const ExprPtr& x : e->as<DictExpr>().values) expr(x.get());
        break;
      case ExprKind::Unary: expr(e->as<UnaryExpr>().operand.get()); break;
      case ExprKind::Binary:
        expr(e->as<BinaryExpr>().left.get());
        expr(e->as<BinaryExpr>().right.get());
        break;
      case ExprKind::Compare:
        expr(e->as<CompareExpr>().left.get());
        for (const ExprPtr& x : e->as<CompareExpr>().comparators) expr(x.get());
        break;
      case ExprKind::BoolOp:
        for (const ExprPtr& x : e->as<BoolOpExpr>().values) expr(x.get());
        break;
      case ExprKind::IfExp:
        expr(e->as<IfExpExpr>().test.get());
        expr(e->as<IfExpExpr>().body.get());
        expr(e->as<IfExpExpr>().orelse.get());
        break;
      case ExprKind::ListComp:
        expr(e->as<ListCompExpr>().element.get());
        expr(e->as<ListCompExpr>().iter.get());
        break;
      case ExprKind::DictComp:
        expr(e->as<DictCompExpr>().key.get());
        expr(e->as<DictCompExpr>().value.get());
        expr(e->as<DictCompExpr>().iter.get());
        break;
      default: break;
    }
  }

  void note(const std::string& op, const Expr& at) {
    if (op.empty() || interpreter_handles(op)) return;
    const std::vector<const ops::OpEntry*> entries = ops::Registry::global().overloads(op);
    bool vulkan = false;
    for (const ops::OpEntry* entry : entries) vulkan = vulkan || entry->supports(Device::Vulkan);
    auto& table = entries.empty() ? out_.unknown : vulkan ? out_.vulkan : out_.cpu_only;
    table[op].push_back(to_string(at.loc));
  }

  OpReferences& out_;
};

}  // namespace

OpReferences op_references(const CompilationUnit& unit) {
  OpReferences out;
  Scanner scanner(out);
  for (const auto& source : unit.sources()) scanner.block(source->body);
  return out;
}

}  // namespace tvk::jit
