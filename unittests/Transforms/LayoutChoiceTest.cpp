//===- LayoutChoiceTest.cpp - The layouts tile-infer-layouts chooses ------===//
//
// Part of tilec. Properties of the chosen layouts checked by enumerating
// every (thread, slot): coverage, thread counts, 16-byte (in bits) vectors
// and coalescing of global accesses, and for dots that every warp holds the
// A rows and B columns of the accumulator elements it owns, in a layout that
// divides by the matrix instruction's atom.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/LayoutChoice.h"
#include "tile/Layout/MmaAtoms.h"

#include "tile/Target/TargetInfo.h"

#include "gtest/gtest.h"

#include <array>
#include <map>
#include <set>

using namespace tile;
using namespace tile::layout;

namespace {

TEST(LayoutChoice, VectorWidthCountsBits) {
  // 16 bytes for power-of-two widths; other widths round up to whole
  // 32-bit registers (u3: 64 x 3 = 192 bits).
  EXPECT_EQ(coalescedVectorWidth(16, 1024), 8);
  EXPECT_EQ(coalescedVectorWidth(32, 1024), 4);
  EXPECT_EQ(coalescedVectorWidth(8, 1024), 16);
  EXPECT_EQ(coalescedVectorWidth(4, 1024), 32);
  EXPECT_EQ(coalescedVectorWidth(1, 1024), 128);
  EXPECT_EQ(coalescedVectorWidth(3, 1024), 64);
  EXPECT_EQ(coalescedVectorWidth(5, 1024), 32);
  EXPECT_EQ(coalescedVectorWidth(6, 1024), 32);
  EXPECT_EQ(coalescedVectorWidth(7, 1024), 32);
  for (unsigned bits = 1; bits <= 32; ++bits) {
    int64_t v = coalescedVectorWidth(bits, 1 << 12);
    EXPECT_GE(v * bits, 128u) << bits;
    EXPECT_EQ(v * bits % 32, 0u) << bits;
    // The next smaller power of two fails one of the two conditions.
    EXPECT_TRUE(v / 2 * bits < 128 || v / 2 * bits % 32 != 0) << bits;
  }
  // Short rows: the largest power of two dividing the row.
  EXPECT_EQ(coalescedVectorWidth(16, 4), 4);
  EXPECT_EQ(coalescedVectorWidth(16, 12), 4);
  EXPECT_EQ(coalescedVectorWidth(4, 48), 16);
  EXPECT_EQ(coalescedVectorWidth(16, 7), 1);
}

TEST(LayoutChoice, CoalescedLayoutsByEnumeration) {
  struct Case {
    llvm::SmallVector<int64_t, 3> shape;
    unsigned bits;
    int64_t threads;
  };
  Case cases[] = {
      {{128, 32}, 16, 128}, {{4, 1024}, 32, 128}, {{64, 128}, 4, 128},
      {{64, 128}, 3, 128},  {{64}, 32, 128},      {{2, 3, 40}, 8, 64},
      {{1, 64}, 16, 256},   {{12, 20}, 32, 96},   {{3, 64}, 9, 64},
      {{7, 5}, 16, 32},     {{16, 16}, 32, 64}};
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message() << "bits " << c.bits << " threads "
                                    << c.threads << " rank " << c.shape.size());
    DistributedLayout l = coalescedLayout(c.shape, c.bits, c.threads);
    ASSERT_EQ(l.shape(), llvm::ArrayRef<int64_t>(c.shape)) << l.str();
    ASSERT_EQ(l.numThreads(), c.threads) << l.str();
    unsigned last = c.shape.size() - 1;
    int64_t vec = coalescedVectorWidth(c.bits, c.shape[last]);
    ASSERT_EQ(l.localSize() % vec, 0) << l.str();
    std::set<llvm::SmallVector<int64_t, 4>> covered;
    std::map<int64_t, llvm::SmallVector<int64_t, 4>> firstOf;
    for (int64_t t = 0; t < l.numThreads(); ++t) {
      for (int64_t s = 0; s < l.localSize(); ++s) {
        auto coord = l.apply(t, s);
        covered.insert(coord);
        // Slots come in runs of `vec` contiguous elements of a row.
        if (s % vec != 0) {
          auto prev = l.apply(t, s - 1);
          auto expect = prev;
          expect[last] += 1;
          ASSERT_EQ(coord, expect) << l.str() << " thread " << t;
        } else {
          ASSERT_EQ(coord[last] % vec, 0) << l.str();
        }
      }
      firstOf[t] = l.apply(t, 0);
    }
    int64_t elements = 1;
    for (int64_t e : c.shape)
      elements *= e;
    ASSERT_EQ(int64_t(covered.size()), elements) << l.str();
    // Coalescing: thread t+1 starts where thread t's chunk ends, unless t
    // ends a row (or the data, for replicas). Only when the chunks of a row
    // divide among the threads: a row of 5 chunks and 96 threads is kept in
    // one thread (still vectorized).
    int64_t chunks = c.shape[last] / vec;
    bool spreads = c.threads % chunks == 0 || chunks % c.threads == 0;
    for (int64_t t = 0; spreads && t + 1 < l.numThreads(); ++t) {
      auto a = firstOf[t], b = firstOf[t + 1];
      if (a[last] + vec < c.shape[last]) {
        auto expect = a;
        expect[last] += vec;
        if (l.replication() == 1 || b != firstOf[0]) {
          EXPECT_EQ(b, expect) << l.str() << " thread " << t;
        }
      }
    }
  }
}

