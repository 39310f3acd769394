//===- ROCDLTargetLowering.h - ROCDL hooks, private interface --*- C++ -*-===//
//
// Part of tilec. Private to lib/Codegen/AMD: what the AMD code generator
// needs from its TargetLowering beyond the generic interface.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CODEGEN_AMD_ROCDLTARGETLOWERING_H
#define TILE_LIB_CODEGEN_AMD_ROCDLTARGETLOWERING_H

#include "tile/Codegen/AMD/AMDCodegen.h"
#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Layout/MmaAtoms.h"

#include <memory>
#include <vector>

namespace tile::amd {

/// The operand layouts of the wave64 MFMA instruction of shape M x N x K
/// (16x16 or 32x32; K elements per row of A split over 64 / M lane groups):
/// A is M x K, B is K x N, C is M x N. The same lane structure holds for
/// f16/bf16 (16x16x16, 32x32x8, gfx950 16x16x32, 32x32x16) and i8
/// (16x16x32, 32x32x16, gfx950 16x16x64, 32x32x32).
::tile::layout::DistributedLayout
mfmaLayout(unsigned m, unsigned n, unsigned k,
           ::tile::layout::MmaOperand operand);

/// The ROCDL TargetLowering with the MFMA selection the generic interface
/// has no room for: a CDNA chip has several MFMA shapes per element type and
/// the generic lowering asks for one by element types only, so the shape of
/// each tile.dot is chosen beforehand from the layouts it carries.
class ROCDLLoweringBase : public gpu::TargetLowering {
public:
  /// Every MFMA atom for these operand / accumulator types, preferred first.
  virtual std::vector<gpu::MmaAtom> candidateAtoms(mlir::Type operand,
                                                   mlir::Type acc) const = 0;
  /// Chooses, for every tile.dot of the kernels of `module`, the first
  /// candidate whose layouts divide the dot's; getMmaAtom then returns these
  /// in program order (the order the generic lowering asks in).
  virtual void selectMmaAtoms(mlir::ModuleOp module) = 0;
  /// Whether a kernel needed more LDS than the chip has (reported as an
  /// error at the kernel when its static LDS array was made): scratch the
  /// lowering added on top of the tile-allocate-shared plan.
  virtual bool exceededLds() const = 0;
};

std::unique_ptr<ROCDLLoweringBase>
createROCDLLowering(const TargetInfo &target);

/// Removes the LDS placeholder global once every kernel has its own array.
void eraseUnusedLdsPlaceholder(mlir::ModuleOp module);

} // namespace tile::amd

#endif // TILE_LIB_CODEGEN_AMD_ROCDLTARGETLOWERING_H
