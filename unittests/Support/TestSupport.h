//===- TestSupport.h - Helpers shared by the compiler's unit tests -*- C++
//-*-===//
//
// Part of tilec. Seeded random inputs, independent encoders/decoders of
// IEEE binary16 and small float codes (brute force over the codes, never
// lib/Numerics, so that tests of the compiler check it against something
// else), LSB-first bit packing, reading a file and a temporary folder. Used
// by unittests/Host, JIT and Examples (header only; link LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_SUPPORT_TESTSUPPORT_H
#define TILE_UNITTESTS_SUPPORT_TESTSUPPORT_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace tile {
namespace test {

/// ceil(a / b).
inline uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/// \p n standard normal floats from std::mt19937(\p seed).
inline std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> values(n);
  for (float &v : values)
    v = dist(gen);
  return values;
}

/// IEEE binary16 bits -> value (independent decoder).
inline double f16Value(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  double v;
  if (exp == 0)
    v = std::ldexp(double(man), -24);
  else if (exp == 31)
    v = man ? std::numeric_limits<double>::quiet_NaN()
            : std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(double(1024 + man), exp - 25);
  return sign ? -v : v;
}

/// Value -> nearest binary16 bits (ties to even), by search over the codes.
inline uint16_t f16Bits(double x) {
  uint16_t best = 0;
  double bestErr = std::numeric_limits<double>::infinity();
  for (uint32_t c = 0; c < 0x7C00; ++c) {
    double err = std::fabs(std::fabs(x) - f16Value(uint16_t(c)));
    if (err < bestErr || (err == bestErr && (c & 1) == 0 && (best & 1))) {
      best = uint16_t(c);
      bestErr = err;
    }
  }
  return uint16_t(best | (x < 0 ? 0x8000 : 0));
}

/// Value of a small float code sEeMm (bias 2^(E-1)-1, subnormals); NaN for
/// the OCP e4m3 NaN codes when \p e4m3 is set.
inline double smallFloatValue(uint32_t code, int e, int m, bool e4m3 = false) {
  int width = 1 + e + m;
  code &= (1u << width) - 1;
  int sign = code >> (e + m);
  int exp = (code >> m) & ((1 << e) - 1);
  int man = code & ((1 << m) - 1);
  if (e4m3 && exp == 15 && man == 7)
    return std::numeric_limits<double>::quiet_NaN();
  int bias = (1 << (e - 1)) - 1;
  double v = exp == 0 ? std::ldexp(double(man), 1 - bias - m)
                      : std::ldexp(double((1 << m) + man), exp - bias - m);
  return sign ? -v : v;
}

/// Nearest small-float code to \p x: round to nearest, ties to the even
/// code, saturating to the largest finite magnitude (brute force).
inline uint32_t smallFloatEncode(double x, int e, int m, bool e4m3 = false) {
  int width = 1 + e + m;
  uint32_t signBit = 1u << (width - 1);
  uint32_t best = 0;
  double bestErr = std::numeric_limits<double>::infinity();
  for (uint32_t c = 0; c < signBit; ++c) {
    double v = smallFloatValue(c, e, m, e4m3);
    if (std::isnan(v))
      continue;
    double err = std::fabs(std::fabs(x) - v);
    if (err < bestErr || (err == bestErr && (c & 1) == 0)) {
      best = c;
      bestErr = err;
    }
  }
  return best | (x < 0 ? signBit : 0);
}

/// Stores code \p index of \p bits bits, LSB-first (independent of
/// lib/Numerics).
inline void packBits(std::vector<uint8_t> &bytes, size_t index, unsigned bits,
                     uint32_t code) {
  for (unsigned b = 0; b < bits; ++b) {
    size_t bit = index * bits + b;
    uint8_t mask = uint8_t(1u << (bit % 8));
    if ((code >> b) & 1)
      bytes[bit / 8] |= mask;
    else
      bytes[bit / 8] &= uint8_t(~mask);
  }
}

/// Reads code \p index of \p bits bits, LSB-first.
inline uint32_t unpackBits(const std::vector<uint8_t> &bytes, size_t index,
                           unsigned bits) {
  uint32_t code = 0;
  for (unsigned b = 0; b < bits; ++b) {
    size_t bit = index * bits + b;
    code |= uint32_t((bytes[bit / 8] >> (bit % 8)) & 1) << b;
  }
  return code;
}

/// The contents of \p path; a test failure (and "") when it cannot be read.
inline std::string readTextFile(const std::string &path,
                                const std::string &hint = "") {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path << hint;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A fresh temporary folder, removed with everything in it at the end of
/// the scope.
class TempDir {
public:
  explicit TempDir(const char *prefix = "tile-test") {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  std::string str() const { return std::string(path); }

private:
  llvm::SmallString<128> path;
};

} // namespace test
} // namespace tile

#endif // TILE_UNITTESTS_SUPPORT_TESTSUPPORT_H
