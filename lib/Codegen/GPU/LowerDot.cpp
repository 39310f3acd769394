//===- LowerDot.cpp - Matrix products on matrix instructions --------------===//
//
// Part of tilec. tile.dot with operands in the target's MMA layouts: each
// operand layout L is Q ∘ atom (lib/Layout division), where the quotient Q
// says which (row-block, column-block) of the tile a warp's atom instance
// covers at each of its atom slots. For every accumulator atom (mi, ni) of a
// warp and every k block, the A atom (mi, k) and B atom (k, ni) must be held
// by the same warp at a slot that does not depend on the warp; then the
// product is a chain of warp-wide matrix instructions. The k blocks are the
// outer loop: an operand left in shared memory by operand fusion
// (LowerSharedOperand.cpp) is read one k slice at a time, right before the
// instructions that use it.
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
  const SharedOperand *sharedA = lookupSharedOperand(op.getA());
  const SharedOperand *sharedB = lookupSharedOperand(op.getB());
  if (!atom || !qa || !qb || !qc) {
    // FMA dot: every thread must hold the A rows and B columns of its
    // accumulator elements (tile-infer-layouts' FMA layouts). Operands left
    // in shared memory are read whole first.
    if (failed(materializeSharedOperand(op, op.getA())) ||
        failed(materializeSharedOperand(op, op.getB())))
      return failure();
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
  int64_t numC = qc->localSize();
  int64_t sa = atom->a.localSize(), sb = atom->b.localSize(),
          sc = atom->c.localSize();
  // The A / B atom slots of accumulator atom q at k block k.
  SmallVector<SmallVector<int64_t>> slotA(numC), slotB(numC);
  for (int64_t q = 0; q < numC; ++q) {
    // Accumulator block of warp w at slot q.
    auto cBlock = [&](int64_t w) { return qc->apply(w, q); };
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
      slotA[q].push_back(*sA);
      slotB[q].push_back(*sB);
    }
  }
  // The fragments of the atom slots `slots` of one operand: slices of its
  // registers, or loads from shared memory (fused operand).
  auto fragments =
      [&](Value operand, const SharedOperand *shared,
          const DistributedLayout &layout, const DistributedLayout &quotient,
          const DistributedLayout &atomLayout, ArrayRef<int64_t> slots,
          Type elemType) -> FailureOr<SmallVector<Regs>> {
    if (shared)
      return loadOperandFragments(op, *shared, layout, quotient, atomLayout,
                                  slots, elemType);
    int64_t size = atomLayout.localSize();
    const Regs &regs = values[operand];
    SmallVector<Regs> out;
    for (int64_t s : slots)
      out.emplace_back(ArrayRef<Value>(regs).slice(s * size, size));
    return out;
  };
  // k blocks outer, accumulator atoms inner: only one k slice of A and B is
  // live, and every accumulator element still sums its k blocks in
  // increasing order (the same fp32 rounding sequence as accumulator-outer).
  Regs acc = values[op.getAcc()];
  for (int64_t k = 0; k < kBlocks; ++k) {
    // The distinct A / B atoms of this k block, in first-use order.
    SmallVector<int64_t> needA, needB;
    for (int64_t q = 0; q < numC; ++q) {
      if (!llvm::is_contained(needA, slotA[q][k]))
        needA.push_back(slotA[q][k]);
      if (!llvm::is_contained(needB, slotB[q][k]))
        needB.push_back(slotB[q][k]);
    }
    FailureOr<SmallVector<Regs>> fa = fragments(
        op.getA(), sharedA, *la, *qa, atom->a, needA, aType.getElementType());
    if (failed(fa))
      return failure();
    FailureOr<SmallVector<Regs>> fb = fragments(
        op.getB(), sharedB, *lb, *qb, atom->b, needB, bType.getElementType());
    if (failed(fb))
      return failure();
    for (int64_t q = 0; q < numC; ++q) {
      const Regs &ra = (*fa)[llvm::find(needA, slotA[q][k]) - needA.begin()];
      const Regs &rb = (*fb)[llvm::find(needB, slotB[q][k]) - needB.begin()];
      assert(int64_t(ra.size()) == sa && int64_t(rb.size()) == sb &&
             "fragment sizes follow the atom");
      (void)sa;
      (void)sb;
      SmallVector<Value> c(acc.begin() + q * sc, acc.begin() + (q + 1) * sc);
      c = tl.mma(b, loc, *atom, ra, rb, c);
      for (int64_t i = 0; i < sc; ++i)
        acc[q * sc + i] = c[i];
    }
  }
  values[op.getResult()] = acc;
  return success();
}

} // namespace tile::gpu
