//===- KernelLowering.h - State of the generic GPU lowering ----*- C++ -*-===//
//
// Part of tilec. Private to lib/Codegen/GPU. The GPU lowering is an MLIR
// dialect conversion of each kernel function, one pattern per op, one file
// per op family (Lower*.cpp, each with its populate*Patterns). Its type
// conversion is 1:N: a tile value of layout L becomes the calling thread's
// L.localSize() scalars ("registers", slot order), a scalar stays one value;
// views and shared buffers become no values at all, their lowered form
// (pointer, dims and strides; address in shared memory) lives in the
// KernelLowering, the state every pattern shares, next to the analyses
// (operand fusion) and the helpers the patterns use. Vendor-specific ops
// come from the TargetLowering hooks.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CODEGEN_GPU_KERNELLOWERING_H
#define TILE_LIB_CODEGEN_GPU_KERNELLOWERING_H

#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Layout/DistributedLayout.h"
#include "tile/Layout/SharedLayout.h"
#include "tile/Numerics/Format.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace tile::gpu {

/// A lowered global view: element pointer, dims (i32) and strides (i64, in
/// elements).
struct ViewValue {
  mlir::Value ptr;
  llvm::SmallVector<mlir::Value, 4> dims;
  llvm::SmallVector<mlir::Value, 4> strides;
  /// Whether the last dimension is known to be contiguous (no explicit
  /// strides).
  bool contiguous = true;
  mlir::Type elementType;
};

/// Linear element index sum_d coord[d] * stride[d] (i64) of `view`.
mlir::Value linearIndex(mlir::OpBuilder &b, mlir::Location loc,
                        const ViewValue &view,
                        llvm::ArrayRef<mlir::Value> coords);
/// linearIndex with no-signed-wrap arithmetic, for addresses of elements
/// known to be inside the view (lets LLVM fold the scaling shifts).
mlir::Value linearIndexNSW(mlir::OpBuilder &b, mlir::Location loc,
                           const ViewValue &view,
                           llvm::ArrayRef<mlir::Value> coords);
/// Bytes of `x` (any integer type) elements of `bits` bits, for x whose bit
/// count is a whole number of bytes (bits a multiple of 8, or x a multiple
/// of 8 / gcd(8, bits)).
mlir::Value alignedBytes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                         unsigned bits);
/// i1: 0 <= c < dim for every dimension (unsigned compare).
mlir::Value inBounds(mlir::OpBuilder &b, mlir::Location loc,
                     llvm::ArrayRef<mlir::Value> coords,
                     llvm::ArrayRef<mlir::Value> dims);

/// The layout of a shared buffer: its type's encoding, row-major without
/// one.
::tile::layout::SharedLayout sharedLayoutOf(tile::SharedType type);

/// A lowered shared buffer: its base address in shared memory and layout.
struct SharedValue {
  mlir::Value ptr;
  tile::SharedType type;
  ::tile::layout::SharedLayout layout;
};

/// Registers of one tile (or the single value of a scalar).
using Regs = llvm::SmallVector<mlir::Value, 8>;

/// An 8-bit tile read from shared memory as whole 32-bit words whose bytes
/// hold the thread's slots in another order (the pre-packed operand order
/// pairs bytes 0 and 2, 1 and 3): the words, and for each slot the byte of
/// the word stream that holds it (slot l is byte byteOf[l] % 4 of word
/// byteOf[l] / 4).
struct ByteWords {
  Regs words;
  llvm::SmallVector<int32_t> byteOf;
};

/// A tile.dot operand that stays in shared memory (operand fusion, see
/// LowerSharedOperand.cpp): the tile.shared_load feeding the dot, and the
/// reshapes/transposes between them, are not lowered; the dot reads the
/// operand's fragments itself, one k block at a time.
struct SharedOperand {
  /// Base of the buffer (the shared_load's buffer).
  mlir::Value ptr;
  /// The operand tile in the buffer: offset(i, j) = swizzle(prefix + i *
  /// strides[0] + j * strides[1]), in elements.
  ::tile::layout::SharedLayout smem;
  /// i32 element offset of the tile's origin (null: 0) and a power of two
  /// known to divide it (0 when there is no prefix).
  mlir::Value prefix;
  int64_t prefixAlign = 0;
  /// Byte alignment known for `ptr` (from the buffer's tile.offset).
  int64_t ptrAlign = 1;
  /// The buffer's byte offset in shared memory (tile.offset), -1 unknown.
  int64_t bufferOffset = -1;
};

