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
// On targets with warpgroup instructions (wgmma, sm_90a) a dot whose B is
// a fused shared operand in the canonical layouts of lib/Layout's
// WgmmaOperand.h, whose A is one too or (16-bit floats) sits in the
// threads' registers as mma.sync A fragments, and whose accumulator is a
// product of m64nN warpgroup accumulators, is instead a batch of
// wgmma.mma_async reading shared memory through descriptors: fence, the
// k16 slices (each over the warpgroup's 64-row blocks), commit, wait.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Dialect/Tile/IR/MmaInFlight.h"
#include "tile/Dialect/Tile/Utils/DotChain.h"
#include "tile/Layout/MmaAtoms.h"
#include "tile/Layout/WgmmaOperand.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;
using ::tile::layout::WgmmaOperandLayout;

namespace tile::gpu {

/// The coordinate of the A (`isA`) or B element that accumulator element
/// `c` ([batch,] row, column) multiplies at inner index `k`: ([batch,] row,
/// k) or ([batch,] k, column).
static SmallVector<int64_t, 4> operandCoord(ArrayRef<int64_t> c, int64_t k,
                                            bool isA) {
  SmallVector<int64_t, 4> out(c.begin(), c.end());
  out[out.size() - (isA ? 1 : 2)] = k;
  return out;
}

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

LogicalResult KernelLowering::lowerFmaDot(tile::DotOp op,
                                          const DistributedLayout &la,
                                          const DistributedLayout &lb,
                                          const DistributedLayout &lc) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  Type accType = cast<RankedTensorType>(op.getAcc().getType()).getElementType();
  Type opType = aType.getElementType();
  bool isFloat = isa<FloatType>(accType);
  // Operands stored in another type (8-bit floats) are converted once per
  // register, exactly (lib/Numerics rules), to the accumulator's type.
  bool convert = storageType(opType) != opType;
  if (convert && !(isFloat && isa<FloatType>(opType)))
    return failure();
  int64_t kExtent = aType.getShape().back();
  // Slots of A / B holding ([batch,] row, k) / ([batch,] k, col) of every
  // accumulator slot, the same in every thread.
  SmallVector<SmallVector<int64_t>> aSlots, bSlots;
  for (int64_t k = 0; k < kExtent; ++k) {
    auto sa = staticRemap(la, lc, [&](ArrayRef<int64_t> c) {
      return operandCoord(c, k, /*isA=*/true);
    });
    auto sb = staticRemap(lb, lc, [&](ArrayRef<int64_t> c) {
      return operandCoord(c, k, /*isA=*/false);
    });
    if (!sa || !sb)
      return failure();
    aSlots.push_back(*sa);
    bSlots.push_back(*sb);
  }
  Regs ra = values[op.getA()];
  Regs rb = values[op.getB()];
  if (convert) {
    for (Regs *regs : {&ra, &rb})
      for (Value &v : *regs) {
        FailureOr<Value> wide = castScalar(op, v, opType, accType,
                                           /*srcUnsigned=*/false,
                                           /*dstUnsigned=*/false);
        if (failed(wide))
          return failure();
        v = *wide;
      }
  }
  Regs acc = values[op.getAcc()];
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

/// Whether `v` is a constant tile of zeros.
static bool isZeroTile(Value v) {
  DenseElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)) || !dense.isSplat())
    return false;
  if (auto f = dyn_cast<FloatAttr>(dense.getSplatValue<Attribute>()))
    return f.getValue().isZero();
  if (auto i = dyn_cast<IntegerAttr>(dense.getSplatValue<Attribute>()))
    return i.getValue().isZero();
  return false;
}

/// The add that consumes `op`'s product when the dot starts from a zero
/// accumulator (`x + dot(a, b, 0)`, attention's rescaled accumulator): its
/// only user, an arith.addf / addi of the same block whose other operand is
/// available before the dot, in the same layout. Such an add can be applied
/// to each accumulator atom as soon as its k loop ends, so the product never
/// needs all its registers at once.
static Operation *findEpilogueAdd(tile::DotOp op) {
  if (!isZeroTile(op.getAcc()) || !op->hasOneUse())
    return nullptr;
  Operation *user = *op->getUsers().begin();
  if (!isa<arith::AddFOp, arith::AddIOp>(user) ||
      user->getBlock() != op->getBlock() ||
      user->getResult(0).getType() != op.getType())
    return nullptr;
  Value other = user->getOperand(user->getOperand(0) == op.getResult() ? 1 : 0);
  if (other == op.getResult() || other.getType() != op.getType())
    return nullptr;
  Operation *def = other.getDefiningOp();
  if (def && def->getBlock() == op->getBlock() && !def->isBeforeInBlock(op))
    return nullptr;
  return user;
}

