//===- Random.cpp - Seeded test inputs ------------------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Random.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

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

namespace {

/// The Box-Muller pair of two raw draws: r cos, r sin.
void boxMuller(uint64_t Draw1, uint64_t Draw2, double &Cos, double &Sin) {
  double U1 = static_cast<double>(Draw1 >> 11) * 0x1p-53;
  double U2 = static_cast<double>(Draw2 >> 11) * 0x1p-53;
  double R = std::sqrt(-2.0 * detLog(1.0 - U1));
  detSinCos2Pi(U2, Sin, Cos);
  Cos *= R;
  Sin *= R;
}

/// Runs \p Body(Begin, End) over [0, N) on up to hardware_concurrency()
/// threads (on the calling thread alone when N is small).
template <typename F> void parallelFor(uint64_t N, F Body) {
  unsigned Threads = std::min(32u, std::thread::hardware_concurrency());
  constexpr uint64_t MinPerThread = 1 << 14;
  if (Threads <= 1 || N < 2 * MinPerThread) {
    Body(uint64_t(0), N);
    return;
  }
  Threads = static_cast<unsigned>(
      std::min<uint64_t>(Threads, (N + MinPerThread - 1) / MinPerThread));
  std::vector<std::thread> Pool;
  uint64_t Step = (N + Threads - 1) / Threads;
  for (unsigned T = 1; T < Threads; ++T) {
    uint64_t Begin = std::min(N, T * Step), End = std::min(N, Begin + Step);
    Pool.emplace_back([=] { Body(Begin, End); });
  }
  Body(0, std::min(N, Step));
  for (std::thread &T : Pool)
    T.join();
}

} // namespace

double Rng::normal() {
  if (HasSpare) {
    HasSpare = false;
    return Spare;
  }
  uint64_t Draw1 = next();
  uint64_t Draw2 = next();
  double Cos, Sin;
  boxMuller(Draw1, Draw2, Cos, Sin);
  Spare = Sin;
  HasSpare = true;
  return Cos;
}

void Rng::normals(double *Out, uint64_t N) {
  uint64_t Done = 0;
  if (N && HasSpare) {
    Out[Done++] = Spare;
    HasSpare = false;
  }
  // Whole pairs: draws in order on this thread, transforms in parallel.
  constexpr uint64_t ChunkPairs = 1 << 18;
  std::vector<uint64_t> Draws;
  while (N - Done >= 2) {
    uint64_t Pairs = std::min(ChunkPairs, (N - Done) / 2);
    Draws.resize(2 * Pairs);
    for (uint64_t &D : Draws)
      D = next();
    double *Dst = Out + Done;
    parallelFor(Pairs, [&](uint64_t Begin, uint64_t End) {
      for (uint64_t P = Begin; P < End; ++P)
        boxMuller(Draws[2 * P], Draws[2 * P + 1], Dst[2 * P], Dst[2 * P + 1]);
    });
    Done += 2 * Pairs;
  }
  if (Done < N)
    Out[Done] = normal(); // The last one; its sine stays the spare.
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
  // In chunks: a bounded buffer of values, encoded in parallel.
  constexpr uint64_t Chunk = 1 << 20;
  std::vector<double> Z(std::min<uint64_t>(Chunk, NumElements));
  for (uint64_t Begin = 0; Begin < NumElements; Begin += Chunk) {
    uint64_t Count = std::min(Chunk, NumElements - Begin);
    R.normals(Z.data(), Count);
    uint32_t *Dst = Codes.data() + Begin;
    parallelFor(Count, [&](uint64_t Lo, uint64_t Hi) {
      for (uint64_t I = Lo; I < Hi; ++I)
        Dst[I] = num::encode(*F, Unsigned ? std::fabs(Z[I]) : Z[I]);
    });
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
