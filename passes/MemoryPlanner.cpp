//===- MemoryPlanner.cpp - greedy-by-size offset assignment ---------------===//
#include "passes/MemoryPlanner.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace dlc;

MemoryPlan dlc::planMemory(const std::vector<BufferRequest> &requests,
                           int64_t alignment) {
  auto align = [&](int64_t v) { return (v + alignment - 1) / alignment * alignment; };
  size_t n = requests.size();
  MemoryPlan plan;
  plan.offsets.assign(n, 0);

  // Lower bound: the largest sum of sizes live at one position.
  std::map<int64_t, int64_t> delta;
  for (const BufferRequest &r : requests) {
    delta[r.first] += align(r.bytes);
    delta[r.last + 1] -= align(r.bytes);
  }
  int64_t live = 0;
  for (auto &[position, d] : delta)
    plan.lowerBound = std::max(plan.lowerBound, live += d);

  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return requests[a].bytes > requests[b].bytes;
  });
  std::vector<size_t> placed;
  for (size_t idx : order) {
    const BufferRequest &r = requests[idx];
    int64_t size = align(r.bytes);
    // Intervals [offset, end) taken by buffers live at the same time.
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (size_t p : placed) {
      const BufferRequest &q = requests[p];
      if (q.first <= r.last && r.first <= q.last)
        taken.push_back({plan.offsets[p], plan.offsets[p] + align(q.bytes)});
    }
    std::sort(taken.begin(), taken.end());
    int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
    for (auto &[begin, end] : taken) {
      if (begin - cursor >= size && begin - cursor < bestGap) {
        best = cursor;
        bestGap = begin - cursor;
      }
      cursor = std::max(cursor, end);
    }
    plan.offsets[idx] = best >= 0 ? best : cursor;
    plan.arenaBytes = std::max(plan.arenaBytes, plan.offsets[idx] + size);
    placed.push_back(idx);
  }
  return plan;
}
