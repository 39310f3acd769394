//===- SemaTest.cpp - Tests of semantic analysis --------------------------===//

#include "tile/Frontend/Sema.h"
#include "tile/Frontend/Diagnostics.h"
#include "tile/Frontend/KernelInfo.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace tile::frontend;
using llvm::cast;

namespace {

struct Checked {
  llvm::SourceMgr sm;
  std::unique_ptr<CheckedModule> mod;
  std::string diags;

  bool ok() const { return mod != nullptr; }
  CheckedKernel &kernel() { return *mod->kernels.at(0); }
  /// The initializer of the N-th statement of the kernel body (a let/var).
  Expr *init(size_t n) {
    auto &stmts = kernel().decl->body->stmts;
    return cast<BindStmt>(stmts.at(n).get())->init.get();
  }
};

std::unique_ptr<Checked> check(llvm::StringRef text, const Defines &defs = {},
                               const std::string &kernel = "",
                               TargetFacts target = {}) {
  auto c = std::make_unique<Checked>();
  c->sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "s.tile"),
                           llvm::SMLoc());
  llvm::raw_string_ostream os(c->diags);
  DiagEngine diags(c->sm, &os);
  c->mod = checkModule(defs, kernel, diags, target);
  return c;
}

const char *kHeader =
    "kernel k<BM: int = 64, COLS: int = 256, T: type = u4, Z: bool = true>(\n"
    "    A: f16[M, K], W: T[K, N], S: f16[K / 32, N], o: mut f32[M, N], "
    "eps: f32)\n"
    "    grid(cdiv(N, 64), cdiv(M, BM)) warps 4\n{\n";

std::string kernel(llvm::StringRef body) {
  return std::string(kHeader) + body.str() + "\n}\n";
}

TEST(Sema, SpecializationDefaultsAndOverrides) {
  auto c = check(kernel("let x = BM;"), {{"BM", "32"}, {"T", "u3"}});
  ASSERT_TRUE(c->ok()) << c->diags;
  auto &k = c->kernel();
  ASSERT_EQ(k.constants.size(), 4u);
  EXPECT_EQ(k.constants[0].first, "BM");
  EXPECT_EQ(k.constants[0].second.i, 32);
  EXPECT_EQ(k.constants[1].second.i, 256);
  EXPECT_EQ(k.constants[2].second.type.str(), "u3");
  EXPECT_TRUE(k.constants[3].second.b);
  EXPECT_EQ(k.params[1].elem.str(), "u3");
  EXPECT_EQ(k.grid[0], "cdiv(N, 64)");
  EXPECT_EQ(k.grid[1], "cdiv(M, 32)");
  EXPECT_EQ(k.grid[2], "1");
}

TEST(Sema, RuntimeDimsInOrderOfFirstAppearance) {
  auto c = check(kernel(""));
  ASSERT_TRUE(c->ok()) << c->diags;
  auto &k = c->kernel();
  ASSERT_EQ(k.dims.size(), 3u);
  EXPECT_EQ(k.dims[0]->name, "M");
  EXPECT_EQ(k.dims[1]->name, "K");
  EXPECT_EQ(k.dims[2]->name, "N");
  EXPECT_EQ(k.params[2].dims[0].text, "K / 32");
  EXPECT_FALSE(k.params[2].dims[0].value.has_value());
}

TEST(Sema, ConstantFolding) {
  auto c = check(kernel("let a = (1 << (bits(T) - 1)) - 1;\n"
                        "let b = cdiv(COLS, 48) * 2 + BM % 7;\n"
                        "let c = -7 / 2;\n"
                        "let d = max(3, BM) - min(BM, 100);\n"
                        "let e = 1.5 * 2;\n"
                        "let f = Z && BM > 32;"));
  ASSERT_TRUE(c->ok()) << c->diags;
  EXPECT_EQ(c->init(0)->cv.i, 7);         // u4: (1 << 3) - 1
  EXPECT_EQ(c->init(1)->cv.i, 6 * 2 + 1); // cdiv(256, 48) = 6, 64 % 7 = 1
  EXPECT_EQ(c->init(2)->cv.i, -3);        // C semantics: truncation
  EXPECT_EQ(c->init(3)->cv.i, 0);
  EXPECT_EQ(c->init(4)->cv.kind, ConstVal::Float);
  EXPECT_DOUBLE_EQ(c->init(4)->cv.f, 3.0);
  EXPECT_EQ(c->init(5)->cv.kind, ConstVal::Bool);
  EXPECT_TRUE(c->init(5)->cv.b);
}