/// For every thread, the A rows, B columns and C elements it holds.
void checkDot(const DotLayouts &d, int64_t m, int64_t n, int64_t k,
              int64_t warps, int64_t warpSize) {
  ASSERT_EQ(d.c.shape(), llvm::ArrayRef<int64_t>({m, n}));
  ASSERT_EQ(d.a.shape(), llvm::ArrayRef<int64_t>({m, k}));
  ASSERT_EQ(d.b.shape(), llvm::ArrayRef<int64_t>({k, n}));
  int64_t threads = warps * warpSize;
  ASSERT_EQ(d.a.numThreads(), threads);
  ASSERT_EQ(d.b.numThreads(), threads);
  ASSERT_EQ(d.c.numThreads(), threads);
  // Every warp holds, for each C element it owns, the whole row of A and
  // column of B (somewhere in the warp for MMA, in the same thread for FMA).
  int64_t group = d.isMma ? warpSize : 1;
  for (int64_t g = 0; g < threads / group; ++g) {
    std::set<std::pair<int64_t, int64_t>> a, b;
    std::set<int64_t> rows, cols;
    for (int64_t t = g * group; t < (g + 1) * group; ++t) {
      for (int64_t s = 0; s < d.a.localSize(); ++s) {
        auto c = d.a.apply(t, s);
        a.insert({c[0], c[1]});
      }
      for (int64_t s = 0; s < d.b.localSize(); ++s) {
        auto c = d.b.apply(t, s);
        b.insert({c[0], c[1]});
      }
      for (int64_t s = 0; s < d.c.localSize(); ++s) {
        auto c = d.c.apply(t, s);
        rows.insert(c[0]);
        cols.insert(c[1]);
      }
    }
    for (int64_t r : rows)
      for (int64_t l = 0; l < k; ++l)
        ASSERT_TRUE(a.count({r, l}))
            << "group " << g << " lacks A(" << r << ", " << l << ")";
    for (int64_t col : cols)
      for (int64_t l = 0; l < k; ++l)
        ASSERT_TRUE(b.count({l, col}))
            << "group " << g << " lacks B(" << l << ", " << col << ")";
  }
  if (d.isMma) {
    EXPECT_TRUE(d.c.divideRight(d.atomC).has_value()) << d.c.str();
    EXPECT_TRUE(d.a.divideRight(d.atomA).has_value()) << d.a.str();
    EXPECT_TRUE(d.b.divideRight(d.atomB).has_value()) << d.b.str();
    // C covers each element once (no replicated warps unless too few
    // atoms).
    if (d.warpsM * d.warpsN == warps) {
      EXPECT_EQ(d.c.replication(), 1);
    }
  }
}

