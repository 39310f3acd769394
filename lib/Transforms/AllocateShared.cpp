//===- AllocateShared.cpp - Shared-memory offsets, swizzles, scratch ------===//
//
// Part of tilec. Implements tile-allocate-shared (see Passes.td and
// docs/Passes.md).
//
// Every user of shared memory becomes an interval [first op, last op] of a
// pre-order numbering of the kernel's ops, with a size and an alignment:
//  - a tile.alloc_shared lives from its definition to the end of the op (in
//    its block) that contains its last use, extended to the next
//    `tile.wait 0` when async copies write it;
//  - ops that the GPU lowering may move through shared memory need scratch
//    only while they run: a tile.convert_layout that is not a register
//    renaming, a tile.broadcast / tile.trans /
//    tile.expand_dims / tile.reshape that moves elements between threads,
//    and a tile.reduce that combines partials across warps (or moves its
//    result between threads). The sizes mirror the lowering
//    (lib/Codegen/GPU: KernelLowering::convertLayout, lowerShapeOp,
//    lowerReduce), so that the kernel's shared memory is known, and checked
//    against the target, here rather than in the backend.
// Intervals are placed greedily, largest first, at the lowest aligned offset
// that overlaps no interval alive at the same time.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Dialect/Tile/Utils/DotChain.h"
#include "tile/Transforms/LayoutChoice.h"
#include "tile/Transforms/Passes.h"

#include "tile/Layout/ConversionPlan.h"
#include "tile/Layout/SharedLayout.h"
#include "tile/Layout/TmaBox.h"
#include "tile/Layout/WgmmaOperand.h"

#include "mlir/IR/Builders.h"

#include "mlir/Interfaces/LoopLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

namespace tile {
#define GEN_PASS_DEF_TILEALLOCATESHARED
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using tile::detail::elementBits;
using tile::detail::getLayout;
using DL = ::tile::layout::DistributedLayout;
using SL = ::tile::layout::SharedLayout;

namespace {

constexpr int64_t kBufferAlign = 128;
constexpr int64_t kReduceAlign = 16;

struct Interval {
  Operation *op;
  int64_t start, end; ///< Op numbers, inclusive.
  int64_t bytes, align;
  bool scratch;
  int64_t offset = -1;
  /// The op (in op's block) whose end ends the interval.
  Operation *endOp = nullptr;
};

int64_t alignTo(int64_t value, int64_t align) {
  return (value + align - 1) / align * align;
}

int64_t bytesOf(int64_t elements, unsigned bits) {
  return (elements * bits + 7) / 8;
}

class Allocator {
public:
  Allocator(func::FuncOp func, const ::tile::TargetInfo &target)
      : func(func),
        target(target), banks{target.sharedBanks ? target.sharedBanks : 32,
                              target.sharedBankBytes ? target.sharedBankBytes
                                                     : 4} {
    auto warps =
        func->getAttrOfType<IntegerAttr>(tile::TileDialect::kWarpsAttr);
    auto warpSize =
        func->getAttrOfType<IntegerAttr>(tile::TileDialect::kWarpSizeAttr);
    numWarps = warps ? warps.getInt() : 1;
    this->warpSize = warpSize ? warpSize.getInt() : target.warpSize;
  }

  LogicalResult run();

private:
  void number();
  SL chooseLayout(tile::AllocSharedOp alloc);
  std::optional<SL> warpgroupMmaLayout(tile::AllocSharedOp alloc);
  std::optional<SL> tensorCopyLayout(tile::AllocSharedOp alloc);
  /// The unswizzled layouts to try for \p alloc: \p plain (row-major),
  /// and column-major for rank-2 tiles no async copy fills.
  SmallVector<SL, 2> candidateBases(tile::AllocSharedOp alloc, const SL &plain);
  Interval bufferInterval(tile::AllocSharedOp alloc, int64_t bytes,
                          int64_t align);
  std::optional<int64_t> conversionBytes(const DL &src, const DL &dst,
                                         unsigned bits);
  std::optional<int64_t> convertScratch(tile::ConvertLayoutOp op);
  std::optional<int64_t> shapeScratch(Operation *op);
  std::optional<int64_t> reduceScratch(tile::ReduceOp op);
  void place(SmallVectorImpl<Interval> &intervals);
  void insertReuseBarriers(ArrayRef<Interval> intervals);

