//===- LowerSharedOperand.cpp - Dot operands read from shared memory ------===//
//
// Part of tilec. Operand fusion: a tile.dot operand (2-D, or 3-D: a
// batch of products) that comes from a tile.shared_load (through reshapes
// and transposes that view the load's tile with strides) is not loaded as
// a whole tile before the dot. The dot reads each k block's fragments
// right before the matrix instructions that use them (LowerDot.cpp), so only
// one k slice of the operand is live. Fragments are read with the target's
// warp-collective matrix load (NVIDIA ldmatrix) when the buffer's layout
// allows it, otherwise with per-thread vector loads.
//
// Moving a shared-memory read from the shared_load to the dot is only done
// when nothing in between may write the bytes it reads (see
// analyzeOperandFusion); reads of a pipelined ring slot may move past the
// copies into the other slots.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include <numeric>

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;
using ::tile::layout::Swizzle;

namespace tile::gpu {

//===----------------------------------------------------------------------===//
// Analysis: which shared_loads may be read at their dot
//===----------------------------------------------------------------------===//

/// The byte range [begin, end) of a placed tile.alloc_shared buffer.
static std::optional<std::pair<int64_t, int64_t>> bufferBytes(Value buffer) {
  auto alloc = buffer.getDefiningOp<tile::AllocSharedOp>();
  if (!alloc)
    return std::nullopt;
  auto offset = alloc->getAttrOfType<IntegerAttr>("tile.offset");
  if (!offset)
    return std::nullopt;
  auto type = cast<tile::SharedType>(alloc.getType());
  int64_t elements = type.getNumElements();
  if (auto enc = dyn_cast_or_null<tile::SharedLayoutAttr>(type.getEncoding()))
    elements = enc.getLayout().cosize();
  int64_t bits = tile::getElementBitWidth(type.getElementType());
  return std::make_pair(offset.getInt(),
                        offset.getInt() + (elements * bits + 7) / 8);
}

static bool overlap(std::pair<int64_t, int64_t> x,
                    std::pair<int64_t, int64_t> y) {
  return x.first < y.second && y.first < x.second;
}

/// The modulus n when `next` is (v + 1) mod n written as
/// select(v + 1 == n, 0, v + 1) or remui(v + 1, n): the ring-slot update
/// tile-pipeline emits.
static std::optional<int64_t> ringModulus(Value next, Value v) {
  auto isIncrement = [&](Value x) {
    auto add = x.getDefiningOp<arith::AddIOp>();
    if (!add)
      return false;
    return (add.getLhs() == v && isConstantIntValue(add.getRhs(), 1)) ||
           (add.getRhs() == v && isConstantIntValue(add.getLhs(), 1));
  };
  if (auto rem = next.getDefiningOp<arith::RemUIOp>())
    if (isIncrement(rem.getLhs()))
      return getConstantIntValue(rem.getRhs());
  auto sel = next.getDefiningOp<arith::SelectOp>();
  if (!sel || !isConstantIntValue(sel.getTrueValue(), 0) ||
      !isIncrement(sel.getFalseValue()))
    return std::nullopt;
  auto cmp = sel.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
      cmp.getLhs() != sel.getFalseValue())
    return std::nullopt;
  return getConstantIntValue(cmp.getRhs());
}

/// Whether the i32 values `x` and `y` differ wherever both are defined:
/// distinct constants, or two ring slots of one scf.for that start at
/// distinct constants in [0, n) and both step by one modulo n (their
/// difference modulo n never changes).
static bool provablyDistinct(Value x, Value y) {
  std::optional<int64_t> cx = getConstantIntValue(x);
  std::optional<int64_t> cy = getConstantIntValue(y);
  if (cx && cy)
    return *cx != *cy;
  auto ax = dyn_cast<BlockArgument>(x), ay = dyn_cast<BlockArgument>(y);
  if (!ax || !ay || ax.getOwner() != ay.getOwner())
    return false;
  auto loop = dyn_cast<scf::ForOp>(ax.getOwner()->getParentOp());
  if (!loop || ax == loop.getInductionVar() || ay == loop.getInductionVar())
    return false;
  OpOperand *ix = loop.getTiedLoopInit(ax), *iy = loop.getTiedLoopInit(ay);
  OpOperand *nx = loop.getTiedLoopYieldedValue(ax);
  OpOperand *ny = loop.getTiedLoopYieldedValue(ay);
  if (!ix || !iy || !nx || !ny)
    return false;
  std::optional<int64_t> x0 = getConstantIntValue(ix->get());
  std::optional<int64_t> y0 = getConstantIntValue(iy->get());
  std::optional<int64_t> mx = ringModulus(nx->get(), ax);
  std::optional<int64_t> my = ringModulus(ny->get(), ay);
  if (!x0 || !y0 || !mx || !my || *mx != *my || *mx <= 0)
    return false;
  return *x0 != *y0 && *x0 >= 0 && *y0 >= 0 && *x0 < *mx && *y0 < *mx;
}

