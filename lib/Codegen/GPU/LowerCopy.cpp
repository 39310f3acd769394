//===- LowerCopy.cpp - tile.copy_async: global tiles into shared memory ---===//
//
// Part of tilec. tile.copy_async for the generic GPU lowering: the threads
// of a program split a global tile into chunks of 16, 8 or 4 bytes, and each
// chunk is one cp.async (or one vector load and store on targets without
// asynchronous copies) when it lies inside the view on an aligned address;
// otherwise (an edge of the view, a misaligned or strided view) it is
// assembled element by element in a loop kept out of the fast path. Rows of
// 3-, 5-, 6- and 7-bit elements, whose chunks split elements, move as raw
// bit streams (lowerRawCopy).
//
// The fast path is what the main loops of GEMM and attention execute, so its
// addresses are built to be invariant where they can be: the alignment test
// is hoisted, a chunk's row address is separate from its column, and chunks
// that step by whole rows reuse chunk 0's registers and share one branch.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

/// i1: every `vec`-element run of `view` that starts at a last coordinate
/// `col0 + j * vec` sits on a chunk-aligned address: the base pointer is
/// chunk-aligned, the last stride is 1, the other strides and col0 are
/// multiples of vec (vec * bits = 8 * chunkBytes, vec a power of two).
/// Sufficient, not necessary; everything but col0 is invariant in the
/// kernel, so the check is hoisted out of loops.
static Value chunkAligned(OpBuilder &b, Location loc, const ViewValue &view,
                          Value col0, int64_t vec, int64_t chunkBytes) {
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value ptrInt = LLVM::PtrToIntOp::create(b, loc, i64, view.ptr);
  Value bad = arith::AndIOp::create(b, loc, ptrInt, c64(chunkBytes - 1));
  ArrayRef<Value> strides = view.strides;
  for (Value s : strides.drop_back())
    bad = arith::OrIOp::create(b, loc, bad,
                               arith::AndIOp::create(b, loc, s, c64(vec - 1)));
  if (!view.contiguous)
    bad = arith::OrIOp::create(
        b, loc, bad, arith::XOrIOp::create(b, loc, strides.back(), c64(1)));
  bad = arith::OrIOp::create(
      b, loc, bad,
      arith::ExtSIOp::create(
          b, loc, i64,
          arith::AndIOp::create(
              b, loc, col0,
              arith::ConstantIntOp::create(b, loc, col0.getType(), vec - 1))));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bad, c64(0));
}

/// Elements of a tile of this shape.
static int64_t elementCount(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

/// Opens `if (tid + first < numChunks)` when the threads' last round of
/// chunks is partial (the builder stays inside it; the caller's insertion
/// guard closes it) and returns the chunk index tid + first.
static Value chunkOfThread(KernelLowering &kl, Location loc, Value tid,
                           int64_t first, int64_t threads, int64_t numChunks) {
  OpBuilder &b = kl.builder();
  Value chunk = arith::AddIOp::create(b, loc, tid, kl.i32(first));
  if (first + threads > numChunks) {
    Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, chunk,
                                       kl.i32(numChunks));
    auto guardIf = scf::IfOp::create(b, loc, live, false);
    b.setInsertionPointToStart(&guardIf.getThenRegion().front());
  }
  return chunk;
}

/// i1: every coordinate but the last is inside the view.
static Value rowsInside(KernelLowering &kl, Location loc, const ViewValue &view,
                        ArrayRef<Value> g) {
  OpBuilder &b = kl.builder();
  Value ok = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (unsigned d = 0; d + 1 < g.size(); ++d)
    ok = arith::AndIOp::create(b, loc, ok,
                               arith::CmpIOp::create(b, loc,
                                                     arith::CmpIPredicate::ult,
                                                     g[d], view.dims[d]));
  return ok;
}

/// The bits (as iN, N the element width) of the view's element at the
/// linear index `index()` when `ok`, else 0; the index is computed and the
/// element read only under `ok`.
static Value elementBitsIf(OpBuilder &b, Location loc, const ViewValue &view,
                           Value ok, llvm::function_ref<Value()> index) {
  unsigned bits = tile::getElementBitWidth(view.elementType);
  Type code = b.getIntegerType(bits);
  auto elemIf = scf::IfOp::create(b, loc, TypeRange{code}, ok, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&elemIf.getThenRegion().front());
  Value v = loadElement(b, loc, view, index(),
                        KernelLowering::storageType(view.elementType), bits);
  if (v.getType() != code)
    v = arith::BitcastOp::create(b, loc, code, v);
  scf::YieldOp::create(b, loc, v);
  b.setInsertionPointToStart(&elemIf.getElseRegion().front());
  scf::YieldOp::create(
      b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, code, 0)});
  return elemIf.getResult(0);
}

//===----------------------------------------------------------------------===//
// Raw rows: packed 3/5/6/7-bit elements
//===----------------------------------------------------------------------===//

