//===- CAPI.cpp - C ABI of lib/Numerics -----------------------------------===//
//
// Part of tilec. See include/tile/Numerics/CAPI.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/CAPI.h"
#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"

#include <limits>

using namespace tile::numerics;

static_assert(TILE_NUM_KIND_UINT == int(FormatKind::UInt) &&
                  TILE_NUM_KIND_SINT == int(FormatKind::SInt) &&
                  TILE_NUM_KIND_SMALL_FLOAT == int(FormatKind::SmallFloat) &&
                  TILE_NUM_KIND_E8M0 == int(FormatKind::E8M0) &&
                  TILE_NUM_KIND_F16 == int(FormatKind::F16) &&
                  TILE_NUM_KIND_BF16 == int(FormatKind::BF16) &&
                  TILE_NUM_KIND_F32 == int(FormatKind::F32),
              "C API kinds must match FormatKind");

namespace {

/// Format::fromId() behind a small per-thread cache: generated code calls
/// these entry points per element with one or two ids.
bool lookup(uint32_t Id, Format &F) {
  thread_local uint32_t Ids[2] = {0, 0};
  thread_local Format Fmts[2];
  thread_local unsigned Next = 0;
  if (Id != 0 && Id == Ids[0]) {
    F = Fmts[0];
    return true;
  }
  if (Id != 0 && Id == Ids[1]) {
    F = Fmts[1];
    return true;
  }
  Result<Format> R = Format::fromId(Id);
  if (!R)
    return false;
  Ids[Next] = Id;
  Fmts[Next] = *R;
  Next ^= 1;
  F = *R;
  return true;
}

} // namespace

extern "C" {

uint32_t tile_num_format_id(const char *name) {
  if (!name)
    return 0;
  Result<Format> F = parseFormat(name);
  return F ? F->id() : 0;
}

int tile_num_format_valid(uint32_t fmtId) {
  Format F;
  return lookup(fmtId, F) ? 1 : 0;
}

float tile_num_decode(uint32_t code, uint32_t fmtId) {
  Format F;
  if (!lookup(fmtId, F))
    return std::numeric_limits<float>::quiet_NaN();
  return decodeF32(F, code);
}

double tile_num_decode_f64(uint32_t code, uint32_t fmtId) {
  Format F;
  if (!lookup(fmtId, F))
    return std::numeric_limits<double>::quiet_NaN();
  return decode(F, code);
}

uint32_t tile_num_encode_f32(float x, uint32_t fmtId) {
  Format F;
  if (!lookup(fmtId, F))
    return 0;
  if (F.kind() == FormatKind::F16)
    return f32ToF16(x);
  if (F.kind() == FormatKind::BF16)
    return f32ToBF16(x);
  return encode(F, double(x));
}

uint32_t tile_num_encode_f64(double x, uint32_t fmtId) {
  Format F;
  return lookup(fmtId, F) ? encode(F, x) : 0;
}

uint32_t tile_num_convert(uint32_t code, uint32_t fromId, uint32_t toId) {
  Format From, To;
  if (!lookup(fromId, From) || !lookup(toId, To))
    return 0;
  return convert(code, From, To);
}

uint16_t tile_num_f32_to_f16(float x) { return f32ToF16(x); }
float tile_num_f16_to_f32(uint16_t h) { return f16ToF32(h); }
uint16_t tile_num_f32_to_bf16(float x) { return f32ToBF16(x); }
float tile_num_bf16_to_f32(uint16_t h) { return bf16ToF32(h); }

int tile_num_pack(const uint32_t *codes, uint64_t n, uint32_t bits,
                  uint8_t *out) {
  return packBits(codes, size_t(n), bits, out).ok() ? 0 : -1;
}

int tile_num_unpack(const uint8_t *in, uint64_t n, uint32_t bits,
                    uint32_t *out) {
  return unpackBits(in, size_t(n), bits, out).ok() ? 0 : -1;
}

} // extern "C"