/// For each accumulator atom slot q of `qc` and each k block, the slots of
/// the A and B atoms (of `qa`, `qb`) it multiplies, the same in every warp;
/// false when the warps' atoms do not line up.
static bool matchAtomSlots(const DistributedLayout &qa,
                           const DistributedLayout &qb,
                           const DistributedLayout &qc, int64_t kBlocks,
                           SmallVectorImpl<SmallVector<int64_t>> &slotA,
                           SmallVectorImpl<SmallVector<int64_t>> &slotB) {
  for (int64_t q = 0; q < qc.localSize(); ++q) {
    // Accumulator block of warp w at slot q.
    auto cBlock = [&](int64_t w) { return qc.apply(w, q); };
    for (int64_t k = 0; k < kBlocks; ++k) {
      std::optional<int64_t> sA = findAtomSlot(qa, [&](int64_t w) {
        return operandCoord(cBlock(w), k, /*isA=*/true);
      });
      std::optional<int64_t> sB = findAtomSlot(qb, [&](int64_t w) {
        return operandCoord(cBlock(w), k, /*isA=*/false);
      });
      if (!sA || !sB)
        return false;
      slotA[q].push_back(*sA);
      slotB[q].push_back(*sB);
    }
  }
  return true;
}

/// FMA dot: every thread must hold the A rows and B columns of its
/// accumulator elements (tile-infer-layouts' FMA layouts). Operands left
/// in shared memory are read whole first.
LogicalResult KernelLowering::lowerDotWithoutAtoms(
    tile::DotOp op, const DistributedLayout &la, const DistributedLayout &lb,
    const DistributedLayout &lc, const std::optional<MmaAtom> &atom) {
  if (failed(materializeSharedOperand(op, op.getA())) ||
      failed(materializeSharedOperand(op, op.getB())))
    return failure();
  if (succeeded(lowerFmaDot(op, la, lb, lc)))
    return success();
  if (!atom)
    return op.emitOpError("the target has no matrix instruction for ")
           << op.getA().getType().getElementType() << " x "
           << op.getB().getType().getElementType() << " -> "
           << op.getAcc().getType().getElementType()
           << " and the operand layouts do not allow an FMA dot";
  return op.emitOpError("operand layouts are not built from the ")
         << atom->m << "x" << atom->n << "x" << atom->k
         << " matrix-instruction layouts (A: " << la.str()
         << ", B: " << lb.str() << ", C: " << lc.str() << ")";
}

bool KernelLowering::hasWarpgroupLayout(Value operand, bool isA,
                                        int64_t n) const {
  for (const auto &[op, loads] : fusedLoads) {
    const FusedLoad *found = llvm::find_if(
        loads, [&](const FusedLoad &f) { return f.operand == operand; });
    if (found == loads.end())
      continue;
    const FusedLoad &load = *found;
    Value buffer = cast<tile::SharedLoadOp>(op).getBuffer();
    auto type = cast<tile::SharedType>(buffer.getType());
    auto alloc = buffer.getDefiningOp<tile::AllocSharedOp>();
    auto offset =
        alloc ? alloc->getAttrOfType<IntegerAttr>("tile.offset") : nullptr;
    auto enc = dyn_cast_or_null<tile::SharedLayoutAttr>(type.getEncoding());
    if (!enc || type.getRank() < 2)
      return false;
    const ::tile::layout::SharedLayout &layout = enc.getLayout();
    auto tile = ::tile::layout::SharedLayout::get(layout.shape().take_back(2),
                                                  layout.strides().take_back(2),
                                                  layout.swizzle());
    if (!tile) {
      llvm::consumeError(tile.takeError());
      return false;
    }
    auto fit = ::tile::layout::matchWgmmaOperand(
        *tile, tile::getElementBitWidth(type.getElementType()), isA,
        isA ? 64 : n, load.transposed);
    if (!fit) {
      llvm::consumeError(fit.takeError());
      return false;
    }
    return offset && offset.getInt() % fit->alignment == 0;
  }
  return false;
}