TEST(Sema, CompileTimeErrorsInFolding) {
  for (const char *body :
       {"let x = 9223372036854775807 + 1;", "let x = BM / (BM - 64);",
        "let x = 5 % 0;", "let x = 1 << 63;", "let x = 1 << -1;",
        "let x = -9223372036854775807 - 2;", "let x = cdiv(4, 0);"}) {
    auto c = check(kernel(body));
    EXPECT_FALSE(c->ok()) << body;
    EXPECT_NE(c->diags.find("s.tile:5:"), std::string::npos) << body << "\n"
                                                             << c->diags;
  }
}

TEST(Sema, PromotionRules) {
  auto c =
      check(kernel("let h = load(A[0 : 16, 0 : 16]);\n"      // f16
                   "let f = h + eps;\n"                      // f16 + f32 -> f32
                   "let g = h * 2;\n"                        // literal -> f16
                   "let b = cast(bf16, h) + h;\n"            // bf16+f16 -> f32
                   "let w = load(W[0 : 16, 0 : 16]) + 3;\n"  // u4 + lit -> u4
                   "let i = program_id(0) + 1;\n"            // i32
                   "let m = load(W[0 : 16, 0 : 16]) < 2;")); // bool
  ASSERT_TRUE(c->ok()) << c->diags;
  EXPECT_EQ(c->init(1)->ty.str(), "tile f32[16, 16]");
  EXPECT_EQ(c->init(2)->ty.str(), "tile f16[16, 16]");
  EXPECT_EQ(c->init(3)->ty.str(), "tile f32[16, 16]");
  EXPECT_EQ(c->init(4)->ty.str(), "tile u4[16, 16]");
  EXPECT_EQ(c->init(5)->ty.str(), "scalar i32");
  EXPECT_EQ(c->init(6)->ty.str(), "tile bool[16, 16]");
}

TEST(Sema, PromotionErrors) {
  struct Case {
    const char *body;
    const char *msg;
  } cases[] = {
      {"let x = program_id(0) + eps;", "cannot mix i32 and f32"},
      {"let x = load(W[0 : 4, 0 : 4]) + 16;", "constant 16 does not fit in u4"},
      {"let x = program_id(0) * 0.5;", "float constant 0.5 cannot become"},
      {"let x = load(W[0 : 4, 0 : 4]) + program_id(0);",
       "cannot mix u4 and i32"},
      {"let x = bitcast(f8e4m3, load(W[0 : 4, 0 : 4])) + 1.0;", "storage-only"},
  };
  for (auto &cs : cases) {
    auto c = check(kernel(cs.body));
    EXPECT_FALSE(c->ok()) << cs.body;
    EXPECT_NE(c->diags.find(cs.msg), std::string::npos) << cs.body << "\n"
                                                        << c->diags;
  }
}

TEST(Sema, Broadcasting) {
  auto c = check(kernel("let a = zeros(f32, [4, 1]);\n"
                        "let b = zeros(f32, [8]);\n"
                        "let c = a + b;\n"
                        "let d = zeros(f32, [2, 1, 8]) * zeros(f32, [3, 1]);\n"
                        "let e = b[None, :] - a;"));
  ASSERT_TRUE(c->ok()) << c->diags;
  EXPECT_EQ(c->init(2)->ty.str(), "tile f32[4, 8]");
  EXPECT_EQ(c->init(3)->ty.str(), "tile f32[2, 3, 8]");
  EXPECT_EQ(c->init(4)->ty.str(), "tile f32[4, 8]");
  auto bad = check(kernel("let c = zeros(f32, [4, 3]) + zeros(f32, [4]);"));
  EXPECT_FALSE(bad->ok());
  EXPECT_NE(bad->diags.find("cannot broadcast shapes [4, 3] and [4]"),
            std::string::npos)
      << bad->diags;
}

