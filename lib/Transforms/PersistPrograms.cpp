//===- PersistPrograms.cpp - Persistent programs over a virtual grid ------===//
//
// Part of tilec. Implements tile-persist-programs (see Passes.td and
// docs/Passes.md).
//
// A persistent kernel is launched with as many programs as the device runs
// at once (at most its grid's), and each program loops over the programs
// of the grid the kernel declares (its virtual grid), x fastest:
//
//   kernel k(params..., %gx, %gy, %gz)      (the virtual grid, appended)
//     for %v = program_id(x) to gx * gy * gz step num_programs(x) {
//       ... the body, with program_id(a) the coordinates of %v and
//           num_programs(a) the virtual grid's extents ...
//     }
//
// The order of the virtual programs: z slowest; within a z plane, groups
// of G rows (y) one after the other, each column by column, G rows at a
// time (Triton's grouped order): the programs running at once then share
// the rows of a GEMM's A (y) and the columns of its B (x) in L2 instead of
// sweeping all of B for each row. With w = v mod (gx gy), n = G gx:
//   y0 = (w / n) G, rows = min(gy - y0, G),
//   y = y0 + (w mod n) mod rows, x = (w mod n) / rows, z = v / (gx gy).
// G = 1 is the row-major order (x fastest).
//
// The runtime evaluates the grid expressions as for any kernel, passes
// them after the parameters (before any tensor maps) and launches
// min(programs, resident programs) along x (runtime/README.md).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <array>

namespace tile {
#define GEN_PASS_DEF_TILEPERSISTPROGRAMS
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {

/// Whether \p func can loop over its virtual grid: a kernel with a body
/// and no results.
bool canPersist(func::FuncOp func) {
  return tile::detail::isKernel(func) && !func.isExternal() &&
         func.getNumResults() == 0 &&
         !func->hasAttr(tile::TileDialect::kPersistentAttr);
}

/// The coordinates of virtual program \p v of the grid \p grid (its
/// extents; \p plane = gx gy) in the grouped order of the file comment.
std::array<Value, 3> coordinates(OpBuilder &b, Location loc, Value v,
                                 ArrayRef<Value> grid, Value plane,
                                 int64_t group) {
  auto c = [&](int64_t value) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value)
        .getResult();
  };
  Value z = arith::DivUIOp::create(b, loc, v, plane);
  Value w = arith::RemUIOp::create(b, loc, v, plane);
  if (group <= 1)
    return {arith::RemUIOp::create(b, loc, w, grid[0]),
            arith::DivUIOp::create(b, loc, w, grid[0]), z};
  Value perGroup = arith::MulIOp::create(b, loc, grid[0], c(group));
  Value y0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, w, perGroup), c(group));
  Value rows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, grid[1], y0), c(group));
  Value inGroup = arith::RemUIOp::create(b, loc, w, perGroup);
  Value y = arith::AddIOp::create(
      b, loc, y0, arith::RemUIOp::create(b, loc, inGroup, rows));
  return {arith::DivUIOp::create(b, loc, inGroup, rows), y, z};
}

/// Moves \p func's body into a loop over its virtual grid (see the file
/// comment).
void persist(func::FuncOp func, int64_t group) {
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  Location loc = func.getLoc();
  Block &body = func.front();
  Type i32 = b.getI32Type();
  SmallVector<Value> grid;
  for (int64_t axis = 0; axis < 3; ++axis) {
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, i32,
                                   b.getDictionaryAttr(b.getNamedAttr(
                                       tile::TileDialect::kVirtualGridAttr,
                                       b.getI64IntegerAttr(axis))),
                                   loc)))
      return;
    grid.push_back(body.getArgument(index));
  }
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);

  b.setInsertionPointToStart(&body);
  Value first =
      tile::ProgramIdOp::create(b, loc, i32, tile::Axis::X).getResult();
  Value step =
      tile::NumProgramsOp::create(b, loc, i32, tile::Axis::X).getResult();
  Value plane = arith::MulIOp::create(b, loc, grid[0], grid[1]);
  Value total = arith::MulIOp::create(b, loc, plane, grid[2]);
  auto loop = scf::ForOp::create(b, loc, first, total, step);
  loop->setAttr(tile::TileDialect::kPersistentAttr, b.getUnitAttr());
  Block *inner = loop.getBody();
  for (Operation *op : ops)
    op->moveBefore(inner->getTerminator());

  // The coordinates of the virtual program, at the top of each iteration.
  b.setInsertionPointToStart(inner);
  std::array<Value, 3> coords =
      coordinates(b, loc, loop.getInductionVar(), grid, plane, group);
  loop.walk([&](Operation *op) {
    if (auto id = dyn_cast<tile::ProgramIdOp>(op)) {
      id.getResult().replaceAllUsesWith(coords[unsigned(id.getAxis())]);
      id.erase();
    } else if (auto n = dyn_cast<tile::NumProgramsOp>(op)) {
      n.getResult().replaceAllUsesWith(grid[unsigned(n.getAxis())]);
      n.erase();
    }
  });
  func->setAttr(tile::TileDialect::kPersistentAttr, b.getUnitAttr());
}

struct PersistProgramsPass
    : public tile::impl::TilePersistProgramsBase<PersistProgramsPass> {
  using TilePersistProgramsBase::TilePersistProgramsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<::tile::TargetInfo> info =
        tile::detail::lookupTarget(module, target);
    if (!info)
      return signalPassFailure();
    bool all =
        persistent || module->hasAttr(tile::TileDialect::kPersistentAttr);
    for (auto func : module.getOps<func::FuncOp>()) {
      // A kernel's own request (the language's `persistent true`).
      bool asked = func->hasAttr(tile::TileDialect::kPersistAttr);
      func->removeAttr(tile::TileDialect::kPersistAttr);
      if (!info->isHost() && (all || asked) && canPersist(func))
        persist(func, group);
    }
  }
};

} // namespace