/// Lowers one kernel function: the state its conversion patterns share.
class KernelLowering {
public:
  KernelLowering(TargetLowering &target, mlir::ModuleOp module,
                 mlir::func::FuncOp kernel);

  /// Converts the kernel in place into a function of per-thread code (the
  /// kernel function op is replaced by a plain one with the same name).
  mlir::LogicalResult run();

  //===--------------------------------------------------------------------===//
  // The patterns' side of the conversion.
  //===--------------------------------------------------------------------===//

  mlir::MLIRContext *getContext() { return b.getContext(); }
  /// Lowers `op` in a conversion pattern: binds the op's converted operands,
  /// runs `lower` with the builder at the rewriter's insertion point, and
  /// replaces the op's results by the registers `lower` mapped them to (no
  /// values for views and shared buffers). Fused operand ops and epilogues a
  /// dot lowered already skip `lower`. On failure `lower` has reported the
  /// error; the conversion stops.
  mlir::LogicalResult
  lowerWith(mlir::Operation *op, llvm::ArrayRef<mlir::ValueRange> operands,
            mlir::ConversionPatternRewriter &rewriter,
            llvm::function_ref<mlir::LogicalResult()> lower);
  /// Records a new function's entry block (after its signature conversion):
  /// the thread index is computed there, shared memory addressed from there.
  void enterFunction(mlir::Block *entry,
                     mlir::ConversionPatternRewriter &rewriter);
  /// Maps the values `old` to their 1:N converted values, in order.
  void mapConverted(mlir::ValueRange old, mlir::ValueRange converted);
  /// Whether a pattern reported an error (the conversion's own "failed to
  /// legalize" message is then redundant).
  bool hasError() const { return errorReported; }
  /// The 1:N type conversion of the lowering (see the file comment).
  const mlir::TypeConverter &getTypeConverter() const { return converter; }

  /// Bytes of dynamic shared memory the kernel needs, scratch included.
  int64_t getSharedBytes() const { return sharedBytes + scratchBytes; }

  //===--------------------------------------------------------------------===//
  // Helpers used by the op lowerings (the files Lower*.cpp).
  //===--------------------------------------------------------------------===//

  mlir::OpBuilder &builder() { return b; }
  TargetLowering &target() { return tl; }
  unsigned warpSize() const;
  /// The kernel's threads (tile.warps x warp size; in a warp-specialized
  /// kernel, its consumer threads).
  int64_t numThreads() const { return threads; }
  /// The programs per SM the kernel leaves registers for (`occupancy N`;
  /// 1 without it).
  int64_t occupancy() const { return programsPerSM; }
  /// The calling thread's index in the program (i32).
  mlir::Value threadIndex() const { return tid; }

  /// The register type of an element type: small floats become integers of
  /// their width, everything else is unchanged.
  static mlir::Type storageType(mlir::Type elementType);
  /// The layout of a tile type, or an error at `op`.
  mlir::FailureOr<::tile::layout::DistributedLayout>
  layoutOf(mlir::Operation *op, mlir::Type type);

  /// The 32-bit words holding the slots of a sub-byte tile, packed as in
  /// lib/Layout's SubBytePacking, when the lowering has them (loads); null
  /// otherwise.
  const Regs *lookupPackedWords(mlir::Value v) {
    auto it = packedWords.find(v);
    return it == packedWords.end() ? nullptr : &it->second;
  }
  /// The words of an 8-bit tile read as whole words (ByteWords), when the
  /// lowering has them (shared loads); null otherwise.
  const ByteWords *lookupByteWords(mlir::Value v) {
    auto it = byteWords.find(v);
    return it == byteWords.end() ? nullptr : &it->second;
  }

  /// Registers of a lowered value.
  const Regs &lookup(mlir::Value v) { return values[v]; }
  void map(mlir::Value v, Regs regs) { values[v] = std::move(regs); }

  /// i32 / i64 constants and arithmetic.
  mlir::Value i32(int64_t v);
  mlir::Value i64(int64_t v);
  mlir::Value constant(mlir::Type type, int64_t v);

