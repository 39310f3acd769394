//===- Tune.h - Autotuning kernels from source ------------------*- C++ -*-===//
//
// Part of tilec. Tunes one kernel of a .tile source for one shape on one
// device: the space is the kernel's `tune { }` block less the parameters the
// caller fixes (-D); every configuration is compiled on all cores, pruned
// when it cannot run (shared memory beyond the device's) or cannot win
// (spills while others do not; a grid far smaller than the device while
// others fill it), and the rest are timed with seeded inputs (warm-up,
// median of repeats, L2 flushed on request). The winner goes to the tune
// cache (tile/runtime/TuneCache.h) under the device, compiler version,
// source hash, kernel, target, fixed values and shape bucket.
//
//   tile::jit::TuneRequest req{source, "gemm_wq.tile", "gemm_wq", options,
//                              test};
//   auto outcome = tile::jit::tuneKernel(compiler, device, req);
//   // outcome->Result.Best, outcome->DefaultMs, outcome->Entry
//
// compileTuned() is what a serving process calls: the cached configuration
// of the shape's bucket, the defaults on a miss (never tuning unless told).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_TUNE_H
#define TILE_JIT_TUNE_H

#include "tile/Frontend/TargetFacts.h"
#include "tile/JIT.h"
#include "tile/runtime/Autotuner.h"
#include "tile/runtime/TuneCache.h"

#include <map>
#include <string>
#include <vector>

namespace tile {
namespace jit {

/// Compile-time parameters and the values to try for each.
using SpaceOverrides = std::map<std::string, std::vector<std::string>>;

/// What to tune.
struct TuneRequest {
  std::string Source;     ///< The .tile text.
  std::string SourceName; ///< For diagnostics.
  std::string Kernel;
  /// Target, fixed compile-time values (removed from the space), emulation.
  CompileOptions Options;
  /// Sizes of every runtime dimension, scalars and the input seed.
  rt::TestCase Test;
  rt::TuneOptions Timing;
  /// Overwrite this many MiB before each timed launch (0: no L2 flush).
  unsigned FlushL2MiB = 0;
  /// Values to try instead of the tune block's, per compile-time parameter
  /// (a parameter the block does not list joins the space: `tilec tune
  /// --space WARPS=4,8`).
  SpaceOverrides Space;
};

/// The result of tuneKernel().
struct TuneOutcome {
  rt::TuneResult Result;
  /// The parameters that were tuned and their default values (a parameter
  /// without a default is absent from Defaults).
  std::vector<std::string> Params;
  rt::TuneConfig Defaults;
  /// Time of the defaults in the same run; < 0 when they were not timed
  /// (pruned, failed or incomplete).
  double DefaultMs = -1;
  /// The cache entry for the winner (not stored by tuneKernel()).
  rt::TuneEntry Entry;
};

/// The tune space of \p Kernel: the Cartesian product of its tune block
/// without the parameters \p Fixed sets, with the values of \p Overrides
/// instead of the block's (and its parameters the block does not list added
/// after the block's, in the kernel's order), the defaults of the tuned
/// parameters in \p Defaults and their names in \p Params. An error (with
/// the location) when the source does not compile that far, an override
/// names no compile-time parameter of the kernel, lists no value or names a
/// fixed one, or the kernel has nothing left to tune. The target's
/// builtins in the kernel's compile-time expressions (`warp_size()`,
/// `shared_memory()`, `has_wgmma()`) are \p Target's (unknown: an error).
rt::Expected<std::vector<rt::TuneConfig>> tuneSpace(
    const std::string &Source, const std::string &SourceName,
    const std::string &Kernel, const std::map<std::string, std::string> &Fixed,
    rt::TuneConfig *Defaults = nullptr,
    std::vector<std::string> *Params = nullptr,
    const SpaceOverrides &Overrides = {}, frontend::TargetFacts Target = {});

/// Whether \p Spills (bytes of spill stores on NVIDIA, \p NVidia; spilled
/// VGPRs and SGPRs on AMD) are few enough that tuning does not prune the
/// configuration for them: at most 4 registers. ptxas spills that few
/// outside the loops of kernels it squeezes under a register target (the
/// packed decode GEMM at 6-8 bits: 8-16 bytes, none in the loop; gemm_wq's
/// 4-warp prefill tile: 4); the spills that cost time are hundreds of bytes
/// (the 4-warp 128x256 gemm_f16 tile: 4.8 ms against 0.22 ms on an H100).
bool negligibleSpills(int64_t Spills, bool NVidia);

/// \p Defines with the values of \p Config added (as -D text).
std::map<std::string, std::string>
withConfig(std::map<std::string, std::string> Defines,
           const rt::TuneConfig &Config);

/// The cache key of \p Kernel of \p Source compiled with \p Options for a
/// launch of \p Sizes on \p Device.
rt::TuneKey tuneKey(const std::string &Source, const std::string &Kernel,
                    const CompileOptions &Options, const rt::Device &Device,
                    const rt::DimMap &Sizes);
/// The same for a device known by name and architecture only.
rt::TuneKey tuneKey(const std::string &Source, const std::string &Kernel,
                    const CompileOptions &Options,
                    const std::string &DeviceName, const std::string &Arch,
                    const rt::DimMap &Sizes);

/// Tunes \p Request on \p Device; compilations go through \p Compiler (its
/// caches). Fails when no configuration could be timed.
rt::Expected<TuneOutcome> tuneKernel(Compiler &Compiler, rt::Device &Device,
                                     const TuneRequest &Request);

/// How compileTuned() treats the tune cache.
struct TunePolicy {
  std::string CachePath;   ///< Empty: rt::TuneCache::defaultPath().
  bool TuneOnMiss = false; ///< Tune (and store) when the bucket is missing.
  rt::TuneOptions Timing;  ///< Used when tuning.
  rt::TestCase Test;       ///< Scalars and seed when tuning (sizes are set).
};

/// A kernel compiled for a shape.
struct TunedKernel {
  std::shared_ptr<const CompiledKernel> Kernel;
  rt::TuneConfig Config;  ///< The configuration used (empty: defaults).
  bool FromCache = false; ///< The tune cache held the bucket.
  bool Tuned = false;     ///< Tuned now (TuneOnMiss).
};

/// Compiles \p Kernel for launches of \p Sizes on \p Device with the
/// configuration the tune cache holds for the sizes' bucket; on a miss, with
/// the defaults, or after tuning when \p Policy says so. It reads the cache
/// file on every call: call it when a shape first appears and keep the
/// kernel, not before every launch.
rt::Expected<TunedKernel>
compileTuned(Compiler &Compiler, rt::Device &Device, const std::string &Source,
             const std::string &SourceName, const std::string &Kernel,
             const CompileOptions &Options, const rt::DimMap &Sizes,
             const TunePolicy &Policy = {});

} // namespace jit
} // namespace tile

#endif // TILE_JIT_TUNE_H