TEST(Sema, SymbolicSliceExtents) {
  auto c = check(
      kernel("let c0 = program_id(0) * 64;\n"
             "let m0 = program_id(1) * BM;\n"
             "let a = load(A[m0 : m0 + BM, c0 / 32 : c0 / 32 + COLS / 32]);\n"
             "let b = load(A[2 * m0 + 1 : m0 + (m0 + 17), K - 8 : K]);\n"
             "let r = arange(c0 - 3, c0 + 5);\n"
             "let s = load(S[K / 32 - 1, m0 + c0 : c0 + m0 + 16]);"));
  ASSERT_TRUE(c->ok()) << c->diags;
  EXPECT_EQ(c->init(2)->ty.str(), "tile f16[64, 8]");
  EXPECT_EQ(c->init(3)->ty.str(), "tile f16[16, 8]");
  EXPECT_EQ(c->init(4)->ty.str(), "tile i32[8]");
  EXPECT_EQ(c->init(5)->ty.str(), "tile f16[16]");
  for (const char *bad :
       {"let x = load(A[0 : program_id(0), 0 : 4]);",
        "let p = program_id(0);\nlet x = load(A[p / 2 : p / 3 + 4, 0 : 4]);",
        "let x = load(A[0 : M, 0 : 4]);"}) {
    auto b = check(kernel(bad));
    EXPECT_FALSE(b->ok()) << bad;
    EXPECT_NE(b->diags.find("slice extent is not a compile-time constant"),
              std::string::npos)
        << b->diags;
  }
}

TEST(Sema, LoopCarriedVariablesAreNotAssumedConstant) {
  // `off` changes every iteration: `off : m0 + 8` is not a constant extent
  // even though off == m0 before the loop.
  auto c = check(kernel("let m0 = program_id(0) * 8;\nvar off = m0;\n"
                        "for i in 0 .. K {\n"
                        "  let x = load(A[off : m0 + 8, 0 : 4]);\n"
                        "  off = off + 8;\n}"));
  EXPECT_FALSE(c->ok());
  EXPECT_NE(c->diags.find("slice extent"), std::string::npos) << c->diags;
}

TEST(Sema, CompileTimeIfChecksOnlyTheTakenSide) {
  // The else side has a type error; with Z = true it is never checked.
  const char *body = "var x = zeros(f32, [4]);\n"
                     "if Z { x = x + 1.0; } else { x = x + undefined_name; }";
  auto on = check(kernel(body));
  EXPECT_TRUE(on->ok()) << on->diags;
  auto off = check(kernel(body), {{"Z", "false"}});
  EXPECT_FALSE(off->ok());
  EXPECT_NE(off->diags.find("use of undeclared name 'undefined_name'"),
            std::string::npos);
  auto *ifs = cast<IfStmt>(on->kernel().decl->body->stmts[1].get());
  EXPECT_EQ(ifs->ctCond, 1);
}

TEST(Sema, CarriedVariablesOfLoopsAndIfs) {
  auto c = check(kernel("var a = 0;\nvar b = zeros(f32, [4]);\nvar u = 1;\n"
                        "for i in 0 .. K step 4 pipeline 2 {\n"
                        "  b = b + 1.0;\n"
                        "  if i > 3 { a = a + i; }\n"
                        "}"));
  ASSERT_TRUE(c->ok()) << c->diags;
  auto *f = cast<ForStmt>(c->kernel().decl->body->stmts[3].get());
  ASSERT_EQ(f->carried.size(), 2u);
  EXPECT_EQ(f->carried[0]->name, "b");
  EXPECT_EQ(f->carried[1]->name, "a");
  EXPECT_EQ(f->pipelineStages, 2);
  auto *i = cast<IfStmt>(f->body->stmts[1].get());
  EXPECT_EQ(i->ctCond, -1);
  ASSERT_EQ(i->carried.size(), 1u);
  EXPECT_EQ(i->carried[0]->name, "a");
}

TEST(Sema, BuiltinTyping) {
  auto c = check(kernel("let a = load(A[0 : 32, 0 : 16]);\n"
                        "let d = dot(a, trans(a));\n"
                        "let r = sum(d, 1);\n"
                        "let s = max(r, 0);\n"
                        "let w = bitcast(u8, load(W[0 : 4, 0 : 16]));\n"
                        "let q = reshape(d, [1024]);\n"
                        "let e = where(d > 0.0, d, -inf);\n"
                        "let n = min(program_id(0), 3);"));
  ASSERT_TRUE(c->ok()) << c->diags;
  EXPECT_EQ(c->init(1)->ty.str(), "tile f32[32, 32]");
  EXPECT_EQ(c->init(2)->ty.str(), "tile f32[32]");
  EXPECT_EQ(c->init(3)->ty.str(), "scalar f32");
  EXPECT_EQ(c->init(4)->ty.str(), "tile u8[4, 8]");
  EXPECT_EQ(c->init(5)->ty.str(), "tile f32[1024]");
  EXPECT_EQ(c->init(6)->ty.str(), "tile f32[32, 32]");
  EXPECT_EQ(c->init(7)->ty.str(), "scalar i32");
}