  func::FuncOp func;
  const ::tile::TargetInfo &target;
  ::tile::layout::BankConfig banks;
  int64_t numWarps = 1, warpSize = 1;
  llvm::DenseMap<Operation *, int64_t> first, last;
  /// Buffers that need more than kBufferAlign (wgmma operands: their
  /// swizzle pattern acts on address bits).
  llvm::DenseMap<Operation *, int64_t> alignments;
};

void Allocator::number() {
  int64_t counter = 0;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) { first[op] = counter++; });
  func.walk<WalkOrder::PostOrder>([&](Operation *op) {
    int64_t end = first[op];
    for (Region &region : op->getRegions()) {
      for (Block &block : region) {
        for (Operation &nested : block)
          end = std::max(end, last[&nested]);
      }
    }
    last[op] = end;
  });
}

/// Whether `op` accesses shared memory asynchronously (an async copy lands
/// by a later wait).
static bool isAsyncAccess(Operation *op) {
  auto access = dyn_cast<tile::SharedAccessOpInterface>(op);
  return access && access.isAsyncAccess();
}

/// Whether \p reshape only inserts or removes dimensions of extent 1.
static bool onlyUnitDimsDiffer(tile::ReshapeOp reshape) {
  auto nonUnit = [](Type type) {
    SmallVector<int64_t, 4> dims;
    for (int64_t d : cast<RankedTensorType>(type).getShape())
      if (d != 1)
        dims.push_back(d);
    return dims;
  };
  return nonUnit(reshape->getOperand(0).getType()) ==
         nonUnit(reshape->getResult(0).getType());
}

/// A buffer whose tiles a tile.shared_load reads straight (through reshapes
/// of unit dimensions) into operand A or B (B also through a transpose:
/// stored N x K, K-major) of a dot that fits
/// the warpgroup instruction (fitsWarpgroupMma) gets
/// the layout wgmma reads (WgmmaOperand.h: row-major rows of 32/64/128
/// bytes, the hardware swizzle), aligned to its swizzle pattern. The
/// lowering emits wgmma when every operand and the accumulator fit; if not,
/// this layout is still conflict-free for ldmatrix and cp.async.
std::optional<SL> Allocator::warpgroupMmaLayout(tile::AllocSharedOp alloc) {
  auto type = cast<tile::SharedType>(alloc.getType());
  if (!target.hasWgmma || type.getRank() < 2)
    return std::nullopt;
  unsigned bits = elementBits(type.getElementType());
  // The operand each load feeds (through at most one 2-D transpose: B
  // stored N x K) and whether it is A.
  std::optional<bool> isA, transposed;
  for (Operation *user : alloc->getUsers()) {
    auto load = dyn_cast<tile::SharedLoadOp>(user);
    if (!load)
      continue;
    for (OpOperand &loadUse : load->getUses()) {
      OpOperand *use = &loadUse;
      bool through = false;
      // Reshapes that drop unit dimensions (a tile of a rank-4 view, as
      // attention loads K and V) rename the tile.
      while (auto reshape = dyn_cast<tile::ReshapeOp>(use->getOwner())) {
        if (!reshape->hasOneUse() || !onlyUnitDimsDiffer(reshape))
          return std::nullopt;
        use = &*reshape->getUses().begin();
      }
      if (auto trans = dyn_cast<tile::TransOp>(use->getOwner())) {
        if (!trans->hasOneUse() || trans.getPermutation().size() != 2)
          return std::nullopt;
        use = &*trans->getUses().begin();
        through = true;
      }
      auto dot = dyn_cast<tile::DotOp>(use->getOwner());
      if (!dot || use->getOperandNumber() > 1)
        return std::nullopt;
      auto a = cast<RankedTensorType>(dot.getA().getType());
      auto c = cast<RankedTensorType>(dot.getAcc().getType());
      bool role = use->getOperandNumber() == 0;
      if (c.getRank() != 2 || (isA && *isA != role) ||
          (transposed && *transposed != through) || (role && through) ||
          !::tile::layout::fitsWarpgroupMma(
              c.getDimSize(0), c.getDimSize(1), a.getDimSize(1), bits,
              isa<FloatType>(a.getElementType()),
              c.getElementType().isF32() || c.getElementType().isInteger(32),
              numWarps, target, through,
              isa<Float8E4M3FNType, Float8E5M2Type>(a.getElementType()),
              tile::isChainedProduct(dot)))
        return std::nullopt;
      isA = role;
      transposed = through;
    }
  }
  if (!isA)
    return std::nullopt;
  ArrayRef<int64_t> tileShape = type.getShape().take_back(2);
  llvm::Expected<SL> tile =
      ::tile::layout::wgmmaRowMajorLayout(tileShape, bits);
  if (!tile) {
    llvm::consumeError(tile.takeError());
    return std::nullopt;
  }
  auto fit = ::tile::layout::matchWgmmaOperand(
      *tile, bits, *isA, *isA ? 64 : tileShape[*transposed ? 0 : 1],
      *transposed);
  if (!fit) {
    llvm::consumeError(fit.takeError());
    return std::nullopt;
  }
  alignments[alloc] = std::max(kBufferAlign, fit->alignment);
  return SL::rowMajor(type.getShape()).withSwizzle(tile->swizzle());
}

