//===- SharedLayoutTest.cpp - Shared layouts, banks, swizzle search -------===//

#include "LayoutTestUtils.h"

#include "tile/Layout/SharedLayout.h"

#include "gtest/gtest.h"

#include <map>
#include <random>
#include <set>

using namespace tile::layout;
using namespace tile::layout::test;

namespace {

using DL = DistributedLayout;

/// CuTe's definition bit by bit: bit M+j of the result is bit M+j XOR bit
/// M+S+j of the input, for j < B; every other bit is unchanged.
int64_t refSwizzle(int64_t o, unsigned b, unsigned m, unsigned s) {
  int64_t r = o;
  for (unsigned j = 0; j < b; ++j) {
    int64_t src = o >> (m + s + j) & 1;
    r ^= src << (m + j);
  }
  return r;
}

TEST(Swizzle, MatchesBitDefinitionAndIsABijection) {
  for (unsigned b = 0; b <= 3; ++b) {
    for (unsigned m = 0; m <= 3; ++m) {
      for (unsigned s = std::max(b, 1u); s <= 4; ++s) {
        Swizzle sw{b, m, s};
        unsigned n = b + m + s;
        std::set<int64_t> image;
        for (int64_t o = 0; o < (int64_t(1) << (n + 1)); ++o) {
          ASSERT_EQ(sw.apply(o), refSwizzle(o, b, m, s));
          ASSERT_EQ(sw.apply(sw.apply(o)), o); // involution
          image.insert(sw.apply(o));
        }
        // Maps [0, 2^(n+1)) onto itself.
        EXPECT_EQ(*image.rbegin(), (int64_t(1) << (n + 1)) - 1);
        EXPECT_EQ(static_cast<int64_t>(image.size()), int64_t(1) << (n + 1));
      }
    }
  }
}

TEST(Swizzle, DistributesOverConstantsClearOfItsSourceBitsAndOfX) {
  // Whenever distributes() says so, apply(x + c) = apply(x) ^ c; and it
  // says so for every x and c that share no bits, c clear of the bits the
  // map reads (the whole claim, checked against the bit definition).
  for (unsigned b = 1; b <= 3; ++b)
    for (unsigned m = 0; m <= 3; ++m)
      for (unsigned s = b; s <= 4; ++s) {
        Swizzle sw{b, m, s};
        int64_t limit = int64_t(1) << (b + m + s + 1);
        int64_t read = ((int64_t(1) << b) - 1) << (m + s);
        for (int64_t c = 0; c < limit; ++c)
          for (int64_t x = 0; x < limit; x += 3) {
            bool says = sw.distributes({x}, c);
            EXPECT_EQ(says, (x & c) == 0 && (c & read) == 0);
            if (says)
              ASSERT_EQ(refSwizzle(x + c, b, m, s), refSwizzle(x, b, m, s) ^ c)
                  << "b " << b << " m " << m << " s " << s << " x " << x
                  << " c " << c;
          }
      }
  // A constant in the rows the map reads (row 4 of a 64-element-row tile
  // under swizzle(3,3,3)), an x with the constant's bit, a negative x, and
  // any column blocking: no.
  Swizzle sw128{3, 3, 3};
  EXPECT_TRUE(sw128.distributes({0, 64, 8 * 64 + 7}, 16));
  EXPECT_FALSE(sw128.distributes({0}, 4 * 64));
  EXPECT_FALSE(sw128.distributes({0, 16}, 16));
  EXPECT_FALSE(sw128.distributes({-64}, 16));
  Swizzle blocked;
  blocked.blockBase = 3;
  blocked.blockBits = 1;
  blocked.rowBits = 2;
  EXPECT_FALSE(blocked.distributes({0}, 1));
}

TEST(Swizzle, ColumnBlockingStoresBlocksOfColumnsOneAfterAnother) {
  // A row-major tile of 2^r rows of 2^(w + c) elements becomes 2^c
  // row-major blocks of 2^r x 2^w: written here from coordinates.
  for (unsigned w = 1; w <= 3; ++w)
    for (unsigned c = 1; c <= 2; ++c)
      for (unsigned r = 1; r <= 3; ++r) {
        Swizzle sw;
        sw.blockBase = w;
        sw.blockBits = c;
        sw.rowBits = r;
        int64_t cols = int64_t(1) << (w + c), rows = int64_t(1) << r;
        int64_t blockCols = int64_t(1) << w, tile = rows * cols;
        EXPECT_EQ(sw.span(), tile);
        EXPECT_EQ(sw.unit(), blockCols);
        for (int64_t stage = 0; stage < 2; ++stage)
          for (int64_t row = 0; row < rows; ++row)
            for (int64_t col = 0; col < cols; ++col) {
              int64_t v = stage * tile + row * cols + col;
              int64_t want = stage * tile +
                             (col / blockCols) * rows * blockCols +
                             row * blockCols + col % blockCols;
              ASSERT_EQ(sw.apply(v), want) << w << c << r << " " << v;
            }
      }
  // Then the XOR: the 128-byte pattern of f16 inside each 64-column block.
  Swizzle both{3, 3, 3};
  both.blockBase = 6;
  both.blockBits = 1;
  both.rowBits = 4;
  EXPECT_EQ(both.span(), 16 * 128);
  EXPECT_EQ(both.unit(), 8);
  EXPECT_EQ(both.apply(3 * 128 + 64 + 9),
            refSwizzle(16 * 64 + 3 * 64 + 9, 3, 3, 3));
  EXPECT_EQ(Swizzle{}.unit(), int64_t(1) << 40);
  EXPECT_EQ(Swizzle{}.span(), 1);
}

TEST(SharedLayout, OffsetsCosizeTextAndErrors) {
  auto l = SharedLayout::get({4, 6}, {8, 1}); // padded rows
  ASSERT_TRUE(static_cast<bool>(l));
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 6; ++c)
      EXPECT_EQ(l->offset({r, c}), r * 8 + c);
  }
  EXPECT_EQ(l->cosize(), 3 * 8 + 6);
  EXPECT_TRUE(l->isInjective());
  EXPECT_EQ(SharedLayout::rowMajor({4, 6}, 2), *l);
  auto col = SharedLayout::ordered({3, 5}, {0, 1});
  ASSERT_TRUE(static_cast<bool>(col));
  EXPECT_EQ(col->offset({2, 4}), 2 + 4 * 3);
  auto broadcast = SharedLayout::get({4, 4}, {0, 1});
  ASSERT_TRUE(static_cast<bool>(broadcast));
  EXPECT_FALSE(broadcast->isInjective());

  auto sw = SharedLayout::get({8, 64}, {64, 1}, {3, 3, 3});
  ASSERT_TRUE(static_cast<bool>(sw));
  EXPECT_EQ(sw->str(), "swizzle(3,3,3) o (8,64):(64,1)");
  for (int64_t r = 0; r < 8; ++r) {
    for (int64_t c = 0; c < 64; ++c)
      EXPECT_EQ(sw->offset({r, c}), refSwizzle(r * 64 + c, 3, 3, 3));
  }
  EXPECT_TRUE(sw->isInjective());
  EXPECT_EQ(sw->cosize(), 512);
  auto parsed = SharedLayout::parse(sw->str());
  ASSERT_TRUE(static_cast<bool>(parsed));
  EXPECT_EQ(*parsed, *sw);
  EXPECT_EQ(hash_value(*parsed), hash_value(*sw));
  // The column blocking prints after the XOR (it applies first).
  Swizzle blocked{3, 3, 3};
  blocked.blockBase = 6;
  blocked.blockBits = 1;
  blocked.rowBits = 5;
  auto bl = SharedLayout::get({32, 128}, {128, 1}, blocked);
  ASSERT_TRUE(static_cast<bool>(bl));
  EXPECT_EQ(bl->str(), "swizzle(3,3,3) o block(6,1,5) o (32,128):(128,1)");
  auto blParsed = SharedLayout::parse(bl->str());
  ASSERT_TRUE(static_cast<bool>(blParsed));
  EXPECT_EQ(*blParsed, *bl);
  EXPECT_NE(hash_value(*bl), hash_value(*sw));
  EXPECT_TRUE(bl->isInjective());
  EXPECT_EQ(bl->cosize(), 32 * 128);
  auto blOnly = SharedLayout::parse("block(6,1,5) o (32,128):(128,1)");
  ASSERT_TRUE(static_cast<bool>(blOnly));
  EXPECT_EQ(blOnly->offset({3, 70}), 32 * 64 + 3 * 64 + 6);
  auto plain = SharedLayout::parse(" ( 4 , 6 ) : ( 8 , 1 ) ");
  ASSERT_TRUE(static_cast<bool>(plain));
  EXPECT_EQ(*plain, *l);

  auto err = [](llvm::StringRef text) {
    auto p = SharedLayout::parse(text);
    EXPECT_FALSE(static_cast<bool>(p)) << text.str();
    return p ? std::string() : toString(p.takeError());
  };
  EXPECT_NE(err("(4,6)(8,1)").find("':'"), std::string::npos);
  EXPECT_NE(err("(4,6):(8,1").find("position 10"), std::string::npos);
  EXPECT_NE(err("(4,6):(8,1,1)").find("2 extents but 3 strides"),
            std::string::npos);
  EXPECT_NE(err("swizzle(3,3,2) o (8,64):(64,1)").find("at least"),
            std::string::npos);
  EXPECT_NE(err("swizzle(3,3) o (8,64):(64,1)").find("swizzle(B,M,S)"),
            std::string::npos);
  EXPECT_NE(err("block(6,1) o (32,128):(128,1)").find("block(w,c,r)"),
            std::string::npos);
  EXPECT_NE(err("block(6,0,5) o (32,128):(128,1)").find("c must be"),
            std::string::npos);
  EXPECT_NE(err("block(20,10,10) o (32,128):(128,1)").find("out of range"),
            std::string::npos);
  EXPECT_NE(err("(0,4):(4,1)").find("positive"), std::string::npos);
  EXPECT_NE(err("(4,4):(4,1) x").find("end of text"), std::string::npos);
  EXPECT_NE(err("(16777216,2):(2,1)").find("2^24"), std::string::npos);
  EXPECT_NE(err("(8192,8192):(8192,1)").find("too large"), std::string::npos);
  EXPECT_NE(err("(4,4):(99999999999999999999,1)").find("integer"),
            std::string::npos);
}

