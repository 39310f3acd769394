//===- LowerCopy.cpp - tile.copy_async: global tiles into shared memory ---===//
//
// Part of tilec. tile.copy_async for the generic GPU lowering: the threads
// of a program split a global tile into chunks of 16, 8 or 4 bytes, and each
// chunk is one cp.async (or one vector load and store on targets without
// asynchronous copies) when it lies inside the view on an aligned address;
// otherwise (an edge of the view, a misaligned or strided view) it is
// assembled element by element in a loop kept out of the fast path. Rows of
// 3-, 5-, 6- and 7-bit elements, whose chunks split elements, move in runs
// of whole elements that fill whole chunks (chunkShape), several cp.async
// per run.
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
// Chunks of whole elements
//===----------------------------------------------------------------------===//

/// The bits of element k of an edge run (linear index `index`, last
/// coordinate `col` in the view) when col + k is inside the view's last
/// dimension (unsigned compare), else 0.
static Value runElementIf(KernelLowering &kl, Location loc,
                          const ViewValue &view, Value index, Value col,
                          Value k) {
  OpBuilder &b = kl.builder();
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       arith::AddIOp::create(b, loc, col, k),
                                       view.dims.back());
  return elementBitsIf(b, loc, view, inside, [&] {
    return arith::AddIOp::create(
               b, loc, index,
               arith::MulIOp::create(
                   b, loc, arith::ExtSIOp::create(b, loc, b.getI64Type(), k),
                   view.strides.back()))
        .getResult();
  });
}

