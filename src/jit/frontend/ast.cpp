// Operator spellings, look-ups and the S-expression dump of the TorchScript syntax tree.
#include "jit/frontend/ast.h"

#include <cstdio>
#include <sstream>

namespace tvk::jit {

std::string_view spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Not: return "not";
    case UnaryOp::Neg: return "-";
    case UnaryOp::Pos: return "+";
    case UnaryOp::Invert: return "~";
  }
  return "?";
}

std::string_view spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::MatMul: return "@";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::LShift: return "<<";
    case BinaryOp::RShift: return ">>";
  }
  return "?";
}

std::string_view spelling(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "==";
    case CompareOp::NotEq: return "!=";
    case CompareOp::Lt: return "<";
    case CompareOp::LtE: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::GtE: return ">=";
    case CompareOp::Is: return "is";
    case CompareOp::IsNot: return "is not";
    case CompareOp::In: return "in";
    case CompareOp::NotIn: return "not in";
  }
  return "?";
}

std::string_view spelling(BoolOp op) { return op == BoolOp::And ? "and" : "or"; }

const FunctionDef* ClassDef::find_method(std::string_view method) const {
  for (const StmtPtr& s : body) {
    if (s->is<FunctionDef>() && s->as<FunctionDef>().name == method) return &s->as<FunctionDef>();
  }
  return nullptr;
}

const ClassDef* SourceModule::find_class(std::string_view name) const {
  for (const StmtPtr& s : body) {
    if (s->is<ClassDef>() && s->as<ClassDef>().name == name) return &s->as<ClassDef>();
  }
  return nullptr;
}

const FunctionDef* SourceModule::find_function(std::string_view name) const {
  for (const StmtPtr& s : body) {
    if (s->is<FunctionDef>() && s->as<FunctionDef>().name == name) return &s->as<FunctionDef>();
  }
  return nullptr;
}

namespace {

// Writes the S-expression form; recursion depth is bounded by the parser's nesting limit.
class Dumper {
 public:
  std::string str() const { return out_.str(); }

