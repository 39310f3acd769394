//===- Expr.cpp - Integer expressions over dimension names ----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Expr.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <unordered_map>

using namespace tile::rt;

namespace tile {
namespace rt {
/// Recursive-descent parser filling Expr::Nodes in post-order.
class ExprParser {
public:
  ExprParser(Expr &E) : E(E), S(E.Text) {}

  Error run() {
    int Root;
    if (!parseSum(Root))
      return makeError(Err);
    skipSpace();
    if (Pos != S.size()) {
      fail("unexpected '" + std::string(1, S[Pos]) + "'");
      return makeError(Err);
    }
    return Error::success();
  }

private:
  Expr &E;
  std::string_view S;
  size_t Pos = 0;
  std::string Err;
  unsigned Depth = 0;

  bool fail(const std::string &What) {
    if (Err.empty())
      Err = "in '" + std::string(S) + "': column " + std::to_string(Pos + 1) +
            ": " + What;
    return false;
  }
  void skipSpace() {
    while (Pos < S.size() && std::isspace(static_cast<unsigned char>(S[Pos])))
      ++Pos;
  }
  bool peek(char C) {
    skipSpace();
    return Pos < S.size() && S[Pos] == C;
  }
  int add(Expr::Node N) {
    E.Nodes.push_back(std::move(N));
    return static_cast<int>(E.Nodes.size()) - 1;
  }
  int binary(Expr::Node::Kind K, int L, int R) {
    Expr::Node N;
    N.K = K;
    N.Lhs = L;
    N.Rhs = R;
    return add(std::move(N));
  }

  bool parseSum(int &Out) {
    if (!parseProduct(Out))
      return false;
    while (peek('+') || peek('-')) {
      auto K = S[Pos++] == '+' ? Expr::Node::Add : Expr::Node::Sub;
      int R;
      if (!parseProduct(R))
        return false;
      Out = binary(K, Out, R);
    }
    return true;
  }

  bool parseProduct(int &Out) {
    if (!parseUnary(Out))
      return false;
    while (peek('*') || peek('/') || peek('%')) {
      char C = S[Pos++];
      auto K = C == '*'   ? Expr::Node::Mul
               : C == '/' ? Expr::Node::Div
                          : Expr::Node::Rem;
      int R;
      if (!parseUnary(R))
        return false;
      Out = binary(K, Out, R);
    }
    return true;
  }

  bool parseUnary(int &Out) {
    if (++Depth > 200)
      return fail("expression nested too deeply");
    bool Ok;
    if (peek('-')) {
      ++Pos;
      int Operand;
      Ok = parseUnary(Operand);
      if (Ok)
        Out = binary(Expr::Node::Neg, Operand, -1);
    } else {
      Ok = parsePrimary(Out);
    }
    --Depth;
    return Ok;
  }

  bool parsePrimary(int &Out) {
    skipSpace();
    if (Pos >= S.size())
      return fail("unexpected end, expected a number, a name or '('");
    char C = S[Pos];
    if (C == '(') {
      ++Pos;
      if (!parseSum(Out))
        return false;
      if (!peek(')'))
        return fail("expected ')'");
      ++Pos;
      return true;
    }
    if (std::isdigit(static_cast<unsigned char>(C))) {
      int64_t V = 0;
      while (Pos < S.size() &&
             std::isdigit(static_cast<unsigned char>(S[Pos]))) {
        if (__builtin_mul_overflow(V, 10, &V) ||
            __builtin_add_overflow(V, S[Pos] - '0', &V))
          return fail("integer literal too large");
        ++Pos;
      }
      Expr::Node N;
      N.K = Expr::Node::Literal;
      N.Value = V;
      Out = add(std::move(N));
      return true;
    }
    if (std::isalpha(static_cast<unsigned char>(C)) || C == '_') {
      size_t Start = Pos;
      while (
          Pos < S.size() &&
          (std::isalnum(static_cast<unsigned char>(S[Pos])) || S[Pos] == '_'))
        ++Pos;
      std::string Name(S.substr(Start, Pos - Start));
      if (!peek('(')) {
        Expr::Node N;
        N.K = Expr::Node::Ident;
        N.Name = std::move(Name);
        Out = add(std::move(N));
        return true;
      }
      Expr::Node::Kind K;
      if (Name == "cdiv")
        K = Expr::Node::CDiv;
      else if (Name == "min")
        K = Expr::Node::Min;
      else if (Name == "max")
        K = Expr::Node::Max;
      else {
        Pos = Start;
        return fail("unknown function '" + Name +
                    "' (expected cdiv, min or max)");
      }
      ++Pos; // '('
      int L, R;
      if (!parseSum(L))
        return false;
      if (!peek(','))
        return fail("expected ',' in call to " + Name);
      ++Pos;
      if (!parseSum(R))
        return false;
      if (!peek(')'))
        return fail("expected ')' after the arguments of " + Name);
      ++Pos;
      Out = binary(K, L, R);
      return true;
    }
    return fail("unexpected '" + std::string(1, C) +
                "', expected a number, a name or '('");
  }
};
} // namespace rt
} // namespace tile