/// The annotation of a loop LLVM must not unroll.
static LLVM::LoopAnnotationAttr noUnrollAnnotation(MLIRContext *ctx) {
  return LLVM::LoopAnnotationAttr::get(
      ctx, {}, {}, {},
      LLVM::LoopUnrollAttr::get(ctx, BoolAttr::get(ctx, true), {}, {}, {}, {},
                                {}, {}),
      {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
}

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
  // speculated by ptxas into the fast path: bounding the loop by the view's
  // last column too cost the packed decode GEMMs 10-17 instructions per
  // iteration and a spill, 2026-11-26.)
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
  Value elem = runElementIf(kl, loc, view, index, col, k);
  Value placed = arith::ShLIOp::create(
      b, loc, toWide(elem),
      toWide(arith::MulIOp::create(b, loc, k, kl.i32(bits))));
  auto noUnroll = noUnrollAnnotation(ctx);
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

/// Whether every run of `v` consecutive elements of the tile's rows (v
/// dividing the last extent) is contiguous in `slice` and starts at an
/// offset that is a multiple of v (checked by enumeration).
static bool runsContiguous(const SharedLayout &slice, int64_t v) {
  ArrayRef<int64_t> shape = slice.shape();
  int64_t numElements = elementCount(shape);
  for (int64_t e = 0; e < numElements; e += v) {
    SmallVector<int64_t, 4> c(shape.size());
    int64_t rest = e;
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      c[d] = rest % shape[d];
      rest /= shape[d];
    }
    int64_t o0 = slice.offset(c);
    if (o0 % v)
      return false;
    for (int64_t k = 1; k < v; ++k) {
      c.back() += 1;
      if (slice.offset(c) != o0 + k)
        return false;
    }
  }
  return true;
}

namespace {
/// The unit of a copy: runs of `vec` elements, each `parts` chunks of
/// `chunkBytes` (one cp.async each); vec = 0 when there is none.
struct ChunkShape {
  int64_t vec = 0, chunkBytes = 0, parts = 1;
};
} // namespace

/// The widest of 16/8/4-byte chunks of whole elements that are contiguous
/// and aligned in shared memory for every chunk. For 3-, 5-, 6- and 7-bit
/// elements, whose chunks split elements: runs of the fewest whole elements
/// that fill whole chunks (16-byte chunks: 128 elements of 3, 5 or 7 bits
/// in 3, 5 or 7 chunks, 64 of 6 bits in 3), so that rows of such runs copy
/// like whole elements (bounds and alignment per run, hoisted where they
/// can be) instead of as raw bit streams.
static ChunkShape chunkShape(const SharedLayout &slice, Value prefix,
                             int64_t prefixAlign, unsigned bits) {
  int64_t last = slice.shape().back();
  auto fits = [&](int64_t v) {
    return last % v == 0 && !(prefix && prefixAlign % v) &&
           runsContiguous(slice, v);
  };
  for (int64_t bytes : {16, 8, 4})
    if ((bytes * 8) % bits == 0 && fits(bytes * 8 / bits))
      return {bytes * 8 / bits, bytes, 1};
  if (bits >= 8)
    return {};
  for (int64_t bytes : {16, 8, 4}) {
    int64_t chunkBits = bytes * 8;
    int64_t v = chunkBits / std::gcd(chunkBits, int64_t(bits));
    if (fits(v))
      return {v, bytes, v * bits / chunkBits};
  }
  return {};
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
  /// Runs of vec elements, each `parts` chunks of chunkBytes; numChunks
  /// counts runs.
  int64_t vec, chunkBytes, numChunks, threads, parts = 1;
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
  /// The shared address of chunk i is chunk 0's plus i * dstStep elements.
  bool dstSteps = false;
  int64_t dstStep = 0;
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

/// The element distance between a thread's consecutive chunks, `rowStep`
/// rows apart, when the slice's swizzle maps it to the same distance for
/// every thread and chunk (checked on all of them): a column blocking
/// (SharedLayout.h) moves whole rows as one even though its span is the
/// whole tile. The caller adds any prefix after the swizzle.
static std::optional<int64_t>
steppedDistance(const SharedLayout &slice, const ChunkPlan &p, int64_t perRow) {
  ArrayRef<int64_t> shape = slice.shape();
  int64_t rows = shape[p.rowDim];
  SmallVector<int64_t, 4> c0(shape.size(), 0), ci(shape.size(), 0);
  std::optional<int64_t> step;
  for (int64_t t = 0; t < p.threads; ++t) {
    c0[p.rowDim] = t / perRow;
    c0.back() = (t % perRow) * p.vec;
    if (c0[p.rowDim] >= rows)
      continue;
    ci = c0;
    int64_t o0 = slice.offset(c0);
    for (int64_t i = 1; c0[p.rowDim] + i * p.rowStep < rows; ++i) {
      ci[p.rowDim] = c0[p.rowDim] + i * p.rowStep;
      int64_t d = slice.offset(ci) - o0;
      if (!step && i == 1)
        step = d;
      if (!step || d != i * *step)
        return std::nullopt;
    }
  }
  return step;
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
    return kl.gep(dst0, kl.i32(iter * p.dstStep * bits / 8));
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
  for (int64_t i = 0; i < p.parts; ++i) {
    Value d = i ? kl.gep(dst, kl.i32(i * p.chunkBytes)) : dst;
    Value s = i ? kl.gep(src, kl.i64(i * p.chunkBytes)) : src;
    if (p.async) {
      kl.target().asyncCopy(b, loc, d, s, p.chunkBytes, kl.i32(p.chunkBytes));
    } else if (p.parts > 1) {
      // Chunks that split elements: raw words.
      Type words =
          p.chunkBytes > 4
              ? Type(VectorType::get({p.chunkBytes / 4}, b.getI32Type()))
              : Type(b.getI32Type());
      Value v = LLVM::LoadOp::create(b, loc, words, s, alignOf(p.chunkBytes));
      LLVM::StoreOp::create(b, loc, v, d, alignOf(p.chunkBytes));
    } else {
      Regs r =
          loadGroup(b, loc, s, KernelLowering::storageType(view.elementType),
                    p.vec, bits, alignOf(p.chunkBytes));
      storeGroup(b, loc, d, r, bits, alignOf(p.chunkBytes));
    }
  }
}

/// The edge run of a copy whose runs are several chunks (packed 3-, 5-, 6-
/// and 7-bit rows, where a chunk splits elements): the run's shared bytes
/// are zeroed, then each of its elements inside the view (rowsOk and
/// col + k < dim) is or-ed in at bit k * bits, into one 32-bit word or two
/// when it straddles them. The thread owns the whole run, so nothing else
/// writes those words. The elements are a loop LLVM does not unroll, as in
/// copyEdgeRun.
static void copyEdgeRunWords(KernelLowering &kl, Location loc,
                             const ChunkPlan &p, Value index, Value col,
                             Value rowsOk, Value dst) {
  OpBuilder &b = kl.builder();
  MLIRContext *ctx = b.getContext();
  const ViewValue &view = *p.view;
  unsigned bits = tile::getElementBitWidth(view.elementType);
  Type i32 = b.getI32Type();
  // Plain stores (a zero-filling cp.async could land after the words below).
  auto zeros = LLVM::ZeroOp::create(
      b, loc,
      p.chunkBytes > 4 ? Type(VectorType::get({p.chunkBytes / 4}, i32)) : i32);
  for (int64_t i = 0; i < p.parts; ++i)
    LLVM::StoreOp::create(b, loc, zeros,
                          i ? kl.gep(dst, kl.i32(i * p.chunkBytes)) : dst,
                          alignOf(p.chunkBytes));
  auto run = scf::ExecuteRegionOp::create(b, loc, TypeRange{});
  OpBuilder::InsertionGuard guard(b);
  Region &region = run.getRegion();
  Block *entry = b.createBlock(&region);
  Block *header = b.createBlock(&region, region.end(), {i32}, {loc});
  Block *body = b.createBlock(&region, region.end());
  Block *exit = b.createBlock(&region, region.end());
  b.setInsertionPointToEnd(entry);
  Value hi = arith::SelectOp::create(b, loc, rowsOk, kl.i32(p.vec), kl.i32(0));
  LLVM::BrOp::create(b, loc, ValueRange{kl.i32(0)}, header);
  b.setInsertionPointToEnd(header);
  Value k = header->getArgument(0);
  LLVM::CondBrOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k, hi),
      body, exit);

  b.setInsertionPointToEnd(body);
  Value elem = runElementIf(kl, loc, view, index, col, k);
  Value e = arith::ExtUIOp::create(b, loc, i32, elem);
  Value at = arith::MulIOp::create(b, loc, k, kl.i32(bits));
  Value sh = arith::AndIOp::create(b, loc, at, kl.i32(31));
  Value word =
      kl.gep(dst, arith::ShLIOp::create(
                      b, loc, arith::ShRUIOp::create(b, loc, at, kl.i32(5)),
                      kl.i32(2)));
  auto orInto = [&](Value ptr, Value v) {
    Value old = LLVM::LoadOp::create(b, loc, i32, ptr, 4);
    LLVM::StoreOp::create(b, loc, arith::OrIOp::create(b, loc, old, v), ptr, 4);
  };
  orInto(word, arith::ShLIOp::create(b, loc, e, sh));
  Value straddles = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ugt,
      arith::AddIOp::create(b, loc, sh, kl.i32(bits)), kl.i32(32));
  auto spill = scf::IfOp::create(b, loc, straddles, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&spill.getThenRegion().front());
    orInto(kl.gep(word, kl.i32(4)),
           arith::ShRUIOp::create(
               b, loc, e, arith::SubIOp::create(b, loc, kl.i32(32), sh)));
  }
  auto noUnroll = noUnrollAnnotation(ctx);
  LLVM::BrOp::create(b, loc,
                     ValueRange{arith::AddIOp::create(b, loc, k, kl.i32(1))},
                     noUnroll, header);
  b.setInsertionPointToEnd(exit);
  scf::YieldOp::create(b, loc);
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
  if (p.parts > 1)
    copyEdgeRunWords(kl, loc, p, index, g.back(), rowsOk, dst);
  else
    copyEdgeRun(kl, loc, view, index, g.back(), rowsOk, dst, p.vec,
                p.chunkBytes);
}

