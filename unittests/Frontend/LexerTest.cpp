//===- LexerTest.cpp - Tests of the .tile lexer and element types ---------===//

#include "tile/Frontend/Lexer.h"
#include "tile/Frontend/Diagnostics.h"
#include "tile/Frontend/Types.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace tile::frontend;

namespace {

struct Lexed {
  std::vector<Token> toks;
  std::string diags;
  unsigned errors = 0;
};

Lexed lex(llvm::StringRef text) {
  static llvm::SourceMgr sm; // Tokens point into its buffers.
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.tile"),
                        llvm::SMLoc());
  Lexed out;
  llvm::raw_string_ostream os(out.diags);
  DiagEngine diags(sm, &os);
  Lexer lexer(sm.getMemoryBuffer(sm.getNumBuffers())->getBuffer(), diags);
  for (unsigned i = 0; i < 10000; ++i) {
    Token t = lexer.next();
    if (t.is(Tok::Eof))
      break;
    out.toks.push_back(t);
  }
  out.errors = diags.getNumErrors();
  return out;
}

std::vector<Tok> kinds(const Lexed &l) {
  std::vector<Tok> k;
  for (auto &t : l.toks)
    k.push_back(t.kind);
  return k;
}

TEST(Lexer, RangeIsNotAFloat) {
  Lexed l = lex("for k in 0..K step 32");
  EXPECT_EQ(l.errors, 0u);
  std::vector<Tok> expected = {Tok::KwFor,  Tok::Ident,  Tok::KwIn,
                               Tok::IntLit, Tok::DotDot, Tok::Ident,
                               Tok::KwStep, Tok::IntLit};
  EXPECT_EQ(kinds(l), expected);
  EXPECT_EQ(l.toks[3].intValue, 0u);
  EXPECT_EQ(l.toks[7].intValue, 32u);
}

TEST(Lexer, Numbers) {
  Lexed l = lex("1.4426950408889634 1e-8 .5 0x1F 0b101 42");
  ASSERT_EQ(l.errors, 0u);
  ASSERT_EQ(l.toks.size(), 6u);
  EXPECT_EQ(l.toks[0].kind, Tok::FloatLit);
  EXPECT_DOUBLE_EQ(l.toks[0].floatValue, 1.4426950408889634);
  EXPECT_DOUBLE_EQ(l.toks[1].floatValue, 1e-8);
  EXPECT_DOUBLE_EQ(l.toks[2].floatValue, 0.5);
  EXPECT_EQ(l.toks[3].intValue, 31u);
  EXPECT_EQ(l.toks[4].intValue, 5u);
  EXPECT_EQ(l.toks[5].intValue, 42u);
}

TEST(Lexer, OperatorsLongestMatch) {
  Lexed l = lex("<< <= < >> >= > == = != ! && & || | :");
  std::vector<Tok> expected = {
      Tok::Shl,    Tok::Le,   Tok::Lt,       Tok::Shr,  Tok::Ge,
      Tok::Gt,     Tok::EqEq, Tok::Assign,   Tok::Ne,   Tok::Bang,
      Tok::AmpAmp, Tok::Amp,  Tok::PipePipe, Tok::Pipe, Tok::Colon};
  EXPECT_EQ(kinds(l), expected);
}

TEST(Lexer, CommentsAreSkipped) {
  Lexed l = lex("a // line comment\n/* block\n comment */ b");
  EXPECT_EQ(kinds(l), (std::vector<Tok>{Tok::Ident, Tok::Ident}));
  EXPECT_EQ(l.toks[1].text, "b");
}

TEST(Lexer, GarbageIsDiagnosedAndSkipped) {
  std::string garbage = "let \x01\xff\x80 x $ = 1;";
  garbage.push_back('\0');
  garbage += "y";
  Lexed l = lex(garbage);
  // \x01, \xff\x80 (one UTF-8-like sequence), '$' and the NUL byte.
  EXPECT_EQ(l.errors, 4u);
  EXPECT_NE(l.diags.find("t.tile:1:5: error: unexpected character byte 0x01"),
            std::string::npos)
      << l.diags;
  EXPECT_NE(l.diags.find("unexpected character '$'"), std::string::npos);
  // The valid tokens around the garbage survive.
  std::vector<std::string> idents;
  for (auto &t : l.toks)
    if (t.is(Tok::Ident))
      idents.push_back(t.text.str());
  EXPECT_EQ(idents, (std::vector<std::string>{"x", "y"}));
}

TEST(Lexer, MalformedLiterals) {
  EXPECT_EQ(lex("99999999999999999999").errors, 1u);
  EXPECT_EQ(lex("12abc").errors, 1u);
  EXPECT_EQ(lex("0x").errors, 1u);
  EXPECT_EQ(lex("1e999").errors, 1u);
  EXPECT_EQ(lex("/* open").errors, 1u);
  EXPECT_EQ(lex("9223372036854775807").errors, 0u);
  EXPECT_EQ(lex("9223372036854775808").errors, 1u);
}

TEST(ElemType, ParsesLanguageNames) {
  struct Case {
    const char *name;
    ElemType::Kind kind;
    unsigned bits;
  } cases[] = {
      {"f32", ElemType::F32, 32},          {"f16", ElemType::F16, 16},
      {"bf16", ElemType::BF16, 16},        {"i1", ElemType::SInt, 1},
      {"i32", ElemType::SInt, 32},         {"u3", ElemType::UInt, 3},
      {"u32", ElemType::UInt, 32},         {"e8m0", ElemType::E8M0, 8},
      {"f4e2m1", ElemType::SmallFloat, 4}, {"f8e4m3", ElemType::SmallFloat, 8},
      {"f5e2m2", ElemType::SmallFloat, 5}, {"f3e1m1", ElemType::SmallFloat, 3},
      {"bool", ElemType::Bool, 1}};
  for (auto &c : cases) {
    auto t = ElemType::parse(c.name);
    ASSERT_TRUE(t.has_value()) << c.name;
    EXPECT_EQ(t->kind, c.kind) << c.name;
    EXPECT_EQ(t->bits, c.bits) << c.name;
    EXPECT_EQ(t->str(), c.name);
  }
  auto f6 = ElemType::parse("f6e3m2");
  ASSERT_TRUE(f6);
  EXPECT_EQ(f6->exp, 3);
  EXPECT_EQ(f6->mant, 2);
}

TEST(ElemType, RejectsBadNames) {
  for (const char *bad : {"i0", "i33", "u64", "f64", "f8e4m4", "f9e5m3",
                          "f8e0m7", "i08", "x", "", "f8e4", "fe4m3", "u"})
    EXPECT_FALSE(ElemType::parse(bad).has_value()) << bad;
}

} // namespace
