//===- SubBytePackingTest.cpp - Register packing and bitcasts -------------===//

#include "LayoutTestUtils.h"

#include "tile/Layout/SubBytePacking.h"

#include "gtest/gtest.h"

#include <random>

using namespace tile::layout;
using namespace tile::layout::test;

namespace {

using DL = DistributedLayout;

/// Packs values LSB-first into a dense stream of 32-bit words (reference).
std::vector<uint32_t> packStream(const std::vector<uint64_t> &values,
                                 unsigned bits) {
  std::vector<uint32_t> words((values.size() * bits + 31) / 32, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    for (unsigned b = 0; b < bits; ++b) {
      if (values[i] >> b & 1) {
        size_t bit = i * bits + b;
        words[bit / 32] |= uint32_t(1) << (bit % 32);
      }
    }
  }
  return words;
}

/// Reads a slot through the library's location description.
uint64_t readSlot(const std::vector<uint32_t> &regs, SlotBits loc) {
  uint64_t v = regs[loc.reg] >> loc.offset;
  if (loc.straddles())
    v |= uint64_t(regs[loc.reg + 1]) << loc.lowBits;
  return v & ((uint64_t(1) << loc.width) - 1);
}

TEST(SubBytePacking, SlotLocationsMatchDenseStream) {
  std::mt19937 rng(2);
  for (unsigned bits = 1; bits <= 32; ++bits) {
    int64_t slots = 96;
    std::vector<uint64_t> values;
    for (int64_t i = 0; i < slots; ++i)
      values.push_back(rng() & ((uint64_t(1) << bits) - 1));
    auto regs = packStream(values, bits);
    EXPECT_EQ(numRegisters(bits, slots), static_cast<int64_t>(regs.size()));
    bool straddled = false;
    for (int64_t i = 0; i < slots; ++i) {
      SlotBits loc = locateSlot(bits, i);
      ASSERT_EQ(readSlot(regs, loc), values[i]) << bits << " bits slot " << i;
      ASSERT_LE(loc.offset + loc.lowBits, 32u);
      straddled |= loc.straddles();
    }
    // Straddling happens exactly when the width does not divide 32.
    EXPECT_EQ(straddled, 32 % bits != 0) << bits;
    EXPECT_EQ(anySlotStraddles(bits, slots), 32 % bits != 0);
  }
  // 3-bit: slot 10 covers bits 30..32: two bits in r0, one in r1.
  SlotBits s = locateSlot(3, 10);
  EXPECT_EQ(s.reg, 0);
  EXPECT_EQ(s.offset, 30u);
  EXPECT_EQ(s.lowBits, 2u);
}

/// Brute force bitcast: each thread's register bits are its slots packed
/// densely. The bitcast to `toBits` is legal iff every toBits-chunk of every
/// thread's stream is exactly one element of the reinterpreted tile (the
/// tile's rows are dense bit streams). Returns the chunk -> coordinate
/// table, or nullopt when illegal.
std::optional<Table> refBitcast(const Table &x, unsigned fromBits,
                                unsigned toBits) {
  int64_t rowBits = x.shape.back() * fromBits;
  if ((x.slots * fromBits) % toBits || rowBits % toBits)
    return std::nullopt;
  Table y;
  y.shape = x.shape;
  y.shape.back() = rowBits / toBits;
  y.threads = x.threads;
  y.slots = x.slots * fromBits / toBits;
  for (int64_t t = 0; t < x.threads; ++t) {
    for (int64_t ly = 0; ly < y.slots; ++ly) {
      // Global bit position of each bit of the chunk.
      std::optional<Coord> elem;
      for (unsigned b = 0; b < toBits; ++b) {
        int64_t streamBit = ly * toBits + b;
        const Coord &c = x(t, streamBit / fromBits);
        int64_t bitInRow = c.back() * fromBits + streamBit % fromBits;
        if (bitInRow % toBits != b)
          return std::nullopt;
        Coord e = c;
        e.back() = bitInRow / toBits;
        if (elem && *elem != e)
          return std::nullopt;
        elem = e;
      }
      y.at.push_back(*elem);
    }
  }
  return y;
}

TEST(SubBytePacking, BitcastMatchesBruteForce) {
  auto set = products(primitives({1, 2, 4, 8}, {2}), 2, 128);
  auto threeBit = products(primitives({1, 3, 6}, {}), 2, 72);
  set.insert(set.end(), threeBit.begin(), threeBit.end());
  int legal = 0, illegal = 0;
  for (size_t i = 0; i < set.size(); i += 3) {
    const Sample &s = set[i];
    if (s.layout.rank() != 2)
      continue;
    for (unsigned from : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 16u}) {
      for (unsigned to : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 16u, 32u}) {
        auto got = bitcastLayout(s.layout, from, to);
        auto ref = refBitcast(s.table, from, to);
        ASSERT_EQ(static_cast<bool>(got), ref.has_value())
            << s.layout.str() << " " << from << " -> " << to;
        if (!got) {
          ++illegal;
          std::string msg = toString(got.takeError());
          ASSERT_NE(msg.find("illegal bitcast"), std::string::npos) << msg;
          continue;
        }
        ++legal;
        ASSERT_EQ(tableOf(*got), *ref);
        EXPECT_EQ(got->localSize() * to, s.layout.localSize() * from);
      }
    }
  }
  EXPECT_GT(legal, 200);
  EXPECT_GT(illegal, 200);
}

TEST(SubBytePacking, BitcastExamples) {
  // 32 u3 per thread along a row <-> 12 u8.
  DL u3 = DL::spatial({4, 2}) * DL::local({1, 32});
  auto u8 = bitcastLayout(u3, 3, 8);
  ASSERT_TRUE(static_cast<bool>(u8));
  EXPECT_EQ(*u8, DL::spatial({4, 2}) * DL::local({1, 12}));
  auto back = bitcastLayout(*u8, 8, 3);
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(*back, u3);
  // Elements spread across threads cannot be reinterpreted.
  auto bad = bitcastLayout(DL::spatial({4, 8}), 4, 8);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(toString(bad.takeError()).find("local(...,2)"), std::string::npos);
  auto zero = bitcastLayout(DL::spatial({4, 8}), 0, 8);
  ASSERT_FALSE(static_cast<bool>(zero));
  consumeError(zero.takeError());
}

} // namespace
