//===- Compare.cpp - Checking outputs against references ------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Compare.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace tile::rt;
namespace num = tile::numerics;

static bool isExact(const num::Format &F) {
  return F.isInteger() || F.kind() == num::FormatKind::E8M0;
}

Tolerance tile::rt::defaultTolerance(std::string_view DType) {
  Tolerance T{0, 0};
  num::Result<num::Format> F = num::parseFormat(DType);
  if (!F || isExact(*F))
    return T;
  double Tol = std::max(2 * std::ldexp(1.0, -int(F->manBits())), 1e-4);
  T.Atol = T.Rtol = Tol;
  return T;
}

std::string CompareStats::summary() const {
  char Buf[256];
  std::snprintf(Buf, sizeof(Buf),
                "max_abs=%.4g max_rel=%.4g mismatches=%llu/%llu", MaxAbs,
                MaxRel, static_cast<unsigned long long>(Mismatches),
                static_cast<unsigned long long>(Count));
  std::string S = Buf;
  if (FirstBad >= 0) {
    std::snprintf(Buf, sizeof(Buf), " (first at %lld: got %.9g want %.9g)",
                  static_cast<long long>(FirstBad), FirstGot, FirstWant);
    S += Buf;
  }
  return S;
}

Expected<CompareStats> tile::rt::compareTensors(std::string_view DType,
                                                const uint8_t *Got,
                                                const uint8_t *Want, uint64_t N,
                                                Tolerance Tol) {
  num::Result<num::Format> F = num::parseFormat(DType);
  if (!F)
    return makeError(F.message());
  Tolerance Default = defaultTolerance(DType);
  if (Tol.Atol < 0)
    Tol.Atol = Default.Atol;
  if (Tol.Rtol < 0)
    Tol.Rtol = Default.Rtol;
  CompareStats S;
  S.Count = N;
  S.Exact = isExact(*F);
  for (uint64_t I = 0; I < N; ++I) {
    uint32_t GC = num::readPacked(Got, I, F->bits());
    uint32_t WC = num::readPacked(Want, I, F->bits());
    double G = num::decode(*F, GC), W = num::decode(*F, WC);
    bool Ok;
    if (S.Exact) {
      Ok = GC == WC;
    } else if (std::isnan(W) || std::isnan(G)) {
      Ok = std::isnan(W) && std::isnan(G);
    } else if (std::isinf(W) || std::isinf(G)) {
      Ok = G == W;
    } else {
      Ok = std::fabs(G - W) <= Tol.Atol + Tol.Rtol * std::fabs(W);
    }
    if (std::isfinite(G) && std::isfinite(W)) {
      double Abs = std::fabs(G - W);
      S.MaxAbs = std::max(S.MaxAbs, Abs);
      if (W != 0)
        S.MaxRel = std::max(S.MaxRel, Abs / std::fabs(W));
    }
    if (!Ok) {
      if (S.Mismatches++ == 0) {
        S.FirstBad = static_cast<int64_t>(I);
        S.FirstGot = G;
        S.FirstWant = W;
      }
    }
  }
  return S;
}

Expected<int64_t> tile::rt::poisonLeft(std::string_view DType,
                                       const uint8_t *Ref, uint64_t N) {
  num::Result<num::Format> F = num::parseFormat(DType);
  if (!F)
    return makeError(F.message());
  unsigned Bits = F->bits();
  if (Bits > 32)
    return makeError("poisonLeft: " + std::string(DType) +
                     " is wider than 32 bits");
  uint32_t Ones = Bits == 32 ? ~0u : (1u << Bits) - 1;
  // Where all ones is a number (integers: -1 or the maximum; f4e2m1: -6)
  // an output may hold it everywhere (a max over random u4 codes is 15):
  // nothing tells the poison apart. Nor in formats of at most 8 bits, whose
  // every code an input may hold and a copy or cast passes on (f8e5m2's
  // 0xFF cast to f8e5m2), or where all ones is the canonical NaN a
  // conversion returns (f8e4m3's negative NaN, 0xFF).
  if (Bits <= 8 || isExact(*F) || !std::isnan(num::decode(*F, Ones)))
    return -1;
  for (uint64_t I = 0; I < N; ++I)
    if (num::readPacked(Ref, I, Bits) == Ones)
      return static_cast<int64_t>(I);
  return -1;
}
