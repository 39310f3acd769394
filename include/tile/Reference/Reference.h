//===- Reference.h - float64 references of the example kernels --*- C++ -*-===//
//
// Part of tilec. What each program of examples/ computes, written again as
// plain float64 loops over decoded inputs: lib/Numerics only decodes,
// rounds and (for the block-scaled and packed formats) states a format's
// recipe; nothing here uses the compiler. `tilec check` compares a kernel
// with its reference when the file is one of the examples, and the host
// example tests (unittests/Examples) use the same functions.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_REFERENCE_REFERENCE_H
#define TILE_REFERENCE_REFERENCE_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tile {
namespace reference {

/// A tensor decoded to doubles, row-major.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> values;
  double operator[](size_t i) const { return values[i]; }
};

/// One launch as a reference sees it: the decoded inputs (an in-out tensor
/// with its values before the launch), the sizes, the scalar arguments and
/// the compile-time constants as written ("u4", "128", "true").
struct Launch {
  std::map<std::string, Tensor> in;
  std::map<std::string, int64_t> dims;
  std::map<std::string, double> scalars;
  std::map<std::string, std::string> constants;

  /// Accessors; a missing name reads as an empty tensor / 0 / "" (lookup()
  /// callers check the signature first, see Reference::inputs).
  const Tensor &input(const std::string &name) const;
  int64_t dim(const std::string &name) const;
  double scalar(const std::string &name) const;
  const std::string &constant(const std::string &name) const;
  int64_t intConstant(const std::string &name) const;
  bool boolConstant(const std::string &name) const;
};

/// Expected values of one output: a result passes where
/// |got - want| <= atol + rtol * |want| (NaN never passes).
struct Expected {
  std::vector<double> values;
  double atol = 0;
  double rtol = 0;
};

/// The expected outputs by parameter name.
using Outputs = std::map<std::string, Expected>;

/// A kernel's reference and the parameters it reads and writes.
struct Reference {
  Outputs (*compute)(const Launch &) = nullptr;
  std::vector<std::string> inputs;  ///< Tensors and scalars read.
  std::vector<std::string> outputs; ///< The mut tensors it predicts.
  /// Why the launch is outside what the reference describes (a shape the
  /// kernel's data format does not define), or "" when compute applies;
  /// null: always.
  std::string (*unsupported)(const Launch &) = nullptr;
};

/// The reference of kernel \p kernel of examples/\p file (a base name such
/// as "gemm_decode.tile"), or null when there is none.
const Reference *lookup(std::string_view file, std::string_view kernel);

/// Every (file, kernel) pair that has a reference.
std::vector<std::pair<std::string, std::string>> listReferences();

/// The outcome of comparing results with an Expected.
struct Comparison {
  uint64_t bad = 0;       ///< Elements out of tolerance.
  double maxAbsError = 0; ///< Over the finite elements.
  std::string firstBad;   ///< "element I is G, expected W" for the first.
};

/// Compares \p got with \p want element by element: a finite element
/// within atol + rtol |want|, a NaN where want is NaN, or the same
/// infinity, passes.
Comparison compare(const std::vector<double> &got, const Expected &want);

} // namespace reference
} // namespace tile

#endif // TILE_REFERENCE_REFERENCE_H