/// Chunk size (16, 8 or 4 bytes) for copying a tile of `bits`-bit elements
/// as raw bytes, or 0. Requires every row of `slice` (the last dimension) to
/// be a contiguous packed bit stream (unit stride, no swizzle) that starts
/// on a chunk boundary and holds a whole number of chunks, so that a chunk
/// of global bytes lands on a chunk of shared bytes of the same row even
/// when it splits elements (3-, 5-, 6- and 7-bit types).
static int64_t rawChunkBytes(const SharedLayout &slice, Value prefix,
                             int64_t prefixAlign, unsigned bits) {
  ArrayRef<int64_t> shape = slice.shape();
  if (bits % 8 == 0 || !slice.swizzle().isIdentity() ||
      slice.strides().back() != 1)
    return 0;
  int64_t rows = elementCount(shape.drop_back());
  for (int64_t bytes : {16, 8, 4}) {
    int64_t chunkBits = bytes * 8;
    if ((shape.back() * bits) % chunkBits ||
        (prefix && (prefixAlign * bits) % chunkBits))
      continue;
    bool ok = true;
    SmallVector<int64_t, 4> c(shape.size(), 0);
    for (int64_t r = 0; ok && r < rows; ++r) {
      int64_t rest = r;
      for (int d = int(shape.size()) - 2; d >= 0; --d) {
        c[d] = rest % shape[d];
        rest /= shape[d];
      }
      ok = (slice.offset(c) * int64_t(bits)) % chunkBits == 0;
    }
    if (ok)
      return bytes;
  }
  return 0;
}

/// Clamps an i64 to [lo, hi].
static Value clampI64(OpBuilder &b, Location loc, Value v, Value lo, Value hi) {
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, lo),
                                hi);
}

namespace {
/// One raw chunk of a tile row: bits [c0, c1) of the row, of which bits
/// [lo, hi) belong to elements inside the view; the row's element 0 sits
/// at bit `rowBit` of the view (i64 values).
struct RawChunk {
  Value rowBit, c0, c1, lo, hi;
  int64_t chunkBytes;
};
} // namespace

/// The words of a raw edge chunk of a unit-stride row: global bits
/// [rowBit + c0, rowBit + c1), read as the bytes at floor((rowBit + c0) / 8)
/// + k clamped to the bytes holding bits [rowBit + a, rowBit + z), so that
/// no byte outside the view's elements is touched, then masked to [a, z).
static SmallVector<Value> rawBytesOfRow(KernelLowering &kl, Location loc,
                                        const ViewValue &view,
                                        const RawChunk &rc, Value a, Value z) {
  OpBuilder &b = kl.builder();
  Type i32 = b.getI32Type();
  int64_t chunkBytes = rc.chunkBytes;
  Value g0 = arith::AddIOp::create(b, loc, rc.rowBit, rc.c0);
  Value b0 = arith::ShRSIOp::create(b, loc, g0, kl.i64(3));
  Value sh = arith::TruncIOp::create(
      b, loc, i32, arith::AndIOp::create(b, loc, g0, kl.i64(7)));
  Value firstByte = arith::ShRSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rc.rowBit, a), kl.i64(3));
  Value lastByte = arith::ShRSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, arith::AddIOp::create(b, loc, rc.rowBit, z),
                            kl.i64(1)),
      kl.i64(3));
  SmallVector<Value> loaded;
  for (int64_t k = 0; k <= chunkBytes; ++k) {
    Value at = clampI64(b, loc, arith::AddIOp::create(b, loc, b0, kl.i64(k)),
                        firstByte, lastByte);
    Value byte =
        LLVM::LoadOp::create(b, loc, b.getI8Type(), kl.gep(view.ptr, at), 1);
    loaded.push_back(arith::ExtUIOp::create(b, loc, i32, byte));
  }
  SmallVector<Value> words(chunkBytes / 4, kl.i32(0));
  for (int64_t i = 0; i < chunkBytes; ++i) {
    Value pair = arith::OrIOp::create(
        b, loc, loaded[i],
        arith::ShLIOp::create(b, loc, loaded[i + 1], kl.i32(8)));
    Value v = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, pair, sh), kl.i32(0xff));
    // Bits k of this byte with a <= c0 + 8i + k < z.
    Value at = arith::AddIOp::create(b, loc, rc.c0, kl.i64(8 * i));
    auto bound = [&](Value x) {
      return arith::TruncIOp::create(
          b, loc, i32,
          clampI64(b, loc, arith::SubIOp::create(b, loc, x, at), kl.i64(0),
                   kl.i64(8)));
    };
    Value one = kl.i32(1);
    Value below = arith::SubIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, one, bound(z)), one);
    Value under = arith::SubIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, one, bound(a)), one);
    Value mask = arith::AndIOp::create(
        b, loc, below, arith::XOrIOp::create(b, loc, under, kl.i32(-1)));
    v = arith::AndIOp::create(b, loc, v, mask);
    if (i % 4)
      v = arith::ShLIOp::create(b, loc, v, kl.i32(8 * (i % 4)));
    words[i / 4] = arith::OrIOp::create(b, loc, words[i / 4], v);
  }
  return words;
}

