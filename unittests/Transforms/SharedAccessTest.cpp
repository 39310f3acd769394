//===- SharedAccessTest.cpp - The shared-memory access interface ----------===//
//
// Part of tilec. What tile.shared_load, tile.shared_store and
// tile.copy_async tell passes through SharedAccessOpInterface (buffer,
// indices, accessed rank, direction, asynchrony, register tile), read from
// parsed IR; an op that does not touch shared memory does not implement it.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;

namespace {

const char *kSource = R"(
func.func @k(%P: !tile.ptr<f16>, %N: i32) {
  %v = tile.view %P(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.alloc_shared : !tile.shared<2x32x16xf16>
  tile.copy_async %v[%c0, %c0] -> %a[%c1, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x32x16xf16>
  tile.wait 0
  %t = tile.shared_load %a[%c1, %c0, %c0] : !tile.shared<2x32x16xf16> -> tensor<32x16xf16>
  %r = tile.shared_load %a[%c0, %c1, %c0] : !tile.shared<2x32x16xf16> -> tensor<16xf16>
  tile.shared_store %a[%c0, %c0, %c0], %t : !tile.shared<2x32x16xf16>, tensor<32x16xf16>
  return
}
)";

TEST(SharedAccess, EachAccessDescribesItself) {
  DialectRegistry registry;
  registry.insert<tile::TileDialect, arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSource, &context);
  ASSERT_TRUE(module);
  SmallVector<tile::SharedAccessOpInterface> accesses;
  int others = 0;
  module->walk([&](Operation *op) {
    if (auto access = dyn_cast<tile::SharedAccessOpInterface>(op))
      accesses.push_back(access);
    else if (op->getDialect() && op->getDialect()->getNamespace() == "tile")
      ++others;
  });
  // view, alloc_shared, wait: no shared-memory access of their own.
  EXPECT_EQ(others, 3);
  ASSERT_EQ(accesses.size(), 4u);
  auto index = [](Value v) {
    return cast<IntegerAttr>(
               cast<arith::ConstantOp>(v.getDefiningOp()).getValue())
        .getInt();
  };
  Value buffer = accesses[0].getSharedBuffer();
  for (auto access : accesses) {
    EXPECT_EQ(access.getSharedBuffer(), buffer);
    EXPECT_EQ(access.getSharedIndices().size(), 3u);
  }

  auto copy = accesses[0];
  EXPECT_TRUE(isa<tile::CopyAsyncOp>(copy.getOperation()));
  EXPECT_TRUE(copy.isSharedWrite());
  EXPECT_TRUE(copy.isAsyncAccess());
  EXPECT_EQ(copy.getAccessRank(), 2u);
  EXPECT_FALSE(copy.getRegisterTile());
  EXPECT_EQ(index(copy.getSharedIndices()[0]), 1);

  auto load = accesses[1];
  EXPECT_FALSE(load.isSharedWrite());
  EXPECT_FALSE(load.isAsyncAccess());
  EXPECT_EQ(load.getAccessRank(), 2u);
  EXPECT_EQ(load.getRegisterTile(), load->getResult(0));

  auto row = accesses[2];
  EXPECT_EQ(row.getAccessRank(), 1u);
  EXPECT_EQ(index(row.getSharedIndices()[1]), 1);

  auto store = accesses[3];
  EXPECT_TRUE(store.isSharedWrite());
  EXPECT_FALSE(store.isAsyncAccess());
  EXPECT_EQ(store.getAccessRank(), 2u);
  EXPECT_EQ(store.getRegisterTile(), load->getResult(0));
}

} // namespace
