// The TorchScript parser: grammar and precedence on snippets, errors with their positions, limits
// and fuzzing, and every code file of real models that PyTorch saves at test time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "jit/frontend/parser.h"
#include "jit/runtime/op_references.h"
#include "support/test_support.h"

using namespace tvk::jit;
namespace fs = std::filesystem;

namespace {

std::string dump_expression(std::string_view text) { return dump(*parse_expression(text, "e.py")); }

// The statements of a parsed snippet, each as an S-expression.
std::vector<std::string> dump_statements(std::string_view source) {
  std::vector<std::string> out;
  const auto module = parse_source(source, "s.py");
  for (const StmtPtr& s : module->body) out.push_back(dump(*s));
  return out;
}

// The error a source must raise, as "line:col: description".
std::string parse_error(std::string_view source) {
  try {
    parse_source(source, "code/__torch__/m.py");
  } catch (const ParseError& e) {
    const std::string where = "code/__torch__/m.py:" + std::to_string(e.location().line) + ":" +
                              std::to_string(e.location().column) + ": ";
    EXPECT_EQ(std::string(e.what()), where + e.description());
    return std::to_string(e.location().line) + ":" + std::to_string(e.location().column) + ": " + e.description();
  }
  ADD_FAILURE() << "no error for: " << source;
  return "";
}

// Parses `source`, which may be valid or not: anything but success or a tvk::Error fails the test.
void parse_any(std::string_view source) {
  try {
    parse_source(source, "fuzz.py");
  } catch (const tvk::Error&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "non-tvk exception " << e.what();
  }
}

}  // namespace

// ---- grammar on snippets -----------------------------------------------------------------------

TEST(Parser, OperatorPrecedenceFollowsPython) {
  EXPECT_EQ(dump_expression("a or b and not c == d | e ^ f & g << h + i * -j ** k"),
            "(or (name a) (and (name b) (not (compare (name c) == (| (name d) (^ (name e) (& (name f) (<< (name g) "
            "(+ (name h) (* (name i) (- (** (name j) (name k)))))))))))))");
  EXPECT_EQ(dump_expression("a - b - c"), "(- (- (name a) (name b)) (name c))");
  EXPECT_EQ(dump_expression("a // b % c @ d / e"), "(/ (@ (% (// (name a) (name b)) (name c)) (name d)) (name e))");
  EXPECT_EQ(dump_expression("a ** b ** c"), "(** (name a) (** (name b) (name c)))");
  EXPECT_EQ(dump_expression("2 ** -1"), "(** (int 2) (int -1))");
  EXPECT_EQ(dump_expression("-2 ** 2"), "(- (** (int 2) (int 2)))");
  EXPECT_EQ(dump_expression("~x >> 1"), "(>> (~ (name x)) (int 1))");
  EXPECT_EQ(dump_expression("a < b <= c is not None not in d in e"),
            "(compare (name a) < (name b) <= (name c) is not None not in (name d) in (name e))");
  EXPECT_EQ(dump_expression("x if c else y if d else z"),
            "(ifexp (name c) (name x) (ifexp (name d) (name y) (name z)))");
  EXPECT_EQ(dump_expression("not a or b"), "(or (not (name a)) (name b))");
}

TEST(Parser, LiteralsAsThePrinterWritesThem) {
  EXPECT_EQ(dump_expression("-1."), "(float -1)");
  EXPECT_EQ(dump_expression("-0."), "(float -0)");
  EXPECT_EQ(dump_expression("1.0000000000000001e-05"), "(float 1.0000000000000001e-05)");
  EXPECT_EQ(dump_expression("-9223372036854775808"), "(int -9223372036854775808)");
  EXPECT_EQ(dump_expression("9223372036854775807"), "(int 9223372036854775807)");
  EXPECT_EQ(dump_expression("-(1)"), "(- (int 1))");
  EXPECT_EQ(dump_expression("3j"), "(complex 3)");
  EXPECT_EQ(dump_expression("\"ab\" 'cd'"), "(str \"abcd\")");
  EXPECT_EQ(dump_expression("[None, True, False, ...]"), "(list None True False ...)");
  EXPECT_EQ(dump_expression("(a,)"), "(tuple (name a))");
  EXPECT_EQ(dump_expression("()"), "(tuple)");
  EXPECT_EQ(dump_expression("(a)"), "(name a)");
  EXPECT_EQ(dump_expression("{}"), "(dict)");
  EXPECT_EQ(dump_expression("{\"x\": 1, \"y\": [2, 3], }"), "(dict (str \"x\"):(int 1) (str \"y\"):(list (int 2) (int 3)))");
  EXPECT_EQ(dump_expression("inf"), "(name inf)");  // resolved by the importer's environment

  auto c = parse_expression("-9223372036854775808", "e.py");
  ASSERT_TRUE(c->is<ConstantExpr>());
  EXPECT_EQ(c->as<ConstantExpr>().type, ConstantExpr::Type::Int);
  EXPECT_EQ(c->as<ConstantExpr>().int_value, INT64_MIN);
}

