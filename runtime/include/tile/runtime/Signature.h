//===- Signature.h - Kernel signatures and argument binding -----*- C++ -*-===//
//
// Part of tilec. A compiled kernel takes, in this order: every runtime
// parameter of the source (a tensor as a pointer to its dense bit stream, a
// scalar by value), then one i32 per runtime dimension in order of first
// appearance, then (NVIDIA sm_90 kernels with TMA copies) one 128-byte
// tensor map per TensorMaps entry, which the runtime encodes at each
// launch. Binding turns user arguments into that parameter list: it
// checks dtypes and ranks, infers and cross-checks the dimensions, checks
// buffer sizes and evaluates the grid.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_SIGNATURE_H
#define TILE_RUNTIME_SIGNATURE_H

#include "tile/runtime/Error.h"
#include "tile/runtime/Expr.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tile {
namespace rt {

/// What a kernel parameter is.
enum class ParamKind { Tensor, Scalar, Dim };

/// One parameter of a compiled kernel.
struct ParamInfo {
  std::string Name; ///< Source name ("A", "eps") or dimension name ("M").
  ParamKind Kind = ParamKind::Tensor;
  std::string DType; ///< Language type name ("u4", "f16"); "i32" for dims.
  std::vector<std::string> Shape; ///< Tensors: one expression per dim.
  bool Mut = false;               ///< Tensors: written by the kernel.
};

/// A TMA tensor map (NVIDIA sm_90) a kernel takes after all of Params, in
/// this order; the runtime encodes one per entry at each launch from the
/// bound tensor (on the stack: a kernel takes at most MaxMaps).
struct TensorMapInfo {
  static constexpr size_t MaxMaps = 8;
  unsigned Param = 0;        ///< Index in Params of the tensor it maps.
  std::vector<uint32_t> Box; ///< Box extents in elements, outermost first
                             ///< (the order of the tensor's shape); one per
                             ///< dimension of the tensor. A tensor of 1- to
                             ///< 7-bit elements is mapped as bytes: its
                             ///< innermost extent counts bytes.
  unsigned SwizzleBytes = 0; ///< 0, 32, 64 or 128.

  bool operator==(const TensorMapInfo &O) const {
    return Param == O.Param && Box == O.Box && SwizzleBytes == O.SwizzleBytes;
  }
};

/// The calling convention of a kernel: its parameters and its grid.
struct KernelSignature {
  std::string Name;
  std::vector<ParamInfo> Params;
  /// Number of programs along x, y, z as expressions over dimension names.
  std::array<std::string, 3> Grid = {"1", "1", "1"};
  /// The tensor maps passed after Params (empty for most kernels).
  std::vector<TensorMapInfo> TensorMaps;
  /// A persistent kernel (tilec --persistent): it takes the extents of its
  /// grid (three u32, after Params and before the tensor maps) and is
  /// launched with at most as many programs, along x, as the device runs
  /// at once; each loops over the grid's programs.
  bool Persistent = false;

  /// Checks that every dtype and expression parses, that tensor/scalar
  /// parameters come before the dims, that every name used in a shape or
  /// the grid is a dim parameter, and that each tensor map names a tensor
  /// of byte-sized elements with one box extent (1-256) per dimension and a
  /// valid swizzle.
  Error verify() const;
  /// Number of parameters the user supplies (tensors and scalars).
  size_t numUserParams() const;
  /// Index of the parameter called \p Name, or -1.
  int findParam(const std::string &Name) const;
};

/// A user argument for one tensor or scalar parameter.
struct ArgValue {
  enum class Kind { Tensor, Scalar };
  Kind K = Kind::Scalar;
  // Tensor arguments.
  std::string DType;          ///< Empty: not checked.
  std::vector<int64_t> Shape; ///< The tensor's extents.
  uint64_t Address = 0;       ///< Device address (host: the pointer).
  uint64_t Bytes = 0;         ///< Size of the memory behind Address.
  /// Element strides of a caller's tensor (empty: dense). Kernels take dense
  /// row-major tensors: binding fails on any other strides.
  std::vector<int64_t> Strides;
  /// The tensor's shape is its parameter's, evaluated once the other
  /// arguments have bound every dimension (Shape is ignored): storage of
  /// another shape holding the codes, e.g. a uint8 array of packed u4.
  bool ShapeFromSignature = false;
  // Scalar arguments.
  double Number = 0;

  /// A tensor living at \p Address with \p Bytes bytes of storage.
  static ArgValue tensor(uint64_t Address, uint64_t Bytes,
                         std::vector<int64_t> Shape, std::string DType = "");
  /// A caller's tensor with element \p Strides (checked to be dense).
  static ArgValue strided(uint64_t Address, uint64_t Bytes,
                          std::vector<int64_t> Shape,
                          std::vector<int64_t> Strides, std::string DType = "");
  /// \p Bytes bytes of storage at \p Address holding a dense \p DType
  /// tensor of its parameter's shape (ShapeFromSignature): only the size is
  /// checked against that shape.
  static ArgValue storage(uint64_t Address, uint64_t Bytes,
                          std::string DType = "");
  /// A scalar; converted to the parameter's dtype (integers must be exact).
  static ArgValue scalar(double Value);
};

/// Whether element \p Strides describe a dense row-major tensor of \p Shape
/// (empty strides: dense; extents of 1 may have any stride; an empty tensor
/// any strides).
bool isDenseRowMajor(const std::vector<int64_t> &Shape,
                     const std::vector<int64_t> &Strides);

/// The result of binding: what a backend needs to launch.
struct BoundArgs {
  DimMap Dims;                    ///< Every runtime dimension.
  std::array<uint32_t, 3> Grid{}; ///< Programs along x, y, z (may be 0).
  std::vector<uint64_t> Slots;    ///< One value slot per parameter.

  /// Pointers to each slot, in parameter order (cuLaunchKernel's
  /// kernelParams). Valid while this object is alive and unmodified.
  std::vector<void *> pointers();
  /// Total number of programs (0 when any grid dimension is 0).
  uint64_t numPrograms() const { return uint64_t(Grid[0]) * Grid[1] * Grid[2]; }
};

/// Bytes of a dense bit stream of \p NumElements elements of \p Bits bits:
/// ceil(NumElements * Bits / 8).
uint64_t denseBytes(uint64_t NumElements, unsigned Bits);

/// Evaluates the shape of tensor parameter \p P with \p Dims.
Expected<std::vector<int64_t>> evaluateShape(const ParamInfo &P,
                                             const DimMap &Dims);

/// Binds \p Args (one per tensor/scalar parameter, in order) to \p Sig.
/// \p Given pre-binds dimensions (e.g. from `--size`); the remaining ones
/// are inferred from tensor extents whose shape entry is a bare name. A
/// dimension seen with two sizes is an error naming both sources:
/// "dimension M is 64 in A but 65 in C".
Expected<BoundArgs> bindArguments(const KernelSignature &Sig,
                                  const std::vector<ArgValue> &Args,
                                  const DimMap &Given = {});

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_SIGNATURE_H
