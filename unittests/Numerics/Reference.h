//===- Reference.h - Independent reference for the numeric formats --------===//
//
// Part of tilec. A deliberately naive model of every format, written from
// the specifications (OCP 8-bit FP, OCP MX v1.0, IEEE-754) and from the type
// name alone: it never calls lib/Numerics. Values are enumerated with the
// textbook formula sign * 2^(e - bias) * (1 + m / 2^M) in long double, and
// encoding is a nearest-value search over that table with ties to even.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_NUMERICS_REFERENCE_H
#define TILE_UNITTESTS_NUMERICS_REFERENCE_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ref {

/// A format as described by its name.
struct RefFormat {
  std::string Name;
  char Family = 'f'; ///< 'u', 'i', 'f' (fNeXmY, f16, bf16), 's' (e8m0).
  int N = 0, X = 0, Y = 0;
  bool Ieee = false;    ///< exponent all ones = inf / NaN.
  bool NaNOnly = false; ///< only S.1..1.1..1 is NaN (f8e4m3).
  /// Decoded value of every code (NaN for NaN codes).
  std::vector<long double> Values;
  /// Distinct finite values, ascending, with the code of each; zero maps to
  /// the +0 code.
  std::vector<std::pair<long double, uint32_t>> Sorted;
  uint32_t MaxCode = 0, MinCode = 0; ///< codes of the largest / lowest value.
  uint32_t InfCode = 0;              ///< +inf (Ieee only).
  uint32_t SignBit = 0;              ///< 0 if unsigned.

  long double maxValue() const { return Sorted.back().first; }
  long double minValue() const { return Sorted.front().first; }
};

inline long double pow2(int E) { return std::ldexp(1.0L, E); }

/// Builds the reference model of a type name.
inline RefFormat makeRef(const std::string &Name) {
  RefFormat F;
  F.Name = Name;
  int N = 0, X = 0, Y = 0;
  if (Name == "e8m0") {
    F.Family = 's';
    F.N = 8;
  } else if (Name == "f16") {
    F.N = 16, F.X = 5, F.Y = 10, F.Ieee = true;
  } else if (Name == "bf16") {
    F.N = 16, F.X = 8, F.Y = 7, F.Ieee = true;
  } else if (std::sscanf(Name.c_str(), "f%de%dm%d", &N, &X, &Y) == 3) {
    F.N = N, F.X = X, F.Y = Y;
    F.NaNOnly = (X == 4 && Y == 3);
    F.Ieee = (X == 5 && Y == 2);
  } else {
    F.Family = Name[0];
    F.N = std::atoi(Name.c_str() + 1);
  }
  const uint32_t NumCodes = uint32_t(1) << F.N;
  F.SignBit = (F.Family == 'f' || F.Family == 'i') ? (1u << (F.N - 1)) : 0;
  for (uint32_t C = 0; C < NumCodes; ++C) {
    long double V;
    if (F.Family == 'u') {
      V = C;
    } else if (F.Family == 'i') {
      V = C < (1u << (F.N - 1)) ? (long double)C
                                : (long double)C - (long double)NumCodes;
    } else if (F.Family == 's') {
      V = C == 255 ? NAN : pow2(int(C) - 127);
    } else {
      int S = int(C >> (F.N - 1));
      int E = int((C >> F.Y) & ((1u << F.X) - 1));
      int M = int(C & ((1u << F.Y) - 1));
      int Bias = (1 << (F.X - 1)) - 1;
      int EAll = (1 << F.X) - 1, MAll = (1 << F.Y) - 1;
      if (F.Ieee && E == EAll)
        V = M == 0 ? INFINITY : NAN;
      else if (F.NaNOnly && E == EAll && M == MAll)
        V = NAN;
      else if (E == 0)
        V = (long double)M / pow2(F.Y) * pow2(1 - Bias);
      else
        V = (1 + (long double)M / pow2(F.Y)) * pow2(E - Bias);
      if (S)
        V = -V;
      if (F.Ieee && E == EAll && M == 0 && !S)
        F.InfCode = C;
    }
    F.Values.push_back(V);
  }
  std::map<long double, uint32_t> Distinct;
  for (uint32_t C = 0; C < NumCodes; ++C) {
    long double V = F.Values[C];
    if (std::isnan(V) || std::isinf(V))
      continue;
    if (V == 0 && std::signbit(V))
      continue; // -0 is the same value as +0.
    Distinct.emplace(V, C);
  }
  F.Sorted.assign(Distinct.begin(), Distinct.end());
  F.MaxCode = F.Sorted.back().second;
  F.MinCode = F.Sorted.front().second;
  return F;
}

