//===- Autotuner.h - Time configurations, keep the fastest ------*- C++ -*-===//
//
// Part of tilec. The caller supplies the configuration space (values of
// compile-time parameters) and a function that compiles one configuration
// into a candidate: a function that runs it once and reports its time, or a
// reason not to time it (pruned: it cannot run or cannot win). Tuning has
// two phases: every configuration is compiled on a pool of threads (the
// compile function must be thread-safe), then the candidates are timed one
// after the other (warm-up runs, median of repeats) on the calling thread.
// Progress lines (done / pruned / failed, best so far, time left) go to a
// stream. Persisting the winner is the business of TuneCache.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_AUTOTUNER_H
#define TILE_RUNTIME_AUTOTUNER_H

#include "tile/runtime/Json.h"

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tile {
namespace rt {

/// One point of a configuration space: parameter name -> value.
using TuneConfig = std::map<std::string, json::Value>;

/// "BM=64 BN=128 T=u4" ("(default)" when empty).
std::string configToString(const TuneConfig &C);

/// How to time.
struct TuneOptions {
  unsigned Warmup = 2;           ///< Untimed runs before measuring.
  unsigned Repeats = 10;         ///< Timed runs; the median is kept.
  unsigned Jobs = 0;             ///< Compile threads; 0: every core.
  std::FILE *Progress = nullptr; ///< Progress lines go here when set.
  /// Optional pruning before compiling: a non-empty reason skips the
  /// configuration (e.g. "needs 300 KB of shared memory").
  std::function<std::string(const TuneConfig &)> Prune;
};

/// What became of one configuration (Pending only while tuning runs).
enum class TuneStatus { Pending, Timed, Pruned, Failed };

/// "pending", "timed", "pruned" or "failed".
const char *tuneStatusName(TuneStatus S);

/// One row of the result table.
struct TuneRow {
  TuneConfig Config;
  TuneStatus Status = TuneStatus::Pending;
  double TimeMs = 0;   ///< Median time (Timed only).
  std::string Reason;  ///< Why it was pruned or failed (one line).
  std::string Summary; ///< Resources, e.g. "96 regs, 48 KB shared".
};

/// The outcome of tuning.
struct TuneResult {
  TuneConfig Best;
  double TimeMs = 0;         ///< Median time of Best.
  std::vector<TuneRow> Rows; ///< One per configuration, in space order.
  unsigned count(TuneStatus S) const;
};

class Autotuner {
public:
  /// Runs a compiled configuration once; returns its time in ms.
  using Runner = std::function<Expected<double>()>;
  /// A compiled configuration: timed with Run unless PruneReason is set.
  struct Candidate {
    Runner Run;
    std::string PruneReason;
    std::string Summary;
  };
  /// Compiles a configuration (called from several threads at once).
  using Compile = std::function<Expected<Candidate>(const TuneConfig &)>;
  /// Called on the timing thread once every candidate is compiled, before
  /// any is timed: may prune more (e.g. relative to the whole space); a
  /// non-empty string at index I prunes candidate I.
  using PruneAll = std::function<std::vector<std::string>(
      const std::vector<const Candidate *> &)>;

  explicit Autotuner(TuneOptions Options) : Options(std::move(Options)) {}

  /// Compiles and times every configuration of \p Space and returns the
  /// table with the fastest. Fails when none could be timed.
  Expected<TuneResult> tune(const std::vector<TuneConfig> &Space,
                            const Compile &Fn, const PruneAll &Prune = {});

private:
  TuneOptions Options;
};

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_AUTOTUNER_H