TEST(LayoutChoice, DotLayoutsNvidia) {
  TargetInfo sm90 = *TargetInfo::lookup("sm_90a");
  struct Case {
    int64_t m, n, k, warps;
    unsigned bits;
    bool isFloat, mma;
    int64_t wm, wn;
  };
  Case cases[] = {{128, 128, 32, 4, 16, true, true, 2, 2},
                  {64, 128, 16, 4, 16, true, true, 1, 4},
                  {128, 64, 64, 8, 16, true, true, 4, 2},
                  {16, 8, 16, 4, 16, true, true, 1, 1},
                  {32, 32, 64, 4, 8, false, true, 2, 2},
                  {16, 16, 8, 4, 32, true, false, 1, 1},
                  {24, 16, 16, 2, 16, true, false, 1, 1}};
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message()
                 << c.m << "x" << c.n << "x" << c.k << " warps " << c.warps);
    DotLayouts d =
        chooseDotLayouts(c.m, c.n, c.k, c.bits, c.isFloat, c.warps, sm90);
    EXPECT_EQ(d.isMma, c.mma);
    if (c.mma) {
      EXPECT_EQ(d.warpsM, c.wm);
      EXPECT_EQ(d.warpsN, c.wn);
    }
    checkDot(d, c.m, c.n, c.k, c.warps, 32);
  }
}

/// A batched dot's layouts: every warp (MMA) or thread (FMA) holds, for
/// each accumulator element (b, r, c) it owns, A(b, r, :) and B(b, :, c);
/// each group of warps along the batch owns whole products (the warps
/// holding a product's accumulator hold no other product's), and the
/// accumulator covers every element.
void checkBatchedDot(const DotLayouts &d, int64_t batch, int64_t m, int64_t n,
                     int64_t k, int64_t warps, int64_t warpSize) {
  ASSERT_EQ(d.c.shape(), llvm::ArrayRef<int64_t>({batch, m, n}));
  ASSERT_EQ(d.a.shape(), llvm::ArrayRef<int64_t>({batch, m, k}));
  ASSERT_EQ(d.b.shape(), llvm::ArrayRef<int64_t>({batch, k, n}));
  int64_t threads = warps * warpSize;
  ASSERT_EQ(d.c.numThreads(), threads);
  ASSERT_EQ(d.a.numThreads(), threads);
  ASSERT_EQ(d.b.numThreads(), threads);
  using Coord = std::array<int64_t, 3>;
  int64_t group = d.isMma ? warpSize : 1;
  std::set<Coord> covered;
  std::vector<std::set<int64_t>> productsOfWarp(warps);
  for (int64_t g = 0; g < threads / group; ++g) {
    std::set<Coord> a, b, c;
    auto collect = [&](const DistributedLayout &l, std::set<Coord> &out) {
      for (int64_t t = g * group; t < (g + 1) * group; ++t)
        for (int64_t s = 0; s < l.localSize(); ++s) {
          auto x = l.apply(t, s);
          out.insert({x[0], x[1], x[2]});
        }
    };
    collect(d.a, a);
    collect(d.b, b);
    collect(d.c, c);
    for (const Coord &e : c) {
      covered.insert(e);
      productsOfWarp[g * group / warpSize].insert(e[0]);
      for (int64_t l = 0; l < k; ++l) {
        ASSERT_TRUE(a.count({e[0], e[1], l}))
            << "group " << g << " lacks A(" << e[0] << ", " << e[1] << ", " << l
            << ")";
        ASSERT_TRUE(b.count({e[0], l, e[2]}))
            << "group " << g << " lacks B(" << e[0] << ", " << l << ", " << e[2]
            << ")";
      }
    }
  }
  EXPECT_EQ(int64_t(covered.size()), batch * m * n);
  // Warps w and w' of different batch groups hold disjoint products.
  int64_t perGroup = warps / d.warpsBatch;
  for (int64_t w = 0; w < warps; ++w)
    for (int64_t v = 0; v < warps; ++v)
      if (w / perGroup != v / perGroup)
        for (int64_t p : productsOfWarp[w])
          EXPECT_FALSE(productsOfWarp[v].count(p))
              << "warps " << w << " and " << v << " share product " << p;
}