/// The errors of a target builtin \p name (warp_size, shared_memory,
/// has_wgmma) in \p text: without a target, at \p at; with an argument,
/// its usage (it takes none).
void expectTargetBuiltinErrors(const char *text, const std::string &at,
                               const std::string &name) {
  auto none = check(text);
  EXPECT_FALSE(none->ok());
  EXPECT_NE(none->diags.find(at + ": error: " + name + "() needs a target"),
            std::string::npos)
      << none->diags;
  auto arg = check("kernel k<X: int = where(" + name +
                       "(1), 1, 2)>(o: mut f32[N]) grid(1) warps 4\n{\n}\n",
                   {}, "", TargetFacts{32, 65536, true});
  EXPECT_FALSE(arg->ok());
  EXPECT_NE(arg->diags.find("none: " + name + "()"), std::string::npos)
      << arg->diags;
}

// warp_size(): the target's threads per warp as a compile-time integer, so
// a default can follow the target; without a target (warp size 0) an
// error at the call, as is an argument.
TEST(Sema, WarpSizeIsTheTargets) {
  const char *text = "kernel k<W: int = where(warp_size() == 32, 8, 4)>(\n"
                     "    o: mut f32[N]) grid(1) warps W\n{\n}\n";
  for (auto [size, warps] : {std::pair{32u, 8}, {64u, 4}, {1u, 4}}) {
    auto c = check(text, {}, "", TargetFacts{size, 65536});
    ASSERT_TRUE(c->ok()) << c->diags;
    EXPECT_EQ(c->kernel().constants.at(0).second.i, warps) << size;
    EXPECT_EQ(c->kernel().warps, warps) << size;
  }
  expectTargetBuiltinErrors(text, "s.tile:1:25", "warp_size");
}

TEST(Sema, SharedMemoryIsTheTargets) {
  const char *text =
      "kernel k<S: int = where(shared_memory() >= 196608, 4, 3)>(\n"
      "    o: mut f32[N]) grid(1) warps 4\n{\n}\n";
  for (auto [bytes, stages] :
       {std::pair{232448u, 4}, {166912u, 3}, {65536u, 3}}) {
    auto c = check(text, {}, "", TargetFacts{32, bytes});
    ASSERT_TRUE(c->ok()) << c->diags;
    EXPECT_EQ(c->kernel().constants.at(0).second.i, stages) << bytes;
  }
  expectTargetBuiltinErrors(text, "s.tile:1:25", "shared_memory");
}

TEST(Sema, HasWgmmaIsTheTargets) {
  const char *text = "kernel k<BN: int = where(has_wgmma(), 128, 64)>(\n"
                     "    o: mut f32[N]) grid(1) warps 4\n{\n}\n";
  for (auto [wgmma, bn] : {std::pair{true, 128}, {false, 64}}) {
    auto c = check(text, {}, "", TargetFacts{32, 232448, wgmma});
    ASSERT_TRUE(c->ok()) << c->diags;
    EXPECT_EQ(c->kernel().constants.at(0).second.i, bn) << wgmma;
  }
  expectTargetBuiltinErrors(text, "s.tile:1:26", "has_wgmma");
}