/// Fills a chunk with zeros: a cp.async that reads nothing (src-size 0,
/// from the view's base, a valid address), or one store.
static void copyZeroChunk(KernelLowering &kl, Location loc, const ChunkPlan &p,
                          Value dst) {
  OpBuilder &b = kl.builder();
  for (int64_t i = 0; i < p.parts; ++i) {
    Value d = i ? kl.gep(dst, kl.i32(i * p.chunkBytes)) : dst;
    if (p.async) {
      kl.target().asyncCopy(b, loc, d, p.view->ptr, p.chunkBytes, kl.i32(0));
      continue;
    }
    Type word = b.getIntegerType(8 * std::min<int64_t>(p.chunkBytes, 4));
    Type type = p.chunkBytes > 4
                    ? Type(VectorType::get({p.chunkBytes / 4}, word))
                    : word;
    LLVM::StoreOp::create(b, loc, LLVM::ZeroOp::create(b, loc, type), d,
                          alignOf(p.chunkBytes));
  }
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

/// The shared-memory distance, in elements, between a thread's split
/// chunks of consecutive rounds (copySplitRuns: thread t's first chunk in
/// row t / perRow, run (t % perRow) / parts, `rowStep` rows per round) when
/// the slice maps it to the same distance for every thread and round.
static std::optional<int64_t> splitDistance(const SharedLayout &slice,
                                            const ChunkPlan &p, int64_t active,
                                            int64_t perRow) {
  ArrayRef<int64_t> shape = slice.shape();
  int64_t rows = shape[p.rowDim];
  SmallVector<int64_t, 4> c(shape.size(), 0);
  std::optional<int64_t> step;
  for (int64_t t = 0; t < active; t += p.parts) {
    int64_t r0 = t / perRow, col = (t % perRow) / p.parts * p.vec;
    c[p.rowDim] = r0;
    c.back() = col;
    int64_t o0 = slice.offset(c);
    for (int64_t i = 1; r0 + i * p.rowStep < rows; ++i) {
      c[p.rowDim] = r0 + i * p.rowStep;
      int64_t d = slice.offset(c) - o0;
      if (!step)
        step = d;
      if (d != i * *step)
        return std::nullopt;
    }
  }
  return step;
}

/// Copies a tile of packed 3-, 5-, 6- or 7-bit rows (runs of `parts`
/// chunks) that lies wholly inside the view, aligned, with the runs' chunks
/// spread over consecutive threads: thread t < active (the largest multiple
/// of a row's chunks, perRow, within the threads) takes chunk t % perRow of
/// row t / perRow, then the same chunk rowStep = threads / perRow rows
/// further down each round. A warp's cp.async then covers 512 consecutive
/// bytes of a few rows, not one 16-byte piece of 32 rows (32 shared-memory
/// wavefronts per LDGSTS on an H200 for u5, session 28), and every chunk's
/// addresses are the first one's plus constants (shared memory, where the
/// layout allows) and multiples of the row stride (global memory).
static void copySplitRuns(KernelLowering &kl, Location loc, const ChunkPlan &p,
                          Value tid) {
  OpBuilder &b = kl.builder();
  const ViewValue &view = *p.view;
  unsigned bits = tile::getElementBitWidth(view.elementType);
  ArrayRef<int64_t> shape = p.slice->shape();
  int64_t rows = shape[p.rowDim];
  int64_t perRow = shape.back() / p.vec * p.parts;
  int64_t active = p.threads / perRow * perRow;
  OpBuilder::InsertionGuard guard(b);
  if (active < p.threads) {
    auto live = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                              kl.i32(active)),
        /*withElse=*/false);
    b.setInsertionPointToStart(&live.getThenRegion().front());
  }
  Value row0 = arith::DivUIOp::create(b, loc, tid, kl.i32(perRow));
  Value inRow = arith::RemUIOp::create(b, loc, tid, kl.i32(perRow));
  Value part = arith::RemUIOp::create(b, loc, inRow, kl.i32(p.parts));
  SmallVector<Value, 4> coord(shape.size(), kl.i32(0));
  coord[p.rowDim] = row0;
  coord.back() = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, inRow, kl.i32(p.parts)),
      kl.i32(p.vec));
  Value partBytes = arith::MulIOp::create(b, loc, part, kl.i32(p.chunkBytes));
  // A constant distance on the slice holds for the buffer when it is a
  // whole number of swizzle periods, or when the prefix (the ring's stage)
  // is added after the swizzle (sharedAddress); and in whole bytes.
  std::optional<int64_t> step = splitDistance(*p.slice, p, active, perRow);
  int64_t span = p.slice->swizzle().span();
  bool prefixAfter = !p.prefix || (p.prefixAlign % span == 0 &&
                                   (p.prefixAlign * bits) % 8 == 0);
  if (step && ((*step % span && !prefixAfter) || (*step * bits) % 8))
    step.reset();
  SmallVector<Value, 4> g;
  for (unsigned d = 0; d < coord.size(); ++d)
    g.push_back(arith::AddIOp::create(b, loc, p.srcOff[d], coord[d]));
  Value rowPtr = kl.gep(
      view.ptr,
      alignedBytes(b, loc,
                   linearIndexNSW(b, loc, view, ArrayRef<Value>(g).drop_back()),
                   bits));
  Value src0 =
      kl.gep(rowPtr,
             arith::ExtSIOp::create(
                 b, loc, b.getI64Type(),
                 arith::AddIOp::create(
                     b, loc, alignedBytes(b, loc, g.back(), bits), partBytes)));
  Value stepBytes = alignedBytes(
      b, loc,
      arith::MulIOp::create(b, loc, view.strides[p.rowDim], kl.i64(p.rowStep),
                            arith::IntegerOverflowFlags::nsw),
      bits);
  Value dst0 = kl.gep(chunkDst(kl, loc, p, coord, 0, Value()), partBytes);
  for (int64_t i = 0; i * p.rowStep < rows; ++i) {
    OpBuilder::InsertionGuard roundGuard(b);
    // Rows of this round past the tile's end: only threads whose first row
    // is above rows - i * rowStep take part.
    if ((i + 1) * p.rowStep > rows) {
      auto inside = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row0,
                                kl.i32(rows - i * p.rowStep)),
          /*withElse=*/false);
      b.setInsertionPointToStart(&inside.getThenRegion().front());
    }
    Value dst = dst0;
    if (i > 0 && step) {
      dst = kl.gep(dst0, kl.i32(i * *step * bits / 8));
    } else if (i > 0) {
      SmallVector<Value, 4> ci(coord.begin(), coord.end());
      ci[p.rowDim] = arith::AddIOp::create(b, loc, row0, kl.i32(i * p.rowStep));
      dst = kl.gep(chunkDst(kl, loc, p, ci, 0, Value()), partBytes);
    }
    Value src = i == 0 ? src0
                       : kl.gep(src0, arith::MulIOp::create(
                                          b, loc, stepBytes, kl.i64(i),
                                          arith::IntegerOverflowFlags::nsw));
    kl.target().asyncCopy(b, loc, dst, src, p.chunkBytes, kl.i32(p.chunkBytes));
  }
}