/// Independent bank model: serve the requests pass by pass, each bank
/// serving one word per pass (all requests for that word at once).
int64_t refWavefronts(const std::vector<int64_t> &addrs, unsigned bytes,
                      unsigned banks, unsigned width) {
  size_t phase = std::max<int64_t>(1, int64_t(banks) * width / bytes);
  int64_t passes = 0;
  for (size_t p = 0; p < addrs.size(); p += phase) {
    std::multiset<int64_t> words;
    for (size_t i = p; i < std::min(addrs.size(), p + phase); ++i) {
      for (int64_t b = addrs[i]; b < addrs[i] + bytes; b += width)
        words.insert(b / width);
    }
    std::set<int64_t> pending(words.begin(), words.end());
    while (!pending.empty()) {
      ++passes;
      std::set<int64_t> busy;
      for (auto it = pending.begin(); it != pending.end();) {
        if (busy.insert(*it % banks).second) {
          it = pending.erase(it);
        } else {
          ++it;
        }
      }
    }
  }
  return passes;
}

TEST(BankConflicts, MatchesPassByPassModel) {
  std::mt19937 rng(4);
  for (BankConfig cfg : {BankConfig::nvidia(), BankConfig::amdCDNA()}) {
    for (unsigned bytes : {1u, 2u, 4u, 8u, 16u}) {
      for (int iter = 0; iter < 150; ++iter) {
        int64_t threads = iter % 2 ? 32 : 64;
        std::vector<int64_t> addrs;
        int64_t stride = (rng() % 9) * bytes, spread = 1 + rng() % 4096;
        for (int64_t t = 0; t < threads; ++t) {
          addrs.push_back(iter % 3 ? (t * stride) % spread / bytes * bytes
                                   : int64_t(rng() % 4096) / bytes * bytes);
        }
        ASSERT_EQ(countWavefronts(addrs, bytes, cfg),
                  refWavefronts(addrs, bytes, cfg.numBanks, cfg.bankBytes));
      }
    }
  }
  // Classic cases on NVIDIA.
  std::vector<int64_t> linear, column, same;
  for (int64_t t = 0; t < 32; ++t) {
    linear.push_back(4 * t);
    column.push_back(128 * t);
    same.push_back(64);
  }
  EXPECT_EQ(countWavefronts(linear, 4, BankConfig::nvidia()), 1);
  EXPECT_EQ(countWavefronts(column, 4, BankConfig::nvidia()), 32);
  EXPECT_EQ(countWavefronts(same, 4, BankConfig::nvidia()), 1);
  // 64 banks of 4 B: a 128-byte row stride conflicts 2-way less often.
  EXPECT_EQ(countWavefronts(column, 4, BankConfig::amdCDNA()), 16);
}

