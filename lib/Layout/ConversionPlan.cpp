//===- ConversionPlan.cpp - Planning layout conversions -------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/ConversionPlan.h"
#include "tile/Layout/DistributedLayout.h"
#include "tile/Layout/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace tile::layout {

StringRef stringifyConversionKind(ConversionKind kind) {
  switch (kind) {
  case ConversionKind::NoOp:
    return "no-op";
  case ConversionKind::RegisterPermutation:
    return "register-permutation";
  case ConversionKind::WarpShuffle:
    return "warp-shuffle";
  case ConversionKind::SharedMemory:
    return "shared-memory";
  }
  return "unknown";
}

/// Picks the shared layout (which dimension is contiguous, then the swizzle)
/// with the fewest wavefronts for storing `src` and loading `dst`.
static Error planSharedMemory(const DistributedLayout &src,
                              const DistributedLayout &dst, int64_t warpSize,
                              unsigned elemBits, const BankConfig &banks,
                              ConversionPlan &plan) {
  unsigned rank = src.rank();
  std::optional<SwizzleChoice> best;
  SharedLayout bestBase;
  std::string lastError = "no shared layout candidate";
  // Candidate orders: dimension d contiguous, the others row-major; the
  // row-major order (last dimension contiguous) comes first and wins ties.
  SmallVector<SmallVector<unsigned, 4>, 4> orders;
  for (unsigned minor = rank; minor-- > 0;) {
    SmallVector<unsigned, 4> order{minor};
    for (unsigned d = rank; d-- > 0;) {
      if (d != minor)
        order.push_back(d);
    }
    orders.push_back(order);
  }
  if (rank == 0)
    orders.emplace_back();
  for (ArrayRef<unsigned> order : orders) {
    auto base = SharedLayout::ordered(src.shape(), order);
    if (!base)
      return base.takeError();
    auto choice = searchSwizzle(*base, src, dst, elemBits, warpSize, banks);
    if (!choice) {
      lastError = toString(choice.takeError());
      continue;
    }
    int64_t cost = choice->store.wavefronts + choice->load.wavefronts;
    if (!best || cost < best->store.wavefronts + best->load.wavefronts) {
      best = *choice;
      bestBase = *base;
    }
  }
  if (!best) {
    return createStringError("cannot plan a shared-memory round trip: " +
                             lastError);
  }
  plan.smem = bestBase.withSwizzle(best->swizzle);
  plan.storeVec = best->storeVec;
  plan.loadVec = best->loadVec;
  plan.storeCost = best->store;
  plan.loadCost = best->load;
  return Error::success();
}