  /// Per-dimension thread parts of the coordinates of `layout` for the
  /// calling thread: coordinate(t, l) = spatial[d] + layout.apply(0, l)[d].
  /// With `thread` (i32), for that thread index instead of the caller's.
  llvm::SmallVector<mlir::Value, 4>
  spatialCoords(const ::tile::layout::DistributedLayout &layout,
                mlir::Value thread = {});
  /// i1 that is true for exactly one of the threads holding each element:
  /// every replication digit of the thread index is zero.
  mlir::Value isFirstHolder(const ::tile::layout::DistributedLayout &layout);

  /// Address `base + byteOffset` (any pointer address space).
  mlir::Value gep(mlir::Value base, mlir::Value byteOffset);
  /// The base of the dynamic shared memory (`!llvm.ptr<3>` on NVIDIA).
  mlir::Value sharedBase();
  /// Shared scratch space of `bytes` bytes for `op`: the region
  /// tile-allocate-shared reserved (`tile.scratch_offset` /
  /// `tile.scratch_bytes`) when it is large enough, otherwise a region after
  /// the kernel's `tile.shared_bytes` (counted in getSharedBytes()). Users
  /// end with a barrier so that the next user may overwrite it.
  mlir::Value scratch(mlir::Operation *op, int64_t bytes);

  /// Writes every register of `regs` (layout `layout`, element `elemType`)
  /// to shared memory at `base` laid out as `smem` (offsets of the whole
  /// tile, in elements), vectorized when contiguous. `prefixOffset` (i32,
  /// elements, may be null) is added to every linear offset before the
  /// swizzle; `vecHint` caps the vector width (0: none).
  mlir::LogicalResult
  storeShared(mlir::Operation *op, mlir::Value base,
              const ::tile::layout::SharedLayout &smem, mlir::Value prefix,
              int64_t prefixAlign,
              const ::tile::layout::DistributedLayout &layout,
              mlir::Type elemType, const Regs &regs, bool onlyFirstHolder);
  /// The inverse: reads `layout`'s registers from shared memory. With
  /// `packedOut`, a sub-byte tile read as whole 32-bit words also returns
  /// those words there (see lookupPackedWords); it stays empty otherwise.
  /// With `bytesOut`, an 8-bit tile whose slots are permuted bytes of whole
  /// words is read as those words and returns them there (lookupByteWords);
  /// its words stay empty otherwise.
  mlir::FailureOr<Regs>
  loadShared(mlir::Operation *op, mlir::Value base,
             const ::tile::layout::SharedLayout &smem, mlir::Value prefix,
             int64_t prefixAlign,
             const ::tile::layout::DistributedLayout &layout,
             mlir::Type elemType, Regs *packedOut = nullptr,
             ByteWords *bytesOut = nullptr);

  /// Moves `regs` from layout `src` to layout `dst` (same shape): a static
  /// renaming of registers when possible, otherwise a round trip through
  /// shared scratch memory.
  mlir::FailureOr<Regs>
  convertLayout(mlir::Operation *op, const Regs &regs,
                const ::tile::layout::DistributedLayout &src,
                const ::tile::layout::DistributedLayout &dst,
                mlir::Type elemType);

  /// For every slot l of `dst`, the slot of `src` holding coordinate
  /// `coordMap(dst.apply(t, l))` in the same thread t, if that slot is the
  /// same for every thread; std::nullopt when it is not (then data must move
  /// between threads).
  static std::optional<llvm::SmallVector<int64_t>> staticRemap(
      const ::tile::layout::DistributedLayout &src,
      const ::tile::layout::DistributedLayout &dst,
      llvm::function_ref<llvm::SmallVector<int64_t, 4>(llvm::ArrayRef<int64_t>)>
          coordMap);