TEST(Parser, CallsAttributesAndSubscripts) {
  EXPECT_EQ(dump_expression("torch.zeros([2, 3], dtype=6, device=torch.device(\"cpu\"), )"),
            "(call (attr (name torch) zeros) (list (int 2) (int 3)) (kw dtype (int 6)) (kw device (call (attr "
            "(name torch) device) (str \"cpu\"))))");
  EXPECT_EQ(dump_expression("(conv).forward(x, )"), "(call (attr (name conv) forward) (name x))");
  EXPECT_EQ(dump_expression("ops.prim.RaiseException(\"AssertionError: \")"),
            "(call (attr (attr (name ops) prim) RaiseException) (str \"AssertionError: \"))");
  EXPECT_EQ(dump_expression("ops.aten.is"), "(attr (attr (name ops) aten) is)");
  EXPECT_EQ(dump_expression("getattr(self, \"0\")"), "(call (name getattr) (name self) (str \"0\"))");
  EXPECT_EQ(dump_expression("(torch.size(x1))[-1]"), "(subscript (call (attr (name torch) size) (name x1)) (int -1))");
  EXPECT_EQ(dump_expression("(t)[0:2]"), "(subscript (name t) (slice (int 0) (int 2) _))");
  EXPECT_EQ(dump_expression("x[:, 1:, ::2, :-1:, ...]"),
            "(subscript (name x) (slice _ _ _) (slice (int 1) _ _) (slice _ _ (int 2)) (slice _ (int -1) _) ...)");
  EXPECT_EQ(dump_expression("f()()[0].a"), "(attr (subscript (call (call (name f))) (int 0)) a)");
  EXPECT_EQ(dump_expression("[v * 2 for v in range(4)]"),
            "(listcomp (* (name v) (int 2)) for (name v) in (call (name range) (int 4)))");
  EXPECT_EQ(dump_expression("{k: v for k, v in d.items()}"),
            "(dictcomp (name k):(name v) for (tuple (name k) (name v)) in (call (attr (name d) items)))");
}

TEST(Parser, TypeAnnotationsAreExpressions) {
  EXPECT_EQ(dump_expression("Dict[str, List[Optional[Tensor]]]"),
            "(subscript (name Dict) (name str) (subscript (name List) (subscript (name Optional) (name Tensor))))");
  EXPECT_EQ(dump_expression("Tuple[()]"), "(subscript (name Tuple) (tuple))");
  EXPECT_EQ(dump_expression("__torch__.torch.classes.vulkan.Conv2dPackedContext"),
            "(attr (attr (attr (attr (name __torch__) torch) classes) vulkan) Conv2dPackedContext)");
  EXPECT_THROW(parse_expression("List[int] x", "e.py"), ParseError);
}

TEST(Parser, Statements) {
  const char* source =
      "import torch\n"
      "from typing import List, Optional as Opt\n"
      "op_version_set = 1\n"
      "@torch.jit.export\n"
      "def f(self, x: Tensor, *, k: int=3, y=None) -> None:\n"
      "  a, b, = torch.chunk(x, 2, 1)\n"
      "  a = b = c\n"
      "  obj.attr = 1,\n"
      "  d[\"k\"] = 2\n"
      "  n : Optional[int] = None\n"
      "  i += 1\n"
      "  if a:\n"
      "    pass\n"
      "  elif b:\n"
      "    return\n"
      "  elif c:\n"
      "    break\n"
      "  else:\n"
      "    continue\n"
      "  for i, j in zip(a, b):\n"
      "    del d[\"k\"], e\n"
      "  while True: pass\n"
      "  with torch.no_grad() as g, ctx():\n"
      "    global q, r\n"
      "  raise ValueError(\"x\")\n"
      "  assert x, \"msg\"\n"
      "  x = 1; y = 2;\n"
      "  return a, b\n";
  const std::vector<std::string> top = dump_statements(source);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0], "(import torch)");
  EXPECT_EQ(top[1], "(import from typing List Optional as Opt)");
  EXPECT_EQ(top[2], "(assign (name op_version_set) (int 1))");

  const auto module = parse_source(source, "s.py");
  const FunctionDef* f = module->find_function("f");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->decorators.size(), 1u);
  EXPECT_EQ(dump(*f->decorators[0]), "(attr (attr (name torch) jit) export)");
  ASSERT_EQ(f->params.size(), 4u);
  EXPECT_EQ(f->params[0].name, "self");
  EXPECT_EQ(f->params[0].annotation, nullptr);
  EXPECT_FALSE(f->params[1].keyword_only);
  EXPECT_TRUE(f->params[2].keyword_only);
  EXPECT_EQ(dump(*f->params[2].default_value), "(int 3)");
  EXPECT_EQ(dump(*f->params[3].default_value), "None");
  EXPECT_EQ(dump(*f->returns), "None");

  std::vector<std::string> body;
  for (const StmtPtr& s : f->body) body.push_back(dump(*s));
  const std::vector<std::string> expected = {
      "(assign (tuple (name a) (name b)) (call (attr (name torch) chunk) (name x) (int 2) (int 1)))",
      "(assign (name a) (name b) (name c))",
      "(assign (attr (name obj) attr) (tuple (int 1)))",
      "(assign (subscript (name d) (str \"k\")) (int 2))",
      "(annassign (name n) (subscript (name Optional) (name int)) None)",
      "(augassign + (name i) (int 1))",
      "(if (name a) [(pass)] [(if (name b) [(return _)] [(if (name c) [(break)] [(continue)])])])",
      "(for (tuple (name i) (name j)) (call (name zip) (name a) (name b)) [(del (subscript (name d) (str \"k\")) "
      "(name e))])",
      "(while True [(pass)])",
      "(with (call (attr (name torch) no_grad)) as (name g) (call (name ctx)) as _ [(global q r)])",
      "(raise (call (name ValueError) (str \"x\")))",
      "(assert (name x) (str \"msg\"))",
      "(assign (name x) (int 1))",
      "(assign (name y) (int 2))",
      "(return (tuple (name a) (name b)))",
  };
  EXPECT_EQ(body, expected);
  EXPECT_EQ(f->body[0]->loc.line, 6);
  EXPECT_EQ(f->body[0]->loc.column, 3);
}

