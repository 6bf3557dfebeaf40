// The TorchScript tokenizer: line structure, literals in the printer's formats, locations and
// errors on malformed input.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "jit/frontend/lexer.h"

using namespace tvk::jit;
using K = TokenKind;

namespace {

std::vector<TokenKind> kinds(std::string_view source) {
  std::vector<TokenKind> out;
  for (const Token& t : tokenize(source, "t.py")) out.push_back(t.kind);
  return out;
}

// The error a source must raise, as "line:col: description".
std::string lex_error(std::string_view source) {
  try {
    tokenize(source, "t.py");
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("t.py:", 0), 0u) << e.what();
    return std::to_string(e.location().line) + ":" + std::to_string(e.location().column) + ": " + e.description();
  }
  ADD_FAILURE() << "no error for: " << source;
  return "";
}

Token single(std::string_view source) {
  std::vector<Token> tokens = tokenize(source, "t.py");
  EXPECT_EQ(tokens.size(), 3u) << source;  // the token, NEWLINE, END_OF_FILE
  return tokens.empty() ? Token{} : tokens[0];
}

}  // namespace

TEST(Lexer, IndentationProducesIndentAndDedent) {
  const char* source =
      "class A(Module):\n"
      "  x : int\n"
      "  def f(self):\n"
      "    if x:\n"
      "      pass\n"
      "    return 1\n"
      "def g():\n"
      "  pass\n";
  EXPECT_EQ(kinds(source), (std::vector<TokenKind>{
                               K::KwClass, K::Name, K::LParen, K::Name, K::RParen, K::Colon, K::Newline,
                               K::Indent, K::Name, K::Colon, K::Name, K::Newline,
                               K::KwDef, K::Name, K::LParen, K::Name, K::RParen, K::Colon, K::Newline,
                               K::Indent, K::KwIf, K::Name, K::Colon, K::Newline,
                               K::Indent, K::KwPass, K::Newline,
                               K::Dedent, K::KwReturn, K::Int, K::Newline,
                               K::Dedent, K::Dedent, K::KwDef, K::Name, K::LParen, K::RParen, K::Colon, K::Newline,
                               K::Indent, K::KwPass, K::Newline, K::Dedent, K::EndOfFile}));
}

TEST(Lexer, BlankLinesCommentsAndMissingFinalNewline) {
  const char* source =
      "# header comment\n"
      "\n"
      "def f():   # trailing comment\n"
      "\n"
      "      # a comment at another indentation\n"
      "  return 1";
  EXPECT_EQ(kinds(source), (std::vector<TokenKind>{K::KwDef, K::Name, K::LParen, K::RParen, K::Colon, K::Newline,
                                                    K::Indent, K::KwReturn, K::Int, K::Newline, K::Dedent,
                                                    K::EndOfFile}));
  EXPECT_EQ(kinds(""), (std::vector<TokenKind>{K::EndOfFile}));
  EXPECT_EQ(kinds("\n\n   \n# only a comment"), (std::vector<TokenKind>{K::EndOfFile}));
}

TEST(Lexer, BracketsJoinLinesAsInTheMultiLineDefHeaders) {
  const char* source =
      "def forward(self: __torch__.Ctl,\n"
      "    x: Tensor,\n"
      "\n"
      "    flag: Optional[bool]=None) -> Tensor:\n"
      "  return x\n";
  const std::vector<Token> tokens = tokenize(source, "t.py");
  int newlines = 0, indents = 0;
  for (const Token& t : tokens) {
    newlines += t.kind == K::Newline;
    indents += t.kind == K::Indent;
  }
  EXPECT_EQ(newlines, 2);
  EXPECT_EQ(indents, 1);
  // `flag` keeps its real position although the line is joined.
  for (const Token& t : tokens) {
    if (t.text == "flag") {
      EXPECT_EQ(t.loc.line, 4);
      EXPECT_EQ(t.loc.column, 5);
    }
  }
}