  // Op lowerings, one per file group.
  mlir::LogicalResult lowerLoad(tile::LoadOp op);
  mlir::LogicalResult lowerStore(tile::StoreOp op);
  mlir::LogicalResult lowerAtomicAdd(tile::AtomicAddOp op);
  /// f16/bf16 add/sub/mul of `count` slots as <2 x half> pairs.
  Regs lowerHalfPairs(mlir::Operation *op, int64_t count, mlir::Type elem);
  /// Whether `result` reaches only dots, through renamings and paired
  /// operations (lowerHalfPairs then keeps its operands' pairs).
  bool feedsOnlyDots(mlir::Value result);
  mlir::LogicalResult lowerSharedLoad(tile::SharedLoadOp op);
  mlir::LogicalResult lowerSharedStore(tile::SharedStoreOp op);
  /// The lowered buffer, register layout (of `type`) and slice (sliceOf) a
  /// shared_load or shared_store at `indices` of `buffer` touches.
  struct SharedSlice {
    SharedValue *buffer = nullptr;
    ::tile::layout::DistributedLayout layout;
    ::tile::layout::SharedLayout slice;
    mlir::Value prefix;
    int64_t prefixAlign = 0;
  };
  mlir::FailureOr<SharedSlice> sharedSlice(mlir::Operation *op,
                                           mlir::Value buffer,
                                           mlir::ValueRange indices,
                                           mlir::Type type);
  mlir::LogicalResult lowerCopyAsync(tile::CopyAsyncOp op);
  /// TMA copies and their mbarriers (LowerTensorCopy.cpp).
  mlir::LogicalResult lowerTensorCopy(tile::CopyAsyncOp op);
  mlir::LogicalResult lowerMbarrierInit(tile::MbarrierInitOp op);
  mlir::LogicalResult lowerMbarrierWait(tile::MbarrierWaitOp op);
  mlir::LogicalResult lowerMbarrierInval(tile::MbarrierInvalOp op);
  mlir::LogicalResult lowerMbarrierArrive(tile::MbarrierArriveOp op);
  /// The kernel's tensor-map parameters (tile.tensor_maps), in order.
  void setTensorMaps(mlir::ValueRange maps) {
    tensorMaps.assign(maps.begin(), maps.end());
  }
  mlir::LogicalResult lowerReduce(tile::ReduceOp op);
  /// A thread digit (stride, size of the thread index) of a reduced axis.
  struct ReduceDigit {
    int64_t stride, size;
  };
  mlir::LogicalResult
  reduceViaShared(tile::ReduceOp op,
                  const ::tile::layout::DistributedLayout &layout,
                  const ::tile::layout::DistributedLayout &sliced,
                  llvm::ArrayRef<ReduceDigit> viaShared, Regs &partial);
  mlir::LogicalResult lowerDot(tile::DotOp op);
  /// The dot as warpgroup instructions (wgmma) reading B from shared memory
  /// and A from shared memory or (16-bit floats in the A-fragment layout
  /// \p la) from registers: true when lowered, false when the dot does not
  /// fit (nothing emitted).
  bool lowerWarpgroupDot(tile::DotOp op,
                         const ::tile::layout::DistributedLayout &la,
                         const ::tile::layout::DistributedLayout &lc);
  /// Retires a two-group register-A product's first group at the top of
  /// the loop's next iteration, when it may (LowerDot.cpp).
  bool waitAtLoopTop(tile::DotOp op, Regs &acc);
  /// The groups of asynchronous MMAs \p op may leave in flight across its
  /// loop's iterations (0 or 1; tile.mma_in_flight).
  static unsigned inFlightGroups(tile::DotOp op);
  /// Whether the values \p roots of the insertion block can be computed at
  /// the insertion point instead (\p ops: what moves there; LowerDot.cpp).
  static bool sinkableAfter(mlir::OpBuilder &b,
                            llvm::ArrayRef<mlir::Value> roots,
                            llvm::SmallVectorImpl<mlir::Operation *> &ops);
  /// Whether some dot of the kernel may run on warpgroup instructions (both
  /// operands fused): shared memory written before a barrier is then also
  /// fenced for them.
  bool mayUseWarpgroupMma();
  /// Whether the buffer a fused shared_load of `operand` reads has the
  /// wgmma layout of operand A (`isA`) or B of an `n`-column dot.
  bool hasWarpgroupLayout(mlir::Value operand, bool isA, int64_t n) const;
  mlir::LogicalResult
  lowerDotWithoutAtoms(tile::DotOp op,
                       const ::tile::layout::DistributedLayout &la,
                       const ::tile::layout::DistributedLayout &lb,
                       const ::tile::layout::DistributedLayout &lc,
                       const std::optional<MmaAtom> &atom);