/// The words of a raw edge chunk of a strided row, element by element:
/// element eBase + k (eBase = floor(c0 / bits)) sits at bit
/// k * bits - (c0 - eBase * bits) of the chunk; elements outside [lo, hi)
/// are zero. `g` is the global coordinate of the row's element 0.
static SmallVector<Value> rawElementsOfRow(KernelLowering &kl, Location loc,
                                           const ViewValue &view,
                                           const RawChunk &rc,
                                           ArrayRef<Value> g) {
  OpBuilder &b = kl.builder();
  Type i32 = b.getI32Type();
  unsigned bits = tile::getElementBitWidth(view.elementType);
  int64_t count = rc.chunkBytes * 8 / bits + 2;
  Type wide = b.getIntegerType(count * bits);
  Value eBase = arith::DivUIOp::create(b, loc, rc.c0, kl.i64(bits));
  Value phase = arith::SubIOp::create(
      b, loc, rc.c0, arith::MulIOp::create(b, loc, eBase, kl.i64(bits)));
  Value acc = arith::ConstantIntOp::create(b, loc, wide, 0);
  for (int64_t k = 0; k < count; ++k) {
    Value e = arith::AddIOp::create(b, loc, eBase, kl.i64(k));
    Value eb = arith::MulIOp::create(b, loc, e, kl.i64(bits));
    Value ok = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, rc.lo, eb),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, eb, rc.hi));
    Value elem = elementBitsIf(b, loc, view, ok, [&] {
      SmallVector<Value, 4> ck(g.begin(), g.end());
      ck.back() = arith::AddIOp::create(
          b, loc, ck.back(), arith::TruncIOp::create(b, loc, i32, e));
      return linearIndex(b, loc, view, ck);
    });
    Value part = arith::ExtUIOp::create(b, loc, wide, elem);
    if (k)
      part = arith::ShLIOp::create(
          b, loc, part, arith::ConstantIntOp::create(b, loc, wide, k * bits));
    acc = arith::OrIOp::create(b, loc, acc, part);
  }
  acc = arith::ShRUIOp::create(b, loc, acc,
                               arith::ExtUIOp::create(b, loc, wide, phase));
  SmallVector<Value> words;
  for (int64_t w = 0; w < rc.chunkBytes / 4; ++w) {
    Value s = acc;
    if (w)
      s = arith::ShRUIOp::create(
          b, loc, acc, arith::ConstantIntOp::create(b, loc, wide, 32 * w));
    words.push_back(arith::TruncIOp::create(b, loc, i32, s));
  }
  return words;
}

/// Stores a raw edge chunk at `dst`, assembled exactly: the bits of
/// elements inside the view come from global memory and every other bit is
/// zero, as the host reference pads.
static void storeRawEdgeChunk(KernelLowering &kl, Location loc,
                              const ViewValue &view, const RawChunk &rc,
                              ArrayRef<Value> g, Value rowOk, Value dst) {
  OpBuilder &b = kl.builder();
  Type i32 = b.getI32Type();
  int64_t numWords = rc.chunkBytes / 4;
  Value a = arith::MaxSIOp::create(b, loc, rc.lo, rc.c0);
  Value z = arith::MinSIOp::create(b, loc, rc.hi, rc.c1);
  Value any = arith::AndIOp::create(
      b, loc, rowOk,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, z));
  SmallVector<Type> wordTypes(numWords, i32);
  auto anyIf = scf::IfOp::create(b, loc, wordTypes, any, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&anyIf.getElseRegion().front());
    SmallVector<Value> zeros(numWords, kl.i32(0));
    scf::YieldOp::create(b, loc, zeros);
    b.setInsertionPointToStart(&anyIf.getThenRegion().front());
    if (view.contiguous) {
      scf::YieldOp::create(b, loc, rawBytesOfRow(kl, loc, view, rc, a, z));
    } else {
      // Strided views: element by element when the stride is not 1.
      Value unit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         view.strides.back(), kl.i64(1));
      auto strideIf =
          scf::IfOp::create(b, loc, wordTypes, unit, /*withElse=*/true);
      scf::YieldOp::create(b, loc, strideIf.getResults());
      b.setInsertionPointToStart(&strideIf.getThenRegion().front());
      scf::YieldOp::create(b, loc, rawBytesOfRow(kl, loc, view, rc, a, z));
      b.setInsertionPointToStart(&strideIf.getElseRegion().front());
      scf::YieldOp::create(b, loc, rawElementsOfRow(kl, loc, view, rc, g));
    }
  }
  Value v = anyIf.getResult(0);
  if (numWords > 1) {
    v = LLVM::PoisonOp::create(b, loc, VectorType::get({numWords}, i32));
    for (int64_t w = 0; w < numWords; ++w)
      v = LLVM::InsertElementOp::create(b, loc, v, anyIf.getResult(w),
                                        kl.i32(w));
  }
  LLVM::StoreOp::create(b, loc, v, dst, rc.chunkBytes);
}