/// Whether `op` (or an op nested in it) may write shared memory that `load`
/// reads. Writes into the same buffer are harmless when some leading
/// (indexed-away) dimension is provably indexed differently; writes into
/// other placed buffers or reserved scratch when the byte ranges are
/// disjoint (scratch without a reservation lies after every buffer).
static bool mayClobber(Operation *op, tile::SharedLoadOp load) {
  Value buffer = load.getBuffer();
  auto readBytes = bufferBytes(buffer);
  unsigned bufferRank = cast<tile::SharedType>(buffer.getType()).getRank();
  unsigned readLead =
      bufferRank - cast<RankedTensorType>(load.getType()).getRank();
  auto writes = [&](Value target, ValueRange indices, unsigned rank) {
    if (target == buffer) {
      unsigned lead = std::min(readLead, bufferRank - rank);
      for (unsigned d = 0; d < lead; ++d)
        if (provablyDistinct(load.getIndices()[d], indices[d]))
          return false;
      return true;
    }
    auto other = bufferBytes(target);
    return !readBytes || !other || overlap(*readBytes, *other);
  };
  WalkResult result = op->walk([&](Operation *inner) {
    bool clobber = false;
    auto access = dyn_cast<tile::SharedAccessOpInterface>(inner);
    if (access && access.isSharedWrite()) {
      clobber = writes(access.getSharedBuffer(), access.getSharedIndices(),
                       access.getAccessRank());
    } else if (access) {
      clobber = false;
    } else if (auto offset =
                   inner->getAttrOfType<IntegerAttr>("tile.scratch_offset")) {
      auto bytes = inner->getAttrOfType<IntegerAttr>("tile.scratch_bytes");
      clobber = !readBytes || !bytes ||
                overlap(*readBytes,
                        {offset.getInt(), offset.getInt() + bytes.getInt()});
    } else if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner)) {
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (const auto &e : list)
        if (isa<MemoryEffects::Write>(e.getEffect()) &&
            e.getResource() == tile::SharedMemoryResource::get())
          clobber = true;
    } else if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      clobber = true; // Unknown effects.
    }
    return clobber ? WalkResult::interrupt() : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// For a reshape that only inserts or removes unit dimensions, result dim
/// -> source dim (-1 for a unit result dim); std::nullopt otherwise.
static std::optional<SmallVector<int64_t, 4>>
unitReshapeMap(ArrayRef<int64_t> src, ArrayRef<int64_t> dst) {
  SmallVector<int64_t, 4> map;
  unsigned s = 0;
  for (int64_t extent : dst) {
    if (extent == 1) {
      map.push_back(-1);
      continue;
    }
    while (s < src.size() && src[s] == 1)
      ++s;
    if (s == src.size() || src[s] != extent)
      return std::nullopt;
    map.push_back(s++);
  }
  while (s < src.size() && src[s] == 1)
    ++s;
  if (s != src.size())
    return std::nullopt;
  return map;
}

