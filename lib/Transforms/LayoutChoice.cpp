//===- LayoutChoice.cpp - The layouts tile-infer-layouts chooses ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/LayoutChoice.h"

#include "tile/Layout/MmaAtoms.h"
#include "tile/Target/TargetInfo.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>
#include <tuple>

namespace tile::layout {

int64_t coalescedVectorWidth(unsigned elemBits, int64_t lastExtent) {
  if (elemBits == 0)
    elemBits = 8;
  int64_t vec = 1;
  while (vec * elemBits < 128 || vec * elemBits % 32 != 0)
    vec *= 2;
  if (lastExtent <= 0)
    return 1;
  while (vec > 1 && lastExtent % vec != 0)
    vec /= 2;
  return vec;
}

DistributedLayout coalescedLayout(llvm::ArrayRef<int64_t> shape,
                                  unsigned elemBits, int64_t numThreads) {
  if (shape.empty())
    return DistributedLayout::replicate(numThreads);
  unsigned rank = shape.size();
  llvm::SmallVector<int64_t, 4> vec(rank, 1), threads(rank, 1), reps(rank, 1);
  vec[rank - 1] = coalescedVectorWidth(elemBits, shape[rank - 1]);
  int64_t remaining = numThreads;
  for (unsigned i = 0; i < rank; ++i) {
    unsigned d = rank - 1 - i;
    int64_t avail = shape[d] / vec[d];
    threads[d] = std::gcd(avail, remaining);
    remaining /= threads[d];
    reps[d] = avail / threads[d];
  }
  DistributedLayout result = DistributedLayout::local(reps) *
                             DistributedLayout::spatial(threads) *
                             DistributedLayout::local(vec);
  if (remaining > 1)
    result = DistributedLayout::replicate(remaining) * result;
  return result;
}

namespace {

/// The matrix instruction a dot can use, if any.
struct Atom {
  DistributedLayout a, b, c;
};

std::optional<Atom> pickAtom(int64_t m, int64_t n, int64_t k,
                             unsigned operandBits, bool operandIsFloat,
                             bool fp8MmaFormat, const TargetInfo &target) {
  auto fits = [&](const Atom &atom) {
    return m % atom.c.shape()[0] == 0 && n % atom.c.shape()[1] == 0 &&
           k % atom.a.shape()[1] == 0;
  };
  // The operand types with a matrix instruction, as `has_mma(T)` says.
  if (!target.hasMatrixDot(operandBits, operandIsFloat, fp8MmaFormat))
    return std::nullopt;
  if (target.isNVIDIA() && target.hasMmaSync) {
    std::optional<Atom> atom;
    if (operandBits == 16 && operandIsFloat) {
      atom = Atom{nvidiaMmaM16N8K16(MmaOperand::A),
                  nvidiaMmaM16N8K16(MmaOperand::B),
                  nvidiaMmaM16N8K16(MmaOperand::C)};
    } else if (operandBits == 8 &&
               (!operandIsFloat || (target.hasFp8Mma && fp8MmaFormat))) {
      // s8, and e4m3 / e5m2 on sm_89+: mma.sync m16n8k32 has one fragment
      // layout for every 8-bit operand type (PTX ISA, "Matrix Fragments
      // for mma.m16n8k32"). Without hasFp8Mma 8-bit floats take FMA
      // layouts.
      atom = Atom{nvidiaMmaM16N8K32Int8(MmaOperand::A),
                  nvidiaMmaM16N8K32Int8(MmaOperand::B),
                  nvidiaMmaM16N8K32Int8(MmaOperand::C)};
    }
    if (atom && fits(*atom))
      return atom;
    return std::nullopt;
  }
  if (target.isAMD() && target.hasMfma) {
    // f16/bf16: v_mfma_f32_{32x32x8,16x16x16}; i8: v_mfma_i32_{32x32x16,
    // 16x16x32} (CDNA3 dropped the 4-byte-per-lane i8 shapes). On gfx950 the
    // lowering fuses two such k-blocks into one double-K instruction. e4m3 /
    // e5m2 on gfx950: v_mfma_f32_{32x32x16,16x16x32}_{fp8,bf8}, whose
    // operands sit as the i8 shapes' do (8 bytes per lane).
    using Shape = std::tuple<unsigned, unsigned, unsigned>;
    using Maker = llvm::Expected<DistributedLayout> (*)(unsigned, unsigned,
                                                        unsigned, MmaOperand);
    llvm::SmallVector<Shape, 2> shapes;
    Maker make = nullptr;
    if (operandBits == 16 && operandIsFloat) {
      shapes = {Shape{32, 32, 8}, Shape{16, 16, 16}};
      make = amdMfma;
    } else if (operandBits == 8 &&
               (!operandIsFloat || (target.hasFp8Mma && fp8MmaFormat))) {
      shapes = {Shape{32, 32, 16}, Shape{16, 16, 32}};
      make = amdMfmaInt8;
    }
    for (auto [am, an, ak] : shapes) {
      auto a = make(am, an, ak, MmaOperand::A);
      auto b = make(am, an, ak, MmaOperand::B);
      auto c = make(am, an, ak, MmaOperand::C);
      if (!a || !b || !c) {
        llvm::consumeError(a.takeError());
        llvm::consumeError(b.takeError());
        llvm::consumeError(c.takeError());
        continue;
      }
      Atom atom{*a, *b, *c};
      if (fits(atom))
        return atom;
    }
  }
  return std::nullopt;
}

} // namespace

DotLayouts chooseDotLayouts(int64_t m, int64_t n, int64_t k,
                            unsigned operandBits, bool operandIsFloat,
                            int64_t numWarps, const TargetInfo &target,
                            bool warpsAlongM, bool fp8MmaFormat) {
  DotLayouts out;
  int64_t warpSize = std::max<int64_t>(1, target.warpSize);
  std::optional<Atom> atom =
      pickAtom(m, n, k, operandBits, operandIsFloat, fp8MmaFormat, target);
  if (!atom || atom->c.numThreads() != warpSize) {
    // FMA: every thread holds full rows of A and full columns of B for the
    // accumulator elements it owns.
    out.c = coalescedLayout({m, n}, 32, numWarps * warpSize);
    out.a = llvm::cantFail(out.c.reduce(1, /*keepDim=*/true)) *
            DistributedLayout::local({1, k});
    out.b = llvm::cantFail(out.c.reduce(0, /*keepDim=*/true)) *
            DistributedLayout::local({k, 1});
    return out;
  }
  int64_t am = atom->c.shape()[0], an = atom->c.shape()[1],
          ak = atom->a.shape()[1];
  // Warps along M first (ties go to M), doubling the side with more atom
  // repetitions left, as long as the warps still divide the tile.
  int64_t wm = 1, wn = 1;
  if (warpsAlongM && (m / am) % numWarps == 0)
    wm = numWarps;
  while (wm * wn * 2 <= numWarps && numWarps % (wm * wn * 2) == 0) {
    bool canM = (m / am) % (wm * 2) == 0, canN = (n / an) % (wn * 2) == 0;
    bool preferM = m / (am * wm) >= n / (an * wn);
    if (preferM && canM) {
      wm *= 2;
    } else if (canN) {
      wn *= 2;
    } else if (canM) {
      wm *= 2;
    } else {
      break;
    }
  }
  int64_t rep = numWarps / (wm * wn);
  DistributedLayout replicas = DistributedLayout::replicate(rep);
  out.c = replicas * DistributedLayout::local({m / (am * wm), n / (an * wn)}) *
          DistributedLayout::spatial({wm, wn}) * atom->c;
  out.a = replicas * DistributedLayout::local({m / (am * wm), k / ak}) *
          DistributedLayout::spatial({wm, 1}) *
          DistributedLayout::replicate(wn) * atom->a;
  out.b = replicas * DistributedLayout::local({k / ak, n / (an * wn)}) *
          DistributedLayout::replicate(wm) *
          DistributedLayout::spatial({1, wn}) * atom->b;
  out.isMma = true;
  out.atomA = atom->a;
  out.atomB = atom->b;
  out.atomC = atom->c;
  out.warpsM = wm;
  out.warpsN = wn;
  return out;
}

DotLayouts chooseBatchedDotLayouts(int64_t batch, int64_t m, int64_t n,
                                   int64_t k, unsigned operandBits,
                                   bool operandIsFloat, int64_t numWarps,
                                   const TargetInfo &target, bool warpsAlongM,
                                   bool fp8MmaFormat, bool warpsAlongBatch) {
  int64_t wb = 1;
  while (warpsAlongBatch && numWarps % (wb * 2) == 0 && batch % (wb * 2) == 0)
    wb *= 2;
  DotLayouts out =
      chooseDotLayouts(m, n, k, operandBits, operandIsFloat, numWarps / wb,
                       target, warpsAlongM, fp8MmaFormat);
  // Warp group g holds products g, g + wb, ... in its local slots (the
  // product pads the 2-D layouts with a leading unit dimension).
  DistributedLayout outer = DistributedLayout::local({batch / wb, 1, 1}) *
                            DistributedLayout::spatial({wb, 1, 1});
  out.a = outer * out.a;
  out.b = outer * out.b;
  out.c = outer * out.c;
  out.warpsBatch = wb;
  return out;
}

bool fitsWarpgroupMma(int64_t m, int64_t n, int64_t k, unsigned operandBits,
                      bool operandIsFloat, bool accIsWide, int64_t numWarps,
                      const TargetInfo &target, bool bTransposed,
                      bool fp8MmaFormat, bool chained) {
  if (!target.hasWgmma || !accIsWide)
    return false;
  // 16-bit floats, or e4m3 / e5m2 or s8, which wgmma reads only K-major (B
  // stored N x K and read through a transpose).
  if (operandBits == 8) {
    if ((operandIsFloat && !fp8MmaFormat) || !bTransposed)
      return false;
  } else if (operandBits != 16 || !operandIsFloat) {
    return false;
  }
  // Shared rows of 32, 64 or 128 bytes, or (wgmmaRowMajorLayout) a power
  // of two of 128-byte column blocks over a power of two of rows: B up to
  // the instruction's 256 columns over its K rows, A's K over its M rows.
  auto rowFits = [&](int64_t elems, int64_t rows, int64_t most) {
    int64_t bytes = elems * operandBits / 8;
    if (bytes == 32 || bytes == 64 || bytes == 128)
      return true;
    return bytes > 128 && elems <= most && llvm::isPowerOf2_64(elems) &&
           llvm::isPowerOf2_64(rows) && rows >= 8;
  };
  // B stored N x K (K-major): rows of K elements over N rows, N a multiple
  // of 8 from 64 up to 256. Narrower (the swapped M <= 8 decode path of
  // gemm_decode: N = 8, its A a dequantized weight staged for the
  // instruction) keeps mma.sync, which issues fewer instructions there
  // (sass-report: 0.35 against 0.47 per weight byte).
  bool bFits = bTransposed ? rowFits(k, n, 1 << 12) &&
                                 n % (operandIsFloat ? 8 : 16) == 0 &&
                                 n >= 64 && n <= 256
                           : rowFits(n, k, 256);
  // Chained products (attention): one 64-row block per warpgroup,
  // FlashAttention-3's shape. With two (128 rows on 4 warps) the S and O
  // accumulators and the packed P fragments of the wgmma form spilled 1 KB
  // in attention's loop, against 0.3 KB with mma.sync (sm_90a, 2026-11-27).
  if (chained && m != 16 * numWarps)
    return false;
  return rowFits(k, m, 1 << 12) && bFits && numWarps % 4 == 0 && m % 64 == 0 &&
         m % (16 * numWarps) == 0;
}

} // namespace tile::layout
