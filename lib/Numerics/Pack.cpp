//===- Pack.cpp - Dense bit-stream packing --------------------------------===//
//
// Part of tilec. See include/tile/Numerics/Pack.h for the storage order.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/Pack.h"

#include <cstdint>

using namespace tile::numerics;

namespace {

Status checkBits(unsigned Bits, unsigned MaxBits) {
  if (Bits < 1 || Bits > MaxBits)
    return Status::error("element width must be 1.." + std::to_string(MaxBits) +
                         " bits, got " + std::to_string(Bits));
  return Status();
}

uint32_t maskOf(unsigned Bits) {
  return Bits == 32 ? 0xFFFFFFFFu : ((1u << Bits) - 1u);
}

/// Sub-byte power-of-two widths (1, 2, 4): 8 / Bits codes per byte.
template <typename CodeT>
void packSubByte(const CodeT *Codes, size_t N, unsigned Bits, uint8_t *Out) {
  const unsigned PerByte = 8 / Bits;
  const uint32_t Mask = maskOf(Bits);
  size_t Full = N / PerByte;
  for (size_t B = 0; B < Full; ++B) {
    uint32_t V = 0;
    const CodeT *C = Codes + B * PerByte;
    for (unsigned J = 0; J < PerByte; ++J)
      V |= (uint32_t(C[J]) & Mask) << (J * Bits);
    Out[B] = uint8_t(V);
  }
  if (size_t Tail = N - Full * PerByte) {
    uint32_t V = 0;
    for (size_t J = 0; J < Tail; ++J)
      V |= (uint32_t(Codes[Full * PerByte + J]) & Mask) << (J * Bits);
    Out[Full] = uint8_t(V);
  }
}

template <typename CodeT>
void unpackSubByte(const uint8_t *In, size_t N, unsigned Bits, CodeT *Out) {
  const unsigned PerByte = 8 / Bits;
  const uint32_t Mask = maskOf(Bits);
  size_t Full = N / PerByte;
  for (size_t B = 0; B < Full; ++B) {
    uint32_t V = In[B];
    for (unsigned J = 0; J < PerByte; ++J)
      Out[B * PerByte + J] = CodeT((V >> (J * Bits)) & Mask);
  }
  for (size_t I = Full * PerByte; I < N; ++I)
    Out[I] =
        CodeT((uint32_t(In[Full]) >> ((I - Full * PerByte) * Bits)) & Mask);
}

/// Whole-byte widths (8, 16, 24, 32): little-endian bytes.
template <typename CodeT>
void packBytes(const CodeT *Codes, size_t N, unsigned Bits, uint8_t *Out) {
  const unsigned NB = Bits / 8;
  for (size_t I = 0; I < N; ++I) {
    uint32_t V = uint32_t(Codes[I]);
    for (unsigned J = 0; J < NB; ++J)
      Out[I * NB + J] = uint8_t(V >> (8 * J));
  }
}

template <typename CodeT>
void unpackBytes(const uint8_t *In, size_t N, unsigned Bits, CodeT *Out) {
  const unsigned NB = Bits / 8;
  for (size_t I = 0; I < N; ++I) {
    uint32_t V = 0;
    for (unsigned J = 0; J < NB; ++J)
      V |= uint32_t(In[I * NB + J]) << (8 * J);
    Out[I] = CodeT(V);
  }
}

/// Any width: a 64-bit accumulator flushed a byte at a time.
template <typename CodeT>
void packGeneral(const CodeT *Codes, size_t N, unsigned Bits, uint8_t *Out) {
  const uint64_t Mask = maskOf(Bits);
  uint64_t Acc = 0;
  unsigned Have = 0;
  size_t O = 0;
  for (size_t I = 0; I < N; ++I) {
    Acc |= (uint64_t(Codes[I]) & Mask) << Have;
    Have += Bits;
    while (Have >= 8) {
      Out[O++] = uint8_t(Acc);
      Acc >>= 8;
      Have -= 8;
    }
  }
  if (Have)
    Out[O] = uint8_t(Acc);
}

template <typename CodeT>
void unpackGeneral(const uint8_t *In, size_t N, unsigned Bits, CodeT *Out) {
  const uint64_t Mask = maskOf(Bits);
  uint64_t Acc = 0;
  unsigned Have = 0;
  size_t P = 0;
  for (size_t I = 0; I < N; ++I) {
    while (Have < Bits) {
      Acc |= uint64_t(In[P++]) << Have;
      Have += 8;
    }
    Out[I] = CodeT(Acc & Mask);
    Acc >>= Bits;
    Have -= Bits;
  }
}

template <typename CodeT>
void packImpl(const CodeT *Codes, size_t N, unsigned Bits, uint8_t *Out) {
  if (Bits == 1 || Bits == 2 || Bits == 4)
    packSubByte(Codes, N, Bits, Out);
  else if (Bits % 8 == 0)
    packBytes(Codes, N, Bits, Out);
  else
    packGeneral(Codes, N, Bits, Out);
}

template <typename CodeT>
void unpackImpl(const uint8_t *In, size_t N, unsigned Bits, CodeT *Out) {
  if (Bits == 1 || Bits == 2 || Bits == 4)
    unpackSubByte(In, N, Bits, Out);
  else if (Bits % 8 == 0)
    unpackBytes(In, N, Bits, Out);
  else
    unpackGeneral(In, N, Bits, Out);
}

} // namespace