bool KernelLowering::mayUseWarpgroupMma() {
  bool found = false;
  kernel.walk([&](tile::DotOp dot) {
    auto cType = cast<RankedTensorType>(dot.getAcc().getType());
    if (cType.getRank() != 2)
      return;
    int64_t n = cType.getShape()[1];
    Type elem = cast<RankedTensorType>(dot.getA().getType()).getElementType();
    // A from shared memory, or (16-bit floats) from registers.
    bool registerA =
        tile::getElementBitWidth(elem) == 16 &&
        !llvm::any_of(fusedLoads, [&](const auto &entry) {
          return llvm::any_of(entry.second, [&](const FusedLoad &f) {
            return f.operand == dot.getA();
          });
        });
    found |= tl.hasWarpgroupMma(elem, cType.getElementType()) &&
             (registerA || hasWarpgroupLayout(dot.getA(), true, n)) &&
             hasWarpgroupLayout(dot.getB(), false, n);
  });
  return found;
}

/// The wgmma form of a fused operand: its canonical layout, when its buffer
/// and tile origin are aligned to the swizzle pattern.
static std::optional<WgmmaOperandLayout>
matchWarpgroupOperand(const SharedOperand &so, unsigned bits, bool isA,
                      int64_t mnTile) {
  // A 2-D view whose first dimension is the contiguous one is the transpose
  // of a row-major buffer tile (B stored N x K): match that tile.
  const SharedLayout *tile = &so.smem;
  std::optional<SharedLayout> stored;
  ArrayRef<int64_t> strides = so.smem.strides();
  bool transposed = strides.size() == 2 && strides[0] == 1 && strides[1] != 1;
  if (transposed) {
    auto t = SharedLayout::get({so.smem.shape()[1], so.smem.shape()[0]},
                               {strides[1], strides[0]}, so.smem.swizzle());
    if (!t) {
      llvm::consumeError(t.takeError());
      return std::nullopt;
    }
    stored = *t;
    tile = &*stored;
  }
  auto fit =
      ::tile::layout::matchWgmmaOperand(*tile, bits, isA, mnTile, transposed);
  if (!fit) {
    llvm::consumeError(fit.takeError());
    return std::nullopt;
  }
  int64_t bytes = bits / 8;
  if (so.bufferOffset < 0 || so.bufferOffset % fit->alignment != 0 ||
      (so.prefix && (so.prefixAlign * bytes) % fit->alignment != 0))
    return std::nullopt;
  return *fit;
}

/// The 64-bit descriptor of the operand tile starting at shared address
/// `start` (i32): the address field from `start`, the rest constant.
static Value wgmmaDescriptor(KernelLowering &kl, Location loc, Value start,
                             const WgmmaOperandLayout &layout) {
  OpBuilder &b = kl.builder();
  ::tile::layout::WgmmaDescriptor fields;
  fields.leadingByteOffset = layout.leadingByteOffset;
  fields.strideByteOffset = layout.strideByteOffset;
  fields.swizzle = layout.swizzle;
  Value address = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, start, kl.i32(4)), kl.i32(0x3FFF));
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), address);
  return arith::OrIOp::create(
      b, loc, wide,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                   int64_t(fields.encode())));
}

/// The shared-memory byte address (i32) of a fused operand's tile origin.
static Value operandAddress(KernelLowering &kl, Location loc,
                            const SharedOperand &so, unsigned bits) {
  OpBuilder &b = kl.builder();
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), so.ptr);
  if (so.prefix)
    address = arith::AddIOp::create(
        b, loc, address,
        arith::MulIOp::create(b, loc, so.prefix, kl.i32(bits / 8)));
  return address;
}

/// The 64-row blocks of a warpgroup accumulator quotient \p qc (the
/// accumulator divided by the m64nN atom): slot q of warpgroup g holds
/// block first[q] + g * step; false when they are not linear in g.
static bool warpgroupRowBlocks(const DistributedLayout &qc,
                               SmallVectorImpl<int64_t> &first, int64_t &step) {
  int64_t groups = qc.numThreads(), numC = qc.localSize();
  step = groups > 1 ? qc.apply(1, 0)[0] - qc.apply(0, 0)[0] : 0;
  first.assign(numC, 0);
  for (int64_t q = 0; q < numC; ++q) {
    first[q] = qc.apply(0, q)[0];
    for (int64_t g = 0; g < groups; ++g)
      if (qc.apply(g, q)[0] != first[q] + g * step || qc.apply(g, q)[1] != 0)
        return false;
  }
  return true;
}