/// A buffer TMA copies fill (tile-pipeline's TMA scheme) that does not
/// feed wgmma (attention's tiles on mma.sync) gets the same layout, which
/// TMA boxes write (tile-pipeline checked that with TmaBox.h) and ldmatrix
/// reads without bank conflicts, aligned to its swizzle pattern (TmaBox.h's
/// planTmaRing: dense rows for sub-byte tiles and short ones).
std::optional<SL> Allocator::tensorCopyLayout(tile::AllocSharedOp alloc) {
  auto type = cast<tile::SharedType>(alloc.getType());
  bool filledByTma = llvm::any_of(alloc->getUsers(), [](Operation *user) {
    auto copy = dyn_cast<tile::CopyAsyncOp>(user);
    return copy && copy.isTensorCopy();
  });
  if (!filledByTma || type.getRank() < 2)
    return std::nullopt;
  llvm::Expected<::tile::layout::TmaRing> plan = ::tile::layout::planTmaRing(
      type.getShape(), elementBits(type.getElementType()));
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return std::nullopt;
  }
  alignments[alloc] = std::max(kBufferAlign, plan->plan.alignment);
  return plan->layout;
}

SL Allocator::chooseLayout(tile::AllocSharedOp alloc) {
  if (std::optional<SL> wgmma = warpgroupMmaLayout(alloc))
    return *wgmma;
  if (std::optional<SL> tma = tensorCopyLayout(alloc))
    return *tma;
  auto type = cast<tile::SharedType>(alloc.getType());
  SL plain = SL::rowMajor(type.getShape());
  unsigned bits = elementBits(type.getElementType());
  std::optional<DL> store, load;
  for (Operation *user : alloc->getUsers()) {
    auto access = dyn_cast<tile::SharedAccessOpInterface>(user);
    if (!access)
      continue;
    // Elements whose width does not divide 32 bits (u3, f6e3m2, ...) are
    // copied as raw packed rows, which needs the unswizzled layout.
    if (access.isAsyncAccess() && 32 % bits != 0)
      return plain;
    std::optional<DL> &slot = access.isSharedWrite() ? store : load;
    if (slot)
      continue;
    if (Value tile = access.getRegisterTile()) {
      slot = getLayout(tile.getType());
    } else if (unsigned rank = access.getAccessRank(); rank <= type.getRank()) {
      // Registers not involved (async copies): the lowering moves them with
      // the coalesced layout (docs/Passes.md).
      slot = ::tile::layout::coalescedLayout(type.getShape().take_back(rank),
                                             bits, numWarps * warpSize);
    }
  }
  if (!store)
    store = load;
  if (!load)
    load = store;
  if (!store || store->shape() != load->shape() ||
      store->rank() > type.getRank() ||
      store->shape() != type.getShape().take_back(store->rank()))
    return plain;
  // Fewest store + load wavefronts; on a tie, the fewest access
  // instructions (the widest vectors).
  std::optional<SL> best;
  std::pair<int64_t, int64_t> bestCost;
  for (const SL &base : candidateBases(alloc, plain)) {
    SL tile =
        store->rank() == type.getRank() ? base : SL::rowMajor(store->shape());
    llvm::Expected<::tile::layout::SwizzleChoice> choice =
        ::tile::layout::searchSwizzle(tile, *store, *load, bits, warpSize,
                                      banks);
    if (!choice) {
      llvm::consumeError(choice.takeError());
      continue;
    }
    SL swizzled = base.withSwizzle(choice->swizzle);
    int64_t elements = store->numElements();
    std::pair<int64_t, int64_t> cost = {
        choice->store.wavefronts + choice->load.wavefronts,
        elements / std::max<int64_t>(1, choice->storeVec) +
            elements / std::max<int64_t>(1, choice->loadVec)};
    if (swizzled.cosize() != base.cosize() || (best && cost >= bestCost))
      continue;
    best = swizzled;
    bestCost = cost;
  }
  return best ? *best : plain;
}

