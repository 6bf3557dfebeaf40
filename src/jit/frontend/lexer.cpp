// The TorchScript tokenizer: Python's lexical rules, restricted to what serialized code uses.
#include "jit/frontend/lexer.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <system_error>
#include <utility>

namespace tvk::jit {
namespace {

struct Spelling {
  std::string_view text;
  TokenKind kind;
};

constexpr std::array kKeywords = {
    Spelling{"and", TokenKind::KwAnd},         Spelling{"as", TokenKind::KwAs},
    Spelling{"assert", TokenKind::KwAssert},   Spelling{"break", TokenKind::KwBreak},
    Spelling{"class", TokenKind::KwClass},     Spelling{"continue", TokenKind::KwContinue},
    Spelling{"def", TokenKind::KwDef},         Spelling{"del", TokenKind::KwDel},
    Spelling{"elif", TokenKind::KwElif},       Spelling{"else", TokenKind::KwElse},
    Spelling{"False", TokenKind::KwFalse},     Spelling{"for", TokenKind::KwFor},
    Spelling{"from", TokenKind::KwFrom},       Spelling{"global", TokenKind::KwGlobal},
    Spelling{"if", TokenKind::KwIf},           Spelling{"import", TokenKind::KwImport},
    Spelling{"in", TokenKind::KwIn},           Spelling{"is", TokenKind::KwIs},
    Spelling{"None", TokenKind::KwNone},       Spelling{"not", TokenKind::KwNot},
    Spelling{"or", TokenKind::KwOr},           Spelling{"pass", TokenKind::KwPass},
    Spelling{"raise", TokenKind::KwRaise},     Spelling{"return", TokenKind::KwReturn},
    Spelling{"True", TokenKind::KwTrue},       Spelling{"while", TokenKind::KwWhile},
    Spelling{"with", TokenKind::KwWith},       Spelling{"async", TokenKind::KwAsync},
    Spelling{"await", TokenKind::KwAwait},     Spelling{"except", TokenKind::KwExcept},
    Spelling{"finally", TokenKind::KwFinally}, Spelling{"lambda", TokenKind::KwLambda},
    Spelling{"nonlocal", TokenKind::KwNonlocal}, Spelling{"try", TokenKind::KwTry},
    Spelling{"yield", TokenKind::KwYield},
};

// Longest first, so that the first prefix match is the maximal munch.
constexpr std::array kOperators = {
    Spelling{"**=", TokenKind::DoubleStarAssign}, Spelling{"//=", TokenKind::DoubleSlashAssign},
    Spelling{"<<=", TokenKind::LeftShiftAssign},  Spelling{">>=", TokenKind::RightShiftAssign},
    Spelling{"...", TokenKind::Ellipsis},         Spelling{"->", TokenKind::Arrow},
    Spelling{"**", TokenKind::DoubleStar},        Spelling{"//", TokenKind::DoubleSlash},
    Spelling{"<<", TokenKind::LeftShift},         Spelling{">>", TokenKind::RightShift},
    Spelling{"==", TokenKind::Eq},                Spelling{"!=", TokenKind::NotEq},
    Spelling{"<=", TokenKind::LessEq},            Spelling{">=", TokenKind::GreaterEq},
    Spelling{"+=", TokenKind::PlusAssign},        Spelling{"-=", TokenKind::MinusAssign},
    Spelling{"*=", TokenKind::StarAssign},        Spelling{"/=", TokenKind::SlashAssign},
    Spelling{"%=", TokenKind::PercentAssign},     Spelling{"&=", TokenKind::AmpAssign},
    Spelling{"|=", TokenKind::PipeAssign},        Spelling{"^=", TokenKind::CaretAssign},
    Spelling{"@=", TokenKind::AtAssign},          Spelling{"(", TokenKind::LParen},
    Spelling{")", TokenKind::RParen},             Spelling{"[", TokenKind::LBracket},
    Spelling{"]", TokenKind::RBracket},           Spelling{"{", TokenKind::LBrace},
    Spelling{"}", TokenKind::RBrace},             Spelling{",", TokenKind::Comma},
    Spelling{":", TokenKind::Colon},              Spelling{";", TokenKind::Semicolon},
    Spelling{".", TokenKind::Dot},                Spelling{"@", TokenKind::At},
    Spelling{"=", TokenKind::Assign},             Spelling{"+", TokenKind::Plus},
    Spelling{"-", TokenKind::Minus},              Spelling{"*", TokenKind::Star},
    Spelling{"/", TokenKind::Slash},              Spelling{"%", TokenKind::Percent},
    Spelling{"&", TokenKind::Amp},                Spelling{"|", TokenKind::Pipe},
    Spelling{"^", TokenKind::Caret},              Spelling{"~", TokenKind::Tilde},
    Spelling{"<", TokenKind::Less},               Spelling{">", TokenKind::Greater},
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

int digit_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// A byte as it should appear in a message: printable ASCII quoted, anything else as \xNN.
std::string quote_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", u);
  return buf;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

class Lexer {
 public:
  Lexer(std::string_view source, std::string filename) : src_(source), file_(std::move(filename)) {}

  std::vector<Token> run() {
    if (src_.size() > kMaxSourceBytes)
      fail(here(), "source is " + std::to_string(src_.size()) + " bytes, over the limit of " +
                       std::to_string(kMaxSourceBytes));
    while (true) {
      if (at_line_start_ && brackets_.empty() && !read_indentation()) continue;
      skip_blanks();
      if (at_end()) break;
      if (peek() == '\n' || peek() == '\r') {
        if (brackets_.empty()) emit(TokenKind::Newline, here(), "");
        consume_line_break();
        at_line_start_ = true;
        continue;
      }
      read_token();
    }
    finish();
    return std::move(tokens_);
  }

 private:
  // ---- positions -------------------------------------------------------------------------
  bool at_end() const { return pos_ >= src_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0'; }
  bool has(std::size_t ahead) const { return pos_ + ahead < src_.size(); }

  SourceLocation here() const { return location_of(pos_); }
  SourceLocation location_of(std::size_t offset) const {
    return SourceLocation{file_, line_, static_cast<int>(offset - line_start_) + 1};
  }

  [[noreturn]] void fail(SourceLocation loc, std::string what) const { throw ParseError(std::move(loc), std::move(what)); }

  // Consumes "\n", "\r\n" or "\r" and starts the next line, enforcing the line-length limit.
  void consume_line_break() {
    if (pos_ - line_start_ > kMaxLineBytes)
      fail(location_of(line_start_), "line is longer than " + std::to_string(kMaxLineBytes) + " bytes");
    if (peek() == '\r' && peek(1) == '\n') ++pos_;
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }

  void emit(TokenKind kind, SourceLocation loc, std::string text) {
    Token t;
    t.kind = kind;
    t.loc = std::move(loc);
    t.text = std::move(text);
    tokens_.push_back(std::move(t));
  }

  // ---- line structure --------------------------------------------------------------------

  // Measures the indentation of a new logical line and emits INDENT/DEDENT. Returns false when
  // the line is blank or a comment (it is consumed and produces nothing).
  bool read_indentation() {
    // Python's rule: a tab advances to the next multiple of 8. The width is also measured with
    // tabs as 1 column; when the two measures disagree on the comparison with the enclosing
    // level, the meaning depends on the tab size, which Python rejects as a TabError.
    int width = 0, alt_width = 0;
    for (;; ++pos_) {
      const char c = peek();
      if (c == ' ') {
        ++width, ++alt_width;
      } else if (c == '\t') {
        width = (width / 8 + 1) * 8, ++alt_width;
      } else if (c == '\f') {
        width = alt_width = 0;
      } else {
        break;
      }
      if (width > static_cast<int>(kMaxLineBytes)) fail(here(), "indentation is too wide");
    }
    if (at_end()) return true;  // finish() closes the open blocks
    if (peek() == '#') skip_comment();
    if (peek() == '\n' || peek() == '\r') {
      consume_line_break();
      return false;
    }
    at_line_start_ = false;

    const SourceLocation loc = here();
    if (width > indents_.back()) {
      if (alt_width <= alt_indents_.back()) fail(loc, "inconsistent use of tabs and spaces in indentation");
      if (static_cast<int>(indents_.size()) > kMaxNestingDepth)
        fail(loc, "too many levels of indentation (limit " + std::to_string(kMaxNestingDepth) + ")");
      indents_.push_back(width);
      alt_indents_.push_back(alt_width);
      emit(TokenKind::Indent, loc, "");
      return true;
    }
    while (width < indents_.back()) {
      indents_.pop_back();
      alt_indents_.pop_back();
      emit(TokenKind::Dedent, loc, "");
    }
    if (width != indents_.back()) fail(loc, "unindent does not match any outer indentation level");
    if (alt_width != alt_indents_.back()) fail(loc, "inconsistent use of tabs and spaces in indentation");
    return true;
  }

  void skip_comment() {
    while (!at_end() && peek() != '\n' && peek() != '\r') ++pos_;
  }

  // Skips spaces, tabs, comments and backslash-newline continuations inside a line.
  void skip_blanks() {
    while (!at_end()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        skip_comment();
      } else if (c == '\\') {
        const SourceLocation loc = here();
        ++pos_;
        if (at_end()) fail(loc, "unexpected end of file after line continuation");
        if (peek() != '\n' && peek() != '\r') fail(loc, "unexpected character after line continuation");
        consume_line_break();
      } else if ((c == '\n' || c == '\r') && !brackets_.empty()) {
        consume_line_break();  // implicit line joining inside (), [] and {}
      } else {
        return;
      }
    }
  }

  void finish() {
    if (!brackets_.empty()) {
      const Token& open = tokens_[brackets_.back()];
      fail(open.loc, "'" + open.text + "' was never closed");
    }
    const SourceLocation loc = here();
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::Newline && tokens_.back().kind != TokenKind::Dedent)
      emit(TokenKind::Newline, loc, "");
    while (indents_.size() > 1) {
      indents_.pop_back();
      emit(TokenKind::Dedent, loc, "");
    }
    emit(TokenKind::EndOfFile, loc, "");
  }

  // ---- tokens ----------------------------------------------------------------------------

  void read_token() {
    const char c = peek();
    if (is_name_start(c)) return read_name();
    if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return read_number();
    if (c == '"' || c == '\'') return read_string();
    for (const Spelling& op : kOperators) {
      if (src_.substr(pos_, op.text.size()) == op.text) return read_operator(op);
    }
    fail(here(), "unexpected character " + quote_byte(c));
  }

  void read_name() {
    const std::size_t start = pos_;
    while (is_name_char(peek())) ++pos_;
    check_token_length(start);
    const std::string_view text = src_.substr(start, pos_ - start);
    TokenKind kind = TokenKind::Name;
    for (const Spelling& kw : kKeywords) {
      if (kw.text == text) kind = kw.kind;
    }
    emit(kind, location_of(start), std::string(text));
  }

  void read_operator(const Spelling& op) {
    const SourceLocation loc = here();
    pos_ += op.text.size();
    switch (op.kind) {
      case TokenKind::LParen:
      case TokenKind::LBracket:
      case TokenKind::LBrace:
        if (static_cast<int>(brackets_.size()) >= kMaxNestingDepth)
          fail(loc, "brackets nested too deeply (limit " + std::to_string(kMaxNestingDepth) + ")");
        brackets_.push_back(tokens_.size());
        break;
      case TokenKind::RParen:
      case TokenKind::RBracket:
      case TokenKind::RBrace:
        // Whether it matches is the parser's business; here it only ends line joining.
        if (!brackets_.empty()) brackets_.pop_back();
        break;
      default:
        break;
    }
    emit(op.kind, loc, std::string(op.text));
  }

  // Integers (decimal, 0x, 0o, 0b), floats ("1.", ".5", "1e-05", "0.10000000000000001") and
  // imaginary numbers ("2j"). Signs are unary operators, as in Python.
  void read_number() {
    const std::size_t start = pos_;
    const SourceLocation loc = here();
    int base = 10;
    bool is_float = false;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'o' || peek(1) == 'O' ||
                          peek(1) == 'b' || peek(1) == 'B')) {
      const char p = static_cast<char>(peek(1) | 0x20);
      base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
      pos_ += 2;
      if (digit_value(peek()) >= base) fail(loc, "malformed number literal");
      while (digit_value(peek()) < base) ++pos_;
    } else {
      while (is_digit(peek())) ++pos_;
      if (peek() == '.') {
        is_float = true;
        ++pos_;
        while (is_digit(peek())) ++pos_;
      }
      if (peek() == 'e' || peek() == 'E') {
        is_float = true;
        ++pos_;
        if (peek() == '+' || peek() == '-') ++pos_;
        if (!is_digit(peek())) fail(loc, "malformed exponent in number literal");
        while (is_digit(peek())) ++pos_;
      }
    }
    const std::size_t digits_end = pos_;
    const bool imaginary = base == 10 && (peek() == 'j' || peek() == 'J');
    if (imaginary) ++pos_;
    if (is_name_char(peek()) || (peek() == '.' && !is_float && base == 10 && is_digit(peek(1))))
      fail(loc, "malformed number literal");
    check_token_length(start);

