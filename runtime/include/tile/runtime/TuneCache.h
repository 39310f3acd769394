//===- TuneCache.h - Tuned configurations on disk, by shape bucket -*- C++
//-*-=//
//
// Part of tilec. `tilec tune` records the fastest configuration of a kernel
// here; the JIT and `tilec bundle` read it. An entry is keyed by the device
// (name and architecture), the compiler version, a hash of the kernel's
// source, the kernel, the target, the compile-time values fixed by the user
// (-D outside the tune space) and the shape bucket of its sizes:
//
//   {"format": "tilec-tune-cache", "version": 1, "entries": [
//     {"device": "NVIDIA H100 80GB HBM3", "arch": "sm_90", "compiler": "...",
//      "source": "1f0c...", "kernel": "gemm_wq", "target": "sm_90a",
//      "defines": "T=u4", "bucket": "K=4096,M=1,N=4096",
//      "config": {"BN": 64, "BK": 128}, "time_ms": 0.030,
//      "default_ms": 0.089}]}
//
// Writes are atomic and safe between processes: an exclusive lock on
// FILE.lock, the file re-read and merged, a temporary file renamed over it.
// A file that cannot be parsed is reported once and rebuilt by the next
// write; a killed writer leaves at most a stray temporary file.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_TUNECACHE_H
#define TILE_RUNTIME_TUNECACHE_H

#include "tile/runtime/Autotuner.h"
#include "tile/runtime/Signature.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace tile {
namespace rt {

/// The bucket of one size: exact up to 16 (decode batch sizes), then the
/// next power of two (17..32 -> 32, 33..64 -> 64, ...). Non-positive sizes
/// are their own bucket.
int64_t shapeBucket(int64_t Size);
/// shapeBucket() of every dimension.
DimMap bucketOf(const DimMap &Sizes);
/// "K=4096,M=1,N=4096": bucketOf(Sizes), sorted by name.
std::string bucketText(const DimMap &Sizes);
/// Inverse of bucketText() (an error names the bad part).
Expected<DimMap> parseBucketText(const std::string &Text);

/// What an entry is for.
struct TuneKey {
  std::string Device;   ///< Device name.
  std::string Arch;     ///< Device architecture ("sm_90", "gfx942").
  std::string Compiler; ///< Compiler version string.
  std::string Source;   ///< Hash of the source text.
  std::string Kernel;
  std::string Target;  ///< Compilation target ("sm_90a").
  std::string Defines; ///< Fixed compile-time values: "T=u4,G=128".
  std::string Bucket;  ///< bucketText() of the sizes.

  bool operator==(const TuneKey &O) const;
};

/// One tuned configuration.
struct TuneEntry {
  TuneKey Key;
  TuneConfig Config;     ///< Values of the tuned parameters.
  double TimeMs = 0;     ///< Its median time when tuned.
  double DefaultMs = -1; ///< The defaults' time in the same run; < 0: unknown.
};

class TuneCache {
public:
  /// A cache file at \p Path; warnings (a corrupt file) go to \p Warnings.
  explicit TuneCache(std::string Path, std::FILE *Warnings = stderr);

  /// $TILE_TUNE_CACHE, else tune.json in $TILE_CACHE_DIR, else in
  /// $XDG_CACHE_HOME/tilec, else ~/.cache/tilec ("" when none is known).
  static std::string defaultPath();

  const std::string &path() const { return Path; }

  /// Every readable entry (none when the file is missing or corrupt).
  std::vector<TuneEntry> entries();
  /// The entry of \p Key, if any.
  std::optional<TuneEntry> lookup(const TuneKey &Key);
  /// Adds \p E or replaces the entry of its key, atomically.
  Error store(const TuneEntry &E);

private:
  /// Reads the file; a missing file is empty, a corrupt one is reported
  /// (once) and empty.
  std::vector<TuneEntry> read();

  std::string Path;
  std::FILE *Warnings;
  bool Warned = false;
};

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_TUNECACHE_H