TEST(Parser, ClassBodiesAsThePrinterWritesThem) {
  const char* source =
      "class Sequential(Module):\n"
      "  __parameters__ = []\n"
      "  __buffers__ = [\"buf\", ]\n"
      "  training : bool\n"
      "  __annotations__[\"0\"] = __torch__.torch.nn.modules.activation.ReLU\n"
      "  eps : Final[float] = 1.0000000000000001e-05\n"
      "  kernel_size : Final[Tuple[int, int]] = (3, 3)\n"
      "  def forward(self: __torch__.torch.nn.modules.container.Sequential,\n"
      "    input: Tensor) -> Tensor:\n"
      "    _0 = getattr(self, \"0\")\n"
      "    return (_0).forward(input, )\n"
      "  def __len__(self: __torch__.torch.nn.modules.container.Sequential) -> int:\n"
      "    return 2\n"
      "class Point(NamedTuple):\n"
      "  x : int\n"
      "  y : float = 0.5\n";
  const auto module = parse_source(source, "container.py");
  const ClassDef* seq = module->find_class("Sequential");
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->bases.size(), 1u);
  EXPECT_EQ(dump(*seq->bases[0]), "(name Module)");
  ASSERT_EQ(seq->body.size(), 8u);
  EXPECT_EQ(dump(*seq->body[1]), "(assign (name __buffers__) (list (str \"buf\")))");
  EXPECT_EQ(dump(*seq->body[2]), "(annassign (name training) (name bool) _)");
  EXPECT_EQ(dump(*seq->body[3]),
            "(assign (subscript (name __annotations__) (str \"0\")) (attr (attr (attr (attr (attr (name __torch__) "
            "torch) nn) modules) activation) ReLU))");
  EXPECT_EQ(dump(*seq->body[5]),
            "(annassign (name kernel_size) (subscript (name Final) (subscript (name Tuple) (name int) (name int))) "
            "(tuple (int 3) (int 3)))");
  ASSERT_NE(seq->find_method("forward"), nullptr);
  ASSERT_NE(seq->find_method("__len__"), nullptr);
  EXPECT_EQ(seq->find_method("forward")->params.size(), 2u);
  EXPECT_EQ(seq->find_method("forward")->params[1].loc.line, 9);
  EXPECT_EQ(module->find_class("Point")->body.size(), 2u);
  EXPECT_EQ(module->find_class("Nope"), nullptr);
}

// ---- errors and limits -------------------------------------------------------------------------

