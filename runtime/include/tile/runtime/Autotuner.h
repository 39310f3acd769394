//===- Autotuner.h - Time configurations, keep the fastest ------*- C++ -*-===//
//
// Part of tilec. The caller supplies the configuration space (values of
// compile-time parameters), a function that compiles one configuration and
// returns a function that runs it once and reports its time, and a cache
// key (source hash, space, argument shapes/types, device, compiler version
// are the caller's business). Configurations whose compile or run fails are
// skipped. The winner is persisted in a JSON cache file:
//   {"version": 1, "entries": {"KEY": {"config": {...}, "time_ms": 0.12}}}
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_AUTOTUNER_H
#define TILE_RUNTIME_AUTOTUNER_H

#include "tile/runtime/Json.h"

#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tile {
namespace rt {

/// One point of a configuration space: parameter name -> value.
using TuneConfig = std::map<std::string, json::Value>;

/// "BM=64 BN=128 T=u4".
std::string configToString(const TuneConfig &C);

/// How to time and where to keep results.
struct TuneOptions {
  unsigned Warmup = 2;           ///< Untimed runs before measuring.
  unsigned Repeats = 10;         ///< Timed runs; the median is kept.
  std::FILE *Progress = nullptr; ///< Progress lines go here when set.
  std::string CachePath;         ///< JSON cache file; empty: no persistence.
  /// Optional pruning before compiling: a non-empty reason skips the
  /// configuration (e.g. "needs 300 KB of shared memory").
  std::function<std::string(const TuneConfig &)> Prune;
};

/// The outcome of tuning one key.
struct TuneResult {
  TuneConfig Best;
  double TimeMs = 0;      ///< Median time of Best.
  bool FromCache = false; ///< True when nothing was timed.
  /// Configurations that were skipped, with the reason.
  std::vector<std::pair<TuneConfig, std::string>> Skipped;
  /// Median time of every configuration that ran.
  std::vector<std::pair<TuneConfig, double>> Timings;
};

class Autotuner {
public:
  /// Runs a compiled configuration once; returns its time in ms.
  using Runner = std::function<Expected<double>()>;
  /// Compiles a configuration.
  using Compile = std::function<Expected<Runner>(const TuneConfig &)>;

  explicit Autotuner(TuneOptions Options) : Options(std::move(Options)) {}

  /// Returns the cached winner for \p Key, or times every configuration of
  /// \p Space and records the fastest. Fails when every one failed.
  Expected<TuneResult> tune(const std::string &Key,
                            const std::vector<TuneConfig> &Space,
                            const Compile &Fn);

  /// The cached winner of \p Key, if any.
  std::optional<TuneResult> lookup(const std::string &Key);

private:
  Expected<json::Value> readCache();

  TuneOptions Options;
  std::mutex Lock;
};

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_AUTOTUNER_H
