//===- Random.cpp - Seeded test inputs ------------------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Random.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"

#include <cmath>
#include <string>

using namespace tile::rt;
namespace num = tile::numerics;

uint64_t tile::rt::splitmix64(uint64_t &State) {
  uint64_t Z = (State += 0x9E3779B97F4A7C15ull);
  Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
  Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
  return Z ^ (Z >> 31);
}

uint64_t tile::rt::fnv1a64(std::string_view Text) {
  uint64_t H = 0xCBF29CE484222325ull;
  for (unsigned char C : Text) {
    H ^= C;
    H *= 0x100000001B3ull;
  }
  return H;
}

Rng::Rng(uint64_t Seed) {
  for (uint64_t &Word : S)
    Word = splitmix64(Seed);
}

static inline uint64_t rotl(uint64_t X, int K) {
  return (X << K) | (X >> (64 - K));
}

uint64_t Rng::next() {
  uint64_t Result = rotl(S[1] * 5, 7) * 9;
  uint64_t T = S[1] << 17;
  S[2] ^= S[0];
  S[3] ^= S[1];
  S[1] ^= S[2];
  S[0] ^= S[3];
  S[2] ^= T;
  S[3] = rotl(S[3], 45);
  return Result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }

// This file is compiled with -ffp-contract=off: a fused multiply-add would
// change the last bits of the series below on some machines.

double tile::rt::detLog(double X) {
  int E;
  double M = std::frexp(X, &E);
  if (M < 0.70710678118654752) {
    M *= 2;
    --E;
  }
  double F = (M - 1) / (M + 1);
  double F2 = F * F;
  double Sum = 0, Term = F;
  for (int K = 0; K < 20; ++K) {
    Sum += Term / (2 * K + 1);
    Term *= F2;
  }
  return 2 * Sum + E * 0.6931471805599453;
}

void tile::rt::detSinCos2Pi(double U, double &Sin, double &Cos) {
  double X = 4 * U;
  double Q = std::floor(X);
  double T = (X - Q) * 1.5707963267948966;
  double T2 = T * T;
  double S = 0, C = 0, TermS = T, TermC = 1;
  for (int K = 0; K < 13; ++K) {
    S += TermS;
    C += TermC;
    TermS = -TermS * T2 / ((2 * K + 2) * (2 * K + 3));
    TermC = -TermC * T2 / ((2 * K + 1) * (2 * K + 2));
  }
  switch (static_cast<int>(Q) & 3) {
  case 0:
    Sin = S, Cos = C;
    break;
  case 1:
    Sin = C, Cos = -S;
    break;
  case 2:
    Sin = -S, Cos = -C;
    break;
  default:
    Sin = -C, Cos = S;
    break;
  }
}

double Rng::normal() {
  if (HasSpare) {
    HasSpare = false;
    return Spare;
  }
  double U1 = uniform();
  double U2 = uniform();
  double R = std::sqrt(-2.0 * detLog(1.0 - U1));
  double Sin, Cos;
  detSinCos2Pi(U2, Sin, Cos);
  Spare = R * Sin;
  HasSpare = true;
  return R * Cos;
}

Expected<std::vector<uint32_t>>
tile::rt::generateCodes(std::string_view DType, uint64_t NumElements, Rng &R) {
  num::Result<num::Format> F = num::parseFormat(DType);
  if (!F)
    return makeError(F.message());
  std::vector<uint32_t> Codes(NumElements);
  if (F->isInteger()) {
    unsigned Shift = 64 - F->bits();
    for (uint32_t &C : Codes)
      C = static_cast<uint32_t>(R.next() >> Shift);
    return Codes;
  }
  bool Unsigned = F->kind() == num::FormatKind::E8M0;
  for (uint32_t &C : Codes) {
    double Z = R.normal();
    C = num::encode(*F, Unsigned ? std::fabs(Z) : Z);
  }
  return Codes;
}

Expected<std::vector<uint8_t>> tile::rt::generateTensor(std::string_view DType,
                                                        uint64_t NumElements,
                                                        uint64_t Seed,
                                                        std::string_view Name) {
  Rng R = Rng::forTensor(Seed, Name);
  Expected<std::vector<uint32_t>> Codes = generateCodes(DType, NumElements, R);
  if (!Codes)
    return Codes.takeError();
  num::Result<num::Format> F = num::parseFormat(DType);
  num::Result<std::vector<uint8_t>> Packed = num::pack(*Codes, F->bits());
  if (!Packed)
    return makeError(Packed.message());
  return std::move(*Packed);
}