TEST(Parser, SyntaxErrorsNameTheLineAndColumn) {
  EXPECT_EQ(parse_error("def f(x):\n  return x +\n"), "2:13: expected an expression, found newline");
  EXPECT_EQ(parse_error("x = 1 2\n"), "1:7: expected end of line, found number 2");
  EXPECT_EQ(parse_error("if x\n  pass\n"), "1:5: expected ':' after the if condition, found newline");
  EXPECT_EQ(parse_error("class A:\nx = 1\n"), "2:1: expected an indented block after the class name, found name 'x'");
  EXPECT_EQ(parse_error("def f(x):\n    a = 1\n      b = 2\n"), "3:7: unexpected indent");
  EXPECT_EQ(parse_error("def f(:)\n"), "1:7: expected a parameter name, found ':'");
  EXPECT_EQ(parse_error("f(a=1, 2)\n"), "1:8: positional argument follows keyword argument");
  EXPECT_EQ(parse_error("x = lambda: 1\n"), "1:5: 'lambda' is not supported in TorchScript");
  EXPECT_EQ(parse_error("try:\n  pass\n"), "1:1: 'try' is not supported in TorchScript");
  EXPECT_EQ(parse_error("x = 1\nelse:\n  pass\n"), "2:1: 'else' without a matching 'if'");
  EXPECT_EQ(parse_error("f() = 3\n"), "1:1: cannot assign to this expression");
  EXPECT_EQ(parse_error("x = 9223372036854775808\n"), "1:5: integer literal is too large for int64");
  EXPECT_EQ(parse_error("x = {1, 2}\n"), "1:7: expected ':' after the dict key (sets are not supported), found ','");
  EXPECT_EQ(parse_error("def f(a=1, b):\n  pass\n"), "1:12: parameter without a default follows parameter with a default");
  EXPECT_EQ(parse_error("x = [1, 2)\n"), "1:10: expected ',' or ']' in the list, found ')'");
  EXPECT_EQ(parse_error("x = (1, 2\ny = 3\n"), "1:5: '(' was never closed");
  EXPECT_EQ(parse_error("for x in y:\n  pass\nelse:\n  pass\n"), "3:1: 'else' after a for loop is not supported in TorchScript");
  EXPECT_EQ(parse_error("def f(*args):\n  pass\n"), "1:7: only a bare '*' (no *args) is supported in a parameter list");
  EXPECT_EQ(parse_error("@dec\nx = 1\n"), "2:1: expected 'def' or 'class' after a decorator, found name 'x'");
  EXPECT_EQ(parse_error("if x:\n  pass\n    y\n"), "3:5: unexpected indent");
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  auto expect_too_deep = [](const std::string& source) {
    try {
      parse_source(source, "deep.py");
      ADD_FAILURE() << "no error for nesting of " << source.size() << " bytes";
    } catch (const ParseError& e) {
      EXPECT_TRUE(std::string(e.what()).find("too deep") != std::string::npos ||
                  std::string(e.what()).find("too many levels") != std::string::npos)
          << e.what();
    }
  };
  const std::size_t n = 100000;
  expect_too_deep("x = " + std::string(500, '(') + "1" + std::string(500, ')') + "\n");
  expect_too_deep("x = " + std::string(n, '-') + "1\n");
  expect_too_deep("x = " + std::string(n, '~') + "1\n");
  std::string nots, sums = "x = a", attrs = "x = a", calls = "x = f", pows = "x = 2", elifs = "if a:\n  pass\n";
  for (std::size_t i = 0; i < n; ++i) {
    nots += "not ";
    sums += "+a";
    attrs += ".a";
    calls += "()";
    pows += "**2";
  }
  for (int i = 0; i < 2000; ++i) elifs += "elif a:\n  pass\n";
  expect_too_deep("x = " + nots + "a\n");
  expect_too_deep(sums + "\n");
  expect_too_deep(attrs + "\n");
  expect_too_deep(calls + "\n");
  expect_too_deep(pows + "\n");
  expect_too_deep(elifs);
  std::string lists = "x = ";
  for (int i = 0; i < 200; ++i) lists += "[-";  // within the lexer's bracket limit, over the parser's
  expect_too_deep(lists + "1" + std::string(200, ']') + "\n");

  // Moderate nesting is fine.
  EXPECT_NO_THROW(parse_source("x = " + std::string(100, '(') + "1" + std::string(100, ')') + "\n", "ok.py"));
  std::string blocks;
  for (int i = 0; i < 100; ++i) blocks += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
  blocks += std::string(100, ' ') + "pass\n";
  EXPECT_NO_THROW(parse_source(blocks, "ok.py"));
}

TEST(Parser, RandomBytesNeverCrash) {
  std::mt19937 rng(1234);
  // Raw bytes, including NULs and invalid UTF-8.
  for (int i = 0; i < 3000; ++i) {
    std::string s(rng() % 200, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    parse_any(s);
  }
  // Token soup, which gets much deeper into the parser than raw bytes do.
  const std::vector<std::string> pieces = {
      "def ", "class ", "if ", "elif ", "else", "for ", " in ", "while ", "return ", "pass", "not ", "and ",
      "or ", "is ", "None", "True", "lambda", "x", "self", "torch", ".", ",", ":", "(", ")", "[", "]", "{",
      "}", "=", "==", "+", "-", "**", "//", "->", "@", "1", "1.", "1e-05", "0x", "\"s\"", "'", "\"", "\\",
      "\n", "\n  ", "\n    ", "\t", " ", "#c", "\r\n", "\"\"\"", "...", ";", "*", "\\x", "9223372036854775808",
      std::string(1, '\0'), "\xff", "global ", "del ", "with ", " as ", "import ", "from ", "assert ", "raise ",
  };
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const std::size_t n = rng() % 40;
    for (std::size_t k = 0; k < n; ++k) s += pieces[rng() % pieces.size()];
    parse_any(s);
  }
}

// ---- real code that PyTorch writes -------------------------------------------------------------

// Saves scripted and traced torchvision models and modules with control flow through Debian's
// torch (/usr/bin/python3), and unpacks their code/ files, once for the whole suite.
class RealCode : public ::testing::Test {
 protected:
  // The models are made once per version of the script and kept (torch takes ~7 s to make
  // them, and each test runs in its own process): under the temporary folder, in a folder named
  // by the script's hash, made in a private folder and renamed into place, so parallel tests
  // never see half of it.
  static void SetUpTestSuite() {
    const fs::path base = fs::path(::testing::TempDir());
    root_ = base / ("tvk_frontend_" + std::to_string(std::hash<std::string>{}(kMakeModels)));
    if (fs::exists(root_ / "models")) return;
    if (std::system("/usr/bin/python3 -c 'import torch, torchvision' > /dev/null 2>&1") != 0) {
      problem_ = "/usr/bin/python3 cannot import torch and torchvision";
      return;
    }
    const fs::path work = base / ("tvk_frontend_" + std::to_string(getpid()));
    fs::create_directories(work);
    const fs::path script = work / "make_models.py";
    std::ofstream(script) << kMakeModels;
    const fs::path log = work / "make_models.log";
    const std::string command = "/usr/bin/python3 " + script.string() + " " + (work / "models").string() + " > " +
                                log.string() + " 2>&1";
    if (std::system(command.c_str()) != 0) {
      std::ostringstream text;
      text << std::ifstream(log).rdbuf();
      problem_ = "making the models failed:\n" + text.str();
      return;
    }
    std::error_code raced;  // another test process put its copy there first: use that one
    fs::rename(work, root_, raced);
    if (raced) fs::remove_all(work, raced);
  }

