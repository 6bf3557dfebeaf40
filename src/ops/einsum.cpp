// aten::einsum (maxvit_t's attention: "B G H I D, B G H J D -> B G H I J"). A composite of
// registered ops, so it runs on whichever device its operands are on: operands are contracted
// left to right, each pair as one batched matmul between permutes and reshapes; labels that
// only one operand has and nothing later needs are summed out first.
#include <algorithm>
#include <cctype>
#include <string>

#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

constexpr const char* kOp = "aten::einsum";

struct Operand {
  Tensor t;
  std::string labels;  // one letter per dimension
};

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

int64_t label_size(const Operand& x, char c) { return x.t.sizes()[x.labels.find(c)]; }

// Sums out the dimensions whose labels are not in `keep`.
Operand sum_out(Operand x, const std::string& keep) {
  IntList dims;
  std::string kept;
  int64_t count = 1;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (has(keep, x.labels[d])) {
      kept += x.labels[d];
    } else {
      dims.push_back(static_cast<int64_t>(d));
      count *= x.t.sizes()[d];
    }
  }
  if (dims.empty()) return x;
  // Through mean, which both devices have: sum = mean x count.
  return {mul(mean(x.t, dims), static_cast<double>(count)), kept};
}

// x's dimensions in the order of `labels`, as one tensor of sizes `groups` (the products of
// consecutive runs of the labels, lengths given by `runs`).
Tensor arrange(const Operand& x, const std::string& labels, std::initializer_list<size_t> runs) {
  IntList order, shape;
  for (char c : labels) order.push_back(static_cast<int64_t>(x.labels.find(c)));
  size_t at = 0;
  for (size_t run : runs) {
    int64_t n = 1;
    for (size_t i = 0; i < run; ++i) n *= label_size(x, labels[at + i]);
    shape.push_back(n);
    at += run;
  }
  return reshape(permute(x.t, order).contiguous(), shape);
}

Operand contract(Operand a, Operand b, const std::string& keep) {
  a = sum_out(std::move(a), keep + b.labels);
  b = sum_out(std::move(b), keep + a.labels);
  std::string batch, left, inner, right;
  for (char c : a.labels) {
    if (!has(b.labels, c)) left += c;
    else if (has(keep, c)) batch += c;
    else inner += c;
  }
  for (char c : b.labels)
    if (!has(a.labels, c)) right += c;
  for (char c : batch + inner)
    TVK_CHECK(label_size(a, c) == label_size(b, c), kOp, ": label '", c, "' has size ", label_size(a, c),
              " in one operand and ", label_size(b, c), " in another");
  const Tensor lhs = arrange(a, batch + left + inner, {batch.size(), left.size(), inner.size()});
  const Tensor rhs = arrange(b, batch + inner + right, {batch.size(), inner.size(), right.size()});
  IntList shape;
  for (char c : batch + left) shape.push_back(label_size(a, c));
  for (char c : right) shape.push_back(label_size(b, c));
  return {reshape(matmul(lhs, rhs), shape), batch + left + right};
}

Tensor einsum(const std::string& equation, const std::vector<Tensor>& tensors, std::optional<IntList> /*path*/) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  TVK_CHECK(eq.find("...") == std::string::npos, kOp, ": ellipses (\"...\") are not supported, in \"", equation, "\"");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> inputs(1);
  for (char c : lhs) {
    if (c == ',') inputs.emplace_back();
    else inputs.back() += c;
  }
  TVK_CHECK(inputs.size() == tensors.size(), kOp, ": the equation \"", equation, "\" names ", inputs.size(),
            " operands, but ", tensors.size(), " tensors were given");
  std::string output;
  if (arrow != std::string::npos) {
    output = eq.substr(arrow + 2);
  } else {  // implicit form: the labels that occur once, in alphabetical order
    for (char c : lhs)
      if (std::isalpha(static_cast<unsigned char>(c)) && std::count(lhs.begin(), lhs.end(), c) == 1) output += c;
    std::sort(output.begin(), output.end());
  }
  std::vector<Operand> ops;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& s = inputs[i];
    check_defined(kOp, tensors[i], "tensors");
    TVK_CHECK(static_cast<int64_t>(s.size()) == tensors[i].dim(), kOp, ": operand ", i, " has ", tensors[i].dim(),
              " dimensions but the equation \"", equation, "\" gives it ", s.size(), " labels");
    for (size_t d = 0; d < s.size(); ++d) {
      TVK_CHECK(std::isalpha(static_cast<unsigned char>(s[d])), kOp, ": '", s[d], "' in \"", equation,
                "\" is not a label (letters a-z, A-Z)");
      TVK_CHECK(s.find(s[d]) == d, kOp, ": a label repeated within one operand (a diagonal) is not supported, in \"",
                equation, "\"");
    }
    ops.push_back({tensors[i], s});
  }
  for (size_t d = 0; d < output.size(); ++d) {
    TVK_CHECK(has(lhs, output[d]) && output.find(output[d]) == d, kOp, ": output label '", output[d], "' in \"",
              equation, "\" must occur once, and in an operand");
  }
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::string keep = output;  // what the output and the operands after this pair still need
    for (size_t j = i + 1; j < ops.size(); ++j) keep += ops[j].labels;
    acc = contract(std::move(acc), ops[i], keep);
  }
  acc = sum_out(std::move(acc), output);
  IntList order;
  for (char c : output) order.push_back(static_cast<int64_t>(acc.labels.find(c)));
  return permute(acc.t, order).contiguous();
}

}  // namespace

// One kernel for both devices: it only calls registered ops, which dispatch on their inputs.
TVK_REGISTER_OP_ANY_DEVICE("aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor", einsum);

}  // namespace tvk::ops