  /// Operand fusion (LowerSharedOperand.cpp). Finds the tile.shared_loads
  /// that reach a tile.dot operand only through single-use reshapes and
  /// transposes of the same block, with nothing in between that may write
  /// the bytes they read; their lowering is left to the dot.
  void analyzeOperandFusion();
  /// Whether `op` belongs to a fused operand (its lowering is deferred).
  bool isFusedOperandOp(mlir::Operation *op) const {
    return fusedOps.contains(op);
  }
  /// Lowers a fused shared_load (or one of the ops between it and the dot):
  /// computes the operand's addressing at this point, loads nothing.
  mlir::LogicalResult deferFusedOperandOp(mlir::Operation *op);
  /// The shared-memory operand of the dot operand `v`, if fused.
  const SharedOperand *lookupSharedOperand(mlir::Value v) const {
    auto it = sharedOperands.find(v);
    return it == sharedOperands.end() ? nullptr : &it->second;
  }
  /// Reads the matrix-instruction fragments of a fused operand of layout
  /// `layout` = quotient * atom: for each slot q in `quotientSlots`, the
  /// atom.localSize() registers of slots q * atom.localSize() + i. Uses the
  /// target's matrix load (ldmatrix) when the buffer layout allows it, plain
  /// vector loads otherwise.
  mlir::FailureOr<llvm::SmallVector<Regs>>
  loadOperandFragments(mlir::Operation *op, const SharedOperand &operand,
                       const ::tile::layout::DistributedLayout &layout,
                       const ::tile::layout::DistributedLayout &quotient,
                       const ::tile::layout::DistributedLayout &atom,
                       llvm::ArrayRef<int64_t> quotientSlots,
                       mlir::Type elemType);
  /// Every register of a fused operand (used when the dot does not run on
  /// matrix instructions); maps `v` like any lowered value.
  mlir::LogicalResult materializeSharedOperand(mlir::Operation *op,
                                               mlir::Value v);
  /// A dot as per-thread FMAs, when every thread holds the A rows and B
  /// columns of its accumulator elements; failure (no diagnostic) otherwise.
  mlir::LogicalResult lowerFmaDot(tile::DotOp op,
                                  const ::tile::layout::DistributedLayout &la,
                                  const ::tile::layout::DistributedLayout &lb,
                                  const ::tile::layout::DistributedLayout &lc);
  mlir::LogicalResult lowerCast(tile::CastOp op);
  mlir::LogicalResult lowerBitcast(tile::BitcastOp op);
  /// arith/math ops on tiles and scalars, splats of tile constants
  /// (LowerElementwise.cpp).
  mlir::LogicalResult lowerElementwise(mlir::Operation *op);
  mlir::LogicalResult lowerSplat(tile::SplatOp op);
  mlir::LogicalResult lowerIota(tile::IotaOp op);
  /// broadcast, expand_dims, reshape, trans, convert_layout (LowerShape.cpp).
  mlir::LogicalResult lowerShapeOp(mlir::Operation *op);
  /// Views, shared buffers and synchronization (LowerMemory.cpp).
  mlir::LogicalResult lowerView(tile::ViewOp op);
  mlir::LogicalResult lowerAllocShared(tile::AllocSharedOp op);
  mlir::LogicalResult lowerBarrier(tile::BarrierOp op);
  void warnIfAccumulatorSpills(tile::DotOp op,
                               const ::tile::layout::DistributedLayout &acc);
  llvm::DenseSet<mlir::Operation *> barriersAfterSharedReads();
  mlir::LogicalResult lowerWait(tile::WaitOp op);
  /// L2 prefetches and the dependent-launch wait (LowerPrefetch.cpp).
  mlir::LogicalResult lowerPrefetch(tile::PrefetchOp op);
  mlir::LogicalResult lowerWaitPrecedingGrids(tile::WaitPrecedingGridsOp op);
  /// program_id, num_programs (LowerKernel.cpp).
  mlir::LogicalResult lowerProgramId(tile::ProgramIdOp op);
  mlir::LogicalResult lowerNumPrograms(tile::NumProgramsOp op);

  /// Converts one scalar register with the language's cast() rules;
  /// without \p canonicalNaN, a float-to-float conversion may give any NaN
  /// for a NaN (for values whose NaN bits are unobservable:
  /// nanBitsUnobservable).
  mlir::FailureOr<mlir::Value> castScalar(mlir::Operation *op, mlir::Value v,
                                          mlir::Type srcType,
                                          mlir::Type dstType, bool srcUnsigned,
                                          bool dstUnsigned,
                                          bool canonicalNaN = true);

  /// The shared buffer a shared value was lowered to.
  SharedValue *lookupShared(mlir::Value v);
  ViewValue *lookupView(mlir::Value v);

private:
  mlir::FailureOr<mlir::Value> lowerMath(mlir::Operation *op,
                                         mlir::ValueRange operands,
                                         mlir::Type resultType);
  /// Replaces `op`'s results by their registers.
  mlir::LogicalResult finishOp(mlir::Operation *op,
                               mlir::ConversionPatternRewriter &rewriter);
  void populateTypeConversion();

