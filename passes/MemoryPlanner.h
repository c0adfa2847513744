//===- MemoryPlanner.h - offsets for buffers with known lifetimes ---------===//
//
// The arithmetic of static memory planning, without IR, so that gtest can
// check it directly.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_MEMORYPLANNER_H
#define DLC_PASSES_MEMORYPLANNER_H

#include <cstdint>
#include <vector>

namespace dlc {
/// A buffer of `bytes` live over the closed interval [first, last] of op
/// positions. `firstStep` and `lastStep` count the same interval in steps,
/// the ops that read or write memory (-1: first and last), for
/// planMemory's reuse distance.
struct BufferRequest {
  int64_t bytes;
  int64_t first;
  int64_t last;
  int64_t firstStep = -1;
  int64_t lastStep = -1;
};

struct MemoryPlan {
  std::vector<int64_t> offsets; ///< one per request, multiples of alignment
  int64_t arenaBytes = 0;       ///< end of the highest placed buffer
  int64_t lowerBound = 0;       ///< peak bytes live at one time (aligned sizes)
};

/// Greedy placement: each buffer into the tightest gap left by the
/// already-placed buffers whose lifetimes overlap its own, in three orders
/// (largest first, as TFLite and Glow do; largest size x lifetime first;
/// longest-lived first), keeping the smallest arena. Largest-first alone
/// left ResNet-18 at 1.30x its lower bound (6.39 MB) once its stem's 7.4 MB
/// of columns went (they had anchored the plan); the best of the three
/// gets 1.22x (5.97 MB). First-use order did no better.
///
/// With a `reuseDistance` of N > 0, the orders are placed again keeping each
/// buffer off the bytes of buffers freed at most N steps before it is
/// allocated (else N - 1, ... down to 1) wherever that fits within the arena
/// found without the rule; where the plan then needs a larger arena, the
/// plan without the rule stands.
/// Why: a buffer freed a step or two ago is still in the caches of the
/// threads that read it last; writing its bytes from another thread first
/// takes every line away from them (a depthwise conv, split over channels,
/// writing over what a 1x1 conv split over pixels has just read).
MemoryPlan planMemory(const std::vector<BufferRequest> &requests,
                      int64_t alignment, int64_t reuseDistance = 0);
} // namespace dlc

#endif