  void SetUp() override {
    if (problem_.empty()) return;
    if (tvk::testing_support::vulkan_required()) FAIL() << problem_;
    GTEST_SKIP() << problem_;
  }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // Every code file of one model, parsed, keyed by its path under code/.
  static std::map<std::string, std::shared_ptr<const SourceModule>> parse_model(const std::string& model) {
    std::map<std::string, std::shared_ptr<const SourceModule>> files;
    const fs::path code = root_ / "models" / model / "code";
    for (const auto& entry : fs::recursive_directory_iterator(code)) {
      if (entry.path().extension() != ".py") continue;
      const std::string name = fs::relative(entry.path(), code).string();
      try {
        files[name] = parse_source(read(entry.path()), name);
      } catch (const ParseError& e) {
        ADD_FAILURE() << model << ": " << e.what();
      }
    }
    return files;
  }

  // The first class called `name` in any file (names repeat across ___torch_mangle_N files).
  static const ClassDef* find_class(const std::map<std::string, std::shared_ptr<const SourceModule>>& files,
                                    std::string_view name) {
    for (const auto& [path, module] : files) {
      if (const ClassDef* c = module->find_class(name)) return c;
    }
    return nullptr;
  }

  static fs::path code_file(const std::string& model, const std::string& path) {
    return root_ / "models" / model / "code" / path;
  }

  static inline fs::path root_;
  static inline std::string problem_;
  static const char* const kMakeModels;
};

const char* const RealCode::kMakeModels = R"PY(
import os, sys, zipfile
from typing import Dict, List, NamedTuple, Optional, Tuple
import torch
import torchvision

out = sys.argv[1]

class Ctl(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.names = ["a", "b"]
        self.scale = 2.5

    def forward(self, x: torch.Tensor, n: int, flag: Optional[bool] = None) -> Tuple[torch.Tensor, List[int], Dict[str, float]]:
        out: List[int] = []
        for i in range(n):
            if i % 3 == 0:
                out.append(i)
            elif i % 3 == 1:
                out.append(-i)
            else:
                continue
        for s in self.names:
            out.append(len(s))
        j = 0
        while j < 5 and n > 0:
            j += 1
        assert n >= 0, "bad n"
        if n > 100:
            raise ValueError("too big {}".format(n))
        if flag is not None and flag:
            x = x * 2.0
        y = self.conv(x)
        if isinstance(flag, bool):
            j = 7
        d = {"s": self.scale, "inf": float("inf"), "eps": 1e-5}
        z = x if n > 1 else -x
        return y + z.sum() ** 2 // 3, out, d

class Point(NamedTuple):
    x: int
    y: float

@torch.jit.script
class Counter:
    def __init__(self, start: int):
        self.value = start

    def bump(self, by: int) -> int:
        self.value += by
        return self.value

class Extras(torch.nn.Module):
    limit: torch.jit.Final[int]

    def __init__(self):
        super().__init__()
        self.limit = 3
        self.seq = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Hardtanh(-2.0, 2.0))
        self.blocks = torch.nn.ModuleList([torch.nn.Identity(), torch.nn.ReLU()])
        self.register_buffer("buf", torch.zeros(2))

    @torch.jit.export
    def helper(self, s: str, k: int) -> str:
        return "{}:{} \"q\"\t".format(s, k)

    def forward(self, x: torch.Tensor, opt: Optional[torch.Tensor]) -> Tuple[Point, torch.Tensor, str, List[int]]:
        for b in self.blocks:
            x = b(x)
        x = self.seq(x)
        c = Counter(1)
        total = c.bump(self.limit)
        if opt is not None:
            x = x + opt
        sl = x[:, 1:3]
        ints = [v * 2 for v in range(4)][1:]
        label = self.helper("n", ints[-1])
        return Point(total, 0.5), sl, label, ints

os.makedirs(out, exist_ok=True)
models = {"ctl": torch.jit.script(Ctl()), "extras": torch.jit.script(Extras())}
example = torch.rand(1, 3, 64, 64)
for name in ["mobilenet_v2", "resnet18", "squeezenet1_1"]:
    m = getattr(torchvision.models, name)().eval()
    models[name + "_scripted"] = torch.jit.script(m)
    models[name + "_traced"] = torch.jit.trace(m, example)
for name, m in models.items():
    path = os.path.join(out, name + ".pt")
    m.save(path)
    with zipfile.ZipFile(path) as z:
        for entry in z.namelist():
            top, _, rest = entry.partition("/")
            if rest.startswith("code/") and rest.endswith(".py"):
                dest = os.path.join(out, name, rest)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as f:
                    f.write(z.read(entry))
)PY";

