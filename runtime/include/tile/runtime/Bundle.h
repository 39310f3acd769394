//===- Bundle.h - Compiled kernels plus a manifest --------------*- C++ -*-===//
//
// Part of tilec. A bundle is a directory holding manifest.json and the code
// objects it names; `tilec bundle` writes it, the runtime and tile-run read
// it. runtime/README.md documents the schema.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_BUNDLE_H
#define TILE_RUNTIME_BUNDLE_H

#include "tile/runtime/Json.h"
#include "tile/runtime/Runtime.h"

#include <map>
#include <string>
#include <vector>

namespace tile {
namespace rt {

/// Absolute and relative tolerance of a float comparison; a negative value
/// means "the default of the element type" (see Compare.h).
struct Tolerance {
  double Atol = -1;
  double Rtol = -1;
};

/// One recorded check of a kernel.
struct TestCase {
  DimMap Sizes;                          ///< Every runtime dimension.
  std::map<std::string, double> Scalars; ///< Every scalar parameter.
  uint64_t Seed = 1;                     ///< Seed of the generated inputs.
  /// Tensors read from .npy files (relative to the bundle) instead of being
  /// generated.
  std::map<std::string, std::string> InputFiles;
  /// Reference outputs (.npy, relative to the bundle) of mut tensors.
  std::map<std::string, std::string> ExpectedFiles;
  /// Mut tensors that are also read (not poisoned before the launch).
  std::vector<std::string> InOut;
  Tolerance Tol;                              ///< For every output...
  std::map<std::string, Tolerance> OutputTol; ///< ...unless given per name.
};

/// One compiled kernel of a bundle.
struct KernelInfo {
  std::string Entry;  ///< Symbol in the code object.
  std::string Target; ///< "host", "sm_90a", "gfx942", ...
  std::string Object; ///< File name relative to the bundle directory.
  ObjectKind Kind = ObjectKind::HostSO;
  json::Value Constants = json::Object{}; ///< Compile-time values (record).
  unsigned Warps = 4;
  LaunchConfig Launch;
  KernelSignature Signature; ///< Signature.Name is the kernel's name.
  std::vector<TestCase> Tests;
  /// What the code generator reported; -1 when unknown (emulator code).
  int Registers = -1;  ///< Per thread (AMD: VGPRs + AGPRs).
  int64_t Spills = -1; ///< NVIDIA: bytes of spill stores; AMD: spilled
                       ///< VGPRs + SGPRs.
  /// The compiler's warnings for the kernel's source (file:line:col:
  /// warning: ...), one per line; empty when it had none.
  std::string Warnings;
  /// The shape bucket (TuneCache.h) this variant was tuned for; empty: the
  /// variant for every other shape.
  DimMap Bucket;
  /// The kernel's copy compiled without TMA copies (tile-clone-fallbacks),
  /// in the same code object: launches run it where a tensor map cannot be
  /// made (Kernel::setFallback). Empty Entry: none.
  struct FallbackInfo {
    std::string Entry;
    LaunchConfig Launch;
    bool Persistent = false;
  };
  FallbackInfo Fallback;

  const std::string &name() const { return Signature.Name; }
};

/// The contents of manifest.json.
struct Manifest {
  static constexpr const char *FormatName = "tilec-bundle";
  static constexpr int Version = 1;

  std::string Compiler; ///< E.g. "tilec 0.1.0".
  std::vector<KernelInfo> Kernels;

  /// Reads a manifest; errors name the offending field
  /// ("kernels[0].params[2]: missing \"dtype\"").
  static Expected<Manifest> fromJson(const json::Value &V);
  json::Value toJson() const;
};

/// A bundle directory.
class Bundle {
public:
  /// Reads DIR/manifest.json.
  static Expected<Bundle> load(const std::string &Dir);
  /// Writes DIR/manifest.json (the code objects are the caller's job).
  static Error save(const std::string &Dir, const Manifest &M);

  const std::string &directory() const { return Dir; }
  const Manifest &manifest() const { return M; }
  /// DIR/File.
  std::string path(const std::string &File) const;
  /// Loads the code object of \p K on \p D and returns its kernel.
  Expected<Kernel> loadKernel(Device &D, const KernelInfo &K) const;

private:
  std::string Dir;
  Manifest M;
};

/// The kernel \p K of the loaded code object \p M, with its fallback
/// (KernelInfo::Fallback) when it has one.
Expected<Kernel> kernelFromModule(Module &M, const KernelInfo &K);

/// Chooses among \p Variants (kernels of one name) the one for a launch with
/// dimensions \p Dims: the variant whose bucket equals the bucket of those
/// dimensions, else the one without a bucket, else the first. Returns an
/// index into \p Variants (which must not be empty).
size_t selectVariant(const std::vector<const KernelInfo *> &Variants,
                     const DimMap &Dims);

/// The variant of a kernel (\p Infos, loaded as \p Kernels, in the same
/// order) for a launch with \p Args: binds once to learn the dimensions,
/// picks with selectVariant and binds again when another variant is picked
/// (a tuned parameter may appear in a shape). Returns its index and the
/// binding.
struct BoundVariant {
  size_t Index = 0;
  BoundArgs Bound;
};
Expected<BoundVariant> bindVariant(const std::vector<KernelInfo> &Infos,
                                   const std::vector<Kernel> &Kernels,
                                   const std::vector<ArgValue> &Args,
                                   const DimMap &Given = {});

/// Whether code compiled for \p Target can run on a device of \p Arch:
/// host on host; sm_XY cubins on the same major with minor >= Y (sm_XYa
/// only on sm_XY); PTX on any device at least as new; gfx targets only on
/// the same gfx (or any when the device's arch is unknown).
bool targetRunsOn(const std::string &Target, ObjectKind Kind, Platform P,
                  const std::string &Arch);
/// A kernel's compile-time constants as they are written in source:
/// types and strings as is ("u4"), integers in decimal, "true"/"false".
std::map<std::string, std::string> constantTexts(const KernelInfo &K);

/// targetRunsOn() for device \p D.
inline bool targetRunsOn(const std::string &Target, ObjectKind Kind,
                         const Device &D) {
  return targetRunsOn(Target, Kind, D.platform(), D.arch());
}

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_BUNDLE_H
