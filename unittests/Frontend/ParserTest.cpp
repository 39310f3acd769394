//===- ParserTest.cpp - Tests of the .tile parser -------------------------===//

#include "tile/Frontend/Parser.h"
#include "tile/Frontend/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace tile::frontend;
using llvm::cast;
using llvm::dyn_cast;

namespace {

struct Parsed {
  llvm::SourceMgr sm;
  std::unique_ptr<Module> mod;
  std::string diags;
  unsigned errors = 0;
};

std::unique_ptr<Parsed> parse(llvm::StringRef text) {
  auto p = std::make_unique<Parsed>();
  p->sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "p.tile"),
                           llvm::SMLoc());
  llvm::raw_string_ostream os(p->diags);
  DiagEngine diags(p->sm, &os);
  p->mod = parseModule(p->sm, 1, diags);
  p->errors = diags.getNumErrors();
  return p;
}

std::string wrap(llvm::StringRef body) {
  return ("kernel k<BM: int = 64, T: type = f16, C: bool = false>(A: T[M, K], "
          "o: mut f32[M]) grid(cdiv(M, BM), 1) warps 4 tune { BM in [32, 64] } "
          "{\n" +
          body + "\n}\n")
      .str();
}

TEST(Parser, KernelHeader) {
  auto p = parse(wrap("let x = 1;"));
  ASSERT_EQ(p->errors, 0u) << p->diags;
  ASSERT_EQ(p->mod->kernels.size(), 1u);
  KernelDecl &k = *p->mod->kernels[0];
  EXPECT_EQ(k.name, "k");
  ASSERT_EQ(k.ctParams.size(), 3u);
  EXPECT_EQ(k.ctParams[0].kind, CtParamDecl::Int);
  EXPECT_EQ(k.ctParams[1].kind, CtParamDecl::Type);
  EXPECT_EQ(k.ctParams[2].kind, CtParamDecl::Bool);
  ASSERT_EQ(k.rtParams.size(), 2u);
  EXPECT_TRUE(k.rtParams[0].isTensor);
  EXPECT_FALSE(k.rtParams[0].isMut);
  EXPECT_EQ(k.rtParams[0].typeName, "T");
  EXPECT_EQ(k.rtParams[0].dims.size(), 2u);
  EXPECT_TRUE(k.rtParams[1].isMut);
  EXPECT_EQ(k.grid.size(), 2u);
  ASSERT_EQ(k.tune.size(), 1u);
  EXPECT_EQ(k.tune[0].name, "BM");
  EXPECT_EQ(k.tune[0].values.size(), 2u);
}

TEST(Parser, Precedence) {
  // a + b * c << 1 < d && e || f  parses as ((((a + (b * c)) << 1) < d) && e)
  // || f
  auto p = parse(wrap("let x = a + b * c << 1 < d && e || f;"));
  ASSERT_EQ(p->errors, 0u) << p->diags;
  auto *let = cast<BindStmt>(p->mod->kernels[0]->body->stmts[0].get());
  auto *orE = cast<BinaryExpr>(let->init.get());
  EXPECT_EQ(orE->op, BinaryOp::LogOr);
  auto *andE = cast<BinaryExpr>(orE->lhs.get());
  EXPECT_EQ(andE->op, BinaryOp::LogAnd);
  auto *lt = cast<BinaryExpr>(andE->lhs.get());
  EXPECT_EQ(lt->op, BinaryOp::Lt);
  auto *shl = cast<BinaryExpr>(lt->lhs.get());
  EXPECT_EQ(shl->op, BinaryOp::Shl);
  auto *add = cast<BinaryExpr>(shl->lhs.get());
  EXPECT_EQ(add->op, BinaryOp::Add);
  EXPECT_EQ(cast<BinaryExpr>(add->rhs.get())->op, BinaryOp::Mul);
}

TEST(Parser, SubtractionIsLeftAssociative) {
  auto p = parse(wrap("let x = a - b - c;"));
  ASSERT_EQ(p->errors, 0u);
  auto *let = cast<BindStmt>(p->mod->kernels[0]->body->stmts[0].get());
  auto *outer = cast<BinaryExpr>(let->init.get());
  ASSERT_TRUE(llvm::isa<BinaryExpr>(outer->lhs.get()));
  EXPECT_EQ(cast<NameExpr>(outer->rhs.get())->name, "c");
}

