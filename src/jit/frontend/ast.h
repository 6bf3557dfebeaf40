// Syntax tree of TorchScript source: expressions, statements, and a parsed code file.
//
// Every node has a `kind` and a `loc`; walk with a switch on `kind` and `node.as<ConcreteType>()`.
// Children are owned by unique_ptr; the tree is immutable once parse_source returns it. Type
// annotations are ordinary expressions (`Optional[List[int]]` is a Subscript of a Name).
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jit/frontend/source_location.h"

namespace tvk::jit {

// ---- expressions -----------------------------------------------------------------------------

enum class ExprKind {
  Name,       // x, torch, __torch__
  Constant,   // None True 1 2.5 3j "s" ...
  Attribute,  // value.attr
  Subscript,  // value[index, ...]
  Slice,      // lower:upper:step, only as a Subscript index
  Call,       // func(args..., name=value...)
  Tuple,      // (a, b)   a, b   ()
  List,       // [a, b]
  Dict,       // {k: v}
  Unary,      // not x, -x, +x, ~x
  Binary,     // a + b ...
  Compare,    // a < b <= c, a is not b, a not in b
  BoolOp,     // a and b and c
  IfExp,      // body if test else orelse
  ListComp,   // [elt for target in iter]
  DictComp,   // {key: value for target in iter}
};

enum class UnaryOp { Not, Neg, Pos, Invert };
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitOr, BitXor, LShift, RShift };
enum class CompareOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };
enum class BoolOp { And, Or };

// Python spelling of an operator: "not", "-", "//", "is not", "and".
std::string_view spelling(UnaryOp op);
std::string_view spelling(BinaryOp op);
std::string_view spelling(CompareOp op);
std::string_view spelling(BoolOp op);

struct Expr {
  Expr(ExprKind k, SourceLocation l) : kind(k), loc(std::move(l)) {}
  virtual ~Expr() = default;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  template <typename T>
  bool is() const { return kind == T::kKind; }
  template <typename T>
  const T& as() const {
    assert(is<T>());
    return static_cast<const T&>(*this);
  }

  const ExprKind kind;
  const SourceLocation loc;
};
using ExprPtr = std::unique_ptr<Expr>;

template <ExprKind K>
struct ExprNode : Expr {
  static constexpr ExprKind kKind = K;
  explicit ExprNode(SourceLocation l) : Expr(K, std::move(l)) {}
};

struct NameExpr : ExprNode<ExprKind::Name> {
  using ExprNode::ExprNode;
  std::string id;
};

struct ConstantExpr : ExprNode<ExprKind::Constant> {
  // `inf` and `nan` are not constants but Names (the importer's environment defines them).
  enum class Type { None, Bool, Int, Float, Complex, String, Ellipsis };
  using ExprNode::ExprNode;
  Type type = Type::None;
  bool bool_value = false;
  std::int64_t int_value = 0;
  double float_value = 0;  // Float: the value; Complex: the imaginary part (the real part is 0)
  std::string string_value;
};

struct AttributeExpr : ExprNode<ExprKind::Attribute> {
  using ExprNode::ExprNode;
  ExprPtr value;
  std::string attr;
};

struct SubscriptExpr : ExprNode<ExprKind::Subscript> {
  using ExprNode::ExprNode;
  ExprPtr value;
  // `x[a]` has one index, `x[a, b]` and `Tuple[int, int]` two; `x[(a, b)]` one Tuple index.
  // An index may be a SliceExpr.
  std::vector<ExprPtr> indices;
};

struct SliceExpr : ExprNode<ExprKind::Slice> {
  using ExprNode::ExprNode;
  ExprPtr lower, upper, step;  // each may be null
};

struct Keyword {
  SourceLocation loc;
  std::string name;
  ExprPtr value;
};

struct CallExpr : ExprNode<ExprKind::Call> {
  using ExprNode::ExprNode;
  ExprPtr func;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;  // after every positional argument, in source order
};

struct TupleExpr : ExprNode<ExprKind::Tuple> {
  using ExprNode::ExprNode;
  std::vector<ExprPtr> elements;
};

struct ListExpr : ExprNode<ExprKind::List> {
  using ExprNode::ExprNode;
  std::vector<ExprPtr> elements;
};

struct DictExpr : ExprNode<ExprKind::Dict> {
  using ExprNode::ExprNode;
  std::vector<ExprPtr> keys, values;  // same length, source order
};

struct UnaryExpr : ExprNode<ExprKind::Unary> {
  using ExprNode::ExprNode;
  UnaryOp op = UnaryOp::Not;
  ExprPtr operand;
};

struct BinaryExpr : ExprNode<ExprKind::Binary> {
  using ExprNode::ExprNode;
  BinaryOp op = BinaryOp::Add;
  ExprPtr left, right;
};

// `a < b <= c` means `a < b and b <= c` with b evaluated once.
struct CompareExpr : ExprNode<ExprKind::Compare> {
  using ExprNode::ExprNode;
  ExprPtr left;
  std::vector<CompareOp> ops;
  std::vector<ExprPtr> comparators;  // same length as ops
};

struct BoolOpExpr : ExprNode<ExprKind::BoolOp> {
  using ExprNode::ExprNode;
  BoolOp op = BoolOp::And;
  std::vector<ExprPtr> values;  // at least two, short-circuit left to right
};

struct IfExpExpr : ExprNode<ExprKind::IfExp> {
  using ExprNode::ExprNode;
  ExprPtr test, body, orelse;
};

struct ListCompExpr : ExprNode<ExprKind::ListComp> {
  using ExprNode::ExprNode;
  ExprPtr element, target, iter;
};

struct DictCompExpr : ExprNode<ExprKind::DictComp> {
  using ExprNode::ExprNode;
  ExprPtr key, value, target, iter;
};