TEST_F(RealCode, EveryCodeFileOfEveryModelParses) {
  const std::vector<std::string> models = {"ctl", "extras", "mobilenet_v2_scripted", "mobilenet_v2_traced",
                                           "resnet18_scripted", "resnet18_traced", "squeezenet1_1_scripted",
                                           "squeezenet1_1_traced"};
  for (const std::string& model : models) {
    SCOPED_TRACE(model);
    const auto files = parse_model(model);
    EXPECT_GE(files.size(), 2u);
    int forwards = 0;
    for (const auto& [path, module] : files) {
      EXPECT_EQ(module->filename, path);
      // A code file is classes and free functions, as many as its unindented headers.
      std::size_t class_lines = 0, def_lines = 0;
      std::istringstream text(read(root_ / "models" / model / "code" / path));
      for (std::string line; std::getline(text, line);) {
        class_lines += line.rfind("class ", 0) == 0;
        def_lines += line.rfind("def ", 0) == 0;
      }
      std::size_t classes = 0, functions = 0;
      for (const StmtPtr& s : module->body) {
        EXPECT_TRUE(s->is<ClassDef>() || s->is<FunctionDef>()) << path << ": " << dump(*s);
        if (s->is<ClassDef>()) {
          ++classes;
          forwards += s->as<ClassDef>().find_method("forward") != nullptr;
        }
        functions += s->is<FunctionDef>();
      }
      EXPECT_EQ(classes, class_lines) << path;
      EXPECT_EQ(functions, def_lines) << path;
    }
    EXPECT_GE(forwards, 2);
  }
}

TEST_F(RealCode, ScriptedControlFlow) {
  const auto files = parse_model("ctl");
  ASSERT_EQ(files.count("__torch__.py"), 1u);
  const ClassDef* ctl = files.at("__torch__.py")->find_class("Ctl");
  ASSERT_NE(ctl, nullptr);
  EXPECT_EQ(dump(*ctl->bases.at(0)), "(name Module)");
  EXPECT_EQ(dump(*ctl->body.at(0)), "(assign (name __parameters__) (list))");
  EXPECT_EQ(dump(*ctl->body.at(2)), "(annassign (name training) (name bool) _)");
  EXPECT_EQ(dump(*ctl->body.at(3)), "(annassign (name _is_full_backward_hook) (subscript (name Optional) (name bool)) _)");
  EXPECT_EQ(dump(*ctl->body.at(6)),
            "(annassign (name conv) (attr (attr (attr (attr (attr (name __torch__) torch) nn) modules) conv) Conv2d) _)");

  const FunctionDef* forward = ctl->find_method("forward");
  ASSERT_NE(forward, nullptr);
  ASSERT_EQ(forward->params.size(), 4u);
  EXPECT_EQ(forward->params[0].name, "self");
  EXPECT_EQ(dump(*forward->params[0].annotation), "(attr (name __torch__) Ctl)");
  EXPECT_EQ(forward->params[3].name, "flag");
  EXPECT_EQ(dump(*forward->params[3].annotation), "(subscript (name Optional) (name bool))");
  EXPECT_EQ(dump(*forward->params[3].default_value), "None");
  EXPECT_EQ(dump(*forward->returns),
            "(subscript (name Tuple) (name Tensor) (subscript (name List) (name int)) (subscript (name Dict) (name str) "
            "(name float)))");

  const Block& body = forward->body;
  ASSERT_EQ(body.size(), 21u);
  EXPECT_EQ(dump(*body[0]), "(assign (name _0) (call (name uninitialized) (name bool)))");
  EXPECT_EQ(dump(*body[1]), "(assign (name out) (call (name annotate) (subscript (name List) (name int)) (list)))");
  // The counted loop with an elif chain became a while over a flag, with if/else inside.
  ASSERT_TRUE(body[4]->is<WhileStmt>());
  const WhileStmt& loop = body[4]->as<WhileStmt>();
  EXPECT_EQ(dump(*loop.test), "(name _2)");
  ASSERT_TRUE(loop.body.at(1)->is<IfStmt>());
  EXPECT_TRUE(loop.body.at(1)->as<IfStmt>().orelse.at(1)->is<IfStmt>());
  EXPECT_EQ(dump(*loop.body.back()), "(assign (tuple (name _2) (name _1)) (tuple (name _13) (name _12)))");
  // `for s in self.names` became a range loop over the list.
  ASSERT_TRUE(body[6]->is<ForStmt>());
  EXPECT_EQ(dump(*body[6]->as<ForStmt>().iter), "(call (name range) (call (attr (name torch) len) (name names)))");
  EXPECT_TRUE(body[9]->is<WhileStmt>());
  // assert and raise.
  ASSERT_TRUE(body[10]->is<IfStmt>());
  EXPECT_EQ(dump(*body[10]->as<IfStmt>().orelse.at(0)),
            "(expr (call (attr (attr (name ops) prim) RaiseException) (str \"AssertionError: bad n\")))");
  EXPECT_EQ(dump(*body[11]->as<IfStmt>().body.at(0)),
            "(expr (call (attr (attr (name ops) prim) RaiseException) (call (attr (name torch) format) (str \"too big "
            "{}\") (name n)) (str \"builtins.ValueError\")))");
  // Optional refinement.
  EXPECT_EQ(dump(*body[12]),
            "(if (call (attr (name torch) __isnot__) (name flag) None) [(assign (name _18) (call (name unchecked_cast) "
            "(name bool) (name flag)))] [(assign (name _18) False)])");
  EXPECT_EQ(dump(*body[15]), "(assign (name y) (call (attr (name conv) forward) (name x0)))");
  EXPECT_EQ(dump(*body[17]),
            "(assign (name d) (dict (str \"s\"):(name scale) (str \"inf\"):(name inf) (str \"eps\"):(float "
            "1.0000000000000001e-05)))");
  EXPECT_EQ(dump(*body[20]),
            "(return (tuple (call (attr (name torch) add) (name y) (name _19)) (name out) (name d)))");
}