    Token t;
    t.loc = loc;
    t.text = std::string(src_.substr(start, pos_ - start));
    const std::string_view digits = src_.substr(start, digits_end - start);
    if (is_float || imaginary) {
      t.kind = imaginary ? TokenKind::Imaginary : TokenKind::Float;
      t.float_value = parse_double(digits);
    } else {
      t.kind = TokenKind::Int;
      t.int_value = parse_magnitude(base == 10 ? digits : digits.substr(2), base, loc);
    }
    tokens_.push_back(std::move(t));
  }

  static double parse_double(std::string_view digits) {
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    (void)end;
    if (ec == std::errc::result_out_of_range) {
      // Python rounds overflow to inf and underflow to 0.
      const std::size_t e = digits.find_first_of("eE");
      const bool tiny = e != std::string_view::npos && e + 1 < digits.size() && digits[e + 1] == '-';
      return tiny ? 0.0 : std::numeric_limits<double>::infinity();
    }
    return value;
  }

  // TorchScript ints are int64; 2^63 itself is allowed so that -9223372036854775808 parses.
  std::uint64_t parse_magnitude(std::string_view digits, int base, const SourceLocation& loc) const {
    constexpr std::uint64_t kMax = std::uint64_t{1} << 63;
    std::uint64_t value = 0;
    for (const char c : digits) {
      const auto d = static_cast<std::uint64_t>(digit_value(c));
      if (value > (kMax - d) / static_cast<std::uint64_t>(base)) fail(loc, "integer literal is too large for int64");
      value = value * static_cast<std::uint64_t>(base) + d;
    }
    return value;
  }