SmallVector<SL, 2> Allocator::candidateBases(tile::AllocSharedOp alloc,
                                             const SL &plain) {
  // A tile written and read within the kernel (a dot operand staged by
  // tile-stage-converted-operands, a transposed tile) may also be laid out
  // column-major: when its writer's runs go down the columns (trans of a
  // dequantized weight feeding a dot's A operand), the stores stay 16-byte
  // vectors and the reads become ldmatrix.trans. Tiles that async copies
  // fill keep the rows of global memory.
  SmallVector<SL, 2> bases = {plain};
  auto type = cast<tile::SharedType>(alloc.getType());
  if (type.getRank() != 2 || llvm::any_of(alloc->getUsers(), isAsyncAccess))
    return bases;
  llvm::Expected<SL> columns = SL::ordered(type.getShape(), {0, 1});
  if (columns)
    bases.push_back(*columns);
  else
    llvm::consumeError(columns.takeError());
  return bases;
}

Interval Allocator::bufferInterval(tile::AllocSharedOp alloc, int64_t bytes,
                                   int64_t align) {
  Block *block = alloc->getBlock();
  int64_t end = first[alloc];
  Operation *endOp = alloc;
  Operation *lastCopy = nullptr;
  // In a warp-specialized kernel, a buffer both roles use (a ring and its
  // mbarriers: tile-pipeline allocates them in front of the
  // tile.warp_specialize) ends with the consumers' last use: they wait for
  // every copy the producers issue. Its later ops may reuse it.
  auto consumerUse = [&](Operation *user) -> Operation * {
    auto split = dyn_cast_or_null<tile::WarpSpecializeOp>(
        block->findAncestorOpInBlock(*user));
    if (!split)
      return nullptr;
    return split.getConsumer().front().findAncestorOpInBlock(*user);
  };
  bool bothRoles = llvm::any_of(alloc->getUsers(), consumerUse);
  for (Operation *user : alloc->getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor)
      continue;
    if (bothRoles && isa<tile::WarpSpecializeOp>(ancestor)) {
      ancestor = consumerUse(user);
      if (!ancestor)
        continue; // A producer use: before the consumers' last one.
    }
    if (last[ancestor] > end) {
      end = last[ancestor];
      endOp = ancestor;
    }
    // A TMA copy is waited for before its stage is read, and none is issued
    // past the end of its loop: it lands within the buffer's last use.
    auto copy = dyn_cast<tile::CopyAsyncOp>(user);
    if (isAsyncAccess(user) && !(copy && copy.isTensorCopy()) &&
        (!lastCopy || lastCopy->isBeforeInBlock(ancestor)))
      lastCopy = ancestor;
  }
  // Async copies may still land until the next full wait.
  if (lastCopy) {
    for (Operation *op = lastCopy->getNextNode(); op; op = op->getNextNode()) {
      if (last[op] > end) {
        end = last[op];
        endOp = op;
      }
      auto wait = dyn_cast<tile::WaitOp>(op);
      if (wait && wait.getPending() == 0)
        break;
    }
  }
  Interval interval{alloc, first[alloc], end, bytes, align, false};
  interval.endOp = endOp;
  return interval;
}