/// For wgmma's register-A form: the slot of A's m16n8k16 A-fragment atoms
/// (quotient \p qa, one thread per warp) that holds, in every warp, the
/// warp's 16 rows of row block q at k16 slice k: slots[q][k]. False when
/// some warp holds them elsewhere (the registers must be the same ones).
static bool registerASlots(const DistributedLayout &qa, ArrayRef<int64_t> first,
                           int64_t step, int64_t kSlices,
                           SmallVectorImpl<SmallVector<int64_t>> &slots) {
  int64_t warps = qa.numThreads();
  slots.assign(first.size(), SmallVector<int64_t>(kSlices, -1));
  for (auto [q, block] : llvm::enumerate(first))
    for (int64_t k = 0; k < kSlices; ++k) {
      auto rows = [&](int64_t w) {
        return 4 * (block + (w / 4) * step) + w % 4;
      };
      for (int64_t s = 0; s < qa.localSize() && slots[q][k] < 0; ++s) {
        bool all = true;
        for (int64_t w = 0; w < warps && all; ++w)
          all = qa.apply(w, s) == SmallVector<int64_t>{rows(w), k};
        if (all)
          slots[q][k] = s;
      }
      if (slots[q][k] < 0)
        return false;
    }
  return true;
}

/// 16-bit values packed two per i32 word (the first in the low half), as
/// a 2-element vector: a pair just converted from f32 then becomes one
/// cvt.rn.f16x2.f32 (F2FP.PACK_AB) instead of two conversions and a
/// permutation (attention's P: 32 F2F -> 16 F2FP per iteration).
static Regs packWords(OpBuilder &b, Location loc, ArrayRef<Value> halves) {
  Type i32 = b.getI32Type();
  Regs words;
  for (size_t i = 0; i + 1 < halves.size(); i += 2) {
    auto pairType = VectorType::get({2}, halves[i].getType());
    Value pair = LLVM::UndefOp::create(b, loc, pairType);
    for (int64_t j = 0; j < 2; ++j)
      pair = LLVM::InsertElementOp::create(
          b, loc, pair, halves[i + j],
          arith::ConstantIntOp::create(b, loc, i32, j));
    words.push_back(LLVM::BitcastOp::create(b, loc, i32, pair));
  }
  return words;
}

