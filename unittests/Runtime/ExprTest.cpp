//===- ExprTest.cpp - Tests of grid/shape expressions ---------------------===//

#include "tile/runtime/Expr.h"

#include "gtest/gtest.h"

using namespace tile::rt;

namespace {

int64_t eval(const std::string &Text, const DimMap &Dims = {}) {
  Expected<int64_t> V = evaluateExpr(Text, Dims);
  EXPECT_TRUE(V) << Text << ": " << V.message();
  return V ? *V : -999;
}

std::string error(const std::string &Text, const DimMap &Dims = {}) {
  Expected<int64_t> V = evaluateExpr(Text, Dims);
  EXPECT_FALSE(V) << Text << " evaluated to " << (V ? *V : 0);
  return V ? "" : V.message();
}

TEST(ExprTest, ArithmeticAndPrecedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 3 - 2"), 5);
  EXPECT_EQ(eval("100 / 10 / 5"), 2);
  EXPECT_EQ(eval("17 % 5 * 2"), 4);
  EXPECT_EQ(eval("-3 + 10"), 7);
  EXPECT_EQ(eval("--4"), 4);
  EXPECT_EQ(eval("7 / 2"), 3);
  EXPECT_EQ(eval("-7 / 2"), -3); // C semantics: truncation.
  EXPECT_EQ(eval("-7 % 2"), -1);
}

TEST(ExprTest, FunctionsAndNames) {
  DimMap D = {{"M", 65}, {"N", 128}, {"K", 4096}, {"BLOCK_2", 3}};
  EXPECT_EQ(eval("cdiv(M, 16)", D), 5);
  EXPECT_EQ(eval("cdiv(N, 128)", D), 1);
  EXPECT_EQ(eval("cdiv(0, 128)", D), 0);
  EXPECT_EQ(eval("cdiv(-5, 2)", D), -2);
  EXPECT_EQ(eval("K / 128", D), 32);
  EXPECT_EQ(eval("min(M, N) * max(2, BLOCK_2)", D), 65 * 3);
  EXPECT_EQ(eval(" cdiv( M ,min(16,N) ) + K % 1000 ", D), 5 + 96);
  // Every (M, step) pair against a direct computation.
  for (int64_t M = 0; M < 70; ++M)
    for (int64_t B = 1; B < 20; ++B)
      EXPECT_EQ(eval("cdiv(M, B)", {{"M", M}, {"B", B}}), (M + B - 1) / B);
}

TEST(ExprTest, NamesAndSingleName) {
  Expected<Expr> E = Expr::parse("cdiv(N, BN) * M + N");
  ASSERT_TRUE(E);
  EXPECT_EQ(E->names(), (std::vector<std::string>{"N", "BN", "M"}));
  EXPECT_EQ(E->singleName(), "");
  Expected<Expr> S = Expr::parse("  K ");
  ASSERT_TRUE(S);
  EXPECT_EQ(S->singleName(), "K");
  EXPECT_EQ(S->text(), "  K ");
}

TEST(ExprTest, ParseErrors) {
  EXPECT_EQ(error("cdiv(M, 128"),
            "in 'cdiv(M, 128': column 12: expected ')' after the arguments of "
            "cdiv");
  EXPECT_EQ(error("M +"), "in 'M +': column 4: unexpected end, expected a "
                          "number, a name or '('");
  EXPECT_EQ(error("foo(1, 2)"), "in 'foo(1, 2)': column 1: unknown function "
                                "'foo' (expected cdiv, min or max)");
  EXPECT_EQ(error("min(1)"), "in 'min(1)': column 6: expected ',' in call to "
                             "min");
  EXPECT_EQ(error("2 $ 3"), "in '2 $ 3': column 3: unexpected '$'");
  EXPECT_EQ(error("(1 + 2"), "in '(1 + 2': column 7: expected ')'");
  EXPECT_EQ(error(""), "in '': column 1: unexpected end, expected a number, a "
                       "name or '('");
  EXPECT_EQ(error("99999999999999999999"),
            "in '99999999999999999999': column 19: integer literal too large");
  EXPECT_NE(error(std::string(1000, '(') + "1" + std::string(1000, ')'))
                .find("nested too deeply"),
            std::string::npos);
}

TEST(ExprTest, EvaluationErrors) {
  EXPECT_EQ(error("K / 128"), "unknown dimension 'K' in 'K / 128'");
  EXPECT_EQ(error("M / (N - 4)", {{"M", 1}, {"N", 4}}),
            "division by zero evaluating 'M / (N - 4)'");
  EXPECT_EQ(error("cdiv(M, 0)", {{"M", 1}}),
            "division by zero evaluating 'cdiv(M, 0)'");
  EXPECT_EQ(error("M % 0", {{"M", 1}}), "division by zero evaluating 'M % 0'");
  EXPECT_EQ(error("M * M", {{"M", int64_t(1) << 40}}),
            "integer overflow evaluating 'M * M'");
}

} // namespace