// ---- statements ------------------------------------------------------------------------------

enum class StmtKind {
  Expr, Assign, AnnAssign, AugAssign, If, For, While, With, Return, Raise, Assert,
  Pass, Break, Continue, Delete, Global, Import, FunctionDef, ClassDef,
};

struct Stmt {
  Stmt(StmtKind k, SourceLocation l) : kind(k), loc(std::move(l)) {}
  virtual ~Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  template <typename T>
  bool is() const { return kind == T::kKind; }
  template <typename T>
  const T& as() const {
    assert(is<T>());
    return static_cast<const T&>(*this);
  }

  const StmtKind kind;
  const SourceLocation loc;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;  // never empty after parsing (`pass` stands for nothing)

template <StmtKind K>
struct StmtNode : Stmt {
  static constexpr StmtKind kKind = K;
  explicit StmtNode(SourceLocation l) : Stmt(K, std::move(l)) {}
};

struct ExprStmt : StmtNode<StmtKind::Expr> {
  using StmtNode::StmtNode;
  ExprPtr value;
};

// `a = v`, `a, b, = v` (target is a Tuple), `a = b = v` (two targets, assigned left to right).
// Targets are Name, Tuple/List of targets, Attribute or Subscript expressions.
struct AssignStmt : StmtNode<StmtKind::Assign> {
  using StmtNode::StmtNode;
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

// `x : T = v`, or the declaration `x : T` (value null) as in class bodies.
struct AnnAssignStmt : StmtNode<StmtKind::AnnAssign> {
  using StmtNode::StmtNode;
  ExprPtr target, annotation, value;
};

struct AugAssignStmt : StmtNode<StmtKind::AugAssign> {
  using StmtNode::StmtNode;
  ExprPtr target;
  BinaryOp op = BinaryOp::Add;
  ExprPtr value;
};

// `elif` is an IfStmt alone in the orelse block. An absent `else` leaves orelse empty.
struct IfStmt : StmtNode<StmtKind::If> {
  using StmtNode::StmtNode;
  ExprPtr test;
  Block body, orelse;
};

struct ForStmt : StmtNode<StmtKind::For> {
  using StmtNode::StmtNode;
  ExprPtr target, iter;
  Block body;
};

struct WhileStmt : StmtNode<StmtKind::While> {
  using StmtNode::StmtNode;
  ExprPtr test;
  Block body;
};

struct WithItem {
  ExprPtr context;
  ExprPtr target;  // `as` target, may be null
};

struct WithStmt : StmtNode<StmtKind::With> {
  using StmtNode::StmtNode;
  std::vector<WithItem> items;
  Block body;
};

struct ReturnStmt : StmtNode<StmtKind::Return> {
  using StmtNode::StmtNode;
  ExprPtr value;  // null for a bare `return`
};

struct RaiseStmt : StmtNode<StmtKind::Raise> {
  using StmtNode::StmtNode;
  ExprPtr exception;  // null for a bare `raise`
};

struct AssertStmt : StmtNode<StmtKind::Assert> {
  using StmtNode::StmtNode;
  ExprPtr test, message;  // message may be null
};

struct PassStmt : StmtNode<StmtKind::Pass> {
  using StmtNode::StmtNode;
};

struct BreakStmt : StmtNode<StmtKind::Break> {
  using StmtNode::StmtNode;
};

struct ContinueStmt : StmtNode<StmtKind::Continue> {
  using StmtNode::StmtNode;
};

struct DeleteStmt : StmtNode<StmtKind::Delete> {
  using StmtNode::StmtNode;
  std::vector<ExprPtr> targets;
};

struct GlobalStmt : StmtNode<StmtKind::Global> {
  using StmtNode::StmtNode;
  std::vector<std::string> names;
};

// `import a.b as c` (module empty, one name "a.b" alias "c"), `from typing import List, Tuple`.
// The importer ignores these; they are kept so nothing in a file goes unaccounted for.
struct ImportStmt : StmtNode<StmtKind::Import> {
  struct Alias {
    std::string name, as;
  };
  using StmtNode::StmtNode;
  std::string from_module;
  std::vector<Alias> names;
};

struct Param {
  SourceLocation loc;
  std::string name;
  ExprPtr annotation;     // may be null (e.g. `self` in hand-written code)
  ExprPtr default_value;  // may be null
  bool keyword_only = false;  // after a bare `*`
};

struct FunctionDef : StmtNode<StmtKind::FunctionDef> {
  using StmtNode::StmtNode;
  std::string name;
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  ExprPtr returns;  // `-> T`, may be null
  Block body;
};

// A class body holds AnnAssign declarations (`training : bool`, `k : Final[int] = 3`), Assigns
// (`__parameters__ = ["weight", ]`, `__annotations__["0"] = T`, enum members), FunctionDefs
// and `pass`.
struct ClassDef : StmtNode<StmtKind::ClassDef> {
  using StmtNode::StmtNode;
  std::string name;
  std::vector<ExprPtr> decorators;
  std::vector<ExprPtr> bases;  // Module, NamedTuple, Enum, Interface, ModuleInterface, ...
  Block body;

  const FunctionDef* find_method(std::string_view method) const;
};

// One parsed code file: its top-level statements (classes, functions, imports, and legacy
// `op_version_set = N` assignments) in source order.
struct SourceModule {
  std::string filename;
  Block body;

  const ClassDef* find_class(std::string_view name) const;
  const FunctionDef* find_function(std::string_view name) const;
};

// An S-expression rendering of a subtree, for tests and debugging, e.g.
// `(call (attr (name torch) add) (name x) (int 1) (kw alpha (float 2)))`.
std::string dump(const Expr& expr);
std::string dump(const Stmt& stmt);

}  // namespace tvk::jit
