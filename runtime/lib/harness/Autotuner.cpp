//===- Autotuner.cpp - Time configurations, keep the fastest --------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Autotuner.h"

#include <algorithm>
#include <fstream>

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

Expected<json::Value> Autotuner::readCache() {
  json::Value Empty = json::Object{};
  Empty.set("version", 1);
  Empty.set("entries", json::Object{});
  if (Options.CachePath.empty() || !std::ifstream(Options.CachePath))
    return Empty;
  Expected<json::Value> V = json::readFile(Options.CachePath);
  if (!V)
    return V;
  const json::Value *Entries = V->find("entries");
  const json::Value *Version = V->find("version");
  if (!Entries || !Entries->isObject() || !Version ||
      *Version != json::Value(1))
    return makeError(Options.CachePath + ": not a version 1 tuning cache");
  return V;
}

std::optional<TuneResult> Autotuner::lookup(const std::string &Key) {
  std::lock_guard<std::mutex> Guard(Lock);
  Expected<json::Value> Cache = readCache();
  if (!Cache)
    return std::nullopt;
  const json::Value *E = Cache->find("entries")->find(Key);
  if (!E)
    return std::nullopt;
  const json::Value *Config = E->find("config");
  const json::Value *Time = E->find("time_ms");
  if (!Config || !Config->isObject() || !Time || !Time->isNumber())
    return std::nullopt;
  TuneResult R;
  for (const auto &[Name, V] : Config->getObject())
    R.Best[Name] = V;
  R.TimeMs = Time->getNumber();
  R.FromCache = true;
  return R;
}

Expected<TuneResult> Autotuner::tune(const std::string &Key,
                                     const std::vector<TuneConfig> &Space,
                                     const Compile &Fn) {
  if (std::optional<TuneResult> Hit = lookup(Key)) {
    if (Options.Progress)
      std::fprintf(Options.Progress, "autotune %s: cached %s (%.4f ms)\n",
                   Key.c_str(), configToString(Hit->Best).c_str(), Hit->TimeMs);
    return *Hit;
  }
  if (Space.empty())
    return makeError("autotune " + Key + ": empty configuration space");
  unsigned Repeats = std::max(1u, Options.Repeats);
  TuneResult R;
  bool HaveBest = false;
  for (size_t I = 0; I < Space.size(); ++I) {
    const TuneConfig &C = Space[I];
    std::string Name = configToString(C);
    auto skip = [&](const std::string &Why) {
      R.Skipped.emplace_back(C, Why);
      if (Options.Progress)
        std::fprintf(Options.Progress, "[%zu/%zu] %s: skipped: %s\n", I + 1,
                     Space.size(), Name.c_str(), Why.c_str());
    };
    if (Options.Prune) {
      std::string Why = Options.Prune(C);
      if (!Why.empty()) {
        skip("pruned: " + Why);
        continue;
      }
    }
    Expected<Runner> Run = Fn(C);
    if (!Run) {
      skip("compile failed: " + Run.message());
      continue;
    }
    std::vector<double> Times;
    std::string Failure;
    for (unsigned J = 0; J < Options.Warmup + Repeats && Failure.empty(); ++J) {
      Expected<double> Ms = (*Run)();
      if (!Ms)
        Failure = Ms.message();
      else if (J >= Options.Warmup)
        Times.push_back(*Ms);
    }
    if (!Failure.empty()) {
      skip("run failed: " + Failure);
      continue;
    }
    std::sort(Times.begin(), Times.end());
    size_t N = Times.size();
    double Median =
        N % 2 ? Times[N / 2] : (Times[N / 2 - 1] + Times[N / 2]) / 2;
    R.Timings.emplace_back(C, Median);
    if (Options.Progress)
      std::fprintf(Options.Progress, "[%zu/%zu] %s: %.4f ms\n", I + 1,
                   Space.size(), Name.c_str(), Median);
    if (!HaveBest || Median < R.TimeMs) {
      HaveBest = true;
      R.Best = C;
      R.TimeMs = Median;
    }
  }
  if (!HaveBest)
    return makeError("autotune " + Key + ": all " +
                     std::to_string(Space.size()) + " configurations failed");
  if (Options.Progress)
    std::fprintf(Options.Progress, "autotune %s: best %s (%.4f ms)\n",
                 Key.c_str(), configToString(R.Best).c_str(), R.TimeMs);
  if (Options.CachePath.empty())
    return R;

  std::lock_guard<std::mutex> Guard(Lock);
  Expected<json::Value> Cache = readCache();
  if (!Cache)
    return makeError("autotune: " + Cache.message());
  json::Value Entry = json::Object{};
  json::Object Config(R.Best.begin(), R.Best.end());
  Entry.set("config", json::Value(std::move(Config)));
  Entry.set("time_ms", R.TimeMs);
  json::Value Entries = *Cache->find("entries");
  Entries.set(Key, std::move(Entry));
  Cache->set("entries", std::move(Entries));
  if (Error E = json::writeFile(Options.CachePath, *Cache))
    return makeError("autotune: " + E.message());
  return R;
}
