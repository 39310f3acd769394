//===- LowerDot.cpp - Matrix products on matrix instructions --------------===//
//
// Part of tilec. tile.dot with operands in the target's MMA layouts: each
// operand layout L is Q ∘ atom (lib/Layout division), where the quotient Q
// says which (row-block, column-block) of the tile a warp's atom instance
// covers at each of its atom slots. For every accumulator atom (mi, ni) of a
// warp and every k block, the A atom (mi, k) and B atom (k, ni) must be held
// by the same warp at a slot that does not depend on the warp; then the
// product is a chain of warp-wide matrix instructions.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using ::tile::layout::DistributedLayout;

namespace tile::gpu {

/// The slot q of `quotient` holding `coord` in every warp w with
/// coord = want(w); std::nullopt when it varies with the warp.
static std::optional<int64_t>
findAtomSlot(const DistributedLayout &quotient,
             llvm::function_ref<SmallVector<int64_t, 4>(int64_t)> want) {
  int64_t found = -1;
  for (int64_t w = 0; w < quotient.numThreads(); ++w) {
    int64_t slot = -1;
    for (const auto &h : quotient.holders(want(w)))
      if (h.thread == w) {
        slot = h.slot;
        break;
      }
    if (slot < 0 || (found >= 0 && slot != found))
      return std::nullopt;
    found = slot;
  }
  return found;
}

LogicalResult KernelLowering::lowerFmaDot(mlir::tile::DotOp op,
                                          const DistributedLayout &la,
                                          const DistributedLayout &lb,
                                          const DistributedLayout &lc) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  Type accType = cast<RankedTensorType>(op.getAcc().getType()).getElementType();
  Type opType = aType.getElementType();
  if (storageType(opType) != opType)
    return failure();
  int64_t kExtent = aType.getShape()[1];
  // Slots of A / B holding (row, k) / (k, col) of every accumulator slot,
  // the same in every thread.
  SmallVector<SmallVector<int64_t>> aSlots, bSlots;
  for (int64_t k = 0; k < kExtent; ++k) {
    auto sa = staticRemap(la, lc, [&](ArrayRef<int64_t> c) {
      return SmallVector<int64_t, 4>{c[0], k};
    });
    auto sb = staticRemap(lb, lc, [&](ArrayRef<int64_t> c) {
      return SmallVector<int64_t, 4>{k, c[1]};
    });
    if (!sa || !sb)
      return failure();
    aSlots.push_back(*sa);
    bSlots.push_back(*sb);
  }
  const Regs &ra = values[op.getA()];
  const Regs &rb = values[op.getB()];
  Regs acc = values[op.getAcc()];
  bool isFloat = isa<FloatType>(accType);
  auto widen = [&](Value v) -> Value {
    if (v.getType() == accType)
      return v;
    if (isFloat)
      return arith::ExtFOp::create(b, loc, accType, v);
    return arith::ExtSIOp::create(b, loc, accType, v);
  };
  for (int64_t l = 0; l < int64_t(acc.size()); ++l)
    for (int64_t k = 0; k < kExtent; ++k) {
      Value x = widen(ra[aSlots[k][l]]);
      Value y = widen(rb[bSlots[k][l]]);
      acc[l] = isFloat
                   ? math::FmaOp::create(b, loc, x, y, acc[l]).getResult()
                   : arith::AddIOp::create(b, loc, acc[l],
                                           arith::MulIOp::create(b, loc, x, y))
                         .getResult();
    }
  values[op.getResult()] = acc;
  return success();
}

LogicalResult KernelLowering::lowerDot(mlir::tile::DotOp op) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  FailureOr<DistributedLayout> la = layoutOf(op, aType);
  FailureOr<DistributedLayout> lb = layoutOf(op, bType);
  FailureOr<DistributedLayout> lc = layoutOf(op, cType);
  FailureOr<DistributedLayout> lr = layoutOf(op, op.getType());
  if (failed(la) || failed(lb) || failed(lc) || failed(lr))
    return failure();
  if (*lc != *lr)
    return op.emitOpError("accumulator and result layouts must be equal");
  std::optional<MmaAtom> atom =
      tl.getMmaAtom(aType.getElementType(), cType.getElementType());
  std::optional<DistributedLayout> qa, qb, qc;
  if (atom) {
    qa = la->divideRight(atom->a);
    qb = lb->divideRight(atom->b);
    qc = lc->divideRight(atom->c);
  }
  if (!atom || !qa || !qb || !qc) {
    // FMA dot: every thread must hold the A rows and B columns of its
    // accumulator elements (tile-infer-layouts' FMA layouts).
    if (succeeded(lowerFmaDot(op, *la, *lb, *lc)))
      return success();
    if (!atom)
      return op.emitOpError("the target has no matrix instruction for ")
             << aType.getElementType() << " x " << bType.getElementType()
             << " -> " << cType.getElementType()
             << " and the operand layouts do not allow an FMA dot";
    return op.emitOpError("operand layouts are not built from the ")
           << atom->m << "x" << atom->n << "x" << atom->k
           << " matrix-instruction layouts (A: " << la->str()
           << ", B: " << lb->str() << ", C: " << lc->str() << ")";
  }
  int64_t kBlocks = aType.getShape()[1] / atom->k;
  int64_t sa = atom->a.localSize(), sb = atom->b.localSize(),
          sc = atom->c.localSize();
  const Regs &ra = values[op.getA()];
  const Regs &rb = values[op.getB()];
  Regs acc = values[op.getAcc()];
  for (int64_t q = 0; q < qc->localSize(); ++q) {
    // Accumulator block of warp w at slot q.
    auto cBlock = [&](int64_t w) { return qc->apply(w, q); };
    ValueRange cRegs = ValueRange(acc).slice(q * sc, sc);
    SmallVector<Value> c(cRegs.begin(), cRegs.end());
    for (int64_t k = 0; k < kBlocks; ++k) {
      std::optional<int64_t> sA = findAtomSlot(*qa, [&](int64_t w) {
        return SmallVector<int64_t, 4>{cBlock(w)[0], k};
      });
      std::optional<int64_t> sB = findAtomSlot(*qb, [&](int64_t w) {
        return SmallVector<int64_t, 4>{k, cBlock(w)[1]};
      });
      if (!sA || !sB)
        return op.emitOpError("the warps' A/B atoms do not match their "
                              "accumulator atoms (A: ")
               << la->str() << ", B: " << lb->str() << ", C: " << lc->str()
               << ")";
      c = tl.mma(b, loc, *atom, ValueRange(ra).slice(*sA * sa, sa),
                 ValueRange(rb).slice(*sB * sb, sb), c);
    }
    for (int64_t i = 0; i < sc; ++i)
      acc[q * sc + i] = c[i];
  }
  values[op.getResult()] = acc;
  return success();
}

} // namespace tile::gpu