/// The element strides of the tile of shape \p src stored with \p strides
/// when it is viewed (row-major element order, as tile.reshape) with shape
/// \p dst; 0 for unit dims. std::nullopt when the view is not strided: it
/// merges dims that are not laid out one after the other.
static std::optional<SmallVector<int64_t, 4>>
reshapeStrides(ArrayRef<int64_t> src, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> dst) {
  SmallVector<int64_t, 4> oldDims, oldStrides, newDims;
  for (auto [extent, stride] : llvm::zip(src, strides))
    if (extent != 1) {
      oldDims.push_back(extent);
      oldStrides.push_back(stride);
    }
  for (int64_t extent : dst)
    if (extent != 1)
      newDims.push_back(extent);
  // Groups of old dims and new dims with equal products: the old ones must
  // be contiguous with each other; the new ones split their span.
  SmallVector<int64_t, 4> newStrides(newDims.size());
  size_t oi = 0, ni = 0;
  while (oi < oldDims.size() && ni < newDims.size()) {
    size_t oj = oi + 1, nj = ni + 1;
    int64_t op = oldDims[oi], np = newDims[ni];
    while (op != np) {
      if (np < op) {
        if (nj == newDims.size())
          return std::nullopt;
        np *= newDims[nj++];
      } else {
        if (oj == oldDims.size())
          return std::nullopt;
        op *= oldDims[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k)
      if (oldStrides[k] != oldDims[k + 1] * oldStrides[k + 1])
        return std::nullopt;
    newStrides[nj - 1] = oldStrides[oj - 1];
    for (size_t k = nj - 1; k > ni; --k)
      newStrides[k - 1] = newStrides[k] * newDims[k];
    oi = oj;
    ni = nj;
  }
  if (oi != oldDims.size() || ni != newDims.size())
    return std::nullopt;
  SmallVector<int64_t, 4> out;
  size_t next = 0;
  for (int64_t extent : dst)
    out.push_back(extent == 1 ? 0 : newStrides[next++]);
  return out;
}

/// The element strides of a shared_load's tile in its buffer (the buffer's
/// layout without the leading dims the load indexes).
static SmallVector<int64_t, 4> loadTileStrides(tile::SharedLoadOp load) {
  SharedLayout layout =
      sharedLayoutOf(cast<tile::SharedType>(load.getBuffer().getType()));
  unsigned rank = cast<RankedTensorType>(load.getType()).getRank();
  return SmallVector<int64_t, 4>(layout.strides().take_back(rank));
}

void KernelLowering::analyzeOperandFusion() {
  // Per shared_load, the dot operands it can feed directly through chains
  // of renamings (which CSE may share between dots); it is fused only when
  // those dot operands are all that the load and its chains' values feed,
  // so that no register copy of it is needed.
  struct Candidate {
    FusedLoad fused;
    SmallVector<Operation *> chain;
    OpOperand *use;
  };
  llvm::MapVector<Operation *, SmallVector<Candidate, 1>> candidates;
  kernel.walk([&](tile::DotOp dot) {
    for (unsigned i = 0; i < 2; ++i) {
      Value operand = dot->getOperand(i);
      auto type = cast<RankedTensorType>(operand.getType());
      if (tile::getElementBitWidth(type.getElementType()) % 8)
        continue;
      // Walking up through reshapes/transposes: the renamings, and (while
      // they only permute or add and remove unit dims) operand dim -> dim of
      // `v` (for the 2-D tile read through a transpose).
      SmallVector<int64_t, 4> dimMap =
          llvm::to_vector<4>(llvm::seq<int64_t>(0, type.getRank()));
      SmallVector<Operation *> chain;
      Value v = operand;
      Operation *def = v.getDefiningOp();
      while (def && def->getBlock() == dot->getBlock() &&
             isa<tile::ReshapeOp, tile::TransOp>(def)) {
        Value src = def->getOperand(0);
        SmallVector<int64_t, 4> step;
        if (auto trans = dyn_cast<tile::TransOp>(def)) {
          for (int32_t p : trans.getPermutation())
            step.push_back(p);
        } else if (std::optional<SmallVector<int64_t, 4>> m = unitReshapeMap(
                       cast<RankedTensorType>(src.getType()).getShape(),
                       cast<RankedTensorType>(v.getType()).getShape())) {
          step = *m;
        } else {
          dimMap.clear();
        }
        for (int64_t &d : dimMap)
          if (d >= 0)
            d = step[d];
        chain.push_back(def);
        v = src;
        def = v.getDefiningOp();
      }
      auto load = dyn_cast_or_null<tile::SharedLoadOp>(def);
      if (!load || load->getBlock() != dot->getBlock())
        continue;
      // The operand's strides: the load's tile through the renamings.
      SmallVector<int64_t, 4> strides = loadTileStrides(load);
      bool strided = true;
      for (Operation *op : llvm::reverse(chain)) {
        auto src = cast<RankedTensorType>(op->getOperand(0).getType());
        auto dst = cast<RankedTensorType>(op->getResult(0).getType());
        if (auto trans = dyn_cast<tile::TransOp>(op)) {
          SmallVector<int64_t, 4> permuted;
          for (int32_t p : trans.getPermutation())
            permuted.push_back(strides[p]);
          strides = permuted;
        } else if (auto view = reshapeStrides(src.getShape(), strides,
                                              dst.getShape())) {
          strides = *view;
        } else {
          strided = false;
          break;
        }
      }
      if (!strided)
        continue;
      bool transposed =
          dimMap.size() == 2 && dimMap[0] > dimMap[1] && dimMap[1] >= 0;
      bool clobbered = false;
      for (Operation *it = load->getNextNode(); it && it != dot.getOperation();
           it = it->getNextNode())
        // A barrier orders other threads' accesses but writes nothing
        // itself. Limited to NVIDIA (where tile-stage-converted-operands
        // puts barriers between a fused load and its dot); not yet checked
        // on the AMD emulator.
        if (!(warpSize() == 32 && isa<tile::BarrierOp>(it)) &&
            mayClobber(it, load)) {
          clobbered = true;
          break;
        }
      if (clobbered)
        continue;
      candidates[load].push_back(
          {{operand, strides, transposed}, chain, &dot->getOpOperand(i)});
    }
  });
  for (auto &[load, list] : candidates) {
    llvm::SmallPtrSet<Operation *, 8> ops = {load};
    llvm::SmallPtrSet<OpOperand *, 4> dotUses;
    for (const Candidate &c : list) {
      ops.insert(c.chain.begin(), c.chain.end());
      dotUses.insert(c.use);
    }
    bool closed = llvm::all_of(ops, [&](Operation *op) {
      return llvm::all_of(op->getResult(0).getUses(), [&](OpOperand &use) {
        return ops.contains(use.getOwner()) || dotUses.contains(&use);
      });
    });
    if (!closed)
      continue;
    fusedOps.insert(load);
    for (Candidate &c : list) {
      fusedOps.insert(c.chain.begin(), c.chain.end());
      fusedLoads[load].push_back(std::move(c.fused));
    }
  }
}

//===----------------------------------------------------------------------===//
// The operand's addressing, computed where the shared_load was
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::deferFusedOperandOp(Operation *op) {
  auto load = dyn_cast<tile::SharedLoadOp>(op);
  if (!load)
    return success(); // A reshape/transpose of a fused operand: a renaming.
  SharedValue *s = lookupShared(load.getBuffer());
  if (!s)
    return op->emitOpError("shared buffer was not lowered");
  ArrayRef<int64_t> strides = s->layout.strides();
  // origin = sum_d index[d] * stride[d] (before the swizzle), as for any
  // shared_load; its alignment is the gcd of the known terms.
  SharedOperand so;
  so.ptr = s->ptr;
  so.prefixAlign = int64_t(1) << 30;
  for (auto [d, index] : llvm::enumerate(load.getIndices())) {
    std::optional<int64_t> cst = getConstantIntValue(index);
    if (cst && *cst == 0)
      continue;
    int64_t align = cst ? std::abs(*cst * strides[d]) : strides[d];
    if (align == 0)
      continue;
    so.prefixAlign = std::gcd(so.prefixAlign, align);
    Value term =
        arith::MulIOp::create(b, loc, values[index][0], i32(strides[d]));
    so.prefix = so.prefix
                    ? arith::AddIOp::create(b, loc, so.prefix, term).getResult()
                    : term;
  }
  if (!so.prefix)
    so.prefixAlign = 0;
  // Dynamic shared memory is 16-byte aligned; the buffer's offset may add
  // less.
  so.ptrAlign = 16;
  if (auto bytes = bufferBytes(load.getBuffer())) {
    so.bufferOffset = bytes->first;
    while (so.ptrAlign > 1 && bytes->first % so.ptrAlign)
      so.ptrAlign /= 2;
  } else
    so.ptrAlign = 1;
  // Each dot operand the load feeds views the buffer through its own
  // renamings.
  for (const FusedLoad &fused : fusedLoads[op]) {
    auto operandType = cast<RankedTensorType>(fused.operand.getType());
    auto smem = SharedLayout::get(operandType.getShape(), fused.strides,
                                  s->layout.swizzle());
    if (!smem)
      return op->emitOpError(llvm::toString(smem.takeError()));
    SharedOperand view = so;
    view.smem = *smem;
    sharedOperands[fused.operand] = view;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Fragment loads
//===----------------------------------------------------------------------===//

/// The address of element swizzle(prefix + x + c) of the operand's buffer,
/// for run-time x >= 0 and a constant
/// c >= 0. The part of c (and of the prefix, when it is known to be a
/// multiple) that lies above the swizzle's bits is added after the swizzle:
/// with K = M + S + B, swizzle(y + h) = swizzle(y) + h for any multiple h of
/// 2^K, since adding h changes neither the bits the swizzle reads nor those
/// it writes (all below K; carries only go up). Accesses whose offsets
/// differ by such constants (other atoms of the same rows pattern, other
/// ring stages) then share one swizzle computation and become immediate
/// address offsets, instead of one live address each.
/// When \p xorLow, the caller knows that swizzle(x + c % span) =
/// swizzle(x) ^ (c % span) for every x (Swizzle::distributes): accesses of
/// the same rows pattern then share swizzle(x), and each is one xor of it,
/// which ptxas rematerializes instead of keeping an address per access
/// live when registers are short.
static Value swizzledAddress(KernelLowering &kl, Location loc, Value x,
                             int64_t c, const SharedOperand &so, int64_t bytes,
                             bool xorLow = false) {
  OpBuilder &b = kl.builder();
  const Swizzle &s = so.smem.swizzle();
  int64_t span = s.span();
  int64_t lo = c % span, hi = c - lo;
  bool prefixAfter = so.prefix && so.prefixAlign % span == 0;
  Value y = x;
  if (so.prefix && !prefixAfter)
    y = arith::AddIOp::create(b, loc, y, so.prefix);
  if (xorLow && (!so.prefix || prefixAfter)) {
    y = applySwizzle(kl, loc, y, s);
    if (lo)
      y = arith::XOrIOp::create(b, loc, y, kl.i32(lo));
  } else {
    if (lo)
      y = arith::AddIOp::create(b, loc, y, kl.i32(lo));
    y = applySwizzle(kl, loc, y, s);
  }
  // The prefix (a ring's stage offset) and the constant part as address
  // steps of their own: the swizzled address is then loop-invariant and
  // hoisted, the stage offset (uniform) and the constant fold into the
  // access's register-plus-uniform-plus-immediate address (ldmatrix
  // [R + UR + imm]: no address instructions per matrix load in the loop;
  // with the prefix or-ed into y, two per load).
  Value ptr = kl.gep(so.ptr, arith::MulIOp::create(b, loc, y, kl.i32(bytes)));
  if (prefixAfter)
    ptr = kl.gep(ptr, arith::MulIOp::create(b, loc, so.prefix, kl.i32(bytes)));
  if (hi)
    ptr = kl.gep(ptr, kl.i32(hi * bytes));
  return ptr;
}

/// sum_d coords[d] * strides[d] for i32 coordinates.
static Value linearize(KernelLowering &kl, Location loc, ValueRange coords,
                       ArrayRef<int64_t> strides, Value acc) {
  OpBuilder &b = kl.builder();
  for (auto [c, s] : llvm::zip(coords, strides))
    if (s != 0)
      acc = arith::AddIOp::create(b, loc, acc,
                                  arith::MulIOp::create(b, loc, c, kl.i32(s)));
  return acc;
}

static int64_t linearize(ArrayRef<int64_t> coords, ArrayRef<int64_t> strides) {
  int64_t acc = 0;
  for (auto [c, s] : llvm::zip(coords, strides))
    acc += c * s;
  return acc;
}

namespace {
/// How ldmatrix-like matrix loads produce an atom's fragments.
///
/// A matrix load moves 8 x R matrices, R = 128 / bits elements per 16-byte
/// row. Lane l receives, from row r and element e of the matrix as stored:
///   no transpose: r = l / 4, e = P * (l % 4) + i   (P = 32 / bits)
///   transpose:    r = 2 * (l % 4) + i, e = l / 4   (16-bit only)
/// (PTX ISA, "Warp-level matrix load instruction: ldmatrix", fragment
/// figures). Written as a register layout over (r, e) that is
///   spatial(8,4) * local(1,P)  or  column_spatial(4,8) * local(2,1),
/// the same layouts as lib/Layout's nvidiaLdmatrix(1, trans). When the tile
/// stores its dim c contiguously, (r, e) = (dim 1-c, dim c) and the layout
/// over the tile's dims is that one, with dims swapped when c = 0: the
/// fragment F. If the atom's operand layout divides as atom = Q * F, then Q
/// (one thread, n <= 4 slots) says where each of n matrices sits in the
/// atom: matrix j is the block Q(0, j) of F.shape(), and atom slots
/// j * P .. j * P + P - 1 are register j of the load.
/// A batch of products (3-D operands) reads each product's atoms the same
/// way: the fragment is over the last two dims, the leading (batch) dims
/// only move the matrices' origins.
struct MatrixLoadPlan {
  bool transpose = false;
  unsigned contiguousDim = 1;
  DistributedLayout blocks;
  SmallVector<int64_t, 4> blockShape;
  int64_t perRegister = 0;
};
} // namespace

static std::optional<MatrixLoadPlan>
planMatrixLoad(TargetLowering &tl, const SharedOperand &so,
               const DistributedLayout &atom, unsigned bits) {
  unsigned rank = so.smem.shape().size();
  if ((bits != 8 && bits != 16) || rank < 2 || atom.rank() != rank ||
      atom.numThreads() != 32)
    return std::nullopt;
  ArrayRef<int64_t> strides = so.smem.strides();
  int64_t rowElems = 128 / bits, per = 32 / bits;
  unsigned r = rank - 2, c;
  if (strides[r + 1] == 1 && strides[r] != 1)
    c = r + 1;
  else if (strides[r] == 1 && strides[r + 1] != 1)
    c = r;
  else
    return std::nullopt;
  // Every row start must be 16-byte aligned before the swizzle (so must
  // every product's origin) and the swizzle must keep 16-byte chunks whole
  // (it moves them as units then).
  const Swizzle &swz = so.smem.swizzle();
  unsigned nc = 2 * r + 1 - c;
  if (strides[nc] % rowElems || (so.prefix && so.prefixAlign % rowElems) ||
      so.ptrAlign < 16 || swz.unit() < rowElems)
    return std::nullopt;
  for (unsigned d = 0; d < r; ++d)
    if (so.smem.shape()[d] > 1 && strides[d] % rowElems)
      return std::nullopt;
  SmallVector<unsigned, 4> swap =
      llvm::to_vector<4>(llvm::seq<unsigned>(0, rank));
  std::swap(swap[r], swap[r + 1]);
  for (bool trans : {false, true}) {
    if (!tl.hasMatrixLoad(bits, trans) || (trans && bits != 16))
      continue;
    DistributedLayout frame = trans ? DistributedLayout::columnSpatial({4, 8}) *
                                          DistributedLayout::local({2, 1})
                                    : DistributedLayout::spatial({8, 4}) *
                                          DistributedLayout::local({1, per});
    DistributedLayout frag = frame.padRank(rank);
    if (c == r) {
      auto swapped = frag.permute(swap);
      if (!swapped) {
        llvm::consumeError(swapped.takeError());
        continue;
      }
      frag = *swapped;
    }
    std::optional<DistributedLayout> q = atom.divideRight(frag);
    if (!q || q->numThreads() != 1 || q->localSize() > 4 ||
        !llvm::isPowerOf2_64(q->localSize()))
      continue;
    MatrixLoadPlan plan;
    plan.transpose = trans;
    plan.contiguousDim = c;
    plan.blocks = *q;
    plan.blockShape.assign(frag.shape().begin(), frag.shape().end());
    plan.perRegister = per;
    return plan;
  }
  return std::nullopt;
}

/// Splits an i32 register into its `per` elements of `storage` type.
static SmallVector<Value> unpackRegister(KernelLowering &kl, Location loc,
                                         Value reg, Type storage, int64_t per) {
  OpBuilder &b = kl.builder();
  auto vecType = VectorType::get({per}, storage);
  Value vec = LLVM::BitcastOp::create(b, loc, vecType, reg);
  SmallVector<Value> out;
  for (int64_t i = 0; i < per; ++i)
    out.push_back(LLVM::ExtractElementOp::create(b, loc, vec, kl.i32(i)));
  return out;
}

/// Fragments through matrix loads, or std::nullopt when the layouts do not
/// allow them (nothing emitted then).
static std::optional<SmallVector<Regs>> loadWithMatrixLoads(
    KernelLowering &kl, Location loc, const SharedOperand &so,
    const DistributedLayout &quotient, const DistributedLayout &atom,
    ArrayRef<int64_t> quotientSlots, Type storage, unsigned bits) {
  unsigned rank = so.smem.shape().size();
  if (atom.rank() > rank || quotient.rank() != rank)
    return std::nullopt;
  std::optional<MatrixLoadPlan> plan =
      planMatrixLoad(kl.target(), so, atom.padRank(rank), bits);
  if (!plan)
    return std::nullopt;
  ArrayRef<int64_t> strides = so.smem.strides();
  SmallVector<int64_t, 4> atomShape(atom.padRank(rank).shape());
  unsigned nc = 2 * (rank - 2) + 1 - plan->contiguousDim;
  int64_t perMatrixLoad = plan->blocks.localSize();
  // Atoms per load: up to 4 matrices in one ldmatrix.x4.
  int64_t group = std::max<int64_t>(1, 4 / perMatrixLoad);
  // Element offset, relative to the warp's origin, of the first row of
  // matrix m of a load covering the quotient slots `slots`: the atom's
  // origin quotient(0, q) * atomShape plus the block origin
  // blocks(0, j) * blockShape (q = slots[m / n], j = m % n).
  auto matrixOrigin = [&](ArrayRef<int64_t> slots, int64_t m) {
    SmallVector<int64_t, 4> qc = quotient.apply(0, slots[m / perMatrixLoad]);
    SmallVector<int64_t, 4> bc = plan->blocks.apply(0, m % perMatrixLoad);
    SmallVector<int64_t, 4> coord;
    for (unsigned d = 0; d < rank; ++d)
      coord.push_back(qc[d] * atomShape[d] + bc[d] * plan->blockShape[d]);
    return linearize(coord, strides);
  };
  // Check first that every load's origins are linear in the bits of the
  // matrix index (always true for power-of-two layouts; nothing is emitted
  // otherwise).
  SmallVector<SmallVector<int64_t>> groups;
  for (size_t i = 0; i < quotientSlots.size();) {
    size_t n =
        llvm::bit_floor(std::min<size_t>(group, quotientSlots.size() - i));
    ArrayRef<int64_t> slots = quotientSlots.slice(i, n);
    i += n;
    int64_t total = int64_t(slots.size()) * perMatrixLoad;
    int64_t base = matrixOrigin(slots, 0);
    for (int64_t m = 0; m < total; ++m) {
      int64_t sum = base;
      for (int64_t bit = 1; bit < total; bit <<= 1)
        if (m & bit)
          sum += matrixOrigin(slots, bit) - base;
      if (sum != matrixOrigin(slots, m))
        return std::nullopt;
    }
    groups.emplace_back(slots.begin(), slots.end());
  }

  OpBuilder &b = kl.builder();
  Value tid = kl.threadIndex();
  Value ws = kl.i32(kl.warpSize());
  Value warp = arith::DivUIOp::create(b, loc, tid, ws);
  Value lane = arith::RemUIOp::create(b, loc, tid, ws);
  // The warp's origin: the spatial part of the quotient (warps) times the
  // atom shape.
  SmallVector<Value, 4> warpCoords = kl.spatialCoords(quotient, warp);
  for (unsigned d = 0; d < rank; ++d)
    warpCoords[d] =
        arith::MulIOp::create(b, loc, warpCoords[d], kl.i32(atomShape[d]));
  Value warpOffset = linearize(kl, loc, warpCoords, strides, kl.i32(0));
  // Lane l addresses row l % 8 (a step along the non-contiguous dim).
  Value row = arith::AndIOp::create(b, loc, lane, kl.i32(7));
  Value laneBase = arith::AddIOp::create(
      b, loc, warpOffset,
      arith::MulIOp::create(b, loc, row, kl.i32(strides[nc])));
  int64_t bytes = bits / 8;
  // The same offsets at compile time, every warp's and lane's, before the
  // per-group matrix digits (for Swizzle::distributes).
  SmallVector<int64_t> staticLaneBases;
  for (int64_t w = 0; w < quotient.numThreads(); ++w) {
    SmallVector<int64_t, 4> wc = quotient.apply(w, 0);
    for (unsigned d = 0; d < rank; ++d)
      wc[d] *= atomShape[d];
    for (int64_t l = 0; l < kl.warpSize(); ++l)
      staticLaneBases.push_back(linearize(wc, strides) + (l & 7) * strides[nc]);
  }

  SmallVector<Regs> out(quotientSlots.size());
  size_t next = 0;
  for (const SmallVector<int64_t> &slots : groups) {
    int64_t total = int64_t(slots.size()) * perMatrixLoad;
    int64_t base = matrixOrigin(slots, 0);
    SmallVector<int64_t> staticOffsets;
    for (auto [i, laneBase] : llvm::enumerate(staticLaneBases)) {
      int64_t l = int64_t(i) % kl.warpSize(), x = laneBase;
      for (int64_t bit = 1, shift = 3; bit < total; bit <<= 1, ++shift)
        x += ((l >> shift) & 1) * (matrixOrigin(slots, bit) - base);
      staticOffsets.push_back(x);
    }
    bool xorLow = so.smem.swizzle().distributes(
        staticOffsets, base % so.smem.swizzle().span());
    // ... of matrix m = (l / 8) % total, bit by bit.
    Value offset = laneBase;
    for (int64_t bit = 1, shift = 3; bit < total; bit <<= 1, ++shift) {
      Value digit = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, lane, kl.i32(shift)),
          kl.i32(1));
      offset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, digit,
                                kl.i32(matrixOrigin(slots, bit) - base)));
    }
    Value addr = swizzledAddress(kl, loc, offset, base, so, bytes, xorLow);
    SmallVector<Value> regs =
        kl.target().loadMatrices(b, loc, addr, total, plan->transpose);
    if (int64_t(regs.size()) != total)
      return std::nullopt;
    for (int64_t s = 0; s < int64_t(slots.size()); ++s) {
      Regs &frag = out[next + s];
      for (int64_t j = 0; j < perMatrixLoad; ++j)
        llvm::append_range(frag,
                           unpackRegister(kl, loc, regs[s * perMatrixLoad + j],
                                          storage, plan->perRegister));
    }
    next += slots.size();
  }
  return out;
}

