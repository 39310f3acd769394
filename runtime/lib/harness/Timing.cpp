//===- Timing.cpp - Statistics and CSV records of kernel timings ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace tile::rt;

namespace {

/// The \p Q quantile of sorted \p V (linear interpolation between ranks).
double quantile(const std::vector<double> &V, double Q) {
  double Pos = Q * double(V.size() - 1);
  size_t Lo = size_t(std::floor(Pos));
  size_t Hi = std::min(Lo + 1, V.size() - 1);
  return V[Lo] + (V[Hi] - V[Lo]) * (Pos - double(Lo));
}

std::string number(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

} // namespace

Expected<std::vector<double>> tile::rt::timeLaunches(Kernel &K, BoundArgs &B,
                                                     Device &D, unsigned Warmup,
                                                     unsigned Repeat,
                                                     Buffer *Scratch) {
  Stream S = D.defaultStream();
  for (unsigned I = 0; I < Warmup; ++I)
    if (Error E = K.launch(B, &S))
      return E;
  std::vector<double> Times;
  for (unsigned I = 0; I < Repeat; ++I) {
    if (Scratch)
      if (Error E = Scratch->fill(uint8_t(I), S))
        return E;
    Expected<Event> Start = S.record();
    if (!Start)
      return Start.takeError();
    if (Error E = K.launch(B, &S))
      return E;
    Expected<Event> End = S.record();
    if (!End)
      return End.takeError();
    Expected<float> Ms = Event::elapsedMs(*Start, *End);
    if (!Ms)
      return Ms.takeError();
    Times.push_back(*Ms);
  }
  return Times;
}

Expected<std::vector<double>>
tile::rt::timeRotatingLaunches(Kernel &K, const std::vector<BoundArgs *> &Sets,
                               Device &D, unsigned Warmup, unsigned Repeat) {
  if (Sets.empty())
    return makeError("no argument sets to rotate over");
  Stream S = D.defaultStream();
  for (unsigned I = 0; I < Warmup; ++I)
    if (Error E = K.launch(*Sets[I % Sets.size()], &S))
      return E;
  std::vector<double> Times;
  for (unsigned I = 0; I < Repeat; ++I) {
    Expected<StreamHold> Hold = S.hold();
    if (!Hold)
      return Hold.takeError();
    Expected<Event> Start = S.record();
    if (!Start)
      return Start.takeError();
    for (BoundArgs *B : Sets)
      if (Error E = K.launch(*B, &S))
        return E;
    Expected<Event> End = S.record();
    if (!End)
      return End.takeError();
    Hold->release();
    Expected<float> Ms = Event::elapsedMs(*Start, *End);
    if (!Ms)
      return Ms.takeError();
    Times.push_back(*Ms / double(Sets.size()));
  }
  return Times;
}

unsigned tile::rt::rotatingSets(uint64_t SetBytes, uint64_t RotateBytes,
                                unsigned MaxSets) {
  uint64_t N = SetBytes ? (RotateBytes + SetBytes - 1) / SetBytes : MaxSets;
  return unsigned(std::clamp<uint64_t>(N, 2, std::max(MaxSets, 2u)));
}

Expected<TimingStats> tile::rt::summarizeTimes(std::vector<double> Ms) {
  if (Ms.empty())
    return makeError("no timed runs to summarize");
  for (double T : Ms)
    if (!std::isfinite(T) || T < 0)
      return makeError("invalid time " + number(T) + " ms");
  std::sort(Ms.begin(), Ms.end());
  TimingStats S;
  S.Runs = int(Ms.size());
  S.MinMs = Ms.front();
  S.MaxMs = Ms.back();
  S.MedianMs = quantile(Ms, 0.5);
  S.P10Ms = quantile(Ms, 0.1);
  S.P90Ms = quantile(Ms, 0.9);
  double Sum = 0;
  for (double T : Ms)
    Sum += T;
  S.MeanMs = Sum / double(Ms.size());
  if (Ms.size() > 1) {
    double Sq = 0;
    for (double T : Ms)
      Sq += (T - S.MeanMs) * (T - S.MeanMs);
    S.StdevMs = std::sqrt(Sq / double(Ms.size() - 1));
  }
  return S;
}

std::string tile::rt::csvField(std::string_view Field) {
  if (Field.find_first_of(",\"\r\n") == std::string_view::npos)
    return std::string(Field);
  std::string Out = "\"";
  for (char C : Field) {
    if (C == '"')
      Out += '"';
    Out += C;
  }
  return Out + "\"";
}

std::string tile::rt::timingCsvHeader() {
  return "kernel,target,device,arch,test,sizes,seed,checked,flush_l2,runs,"
         "median_ms,min_ms,max_ms,mean_ms,stdev_ms,p10_ms,p90_ms,rotate_sets";
}

std::string tile::rt::timingCsvRow(const TimingRecord &R) {
  const TimingStats &S = R.Stats;
  std::string Row;
  for (const std::string &F :
       {csvField(R.Kernel), csvField(R.Target), csvField(R.Device),
        csvField(R.Arch), std::to_string(R.TestIndex), csvField(R.Sizes),
        std::to_string(R.Seed), std::string(R.Checked ? "1" : "0"),
        std::string(R.FlushedL2 ? "1" : "0"), std::to_string(S.Runs),
        number(S.MedianMs), number(S.MinMs), number(S.MaxMs), number(S.MeanMs),
        number(S.StdevMs), number(S.P10Ms), number(S.P90Ms),
        std::to_string(R.RotateSets)}) {
    if (!Row.empty())
      Row += ',';
    Row += F;
  }
  return Row;
}