TEST_F(RealCode, ScriptedClassesNamedTuplesAndContainers) {
  const auto files = parse_model("extras");
  const SourceModule& top = *files.at("__torch__.py");
  const ClassDef* extras = top.find_class("Extras");
  ASSERT_NE(extras, nullptr);
  EXPECT_EQ(dump(*extras->body.at(1)), "(assign (name __buffers__) (list (str \"buf\")))");
  bool found_limit = false;
  for (const StmtPtr& s : extras->body) {
    if (s->is<AnnAssignStmt>() && dump(*s->as<AnnAssignStmt>().target) == "(name limit)") {
      found_limit = true;
      EXPECT_EQ(dump(*s), "(annassign (name limit) (subscript (name Final) (name int)) (int 3))");
    }
  }
  EXPECT_TRUE(found_limit);

  const FunctionDef* forward = extras->find_method("forward");
  ASSERT_NE(forward, nullptr);
  std::vector<std::string> body;
  for (const StmtPtr& s : forward->body) body.push_back(dump(*s));
  EXPECT_NE(std::find(body.begin(), body.end(), "(assign (name _0) (call (name getattr) (name blocks) (str \"0\")))"),
            body.end());
  EXPECT_NE(std::find(body.begin(), body.end(),
                      "(assign (name c) (call (attr (attr (name __torch__) Counter) __new__) (attr (name __torch__) "
                      "Counter)))"),
            body.end());
  EXPECT_NE(std::find(body.begin(), body.end(),
                      "(assign (name label) (call (attr (name self) helper) (str \"n\") (subscript (name ints) (int "
                      "-1))))"),
            body.end());
  EXPECT_EQ(body.back(), "(return (name _5))");

  const FunctionDef* helper = extras->find_method("helper");
  ASSERT_NE(helper, nullptr);
  const auto& ret = helper->body.at(0)->as<ReturnStmt>();
  const auto& format = ret.value->as<CallExpr>();
  EXPECT_EQ(format.args.at(0)->as<ConstantExpr>().string_value, "{}:{} \"q\"\t");

  const ClassDef* point = top.find_class("Point");
  ASSERT_NE(point, nullptr);
  EXPECT_EQ(dump(*point->bases.at(0)), "(name NamedTuple)");
  EXPECT_EQ(point->body.size(), 2u);
  const ClassDef* counter = top.find_class("Counter");
  ASSERT_NE(counter, nullptr);
  EXPECT_TRUE(counter->bases.empty());
  ASSERT_NE(counter->find_method("__init__"), nullptr);
  EXPECT_EQ(dump(*counter->find_method("__init__")->body.at(0)), "(assign (attr (name self) value) (name start))");

  const ClassDef* sequential = find_class(files, "Sequential");
  ASSERT_NE(sequential, nullptr);
  EXPECT_EQ(dump(*sequential->body.at(4)).rfind("(assign (subscript (name __annotations__) (str \"0\")) (attr", 0), 0u);
}

TEST_F(RealCode, ScriptedMobileNet) {
  const auto files = parse_model("mobilenet_v2_scripted");
  const ClassDef* net = find_class(files, "MobileNetV2");
  ASSERT_NE(net, nullptr);
  ASSERT_NE(net->find_method("forward"), nullptr);
  ASSERT_NE(net->find_method("_forward_impl"), nullptr);
  EXPECT_EQ(dump(*net->find_method("forward")->body.at(0)),
            "(return (call (attr (name self) _forward_impl) (name x)))");

  const ClassDef* block = find_class(files, "InvertedResidual");
  ASSERT_NE(block, nullptr);
  const Block& body = block->find_method("forward")->body;
  ASSERT_EQ(body.size(), 3u);
  EXPECT_TRUE(body[1]->is<IfStmt>());
  EXPECT_TRUE(body[2]->is<ReturnStmt>());

  const SourceModule& functional = *files.at("__torch__/torch/nn/functional.py");
  const FunctionDef* batch_norm = functional.find_function("batch_norm");
  ASSERT_NE(batch_norm, nullptr);
  ASSERT_EQ(batch_norm->params.size(), 8u);
  EXPECT_EQ(batch_norm->params[6].name, "momentum");
  EXPECT_EQ(batch_norm->params[6].default_value->as<ConstantExpr>().float_value, 0.1);
  EXPECT_EQ(batch_norm->params[7].default_value->as<ConstantExpr>().float_value, 1e-05);
  EXPECT_EQ(dump(*batch_norm->returns), "(name Tensor)");
  const FunctionDef* hardtanh = functional.find_function("hardtanh");
  ASSERT_NE(hardtanh, nullptr);
  EXPECT_EQ(dump(*hardtanh->params[1].default_value), "(float -1)");
}