  // '...' and "..." (one line), '''...''' and """...""" (any lines), with Python's escapes.
  void read_string() {
    const SourceLocation loc = here();
    const char quote = peek();
    const bool triple = peek(1) == quote && peek(2) == quote;
    pos_ += triple ? 3 : 1;
    std::string value;
    while (true) {
      if (at_end()) fail(loc, "unterminated string literal");
      const char c = peek();
      if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (c == '\n' || c == '\r') {
        if (!triple) fail(loc, "unterminated string literal");
        value += '\n';
        consume_line_break();
      } else if (c == '\\') {
        read_escape(value, loc);
      } else {
        value += c;
        ++pos_;
      }
      if (value.size() > kMaxTokenBytes) fail(loc, "string literal is longer than " + std::to_string(kMaxTokenBytes) + " bytes");
    }
    emit(TokenKind::String, loc, std::move(value));
  }

  void read_escape(std::string& out, const SourceLocation& string_loc) {
    const SourceLocation loc = here();
    ++pos_;  // the backslash
    if (at_end()) fail(string_loc, "unterminated string literal");
    const char c = peek();
    switch (c) {
      case '\n':
      case '\r':
        consume_line_break();  // an escaped line break continues the string
        return;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x':
      case 'u':
      case 'U': {
        const int count = c == 'x' ? 2 : c == 'u' ? 4 : 8;
        std::uint32_t cp = 0;
        for (int i = 1; i <= count; ++i) {
          const int d = digit_value(peek(static_cast<std::size_t>(i)));
          if (!has(static_cast<std::size_t>(i)) || d >= 16) fail(loc, std::string("truncated \\") + c + " escape");
          cp = cp * 16 + static_cast<std::uint32_t>(d);
        }
        pos_ += static_cast<std::size_t>(count);
        if (c == 'x') {
          out += static_cast<char>(cp);  // a byte, as the printer's octal escapes are
        } else {
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) fail(loc, "invalid unicode code point in escape");
          append_utf8(out, cp);
        }
        break;
      }
      default:
        if (c >= '0' && c <= '7') {
          // \o, \oo or \ooo; the printer writes non-printable bytes as three octal digits.
          unsigned value = 0;
          int n = 0;
          while (n < 3 && peek() >= '0' && peek() <= '7') {
            value = value * 8 + static_cast<unsigned>(peek() - '0');
            ++pos_, ++n;
          }
          if (value > 0xff) fail(loc, "octal escape out of range");
          out += static_cast<char>(value);
          return;
        }
        fail(loc, "unknown escape sequence \\" + (c == '\\' ? std::string("\\") : quote_byte(c)));
    }
    ++pos_;
  }

  void check_token_length(std::size_t start) const {
    if (pos_ - start > kMaxTokenBytes)
      fail(location_of(start), "token is longer than " + std::to_string(kMaxTokenBytes) + " bytes");
  }

  std::string_view src_;
  std::string file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::size_t line_start_ = 0;
  bool at_line_start_ = true;
  std::vector<int> indents_{0};
  std::vector<int> alt_indents_{0};
  std::vector<std::size_t> brackets_;  // indices (into tokens_) of the open brackets
  std::vector<Token> tokens_;
};

}  // namespace

