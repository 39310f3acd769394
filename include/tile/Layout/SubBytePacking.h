//===- SubBytePacking.h - Packing narrow elements in registers --*- C++ -*-===//
//
// Part of tilec. A thread's local slots of a b-bit element type are one dense
// bit stream over its 32-bit registers: slot l occupies stream bits
// [l*b, (l+1)*b), stream bit i is bit (i % 32) of register i / 32. For b that
// does not divide 32 (3, 5, 6, 7, ...) a slot may straddle two registers;
// this is the same packing as the dense global-memory stream (docs/Numerics.md)
// so a vector load lands in registers unchanged, and extracting a straddling
// field is one funnel shift (shf.r / v_alignbit). See docs/Layouts.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_SUBBYTEPACKING_H
#define TILE_LAYOUT_SUBBYTEPACKING_H

#include "llvm/Support/Error.h"

#include <cstdint>

namespace tile::layout {

class DistributedLayout;

/// Where a slot's bits live.
struct SlotBits {
  int64_t reg = 0;      ///< First 32-bit register.
  unsigned offset = 0;  ///< Bit offset of the slot's LSB in `reg`.
  unsigned lowBits = 0; ///< Bits in `reg`; the other width-lowBits bits are
                        ///< bits [0, width-lowBits) of register reg + 1.
  unsigned width = 0;   ///< Element width b.

  bool straddles() const { return lowBits < width; }
};

/// Location of `slot` for `elemBits`-bit elements (1 <= elemBits <= 32).
SlotBits locateSlot(unsigned elemBits, int64_t slot);

/// Number of 32-bit registers holding `localSize` slots of `elemBits` bits
/// (the last one may be partly unused; its unused bits are zero).
int64_t numRegisters(unsigned elemBits, int64_t localSize);

/// Whether some slot straddles two registers for a given local size.
bool anySlotStraddles(unsigned elemBits, int64_t localSize);

/// Reinterprets a tile of `fromBits`-bit elements in layout `x` as a tile of
/// `toBits`-bit elements whose last dimension is scaled by fromBits/toBits
/// (the bits of each row are one dense stream). Legal iff the thread map
/// stays the same and every thread's register bits are unchanged, i.e. with
/// g = gcd(fromBits, toBits), p = toBits/g, q = fromBits/g: x = x' *
/// local(1,...,1,p) for some x', and then the result is x' *
/// local(1,...,1,q) (so L_x * fromBits == L_y * toBits). Errors explain why
/// a bitcast is illegal.
llvm::Expected<DistributedLayout>
bitcastLayout(const DistributedLayout &x, unsigned fromBits, unsigned toBits);

} // namespace tile::layout

#endif // TILE_LAYOUT_SUBBYTEPACKING_H