Expected<Expr> Expr::parse(std::string_view Text) {
  Expr E;
  E.Text = std::string(Text);
  if (Error Err = ExprParser(E).run())
    return Err;
  return E;
}

Expected<int64_t> Expr::eval(int Index, const DimMap &Dims) const {
  const Node &N = Nodes[Index];
  auto overflow = [&] {
    return makeError("integer overflow evaluating '" + Text + "'");
  };
  switch (N.K) {
  case Node::Literal:
    return N.Value;
  case Node::Ident: {
    auto It = Dims.find(N.Name);
    if (It == Dims.end())
      return makeError("unknown dimension '" + N.Name + "' in '" + Text + "'");
    return It->second;
  }
  case Node::Neg: {
    Expected<int64_t> V = eval(N.Lhs, Dims);
    if (!V)
      return V;
    if (*V == INT64_MIN)
      return overflow();
    return -*V;
  }
  default:
    break;
  }
  Expected<int64_t> L = eval(N.Lhs, Dims);
  if (!L)
    return L;
  Expected<int64_t> R = eval(N.Rhs, Dims);
  if (!R)
    return R;
  int64_t A = *L, B = *R, Result = 0;
  bool IsDivision = N.K == Node::Div || N.K == Node::Rem || N.K == Node::CDiv;
  if (IsDivision && B == 0)
    return makeError("division by zero evaluating '" + Text + "'");
  if (IsDivision && A == INT64_MIN && B == -1)
    return overflow();
  switch (N.K) {
  case Node::Add:
    if (__builtin_add_overflow(A, B, &Result))
      return overflow();
    return Result;
  case Node::Sub:
    if (__builtin_sub_overflow(A, B, &Result))
      return overflow();
    return Result;
  case Node::Mul:
    if (__builtin_mul_overflow(A, B, &Result))
      return overflow();
    return Result;
  case Node::Div:
    return A / B;
  case Node::Rem:
    return A % B;
  case Node::CDiv:
    // Ceil division, also correct for negative operands.
    return A / B + ((A % B != 0) && ((A < 0) == (B < 0)) ? 1 : 0);
  case Node::Min:
    return std::min(A, B);
  case Node::Max:
    return std::max(A, B);
  default:
    return makeError("internal error: bad expression node");
  }
}

Expected<int64_t> Expr::evaluate(const DimMap &Dims) const {
  if (Nodes.empty())
    return makeError("empty expression");
  return eval(static_cast<int>(Nodes.size()) - 1, Dims);
}

std::vector<std::string> Expr::names() const {
  std::vector<std::string> Result;
  for (const Node &N : Nodes)
    if (N.K == Node::Ident &&
        std::find(Result.begin(), Result.end(), N.Name) == Result.end())
      Result.push_back(N.Name);
  return Result;
}

std::string Expr::singleName() const {
  if (Nodes.size() == 1 && Nodes[0].K == Node::Ident)
    return Nodes[0].Name;
  return "";
}

Expected<std::shared_ptr<const Expr>> Expr::parseShared(std::string_view Text) {
  static std::mutex Lock;
  static std::unordered_map<std::string, std::shared_ptr<const Expr>> Parsed;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Parsed.find(std::string(Text));
    if (It != Parsed.end())
      return It->second;
  }
  Expected<Expr> E = parse(Text);
  if (!E)
    return E.takeError(); // Errors are not kept: they are reported once.
  auto Shared = std::make_shared<const Expr>(std::move(*E));
  std::lock_guard<std::mutex> Guard(Lock);
  return Parsed.emplace(std::string(Text), Shared).first->second;
}

Expected<int64_t> tile::rt::evaluateExpr(std::string_view Text,
                                         const DimMap &Dims) {
  Expected<std::shared_ptr<const Expr>> E = Expr::parseShared(Text);
  if (!E)
    return E.takeError();
  return (*E)->evaluate(Dims);
}