TEST_F(RealCode, TracedResNet) {
  const auto files = parse_model("resnet18_traced");
  const ClassDef* net = find_class(files, "ResNet");
  ASSERT_NE(net, nullptr);
  const FunctionDef* forward = net->find_method("forward");
  ASSERT_NE(forward, nullptr);
  ASSERT_EQ(forward->params.size(), 2u);
  EXPECT_EQ(forward->params[1].name, "x");
  ASSERT_EQ(forward->body.size(), 16u);
  EXPECT_EQ(dump(*forward->body[0]), "(assign (name fc) (attr (name self) fc))");
  EXPECT_EQ(dump(*forward->body.back()), "(return (call (attr (name fc) forward) (name input)))");

  const ClassDef* conv = find_class(files, "Conv2d");
  ASSERT_NE(conv, nullptr);
  const auto& assign = conv->find_method("forward")->body.at(1)->as<AssignStmt>();
  const auto& call = assign.value->as<CallExpr>();
  EXPECT_EQ(dump(*call.func), "(attr (name torch) _convolution)");
  EXPECT_EQ(call.args.size(), 13u);
}

TEST_F(RealCode, TruncatedAndMutatedFilesNeverCrash) {
  const std::vector<fs::path> sources = {
      code_file("ctl", "__torch__.py"),
      code_file("extras", "__torch__.py"),
      code_file("mobilenet_v2_scripted", "__torch__/torch/nn/functional.py"),
      code_file("mobilenet_v2_scripted", "__torch__/torchvision/models/mobilenetv2.py"),
  };
  std::mt19937 rng(99);
  for (const fs::path& path : sources) {
    const std::string text = read(path);
    ASSERT_FALSE(text.empty()) << path;
    EXPECT_NO_THROW(parse_source(text, path.string()));
    int parsed = 0, rejected = 0;
    const std::size_t step = std::max<std::size_t>(1, text.size() / 300);
    for (std::size_t cut = 0; cut <= text.size(); cut += step) {
      try {
        parse_source(std::string_view(text).substr(0, cut), "cut.py");
        ++parsed;
      } catch (const ParseError&) {
        ++rejected;
      }
    }
    EXPECT_GT(parsed, 0);  // cuts at line ends inside a block are valid code
    EXPECT_GT(rejected, 0);
    for (int i = 0; i < 300; ++i) {
      std::string mutated = text;
      for (int k = 0; k < 3; ++k) mutated[rng() % mutated.size()] = static_cast<char>(rng() % 256);
      parse_any(mutated);
    }
  }
}

// tvk check's reading of the code: every call to an op, where it is, sorted by what tvk has for
// it; builtins, methods and the interpreter's own names are not ops.
TEST(OpReferences, EveryCalledOpIsFoundWithItsPlace) {
  CompilationUnit unit;
  unit.add_source(parse_source(R"(class M(Module):
  def forward(self, x: Tensor) -> Tensor:
    y = torch.relu(x)
    if torch.gt(torch.len(torch.size(y)), 2):
      y = torch.topk(y, 2)[0]
    else:
      y = ops.torchvision.no_such_op(torch.nn.functional.made_up(y))
    for i in range(torch.len(self.sizes)):
      y = torch.made_up(y, [torch.sigmoid(y)][0])
    return torch.add(y, ops.prim.dtype(y))
)", "code/__torch__/m.py"), "__torch__.m");
  const OpReferences refs = op_references(unit);
  ASSERT_EQ(refs.unknown.size(), 2u) << "made_up (twice: torch. and nn.functional.) and torchvision::no_such_op";
  EXPECT_EQ(refs.unknown.at("aten::made_up").size(), 2u);
  EXPECT_EQ(refs.unknown.at("aten::made_up").front(), "code/__torch__/m.py:7:38");
  EXPECT_EQ(refs.unknown.count("torchvision::no_such_op"), 1u);
  EXPECT_EQ(refs.cpu_only.count("aten::topk"), 1u);
  // Without the Vulkan backend built, ops with Vulkan kernels elsewhere are CPU-only here.
  for (const char* op : {"aten::relu", "aten::sigmoid"})
    EXPECT_EQ((TVK_USE_VULKAN ? refs.vulkan : refs.cpu_only).count(op), 1u) << op;
  // Names the builtins answer (int arithmetic and comparisons, len) and prim ops are not listed:
  // torch.add may be either, and both exist.
  for (const char* op : {"aten::add", "aten::gt", "aten::len", "prim::dtype"})
    EXPECT_EQ(refs.vulkan.count(op) + refs.unknown.count(op) + refs.cpu_only.count(op), 0u) << op;
}
