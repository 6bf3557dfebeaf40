// Tokenizer for TorchScript source (the Python subset of `code/*.py` in a torch.jit.save archive),
// with Python's line structure: NEWLINE, INDENT and DEDENT tokens, joined lines inside brackets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jit/frontend/source_location.h"

namespace tvk::jit {

// Limits for untrusted input. Deeper nesting (brackets, indentation levels, nested expressions
// and blocks) is a ParseError rather than a stack overflow in the parser or in whoever walks the
// tree later.
inline constexpr int kMaxNestingDepth = 256;
inline constexpr std::size_t kMaxSourceBytes = std::size_t{256} << 20;
inline constexpr std::size_t kMaxLineBytes = std::size_t{4} << 20;
inline constexpr std::size_t kMaxTokenBytes = std::size_t{4} << 20;

enum class TokenKind : std::uint8_t {
  EndOfFile,
  Newline,
  Indent,
  Dedent,
  Name,
  Int,        // int_value holds the magnitude (at most 2^63, so that -2^63 can be written)
  Float,      // float_value
  Imaginary,  // float_value is the imaginary part of `<number>j`
  String,     // text holds the decoded value

  // Keywords: one contiguous block from KwAnd to KwYield (the parser relies on it).
  KwAnd, KwAs, KwAssert, KwBreak, KwClass, KwContinue, KwDef, KwDel, KwElif, KwElse, KwFalse,
  KwFor, KwFrom, KwGlobal, KwIf, KwImport, KwIn, KwIs, KwNone, KwNot, KwOr, KwPass, KwRaise,
  KwReturn, KwTrue, KwWhile, KwWith,
  // Python keywords TorchScript has no use for; the parser rejects them by name.
  KwAsync, KwAwait, KwExcept, KwFinally, KwLambda, KwNonlocal, KwTry, KwYield,

  // Delimiters.
  LParen, RParen, LBracket, RBracket, LBrace, RBrace,
  Comma, Colon, Semicolon, Dot, Ellipsis, Arrow, At, Assign,

  // Operators.
  Plus, Minus, Star, Slash, DoubleSlash, Percent, DoubleStar, Amp, Pipe, Caret, Tilde,
  LeftShift, RightShift, Eq, NotEq, Less, LessEq, Greater, GreaterEq,

  // Augmented assignment.
  PlusAssign, MinusAssign, StarAssign, SlashAssign, DoubleSlashAssign, PercentAssign,
  DoubleStarAssign, AmpAssign, PipeAssign, CaretAssign, LeftShiftAssign, RightShiftAssign, AtAssign,
};

// How a token kind reads in a diagnostic: "'('", "'def'", "newline", "name", "end of file".
std::string describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  // Spelling for names, keywords, operators and numbers; the decoded value for strings.
  std::string text;
  SourceLocation loc;
  std::uint64_t int_value = 0;
  double float_value = 0;
};

// How a token reads in a diagnostic: "name 'foo'", "string \"ab\"", "'+'", "newline".
std::string describe(const Token& token);

// Splits `source` into tokens, ending with NEWLINE (if the last line has content), the DEDENTs
// that close open blocks, and END_OF_FILE. Blank and comment-only lines produce no tokens.
// Throws ParseError for bytes that start no token, bad escapes, unterminated strings or
// brackets, inconsistent dedents or tab/space mixes, and anything over the limits above.
std::vector<Token> tokenize(std::string_view source, const std::string& filename);

}  // namespace tvk::jit
