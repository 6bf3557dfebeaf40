// Recursive-descent parser for TorchScript source: a code file of a torch.jit.save archive in,
// a syntax tree (ast.h) out.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "jit/frontend/ast.h"

namespace tvk::jit {

// Parses one code file (`code/__torch__/....py`). `filename` only labels locations and errors.
// Throws ParseError ("<file>:<line>:<col>: expected X, found Y") for anything that is not valid
// TorchScript source, including nesting deeper than kMaxNestingDepth; never crashes on any input.
std::shared_ptr<const SourceModule> parse_source(std::string_view text, const std::string& filename);

// Parses a lone expression such as a type string from a pickle ("Dict[str, List[int]]").
ExprPtr parse_expression(std::string_view text, const std::string& filename);

}  // namespace tvk::jit