  TargetLowering &tl;
  mlir::TypeConverter converter;
  bool errorReported = false;
  /// Threads of a program (tile.warps * the warp size).
  int64_t threads = 0;
  int64_t programsPerSM = 1;
  mlir::ModuleOp module;
  mlir::func::FuncOp kernel;
  mlir::OpBuilder b;
  mlir::Location loc;
  mlir::Block *entryBlock = nullptr;
  mlir::Value tid;
  mlir::Value smemBase;
  llvm::SmallVector<mlir::Value> tensorMaps;
  int64_t sharedBytes = 0;
  int64_t scratchBytes = 0;
  llvm::DenseMap<mlir::Value, Regs> values;
  llvm::DenseMap<mlir::Value, Regs> packedWords;
  llvm::DenseMap<mlir::Value, ByteWords> byteWords;
  llvm::DenseMap<mlir::Value, ViewValue> views;
  llvm::DenseMap<mlir::Value, SharedValue> shareds;
  /// Operand fusion: the deferred ops, the dot operands each fused
  /// shared_load feeds (several when several dots read the load) and the
  /// lowered operands. A fused operand views the load's tile through its
  /// renamings: its element strides in the buffer (0 for unit dims), and
  /// whether it is the 2-D tile read through a transpose.
  llvm::DenseSet<mlir::Operation *> fusedOps;
  struct FusedLoad {
    mlir::Value operand;
    llvm::SmallVector<int64_t, 4> strides;
    bool transposed = false;
  };
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<FusedLoad, 1>> fusedLoads;
  llvm::DenseMap<mlir::Value, SharedOperand> sharedOperands;
  /// mayUseWarpgroupMma(), computed after the fusion analysis.
  bool warpgroupMmaKernel = false;
  /// The tile.barriers of a wgmma kernel that need no proxy fence
  /// (barriersAfterSharedReads()).
  llvm::DenseSet<mlir::Operation *> unfencedBarriers;
  /// Ops already lowered as part of an earlier op (a dot's epilogue add).
  llvm::DenseSet<mlir::Operation *> loweredEarly;
};

/// Marks a float multiplication, addition or subtraction of the program as
/// contractible (LowerElementwise.cpp).
void allowContraction(mlir::Operation *op);

//===- Conversion patterns ---------------------------------------------===//

/// The pattern of an op lowered by a KernelLowering member.
template <typename OpTy>
class TileOpLowering : public mlir::OpConversionPattern<OpTy> {
public:
  using LowerFn = std::function<mlir::LogicalResult(KernelLowering &, OpTy)>;
  TileOpLowering(KernelLowering &kl, LowerFn lower)
      : mlir::OpConversionPattern<OpTy>(kl.getTypeConverter(), kl.getContext()),
        kl(kl), lower(std::move(lower)) {}

  mlir::LogicalResult matchAndRewrite(
      OpTy op,
      typename mlir::OpConversionPattern<OpTy>::OneToNOpAdaptor adaptor,
      mlir::ConversionPatternRewriter &rewriter) const override {
    return kl.lowerWith(op, adaptor.getOperands(), rewriter,
                        [&] { return lower(kl, op); });
  }

private:
  KernelLowering &kl;
  LowerFn lower;
};

/// Adds the pattern lowering `OpTy` with the member `lower`.
template <typename OpTy>
void addLowering(mlir::RewritePatternSet &patterns, KernelLowering &kl,
                 mlir::LogicalResult (KernelLowering::*lower)(OpTy)) {
  patterns.add<TileOpLowering<OpTy>>(
      kl, [lower](KernelLowering &k, OpTy op) { return (k.*lower)(op); });
}
/// The same for a member shared by several ops (it takes any op).
template <typename OpTy>
void addLowering(
    mlir::RewritePatternSet &patterns, KernelLowering &kl,
    mlir::LogicalResult (KernelLowering::*lower)(mlir::Operation *)) {
  patterns.add<TileOpLowering<OpTy>>(kl, [lower](KernelLowering &k, OpTy op) {
    return (k.*lower)(op.getOperation());
  });
}

/// The patterns of each op family, one per file.
void populateKernelPatterns(KernelLowering &kl,
                            mlir::RewritePatternSet &patterns);
void populateElementwisePatterns(KernelLowering &kl,
                                 mlir::RewritePatternSet &patterns);
