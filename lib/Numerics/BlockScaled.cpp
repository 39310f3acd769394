//===- BlockScaled.cpp - MX and NVFP4 quantization ------------------------===//
//
// Part of tilec. See include/tile/Numerics/BlockScaled.h and
// docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/BlockScaled.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace tile::numerics;

unsigned tile::numerics::blockSize(BlockScheme S) {
  return S == BlockScheme::NVFP4 ? 16 : 32;
}

Format tile::numerics::blockElementFormat(BlockScheme S) {
  switch (S) {
  case BlockScheme::MXFP4:
  case BlockScheme::NVFP4:
    return *Format::smallFloat(2, 1);
  case BlockScheme::MXFP6E2M3:
    return *Format::smallFloat(2, 3);
  case BlockScheme::MXFP6E3M2:
    return *Format::smallFloat(3, 2);
  case BlockScheme::MXFP8E4M3:
    return *Format::smallFloat(4, 3);
  case BlockScheme::MXFP8E5M2:
    return *Format::smallFloat(5, 2);
  }
  return *Format::smallFloat(2, 1);
}

Format tile::numerics::blockScaleFormat(BlockScheme S) {
  return S == BlockScheme::NVFP4 ? *Format::smallFloat(4, 3) : Format::e8m0();
}

const char *tile::numerics::blockSchemeName(BlockScheme S) {
  switch (S) {
  case BlockScheme::MXFP4:
    return "mxfp4";
  case BlockScheme::MXFP6E2M3:
    return "mxfp6e2m3";
  case BlockScheme::MXFP6E3M2:
    return "mxfp6e3m2";
  case BlockScheme::MXFP8E4M3:
    return "mxfp8e4m3";
  case BlockScheme::MXFP8E5M2:
    return "mxfp8e5m2";
  case BlockScheme::NVFP4:
    return "nvfp4";
  }
  return "?";
}

namespace {

/// floor(log2(X)) for a finite X > 0, exactly.
int floorLog2(double X) {
  int E;
  std::frexp(X, &E);
  return E - 1;
}

/// One MX block: picks the e8m0 scale and encodes the elements.
void quantizeMXBlock(const float *X, size_t N, const Format &Elem, int EMax,
                     uint8_t *Codes, uint8_t &Scale) {
  double AMax = 0;
  bool Special = false;
  for (size_t I = 0; I < N; ++I) {
    if (!std::isfinite(X[I]))
      Special = true;
    else
      AMax = std::fmax(AMax, std::fabs(double(X[I])));
  }
  if (Special) {
    // OCP MX: a block holding NaN or inf gets a NaN scale.
    Scale = 0xFF;
    for (size_t I = 0; I < N; ++I)
      Codes[I] = uint8_t(encode(Elem, X[I], Overflow::Saturate));
    return;
  }
  // shared_exp = floor(log2(amax)) - emax_elem, clamped to e8m0's range; an
  // all-zero block takes the smallest scale.
  int SharedExp = AMax == 0 ? -127 : floorLog2(AMax) - EMax;
  if (SharedExp < -127)
    SharedExp = -127;
  if (SharedExp > 127)
    SharedExp = 127;
  Scale = uint8_t(SharedExp + 127);
  for (size_t I = 0; I < N; ++I)
    Codes[I] = uint8_t(
        encode(Elem, std::ldexp(double(X[I]), -SharedExp), Overflow::Saturate));
}

} // namespace

namespace {

/// An empty [Rows, Cols] tensor of scheme \p S, or the error of a shape
/// \p Data does not fill.
Result<BlockScaledTensor> emptyTensor(BlockScheme S,
                                      const std::vector<float> &Data,
                                      size_t Rows, size_t Cols) {
  if (Cols != 0 && Rows > SIZE_MAX / Cols)
    return Result<BlockScaledTensor>::error("tensor shape too large");
  if (Data.size() != Rows * Cols)
    return Result<BlockScaledTensor>::error(
        std::string(blockSchemeName(S)) + ": " + std::to_string(Data.size()) +
        " values do not form a [" + std::to_string(Rows) + ", " +
        std::to_string(Cols) + "] tensor");
  const unsigned BS = blockSize(S);
  BlockScaledTensor T;
  T.Scheme = S;
  T.Rows = Rows;
  T.Cols = Cols;
  T.Codes.assign(Rows * Cols, 0);
  T.Scales.assign(Rows * ((Cols + BS - 1) / BS), 0);
  return T;
}

} // namespace