  void expr(const Expr* e) {
    if (!e) {
      out_ << "_";
      return;
    }
    switch (e->kind) {
      case ExprKind::Name:
        out_ << "(name " << e->as<NameExpr>().id << ")";
        break;
      case ExprKind::Constant:
        constant(e->as<ConstantExpr>());
        break;
      case ExprKind::Attribute: {
        const auto& a = e->as<AttributeExpr>();
        out_ << "(attr ";
        expr(a.value.get());
        out_ << " " << a.attr << ")";
        break;
      }
      case ExprKind::Subscript: {
        const auto& s = e->as<SubscriptExpr>();
        out_ << "(subscript ";
        expr(s.value.get());
        list(s.indices);
        out_ << ")";
        break;
      }
      case ExprKind::Slice: {
        const auto& s = e->as<SliceExpr>();
        out_ << "(slice ";
        expr(s.lower.get());
        out_ << " ";
        expr(s.upper.get());
        out_ << " ";
        expr(s.step.get());
        out_ << ")";
        break;
      }
      case ExprKind::Call: {
        const auto& c = e->as<CallExpr>();
        out_ << "(call ";
        expr(c.func.get());
        list(c.args);
        for (const Keyword& k : c.keywords) {
          out_ << " (kw " << k.name << " ";
          expr(k.value.get());
          out_ << ")";
        }
        out_ << ")";
        break;
      }
      case ExprKind::Tuple:
        out_ << "(tuple";
        list(e->as<TupleExpr>().elements);
        out_ << ")";
        break;
      case ExprKind::List:
        out_ << "(list";
        list(e->as<ListExpr>().elements);
        out_ << ")";
        break;
      case ExprKind::Dict: {
        const auto& d = e->as<DictExpr>();
        out_ << "(dict";
        for (std::size_t i = 0; i < d.keys.size(); ++i) {
          out_ << " ";
          expr(d.keys[i].get());
          out_ << ":";
          expr(d.values[i].get());
        }
        out_ << ")";
        break;
      }
      case ExprKind::Unary: {
        const auto& u = e->as<UnaryExpr>();
        out_ << "(" << spelling(u.op) << " ";
        expr(u.operand.get());
        out_ << ")";
        break;
      }
      case ExprKind::Binary: {
        const auto& b = e->as<BinaryExpr>();
        out_ << "(" << spelling(b.op) << " ";
        expr(b.left.get());
        out_ << " ";
        expr(b.right.get());
        out_ << ")";
        break;
      }
      case ExprKind::Compare: {
        const auto& c = e->as<CompareExpr>();
        out_ << "(compare ";
        expr(c.left.get());
        for (std::size_t i = 0; i < c.ops.size(); ++i) {
          out_ << " " << spelling(c.ops[i]) << " ";
          expr(c.comparators[i].get());
        }
        out_ << ")";
        break;
      }
      case ExprKind::BoolOp: {
        const auto& b = e->as<BoolOpExpr>();
        out_ << "(" << spelling(b.op);
        list(b.values);
        out_ << ")";
        break;
      }
      case ExprKind::IfExp: {
        const auto& i = e->as<IfExpExpr>();
        out_ << "(ifexp ";
        expr(i.test.get());
        out_ << " ";
        expr(i.body.get());
        out_ << " ";
        expr(i.orelse.get());
        out_ << ")";
        break;
      }
      case ExprKind::ListComp: {
        const auto& c = e->as<ListCompExpr>();
        out_ << "(listcomp ";
        expr(c.element.get());
        out_ << " for ";
        expr(c.target.get());
        out_ << " in ";
        expr(c.iter.get());
        out_ << ")";
        break;
      }
      case ExprKind::DictComp: {
        const auto& c = e->as<DictCompExpr>();
        out_ << "(dictcomp ";
        expr(c.key.get());
        out_ << ":";
        expr(c.value.get());
        out_ << " for ";
        expr(c.target.get());
        out_ << " in ";
        expr(c.iter.get());
        out_ << ")";
        break;
      }
    }
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Expr:
        out_ << "(expr ";
        expr(s.as<ExprStmt>().value.get());
        out_ << ")";
        break;
      case StmtKind::Assign: {
        const auto& a = s.as<AssignStmt>();
        out_ << "(assign";
        list(a.targets);
        out_ << " ";
        expr(a.value.get());
        out_ << ")";
        break;
      }
      case StmtKind::AnnAssign: {
        const auto& a = s.as<AnnAssignStmt>();
        out_ << "(annassign ";
        expr(a.target.get());
        out_ << " ";
        expr(a.annotation.get());
        out_ << " ";
        expr(a.value.get());
        out_ << ")";
        break;
      }
      case StmtKind::AugAssign: {
        const auto& a = s.as<AugAssignStmt>();
        out_ << "(augassign " << spelling(a.op) << " ";
        expr(a.target.get());
        out_ << " ";
        expr(a.value.get());
        out_ << ")";
        break;
      }
      case StmtKind::If: {
        const auto& i = s.as<IfStmt>();
        out_ << "(if ";
        expr(i.test.get());
        block(i.body);
        block(i.orelse);
        out_ << ")";
        break;
      }
      case StmtKind::For: {
        const auto& f = s.as<ForStmt>();
        out_ << "(for ";
        expr(f.target.get());
        out_ << " ";
        expr(f.iter.get());
        block(f.body);
        out_ << ")";
        break;
      }
      case StmtKind::While: {
        const auto& w = s.as<WhileStmt>();
        out_ << "(while ";
        expr(w.test.get());
        block(w.body);
        out_ << ")";
        break;
      }
      case StmtKind::With: {
        const auto& w = s.as<WithStmt>();
        out_ << "(with";
        for (const WithItem& item : w.items) {
          out_ << " ";
          expr(item.context.get());
          out_ << " as ";
          expr(item.target.get());
        }
        block(w.body);
        out_ << ")";
        break;
      }
      case StmtKind::Return:
        out_ << "(return ";
        expr(s.as<ReturnStmt>().value.get());
        out_ << ")";
        break;
      case StmtKind::Raise:
        out_ << "(raise ";
        expr(s.as<RaiseStmt>().exception.get());
        out_ << ")";
        break;
      case StmtKind::Assert:
        out_ << "(assert ";
        expr(s.as<AssertStmt>().test.get());
        out_ << " ";
        expr(s.as<AssertStmt>().message.get());
        out_ << ")";
        break;
      case StmtKind::Pass: out_ << "(pass)"; break;
      case StmtKind::Break: out_ << "(break)"; break;
      case StmtKind::Continue: out_ << "(continue)"; break;
      case StmtKind::Delete:
        out_ << "(del";
        list(s.as<DeleteStmt>().targets);
        out_ << ")";
        break;
      case StmtKind::Global:
        out_ << "(global";
        for (const std::string& n : s.as<GlobalStmt>().names) out_ << " " << n;
        out_ << ")";
        break;
      case StmtKind::Import: {
        const auto& i = s.as<ImportStmt>();
        out_ << "(import";
        if (!i.from_module.empty()) out_ << " from " << i.from_module;
        for (const ImportStmt::Alias& a : i.names) out_ << " " << a.name << (a.as.empty() ? "" : " as " + a.as);
        out_ << ")";
        break;
      }
      case StmtKind::FunctionDef: {
        const auto& f = s.as<FunctionDef>();
        out_ << "(def " << f.name << " (";
        for (std::size_t i = 0; i < f.params.size(); ++i) {
          const Param& p = f.params[i];
          out_ << (i ? " " : "") << "(" << (p.keyword_only ? "*" : "") << p.name << " ";
          expr(p.annotation.get());
          out_ << " ";
          expr(p.default_value.get());
          out_ << ")";
        }
        out_ << ") ";
        expr(f.returns.get());
        block(f.body);
        out_ << ")";
        break;
      }
      case StmtKind::ClassDef: {
        const auto& c = s.as<ClassDef>();
        out_ << "(class " << c.name << " (";
        for (std::size_t i = 0; i < c.bases.size(); ++i) {
          if (i) out_ << " ";
          expr(c.bases[i].get());
        }
        out_ << ")";
        block(c.body);
        out_ << ")";
        break;
      }
    }
  }