/// i1: the whole tile (every row and column the copy reads) is inside the
/// view and its runs are aligned.
static Value tileInside(KernelLowering &kl, Location loc, const ChunkPlan &p) {
  OpBuilder &b = kl.builder();
  const ViewValue &view = *p.view;
  ArrayRef<int64_t> shape = p.slice->shape();
  Value ok = p.aligned;
  for (unsigned d = 0; d < shape.size(); ++d) {
    Value first = p.srcOff[d];
    Value last = arith::AddIOp::create(b, loc, first, kl.i32(shape[d] - 1));
    for (Value x : {first, last})
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                view.dims[d]));
  }
  return ok;
}

LogicalResult KernelLowering::lowerCopyAsync(tile::CopyAsyncOp op) {
  if (op.isTensorCopy())
    return lowerTensorCopy(op);
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
  ChunkShape shape0 = chunkShape(slice, p.prefix, p.prefixAlign, bits);
  p.vec = shape0.vec;
  p.parts = shape0.parts;
  // Rows narrower than the smallest cp.async (4 bytes) of whole-byte
  // elements: a synchronous copy, element by element.
  bool synchronous = false;
  if (p.vec == 0) {
    if (bits % 8)
      return op.emitOpError(
          "the shared layout of the destination has no 4-byte contiguous "
          "runs (neither of whole elements nor of packed rows); cannot copy");
    p.vec = 1;
    synchronous = true;
  }
  p.chunkBytes = p.vec * bits / 8 / p.parts;
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
  int64_t span = slice.swizzle().span();
  int64_t dstStep = p.rowStep * slice.strides()[p.rowDim];
  p.dstSteps = p.rowStep && dstStep % span == 0;
  if (p.rowStep && !p.dstSteps &&
      (!p.prefix ||
       (p.prefixAlign % span == 0 && (p.prefixAlign * bits) % 8 == 0))) {
    if (std::optional<int64_t> d = steppedDistance(slice, p, perRow)) {
      dstStep = *d;
      p.dstSteps = true;
    }
  }
  p.dstSteps &= (dstStep * bits) % 8 == 0;
  p.dstStep = dstStep;

  // A copy under a false predicate moves nothing (the chunks branch away
  // as one).
  scf::IfOp predicated;
  if (Value pred = op.getPred()) {
    predicated =
        scf::IfOp::create(b, op.getLoc(), values[pred][0], /*withElse=*/false);
    b.setInsertionPointToStart(&predicated.getThenRegion().front());
  }
  int64_t rounds = p.numChunks / p.threads;
  // Packed odd-width rows: the runs' chunks spread over the threads when
  // the whole tile is inside the view (else the per-run copy below).
  int64_t chunksPerRow = perRow * p.parts;
  scf::IfOp ifInside;
  if (p.parts > 1 && p.async && rows2D && chunksPerRow <= p.threads) {
    ChunkPlan split = p;
    split.rowStep = p.threads / chunksPerRow;
    split.rowDim = rank - 2;
    ifInside =
        scf::IfOp::create(b, op.getLoc(), tileInside(*this, op.getLoc(), p),
                          /*withElse=*/true);
    b.setInsertionPointToStart(&ifInside.getThenRegion().front());
    copySplitRuns(*this, op.getLoc(), split, tid);
    b.setInsertionPointToStart(&ifInside.getElseRegion().front());
  }
  if (p.rowStep && rounds > 1 && p.numChunks % p.threads == 0) {
    copySteppedChunks(*this, op.getLoc(), p, rounds, tid);
  } else {
    ChunkBase base;
    for (int64_t iter = 0; iter * p.threads < p.numChunks; ++iter)
      copyChunk(*this, op.getLoc(), p, iter, tid, base);
  }
  if (ifInside)
    b.setInsertionPointAfter(ifInside);
  if (predicated)
    b.setInsertionPointAfter(predicated);
  // A synchronous or predicated-off copy still commits its (empty) group:
  // wait(n) counts the copy_async ops issued.
  if (tl.hasAsyncCopy())
    tl.asyncCommitGroup(b, op.getLoc());
  return success();
}

void populateCopyPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerCopyAsync);
}

} // namespace tile::gpu