/// Whether every thread already holds, in one fixed slot of every thread,
/// the source element each destination slot needs (\p coordMap maps a
/// destination coordinate to its source coordinate): the lowering then only
/// renames registers (KernelLowering::staticRemap).
static bool isStaticRemap(
    const DL &src, const DL &dst,
    llvm::function_ref<SmallVector<int64_t, 4>(ArrayRef<int64_t>)> coordMap) {
  if (src.numThreads() != dst.numThreads())
    return false;
  for (int64_t l = 0; l < dst.localSize(); ++l) {
    int64_t found = -1;
    for (int64_t t = 0; t < dst.numThreads(); ++t) {
      SmallVector<int64_t, 4> c = coordMap(dst.apply(t, l));
      int64_t slot = -1;
      for (const auto &holder : src.holders(c)) {
        if (holder.thread == t) {
          slot = holder.slot;
          break;
        }
      }
      if (slot < 0 || (found >= 0 && slot != found))
        return false;
      found = slot;
    }
  }
  return true;
}

std::optional<int64_t> Allocator::conversionBytes(const DL &src, const DL &dst,
                                                  unsigned bits) {
  if (src == dst || isStaticRemap(src, dst, [](ArrayRef<int64_t> c) {
        return SmallVector<int64_t, 4>(c.begin(), c.end());
      }))
    return std::nullopt;
  // Sub-byte tiles make the round trip as bytes.
  unsigned moveBits = bits % 8 ? 8 : bits;
  llvm::Expected<::tile::layout::ConversionPlan> plan =
      ::tile::layout::planConversion(src, dst, warpSize, moveBits, banks);
  if (!plan) {
    // The lowering reports it.
    llvm::consumeError(plan.takeError());
    return std::nullopt;
  }
  switch (plan->kind) {
  case ::tile::layout::ConversionKind::NoOp:
    return std::nullopt;
  case ::tile::layout::ConversionKind::SharedMemory:
    return bytesOf(plan->smem.cosize(), moveBits);
  case ::tile::layout::ConversionKind::WarpShuffle:
    // Lowered with warp shuffles, no shared memory, when there are at most
    // two rounds per destination register (the GPU lowering's rule; in the
    // rare case it cannot express the shuffle tables it takes its own
    // scratch past the kernel's allocations). Otherwise a round trip.
    if (int64_t(plan->rounds.size()) <= 2 * plan->dstLocalSize)
      return std::nullopt;
    return bytesOf(src.numElements(), moveBits);
  case ::tile::layout::ConversionKind::RegisterPermutation:
    // A permutation that differs between threads may fall back to a
    // row-major round trip: reserve it.
    return bytesOf(src.numElements(), moveBits);
  }
  return std::nullopt;
}

