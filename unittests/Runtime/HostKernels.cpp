//===- HostKernels.cpp - Hand-written host kernels for the runtime tests --===//
//
// Part of tilec. Built as a shared object with the host kernel ABI:
//   void entry(void **args, const uint32_t program_id[3],
//              const uint32_t num_programs[3]);
// args[i] points to the value of parameter i (a tensor's value is the
// pointer to its data).
//
//===----------------------------------------------------------------------===//

#include <cstdint>

namespace {
template <typename T> T param(void **Args, int I) {
  return *static_cast<T *>(Args[I]);
}
} // namespace

/// vadd(A: f32[N], B: f32[N], C: mut f32[N]), grid (cdiv(N, 64), 1, 1):
/// C = A + B, 64 elements per program.
extern "C" void tile_test_vadd(void **Args, const uint32_t *Pid,
                               const uint32_t *) {
  const float *A = param<const float *>(Args, 0);
  const float *B = param<const float *>(Args, 1);
  float *C = param<float *>(Args, 2);
  int32_t N = param<int32_t>(Args, 3);
  for (int32_t I = int32_t(Pid[0]) * 64; I < N && I < int32_t(Pid[0] + 1) * 64;
       ++I)
    C[I] = A[I] + B[I];
}

/// u4_affine(X: u4[M, K], Y: mut u8[M, K], c: i32), grid (cdiv(K, 16), M):
/// Y = X * 3 + c (mod 256), X a dense LSB-first bit stream.
extern "C" void tile_test_u4_affine(void **Args, const uint32_t *Pid,
                                    const uint32_t *) {
  const uint8_t *X = param<const uint8_t *>(Args, 0);
  uint8_t *Y = param<uint8_t *>(Args, 1);
  int32_t C = param<int32_t>(Args, 2);
  int32_t M = param<int32_t>(Args, 3);
  int32_t K = param<int32_t>(Args, 4);
  int32_t Row = int32_t(Pid[1]);
  if (Row >= M)
    return;
  for (int32_t Col = int32_t(Pid[0]) * 16;
       Col < K && Col < int32_t(Pid[0] + 1) * 16; ++Col) {
    int64_t I = int64_t(Row) * K + Col;
    uint8_t Code = (X[I / 2] >> (4 * (I % 2))) & 0xF;
    Y[I] = static_cast<uint8_t>(Code * 3 + C);
  }
}

/// grid3d(Ids: mut i32[Z, Y, X], Counts: mut i32[Z, Y, X]), grid (X, Y, Z):
/// each program stores x + 100 y + 10000 z (or -1 when num_programs does
/// not match the extents) and increments its count.
extern "C" void tile_test_grid3d(void **Args, const uint32_t *Pid,
                                 const uint32_t *Num) {
  int32_t *Ids = param<int32_t *>(Args, 0);
  int32_t *Counts = param<int32_t *>(Args, 1);
  int32_t Z = param<int32_t>(Args, 2);
  int32_t Y = param<int32_t>(Args, 3);
  int32_t X = param<int32_t>(Args, 4);
  bool NumOk =
      Num[0] == uint32_t(X) && Num[1] == uint32_t(Y) && Num[2] == uint32_t(Z);
  int64_t I = (int64_t(Pid[2]) * Y + Pid[1]) * X + Pid[0];
  Ids[I] = NumOk ? int32_t(Pid[0] + 100 * Pid[1] + 10000 * Pid[2]) : -1;
  Counts[I] += 1;
}
