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
/// A buffer of `bytes` live over the closed interval [first, last].
struct BufferRequest {
  int64_t bytes;
  int64_t first;
  int64_t last;
};

struct MemoryPlan {
  std::vector<int64_t> offsets; ///< one per request, multiples of alignment
  int64_t arenaBytes = 0;       ///< end of the highest placed buffer
  int64_t lowerBound = 0;       ///< peak bytes live at one time (aligned sizes)
};

/// Greedy by size: largest buffer first, each into the tightest gap left by
/// already-placed buffers whose lifetimes overlap its own.
MemoryPlan planMemory(const std::vector<BufferRequest> &requests,
                      int64_t alignment);
} // namespace dlc

#endif