/// The code this project documents for NaN inputs.
inline uint32_t refNaNCode(const RefFormat &F, bool Negative) {
  if (F.Family == 's')
    return 0xFF;
  if (F.NaNOnly)
    return (Negative ? F.SignBit : 0) | (F.SignBit - 1);
  if (F.Ieee) // quiet NaN: exponent all ones, top mantissa bit.
    return (Negative ? F.SignBit : 0) | F.InfCode | (1u << (F.Y - 1));
  return 0;
}

/// The code a value exactly halfway between A < B (codes CA, CB) rounds
/// to: the one with the even code (for floats: the even last significand
/// bit). Formats without mantissa bits (fNeXm0, e8m0) have an implicit,
/// always odd, significand "1" for every nonzero value, so their ties go to
/// the larger magnitude -- except a tie with zero, which goes to zero.
inline uint32_t refTieCode(const RefFormat &F, long double A, uint32_t CA,
                           long double B, uint32_t CB) {
  bool NoMantissa = F.Family == 's' || (F.Family == 'f' && F.Y == 0);
  if (NoMantissa) {
    if (A == 0 || B == 0)
      return A == 0 ? CA : CB;
    return std::fabs(A) > std::fabs(B) ? CA : CB;
  }
  return (CA & 1) == 0 ? CA : CB;
}

/// The reference encoder. Ieee = overflow to inf (true only for formats
/// with inf) instead of saturating.
inline uint32_t refEncode(const RefFormat &F, long double X,
                          bool IeeeOverflow = false) {
  bool Neg = std::signbit(X);
  if (std::isnan(X))
    return refNaNCode(F, Neg);
  if (F.Family == 's' && Neg && X != 0)
    return 0xFF;
  // Candidates: every finite value, plus (IEEE rounding) inf as the value
  // 2^(emax + 1) just past the largest finite one.
  std::vector<std::pair<long double, uint32_t>> const &S = F.Sorted;
  if (std::isinf(X)) {
    if (F.Ieee)
      return F.InfCode | (Neg ? F.SignBit : 0);
    return Neg ? F.MinCode : F.MaxCode;
  }
  long double Top = F.maxValue();
  if (IeeeOverflow && F.Ieee) {
    int Bias = (1 << (F.X - 1)) - 1;
    long double Inf = pow2((1 << F.X) - 1 - Bias);
    long double Mid = (Top + Inf) / 2;
    if (std::fabs(X) >= Mid) // the tie goes to the even code, inf.
      return F.InfCode | (Neg ? F.SignBit : 0);
  }
  if (X >= Top)
    return F.MaxCode;
  if (X <= F.minValue())
    return F.MinCode;
  auto It = std::lower_bound(S.begin(), S.end(), X,
                             [](const std::pair<long double, uint32_t> &P,
                                long double V) { return P.first < V; });
  // S[It] >= X > S[It - 1]
  uint32_t Code;
  if (It->first == X) {
    Code = It->second;
  } else {
    auto Lo = It - 1;
    long double Mid = (Lo->first + It->first) / 2;
    if (X < Mid)
      Code = Lo->second;
    else if (X > Mid)
      Code = It->second;
    else
      Code = refTieCode(F, Lo->first, Lo->second, It->first, It->second);
  }
  // A zero result keeps the sign of the input in signed float formats.
  if (F.Family == 'f' && F.Values[Code] == 0 && Neg)
    Code |= F.SignBit;
  return Code;
}

/// All small-float names fNeXmY with N <= 8.
inline std::vector<std::string> allSmallFloatNames() {
  std::vector<std::string> Names;
  for (int X = 1; X <= 7; ++X)
    for (int Y = 0; 1 + X + Y <= 8; ++Y)
      Names.push_back("f" + std::to_string(1 + X + Y) + "e" +
                      std::to_string(X) + "m" + std::to_string(Y));
  return Names;
}

/// Every format with at most 8 bits.
inline std::vector<std::string> allByteFormatNames() {
  std::vector<std::string> Names = allSmallFloatNames();
  for (int B = 1; B <= 8; ++B) {
    Names.push_back("u" + std::to_string(B));
    Names.push_back("i" + std::to_string(B));
  }
  Names.push_back("e8m0");
  return Names;
}

} // namespace ref

#endif // TILE_UNITTESTS_NUMERICS_REFERENCE_H