/// tile.copy_async of packed sub-byte rows as raw byte chunks (see
/// rawChunkBytes). Chunk j of a tile row covers the row's bits
/// [j * C, (j + 1) * C), C = 8 * chunkBytes. A chunk whose bits all belong to
/// elements inside the view, on an aligned global address of a unit-stride
/// row, is one cp.async (or one vector load and store); any other chunk is
/// assembled exactly (storeRawEdgeChunk).
static LogicalResult lowerRawCopy(KernelLowering &kl, tile::CopyAsyncOp op,
                                  const ViewValue &view, const SharedValue &s,
                                  const SharedLayout &slice, Value prefix,
                                  int64_t chunkBytes, Value tid,
                                  int64_t threads) {
  OpBuilder &b = kl.builder();
  Location loc = op.getLoc();
  TargetLowering &tl = kl.target();
  unsigned rank = view.dims.size();
  unsigned bits = tile::getElementBitWidth(view.elementType);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  ArrayRef<int64_t> shape = slice.shape();
  int64_t last = shape.back();
  int64_t chunkBits = chunkBytes * 8;
  int64_t perRow = last * bits / chunkBits;
  int64_t numChunks = elementCount(shape.drop_back()) * perRow;
  int64_t numWords = chunkBytes / 4;
  Type wordsType = numWords == 1 ? Type(i32) : VectorType::get({numWords}, i32);
  SmallVector<Value, 4> srcOff;
  for (Value o : op.getSrcOffsets())
    srcOff.push_back(kl.lookup(o)[0]);
  Value ptrInt = LLVM::PtrToIntOp::create(b, loc, i64, view.ptr);
  auto ext64 = [&](Value v) { return arith::ExtSIOp::create(b, loc, i64, v); };

  for (int64_t iter = 0; iter * threads < numChunks; ++iter) {
    OpBuilder::InsertionGuard guard(b);
    Value chunk =
        chunkOfThread(kl, loc, tid, iter * threads, threads, numChunks);
    // Chunk j of row `row`; the row's coordinates (all but the last dim).
    Value j = arith::RemUIOp::create(b, loc, chunk, kl.i32(perRow));
    Value rest = arith::DivUIOp::create(b, loc, chunk, kl.i32(perRow));
    SmallVector<Value, 4> coord(rank, kl.i32(0));
    for (int d = int(rank) - 2; d >= 0; --d) {
      coord[d] = d == 0 ? rest
                        : arith::RemUIOp::create(b, loc, rest, kl.i32(shape[d]))
                              .getResult();
      if (d > 0)
        rest = arith::DivUIOp::create(b, loc, rest, kl.i32(shape[d]));
    }
    // Shared address: the row's bit offset is a multiple of chunkBits.
    Value lin = prefix ? prefix : kl.i32(0);
    for (unsigned d = 0; d + 1 < rank; ++d)
      lin = arith::AddIOp::create(
          b, loc, lin,
          arith::MulIOp::create(b, loc, coord[d], kl.i32(slice.strides()[d])));
    Value dstByte = arith::AddIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc,
                               arith::MulIOp::create(b, loc, lin, kl.i32(bits)),
                               kl.i32(3)),
        arith::MulIOp::create(b, loc, j, kl.i32(chunkBytes)));
    Value dst = kl.gep(s.ptr, dstByte);
    // Global coordinates of the row's first element; rows inside the view.
    SmallVector<Value, 4> g;
    for (unsigned d = 0; d < rank; ++d)
      g.push_back(arith::AddIOp::create(b, loc, srcOff[d], coord[d]));
    Value rowOk = rowsInside(kl, loc, view, g);
    // Bits [lo, hi) of the tile row belong to elements inside the view.
    RawChunk rc;
    rc.chunkBytes = chunkBytes;
    Value col0 = ext64(g.back());
    rc.lo = arith::MulIOp::create(
        b, loc,
        arith::MaxSIOp::create(b, loc, kl.i64(0),
                               arith::SubIOp::create(b, loc, kl.i64(0), col0)),
        kl.i64(bits));
    rc.hi = arith::MulIOp::create(
        b, loc,
        arith::MinSIOp::create(
            b, loc, kl.i64(last),
            arith::SubIOp::create(b, loc, ext64(view.dims.back()), col0)),
        kl.i64(bits));
    rc.c0 = arith::MulIOp::create(b, loc, ext64(j), kl.i64(chunkBits));
    rc.c1 = arith::AddIOp::create(b, loc, rc.c0, kl.i64(chunkBits));
    rc.rowBit = arith::MulIOp::create(b, loc, linearIndex(b, loc, view, g),
                                      kl.i64(bits));
    Value full = arith::AndIOp::create(
        b, loc, rowOk,
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, rc.lo,
                                  rc.c0),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, rc.c1,
                                  rc.hi)));
    Value rowByte = arith::ShRSIOp::create(b, loc, rc.rowBit, kl.i64(3));
    Value addr = arith::AddIOp::create(b, loc, ptrInt, rowByte);
    Value low = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, addr, kl.i64(chunkBytes - 1)),
        arith::AndIOp::create(b, loc, rc.rowBit, kl.i64(7)));
    Value aligned =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low, kl.i64(0));
    if (!view.contiguous)
      aligned = arith::AndIOp::create(
          b, loc, aligned,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                view.strides.back(), kl.i64(1)));
    full = arith::AndIOp::create(b, loc, full, aligned);

    auto ifOp = scf::IfOp::create(b, loc, full, /*withElse=*/true);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value src = kl.gep(
        view.ptr,
        arith::AddIOp::create(
            b, loc, rowByte,
            arith::MulIOp::create(b, loc, ext64(j), kl.i64(chunkBytes))));
    if (tl.hasAsyncCopy()) {
      tl.asyncCopy(b, loc, dst, src, chunkBytes, kl.i32(chunkBytes));
    } else {
      Value v = LLVM::LoadOp::create(b, loc, wordsType, src, chunkBytes);
      LLVM::StoreOp::create(b, loc, v, dst, chunkBytes);
    }
    // Edge, misaligned or strided chunk.
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    storeRawEdgeChunk(kl, loc, view, rc, g, rowOk, dst);
  }
  if (tl.hasAsyncCopy())
    tl.asyncCommitGroup(b, loc);
  return success();
}

//===----------------------------------------------------------------------===//
// Chunks of whole elements
//===----------------------------------------------------------------------===//