TEST(LayoutChoice, BatchedDotLayouts) {
  TargetInfo sm90 = *TargetInfo::lookup("sm_90a");
  TargetInfo gfx942 = *TargetInfo::lookup("gfx942");
  struct Case {
    int64_t batch, m, n, k, warps;
    const TargetInfo *target;
    unsigned bits;
    bool mma;
    int64_t wb;
  };
  Case cases[] = {
      // A K split in 4 on 4 warps: one warp per slice (gemm_decode KW=4).
      {4, 32, 8, 32, 4, &sm90, 16, true, 4},
      {4, 16, 32, 16, 4, &sm90, 16, true, 4},
      // 2 slices on 4 warps: 2 warps per slice; 8 slices: 2 per warp.
      {2, 32, 32, 16, 4, &sm90, 16, true, 2},
      {8, 16, 16, 16, 4, &sm90, 16, true, 4},
      // 3 products: no warp split along the batch.
      {3, 32, 32, 16, 4, &sm90, 16, true, 1},
      // i8 m16n8k32, wave64 MFMA, and FMA (f32 operands).
      {4, 16, 16, 32, 4, &sm90, 8, true, 4},
      {4, 16, 32, 16, 4, &gfx942, 16, true, 4},
      {2, 16, 16, 8, 4, &sm90, 32, false, 2}};
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message()
                 << c.batch << "x" << c.m << "x" << c.n << "x" << c.k
                 << " warps " << c.warps << " " << c.target->name);
    DotLayouts d = chooseBatchedDotLayouts(c.batch, c.m, c.n, c.k, c.bits,
                                           c.bits != 8, c.warps, *c.target);
    EXPECT_EQ(d.isMma, c.mma);
    EXPECT_EQ(d.warpsBatch, c.wb);
    checkBatchedDot(d, c.batch, c.m, c.n, c.k, c.warps, c.target->warpSize);
  }
}

TEST(LayoutChoice, BatchedDotLayoutsBatchInThreads) {
  // Products summed over the batch in the same iteration (the scale after
  // the product of examples/gemm_decode_packed.tile, SA): the warps split
  // only M and N, as the 2-D product's layouts, and each thread holds every
  // product of its elements (a local batch mode first).
  TargetInfo sm90 = *TargetInfo::lookup("sm_90a");
  for (int64_t batch : {1, 4, 16}) {
    SCOPED_TRACE(testing::Message() << "batch " << batch);
    DotLayouts d = chooseBatchedDotLayouts(
        batch, 64, 8, 128, 16, true, 4, sm90, /*warpsAlongM=*/false,
        /*fp8MmaFormat=*/true, /*warpsAlongBatch=*/false);
    DotLayouts flat = chooseDotLayouts(64, 8, 128, 16, true, 4, sm90);
    EXPECT_TRUE(d.isMma);
    EXPECT_EQ(d.warpsBatch, 1);
    EXPECT_EQ(d.warpsM, flat.warpsM);
    EXPECT_EQ(d.warpsN, flat.warpsN);
    EXPECT_EQ(d.c, DistributedLayout::local({batch, 1, 1}) * flat.c);
    EXPECT_EQ(d.c.localSize(), batch * flat.c.localSize());
    checkBatchedDot(d, batch, 64, 8, 128, 4, 32);
  }
}

TEST(LayoutChoice, DotLayoutsAmd) {
  TargetInfo gfx942 = *TargetInfo::lookup("gfx942");
  DotLayouts big = chooseDotLayouts(128, 128, 32, 16, true, 4, gfx942);
  EXPECT_TRUE(big.isMma);
  EXPECT_EQ(big.atomC.shape(), llvm::ArrayRef<int64_t>({32, 32}));
  checkDot(big, 128, 128, 32, 4, 64);
  // 16x16x16 when 32x32 does not fit.
  DotLayouts small = chooseDotLayouts(48, 16, 16, 16, true, 4, gfx942);
  EXPECT_TRUE(small.isMma);
  EXPECT_EQ(small.atomC.shape(), llvm::ArrayRef<int64_t>({16, 16}));
  checkDot(small, 48, 16, 16, 4, 64);
}

TEST(LayoutChoice, DotLayoutsAmdInt8) {
  // i8 x i8 -> i32 (gemm_i8's defaults: 128x128x64 on 8 waves) takes the
  // v_mfma_i32_32x32x16_i8 atom on both chips (gfx950 fuses k-block pairs
  // in the lowering).
  for (const char *chip : {"gfx942", "gfx950"}) {
    TargetInfo target = *TargetInfo::lookup(chip);
    DotLayouts d = chooseDotLayouts(128, 128, 64, 8, false, 8, target);
    ASSERT_TRUE(d.isMma) << chip;
    EXPECT_EQ(d.atomA, llvm::cantFail(::tile::layout::amdMfmaInt8(
                           32, 32, 16, ::tile::layout::MmaOperand::A)))
        << chip;
    EXPECT_EQ(d.atomB, llvm::cantFail(::tile::layout::amdMfmaInt8(
                           32, 32, 16, ::tile::layout::MmaOperand::B)))
        << chip;
    checkDot(d, 128, 128, 64, 8, 64);
  }
  TargetInfo gfx942 = *TargetInfo::lookup("gfx942");
  // 16x16x32 when 32x32 does not fit; K must be a multiple of the atom's.
  DotLayouts small = chooseDotLayouts(16, 16, 32, 8, false, 1, gfx942);
  EXPECT_TRUE(small.isMma);
  EXPECT_EQ(small.atomC.shape(), llvm::ArrayRef<int64_t>({16, 16}));
  checkDot(small, 16, 16, 32, 1, 64);
  EXPECT_FALSE(chooseDotLayouts(32, 32, 8, 8, false, 1, gfx942).isMma);
  // 8-bit floats get no MFMA layout (the lowering has no fp8 MFMA).
  EXPECT_FALSE(chooseDotLayouts(128, 128, 64, 8, true, 8, gfx942).isMma);
}

