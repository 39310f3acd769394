//===- LayoutGenTest.cpp - layout(x, L) in the generated IR ---------------===//
//
// Part of tilec. The front end builds the #tile.layout of layout(x, L) from
// the expression L; the layout library parses the same text independently
// (DistributedLayout::parse, the parser of the attribute syntax). Both must
// give the same layout, for every factor kind, ranks 1 to 3, replication
// and products in any order. The tile is pinned unchanged: the conversion's
// source is x and only the encoding differs.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Frontend/Frontend.h"
#include "tile/Layout/DistributedLayout.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using tile::layout::DistributedLayout;

namespace {

struct Case {
  const char *shape;  ///< The tile's shape, as a .tile list.
  const char *layout; ///< L, in the syntax both sides accept.
};

/// The layouts of the tile.convert_layout results in the kernel compiled
/// from \p source, in program order.
std::vector<DistributedLayout> pinnedLayouts(const std::string &source,
                                             std::string &diags) {
  mlir::MLIRContext ctx;
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, "k.tile"),
                        llvm::SMLoc());
  llvm::raw_string_ostream os(diags);
  auto module = tile::frontend::compileToMLIR(sm, ctx, {}, &os);
  std::vector<DistributedLayout> result;
  if (!module)
    return result;
  module->walk([&](tile::ConvertLayoutOp op) {
    auto src = op.getSrc().getType();
    auto dst = op.getResult().getType();
    EXPECT_FALSE(src.getEncoding()) << "the pinned tile had a layout already";
    EXPECT_EQ(src.getShape(), dst.getShape());
    EXPECT_EQ(src.getElementType(), dst.getElementType());
    auto attr = llvm::dyn_cast_or_null<tile::LayoutAttr>(dst.getEncoding());
    EXPECT_TRUE(attr) << "no #tile.layout on the result";
    if (attr)
      result.push_back(attr.getLayout());
  });
  return result;
}

TEST(LayoutGen, FrontEndAndAttributeParserAgree) {
  const Case cases[] = {
      {"[64, 32]", "local(2, 1) * spatial(16, 8) * local(2, 4)"},
      {"[32, 32]", "spatial(16, 8) * column_local(2, 4)"},
      {"[32, 32]", "column_local(2, 4) * spatial(16, 8)"},
      {"[32, 32]", "replicate(2) * local(2, 1) * column_spatial(16, 8) * "
                   "local(1, 4)"},
      {"[32]", "replicate(4) * spatial(32)"},
      {"[64]", "local(2) * spatial(32) * replicate(4) * column_local(1)"},
      {"[8, 8, 32]", "column_spatial(4, 8, 4) * local(2, 1, 8)"},
      {"[8, 8, 32]", "spatial(2, 2, 32) * column_local(4, 4, 1)"},
      {"[16, 16]", "replicate(256) * local(16, 16)"},
  };
  std::string body;
  for (const Case &c : cases) {
    body += "    let p" + std::to_string(&c - cases) + " = layout(zeros(f32, " +
            c.shape + "), " + c.layout + ");\n";
  }
  std::string source = "kernel k(A: f32[N]) grid(N) warps 4 {\n" + body + "}\n";
  std::string diags;
  std::vector<DistributedLayout> got = pinnedLayouts(source, diags);
  ASSERT_EQ(got.size(), std::size(cases)) << diags << source;
  for (size_t i = 0; i < got.size(); ++i) {
    auto want = DistributedLayout::parse(cases[i].layout);
    ASSERT_TRUE(bool(want)) << llvm::toString(want.takeError());
    EXPECT_EQ(got[i], *want) << cases[i].layout << ": front end built "
                             << got[i].str() << ", parser " << want->str();
  }
}

TEST(LayoutGen, FactorOrderMatters) {
  // local * spatial and spatial * local cover the same tile with different
  // thread assignments: the front end must not reorder factors.
  std::string diags;
  auto got = pinnedLayouts(
      "kernel k(A: f32[N]) grid(N) warps 4 {\n"
      "    let a = layout(zeros(f32, [64, 64]), local(2, 4) * spatial(16, 8) * "
      "local(2, 2));\n"
      "    let b = layout(zeros(f32, [64, 64]), local(2, 2) * spatial(16, 8) * "
      "local(2, 4));\n}\n",
      diags);
  ASSERT_EQ(got.size(), 2u) << diags;
  EXPECT_NE(got[0], got[1]);
  EXPECT_EQ(got[0].shape(), got[1].shape());
  EXPECT_EQ(got[0].numThreads(), 128);
  // Thread 9 is at row 1, column 1 of the 16 x 8 thread grid; the innermost
  // factor is its block: 2 x 2 in a (rows 2..3, columns 2..3), 2 x 4 in b
  // (rows 2..3, columns 4..7).
  auto inA = got[0].apply(9, 0), inB = got[1].apply(9, 0);
  EXPECT_EQ(inA[0], 2);
  EXPECT_EQ(inA[1], 2);
  EXPECT_EQ(inB[0], 2);
  EXPECT_EQ(inB[1], 4);
}

} // namespace
