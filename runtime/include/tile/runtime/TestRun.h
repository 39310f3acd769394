//===- TestRun.h - Set up a kernel launch from a test case ------*- C++ -*-===//
//
// Part of tilec. One definition of how a recorded test case becomes a
// launch — seeded inputs, inputs read from .npy files, poisoned outputs,
// bound arguments — shared by tile-run, `tilec run`, `tilec check` and
// `tilec bundle`, so that every tool feeds a kernel the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_TESTRUN_H
#define TILE_RUNTIME_TESTRUN_H

#include "tile/runtime/Bundle.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tile {
namespace rt {

/// One tensor argument of a prepared launch.
struct TensorArg {
  const ParamInfo *Param = nullptr;
  std::vector<int64_t> Shape;
  uint64_t NumElements = 1;
  uint64_t Bytes = 0;
  Buffer Buf;
  /// The packed contents uploaded before the launch (the poison bytes for
  /// outputs).
  std::vector<uint8_t> Initial;
  /// True for `mut` tensors that were poisoned (pure outputs).
  bool Poisoned = false;
};

/// Buffers and bound arguments of one launch, ready to go.
struct PreparedRun {
  std::vector<TensorArg> Tensors;
  BoundArgs Bound;
};

/// Allocates every tensor of \p Sig on \p D and fills it: from
/// `T.InputFiles` (paths relative to \p BaseDir unless absolute), else
/// poisoned with PoisonByte for `mut` tensors not listed in `T.InOut`, else
/// with generateTensor(dtype, n, T.Seed, name). Every dimension must be in
/// `T.Sizes` and every scalar in `T.Scalars`; a missing one is an error
/// naming it.
Expected<PreparedRun> prepareRun(const KernelSignature &Sig, const TestCase &T,
                                 Device &D, const std::string &BaseDir = "");

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_TESTRUN_H