/// Reads the slots [first, first + count) of every thread of `layout` from
/// the operand's buffer with vector loads.
static FailureOr<Regs> loadSlots(KernelLowering &kl, Operation *op,
                                 Location loc, const SharedOperand &so,
                                 const DistributedLayout &layout,
                                 ArrayRef<Value> threadCoords, int64_t first,
                                 int64_t count, Type storage, unsigned bits) {
  int64_t vec = ::tile::layout::maxVectorWidth(layout, so.smem, bits);
  if (vec == 0)
    return op->emitOpError("operand elements are not byte-aligned in shared "
                           "memory");
  int64_t bytes = bits / 8;
  while (vec > 1 && ((so.prefix && so.prefixAlign % vec) ||
                     vec * bytes > so.ptrAlign || first % vec || count % vec))
    vec /= 2;
  OpBuilder &b = kl.builder();
  Value linT = linearize(kl, loc, threadCoords, so.smem.strides(), kl.i32(0));
  Type vecType = VectorType::get({vec}, storage);
  Regs regs;
  for (int64_t l = first; l < first + count; l += vec) {
    int64_t linL = linearize(layout.apply(0, l), so.smem.strides());
    Value ptr = swizzledAddress(kl, loc, linT, linL, so, bytes);
    Value v = LLVM::LoadOp::create(b, loc, vecType, ptr, vec * bytes);
    for (int64_t i = 0; i < vec; ++i)
      regs.push_back(LLVM::ExtractElementOp::create(b, loc, v, kl.i32(i)));
  }
  return regs;
}