TEST(BankConflicts, AnalyzeAccessAndVectorWidth) {
  // f16 64x64 tile, row-major: a thread holding 8 consecutive columns can
  // use 16-byte vectors; a column-owning layout cannot vectorize.
  DL rows = DL::spatial({16, 8}) * DL::local({4, 8}); // 64x64, 128 threads
  SharedLayout smem = SharedLayout::rowMajor({64, 64});
  EXPECT_EQ(maxVectorWidth(rows, smem, 16), 8);
  EXPECT_EQ(maxVectorWidth(rows, smem, 32), 4);
  DL cols = DL::columnSpatial({8, 16}) * DL::local({8, 4});
  EXPECT_EQ(maxVectorWidth(cols, smem, 16), 4);
  auto cost = analyzeAccess(rows, smem, 16, 8, 32, BankConfig::nvidia());
  ASSERT_TRUE(static_cast<bool>(cost));
  // Reference: count over the warps with the independent model.
  int64_t ref = 0;
  for (int64_t w = 0; w < 4; ++w) {
    for (int64_t g = 0; g < 4; ++g) {
      std::vector<int64_t> addrs;
      for (int64_t lane = 0; lane < 32; ++lane) {
        auto c = rows.apply(w * 32 + lane, g * 8);
        addrs.push_back(smem.offset(c) * 2);
      }
      ref += refWavefronts(addrs, 16, 32, 4);
    }
  }
  EXPECT_EQ(cost->wavefronts, ref);
  EXPECT_TRUE(cost->conflictFree());
  auto bad = analyzeAccess(rows, smem, 16, 3, 32, BankConfig::nvidia());
  ASSERT_FALSE(static_cast<bool>(bad));
  consumeError(bad.takeError());
}

