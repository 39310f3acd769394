//===- PipelineSupport.h - Pieces tile-pipeline's schemes share -*- C++ -*-===//
//
// Part of tilec. Internal to lib/Transforms: the loads tile-pipeline
// pipelines and the IR pieces of its schemes (SoftwarePipeline.cpp), which
// the warp-specialized scheme (SpecializeWarps.cpp) builds on.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TRANSFORMS_PIPELINESUPPORT_H
#define TILE_LIB_TRANSFORMS_PIPELINESUPPORT_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace tile::pipeline {

/// A load to pipeline and the side-effect-free ops of the loop body its
/// offsets are computed with (in program order).
struct Candidate {
  tile::LoadOp load;
  llvm::SmallVector<mlir::Operation *> slice;
};

/// An i32 constant.
mlir::Value constI32(mlir::OpBuilder &builder, mlir::Location loc,
                     int64_t value);

/// Issues the copy of \p candidate's tile for iteration value \p iv into
/// stage \p stage of \p buffer, cloning the offset computation (values
/// from outside \p loop through \p outside); it copies only when \p inside
/// (when given). With \p barriers, a TMA copy on mbarrier \p stage.
void issueCopy(mlir::OpBuilder &builder, mlir::Location loc,
               mlir::scf::ForOp loop, Candidate candidate, mlir::Value iv,
               mlir::Value inside, mlir::Value stage, mlir::Value buffer,
               mlir::Value barriers = mlir::Value(),
               const mlir::IRMapping &outside = mlir::IRMapping());

/// The tile.shared_load of stage \p stage of \p buffer replacing
/// \p c's load (in the layout of a lone conversion user when it can).
void replaceBySharedLoad(mlir::IRRewriter &rewriter, Candidate &c,
                         mlir::Value buffer, mlir::Value stage,
                         mlir::Value zero);

/// One ring of \p stages buffers per candidate, at the insertion point.
llvm::SmallVector<mlir::Value>
createRings(mlir::IRRewriter &rewriter,
            llvm::MutableArrayRef<Candidate> candidates, int64_t stages);

/// s + 1 wrapped to 0 at \p modulus.
mlir::Value advanceStage(mlir::OpBuilder &b, mlir::Location loc, mlir::Value s,
                         int64_t modulus);
/// The same, and the mbarrier phase parity \p phase flipped when s wraps:
/// the next stage of a ring and the parity its wait asks for.
std::pair<mlir::Value, mlir::Value>
advanceStageAndPhase(mlir::OpBuilder &b, mlir::Location loc, mlir::Value s,
                     mlir::Value phase, int64_t modulus);

/// A positive number every value of the integer \p v is a multiple of
/// (IndexFacts.cpp): from constants, sums, products, casts and scf.for
/// induction variables; 1 when nothing is known.
int64_t knownDivisor(mlir::Value v);

/// The extent \p v of a view of a parameter of \p kernel written as the
/// front end writes declared shapes: a dimension parameter's name, a
/// constant, or one of + - * / between two of those ("K / 128");
/// "" for anything else (IndexFacts.cpp).
std::string extentExpression(mlir::Value v, mlir::func::FuncOp kernel);

/// Puts \p loop under `scf.if (lb < ub)` (its initial values otherwise).
void guardZeroTrip(mlir::IRRewriter &rewriter, mlir::scf::ForOp loop);

/// Why \p loop, whose copies are TMA copies, cannot get a producer
/// warpgroup (SpecializeWarps.cpp), or "" when it can (docs/Passes.md);
/// \p maxWarps: the warps an SM holds (TargetInfo::maxWarpsPerProcessor),
/// which the kernel's occupancy times its warps and the producers' must
/// not exceed.
std::string specializeObstacle(mlir::scf::ForOp loop,
                               llvm::ArrayRef<Candidate> candidates,
                               unsigned maxWarps);

/// The warp-specialized TMA scheme for \p loop, whose MMA \p asyncDot
/// stays in flight (SpecializeWarps.cpp).
mlir::LogicalResult specializeLoop(mlir::scf::ForOp loop,
                                   llvm::MutableArrayRef<Candidate> candidates,
                                   int64_t stages, tile::DotOp asyncDot);

} // namespace tile::pipeline

#endif // TILE_LIB_TRANSFORMS_PIPELINESUPPORT_H
