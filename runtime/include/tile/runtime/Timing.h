//===- Timing.h - Statistics and CSV records of kernel timings --*- C++ -*-===//
//
// Part of tilec. tile-run times each recorded test of a bundle (warm-up
// launches, then N launches each between two events, or N windows of
// launches rotating over copies of the tensors) and reports the median and
// the spread; with --timing-csv it also writes one CSV row per test, which
// bench/run.sh merges with its baselines.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_TIMING_H
#define TILE_RUNTIME_TIMING_H

#include "tile/runtime/Error.h"
#include "tile/runtime/Runtime.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tile {
namespace rt {

/// Order statistics of a set of timed launches, in milliseconds.
struct TimingStats {
  int Runs = 0;
  double MedianMs = 0;
  double MinMs = 0;
  double MaxMs = 0;
  double MeanMs = 0;
  double StdevMs = 0; ///< Sample standard deviation (0 for one run).
  double P10Ms = 0;   ///< 10th percentile (linear interpolation).
  double P90Ms = 0;   ///< 90th percentile (linear interpolation).
};

/// Summarizes \p Ms; an error when it is empty or holds a negative or
/// non-finite time.
Expected<TimingStats> summarizeTimes(std::vector<double> Ms);

/// Launches \p K with \p B \p Warmup times untimed, then \p Repeat times,
/// each between two events on the default stream of \p D; with \p Scratch,
/// queues overwriting it before every timed launch (on the stream, outside
/// the events, no host synchronization that would leave the device idle) to
/// evict the L2 cache. Returns the times in ms, in launch order.
Expected<std::vector<double>> timeLaunches(Kernel &K, BoundArgs &B, Device &D,
                                           unsigned Warmup, unsigned Repeat,
                                           Buffer *Scratch = nullptr);

/// Launches \p K once per argument set of \p Sets, back to back, the way a
/// model's layers follow each other: \p Warmup untimed launches (cycling
/// through the sets), then \p Repeat windows of one launch per set, each
/// window between two events and queued behind a Stream::hold() so that the
/// device runs it without waiting for the host. Sets whose tensors together
/// exceed the last-level cache are read from memory each time without a
/// flush. Returns each window's time divided by the number of sets (ms per
/// launch), in window order; an error when \p Sets is empty.
Expected<std::vector<double>>
timeRotatingLaunches(Kernel &K, const std::vector<BoundArgs *> &Sets, Device &D,
                     unsigned Warmup, unsigned Repeat);

/// How many copies of a test's tensors (\p SetBytes in all) the rotating
/// method uses to cover \p RotateBytes: at least 2, at most \p MaxSets.
unsigned rotatingSets(uint64_t SetBytes, uint64_t RotateBytes,
                      unsigned MaxSets = 64);

/// One timed test of a bundle, as a CSV row.
struct TimingRecord {
  std::string Kernel;     ///< Kernel name.
  std::string Target;     ///< Its target ("sm_90a", "host").
  std::string Device;     ///< Device name.
  std::string Arch;       ///< Device architecture.
  int TestIndex = 0;      ///< Index of the test in the kernel's manifest entry.
  std::string Sizes;      ///< "K=4096;M=1;N=4096" (sorted by name).
  uint64_t Seed = 0;      ///< Seed of the inputs.
  bool Checked = false;   ///< Whether the outputs were compared and passed.
  bool FlushedL2 = false; ///< Whether the L2 cache was flushed before each run.
  /// Argument sets the launches rotated through (timeRotatingLaunches); 0:
  /// one set, each launch timed alone.
  unsigned RotateSets = 0;
  TimingStats Stats;
};

/// The header line of the timing CSV (no newline).
std::string timingCsvHeader();
/// \p R as one CSV line (no newline); fields are quoted where needed.
std::string timingCsvRow(const TimingRecord &R);
/// \p Field quoted for CSV when it holds a comma, quote or line break.
std::string csvField(std::string_view Field);

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_TIMING_H