/// The edge chunk of a copy: element k < vec of the run at linear index
/// `index` (last coordinate `col`) of the view is read when rowsOk and
/// col + k < dim (unsigned), else zero; the run is stored to shared memory
/// as one chunk. The elements are a loop that LLVM is told not to unroll,
/// so that nothing per element is unrolled into, or hoisted to, the fast
/// path this code sits beside (unrolled runs put their 8-32 compares there,
/// and cost the decode GEMMs 0.01-0.03 warp instructions per weight byte),
/// and a run outside the view (the padding rows of an M < 16 tile) costs
/// its bounds and one store.
static void copyEdgeRun(KernelLowering &kl, Location loc, const ViewValue &view,
                        Value index, Value col, Value rowsOk, Value dst,
                        int64_t vec, int64_t chunkBytes) {
  OpBuilder &b = kl.builder();
  MLIRContext *ctx = b.getContext();
  unsigned bits = tile::getElementBitWidth(view.elementType);
  Type i32 = b.getI32Type(), wide = b.getIntegerType(vec * bits);
  auto toWide = [&](Value v) -> Value {
    unsigned w = v.getType().getIntOrFloatBitWidth();
    if (w == vec * bits)
      return v;
    if (w < vec * bits)
      return arith::ExtUIOp::create(b, loc, wide, v);
    return arith::TruncIOp::create(b, loc, wide, v);
  };
  auto run = scf::ExecuteRegionOp::create(b, loc, TypeRange{wide});
  OpBuilder::InsertionGuard guard(b);
  Region &region = run.getRegion();
  Block *entry = b.createBlock(&region);
  Block *header = b.createBlock(&region, region.end(), {i32, wide}, {loc, loc});
  Block *body = b.createBlock(&region, region.end());
  Block *exit = b.createBlock(&region, region.end(), {wide}, {loc});

  // Elements of rows outside the view are not visited; the others check
  // their column in the loop's body. (Bounds computed before the loop were
  // speculated by ptxas into the fast path.)
  b.setInsertionPointToEnd(entry);
  Value hi = arith::SelectOp::create(b, loc, rowsOk, kl.i32(vec), kl.i32(0));
  LLVM::BrOp::create(
      b, loc,
      ValueRange{kl.i32(0), arith::ConstantIntOp::create(b, loc, wide, 0)},
      header);
  b.setInsertionPointToEnd(header);
  Value k = header->getArgument(0), acc = header->getArgument(1);
  LLVM::CondBrOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k, hi),
      body, ValueRange{}, exit, ValueRange{acc});

  b.setInsertionPointToEnd(body);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       arith::AddIOp::create(b, loc, col, k),
                                       view.dims.back());
  Value elem = elementBitsIf(b, loc, view, inside, [&] {
    return arith::AddIOp::create(
               b, loc, index,
               arith::MulIOp::create(
                   b, loc, arith::ExtSIOp::create(b, loc, b.getI64Type(), k),
                   view.strides.back()))
        .getResult();
  });
  Value placed = arith::ShLIOp::create(
      b, loc, toWide(elem),
      toWide(arith::MulIOp::create(b, loc, k, kl.i32(bits))));
  auto noUnroll = LLVM::LoopAnnotationAttr::get(
      ctx, {}, {}, {},
      LLVM::LoopUnrollAttr::get(ctx, b.getBoolAttr(true), {}, {}, {}, {}, {},
                                {}),
      {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
  LLVM::BrOp::create(b, loc,
                     ValueRange{arith::AddIOp::create(b, loc, k, kl.i32(1)),
                                arith::OrIOp::create(b, loc, acc, placed)},
                     noUnroll, header);

  b.setInsertionPointToEnd(exit);
  scf::YieldOp::create(b, loc, exit->getArgument(0));
  b.setInsertionPointAfter(run);
  Value chunk = run.getResult(0);
  if (chunkBytes > 4)
    chunk = LLVM::BitcastOp::create(
        b, loc, VectorType::get({chunkBytes / 4}, i32), chunk);
  LLVM::StoreOp::create(b, loc, chunk, dst, alignOf(chunkBytes));
}

/// Elements per chunk: the widest of 16/8/4 bytes whose elements are
/// contiguous and aligned in shared memory for every chunk (checked by
/// enumeration), or 0.
static int64_t chunkElements(const SharedLayout &slice, Value prefix,
                             int64_t prefixAlign, unsigned bits) {
  ArrayRef<int64_t> shape = slice.shape();
  int64_t numElements = elementCount(shape);
  for (int64_t bytes : {16, 8, 4}) {
    if ((bytes * 8) % bits)
      continue;
    int64_t v = bytes * 8 / bits;
    if (shape.back() % v || (prefix && prefixAlign % v))
      continue;
    bool ok = true;
    for (int64_t e = 0; ok && e < numElements; e += v) {
      SmallVector<int64_t, 4> c(shape.size());
      int64_t rest = e;
      for (int d = int(shape.size()) - 1; d >= 0; --d) {
        c[d] = rest % shape[d];
        rest /= shape[d];
      }
      int64_t o0 = slice.offset(c);
      if (o0 % v)
        ok = false;
      for (int64_t k = 1; ok && k < v; ++k) {
        c.back() += 1;
        if (slice.offset(c) != o0 + k)
          ok = false;
      }
    }
    if (ok)
      return v;
  }
  return 0;
}

namespace {
/// How a copy_async of whole elements splits into chunks.
struct ChunkPlan {
  const ViewValue *view;
  const SharedValue *shared;
  const SharedLayout *slice;
  Value prefix;
  int64_t prefixAlign;
  SmallVector<Value, 4> srcOff;
  int64_t vec, chunkBytes, numChunks, threads;
  /// Chunks go through cp.async (else one load and one store).
  bool async;
  /// Chunk aligned in global memory when inside the view (chunkAligned).
  Value aligned;
  /// Rows between a thread's chunk i and chunk i + 1 (2-D tiles whose rows
  /// hold a divisor of the threads' chunks), else 0.
  int64_t rowStep = 0;
  /// The dimension rows step along: the tile's next-to-last (the ones
  /// before it have extent 1).
  unsigned rowDim = 0;
  /// The shared address of chunk i is chunk 0's plus a constant.
  bool dstSteps = false;
};
/// Registers of a thread's chunk 0 that later chunks step from.
struct ChunkBase {
  Value dst, rowPtr;
};
} // namespace

/// Tile coordinate of the first element of `chunk` (row-major, the last
/// dimension in units of vec).
static SmallVector<Value, 4> chunkCoord(KernelLowering &kl, Location loc,
                                        const ChunkPlan &p, Value chunk) {
  OpBuilder &b = kl.builder();
  ArrayRef<int64_t> shape = p.slice->shape();
  unsigned rank = shape.size();
  SmallVector<Value, 4> coord(rank);
  Value rest = chunk;
  for (int d = int(rank) - 1; d >= 0; --d) {
    bool lastDim = d == int(rank) - 1;
    int64_t extent = lastDim ? shape.back() / p.vec : shape[d];
    Value digit =
        d == 0
            ? rest
            : arith::RemUIOp::create(b, loc, rest, kl.i32(extent)).getResult();
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, kl.i32(extent));
    coord[d] =
        lastDim
            ? arith::MulIOp::create(b, loc, digit, kl.i32(p.vec)).getResult()
            : digit;
  }
  return coord;
}