TEST(SwizzleSearch, FindsConflictFreeSwizzleForTransposedAccess) {
  // Store a 32x64 f16 tile with 16-byte row vectors, load it with the
  // ldmatrix-style pattern where 8 consecutive lanes read 8 different rows
  // at the same columns (an mma A operand through shared memory).
  DL store = DL::spatial({8, 8}) * DL::local({4, 8}); // 64 threads
  DL load = DL::local({1, 4}) * DL::spatial({2, 1}) *
            DL::columnSpatial({16, 2}) * DL::local({1, 8}); // 64 threads
  ASSERT_EQ(store.shape(), load.shape());
  SharedLayout base = SharedLayout::rowMajor({32, 64});
  auto before = analyzeAccess(load, base, 16, 8, 32, BankConfig::nvidia());
  ASSERT_TRUE(static_cast<bool>(before));
  // 8 lanes of a 16-byte phase hit the same 4 banks: 8-way conflicts.
  EXPECT_EQ(before->wavefronts, 8 * before->ideal);
  auto choice = searchSwizzle(base, store, load, 16, 32, BankConfig::nvidia());
  ASSERT_TRUE(static_cast<bool>(choice));
  EXPECT_FALSE(choice->swizzle.isIdentity());
  EXPECT_TRUE(choice->store.conflictFree());
  EXPECT_TRUE(choice->load.conflictFree());
  EXPECT_EQ(choice->storeVec, 8);
  EXPECT_EQ(choice->loadVec, 8);
  // The swizzled layout still holds every element once, in the same space.
  SharedLayout chosen = base.withSwizzle(choice->swizzle);
  EXPECT_TRUE(chosen.isInjective());
  EXPECT_EQ(chosen.cosize(), base.cosize());
  // Brute force: no valid swizzle does better.
  int64_t best = choice->store.wavefronts + choice->load.wavefronts;
  for (unsigned b = 1; b <= 4; ++b) {
    for (unsigned m = 3; m <= 8; ++m) {
      for (unsigned s = b; m + s + b <= 11; ++s) {
        SharedLayout cand = base.withSwizzle({b, m, s});
        auto st = analyzeAccess(store, cand, 16, 8, 32, BankConfig::nvidia());
        auto ld = analyzeAccess(load, cand, 16, 8, 32, BankConfig::nvidia());
        ASSERT_TRUE(st && ld);
        EXPECT_GE(st->wavefronts + ld->wavefronts, best);
      }
    }
  }
}

TEST(SwizzleSearch, KeepsIdentityWhenAlreadyConflictFree) {
  DL rows = DL::spatial({32, 1}) * DL::local({1, 4});
  SharedLayout base = SharedLayout::rowMajor({32, 4});
  auto choice = searchSwizzle(base, rows, rows, 32, 32, BankConfig::nvidia());
  ASSERT_TRUE(static_cast<bool>(choice));
  EXPECT_TRUE(choice->swizzle.isIdentity());
  EXPECT_TRUE(choice->load.conflictFree());
}

TEST(SwizzleSearch, PaddingAlsoRemovesConflicts) {
  // Column reads of a 32x32 f32 tile: 32-way conflict unpadded, none with
  // one element of padding per row (a non-power-of-two stride).
  DL colRead = DL::columnSpatial({32, 1}) * DL::local({1, 32});
  auto plain = analyzeAccess(colRead, SharedLayout::rowMajor({32, 32}), 32, 1,
                             32, BankConfig::nvidia());
  auto padded = analyzeAccess(colRead, SharedLayout::rowMajor({32, 32}, 1), 32,
                              1, 32, BankConfig::nvidia());
  ASSERT_TRUE(plain && padded);
  EXPECT_EQ(plain->wavefronts, 32 * 32);
  EXPECT_TRUE(padded->conflictFree());
}

} // namespace
