//===- LaneMaskRemat.h - Keep lane masks inside loops -----------*- C++ -*-===//
//
// Part of tilec. Private to lib/Codegen/AMD.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CODEGEN_AMD_LANEMASKREMAT_H
#define TILE_LIB_CODEGEN_AMD_LANEMASKREMAT_H

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace tile::amd {

/// Recomputes, inside each loop, the i1 compares (and and/or/xor of them)
/// that are computed outside the loop and used in it, from copies of their
/// non-constant operands made at the loop header through an empty
/// `asm sideeffect` (an optimization barrier). On wave64 every such lane
/// mask would otherwise hold an SGPR pair for the whole loop; the barrier
/// keeps the AMDGPU codegen pipeline's own LICM and MachineLICM from
/// hoisting the compares again. Run after the -O3 pipeline. Returns the
/// number of uses rewritten.
unsigned rematerializeLaneMasks(llvm::Function &function);
unsigned rematerializeLaneMasks(llvm::Module &module);

} // namespace tile::amd

#endif // TILE_LIB_CODEGEN_AMD_LANEMASKREMAT_H