 private:
  void list(const std::vector<ExprPtr>& items) {
    for (const ExprPtr& e : items) {
      out_ << " ";
      expr(e.get());
    }
  }

  void block(const Block& b) {
    out_ << " [";
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (i) out_ << " ";
      stmt(*b[i]);
    }
    out_ << "]";
  }

  void constant(const ConstantExpr& c) {
    switch (c.type) {
      case ConstantExpr::Type::None: out_ << "None"; break;
      case ConstantExpr::Type::Bool: out_ << (c.bool_value ? "True" : "False"); break;
      case ConstantExpr::Type::Int: out_ << "(int " << c.int_value << ")"; break;
      case ConstantExpr::Type::Float: out_ << "(float " << number(c.float_value) << ")"; break;
      case ConstantExpr::Type::Complex: out_ << "(complex " << number(c.float_value) << ")"; break;
      case ConstantExpr::Type::String: out_ << "(str \"" << c.string_value << "\")"; break;
      case ConstantExpr::Type::Ellipsis: out_ << "..."; break;
    }
  }

  static std::string number(double d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
  }

  std::ostringstream out_;
};

}  // namespace

std::string dump(const Expr& expr) {
  Dumper d;
  d.expr(&expr);
  return d.str();
}

std::string dump(const Stmt& stmt) {
  Dumper d;
  d.stmt(stmt);
  return d.str();
}

}  // namespace tvk::jit
