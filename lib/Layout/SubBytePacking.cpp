//===- SubBytePacking.cpp - Packing narrow elements in registers ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/SubBytePacking.h"
#include "tile/Layout/DistributedLayout.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace llvm;

namespace tile::layout {

SlotBits locateSlot(unsigned elemBits, int64_t slot) {
  assert(elemBits >= 1 && elemBits <= 32 && slot >= 0 && "bad slot query");
  int64_t bit = slot * elemBits;
  SlotBits s;
  s.reg = bit / 32;
  s.offset = bit % 32;
  s.width = elemBits;
  s.lowBits = std::min<unsigned>(elemBits, 32 - s.offset);
  return s;
}

int64_t numRegisters(unsigned elemBits, int64_t localSize) {
  return divideCeil(localSize * elemBits, 32);
}

bool anySlotStraddles(unsigned elemBits, int64_t localSize) {
  for (int64_t l = 0; l < localSize; ++l) {
    if (locateSlot(elemBits, l).straddles())
      return true;
  }
  return false;
}

Expected<DistributedLayout> bitcastLayout(const DistributedLayout &x,
                                          unsigned fromBits, unsigned toBits) {
  if (fromBits < 1 || fromBits > 64 || toBits < 1 || toBits > 64)
    return createStringError("bitcast element widths must be 1..64 bits");
  if (x.rank() == 0)
    return createStringError("cannot bitcast a rank-0 tile");
  if (fromBits == toBits)
    return x;
  unsigned g = std::gcd(fromBits, toBits);
  int64_t p = toBits / g, q = fromBits / g;
  SmallVector<int64_t, 4> unit(x.rank(), 1);
  unit.back() = p;
  std::optional<DistributedLayout> outer =
      x.divideRight(DistributedLayout::local(unit));
  if (!outer) {
    return createStringError(
        "illegal bitcast from " + std::to_string(fromBits) + "-bit to " +
        std::to_string(toBits) + "-bit elements: layout " + x.str() +
        " does not hold runs of " + std::to_string(p) +
        " consecutive elements of the last dimension in consecutive slots of "
        "one thread (it must be divisible by local(...," +
        std::to_string(p) + "))");
  }
  unit.back() = q;
  return *outer * DistributedLayout::local(unit);
}

} // namespace tile::layout