bool KernelLowering::lowerWarpgroupDot(tile::DotOp op,
                                       const DistributedLayout &la,
                                       const DistributedLayout &lc) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  Type elem = aType.getElementType();
  const SharedOperand *sa = lookupSharedOperand(op.getA());
  const SharedOperand *sb = lookupSharedOperand(op.getB());
  if (!sb || cType.getRank() != 2 ||
      !tl.hasWarpgroupMma(elem, cType.getElementType()))
    return false;
  int64_t n = cType.getShape()[1], kExtent = aType.getShape()[1];
  // One instruction reads 32 bytes of K: k16 for f16/bf16, k32 for
  // e4m3/e5m2 and s8.
  unsigned bits = tile::getElementBitWidth(elem);
  int64_t kStep = 256 / bits;
  auto atom = ::tile::layout::nvidiaWgmmaAccumulator(n);
  if (!atom) {
    llvm::consumeError(atom.takeError());
    return false;
  }
  std::optional<DistributedLayout> qc = lc.divideRight(*atom);
  std::optional<WgmmaOperandLayout> fb =
      matchWarpgroupOperand(*sb, bits, false, n);
  SmallVector<int64_t> first;
  int64_t step = 0;
  if (!qc || !fb || kExtent % kStep != 0 ||
      !warpgroupRowBlocks(*qc, first, step))
    return false;
  int64_t numC = qc->localSize(), kSlices = kExtent / kStep;
  // Chained products take wgmma only with one 64-row block per warpgroup
  // (fitsWarpgroupMma; allocation and layouts agree).
  if (numC > 1 && tile::isChainedProduct(op))
    return false;
  // A from shared memory (descriptors) or, for 16-bit floats, from the
  // threads' registers in the mma.sync A-fragment layout.
  std::optional<WgmmaOperandLayout> fa;
  SmallVector<SmallVector<int64_t>> slotsA;
  int64_t fragment = 0;
  if (sa) {
    fa = matchWarpgroupOperand(*sa, bits, true, 64);
    // 8-bit operands are read K-major only (no transpose immediates).
    if (!fa || (bits == 8 && (fa->mnMajor || fb->mnMajor)))
      return false;
  } else {
    std::optional<MmaAtom> mma =
        bits == 16 ? tl.getMmaAtom(elem, b.getF32Type()) : std::nullopt;
    std::optional<DistributedLayout> qa =
        mma && mma->k == kStep ? la.divideRight(mma->a) : std::nullopt;
    if (!qa || !registerASlots(*qa, first, step, kSlices, slotsA))
      return false;
    fragment = mma->a.localSize();
  }
  // The warpgroup's index, broadcast from lane 0: ptxas then knows it is
  // the same in every lane and keeps the descriptors computed from it in
  // uniform registers (with tid / 128 itself it computes them per thread
  // and moves each to a uniform register before its wgmma: R2UR).
  Value group = tl.shuffleIndex(
      b, loc, arith::DivUIOp::create(b, loc, threadIndex(), i32(128)), i32(0));
  Value descA0;
  if (sa) {
    Value baseA = arith::AddIOp::create(
        b, loc, operandAddress(*this, loc, *sa, bits),
        arith::MulIOp::create(b, loc, group, i32(step * fa->mnBlockBytes)));
    descA0 = wgmmaDescriptor(*this, loc, baseA, *fa);
  }
  Value baseB = operandAddress(*this, loc, *sb, bits);
  // Each instruction's descriptor is the tile origin's plus its constant
  // byte offset >> 4, added to the 14-bit address field: shared addresses
  // are below 2^18, so the sum never carries out of the field (one 64-bit
  // add per descriptor instead of an add, a shift, a mask and an or).
  Value descB0 = wgmmaDescriptor(*this, loc, baseB, *fb);
  auto offsetDescriptor = [&](Value desc, int64_t bytes) -> Value {
    assert(bytes % 16 == 0 && "wgmma tiles start on 16-byte boundaries");
    if (bytes == 0)
      return desc;
    return arith::AddIOp::create(
        b, loc, desc,
        arith::ConstantIntOp::create(b, loc, b.getI64Type(), bytes >> 4));
  };
  Regs acc = values[op.getAcc()];
  // A left in flight from registers: two groups, halves of K, the second
  // half's A computed after the first group's wait (sinkableAfter), so that
  // no register a running group reads is written (PTX ISA, wgmma.mma_async:
  // accessing the registers of A before the wait_group that retires the
  // instruction is undefined). Iteration i+1 writes the first half's A
  // once a wait retired iteration i's first half (at its top: waitAtLoopTop,
  // or after the second group), the second half's once its own first wait
  // retired iteration i's second half; each half's dequantization overlaps
  // the other half's group. Otherwise (no such split) a register-A group
  // is waited for at once.
  auto fragmentA = [&](int64_t q, int64_t k) {
    return ArrayRef<Value>(values[op.getA()])
        .slice(slotsA[q][k] * fragment, fragment);
  };
  unsigned pending = inFlightGroups(op);
  int64_t split = kSlices;
  SmallVector<Operation *> secondHalf;
  if (!sa && pending > 0) {
    SmallVector<Value> roots;
    for (int64_t q = 0; q < numC; ++q)
      for (int64_t k = kSlices / 2; k < kSlices; ++k)
        llvm::append_range(roots, fragmentA(q, k));
    if (kSlices >= 2 && sinkableAfter(b, roots, secondHalf))
      split = kSlices / 2;
    else
      pending = 0;
  }
  auto issue = [&](int64_t kBegin, int64_t kEnd, bool waitAfter) {
    // A register fragments as i32 words, all made before the fence (a
    // register written between the fence and the wgmma reading it makes
    // ptxas add a warpgroup.arrive there).
    SmallVector<SmallVector<Regs>> wordsA(numC, SmallVector<Regs>(kSlices));
    if (!sa)
      for (int64_t q = 0; q < numC; ++q)
        for (int64_t k = kBegin; k < kEnd; ++k)
          wordsA[q][k] = packWords(b, loc, fragmentA(q, k));
    int64_t half = n / 2;
    tl.warpgroupFence(b, loc);
    for (int64_t k = kBegin; k < kEnd; ++k) {
      Value descB = offsetDescriptor(descB0, fb->kSliceOffset(k));
      for (int64_t q = 0; q < numC; ++q) {
        ArrayRef<Value> c = ArrayRef<Value>(acc).slice(q * half, half);
        SmallVector<Value> d;
        if (sa) {
          Value descA = offsetDescriptor(descA0, first[q] * fa->mnBlockBytes +
                                                     fa->kSliceOffset(k));
          d = tl.warpgroupMma(b, loc, elem, n, descA, descB, fa->mnMajor,
                              fb->mnMajor, c);
        } else {
          d = tl.warpgroupMmaRegisterA(b, loc, elem, n, wordsA[q][k], descB,
                                       fb->mnMajor, c);
        }
        llvm::copy(d, acc.begin() + q * half);
      }
    }
    tl.warpgroupCommit(b, loc);
    if (!waitAfter)
      return;
    SmallVector<Value> done = tl.warpgroupWait(b, loc, pending, acc);
    acc.assign(done.begin(), done.end());
  };
  bool waitAtTop = split < kSlices && waitAtLoopTop(op, acc);
  issue(0, split, /*waitAfter=*/true);
  if (split < kSlices) {
    for (Operation *def : secondHalf)
      def->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
    issue(split, kSlices, /*waitAfter=*/!waitAtTop);
  }
  values[op.getResult()] = acc;
  return true;
}