/// The shared address of the chunk at tile coordinate `coord`: with row
/// stepping and `iter` > 0, chunk 0's address `dst0` plus a constant where
/// the swizzle allows.
static Value chunkDst(KernelLowering &kl, Location loc, const ChunkPlan &p,
                      ArrayRef<Value> coord, int64_t iter, Value dst0) {
  OpBuilder &b = kl.builder();
  const SharedLayout &slice = *p.slice;
  unsigned bits = tile::getElementBitWidth(p.view->elementType);
  if (iter > 0 && p.dstSteps)
    return kl.gep(
        dst0, kl.i32(iter * p.rowStep * slice.strides()[p.rowDim] * bits / 8));
  Value lin = kl.i32(0);
  for (unsigned d = 0; d < coord.size(); ++d)
    lin = arith::AddIOp::create(
        b, loc, lin,
        arith::MulIOp::create(b, loc, coord[d], kl.i32(slice.strides()[d])));
  return sharedAddress(kl, loc, p.shared->ptr, p.prefix, p.prefixAlign, lin,
                       slice.swizzle(), bits);
}

/// Moves one chunk known to be inside the view and aligned: one cp.async,
/// or one vector load and store.
static void copyFullChunk(KernelLowering &kl, Location loc, const ChunkPlan &p,
                          Value dst, Value src) {
  OpBuilder &b = kl.builder();
  const ViewValue &view = *p.view;
  unsigned bits = tile::getElementBitWidth(view.elementType);
  if (p.async) {
    kl.target().asyncCopy(b, loc, dst, src, p.chunkBytes, kl.i32(p.chunkBytes));
    return;
  }
  Regs r = loadGroup(b, loc, src, KernelLowering::storageType(view.elementType),
                     p.vec, bits, alignOf(p.chunkBytes));
  storeGroup(b, loc, dst, r, bits, alignOf(p.chunkBytes));
}

/// Copies a thread's chunk `iter` (chunk tid + iter * threads, or with row
/// stepping chunk 0 moved down iter * rowStep rows).
static void copyChunk(KernelLowering &kl, Location loc, const ChunkPlan &p,
                      int64_t iter, Value tid, ChunkBase &base) {
  OpBuilder &b = kl.builder();
  const ViewValue &view = *p.view;
  unsigned rank = view.dims.size();
  unsigned bits = tile::getElementBitWidth(view.elementType);
  OpBuilder::InsertionGuard guard(b);
  Value chunk =
      chunkOfThread(kl, loc, tid, iter * p.threads, p.threads, p.numChunks);
  bool stepped = p.rowStep && iter > 0;
  SmallVector<Value, 4> coord = chunkCoord(kl, loc, p, stepped ? tid : chunk);
  if (stepped)
    coord[p.rowDim] = arith::AddIOp::create(b, loc, coord[p.rowDim],
                                            kl.i32(iter * p.rowStep));
  Value dst = chunkDst(kl, loc, p, coord, stepped ? iter : 0, base.dst);
  // Global coordinates and bounds. With the copy aligned, the last
  // coordinate is a multiple of vec, so one unsigned compare of its last
  // element bounds it on both sides.
  SmallVector<Value, 4> g;
  for (unsigned d = 0; d < rank; ++d)
    g.push_back(arith::AddIOp::create(b, loc, p.srcOff[d], coord[d]));
  Value rowsOk = rowsInside(kl, loc, view, g);
  Value lastOk = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult,
      arith::AddIOp::create(b, loc, g.back(), kl.i32(p.vec - 1)),
      view.dims.back());
  Value full = arith::AndIOp::create(
      b, loc, rowsOk, arith::AndIOp::create(b, loc, p.aligned, lastOk));
  // Fast path: the rows' part of the address does not change along the
  // last dimension (hoisted out of loops over it), the last coordinate adds
  // its bytes (exact when aligned: a multiple of vec).
  Value rowIndex = linearIndexNSW(b, loc, view, ArrayRef<Value>(g).drop_back());
  Value rowPtr;
  if (stepped)
    rowPtr = kl.gep(
        base.rowPtr,
        alignedBytes(b, loc,
                     arith::MulIOp::create(b, loc, view.strides[p.rowDim],
                                           kl.i64(iter * p.rowStep),
                                           arith::IntegerOverflowFlags::nsw),
                     bits));
  else
    rowPtr = kl.gep(view.ptr, alignedBytes(b, loc, rowIndex, bits));
  if (iter == 0)
    base = {dst, rowPtr};
  auto ifOp = scf::IfOp::create(b, loc, full, /*withElse=*/true);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value src = kl.gep(
      rowPtr, arith::ExtSIOp::create(b, loc, b.getI64Type(),
                                     alignedBytes(b, loc, g.back(), bits)));
  copyFullChunk(kl, loc, p, dst, src);
  // Edge, misaligned or strided chunk: element by element.
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  Value index = arith::AddIOp::create(
      b, loc, rowIndex,
      arith::MulIOp::create(
          b, loc, arith::ExtSIOp::create(b, loc, b.getI64Type(), g.back()),
          view.strides.back()));
  copyEdgeRun(kl, loc, view, index, g.back(), rowsOk, dst, p.vec, p.chunkBytes);
}