TEST(Parser, IndexEntriesAndKeywordArgs) {
  auto p = parse(
      wrap("let t = load(A[m0 : m0 + BM, 3, :], other = -inf)[:, None];"));
  ASSERT_EQ(p->errors, 0u) << p->diags;
  auto *let = cast<BindStmt>(p->mod->kernels[0]->body->stmts[0].get());
  auto *outer = cast<IndexExpr>(let->init.get());
  ASSERT_EQ(outer->entries.size(), 2u);
  EXPECT_EQ(outer->entries[0].kind, IndexEntry::Full);
  EXPECT_EQ(outer->entries[1].kind, IndexEntry::NewAxis);
  auto *call = cast<CallExpr>(outer->base.get());
  EXPECT_EQ(call->callee, "load");
  ASSERT_EQ(call->kwargs.size(), 1u);
  EXPECT_EQ(call->kwargs[0].name, "other");
  auto *slice = cast<IndexExpr>(call->args[0].get());
  ASSERT_EQ(slice->entries.size(), 3u);
  EXPECT_EQ(slice->entries[0].kind, IndexEntry::Slice);
  EXPECT_EQ(slice->entries[1].kind, IndexEntry::Index);
  EXPECT_EQ(slice->entries[2].kind, IndexEntry::Full);
}

TEST(Parser, Statements) {
  auto p = parse(wrap("var acc = 0;\nfor i in 0 .. K step 2 pipeline 3 { acc = "
                      "acc + i; }\nif C { } else if acc > 1 { } else { }\n"
                      "store(o[0 : 4], 1.0);"));
  ASSERT_EQ(p->errors, 0u) << p->diags;
  auto &stmts = p->mod->kernels[0]->body->stmts;
  ASSERT_EQ(stmts.size(), 4u);
  auto *f = cast<ForStmt>(stmts[1].get());
  EXPECT_EQ(f->var, "i");
  EXPECT_TRUE(f->step && f->pipeline);
  EXPECT_EQ(f->body->stmts.size(), 1u);
  auto *i = cast<IfStmt>(stmts[2].get());
  ASSERT_TRUE(i->elseStmt);
  EXPECT_TRUE(llvm::isa<IfStmt>(i->elseStmt.get()));
  EXPECT_TRUE(llvm::isa<ExprStmt>(stmts[3].get()));
}

TEST(Parser, RecoversAfterStatementErrors) {
  auto p = parse(wrap("let a = ;\nlet b = 1\nlet c = (2;\nlet d = 4;"));
  // Three independent errors; the last statement still parses.
  EXPECT_EQ(p->errors, 3u) << p->diags;
  EXPECT_NE(p->diags.find("p.tile:2:9: error: expected an expression"),
            std::string::npos)
      << p->diags;
  EXPECT_NE(p->diags.find("p.tile:4:1: error: expected ';'"), std::string::npos)
      << p->diags;
  ASSERT_EQ(p->mod->kernels.size(), 1u);
  auto &stmts = p->mod->kernels[0]->body->stmts;
  ASSERT_FALSE(stmts.empty());
  EXPECT_EQ(cast<BindStmt>(stmts.back().get())->name, "d");
}

TEST(Parser, GreaterThanClosesParameterList) {
  auto p = parse("kernel k<N: int = 4 + 1, M: int = (8 > 2)>(A: f32[N]) "
                 "grid(1) warps 1 { }");
  EXPECT_EQ(p->errors, 0u) << p->diags;
}

TEST(Parser, NestingDepthIsBounded) {
  std::string deep = wrap("let x = " + std::string(100000, '(') + "1" +
                          std::string(100000, ')') + ";");
  auto p = parse(deep);
  EXPECT_GE(p->errors, 1u);
  EXPECT_NE(p->diags.find("nested too deeply"), std::string::npos);
  std::string blocks = wrap(std::string(100000, '{'));
  auto q = parse(blocks);
  EXPECT_GE(q->errors, 1u);
}

TEST(Parser, LongOperatorChainsAreBounded) {
  // Left-associative chains build deep trees without parser recursion; the
  // height limit keeps later recursive walks safe.
  std::string terms = "1";
  for (int i = 0; i < 50000; ++i)
    terms += " + 1";
  auto p = parse(wrap("let x = " + terms + ";"));
  EXPECT_EQ(p->errors, 1u);
  EXPECT_NE(p->diags.find("expression nested too deeply"), std::string::npos);
  std::string ok = "1";
  for (int i = 0; i < 200; ++i)
    ok += " + 1";
  EXPECT_EQ(parse(wrap("let x = " + ok + ";"))->errors, 0u);
}

TEST(Parser, ChainedComparisonIsAnError) {
  auto p = parse(wrap("let x = a < b < c;"));
  EXPECT_EQ(p->errors, 1u);
  EXPECT_NE(p->diags.find("cannot be chained"), std::string::npos);
}

} // namespace