Result<BlockScaledTensor> tile::numerics::quantizeBlockScaled(
    BlockScheme S, const std::vector<float> &Data, size_t Rows, size_t Cols) {
  if (S == BlockScheme::NVFP4)
    return quantizeNVFP4(Data, Rows, Cols, nvfp4TensorEncodeScale(Data));
  Result<BlockScaledTensor> R = emptyTensor(S, Data, Rows, Cols);
  if (!R)
    return R;
  BlockScaledTensor &T = *R;
  const unsigned BS = blockSize(S);
  const size_t BlocksPerRow = (Cols + BS - 1) / BS;
  const Format Elem = blockElementFormat(S);
  const int EMax = floorLog2(Elem.maxFinite());
  for (size_t Row = 0; Row < Rows; ++Row)
    for (size_t B = 0; B < BlocksPerRow; ++B) {
      size_t C0 = B * BS, N = std::min<size_t>(BS, Cols - C0);
      quantizeMXBlock(&Data[Row * Cols + C0], N, Elem, EMax,
                      &T.Codes[Row * Cols + C0],
                      T.Scales[Row * BlocksPerRow + B]);
    }
  return R;
}

float tile::numerics::nvfp4TensorEncodeScale(const std::vector<float> &Data) {
  float GAMax = 0;
  for (float V : Data)
    if (std::isfinite(V))
      GAMax = std::fmax(GAMax, std::fabs(V));
  float SEnc = 448.0f * 6.0f / GAMax;
  if (GAMax == 0 || !std::isfinite(SEnc) || SEnc == 0)
    return 1.0f; // All zeros, or an amax so small that 2688 / amax is inf.
  return SEnc;
}

Result<BlockScaledTensor>
tile::numerics::quantizeNVFP4(const std::vector<float> &Data, size_t Rows,
                              size_t Cols, float SEnc) {
  // NVIDIA's recipe (f32 arithmetic throughout):
  //   TensorScale = 1 / S_enc
  //   scale_b = e4m3(amax(block) / 6 * S_enc)          (RNE, saturating)
  //   code_i = e2m1(x_i * S_enc / scale_b)              (RNE, saturating)
  //   x_i ~ decode(code_i) * scale_b * TensorScale.
  const BlockScheme S = BlockScheme::NVFP4;
  Result<BlockScaledTensor> Res = emptyTensor(S, Data, Rows, Cols);
  if (!Res)
    return Res;
  BlockScaledTensor &T = *Res;
  const unsigned BS = blockSize(S);
  const size_t BlocksPerRow = (Cols + BS - 1) / BS;
  const Format Elem = blockElementFormat(S);
  const Format Scale = blockScaleFormat(S);
  T.TensorScale = 1.0f / SEnc;
  for (size_t R = 0; R < Rows; ++R)
    for (size_t B = 0; B < BlocksPerRow; ++B) {
      size_t C0 = B * BS, N = std::min<size_t>(BS, Cols - C0);
      const float *X = &Data[R * Cols + C0];
      float BAMax = 0;
      bool BlockNaN = false;
      for (size_t I = 0; I < N; ++I) {
        if (!std::isfinite(X[I]))
          BlockNaN = true;
        else
          BAMax = std::fmax(BAMax, std::fabs(X[I]));
      }
      uint8_t &SC = T.Scales[R * BlocksPerRow + B];
      uint8_t *Codes = &T.Codes[R * Cols + C0];
      if (BlockNaN) {
        // NaN or inf: the e4m3 NaN scale, the block reads as NaN.
        SC = uint8_t(Scale.nanCode());
        continue;
      }
      SC = uint8_t(encode(Scale, BAMax / 6.0f * SEnc, Overflow::Saturate));
      float ScaleVal = float(decode(Scale, SC));
      if (ScaleVal == 0)
        continue; // The whole block is below the scale's range: zeros.
      float Inv = SEnc / ScaleVal;
      for (size_t I = 0; I < N; ++I)
        Codes[I] = uint8_t(encode(Elem, X[I] * Inv, Overflow::Saturate));
    }
  return Res;
}

std::vector<float>
tile::numerics::dequantizeBlockScaled(const BlockScaledTensor &T) {
  const unsigned BS = blockSize(T.Scheme);
  const size_t BlocksPerRow = (T.Cols + BS - 1) / BS;
  const Format Elem = blockElementFormat(T.Scheme);
  const Format Scale = blockScaleFormat(T.Scheme);
  const double TS = T.Scheme == BlockScheme::NVFP4 ? T.TensorScale : 1.0;
  std::vector<float> Out(T.Rows * T.Cols);
  if (T.Codes.size() < Out.size() || T.Scales.size() < T.Rows * BlocksPerRow) {
    std::fill(Out.begin(), Out.end(), std::numeric_limits<float>::quiet_NaN());
    return Out;
  }
  for (size_t R = 0; R < T.Rows; ++R)
    for (size_t C = 0; C < T.Cols; ++C) {
      double SV = decode(Scale, T.Scales[R * BlocksPerRow + C / BS]);
      Out[R * T.Cols + C] =
          float(decode(Elem, T.Codes[R * T.Cols + C]) * SV * TS);
    }
  return Out;
}