/// Fills a chunk with zeros: a cp.async that reads nothing (src-size 0,
/// from the view's base, a valid address), or one store.
static void copyZeroChunk(KernelLowering &kl, Location loc, const ChunkPlan &p,
                          Value dst) {
  OpBuilder &b = kl.builder();
  if (p.async) {
    kl.target().asyncCopy(b, loc, dst, p.view->ptr, p.chunkBytes, kl.i32(0));
    return;
  }
  Type word = b.getIntegerType(8 * std::min<int64_t>(p.chunkBytes, 4));
  Type type =
      p.chunkBytes > 4 ? Type(VectorType::get({p.chunkBytes / 4}, word)) : word;
  LLVM::StoreOp::create(b, loc, LLVM::ZeroOp::create(b, loc, type), dst,
                        alignOf(p.chunkBytes));
}

/// A thread's `rounds` chunks of a row-stepped copy whose column is inside
/// the view and aligned, from chunk 0 (tile coordinate `coord`, global `g`):
/// one cp.async each from chunk 0's addresses plus constants (shared
/// memory) and multiples of the row step (global). With `rowsLeft` (the
/// view's rows from chunk 0's on, maybe <= 0), chunks past them are zeros.
static void copyRowSteps(KernelLowering &kl, Location loc, const ChunkPlan &p,
                         int64_t rounds, ArrayRef<Value> coord,
                         ArrayRef<Value> g, Value rowsLeft) {
  OpBuilder &b = kl.builder();
  const ViewValue &view = *p.view;
  unsigned bits = tile::getElementBitWidth(view.elementType);
  Value dst0 = chunkDst(kl, loc, p, coord, 0, Value());
  Value rowPtr = kl.gep(
      view.ptr,
      alignedBytes(b, loc, linearIndexNSW(b, loc, view, g.drop_back()), bits));
  Value src0 = kl.gep(
      rowPtr, arith::ExtSIOp::create(b, loc, b.getI64Type(),
                                     alignedBytes(b, loc, g.back(), bits)));
  // One row step in bytes (rows inside the view: no wrap).
  Value stepBytes = alignedBytes(
      b, loc,
      arith::MulIOp::create(b, loc, view.strides[p.rowDim], kl.i64(p.rowStep),
                            arith::IntegerOverflowFlags::nsw),
      bits);
  for (int64_t i = 0; i < rounds; ++i) {
    SmallVector<Value, 4> ci(coord.begin(), coord.end());
    if (i > 0 && !p.dstSteps)
      ci[p.rowDim] =
          arith::AddIOp::create(b, loc, ci[p.rowDim], kl.i32(i * p.rowStep));
    Value dst = chunkDst(kl, loc, p, ci, i, dst0);
    Value src = i == 0 ? src0
                       : kl.gep(src0, arith::MulIOp::create(
                                          b, loc, stepBytes, kl.i64(i),
                                          arith::IntegerOverflowFlags::nsw));
    if (!rowsLeft) {
      copyFullChunk(kl, loc, p, dst, src);
      continue;
    }
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         kl.i32(i * p.rowStep), rowsLeft);
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    copyFullChunk(kl, loc, p, dst, src);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    copyZeroChunk(kl, loc, p, dst);
  }
}

/// A thread's `rounds` chunks of a row-stepped copy (every round full)
/// behind one branch: when the chunks' first and last rows are inside the
/// view, their column is, and the view is aligned, every chunk is one
/// cp.async (copyRowSteps; no per-chunk bounds or branches on this path).
/// Otherwise, when only rows past the view's end are missing (the padding
/// rows of a decode GEMM's M < 16 tile, the last K tile of a weight), the
/// same with those chunks zero-filled; else each chunk takes its own
/// checks (copyChunk).
static void copySteppedChunks(KernelLowering &kl, Location loc,
                              const ChunkPlan &p, int64_t rounds, Value tid) {
  OpBuilder &b = kl.builder();
  const ViewValue &view = *p.view;
  unsigned rank = view.dims.size();
  SmallVector<Value, 4> coord = chunkCoord(kl, loc, p, tid);
  SmallVector<Value, 4> g;
  for (unsigned d = 0; d < rank; ++d)
    g.push_back(arith::AddIOp::create(b, loc, p.srcOff[d], coord[d]));
  auto below = [&](Value x, Value dim) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, dim);
  };
  Value row = g[p.rowDim], rows = view.dims[p.rowDim];
  Value column = arith::AndIOp::create(
      b, loc, p.aligned,
      below(arith::AddIOp::create(b, loc, g.back(), kl.i32(p.vec - 1)),
            view.dims.back()));
  Value lastRow =
      arith::AddIOp::create(b, loc, row, kl.i32((rounds - 1) * p.rowStep));
  Value all = arith::AndIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, rowsInside(kl, loc, view, g),
                            below(lastRow, rows)),
      column);
  auto ifAll = scf::IfOp::create(b, loc, all, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifAll.getThenRegion().front());
  copyRowSteps(kl, loc, p, rounds, coord, g, Value());

  b.setInsertionPointToStart(&ifAll.getElseRegion().front());
  // Rows before chunk 0's inside the view (leading ones and row >= 0).
  Value lead =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row, kl.i32(0));
  for (unsigned d = 0; d < p.rowDim; ++d)
    lead = arith::AndIOp::create(b, loc, lead, below(g[d], view.dims[d]));
  auto ifTail = scf::IfOp::create(
      b, loc, arith::AndIOp::create(b, loc, lead, column), /*withElse=*/true);
  b.setInsertionPointToStart(&ifTail.getThenRegion().front());
  copyRowSteps(kl, loc, p, rounds, coord, g,
               arith::SubIOp::create(b, loc, rows, row));
  b.setInsertionPointToStart(&ifTail.getElseRegion().front());
  ChunkBase base;
  for (int64_t i = 0; i < rounds; ++i)
    copyChunk(kl, loc, p, i, tid, base);
}

