//===- WeightQuant.cpp - Per-channel / per-group weight quantization ------===//
//
// Part of tilec. See include/tile/Numerics/WeightQuant.h and
// docs/Numerics.md ("Weight quantization") for the conventions.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/WeightQuant.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tile::numerics;

namespace {

/// Rounds a positive scale to its storage type; never returns 0 or inf.
float storeScale(double S, ScaleType T) {
  if (T == ScaleType::F32) {
    float F = float(S);
    if (F == 0)
      F = std::numeric_limits<float>::denorm_min();
    if (std::isinf(F))
      F = std::numeric_limits<float>::max();
    return F;
  }
  float F = roundToF16Saturating(float(S));
  if (F == 0)
    F = 5.9604644775390625e-8f; // 2^-24, the smallest f16.
  return F;
}

float storeValue(double V, ScaleType T) {
  return T == ScaleType::F32 ? float(V) : roundToF16Saturating(float(V));
}

/// Rounds a double to f16 (RNE, IEEE overflow) and back.
double toF16(double V) {
  static const Format F16 = Format::f16();
  return decode(F16, encode(F16, V, Overflow::Ieee));
}

} // namespace

Result<QuantizedWeights>
tile::numerics::quantizeWeights(const std::vector<float> &W, size_t K, size_t N,
                                const WeightQuantOptions &Opts) {
  using R = Result<QuantizedWeights>;
  const Format &F = Opts.CodeFormat;
  const std::string Name = formatName(F);
  if (F.kind() != FormatKind::UInt && F.kind() != FormatKind::SInt &&
      F.kind() != FormatKind::SmallFloat)
    return R::error("weight quantization to " + Name +
                    " is not supported: use an integer or small-float format");
  if (F.isInteger() && Opts.Symmetric && F.bits() < 2)
    return R::error("symmetric quantization to " + Name +
                    " needs at least 2 bits");
  if (K == 0 || N == 0)
    return R::error("weight shape [" + std::to_string(K) + ", " +
                    std::to_string(N) + "] is empty");
  if (K > W.size() / N || W.size() != K * N)
    return R::error(std::to_string(W.size()) + " weights do not form a [" +
                    std::to_string(K) + ", " + std::to_string(N) + "] tensor");
  size_t G = Opts.GroupSize == 0 ? K : Opts.GroupSize;
  if (K % G != 0)
    return R::error("group size " + std::to_string(G) +
                    " does not divide K = " + std::to_string(K));
  for (float V : W)
    if (!std::isfinite(V))
      return R::error("weights must be finite");

  QuantizedWeights Q;
  Q.CodeFormat = F;
  Q.K = K;
  Q.N = N;
  Q.GroupSize = G;
  Q.NumGroups = K / G;
  Q.Scales = Opts.Scales;
  Q.Codes.assign(K * N, 0);
  Q.Scale.assign(Q.NumGroups * N, 1.0f);
  Q.Zero.assign(Q.NumGroups * N, 0.0f);

  // The code range [QMin, QMax] in code-value units.
  const double QMax = F.maxFinite(), QMin = F.lowest();
  const bool IsInt = F.isInteger();
  const bool IsUnsigned = F.kind() == FormatKind::UInt;

  for (size_t Grp = 0; Grp < Q.NumGroups; ++Grp)
    for (size_t Col = 0; Col < N; ++Col) {
      double Lo = 0, Hi = 0, AMax = 0;
      bool First = true;
      for (size_t K0 = Grp * G; K0 < (Grp + 1) * G; ++K0) {
        double V = W[K0 * N + Col];
        Lo = First ? V : std::min(Lo, V);
        Hi = First ? V : std::max(Hi, V);
        First = false;
        AMax = std::max(AMax, std::fabs(V));
      }
      // Symmetric defaults: Z is the code of value 0 (2^(b-1) for uN).
      double Half = IsInt ? std::ldexp(1.0, int(F.bits()) - 1) - 1 : QMax;
      double SymZ = IsUnsigned ? Half + 1 : 0;
      double S = AMax / Half, Z = SymZ;
      bool Asym = !Opts.Symmetric;
      if (Asym) {
        if (IsInt) {
          // Range includes 0 so that 0 is exactly representable.
          double L = std::min(Lo, 0.0), H = std::max(Hi, 0.0);
          S = (H - L) / (QMax - QMin);
        } else {
          S = (Hi - Lo) / (2 * QMax);
        }
        if (S == 0) // A constant group: fall back to the symmetric choice.
          Asym = false, S = AMax / Half;
      }
      if (S == 0)
        S = 1; // An all-zero group: any scale; every code is Z.
      float SS = storeScale(S, Opts.Scales);
      if (Asym) {
        if (IsInt) {
          double L = std::min(Lo, 0.0);
          Z = std::nearbyint(QMin - L / SS);
          Z = std::min(std::max(Z, QMin), QMax);
        } else {
          Z = -(Hi + Lo) / 2 / SS;
        }
      }
      float SZ = storeValue(Z, Opts.Scales);
      Q.Scale[Grp * N + Col] = SS;
      Q.Zero[Grp * N + Col] = SZ;
      for (size_t K0 = Grp * G; K0 < (Grp + 1) * G; ++K0)
        Q.Codes[K0 * N + Col] =
            encode(F, double(W[K0 * N + Col]) / SS + SZ, Overflow::Saturate);
    }

  std::vector<float> D = dequantizeWeights(Q);
  double Sum = 0;
  for (size_t I = 0; I < D.size(); ++I) {
    double E = std::fabs(double(D[I]) - double(W[I]));
    Q.Error.MaxAbs = std::max(Q.Error.MaxAbs, E);
    Sum += E;
  }
  Q.Error.MeanAbs = Sum / double(D.size());
  return Q;
}

std::vector<float>
tile::numerics::dequantizeWeights(const QuantizedWeights &Q) {
  std::vector<float> Out(Q.K * Q.N, 0.0f);
  if (Q.GroupSize == 0 || Q.Codes.size() < Out.size() ||
      Q.Scale.size() < Q.NumGroups * Q.N || Q.Zero.size() < Q.NumGroups * Q.N)
    return Out;
  for (size_t K0 = 0; K0 < Q.K; ++K0)
    for (size_t Col = 0; Col < Q.N; ++Col) {
      size_t SI = (K0 / Q.GroupSize) * Q.N + Col;
      double C = decode(Q.CodeFormat, Q.Codes[K0 * Q.N + Col]);
      if (Q.Scales == ScaleType::F16) {
        // Each f16 operation is exact in double, then rounded once.
        double T = toF16(toF16(C) - double(Q.Zero[SI]));
        Out[K0 * Q.N + Col] = float(toF16(T * double(Q.Scale[SI])));
      } else {
        float T = float(C) - Q.Zero[SI];
        Out[K0 * Q.N + Col] = T * Q.Scale[SI];
      }
    }
  return Out;
}

std::vector<uint16_t>
tile::numerics::toF16Bits(const std::vector<float> &Values) {
  std::vector<uint16_t> Out(Values.size());
  for (size_t I = 0; I < Values.size(); ++I)
    Out[I] = f32ToF16(Values[I]);
  return Out;
}
