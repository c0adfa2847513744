//===- MemoryPlanner.cpp - greedy offset assignment, best of three orders -===//
#include "passes/MemoryPlanner.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>

using namespace dlc;

/// Offsets for `requests` placed in `order`: each into the tightest gap
/// left by the already-placed buffers whose lifetimes overlap its own, else
/// above them.
template <typename Align>
static std::vector<int64_t> placeInOrder(const std::vector<BufferRequest> &requests,
                                         const std::vector<size_t> &order, Align align) {
  std::vector<int64_t> offsets(requests.size(), 0);
  std::vector<size_t> placed;
  for (size_t idx : order) {
    const BufferRequest &r = requests[idx];
    int64_t size = align(r.bytes);
    // Intervals [offset, end) taken by buffers live at the same time.
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (size_t p : placed) {
      const BufferRequest &q = requests[p];
      if (q.first <= r.last && r.first <= q.last)
        taken.push_back({offsets[p], offsets[p] + align(q.bytes)});
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
    offsets[idx] = best >= 0 ? best : cursor;
    placed.push_back(idx);
  }
  return offsets;
}

MemoryPlan dlc::planMemory(const std::vector<BufferRequest> &requests,
                           int64_t alignment) {
  auto align = [&](int64_t v) { return (v + alignment - 1) / alignment * alignment; };
  size_t n = requests.size();
  MemoryPlan plan;

  // Lower bound: the largest sum of sizes live at one position.
  std::map<int64_t, int64_t> delta;
  for (const BufferRequest &r : requests) {
    delta[r.first] += align(r.bytes);
    delta[r.last + 1] -= align(r.bytes);
  }
  int64_t live = 0;
  for (auto &[position, d] : delta)
    plan.lowerBound = std::max(plan.lowerBound, live += d);

  // Each order places the buffers greedily; the smallest arena wins.
  auto lifetime = [&](size_t i) { return requests[i].last - requests[i].first + 1; };
  auto bytes = [&](size_t i) { return requests[i].bytes; };
  using Key = std::function<std::pair<int64_t, int64_t>(size_t)>;
  const Key orders[] = {
      [&](size_t i) { return std::make_pair(bytes(i), int64_t(0)); },
      [&](size_t i) { return std::make_pair(bytes(i) * lifetime(i), int64_t(0)); },
      [&](size_t i) { return std::make_pair(lifetime(i), bytes(i)); },
  };
  plan.arenaBytes = -1;
  for (const Key &key : orders) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return key(a) > key(b); });
    std::vector<int64_t> offsets = placeInOrder(requests, order, align);
    int64_t arena = 0;
    for (size_t i = 0; i < n; ++i)
      arena = std::max(arena, offsets[i] + align(requests[i].bytes));
    if (plan.arenaBytes < 0 || arena < plan.arenaBytes) {
      plan.arenaBytes = arena;
      plan.offsets = std::move(offsets);
    }
  }
  return plan;
}
