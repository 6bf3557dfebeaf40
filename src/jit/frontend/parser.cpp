// The TorchScript parser: Python's grammar and operator precedence over the lexer's tokens, for
// the statements and expressions that python_print writes (and the rest of TorchScript's subset).
#include "jit/frontend/parser.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "jit/frontend/lexer.h"

namespace tvk::jit {
namespace {

template <typename T>
std::unique_ptr<T> make(const SourceLocation& loc) {
  return std::make_unique<T>(loc);
}

std::unique_ptr<ConstantExpr> make_constant(const SourceLocation& loc, ConstantExpr::Type type) {
  auto c = make<ConstantExpr>(loc);
  c->type = type;
  return c;
}

// Binary operators by precedence, loosest first: | ^ & (<< >>) (+ -) (* / // % @).
struct BinaryOperator {
  BinaryOp op;
  int precedence;
};

bool binary_operator(TokenKind kind, BinaryOperator& out) {
  switch (kind) {
    case TokenKind::Pipe: out = {BinaryOp::BitOr, 1}; return true;
    case TokenKind::Caret: out = {BinaryOp::BitXor, 2}; return true;
    case TokenKind::Amp: out = {BinaryOp::BitAnd, 3}; return true;
    case TokenKind::LeftShift: out = {BinaryOp::LShift, 4}; return true;
    case TokenKind::RightShift: out = {BinaryOp::RShift, 4}; return true;
    case TokenKind::Plus: out = {BinaryOp::Add, 5}; return true;
    case TokenKind::Minus: out = {BinaryOp::Sub, 5}; return true;
    case TokenKind::Star: out = {BinaryOp::Mul, 6}; return true;
    case TokenKind::Slash: out = {BinaryOp::Div, 6}; return true;
    case TokenKind::DoubleSlash: out = {BinaryOp::FloorDiv, 6}; return true;
    case TokenKind::Percent: out = {BinaryOp::Mod, 6}; return true;
    case TokenKind::At: out = {BinaryOp::MatMul, 6}; return true;
    default: return false;
  }
}
constexpr int kLoosestBinaryPrecedence = 1;

bool augmented_assignment(TokenKind kind, BinaryOp& out) {
  switch (kind) {
    case TokenKind::PlusAssign: out = BinaryOp::Add; return true;
    case TokenKind::MinusAssign: out = BinaryOp::Sub; return true;
    case TokenKind::StarAssign: out = BinaryOp::Mul; return true;
    case TokenKind::SlashAssign: out = BinaryOp::Div; return true;
    case TokenKind::DoubleSlashAssign: out = BinaryOp::FloorDiv; return true;
    case TokenKind::PercentAssign: out = BinaryOp::Mod; return true;
    case TokenKind::DoubleStarAssign: out = BinaryOp::Pow; return true;
    case TokenKind::AmpAssign: out = BinaryOp::BitAnd; return true;
    case TokenKind::PipeAssign: out = BinaryOp::BitOr; return true;
    case TokenKind::CaretAssign: out = BinaryOp::BitXor; return true;
    case TokenKind::LeftShiftAssign: out = BinaryOp::LShift; return true;
    case TokenKind::RightShiftAssign: out = BinaryOp::RShift; return true;
    case TokenKind::AtAssign: out = BinaryOp::MatMul; return true;
    default: return false;
  }
}

bool starts_expression(TokenKind kind) {
  switch (kind) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Imaginary:
    case TokenKind::String:
    case TokenKind::LParen:
    case TokenKind::LBracket:
    case TokenKind::LBrace:
    case TokenKind::Minus:
    case TokenKind::Plus:
    case TokenKind::Tilde:
    case TokenKind::Ellipsis:
    case TokenKind::KwNot:
    case TokenKind::KwNone:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
      return true;
    default:
      return false;
  }
}

// Python keywords with no meaning in TorchScript: named in the error instead of "unexpected".
bool is_unsupported_keyword(TokenKind kind) {
  switch (kind) {
    case TokenKind::KwAsync:
    case TokenKind::KwAwait:
    case TokenKind::KwExcept:
    case TokenKind::KwFinally:
    case TokenKind::KwLambda:
    case TokenKind::KwNonlocal:
    case TokenKind::KwTry:
    case TokenKind::KwYield:
      return true;
    default:
      return false;
  }
}

// The keywords are one contiguous block of TokenKind, KwAnd first and KwYield last.
bool is_keyword(TokenKind kind) { return kind >= TokenKind::KwAnd && kind <= TokenKind::KwYield; }

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string filename) : tokens_(std::move(tokens)), filename_(std::move(filename)) {}

  std::shared_ptr<const SourceModule> parse_module() {
    auto module = std::make_shared<SourceModule>();
    module->filename = filename_;
    while (!at(TokenKind::EndOfFile)) parse_statement(module->body);
    return module;
  }

  ExprPtr parse_lone_expression() {
    ExprPtr e = parse_testlist();
    accept(TokenKind::Newline);
    expect(TokenKind::EndOfFile, "end of input after the expression");
    return e;
  }

 private:
  // Counts nesting (blocks, bracketed and operator-nested expressions) so that hostile input
  // fails with a ParseError instead of exhausting the stack, here or in whatever walks the tree.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser& parser) : parser_(parser) {}
    DepthGuard(Parser& parser, const SourceLocation& loc) : parser_(parser) { enter(loc); }
    ~DepthGuard() { parser_.depth_ -= levels_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

    void enter(const SourceLocation& loc) {
      ++parser_.depth_;
      ++levels_;
      if (parser_.depth_ > kMaxNestingDepth)
        throw ParseError(loc, "code is nested too deeply (limit " + std::to_string(kMaxNestingDepth) + " levels)");
    }

   private:
    Parser& parser_;
    int levels_ = 0;
  };

  // ---- token cursor --------------------------------------------------------------------------

  // The lexer always ends with END_OF_FILE; looking past it keeps returning it.
  const Token& peek(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  const Token& take() {
    const Token& t = peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool accept(TokenKind kind) {
    if (!at(kind)) return false;
    take();
    return true;
  }
  const Token& expect(TokenKind kind, std::string_view what) {
    if (!at(kind)) fail_expected(what);
    return take();
  }
  const Token& expect(TokenKind kind) {
    if (!at(kind)) fail_expected(describe(kind));
    return take();
  }
  std::string expect_name(std::string_view what) {
    if (!at(TokenKind::Name)) fail_expected(what);
    return take().text;
  }

  [[noreturn]] void fail(const SourceLocation& loc, std::string what) const { throw ParseError(loc, std::move(what)); }
  [[noreturn]] void fail_expected(std::string_view what) const {
    const Token& t = peek();
    if (is_unsupported_keyword(t.kind)) fail(t.loc, describe(t) + " is not supported in TorchScript");
    if (t.kind == TokenKind::Indent) fail(t.loc, "unexpected indent");
    fail(t.loc, "expected " + std::string(what) + ", found " + describe(t));
  }

  // ---- statements ----------------------------------------------------------------------------

  void parse_statement(Block& out) {
    switch (peek().kind) {
      case TokenKind::At:
      case TokenKind::KwDef:
      case TokenKind::KwClass:
        out.push_back(parse_definition());
        return;
      case TokenKind::KwIf:
        out.push_back(parse_if());
        return;
      case TokenKind::KwFor:
        out.push_back(parse_for());
        return;
      case TokenKind::KwWhile:
        out.push_back(parse_while());
        return;
      case TokenKind::KwWith:
        out.push_back(parse_with());
        return;
      case TokenKind::KwElif:
      case TokenKind::KwElse:
        fail(peek().loc, describe(peek()) + " without a matching 'if'");
      default:
        parse_simple_line(out);
    }
  }

  // simple_stmt (';' simple_stmt)* [';'] NEWLINE
  void parse_simple_line(Block& out) {
    while (true) {
      out.push_back(parse_simple_statement());
      if (!accept(TokenKind::Semicolon) || at(TokenKind::Newline)) break;
    }
    expect(TokenKind::Newline, "end of line");
  }

  StmtPtr parse_simple_statement() {
    const SourceLocation loc = peek().loc;
    switch (peek().kind) {
      case TokenKind::KwPass:
        take();
        return make<PassStmt>(loc);
      case TokenKind::KwBreak:
        take();
        return make<BreakStmt>(loc);
      case TokenKind::KwContinue:
        take();
        return make<ContinueStmt>(loc);
      case TokenKind::KwReturn: {
        take();
        auto s = make<ReturnStmt>(loc);
        if (starts_expression(peek().kind)) s->value = parse_testlist();
        return s;
      }
      case TokenKind::KwRaise: {
        take();
        auto s = make<RaiseStmt>(loc);
        if (starts_expression(peek().kind)) s->exception = parse_test();
        if (at(TokenKind::KwFrom)) fail(peek().loc, "'raise ... from' is not supported in TorchScript");
        return s;
      }
      case TokenKind::KwAssert: {
        take();
        auto s = make<AssertStmt>(loc);
        s->test = parse_test();
        if (accept(TokenKind::Comma)) s->message = parse_test();
        return s;
      }
      case TokenKind::KwDel: {
        take();
        auto s = make<DeleteStmt>(loc);
        s->targets.push_back(parse_target());
        while (accept(TokenKind::Comma) && starts_expression(peek().kind)) s->targets.push_back(parse_target());
        return s;
      }
      case TokenKind::KwGlobal: {
        take();
        auto s = make<GlobalStmt>(loc);
        do {
          s->names.push_back(expect_name("a name after 'global'"));
        } while (accept(TokenKind::Comma));
        return s;
      }
      case TokenKind::KwImport:
      case TokenKind::KwFrom:
        return parse_import();
      default:
        return parse_expression_statement();
    }
  }

  // Expression statements and every kind of assignment.
  StmtPtr parse_expression_statement() {
    const SourceLocation loc = peek().loc;
    ExprPtr first = parse_testlist();

    if (accept(TokenKind::Colon)) {
      check_single_target(*first, "annotated assignment");
      auto s = make<AnnAssignStmt>(loc);
      s->target = std::move(first);
      s->annotation = parse_test();
      if (accept(TokenKind::Assign)) s->value = parse_testlist();
      return s;
    }

    BinaryOp op;
    if (augmented_assignment(peek().kind, op)) {
      take();
      check_single_target(*first, "augmented assignment");
      auto s = make<AugAssignStmt>(loc);
      s->target = std::move(first);
      s->op = op;
      s->value = parse_testlist();
      return s;
    }

    if (at(TokenKind::Assign)) {
      auto s = make<AssignStmt>(loc);
      s->targets.push_back(std::move(first));
      while (accept(TokenKind::Assign)) {
        ExprPtr next = parse_testlist();
        if (at(TokenKind::Assign)) {
          s->targets.push_back(std::move(next));
        } else {
          s->value = std::move(next);
        }
      }
      for (const ExprPtr& target : s->targets) check_target(*target);
      return s;
    }

    auto s = make<ExprStmt>(loc);
    s->value = std::move(first);
    return s;
  }

  // Assignable: a name, attribute, subscript, or a tuple/list of assignables.
  void check_target(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Name:
      case ExprKind::Attribute:
      case ExprKind::Subscript:
        return;
      case ExprKind::Tuple:
        for (const ExprPtr& element : e.as<TupleExpr>().elements) check_target(*element);
        if (!e.as<TupleExpr>().elements.empty()) return;
        break;
      case ExprKind::List:
        for (const ExprPtr& element : e.as<ListExpr>().elements) check_target(*element);
        return;
      default:
        break;
    }
    fail(e.loc, "cannot assign to this expression");
  }

  void check_single_target(const Expr& e, std::string_view what) const {
    if (e.kind != ExprKind::Name && e.kind != ExprKind::Attribute && e.kind != ExprKind::Subscript)
      fail(e.loc, "only a name, attribute or subscript can be the target of " + std::string(what));
  }

  // `import a.b as c, d` and `from a.b import x as y, z` / `from a import (x, y)`.
  StmtPtr parse_import() {
    auto s = make<ImportStmt>(peek().loc);
    if (accept(TokenKind::KwFrom)) {
      s->from_module = parse_dotted_name();
      expect(TokenKind::KwImport, "'import'");
      const bool parenthesized = accept(TokenKind::LParen);
      if (!parenthesized && accept(TokenKind::Star)) {
        s->names.push_back({"*", ""});
        return s;
      }
      do {
        if (parenthesized && at(TokenKind::RParen)) break;
        s->names.push_back(parse_import_alias(expect_name("a name to import")));
      } while (accept(TokenKind::Comma));
      if (parenthesized) expect(TokenKind::RParen);
      return s;
    }
    expect(TokenKind::KwImport);
    do {
      s->names.push_back(parse_import_alias(parse_dotted_name()));
    } while (accept(TokenKind::Comma));
    return s;
  }

  std::string parse_dotted_name() {
    std::string name = expect_name("a module name");
    while (accept(TokenKind::Dot)) {
      name += '.';
      name += expect_name("a name after '.'");
    }
    return name;
  }

  ImportStmt::Alias parse_import_alias(std::string name) {
    ImportStmt::Alias alias{std::move(name), ""};
    if (accept(TokenKind::KwAs)) alias.as = expect_name("a name after 'as'");
    return alias;
  }

  // ':' then either NEWLINE INDENT statements DEDENT, or simple statements on the same line.
  Block parse_suite(std::string_view after) {
    expect(TokenKind::Colon, "':' after " + std::string(after));
    Block block;
    if (!accept(TokenKind::Newline)) {
      parse_simple_line(block);
      return block;
    }
    DepthGuard guard(*this, peek().loc);
    expect(TokenKind::Indent, "an indented block after " + std::string(after));
    while (!accept(TokenKind::Dedent)) parse_statement(block);
    return block;
  }

  StmtPtr parse_if() {
    // An elif chain nests one IfStmt per branch; the guard bounds the chain's depth.
    DepthGuard guard(*this);
    const SourceLocation loc = take().loc;  // 'if'
    auto root = make<IfStmt>(loc);
    IfStmt* current = root.get();
    while (true) {
      current->test = parse_test();
      current->body = parse_suite("the if condition");
      if (at(TokenKind::KwElif)) {
        const SourceLocation elif_loc = take().loc;
        guard.enter(elif_loc);
        auto next = make<IfStmt>(elif_loc);
        IfStmt* raw = next.get();
        current->orelse.push_back(std::move(next));
        current = raw;
        continue;
      }
      if (accept(TokenKind::KwElse)) current->orelse = parse_suite("'else'");
      return root;
    }
  }

  StmtPtr parse_for() {
    auto s = make<ForStmt>(take().loc);
    s->target = parse_target_list();
    expect(TokenKind::KwIn, "'in' after the for target");
    s->iter = parse_testlist();
    s->body = parse_suite("the for header");
    if (at(TokenKind::KwElse)) fail(peek().loc, "'else' after a for loop is not supported in TorchScript");
    return s;
  }

  StmtPtr parse_while() {
    auto s = make<WhileStmt>(take().loc);
    s->test = parse_test();
    s->body = parse_suite("the while condition");
    if (at(TokenKind::KwElse)) fail(peek().loc, "'else' after a while loop is not supported in TorchScript");
    return s;
  }

  StmtPtr parse_with() {
    auto s = make<WithStmt>(take().loc);
    do {
      WithItem item;
      item.context = parse_test();
      if (accept(TokenKind::KwAs)) item.target = parse_target();
      s->items.push_back(std::move(item));
    } while (accept(TokenKind::Comma));
    s->body = parse_suite("the with items");
    return s;
  }

  // Decorators, then `def` or `class`.
  StmtPtr parse_definition() {
    std::vector<ExprPtr> decorators;
    while (accept(TokenKind::At)) {
      decorators.push_back(parse_test());
      expect(TokenKind::Newline, "end of line after the decorator");
    }
    if (at(TokenKind::KwDef)) {
      auto f = parse_function();
      f->decorators = std::move(decorators);
      return f;
    }
    if (at(TokenKind::KwClass)) {
      auto c = parse_class();
      c->decorators = std::move(decorators);
      return c;
    }
    fail_expected("'def' or 'class' after a decorator");
  }

  std::unique_ptr<FunctionDef> parse_function() {
    auto f = make<FunctionDef>(take().loc);
    f->name = expect_name("a function name after 'def'");
    expect(TokenKind::LParen, "'(' after the function name");
    bool keyword_only = false;
    bool seen_default = false;
    while (!at(TokenKind::RParen)) {
      if (at(TokenKind::Star)) {
        const SourceLocation star = take().loc;
        if (keyword_only || !(at(TokenKind::Comma) || at(TokenKind::RParen)))
          fail(star, "only a bare '*' (no *args) is supported in a parameter list");
        keyword_only = true;
      } else if (at(TokenKind::DoubleStar)) {
        fail(peek().loc, "**kwargs is not supported in TorchScript");
      } else {
        f->params.push_back(parse_param(keyword_only));
        const Param& p = f->params.back();
        if (p.default_value) {
          seen_default = true;
        } else if (seen_default && !keyword_only) {
          fail(p.loc, "parameter without a default follows parameter with a default");
        }
      }
      if (!accept(TokenKind::Comma)) break;
    }
    expect(TokenKind::RParen, "',' or ')' in the parameter list");
    if (accept(TokenKind::Arrow)) f->returns = parse_test();
    f->body = parse_suite("the function signature");
    return f;
  }

  Param parse_param(bool keyword_only) {
    Param p;
    p.loc = peek().loc;
    p.name = expect_name("a parameter name");
    p.keyword_only = keyword_only;
    if (accept(TokenKind::Colon)) p.annotation = parse_test();
    if (accept(TokenKind::Assign)) p.default_value = parse_test();
    return p;
  }

  std::unique_ptr<ClassDef> parse_class() {
    auto c = make<ClassDef>(take().loc);
    c->name = expect_name("a class name after 'class'");
    if (accept(TokenKind::LParen)) {
      while (!at(TokenKind::RParen)) {
        c->bases.push_back(parse_test());
        if (!accept(TokenKind::Comma)) break;
      }
      expect(TokenKind::RParen, "',' or ')' after the base classes");
    }
    c->body = parse_suite("the class name");
    return c;
  }

  // ---- expressions ---------------------------------------------------------------------------

  // test (',' test)* [','] — several make a tuple, as in `return a, b` or `a, b, = t`.
  ExprPtr parse_testlist() {
    const SourceLocation loc = peek().loc;
    ExprPtr first = parse_test();
    if (!at(TokenKind::Comma)) return first;
    auto tuple = make<TupleExpr>(loc);
    tuple->elements.push_back(std::move(first));
    while (accept(TokenKind::Comma) && starts_expression(peek().kind)) tuple->elements.push_back(parse_test());
    return tuple;
  }

  // Targets of `for`, `del`, `with ... as` and comprehensions stop below comparisons, so the
  // `in` of `for x in xs` is not read as a membership test.
  ExprPtr parse_target() {
    ExprPtr target = parse_binary(kLoosestBinaryPrecedence);
    check_target(*target);
    return target;
  }

  ExprPtr parse_target_list() {
    const SourceLocation loc = peek().loc;
    ExprPtr first = parse_target();
    if (!at(TokenKind::Comma)) return first;
    auto tuple = make<TupleExpr>(loc);
    tuple->elements.push_back(std::move(first));
    while (accept(TokenKind::Comma) && starts_expression(peek().kind)) tuple->elements.push_back(parse_target());
    return tuple;
  }

  // test: or_test ['if' or_test 'else' test]
  ExprPtr parse_test() {
    DepthGuard guard(*this, peek().loc);
    if (at(TokenKind::KwLambda)) fail(peek().loc, "'lambda' is not supported in TorchScript");
    ExprPtr body = parse_or_test();
    if (!at(TokenKind::KwIf)) return body;
    auto e = make<IfExpExpr>(take().loc);
    e->body = std::move(body);
    e->test = parse_or_test();
    expect(TokenKind::KwElse, "'else' in the conditional expression");
    e->orelse = parse_test();
    return e;
  }

  ExprPtr parse_or_test() { return parse_bool_op(TokenKind::KwOr, BoolOp::Or); }
  ExprPtr parse_and_test() { return parse_bool_op(TokenKind::KwAnd, BoolOp::And); }

  ExprPtr parse_bool_op(TokenKind keyword, BoolOp op) {
    const SourceLocation loc = peek().loc;
    ExprPtr first = op == BoolOp::Or ? parse_and_test() : parse_not_test();
    if (!at(keyword)) return first;
    auto e = make<BoolOpExpr>(loc);
    e->op = op;
    e->values.push_back(std::move(first));
    while (accept(keyword)) e->values.push_back(op == BoolOp::Or ? parse_and_test() : parse_not_test());
    return e;
  }

  ExprPtr parse_not_test() {
    if (!at(TokenKind::KwNot)) return parse_comparison();
    DepthGuard guard(*this, peek().loc);
    auto e = make<UnaryExpr>(take().loc);
    e->op = UnaryOp::Not;
    e->operand = parse_not_test();
    return e;
  }

  bool comparison_operator(CompareOp& out) const {
    switch (peek().kind) {
      case TokenKind::Eq: out = CompareOp::Eq; return true;
      case TokenKind::NotEq: out = CompareOp::NotEq; return true;
      case TokenKind::Less: out = CompareOp::Lt; return true;
      case TokenKind::LessEq: out = CompareOp::LtE; return true;
      case TokenKind::Greater: out = CompareOp::Gt; return true;
      case TokenKind::GreaterEq: out = CompareOp::GtE; return true;
      case TokenKind::KwIn: out = CompareOp::In; return true;
      case TokenKind::KwIs: out = peek(1).kind == TokenKind::KwNot ? CompareOp::IsNot : CompareOp::Is; return true;
      case TokenKind::KwNot:
        if (peek(1).kind != TokenKind::KwIn) return false;
        out = CompareOp::NotIn;
        return true;
      default: return false;
    }
  }

  ExprPtr parse_comparison() {
    const SourceLocation loc = peek().loc;
    ExprPtr left = parse_binary(kLoosestBinaryPrecedence);
    CompareOp op;
    if (!comparison_operator(op)) return left;
    auto e = make<CompareExpr>(loc);
    e->left = std::move(left);
    while (comparison_operator(op)) {
      take();
      if (op == CompareOp::IsNot || op == CompareOp::NotIn) take();  // the second word
      e->ops.push_back(op);
      e->comparators.push_back(parse_binary(kLoosestBinaryPrecedence));
    }
    return e;
  }

  // Precedence climbing over the left-associative binary operators.
  ExprPtr parse_binary(int min_precedence) {
    DepthGuard guard(*this);  // one level per operator: `a+a+...` builds a left-deep tree
    const SourceLocation loc = peek().loc;
    ExprPtr left = parse_unary();
    BinaryOperator op;
    while (binary_operator(peek().kind, op) && op.precedence >= min_precedence) {
      guard.enter(peek().loc);
      take();
      auto e = make<BinaryExpr>(loc);
      e->op = op.op;
      e->left = std::move(left);
      e->right = parse_binary(op.precedence + 1);
      left = std::move(e);
    }
    return left;
  }

  ExprPtr parse_unary() {
    UnaryOp op;
    switch (peek().kind) {
      case TokenKind::Minus: op = UnaryOp::Neg; break;
      case TokenKind::Plus: op = UnaryOp::Pos; break;
      case TokenKind::Tilde: op = UnaryOp::Invert; break;
      default: return parse_power();
    }
    DepthGuard guard(*this, peek().loc);
    const SourceLocation loc = take().loc;
    if (op == UnaryOp::Neg) {
      if (ExprPtr folded = fold_negative_literal(loc)) return folded;
    }
    auto e = make<UnaryExpr>(loc);
    e->op = op;
    e->operand = parse_unary();
    return e;
  }

  // `-5` and `-1.` are constants, as the printer means them; this is also the only way to write
  // -2^63. Not when a trailer or `**` binds tighter than the minus (`-2 ** 2` is -(2 ** 2)).
  ExprPtr fold_negative_literal(const SourceLocation& loc) {
    const Token& literal = peek();
    if (literal.kind != TokenKind::Int && literal.kind != TokenKind::Float && literal.kind != TokenKind::Imaginary)
      return nullptr;
    switch (peek(1).kind) {
      case TokenKind::DoubleStar:
      case TokenKind::Dot:
      case TokenKind::LParen:
      case TokenKind::LBracket:
        return nullptr;
      default:
        break;
    }
    take();
    if (literal.kind == TokenKind::Int) {
      auto c = make_constant(loc, ConstantExpr::Type::Int);
      // The lexer caps the magnitude at 2^63, whose negation is exactly INT64_MIN.
      c->int_value = static_cast<std::int64_t>(0 - literal.int_value);
      return c;
    }
    auto c = make_constant(loc, literal.kind == TokenKind::Float ? ConstantExpr::Type::Float : ConstantExpr::Type::Complex);
    c->float_value = -literal.float_value;
    return c;
  }

  // power: postfix ['**' unary]  (right-associative, and `2 ** -1` is valid)
  ExprPtr parse_power() {
    const SourceLocation loc = peek().loc;
    ExprPtr base = parse_postfix();
    if (!at(TokenKind::DoubleStar)) return base;
    DepthGuard guard(*this, take().loc);
    auto e = make<BinaryExpr>(loc);
    e->op = BinaryOp::Pow;
    e->left = std::move(base);
    e->right = parse_unary();
    return e;
  }

  // atom trailer*: attribute access, calls, subscripts.
  ExprPtr parse_postfix() {
    DepthGuard guard(*this);  // each trailer wraps the expression one level deeper
    const SourceLocation loc = peek().loc;
    ExprPtr e = parse_atom();
    while (true) {
      if (at(TokenKind::Dot)) {
        guard.enter(take().loc);
        auto a = make<AttributeExpr>(loc);
        // Keywords are fine after '.', where nothing can confuse them (`ops.aten.is`).
        if (!at(TokenKind::Name) && !is_keyword(peek().kind)) fail_expected("an attribute name after '.'");
        a->attr = take().text;
        a->value = std::move(e);
        e = std::move(a);
      } else if (at(TokenKind::LParen)) {
        guard.enter(take().loc);
        e = parse_call_arguments(loc, std::move(e));
      } else if (at(TokenKind::LBracket)) {
        guard.enter(take().loc);
        e = parse_subscript(loc, std::move(e));
      } else {
        return e;
      }
    }
  }

  // After '(': positional arguments, then `name=value` keywords; a trailing ',' is allowed.
  ExprPtr parse_call_arguments(const SourceLocation& loc, ExprPtr func) {
    auto call = make<CallExpr>(loc);
    call->func = std::move(func);
    while (!at(TokenKind::RParen)) {
      if (at(TokenKind::Star) || at(TokenKind::DoubleStar))
        fail(peek().loc, "starred arguments are not supported in TorchScript");
      if (at(TokenKind::Name) && peek(1).kind == TokenKind::Assign) {
        Keyword kw;
        kw.loc = peek().loc;
        kw.name = take().text;
        take();  // '='
        kw.value = parse_test();
        call->keywords.push_back(std::move(kw));
      } else {
        if (!call->keywords.empty()) fail(peek().loc, "positional argument follows keyword argument");
        call->args.push_back(parse_test());
        if (at(TokenKind::KwFor)) fail(peek().loc, "generator expressions are not supported in TorchScript");
      }
      if (!accept(TokenKind::Comma)) break;
    }
    expect(TokenKind::RParen, "',' or ')' in the argument list");
    return call;
  }

  // After '[': one or more indices or slices, comma-separated.
  ExprPtr parse_subscript(const SourceLocation& loc, ExprPtr value) {
    auto s = make<SubscriptExpr>(loc);
    s->value = std::move(value);
    do {
      if (at(TokenKind::RBracket) && !s->indices.empty()) break;  // trailing comma
      s->indices.push_back(parse_subscript_index());
    } while (accept(TokenKind::Comma));
    expect(TokenKind::RBracket, "',' or ']' in the subscript");
    return s;
  }

  ExprPtr parse_subscript_index() {
    const SourceLocation loc = peek().loc;
    ExprPtr lower;
    if (!at(TokenKind::Colon)) {
      lower = parse_test();
      if (!at(TokenKind::Colon)) return lower;
    }
    take();  // ':'
    auto slice = make<SliceExpr>(loc);
    slice->lower = std::move(lower);
    auto ends_part = [this] { return at(TokenKind::Colon) || at(TokenKind::Comma) || at(TokenKind::RBracket); };
    if (!ends_part()) slice->upper = parse_test();
    if (accept(TokenKind::Colon) && !ends_part()) slice->step = parse_test();
    return slice;
  }

  ExprPtr parse_atom() {
    const Token& t = peek();
    const SourceLocation loc = t.loc;
    switch (t.kind) {
      case TokenKind::Name: {
        auto n = make<NameExpr>(loc);
        n->id = take().text;
        return n;
      }
      case TokenKind::Int: {
        if (t.int_value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          fail(loc, "integer literal is too large for int64");
        auto c = make_constant(loc, ConstantExpr::Type::Int);
        c->int_value = static_cast<std::int64_t>(take().int_value);
        return c;
      }
      case TokenKind::Float:
      case TokenKind::Imaginary: {
        auto c = make_constant(loc, t.kind == TokenKind::Float ? ConstantExpr::Type::Float : ConstantExpr::Type::Complex);
        c->float_value = take().float_value;
        return c;
      }
      case TokenKind::String: {
        // Adjacent literals concatenate, as in Python.
        auto c = make_constant(loc, ConstantExpr::Type::String);
        while (at(TokenKind::String)) {
          c->string_value += take().text;
          if (c->string_value.size() > kMaxTokenBytes) fail(loc, "string literal is too long");
        }
        return c;
      }
      case TokenKind::KwNone:
        take();
        return make_constant(loc, ConstantExpr::Type::None);
      case TokenKind::KwTrue:
      case TokenKind::KwFalse: {
        auto c = make_constant(loc, ConstantExpr::Type::Bool);
        c->bool_value = take().kind == TokenKind::KwTrue;
        return c;
      }
      case TokenKind::Ellipsis:
        take();
        return make_constant(loc, ConstantExpr::Type::Ellipsis);
      case TokenKind::LParen:
        take();
        return parse_parenthesized(loc);
      case TokenKind::LBracket:
        take();
        return parse_list(loc);
      case TokenKind::LBrace:
        take();
        return parse_dict(loc);
      default:
        fail_expected("an expression");
    }
  }

  // After '(': `()`, `(e)`, `(e,)`, `(a, b)`.
  ExprPtr parse_parenthesized(const SourceLocation& loc) {
    if (accept(TokenKind::RParen)) return make<TupleExpr>(loc);
    ExprPtr first = parse_test();
    if (at(TokenKind::KwFor)) fail(peek().loc, "generator expressions are not supported in TorchScript");
    if (!at(TokenKind::Comma)) {
      expect(TokenKind::RParen, "')'");
      return first;
    }
    auto tuple = make<TupleExpr>(loc);
    tuple->elements.push_back(std::move(first));
    while (accept(TokenKind::Comma) && !at(TokenKind::RParen)) tuple->elements.push_back(parse_test());
    expect(TokenKind::RParen, "',' or ')' in the tuple");
    return tuple;
  }

  // After '[': a list display or `[e for target in iter]`.
  ExprPtr parse_list(const SourceLocation& loc) {
    auto list = make<ListExpr>(loc);
    if (accept(TokenKind::RBracket)) return list;
    ExprPtr first = parse_test();
    if (at(TokenKind::KwFor)) {
      auto comp = make<ListCompExpr>(loc);
      comp->element = std::move(first);
      parse_comprehension_clause(comp->target, comp->iter);
      expect(TokenKind::RBracket, "']' after the list comprehension");
      return comp;
    }
    list->elements.push_back(std::move(first));
    while (accept(TokenKind::Comma) && !at(TokenKind::RBracket)) list->elements.push_back(parse_test());
    expect(TokenKind::RBracket, "',' or ']' in the list");
    return list;
  }

  // After '{': a dict display or `{k: v for target in iter}`. Sets do not exist in TorchScript.
  ExprPtr parse_dict(const SourceLocation& loc) {
    auto dict = make<DictExpr>(loc);
    if (accept(TokenKind::RBrace)) return dict;
    ExprPtr key = parse_test();
    expect(TokenKind::Colon, "':' after the dict key (sets are not supported)");
    ExprPtr value = parse_test();
    if (at(TokenKind::KwFor)) {
      auto comp = make<DictCompExpr>(loc);
      comp->key = std::move(key);
      comp->value = std::move(value);
      parse_comprehension_clause(comp->target, comp->iter);
      expect(TokenKind::RBrace, "'}' after the dict comprehension");
      return comp;
    }
    dict->keys.push_back(std::move(key));
    dict->values.push_back(std::move(value));
    while (accept(TokenKind::Comma) && !at(TokenKind::RBrace)) {
      dict->keys.push_back(parse_test());
      expect(TokenKind::Colon, "':' after the dict key");
      dict->values.push_back(parse_test());
    }
    expect(TokenKind::RBrace, "',' or '}' in the dict");
    return dict;
  }

  // 'for' target_list 'in' or_test — one clause, no conditions (TorchScript's subset).
  void parse_comprehension_clause(ExprPtr& target, ExprPtr& iter) {
    take();  // 'for'
    target = parse_target_list();
    expect(TokenKind::KwIn, "'in' in the comprehension");
    iter = parse_or_test();
    if (at(TokenKind::KwIf) || at(TokenKind::KwFor))
      fail(peek().loc, "comprehensions with conditions or several 'for' clauses are not supported in TorchScript");
  }

  std::vector<Token> tokens_;
  std::string filename_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::shared_ptr<const SourceModule> parse_source(std::string_view text, const std::string& filename) {
  return Parser(tokenize(text, filename), filename).parse_module();
}

ExprPtr parse_expression(std::string_view text, const std::string& filename) {
  return Parser(tokenize(text, filename), filename).parse_lone_expression();
}

}  // namespace tvk::jit