LogicalResult KernelLowering::lowerCopyAsync(tile::CopyAsyncOp op) {
  ViewValue *view = lookupView(op.getSrc());
  SharedValue *s = lookupShared(op.getDst());
  if (!view || !s)
    return op.emitOpError("source view or destination buffer not lowered");
  unsigned rank = view->dims.size();
  unsigned bits = tile::getElementBitWidth(view->elementType);
  SmallVector<Value> idx;
  for (Value v : op.getDstIndices())
    idx.push_back(values[v][0]);
  ChunkPlan p;
  SharedLayout slice;
  // A copy fills the buffer's trailing dimensions (tile.copy_async).
  if (failed(sliceOf(*this, op, *s, op.getDstIndices(), idx,
                     s->type.getShape().take_back(rank), slice, p.prefix,
                     p.prefixAlign)))
    return failure();
  p.view = view;
  p.shared = s;
  p.slice = &slice;
  p.threads =
      kernel->getAttrOfType<IntegerAttr>("tile.warps").getInt() * warpSize();
  p.vec = chunkElements(slice, p.prefix, p.prefixAlign, bits);
  // Rows narrower than the smallest cp.async (4 bytes) of whole-byte
  // elements: a synchronous copy, element by element.
  bool synchronous = false;
  if (p.vec == 0) {
    int64_t rawBytes = rawChunkBytes(slice, p.prefix, p.prefixAlign, bits);
    if (rawBytes == 0 && bits % 8)
      return op.emitOpError(
          "the shared layout of the destination has no 4-byte contiguous "
          "runs (neither of whole elements nor of packed rows); cannot copy");
    if (rawBytes != 0)
      return lowerRawCopy(*this, op, *view, *s, slice, p.prefix, rawBytes, tid,
                          p.threads);
    p.vec = 1;
    synchronous = true;
  }
  p.chunkBytes = p.vec * bits / 8;
  p.numChunks = elementCount(slice.shape()) / p.vec;
  for (Value o : op.getSrcOffsets())
    p.srcOff.push_back(values[o][0]);
  p.async = tl.hasAsyncCopy() && !synchronous;
  p.aligned =
      chunkAligned(b, op.getLoc(), *view, p.srcOff.back(), p.vec, p.chunkBytes);

  // A thread's chunks step by whole rows when the tile is 2-D (extents 1
  // before its last two dimensions) and its rows hold a divisor of the
  // threads' chunks: chunk i sits `rowStep` rows below chunk
  // 0, at the same column. Its shared address is then chunk 0's plus a
  // constant when the step is a multiple of the swizzle's span, and its
  // global row address chunk 0's plus a stride multiple: one set of
  // registers serves every chunk (per-chunk addresses, hoisted out of the
  // loop, put gemm_f16 and attention into spills).
  int64_t perRow = slice.shape().back() / p.vec;
  ArrayRef<int64_t> shape = slice.shape();
  bool rows2D = rank >= 2 && llvm::all_of(shape.drop_back(2),
                                          [](int64_t e) { return e == 1; });
  if (rows2D && p.threads % perRow == 0) {
    p.rowStep = p.threads / perRow;
    p.rowDim = rank - 2;
  }
  const ::tile::layout::Swizzle &swz = slice.swizzle();
  int64_t span =
      swz.isIdentity() ? 1 : int64_t(1) << (swz.base + swz.shift + swz.bits);
  int64_t dstStep = p.rowStep * slice.strides()[p.rowDim];
  p.dstSteps = p.rowStep && dstStep % span == 0 && (dstStep * bits) % 8 == 0;

  int64_t rounds = p.numChunks / p.threads;
  if (p.rowStep && rounds > 1 && p.numChunks % p.threads == 0) {
    copySteppedChunks(*this, op.getLoc(), p, rounds, tid);
  } else {
    ChunkBase base;
    for (int64_t iter = 0; iter * p.threads < p.numChunks; ++iter)
      copyChunk(*this, op.getLoc(), p, iter, tid, base);
  }
  // A synchronous copy still commits its (empty) group: wait(n) counts the
  // copy_async ops issued.
  if (tl.hasAsyncCopy())
    tl.asyncCommitGroup(b, op.getLoc());
  return success();
}

void populateCopyPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerCopyAsync);
}

} // namespace tile::gpu