TEST(Lexer, BackslashContinuationAndLineEndings) {
  EXPECT_EQ(kinds("x = 1 + \\\n    2\n"),
            (std::vector<TokenKind>{K::Name, K::Assign, K::Int, K::Plus, K::Int, K::Newline, K::EndOfFile}));
  EXPECT_EQ(kinds("if x:\r\n  pass\r\nelse:\r  pass\r"),
            (std::vector<TokenKind>{K::KwIf, K::Name, K::Colon, K::Newline, K::Indent, K::KwPass, K::Newline,
                                    K::Dedent, K::KwElse, K::Colon, K::Newline, K::Indent, K::KwPass, K::Newline,
                                    K::Dedent, K::EndOfFile}));
  EXPECT_EQ(lex_error("x = 1 \\ 2\n"), "1:7: unexpected character after line continuation");
  EXPECT_EQ(lex_error("x = 1 \\"), "1:7: unexpected end of file after line continuation");
}

TEST(Lexer, TabsFollowPythonRules) {
  // A tab reaches column 8, the same as eight spaces only if the file never depends on it.
  EXPECT_EQ(kinds("if x:\n\tif y:\n\t\tpass\n\tpass\n"),
            (std::vector<TokenKind>{K::KwIf, K::Name, K::Colon, K::Newline, K::Indent, K::KwIf, K::Name, K::Colon,
                                    K::Newline, K::Indent, K::KwPass, K::Newline, K::Dedent, K::KwPass, K::Newline,
                                    K::Dedent, K::EndOfFile}));
  EXPECT_EQ(lex_error("if x:\n        a\n\tb\n"), "3:2: inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(lex_error("if x:\n    a\n  b\n"), "3:3: unindent does not match any outer indentation level");
}

TEST(Lexer, NumbersInThePrintersFormats) {
  Token t = single("1.");
  EXPECT_EQ(t.kind, K::Float);
  EXPECT_EQ(t.float_value, 1.0);
  EXPECT_EQ(single("0.10000000000000001").float_value, 0.1);
  EXPECT_EQ(single("1.0000000000000001e-05").float_value, 1e-05);
  EXPECT_EQ(single("1e-05").float_value, 1e-05);
  EXPECT_EQ(single("1e+20").float_value, 1e20);
  EXPECT_EQ(single(".5").float_value, 0.5);
  EXPECT_EQ(single("4.9406564584124654e-324").float_value, 4.9406564584124654e-324);
  EXPECT_EQ(single("1e999").float_value, std::numeric_limits<double>::infinity());

  t = single("9223372036854775807");
  EXPECT_EQ(t.kind, K::Int);
  EXPECT_EQ(t.int_value, 9223372036854775807ull);
  EXPECT_EQ(single("9223372036854775808").int_value, 9223372036854775808ull);  // negated by the parser
  EXPECT_EQ(single("0x1F").int_value, 31u);
  EXPECT_EQ(single("0o17").int_value, 15u);
  EXPECT_EQ(single("0b101").int_value, 5u);
  EXPECT_EQ(single("10000000000").int_value, 10000000000u);  // integral floats >= 1e10 print like this

  t = single("2.5j");
  EXPECT_EQ(t.kind, K::Imaginary);
  EXPECT_EQ(t.float_value, 2.5);

  EXPECT_EQ(lex_error("x = 99999999999999999999\n"), "1:5: integer literal is too large for int64");
  EXPECT_EQ(lex_error("x = 1e\n"), "1:5: malformed exponent in number literal");
  EXPECT_EQ(lex_error("x = 12abc\n"), "1:5: malformed number literal");
  EXPECT_EQ(lex_error("x = 0x\n"), "1:5: malformed number literal");
}

TEST(Lexer, StringsWithThePrintersEscapes) {
  // printQuotedString: \\ \' \" \a \b \f \n \r \t \v and three-digit octal for other bytes.
  EXPECT_EQ(single(R"("a\"b\n\tc\'d\\e")").text, "a\"b\n\tc'd\\e");
  EXPECT_EQ(single(R"("\a\b\f\r\v")").text, "\a\b\f\r\v");
  EXPECT_EQ(single(R"("\001\177x\0")").text, std::string("\001\177x\0", 4));
  EXPECT_EQ(single(R"('single "quoted"')").text, "single \"quoted\"");
  EXPECT_EQ(single(R"("\x41\u00e9")").text, "A\xc3\xa9");
  EXPECT_EQ(single("\"\"\"multi\nline\"\"\"").text, "multi\nline");
  EXPECT_EQ(single("\"caf\xc3\xa9 \xff\"").text, "caf\xc3\xa9 \xff");  // bytes pass through

  // Adjacent literals are two tokens; the parser concatenates them.
  EXPECT_EQ(kinds("\"a\" 'b'"), (std::vector<TokenKind>{K::String, K::String, K::Newline, K::EndOfFile}));

  EXPECT_EQ(lex_error("x = \"abc\n"), "1:5: unterminated string literal");
  EXPECT_EQ(lex_error("x = 'abc"), "1:5: unterminated string literal");
  EXPECT_EQ(lex_error("x = \"\"\"abc\n\n"), "1:5: unterminated string literal");
  EXPECT_EQ(lex_error("x = \"a\\q\"\n"), "1:7: unknown escape sequence \\'q'");
  EXPECT_EQ(lex_error("x = \"\\x4\"\n"), "1:6: truncated \\x escape");
  EXPECT_EQ(lex_error("x = \"\\400\"\n"), "1:6: octal escape out of range");
}

TEST(Lexer, OperatorsAndDelimiters) {
  EXPECT_EQ(kinds("-> ** // << >> == != <= >= += -= *= /= //= %= **= &= |= ^= <<= >>= @= ..."),
            (std::vector<TokenKind>{K::Arrow, K::DoubleStar, K::DoubleSlash, K::LeftShift, K::RightShift, K::Eq,
                                    K::NotEq, K::LessEq, K::GreaterEq, K::PlusAssign, K::MinusAssign,
                                    K::StarAssign, K::SlashAssign, K::DoubleSlashAssign, K::PercentAssign,
                                    K::DoubleStarAssign, K::AmpAssign, K::PipeAssign, K::CaretAssign,
                                    K::LeftShiftAssign, K::RightShiftAssign, K::AtAssign, K::Ellipsis, K::Newline,
                                    K::EndOfFile}));
  EXPECT_EQ(kinds("( ) [ ] { } , : ; . @ = + - * / % & | ^ ~ < >"),
            (std::vector<TokenKind>{K::LParen, K::RParen, K::LBracket, K::RBracket, K::LBrace, K::RBrace,
                                    K::Comma, K::Colon, K::Semicolon, K::Dot, K::At, K::Assign, K::Plus, K::Minus,
                                    K::Star, K::Slash, K::Percent, K::Amp, K::Pipe, K::Caret, K::Tilde, K::Less,
                                    K::Greater, K::Newline, K::EndOfFile}));
}

TEST(Lexer, NamesKeywordsAndLocations) {
  const std::vector<Token> tokens = tokenize("x = ops.prim.RaiseException(None, True)\n  \n_0 = inf\n", "f.py");
  ASSERT_GE(tokens.size(), 16u);
  EXPECT_EQ(tokens[2].kind, K::Name);
  EXPECT_EQ(tokens[2].text, "ops");
  EXPECT_EQ(tokens[6].text, "RaiseException");
  EXPECT_EQ(tokens[6].loc.column, 14);
  EXPECT_EQ(tokens[8].kind, K::KwNone);
  EXPECT_EQ(tokens[10].kind, K::KwTrue);
  EXPECT_EQ(tokens[13].text, "_0");
  EXPECT_EQ(tokens[13].loc.line, 3);
  EXPECT_EQ(tokens[13].loc.column, 1);
  EXPECT_EQ(tokens[13].loc.file, "f.py");
  EXPECT_EQ(tokens[15].kind, K::Name);  // inf is an ordinary name the importer defines
  EXPECT_EQ(describe(K::KwDef), "'def'");
  EXPECT_EQ(describe(tokens[0]), "name 'x'");
}

TEST(Lexer, ForeignBytesAreErrorsWithTheirPosition) {
  EXPECT_EQ(lex_error("x = 1\ny = $\n"), "2:5: unexpected character '$'");
  EXPECT_EQ(lex_error(std::string_view("x = \0\n", 6)), "1:5: unexpected character \\x00");
  EXPECT_EQ(lex_error("x = \xc3\xa9\n"), "1:5: unexpected character \\xc3");
  EXPECT_EQ(lex_error("x = a ! b\n"), "1:7: unexpected character '!'");
  EXPECT_EQ(lex_error("x = f(1,\n  2\n"), "1:6: '(' was never closed");
}

TEST(Lexer, LimitsOnNesting) {
  EXPECT_NO_THROW(tokenize(std::string(100, '(') + std::string(100, ')'), "t.py"));
  EXPECT_EQ(lex_error(std::string(100000, '[')).substr(0, 25), "1:257: brackets nested to");
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
  EXPECT_NE(lex_error(deep).find("too many levels of indentation"), std::string::npos);
}