TEST(LayoutChoice, DotLayoutsNvidiaFp8) {
  // e4m3 / e5m2 take mma.sync m16n8k32 (the i8 fragments) from sm_89 on;
  // sm_80 has no 8-bit float matrix instruction, and other 8-bit float
  // formats have none anywhere: FMA layouts.
  for (const char *sm : {"sm_89", "sm_90a"}) {
    TargetInfo target = *TargetInfo::lookup(sm);
    DotLayouts d = chooseDotLayouts(128, 128, 64, 8, true, 8, target);
    ASSERT_TRUE(d.isMma) << sm;
    EXPECT_EQ(d.atomA, ::tile::layout::nvidiaMmaM16N8K32Int8(
                           ::tile::layout::MmaOperand::A))
        << sm;
    checkDot(d, 128, 128, 64, 8, 32);
    EXPECT_FALSE(chooseDotLayouts(128, 128, 64, 8, true, 8, target,
                                  /*warpsAlongM=*/false,
                                  /*fp8MmaFormat=*/false)
                     .isMma)
        << sm;
  }
  TargetInfo sm80 = *TargetInfo::lookup("sm_80");
  EXPECT_FALSE(chooseDotLayouts(128, 128, 64, 8, true, 8, sm80).isMma);
  EXPECT_TRUE(chooseDotLayouts(128, 128, 64, 8, false, 8, sm80).isMma);
}

} // namespace

TEST(LayoutChoice, WarpgroupMmaShapes) {
  TargetInfo sm90 = *TargetInfo::lookup("sm_90a");
  TargetInfo sm80 = *TargetInfo::lookup("sm_80");
  auto fits = [&](int64_t m, int64_t n, int64_t k, int64_t warps = 4,
                  bool bTransposed = false, const TargetInfo *t = nullptr) {
    return fitsWarpgroupMma(m, n, k, 16, /*operandIsFloat=*/true,
                            /*accIsWide=*/true, warps, t ? *t : sm90,
                            bTransposed);
  };
  // Rows of 32/64/128 bytes.
  EXPECT_TRUE(fits(128, 64, 64));
  EXPECT_TRUE(fits(64, 16, 32));
  // Column-blocked: B of 128 / 256 columns over a power of two of K rows,
  // A with K = 128 over a power of two of M rows.
  EXPECT_TRUE(fits(128, 128, 32));
  EXPECT_TRUE(fits(128, 256, 64, 8));
  EXPECT_TRUE(fits(64, 64, 128));
  EXPECT_FALSE(fits(128, 512, 32)) << "wgmma has at most 256 columns";
  EXPECT_FALSE(fits(128, 192, 32)) << "no power of two of blocks";
  EXPECT_FALSE(fits(128, 128, 48)) << "K rows no power of two";
  EXPECT_FALSE(fits(192, 64, 128)) << "M rows no power of two";
  EXPECT_FALSE(fits(64, 8, 128)) << "8 columns: no wgmma row width";
  // B stored N x K: K-major rows of K, N a multiple of 8 from 64 to 256.
  EXPECT_TRUE(fits(128, 64, 64, 4, true));
  EXPECT_TRUE(fits(128, 96, 64, 4, true));
  EXPECT_TRUE(fits(128, 256, 128, 8, true));
  EXPECT_FALSE(fits(64, 8, 128, 4, true)) << "the M <= 8 decode path";
  EXPECT_FALSE(fits(128, 64, 48, 4, true));
  // Whole warpgroups, 64-row blocks, and a target with wgmma.
  EXPECT_FALSE(fits(128, 128, 32, 2));
  EXPECT_FALSE(fits(32, 64, 64));
  EXPECT_FALSE(fits(128, 64, 64, 4, false, &sm80));
}