Status tile::numerics::packBits(const uint32_t *Codes, size_t N, unsigned Bits,
                                uint8_t *Out) {
  if (Status S = checkBits(Bits, 32); !S)
    return S;
  packImpl(Codes, N, Bits, Out);
  return Status();
}

Status tile::numerics::packBits(const uint8_t *Codes, size_t N, unsigned Bits,
                                uint8_t *Out) {
  if (Status S = checkBits(Bits, 8); !S)
    return S;
  packImpl(Codes, N, Bits, Out);
  return Status();
}

Status tile::numerics::unpackBits(const uint8_t *In, size_t N, unsigned Bits,
                                  uint32_t *Out) {
  if (Status S = checkBits(Bits, 32); !S)
    return S;
  unpackImpl(In, N, Bits, Out);
  return Status();
}

Status tile::numerics::unpackBits(const uint8_t *In, size_t N, unsigned Bits,
                                  uint8_t *Out) {
  if (Status S = checkBits(Bits, 8); !S)
    return S;
  unpackImpl(In, N, Bits, Out);
  return Status();
}

Result<std::vector<uint8_t>>
tile::numerics::pack(const std::vector<uint32_t> &Codes, unsigned Bits) {
  if (Status S = checkBits(Bits, 32); !S)
    return S;
  std::vector<uint8_t> Out(packedSizeBytes(Codes.size(), Bits));
  packImpl(Codes.data(), Codes.size(), Bits, Out.data());
  return Out;
}

Result<std::vector<uint32_t>>
tile::numerics::unpack(const std::vector<uint8_t> &Bytes, size_t N,
                       unsigned Bits) {
  if (Status S = checkBits(Bits, 32); !S)
    return S;
  if (N > SIZE_MAX / 32)
    return Result<std::vector<uint32_t>>::error("too many elements: " +
                                                std::to_string(N));
  if (Bytes.size() < packedSizeBytes(N, Bits))
    return Result<std::vector<uint32_t>>::error(
        "packed stream too short: " + std::to_string(N) + " elements of " +
        std::to_string(Bits) + " bits need " +
        std::to_string(packedSizeBytes(N, Bits)) + " bytes, got " +
        std::to_string(Bytes.size()));
  std::vector<uint32_t> Out(N);
  unpackImpl(Bytes.data(), N, Bits, Out.data());
  return Out;
}

Result<std::vector<uint8_t>>
tile::numerics::pack2D(const std::vector<uint32_t> &Codes, size_t Rows,
                       size_t Cols, unsigned Bits) {
  if (Cols != 0 && Rows > SIZE_MAX / Cols)
    return Result<std::vector<uint8_t>>::error("tensor shape too large");
  if (Codes.size() != Rows * Cols)
    return Result<std::vector<uint8_t>>::error(
        "pack2D: " + std::to_string(Codes.size()) + " codes do not form a [" +
        std::to_string(Rows) + ", " + std::to_string(Cols) + "] tensor");
  return pack(Codes, Bits);
}

Result<std::vector<uint32_t>>
tile::numerics::unpack2D(const std::vector<uint8_t> &Bytes, size_t Rows,
                         size_t Cols, unsigned Bits) {
  if (Cols != 0 && Rows > SIZE_MAX / Cols)
    return Result<std::vector<uint32_t>>::error("tensor shape too large");
  return unpack(Bytes, Rows * Cols, Bits);
}

uint32_t tile::numerics::readPacked(const uint8_t *In, size_t Index,
                                    unsigned Bits) {
  size_t Bit = Index * Bits;
  size_t Byte = Bit / 8;
  unsigned Off = unsigned(Bit % 8);
  unsigned NBytes = (Off + Bits + 7) / 8;
  uint64_t Acc = 0;
  for (unsigned J = 0; J < NBytes; ++J)
    Acc |= uint64_t(In[Byte + J]) << (8 * J);
  return uint32_t((Acc >> Off) & maskOf(Bits));
}

void tile::numerics::writePacked(uint8_t *Out, size_t Index, unsigned Bits,
                                 uint32_t Code) {
  size_t Bit = Index * Bits;
  size_t Byte = Bit / 8;
  unsigned Off = unsigned(Bit % 8);
  unsigned NBytes = (Off + Bits + 7) / 8;
  uint64_t Mask = uint64_t(maskOf(Bits)) << Off;
  uint64_t Val = (uint64_t(Code) & maskOf(Bits)) << Off;
  for (unsigned J = 0; J < NBytes; ++J) {
    uint8_t M = uint8_t(Mask >> (8 * J));
    Out[Byte + J] =
        uint8_t((Out[Byte + J] & ~M) | (uint8_t(Val >> (8 * J)) & M));
  }
}