Expected<ConversionPlan> planConversion(const DistributedLayout &src,
                                        const DistributedLayout &dst,
                                        int64_t warpSize, unsigned elemBits,
                                        const BankConfig &banks) {
  if (src.shape() != dst.shape()) {
    return createStringError("cannot convert between layouts of different "
                             "tile shapes: " +
                             src.str() + " and " + dst.str());
  }
  int64_t t = src.numThreads();
  if (dst.numThreads() != t) {
    return createStringError("cannot convert between layouts of " +
                             std::to_string(t) + " and " +
                             std::to_string(dst.numThreads()) + " threads");
  }
  if (warpSize < 1 || t % warpSize != 0) {
    return createStringError("thread count " + std::to_string(t) +
                             " is not a multiple of the warp size " +
                             std::to_string(warpSize));
  }
  if (elemBits < 1 || elemBits > 64)
    return createStringError("element width must be 1..64 bits");

  ConversionPlan plan;
  plan.numThreads = t;
  plan.warpSize = warpSize;
  plan.srcLocalSize = src.localSize();
  plan.dstLocalSize = dst.localSize();
  if (src == dst) {
    plan.kind = ConversionKind::NoOp;
    return plan;
  }

  int64_t lDst = dst.localSize();
  // For every destination register: the source slot in the same thread, or
  // the (lane, slot) candidates in the same warp.
  plan.localSource.assign(t * lDst, -1);
  SmallVector<SmallVector<std::pair<int64_t, SmallVector<ThreadSlot, 4>>, 4>, 0>
      pending(t);
  bool allLocal = true, allInWarp = true;
  for (int64_t th = 0; th < t; ++th) {
    int64_t warpBase = th - th % warpSize;
    for (int64_t l = 0; l < lDst; ++l) {
      SmallVector<ThreadSlot, 4> inWarp;
      for (ThreadSlot h : src.holders(dst.apply(th, l))) {
        if (h.thread == th) {
          plan.localSource[th * lDst + l] = h.slot;
        } else if (h.thread - h.thread % warpSize == warpBase) {
          inWarp.push_back({h.thread - warpBase, h.slot});
        }
      }
      if (plan.localSource[th * lDst + l] >= 0)
        continue;
      allLocal = false;
      if (inWarp.empty()) {
        allInWarp = false;
      } else {
        pending[th].push_back({l, inWarp});
      }
    }
  }
  for (int64_t th = 1; th < t; ++th) {
    for (int64_t l = 0; l < lDst; ++l) {
      if (plan.localSource[th * lDst + l] != plan.localSource[l])
        plan.uniformLocalSource = false;
    }
  }

  if (allLocal) {
    plan.kind = ConversionKind::RegisterPermutation;
    return plan;
  }
  if (allInWarp) {
    plan.kind = ConversionKind::WarpShuffle;
    // Rounds with a uniform send register: in a round for slot s every
    // thread takes one pending element offered at slot s by some lane.
    for (int64_t s = 0; s < src.localSize(); ++s) {
      for (;;) {
        ShuffleRound round;
        round.sendSlot = s;
        round.srcLane.assign(t, 0);
        round.dstSlot.assign(t, -1);
        bool any = false;
        for (int64_t th = 0; th < t; ++th) {
          round.srcLane[th] = th % warpSize;
          auto &list = pending[th];
          for (auto *it = list.begin(); it != list.end(); ++it) {
            auto *c = find_if(it->second,
                              [&](const ThreadSlot &h) { return h.slot == s; });
            if (c == it->second.end())
              continue;
            round.srcLane[th] = c->thread;
            round.dstSlot[th] = it->first;
            list.erase(it);
            any = true;
            break;
          }
        }
        if (!any)
          break;
        plan.rounds.push_back(std::move(round));
      }
    }
    return plan;
  }

  plan.kind = ConversionKind::SharedMemory;
  plan.localSource.clear();
  plan.uniformLocalSource = true;
  if (Error e = planSharedMemory(src, dst, warpSize, elemBits, banks, plan))
    return e;
  return plan;
}

Expected<ConversionKind> classifyConversion(const LinearLayout &src,
                                            const LinearLayout &dst) {
  if (src.shape() != dst.shape() || src.laneBits() != dst.laneBits() ||
      src.warpBits() != dst.warpBits()) {
    return createStringError("layouts differ in tile shape, warp size or "
                             "warp count");
  }
  if (src == dst)
    return ConversionKind::NoOp;
  unsigned outBits = src.map().outBits();
  auto spanOf = [&](ArrayRef<uint64_t> a, ArrayRef<uint64_t> b = {}) {
    SmallVector<uint64_t, 32> cols(a.begin(), a.end());
    cols.append(b.begin(), b.end());
    return F2Map(cols.size(), outBits, cols);
  };
  auto contains = [](const F2Map &span, ArrayRef<uint64_t> vs) {
    return all_of(vs, [&](uint64_t v) { return span.inImage(v); });
  };
  // Differences of the thread bases of dst and src in the given range.
  auto diff = [](ArrayRef<uint64_t> a, ArrayRef<uint64_t> b) {
    SmallVector<uint64_t, 16> d;
    for (auto [x, y] : zip(a, b))
      d.push_back(x ^ y);
    return d;
  };
  F2Map regs = spanOf(src.regBases());
  if (contains(regs, dst.regBases()) &&
      contains(regs, diff(dst.laneBases(), src.laneBases())) &&
      contains(regs, diff(dst.warpBases(), src.warpBases())))
    return ConversionKind::RegisterPermutation;
  F2Map regsLanes = spanOf(src.regBases(), src.laneBases());
  if (contains(regsLanes, dst.regBases()) &&
      contains(regsLanes, dst.laneBases()) &&
      contains(regsLanes, diff(dst.warpBases(), src.warpBases())))
    return ConversionKind::WarpShuffle;
  return ConversionKind::SharedMemory;
}

} // namespace tile::layout