/// For a register-A product issued as two groups (lowerWarpgroupDot):
/// iteration i's first group need only be retired before iteration i+1
/// writes its registers. When the loop's accumulators (the body's
/// arguments, converted: \p acc) feed only \p op, that wait (one group
/// pending: iteration i's second) opens the loop's body, \p acc become its
/// results, and the barrier and copies after the dot run beside the first
/// group instead of after it; returns whether it does.
bool KernelLowering::waitAtLoopTop(tile::DotOp op, Regs &acc) {
  Block *body = b.getInsertionBlock();
  if (!isa<BlockArgument>(op.getAcc()) || !op.getAcc().hasOneUse() ||
      !llvm::all_of(acc, [&](Value v) {
        auto arg = dyn_cast<BlockArgument>(v);
        return arg && arg.getOwner() == body;
      }))
    return false;
  OpBuilder top(body, body->begin());
  SmallVector<Value> done = tl.warpgroupWait(top, op.getLoc(), 1, acc);
  acc.assign(done.begin(), done.end());
  return true;
}

/// The groups of asynchronous MMAs tile-pipeline let \p op leave in flight
/// across its loop's iterations (MmaInFlight.h): its operands stay
/// untouched for one more iteration, so its lowering may wait with that
/// many groups pending (the accumulators only feed the next iteration's
/// group, which wgmma orders after it) until the wait_group 0 after the
/// loop (LowerKernel.cpp, ForLowering).
unsigned KernelLowering::inFlightGroups(tile::DotOp op) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(tile::kMmaInFlightAttr))
    return unsigned(attr.getInt());
  return 0;
}

/// Whether every value of \p roots defined in the builder's block is
/// computed by side-effect-free operations of that block whose results
/// nothing else uses, so that they can move to the insertion point; \p ops
/// are then those operations in block order (the roots' backward slice
/// within the block, less what other values need).
bool KernelLowering::sinkableAfter(OpBuilder &b, ArrayRef<Value> roots,
                                   SmallVectorImpl<Operation *> &ops) {
  Block *block = b.getInsertionBlock();
  auto local = [&](Value v) -> Operation * {
    Operation *def = v.getDefiningOp();
    return def && def->getBlock() == block ? def : nullptr;
  };
  llvm::SmallPtrSet<Operation *, 32> slice;
  SmallVector<Operation *> work;
  for (Value r : roots)
    if (Operation *def = local(r))
      work.push_back(def);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (op->getNumRegions() || !isMemoryEffectFree(op) ||
        !slice.insert(op).second)
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = local(v))
        work.push_back(def);
  }
  // What another value needs stays, and so does what it is computed from.
  for (bool changed = true; changed;) {
    changed = false;
    SmallVector<Operation *> needed;
    for (Operation *op : slice)
      if (llvm::any_of(op->getUsers(),
                       [&](Operation *user) { return !slice.count(user); }))
        needed.push_back(op);
    for (Operation *op : needed)
      slice.erase(op);
    changed = !needed.empty();
  }
  for (Value r : roots)
    if (Operation *def = local(r); def && !slice.count(def))
      return false;
  ops.clear();
  for (Operation &op : *block)
    if (slice.count(&op))
      ops.push_back(&op);
  return true;
}

/// Registers of a thread beyond its accumulators that a GEMM loop needs at
/// the least (addresses, operand fragments, loop state): an accumulator
/// above 255 minus these spills in the loop. On an H100, 2026-11-27, the
/// 4-warp 128x256 gemm_f16 tile (256 accumulators per thread) took 4.8 ms
/// against 0.22 ms for the same tile with 8 warps.
constexpr int64_t kAccumulatorRegisterLimit = 192;

