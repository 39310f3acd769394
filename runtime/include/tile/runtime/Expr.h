//===- Expr.h - Integer expressions over dimension names --------*- C++ -*-===//
//
// Part of tilec. Kernel grids and tensor shapes are recorded as integer
// expressions over runtime dimension names ("cdiv(N, 128)", "K / 128").
// Grammar:
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := INT | NAME | NAME '(' expr ',' expr ')' | '(' expr ')'
// where the call names are cdiv, min and max. Arithmetic is on int64_t with
// C semantics (/ and % truncate); cdiv(a, b) = (a + b - 1) / b. Division by
// zero and overflow are errors.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_EXPR_H
#define TILE_RUNTIME_EXPR_H

#include "tile/runtime/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tile {
namespace rt {

/// Values of runtime dimensions, by name.
using DimMap = std::map<std::string, int64_t>;

/// A parsed integer expression.
class Expr {
public:
  /// Parses \p Text. Errors read "in 'TEXT': column C: <what was expected>".
  static Expected<Expr> parse(std::string_view Text);
  /// parse() once per distinct text in the process (thread-safe; what a
  /// launch binds with, so that it does not parse its shapes every time).
  static Expected<std::shared_ptr<const Expr>>
  parseShared(std::string_view Text);

  /// Evaluates with the names bound by \p Dims. An unbound name is an error
  /// ("unknown dimension 'K' in 'K / 128'").
  Expected<int64_t> evaluate(const DimMap &Dims) const;

  /// The source text.
  const std::string &text() const { return Text; }
  /// The distinct names used, in order of first appearance.
  std::vector<std::string> names() const;
  /// The name when the whole expression is a single name, else empty.
  std::string singleName() const;

private:
  struct Node {
    enum Kind { Literal, Ident, Neg, Add, Sub, Mul, Div, Rem, CDiv, Min, Max };
    Kind K = Literal;
    int64_t Value = 0;
    std::string Name;
    int Lhs = -1, Rhs = -1;
  };
  friend class ExprParser;

  Expected<int64_t> eval(int Index, const DimMap &Dims) const;

  std::string Text;
  std::vector<Node> Nodes; ///< The root is the last node.
};

/// Parses (parseShared) and evaluates \p Text in one step.
Expected<int64_t> evaluateExpr(std::string_view Text, const DimMap &Dims);

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_EXPR_H