std::optional<int64_t> Allocator::convertScratch(tile::ConvertLayoutOp op) {
  std::optional<DL> src = getLayout(op.getSrc().getType());
  std::optional<DL> dst = getLayout(op.getType());
  if (!src || !dst)
    return std::nullopt;
  return conversionBytes(*src, *dst, elementBits(op.getType()));
}

std::optional<int64_t> Allocator::shapeScratch(Operation *op) {
  auto srcType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto dstType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!srcType || !dstType)
    return std::nullopt;
  std::optional<DL> src = getLayout(srcType), dst = getLayout(dstType);
  if (!src || !dst)
    return std::nullopt;
  ArrayRef<int64_t> srcShape = srcType.getShape();
  SmallVector<int64_t, 4> srcStrides(srcShape.size(), 1);
  for (int i = int(srcShape.size()) - 2; i >= 0; --i)
    srcStrides[i] = srcStrides[i + 1] * srcShape[i + 1];
  SmallVector<int64_t, 4> dstStrides(dstType.getRank(), 1);
  for (int i = int(dstType.getRank()) - 2; i >= 0; --i)
    dstStrides[i] = dstStrides[i + 1] * dstType.getDimSize(i + 1);
  // Destination coordinate -> source coordinate, as lowerShapeOp maps them.
  std::function<SmallVector<int64_t, 4>(ArrayRef<int64_t>)> coordMap;
  if (isa<tile::BroadcastOp>(op)) {
    coordMap = [&](ArrayRef<int64_t> c) {
      SmallVector<int64_t, 4> s(c.begin(), c.end());
      for (unsigned d = 0; d < s.size(); ++d) {
        if (srcShape[d] == 1)
          s[d] = 0;
      }
      return s;
    };
  } else if (auto trans = dyn_cast<tile::TransOp>(op)) {
    SmallVector<int32_t> perm = trans.getPermutation();
    coordMap = [perm](ArrayRef<int64_t> c) {
      SmallVector<int64_t, 4> s(c.size());
      for (unsigned i = 0; i < c.size(); ++i)
        s[perm[i]] = c[i];
      return s;
    };
  } else {
    // expand_dims and reshape keep the row-major order.
    coordMap = [&](ArrayRef<int64_t> c) {
      int64_t linear = 0;
      for (unsigned d = 0; d < c.size(); ++d)
        linear += c[d] * dstStrides[d];
      SmallVector<int64_t, 4> s(srcShape.size());
      for (unsigned d = 0; d < srcShape.size(); ++d)
        s[d] = (linear / srcStrides[d]) % srcShape[d];
      return s;
    };
  }
  if (isStaticRemap(*src, *dst, coordMap))
    return std::nullopt;
  return bytesOf(srcType.getNumElements(), elementBits(srcType));
}

std::optional<int64_t> Allocator::reduceScratch(tile::ReduceOp op) {
  std::optional<DL> src = getLayout(op.getSrc().getType());
  if (!src)
    return std::nullopt;
  llvm::Expected<DL> sliced = src->slice(op.getAxis());
  if (!sliced) {
    llvm::consumeError(sliced.takeError());
    return std::nullopt;
  }
  // The thread digits of the axis that lowerReduce combines through shared
  // memory: all but a power-of-two block of lanes of each digit.
  struct Digit {
    int64_t stride, size;
  };
  SmallVector<Digit> viaShared;
  int64_t stride = 1;
  for (unsigned index : llvm::reverse(src->spatialModes())) {
    const ::tile::layout::Mode &mode = src->modes()[index];
    if (mode.dim == int(op.getAxis())) {
      int64_t laneSize = 1;
      if (llvm::isPowerOf2_64(stride) && stride < warpSize) {
        laneSize = std::min(mode.size, warpSize / stride);
        if (!llvm::isPowerOf2_64(laneSize) || mode.size % laneSize)
          laneSize = 1;
      }
      if (mode.size / laneSize > 1)
        viaShared.push_back({stride * laneSize, mode.size / laneSize});
    }
    stride *= mode.size;
  }
  int64_t bytes = 0;
  unsigned bits = elementBits(op.getSrc().getType());
  if (!viaShared.empty()) {
    bool warpsOnly = llvm::all_of(
        viaShared, [&](const Digit &d) { return d.stride >= warpSize; });
    int64_t rows = warpsOnly ? src->numThreads() / warpSize : src->numThreads();
    int64_t cols = warpsOnly ? sliced->numElements() : sliced->localSize();
    bytes = rows * cols * std::max<int64_t>(1, bits / 8);
  }
  // The partials, in the sliced layout, then move to the result's layout.
  if (std::optional<DL> result = getLayout(op.getType())) {
    if (std::optional<int64_t> moved = conversionBytes(*sliced, *result, bits))
      bytes = std::max(bytes, *moved);
  }
  if (bytes == 0)
    return std::nullopt;
  return bytes;
}