FailureOr<SmallVector<Regs>> KernelLowering::loadOperandFragments(
    Operation *op, const SharedOperand &operand,
    const DistributedLayout &layout, const DistributedLayout &quotient,
    const DistributedLayout &atom, ArrayRef<int64_t> quotientSlots,
    Type elemType) {
  unsigned bits = tile::getElementBitWidth(elemType);
  Type storage = storageType(elemType);
  if (std::optional<SmallVector<Regs>> frags = loadWithMatrixLoads(
          *this, loc, operand, quotient, atom, quotientSlots, storage, bits))
    return *frags;
  SmallVector<Value, 4> coords = spatialCoords(layout);
  SmallVector<Regs> out;
  int64_t size = atom.localSize();
  for (int64_t q : quotientSlots) {
    FailureOr<Regs> regs = loadSlots(*this, op, loc, operand, layout, coords,
                                     q * size, size, storage, bits);
    if (failed(regs))
      return failure();
    out.push_back(std::move(*regs));
  }
  return out;
}

LogicalResult KernelLowering::materializeSharedOperand(Operation *op, Value v) {
  const SharedOperand *so = lookupSharedOperand(v);
  if (!so)
    return success();
  auto type = cast<RankedTensorType>(v.getType());
  FailureOr<DistributedLayout> layout = layoutOf(op, type);
  if (failed(layout))
    return failure();
  unsigned bits = tile::getElementBitWidth(type.getElementType());
  FailureOr<Regs> regs =
      loadSlots(*this, op, loc, *so, *layout, spatialCoords(*layout), 0,
                layout->localSize(), storageType(type.getElementType()), bits);
  if (failed(regs))
    return failure();
  values[v] = *regs;
  return success();
}

} // namespace tile::gpu
