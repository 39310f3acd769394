//===- Autotuner.cpp - Time configurations, keep the fastest --------------===//
//
// Part of tilec. Compiles on a pool of threads, then times one candidate
// after the other (timings on one device must not overlap).
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Autotuner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

using namespace tile::rt;

std::string tile::rt::configToString(const TuneConfig &C) {
  std::string S;
  for (const auto &[Name, V] : C) {
    if (!S.empty())
      S += ' ';
    S += Name + "=" + (V.isString() ? V.getString() : json::write(V, 0));
  }
  return S.empty() ? "(default)" : S;
}

unsigned TuneResult::count(TuneStatus S) const {
  return static_cast<unsigned>(
      std::count_if(Rows.begin(), Rows.end(),
                    [&](const TuneRow &R) { return R.Status == S; }));
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

/// The gist of a multi-line message (a diagnostic with its source line and
/// caret): its first line, joined with the next when it ends in ':'.
std::string firstLine(const std::string &Message) {
  std::vector<std::string> Lines;
  size_t Pos = 0;
  while (Pos <= Message.size() && Lines.size() < 2) {
    size_t End = Message.find('\n', Pos);
    std::string Line =
        Message.substr(Pos, End == std::string::npos ? End : End - Pos);
    if (Line.find_first_not_of(" \t") != std::string::npos)
      Lines.push_back(Line);
    if (End == std::string::npos)
      break;
    Pos = End + 1;
  }
  if (Lines.empty())
    return Message;
  if (Lines.size() > 1 && Lines[0].back() == ':')
    return Lines[0] + " " + Lines[1];
  return Lines[0];
}

/// Median of \p Times (not empty).
double median(std::vector<double> Times) {
  std::sort(Times.begin(), Times.end());
  size_t N = Times.size();
  return N % 2 ? Times[N / 2] : (Times[N / 2 - 1] + Times[N / 2]) / 2;
}

/// Runs \p Run Warmup + Repeats times; the median of the timed runs.
Expected<double> timeCandidate(const Autotuner::Runner &Run, unsigned Warmup,
                               unsigned Repeats) {
  std::vector<double> Times;
  for (unsigned J = 0; J < Warmup + Repeats; ++J) {
    Expected<double> Ms = Run();
    if (!Ms)
      return Ms;
    if (J >= Warmup)
      Times.push_back(*Ms);
  }
  return median(std::move(Times));
}

} // namespace