void Allocator::place(SmallVectorImpl<Interval> &intervals) {
  SmallVector<Interval *> order;
  for (Interval &interval : intervals)
    order.push_back(&interval);
  llvm::stable_sort(order, [](const Interval *a, const Interval *b) {
    if (a->bytes != b->bytes)
      return a->bytes > b->bytes;
    return a->start < b->start;
  });
  SmallVector<Interval *> placed;
  for (Interval *interval : order) {
    SmallVector<Interval *> live;
    for (Interval *other : placed) {
      if (other->start <= interval->end && interval->start <= other->end)
        live.push_back(other);
    }
    llvm::sort(live, [](const Interval *a, const Interval *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (Interval *other : live) {
        if (offset < other->offset + other->bytes &&
            other->offset < offset + interval->bytes) {
          offset = alignTo(other->offset + other->bytes, interval->align);
          moved = true;
        }
      }
    }
    interval->offset = offset;
    placed.push_back(interval);
  }
}

LogicalResult Allocator::run() {
  number();
  MLIRContext *ctx = func.getContext();
  SmallVector<Interval> intervals;
  bool failed = false;
  func.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<tile::AllocSharedOp>(op)) {
      auto type = cast<tile::SharedType>(alloc.getType());
      SL layout;
      if (auto attr =
              dyn_cast_or_null<tile::SharedLayoutAttr>(type.getEncoding())) {
        layout = attr.getLayout();
      } else {
        layout = chooseLayout(alloc);
        alloc.getResult().setType(
            tile::SharedType::get(ctx, type.getShape(), type.getElementType(),
                                  tile::SharedLayoutAttr::get(ctx, layout)));
      }
      int64_t bytes =
          bytesOf(layout.cosize(), elementBits(type.getElementType()));
      auto align = alignments.find(alloc);
      intervals.push_back(bufferInterval(
          alloc, bytes,
          align == alignments.end() ? kBufferAlign : align->second));
      return;
    }
    std::optional<int64_t> scratch;
    int64_t align = kBufferAlign;
    if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op)) {
      scratch = convertScratch(convert);
    } else if (isa<tile::BroadcastOp, tile::TransOp, tile::ExpandDimsOp,
                   tile::ReshapeOp>(op)) {
      scratch = shapeScratch(op);
    } else if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      scratch = reduceScratch(reduce);
      align = kReduceAlign;
    }
    if (scratch) {
      intervals.push_back(
          Interval{op, first[op], first[op], *scratch, align, true});
      intervals.back().endOp = op;
    }
  });
  if (failed)
    return failure();
  place(intervals);
  int64_t total = 0;
  for (Interval &interval : intervals)
    total = std::max(total, interval.offset + interval.bytes);
  total = alignTo(total, 16);
  auto i64 = IntegerType::get(ctx, 64);
  if (total > int64_t(target.maxSharedBytes)) {
    // Blame the first allocation (in program order) that ends past the limit.
    Interval *culprit = nullptr;
    for (Interval &interval : intervals) {
      if (interval.offset + interval.bytes > int64_t(target.maxSharedBytes) &&
          (!culprit || interval.start < culprit->start))
        culprit = &interval;
    }
    if (!culprit)
      culprit = &intervals.front();
    InFlightDiagnostic diag = culprit->op->emitError()
                              << "kernel needs " << total
                              << " bytes of shared memory, but target '"
                              << target.name << "' has "
                              << target.maxSharedBytes << " bytes available";
    for (const Interval &interval : intervals) {
      diag.attachNote(interval.op->getLoc())
          << (interval.scratch ? "scratch" : "buffer") << " of "
          << interval.bytes << " bytes at offset " << interval.offset;
    }
    return failure();
  }
  for (const Interval &interval : intervals) {
    if (interval.scratch) {
      interval.op->setAttr(tile::kScratchOffsetAttr,
                           IntegerAttr::get(i64, interval.offset));
      interval.op->setAttr(tile::kScratchBytesAttr,
                           IntegerAttr::get(i64, interval.bytes));
    } else {
      interval.op->setAttr(tile::kOffsetAttr,
                           IntegerAttr::get(i64, interval.offset));
    }
  }
  func->setAttr(tile::kSharedBytesAttr, IntegerAttr::get(i64, total));
  insertReuseBarriers(intervals);
  return success();
}