void populateShapePatterns(KernelLowering &kl,
                           mlir::RewritePatternSet &patterns);
void populateMemoryPatterns(KernelLowering &kl,
                            mlir::RewritePatternSet &patterns);
void populateCopyPatterns(KernelLowering &kl,
                          mlir::RewritePatternSet &patterns);
void populateTensorCopyPatterns(KernelLowering &kl,
                                mlir::RewritePatternSet &patterns);
void populateAtomicPatterns(KernelLowering &kl,
                            mlir::RewritePatternSet &patterns);
void populateReducePatterns(KernelLowering &kl,
                            mlir::RewritePatternSet &patterns);
void populateDotPatterns(KernelLowering &kl, mlir::RewritePatternSet &patterns);
void populateCastPatterns(KernelLowering &kl,
                          mlir::RewritePatternSet &patterns);
void populatePrefetchPatterns(KernelLowering &kl,
                              mlir::RewritePatternSet &patterns);

/// Applies the shared-memory swizzle `s` to an i32 element offset.
mlir::Value applySwizzle(KernelLowering &kl, mlir::Location loc,
                         mlir::Value offset, const ::tile::layout::Swizzle &s);

//===- Memory access helpers (LowerMemory.cpp), shared with LowerCopy.cpp ===//

/// Largest power of two dividing `bytes`, at most 16.
unsigned alignOf(int64_t bytes);
/// Loads `count` consecutive elements at `ptr` and returns them as
/// registers (sub-byte elements unpacked LSB first). When `words` is given
/// and the group is a whole number of 32-bit words, sub-byte elements are
/// unpacked from 32-bit words and those words are appended to `*words`;
/// otherwise `*words` is cleared and set to null.
Regs loadGroup(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
               mlir::Type storage, int64_t count, unsigned bits, unsigned align,
               Regs **words = nullptr);
/// Stores the registers `slots` as consecutive elements at `ptr`.
void storeGroup(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                llvm::ArrayRef<mlir::Value> slots, unsigned bits,
                unsigned align);
/// Reads one element at linear index `index` of a view (no bounds check).
mlir::Value loadElement(mlir::OpBuilder &b, mlir::Location loc,
                        const ViewValue &view, mlir::Value index,
                        mlir::Type storage, unsigned bits);
/// Address of element swizzle(prefix + lin) of a shared buffer of
/// `bits`-bit elements (prefix may be null; added after the swizzle when it
/// is a multiple of the swizzle's span).
mlir::Value sharedAddress(KernelLowering &kl, mlir::Location loc,
                          mlir::Value base, mlir::Value prefix,
                          int64_t prefixAlign, mlir::Value lin,
                          const ::tile::layout::Swizzle &s, unsigned bits);
/// The slice of a shared buffer that a shared_load/store/copy_async
/// touches: the layout of the trailing dims (with the buffer's swizzle) and
/// the element offset of its origin (plus how much of it is known aligned).
mlir::LogicalResult sliceOf(KernelLowering &kl, mlir::Operation *op,
                            const SharedValue &s, mlir::ValueRange oldIndices,
                            llvm::ArrayRef<mlir::Value> indices,
                            llvm::ArrayRef<int64_t> tileShape,
                            ::tile::layout::SharedLayout &slice,
                            mlir::Value &prefix, int64_t &prefixAlign);

/// The lib/Numerics format of an element type (integers read as unsigned
/// when `isUnsigned`); none for types lib/Numerics does not describe.
std::optional<::tile::numerics::Format> formatOf(mlir::Type type,
                                                 bool isUnsigned);
/// The ALU fast paths of `op` (a tile.cast from codes of at most 8 bits,
/// registers `in`) in LowerDequant.cpp; empty when none applies.
Regs dequantizeFast(KernelLowering &kl, mlir::Location loc, tile::CastOp op,
                    const Regs &in, mlir::Type srcElem, mlir::Type dstElem);
/// Whether the bits of a NaN in `v` cannot be observed: every use, through
/// reshapes, transposes, layout conversions, broadcasts and inserted
/// dimensions, is a floating-point multiplication, addition, subtraction,
/// division or dot (LowerDequant.cpp). A conversion feeding only them may
/// produce any NaN for a NaN.
bool nanBitsUnobservable(mlir::Value v, unsigned depth = 0);

} // namespace tile::gpu

#endif // TILE_LIB_CODEGEN_GPU_KERNELLOWERING_H