/// Warns (once per dot) when the accumulator of \p op takes more 32-bit
/// registers per thread than kAccumulatorRegisterLimit: the loop will spill
/// whatever instruction it is lowered to.
void KernelLowering::warnIfAccumulatorSpills(tile::DotOp op,
                                             const DistributedLayout &acc) {
  auto type = cast<RankedTensorType>(op.getAcc().getType());
  Type elem = type.getElementType();
  int64_t bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 32;
  int64_t regs = (acc.localSize() * bits + 31) / 32;
  if (regs <= kAccumulatorRegisterLimit)
    return;
  mlir::emitWarning(op.getLoc())
      << "the "
      << llvm::join(
             llvm::map_range(type.getShape(),
                             [](int64_t d) { return std::to_string(d); }),
             "x")
      << " accumulator takes " << regs << " registers per thread of "
      << threads / warpSize()
      << " warps (a thread has 255): the loop will spill; use "
         "more warps or a smaller tile";
}

LogicalResult KernelLowering::lowerDot(tile::DotOp op) {
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
  warnIfAccumulatorSpills(op, *lc);
  if (lowerWarpgroupDot(op, *la, *lc))
    return success();
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
  if (!atom || !qa || !qb || !qc)
    return lowerDotWithoutAtoms(op, *la, *lb, *lc, atom);
  int64_t kBlocks = aType.getShape().back() / atom->k;
  int64_t numC = qc->localSize();
  int64_t sa = atom->a.localSize(), sb = atom->b.localSize(),
          sc = atom->c.localSize();
  // The A / B atom slots of accumulator atom q at k block k.
  SmallVector<SmallVector<int64_t>> slotA(numC), slotB(numC);
  if (!matchAtomSlots(*qa, *qb, *qc, kBlocks, slotA, slotB))
    return op.emitOpError("the warps' A/B atoms do not match their "
                          "accumulator atoms (A: ")
           << la->str() << ", B: " << lb->str() << ", C: " << lc->str() << ")";
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
  Regs acc = values[op.getAcc()];
  // One pass of the product over the accumulator atoms `group`: k blocks
  // outer, the group's atoms inner. Only one k slice of the fused operands
  // is live, and every accumulator element still sums its k blocks in
  // increasing order (the same fp32 rounding sequence as any other order of
  // the atoms).
  // The distinct atoms of one operand at k block k, in first-use order.
  auto distinctAtoms = [](ArrayRef<SmallVector<int64_t>> slots,
                          ArrayRef<int64_t> group, int64_t k) {
    SmallVector<int64_t> need;
    for (int64_t q : group)
      if (!llvm::is_contained(need, slots[q][k]))
        need.push_back(slots[q][k]);
    return need;
  };
  auto runGroup = [&](ArrayRef<int64_t> group) -> LogicalResult {
    // A fused B operand with one atom per k block (the 8 tokens of a
    // swapped decode GEMM) reads two k blocks' atoms in one matrix load
    // (ldmatrix.x4 rather than two .x2); the second waits here. Only for
    // products of at least 16 k blocks: at 8 (the 5- to 8-bit decode
    // chunks of 128 codes) ptxas then settled on fewer registers and
    // recomputed the copies' chunk addresses in the loop (u5 at BM = 8:
    // 289 -> 332 instructions per k block; docs/Performance.md); and for
    // each product of a batch (u1's groups of 128 codes in 8 k blocks:
    // 604 -> 581). Targets without matrix loads (AMD) read B element-wise
    // either way.
    unsigned bBits = tile::getElementBitWidth(bType.getElementType());
    bool pairB =
        sharedB && (kBlocks >= 16 || cType.getRank() == 3) &&
        (tl.hasMatrixLoad(bBits, false) || tl.hasMatrixLoad(bBits, true));
    std::optional<Regs> carriedB;
    for (int64_t k = 0; k < kBlocks; ++k) {
      SmallVector<int64_t> needA = distinctAtoms(slotA, group, k);
      SmallVector<int64_t> needB = distinctAtoms(slotB, group, k);
      FailureOr<SmallVector<Regs>> fa = fragments(
          op.getA(), sharedA, *la, *qa, atom->a, needA, aType.getElementType());
      if (failed(fa))
        return failure();
      // B fragments two atoms at a time (one ldmatrix.x4 when fused), each
      // chunk right before the instructions that use it.
      for (size_t first = 0; first < needB.size(); first += 2) {
        ArrayRef<int64_t> chunk = ArrayRef<int64_t>(needB).slice(
            first, std::min<size_t>(2, needB.size() - first));
        FailureOr<SmallVector<Regs>> fb = failure();
        SmallVector<int64_t> nextB;
        if (!carriedB && pairB && needB.size() == 1 && k + 1 < kBlocks)
          nextB = distinctAtoms(slotB, group, k + 1);
        if (carriedB) {
          fb = SmallVector<Regs>{std::move(*carriedB)};
          carriedB.reset();
        } else if (nextB.size() == 1) {
          SmallVector<int64_t> pair = {needB[0], nextB[0]};
          fb = fragments(op.getB(), sharedB, *lb, *qb, atom->b, pair,
                         bType.getElementType());
          if (succeeded(fb) && fb->size() == 2) {
            carriedB = std::move((*fb)[1]);
            fb->pop_back();
          }
        } else {
          fb = fragments(op.getB(), sharedB, *lb, *qb, atom->b, chunk,
                         bType.getElementType());
        }
        if (failed(fb))
          return failure();
        for (int64_t q : group) {
          const int64_t *inChunk = llvm::find(chunk, slotB[q][k]);
          if (inChunk == chunk.end())
            continue;
          const Regs &ra =
              (*fa)[llvm::find(needA, slotA[q][k]) - needA.begin()];
          const Regs &rb = (*fb)[inChunk - chunk.begin()];
          if (int64_t(ra.size()) != sa || int64_t(rb.size()) != sb)
            return op.emitOpError("operand fragments do not match the atom");
          SmallVector<Value> c(acc.begin() + q * sc,
                               acc.begin() + (q + 1) * sc);
          c = tl.mma(b, loc, *atom, ra, rb, c);
          for (int64_t i = 0; i < sc; ++i)
            acc[q * sc + i] = c[i];
        }
      }
    }
    return success();
  };

  Operation *epilogue = findEpilogueAdd(op);
  // Without an epilogue (or when both operands are read from shared memory,
  // where grouping would read one of them again per group) the whole
  // accumulator is one group; a batch of products is one group per product
  // a thread holds, so that only one product's operands need be live (a
  // weight converted in registers: each group's slab).
  if (!epilogue || (sharedA && sharedB)) {
    SmallVector<SmallVector<int64_t>> groups;
    SmallVector<int64_t> batches;
    for (int64_t q = 0; q < numC; ++q) {
      int64_t batch = cType.getRank() == 3 ? qc->apply(0, q)[0] : 0;
      const int64_t *it = llvm::find(batches, batch);
      if (it == batches.end()) {
        batches.push_back(batch);
        groups.emplace_back();
        it = batches.end() - 1;
      }
      groups[it - batches.begin()].push_back(q);
    }
    for (ArrayRef<int64_t> group : groups)
      if (failed(runGroup(group)))
        return failure();
    values[op.getResult()] = acc;
    return success();
  }
  // With an epilogue: groups of atoms that share their B atoms (same
  // columns; or their A atoms, same rows, when only A is in shared memory),
  // two column blocks per group so that a B ldmatrix.x4 covers both; each
  // group's atoms get the add as soon as their k loop ends.
  unsigned keyDim = cType.getRank() - (sharedA ? 2 : 1);
  SmallVector<int64_t> keys;
  for (int64_t q = 0; q < numC; ++q) {
    int64_t key = qc->apply(0, q)[keyDim];
    if (!llvm::is_contained(keys, key))
      keys.push_back(key);
  }
  const Regs &other = values[epilogue->getOperand(0) == op.getResult()
                                 ? epilogue->getOperand(1)
                                 : epilogue->getOperand(0)];
  bool otherFirst = epilogue->getOperand(1) == op.getResult();
  Type elem = cType.getElementType();
  Regs sum(acc.size());
  for (size_t g = 0; g < keys.size(); g += 2) {
    SmallVector<int64_t> group;
    for (int64_t q = 0; q < numC; ++q) {
      int64_t key = qc->apply(0, q)[keyDim];
      if (key == keys[g] || (g + 1 < keys.size() && key == keys[g + 1]))
        group.push_back(q);
    }
    if (failed(runGroup(group)))
      return failure();
    for (int64_t q : group)
      for (int64_t i = q * sc; i < (q + 1) * sc; ++i) {
        Value lhs = otherFirst ? other[i] : acc[i];
        Value rhs = otherFirst ? acc[i] : other[i];
        OperationState state(
            epilogue->getLoc(), epilogue->getName().getStringRef(),
            ValueRange{lhs, rhs}, TypeRange{elem}, epilogue->getAttrs());
        sum[i] = b.create(state)->getResult(0);
      }
  }
  values[op.getResult()] = acc;
  values[epilogue->getResult(0)] = sum;
  loweredEarly.insert(epilogue);
  values[op.getResult()] = acc;
  return success();
}

void populateDotPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerDot);
}

} // namespace tile::gpu