Expected<TuneResult> Autotuner::tune(const std::vector<TuneConfig> &Space,
                                     const Compile &Fn, const PruneAll &Prune) {
  if (Space.empty())
    return makeError("autotune: empty configuration space");
  std::FILE *Out = Options.Progress;
  size_t N = Space.size();
  TuneResult R;
  R.Rows.resize(N);
  std::vector<std::optional<Candidate>> Candidates(N);

  // Phase 1: prune by configuration, compile the rest on a thread pool.
  std::atomic<size_t> Next{0};
  std::mutex Lock;
  size_t Compiled = 0, Pruned = 0, Failed = 0;
  Clock::time_point Start = Clock::now();
  auto worker = [&] {
    for (size_t I = Next++; I < N; I = Next++) {
      TuneRow &Row = R.Rows[I];
      Row.Config = Space[I];
      std::string Why = Options.Prune ? Options.Prune(Space[I]) : "";
      if (!Why.empty()) {
        Row.Status = TuneStatus::Pruned;
        Row.Reason = Why;
      } else if (Expected<Candidate> C = Fn(Space[I])) {
        Row.Summary = C->Summary;
        if (!C->PruneReason.empty()) {
          Row.Status = TuneStatus::Pruned;
          Row.Reason = C->PruneReason;
        } else {
          Candidates[I] = std::move(*C);
        }
      } else {
        Row.Status = TuneStatus::Failed;
        Row.Reason = "compile failed: " + firstLine(C.message());
      }
      std::lock_guard<std::mutex> Guard(Lock);
      ++Compiled;
      Pruned += Row.Status == TuneStatus::Pruned;
      Failed += Row.Status == TuneStatus::Failed;
      if (Out && (Compiled % 8 == 0 || Compiled == N)) {
        double Elapsed = secondsSince(Start);
        std::fprintf(Out,
                     "compiled %zu/%zu: %zu pruned, %zu failed (%.1f s, ~%.0f "
                     "s left)\n",
                     Compiled, N, Pruned, Failed, Elapsed,
                     Elapsed / double(Compiled) * double(N - Compiled));
      }
    }
  };
  unsigned Jobs = Options.Jobs
                      ? Options.Jobs
                      : std::max(1u, std::thread::hardware_concurrency());
  Jobs = static_cast<unsigned>(std::min<size_t>(Jobs, N));
  std::vector<std::thread> Pool;
  for (unsigned J = 1; J < Jobs; ++J)
    Pool.emplace_back(worker);
  worker();
  for (std::thread &T : Pool)
    T.join();

  if (Prune) {
    std::vector<const Candidate *> View(N, nullptr);
    for (size_t I = 0; I < N; ++I)
      View[I] = Candidates[I] ? &*Candidates[I] : nullptr;
    std::vector<std::string> Why = Prune(View);
    for (size_t I = 0; I < N && I < Why.size(); ++I)
      if (Candidates[I] && !Why[I].empty()) {
        R.Rows[I].Status = TuneStatus::Pruned;
        R.Rows[I].Reason = Why[I];
        Candidates[I].reset();
      }
  }

  // Phase 2: time the candidates one after the other.
  size_t ToTime = std::count_if(Candidates.begin(), Candidates.end(),
                                [](const auto &C) { return C.has_value(); });
  if (Out)
    std::fprintf(Out,
                 "timing %zu of %zu configurations (%u pruned, %u "
                 "failed)\n",
                 ToTime, N, R.count(TuneStatus::Pruned),
                 R.count(TuneStatus::Failed));
  bool HaveBest = false;
  size_t Done = 0;
  Clock::time_point TimingStart = Clock::now();
  for (size_t I = 0; I < N; ++I) {
    if (!Candidates[I])
      continue;
    TuneRow &Row = R.Rows[I];
    Expected<double> Ms = timeCandidate(Candidates[I]->Run, Options.Warmup,
                                        std::max(1u, Options.Repeats));
    Candidates[I].reset(); // Frees the loaded code and buffers early.
    ++Done;
    if (Ms) {
      Row.Status = TuneStatus::Timed;
      Row.TimeMs = *Ms;
      if (!HaveBest || *Ms < R.TimeMs) {
        HaveBest = true;
        R.Best = Row.Config;
        R.TimeMs = *Ms;
      }
    } else {
      Row.Status = TuneStatus::Failed;
      Row.Reason = "run failed: " + firstLine(Ms.message());
    }
    if (!Out)
      continue;
    double Left =
        secondsSince(TimingStart) / double(Done) * double(ToTime - Done);
    std::string Result = Ms ? std::to_string(*Ms) + " ms" : Row.Reason;
    std::fprintf(Out, "[%zu/%zu] %s: %s | best %s | ~%.0f s left\n", Done,
                 ToTime, configToString(Row.Config).c_str(), Result.c_str(),
                 HaveBest ? (std::to_string(R.TimeMs) + " ms (" +
                             configToString(R.Best) + ")")
                                .c_str()
                          : "none yet",
                 Left);
  }
  if (!HaveBest) {
    // Say why, with the first configuration that failed (or was pruned).
    std::string First;
    for (TuneStatus S : {TuneStatus::Failed, TuneStatus::Pruned})
      for (const TuneRow &Row : R.Rows)
        if (First.empty() && Row.Status == S)
          First = "; first: " + configToString(Row.Config) + ": " + Row.Reason;
    return makeError("autotune: none of the " + std::to_string(N) +
                     " configurations could be timed (" +
                     std::to_string(R.count(TuneStatus::Pruned)) + " pruned, " +
                     std::to_string(R.count(TuneStatus::Failed)) + " failed)" +
                     First);
  }
  return R;
}

const char *tile::rt::tuneStatusName(TuneStatus S) {
  switch (S) {
  case TuneStatus::Timed:
    return "timed";
  case TuneStatus::Pruned:
    return "pruned";
  case TuneStatus::Failed:
    return "failed";
  case TuneStatus::Pending:
    break;
  }
  return "pending";
}