/// 8-bit floats: wgmma m64nNk32 reads them only K-major (B stored N x K),
/// and only in its formats (e4m3 / e5m2); the row widths count bytes.
TEST(LayoutChoice, WarpgroupMmaEightBitFloats) {
  TargetInfo sm90 = *TargetInfo::lookup("sm_90a");
  auto fits = [&](int64_t m, int64_t n, int64_t k, bool bTransposed,
                  bool format = true, int64_t warps = 8) {
    return fitsWarpgroupMma(m, n, k, 8, /*operandIsFloat=*/true,
                            /*accIsWide=*/true, warps, sm90, bTransposed,
                            format);
  };
  // gemm_f8's tiles: K of 64 / 128 bytes, N up to 256.
  EXPECT_TRUE(fits(128, 128, 64, true));
  EXPECT_TRUE(fits(128, 256, 128, true));
  EXPECT_TRUE(fits(128, 128, 32, true)) << "rows of 32 bytes";
  EXPECT_TRUE(fits(128, 128, 256, true)) << "two 128-byte column blocks";
  EXPECT_FALSE(fits(128, 128, 16, true)) << "rows of 16 bytes";
  EXPECT_FALSE(fits(128, 128, 64, false)) << "B K x N: MN-major";
  EXPECT_FALSE(fits(128, 128, 64, true, false)) << "e3m4 and the like";
  EXPECT_FALSE(fits(64, 128, 64, true)) << "8 warps need 128 rows";
  // 16-bit operands ignore the format flag.
  EXPECT_TRUE(fitsWarpgroupMma(128, 128, 64, 16, true, true, 4, sm90));
}

/// s8 operands with an i32 accumulator: wgmma m64nNk32.s32.s8.s8, K-major
/// only like the 8-bit floats, N a multiple of 16 (the integer shapes).
TEST(LayoutChoice, WarpgroupMmaInt8) {
  TargetInfo sm90 = *TargetInfo::lookup("sm_90a");
  TargetInfo sm80 = *TargetInfo::lookup("sm_80");
  auto fits = [&](int64_t m, int64_t n, int64_t k, bool bTransposed,
                  bool accIsI32 = true, const TargetInfo *t = nullptr) {
    return fitsWarpgroupMma(m, n, k, 8, /*operandIsFloat=*/false, accIsI32, 8,
                            t ? *t : sm90, bTransposed);
  };
  // gemm_w8a8's tiles.
  EXPECT_TRUE(fits(128, 128, 128, true));
  EXPECT_TRUE(fits(128, 256, 64, true));
  EXPECT_TRUE(fits(128, 64, 32, true)) << "rows of 32 bytes";
  EXPECT_FALSE(fits(128, 128, 128, false)) << "B K x N (gemm_i8): MN-major";
  EXPECT_FALSE(fits(128, 72, 64, true)) << "n72 exists for floats only";
  EXPECT_TRUE(fitsWarpgroupMma(128, 72, 64, 8, true, true, 8, sm90, true, true))
      << "e4m3 at n72";
  EXPECT_FALSE(fits(128, 128, 128, true, false)) << "a narrow accumulator";
  EXPECT_FALSE(fits(128, 128, 128, true, true, &sm80)) << "no wgmma";
  // 16-bit integers have no warpgroup instruction.
  EXPECT_FALSE(fitsWarpgroupMma(128, 128, 64, 16, false, true, 8, sm90, true));
}

/// Chained products (attention's) fit only with one 64-row block per
/// warpgroup: 64 rows on 4 warps, 128 on 8; 128 rows on 4 warps keep
/// mma.sync (wgmma spilled there), unchained products do not care.
TEST(LayoutChoice, WarpgroupMmaChainedProducts) {
  TargetInfo sm90 = *TargetInfo::lookup("sm_90a");
  auto fits = [&](int64_t m, int64_t warps, bool chained) {
    return fitsWarpgroupMma(m, 64, 128, 16, true, true, warps, sm90,
                            /*bTransposed=*/true, false, chained);
  };
  EXPECT_TRUE(fits(64, 4, true));
  EXPECT_TRUE(fits(128, 8, true));
  EXPECT_FALSE(fits(128, 4, true));
  EXPECT_TRUE(fits(128, 4, false));
  EXPECT_FALSE(fits(256, 8, true));
}