/// Whether \p a and \p b are both inside one loop (then each may run after
/// the other).
static bool shareLoop(Operation *a, Operation *b) {
  for (Operation *loop = a->getParentOp(); loop; loop = loop->getParentOp())
    if (isa<LoopLikeOpInterface>(loop) && loop->isProperAncestor(b))
      return true;
  return false;
}

void Allocator::insertReuseBarriers(ArrayRef<Interval> intervals) {
  // Bytes of a buffer that a later interval reuses must not be written (or
  // read) again before every thread is done with the buffer: its last reads
  // by other warps, and the async copies that may land until the wait that
  // ends it. One barrier right after the buffer's end orders them. Scratch
  // intervals need none: their lowering ends with a barrier
  // (KernelLowering::convertLayout, lowerReduce, the shape-op round trip).
  // For each later user, one barrier after the last-ending buffer it
  // reuses covers the others (allocations share the function's block).
  llvm::SmallSetVector<Operation *, 4> ends;
  for (const Interval &y : intervals) {
    const Interval *latest = nullptr;
    for (const Interval &x : intervals) {
      if (x.scratch || &x == &y || y.offset >= x.offset + x.bytes ||
          x.offset >= y.offset + y.bytes)
        continue;
      if (shareLoop(x.endOp, y.op))
        ends.insert(x.endOp);
      else if (y.start > x.end && (!latest || x.end > latest->end))
        latest = &x;
    }
    if (latest)
      ends.insert(latest->endOp);
  }
  for (Operation *end : ends) {
    Operation *next = end->getNextNode();
    if (next && isa<tile::BarrierOp>(next))
      continue;
    OpBuilder b(end->getContext());
    if (end->hasTrait<OpTrait::IsTerminator>())
      b.setInsertionPoint(end);
    else
      b.setInsertionPointAfter(end);
    tile::BarrierOp::create(b, end->getLoc());
  }
}

struct AllocateSharedPass
    : public tile::impl::TileAllocateSharedBase<AllocateSharedPass> {
  using TileAllocateSharedBase::TileAllocateSharedBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<::tile::TargetInfo> info =
        tile::detail::lookupTarget(module, target);
    if (!info)
      return signalPassFailure();
    if (info->isHost())
      return;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!tile::detail::isKernel(func) || func.isExternal())
        continue;
      Allocator allocator(func, *info);
      if (failed(allocator.run()))
        return signalPassFailure();
    }
  }
};

} // namespace