std::string describe(TokenKind kind) {
  switch (kind) {
    case TokenKind::EndOfFile: return "end of file";
    case TokenKind::Newline: return "newline";
    case TokenKind::Indent: return "indent";
    case TokenKind::Dedent: return "dedent";
    case TokenKind::Name: return "name";
    case TokenKind::Int: return "integer";
    case TokenKind::Float: return "float";
    case TokenKind::Imaginary: return "imaginary number";
    case TokenKind::String: return "string";
    default: break;
  }
  auto quoted = [](std::string_view text) {
    std::string out(1, '\'');
    out.append(text);
    out += '\'';
    return out;
  };
  for (const Spelling& kw : kKeywords) {
    if (kw.kind == kind) return quoted(kw.text);
  }
  for (const Spelling& op : kOperators) {
    if (op.kind == kind) return quoted(op.text);
  }
  return "token";
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::EndOfFile:
    case TokenKind::Newline:
    case TokenKind::Indent:
    case TokenKind::Dedent:
      return describe(token.kind);
    case TokenKind::Name:
      return "name '" + token.text + "'";
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Imaginary:
      return "number " + token.text;
    case TokenKind::String: {
      std::string shown = token.text.size() > 40 ? token.text.substr(0, 40) + "..." : token.text;
      return "string \"" + shown + "\"";
    }
    default:
      return "'" + token.text + "'";
  }
}

std::vector<Token> tokenize(std::string_view source, const std::string& filename) {
  return Lexer(source, filename).run();
}

}  // namespace tvk::jit
