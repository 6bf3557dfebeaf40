// Generated TorchScript programs, for the sandbox tests (Sandbox.GeneratedPrograms...) and the
// structure-aware fuzz target fuzz_program (tests/fuzz): four methods of loops, nested values,
// recursion, integer edge values and allocation, called from forward. Header-only, no gtest.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "jit/serialization/pickler.h"
#include "jit/serialization/zip_writer.h"
#include "tvk/ivalue.h"

namespace tvk::testing_support {

// A TorchScript archive whose module class __torch__.m.M has `methods` (indented two spaces) and,
// when `extra` is set, an extra/ record holding it.
inline std::vector<uint8_t> script_archive(const std::string& methods, const std::string& extra = "") {
  auto root = std::make_shared<Object>();
  root->type_name = "__torch__.m.M";
  root->set("training", IValue(false));
  jit::Pickler pickler;
  const std::vector<uint8_t> data_pkl = pickler.pickle(IValue(root));
  jit::ZipWriter zip = jit::ZipWriter::in_memory("m");
  zip.add("code/__torch__/m.py", "import torch\nclass M(Module):\n  __parameters__ = []\n  __buffers__ = []\n"
                                 "  training : bool\n" + methods);
  zip.add("data.pkl", data_pkl);
  if (!extra.empty()) zip.add("extra/notes.txt", extra);
  zip.finish();
  return zip.bytes();
}

// Random TorchScript programs for the interpreter: loops (nested, long, endless), calls and
// recursion, integer edge values and every integer operator, lists and strings that grow, tensors
// of any size. Not well typed on purpose: the interpreter must answer each with a result or a
// tvk::Error under the limits.
class ProgramGenerator {
 public:
  // Choices from a generator seeded with `seed`.
  explicit ProgramGenerator(uint64_t seed) : rng_(seed) {}
  // Choices from `size` bytes (libFuzzer's input), one per choice, then zeros: every input is a
  // program, and a mutation of the input changes its structure.
  ProgramGenerator(const uint8_t* data, size_t size) : bytes_(data), size_(size) {}

  std::string program() {
    std::string code;
    for (int f = 0; f < kFunctions; ++f) {
      function_ = f;
      code += "  def f" + std::to_string(f) + "(self: __torch__.m.M, n: int) -> int:\n";
      code += "    a = n\n    b = 1\n    c = -1\n    l = [n]\n    s = 'x'\n";
      code += block(2, 2) + "    return " + int_expr(2) + "\n";
    }
    return code + "  def forward(self: __torch__.m.M) -> int:\n    return self.f0(" + literal() + ")\n";
  }

 private:
  static constexpr int kFunctions = 4;

  int pick(int n) {
    const uint64_t choice = bytes_ == nullptr ? rng_() : (position_ < size_ ? bytes_[position_++] : 0);
    return static_cast<int>(choice % static_cast<uint64_t>(n));
  }

  std::string literal() {
    static const char* values[] = {"0", "1", "-1", "2", "7", "-3", "63", "100000", "9223372036854775807",
                                   "(-9223372036854775807 - 1)", "4611686018427387904", "1073741824"};
    return values[pick(12)];
  }

  std::string int_expr(int depth) {
    if (depth <= 0) {
      static const char* leaves[] = {"a", "b", "c", "n", "len(l)", "len(s)"};
      return pick(2) ? literal() : leaves[pick(6)];
    }
    switch (pick(6)) {
      case 0: {
        static const char* ops[] = {"+", "-", "*", "//", "%", "**"};
        return "(" + int_expr(depth - 1) + " " + ops[pick(6)] + " " + int_expr(depth - 1) + ")";
      }
      case 1: return "(-" + int_expr(depth - 1) + ")";
      case 2: return "abs(" + int_expr(depth - 1) + ")";
      case 3: return "int(float(" + int_expr(depth - 1) + ") * 1.5e300)";
      case 4: {
        // Calls: forward to a later function, or back to this one (recursion).
        const int callee = pick(2) ? std::min(function_ + 1, kFunctions - 1) : function_;
        return "self.f" + std::to_string(callee) + "(" + int_expr(depth - 1) + ")";
      }
      default: return int_expr(0);
    }
  }

  std::string block(int indent, int depth) {
    std::string out;
    const int n = 1 + pick(3);
    for (int i = 0; i < n; ++i) out += statement(indent, depth);
    return out;
  }

  std::string statement(int indent, int depth) {
    const std::string pad(static_cast<size_t>(indent) * 2, ' ');
    const int kind = depth > 0 ? pick(12) : pick(7);
    switch (kind) {
      case 0: return pad + "a = " + int_expr(2) + "\n";
      case 1: return pad + "b = " + int_expr(2) + "\n";
      case 2: return pad + "l.append(" + int_expr(1) + ")\n";
      case 3: return pad + "l = l + l\n";
      case 4: return pad + "s = s + s\n";
      case 5: return pad + "l = [l]\n";
      case 6: return pad + "t = torch.ones([" + int_expr(1) + "])\n";
      case 7: return pad + "while a < " + int_expr(1) + ":\n" + pad + "  a += 1\n" + block(indent + 1, depth - 1);
      case 8: return pad + "for i in range(" + int_expr(1) + "):\n" + block(indent + 1, depth - 1);
      case 9:
        return pad + "if " + int_expr(1) + " > " + int_expr(1) + ":\n" + block(indent + 1, depth - 1) + pad +
               "else:\n" + block(indent + 1, depth - 1);
      case 10: return pad + "while True:\n" + block(indent + 1, depth - 1);
      default: return pad + "c = " + int_expr(3) + "\n";
    }
  }

  std::mt19937_64 rng_;
  const uint8_t* bytes_ = nullptr;
  size_t size_ = 0, position_ = 0;
  int function_ = 0;
};

}  // namespace tvk::testing_support