// has_mma(T): whether dot of T operands runs on the target's matrix
// instructions, from the target's facts; a type argument, and a target,
// are required.
TEST(Sema, HasMmaIsTheTargetsForTheType) {
  auto text = [](const char *type) {
    return "kernel k<B: bool = has_mma(" + std::string(type) +
           ")>(o: mut f32[N]) grid(1) warps 4\n{\n}\n";
  };
  TargetFacts fma{32, 65536};
  TargetFacts ampere = fma;
  ampere.mmaFloat16 = ampere.mmaInt8 = true;
  TargetFacts ada = ampere;
  ada.mmaFloat8 = true;
  struct Case {
    const char *type;
    TargetFacts target;
    bool want;
  } cases[] = {
      {"f16", ampere, true}, {"bf16", ampere, true},    {"i8", ampere, true},
      {"u8", ampere, true},  {"f8e4m3", ampere, false}, {"f8e4m3", ada, true},
      {"f8e5m2", ada, true}, {"u4", ada, false},        {"f4e2m1", ada, false},
      {"f32", ada, false},   {"f16", fma, false},       {"i8", fma, false}};
  for (const Case &c : cases) {
    auto r = check(text(c.type), {}, "", c.target);
    ASSERT_TRUE(r->ok()) << c.type << r->diags;
    EXPECT_EQ(r->kernel().constants.at(0).second.b, c.want) << c.type;
  }
  auto none = check(text("f16"));
  EXPECT_FALSE(none->ok());
  EXPECT_NE(none->diags.find("s.tile:1:20: error: has_mma() needs a target"),
            std::string::npos)
      << none->diags;
  auto value = check("kernel k<B: bool = has_mma(1)>(o: mut f32[N]) grid(1) "
                     "warps 4\n{\n}\n",
                     {}, "", ada);
  EXPECT_FALSE(value->ok());
}

TEST(Sema, DefinesAreValidated) {
  auto bad = check(kernel(""), {{"BM", "x"}});
  EXPECT_FALSE(bad->ok());
  EXPECT_NE(bad->diags.find("invalid value 'x' for -D BM"), std::string::npos);
  auto unknown = check(kernel(""), {{"NOPE", "1"}});
  EXPECT_FALSE(unknown->ok());
  EXPECT_NE(unknown->diags.find("-D NOPE=1: no compiled kernel"),
            std::string::npos);
  auto type = check(kernel(""), {{"T", "f6e3m2"}, {"Z", "0"}});
  EXPECT_TRUE(type->ok()) << type->diags;
}

TEST(Sema, ReportsSeveralErrorsAtOnce) {
  auto c = check(kernel("let a = nope1;\nlet b = 1 + true;\nlet c = nope2;"));
  EXPECT_FALSE(c->ok());
  EXPECT_NE(c->diags.find("s.tile:5:9: error: use of undeclared name 'nope1'"),
            std::string::npos)
      << c->diags;
  EXPECT_NE(c->diags.find("s.tile:6:11: error:"), std::string::npos)
      << c->diags;
  EXPECT_NE(c->diags.find("s.tile:7:9: error: use of undeclared name 'nope2'"),
            std::string::npos)
      << c->diags;
}

TEST(Sema, ErrorLimitStopsReporting) {
  std::string body;
  for (int i = 0; i < 30; ++i)
    body += "let a" + std::to_string(i) + " = undefined" + std::to_string(i) +
            ";\n";
  auto c = check(kernel(body));
  EXPECT_FALSE(c->ok());
  EXPECT_NE(c->diags.find("undefined19'"), std::string::npos) << c->diags;
  EXPECT_EQ(c->diags.find("undefined20'"), std::string::npos) << c->diags;
  EXPECT_NE(c->diags.find("error: too many errors, stopping"),
            std::string::npos);
}

TEST(KernelInfo, ListsParametersAndTuneSpace) {
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          "kernel g<BM: int = 2 * 32, T: type = u4, P: bool = false>("
          "A: T[M, K / BM], c: mut f32[M]) grid(M) warps 4 "
          "tune { BM in [16, 8 * 4]; T in [u4, i8] } { }",
          "g.tile"),
      llvm::SMLoc());
  std::vector<KernelInfo> ks;
  std::string d;
  llvm::raw_string_ostream os(d);
  ASSERT_TRUE(listKernels(sm, ks, &os)) << d;
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].name, "g");
  ASSERT_EQ(ks[0].ctParams.size(), 3u);
  EXPECT_EQ(ks[0].ctParams[0].defaultValue, "64");
  EXPECT_EQ(ks[0].ctParams[1].defaultValue, "u4");
  EXPECT_EQ(ks[0].ctParams[2].kind, "bool");
  EXPECT_EQ(ks[0].ctParams[2].defaultValue, "false");
  ASSERT_EQ(ks[0].rtParams.size(), 2u);
  EXPECT_EQ(ks[0].rtParams[0].dims, (std::vector<std::string>{"M", "K / BM"}));
  ASSERT_EQ(ks[0].tune.size(), 2u);
  EXPECT_EQ(ks[0].tune[0].values, (std::vector<std::string>{"16", "32"}));
  EXPECT_EQ(ks[0].tune[1].values, (std::vector<std::string>{"u4", "i8"}));
}

} // namespace
