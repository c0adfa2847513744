//===- MemoryPlanner.cpp - greedy offset assignment, best of three orders -===//
#include "passes/MemoryPlanner.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>

using namespace dlc;

using Interval = std::pair<int64_t, int64_t>;

/// The start of the tightest gap of at least `size` bytes between the
/// intervals `taken`, else the end of the highest.
static int64_t tightestGap(std::vector<Interval> taken, int64_t size) {
  std::sort(taken.begin(), taken.end());
  int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
  for (auto &[begin, end] : taken) {
    if (begin - cursor >= size && begin - cursor < bestGap) {
      best = cursor;
      bestGap = begin - cursor;
    }
    cursor = std::max(cursor, end);
  }
  return best >= 0 ? best : cursor;
}

static int64_t firstStep(const BufferRequest &r) { return r.firstStep >= 0 ? r.firstStep : r.first; }
static int64_t lastStep(const BufferRequest &r) { return r.lastStep >= 0 ? r.lastStep : r.last; }

/// Offsets for `requests` placed in `order`: each into the tightest gap
/// left by the already-placed buffers whose lifetimes overlap its own, else
/// above them. With a `reuseDistance`, first into the tightest gap that
/// also misses the buffers freed at most that many steps before it, or
/// failing that (past `cap`) fewer steps, down to one.
template <typename Align>
static std::vector<int64_t> placeInOrder(const std::vector<BufferRequest> &requests,
                                         const std::vector<size_t> &order, Align align,
                                         int64_t reuseDistance, int64_t cap) {
  std::vector<int64_t> offsets(requests.size(), 0);
  std::vector<size_t> placed;
  for (size_t idx : order) {
    const BufferRequest &r = requests[idx];
    int64_t size = align(r.bytes);
    // Intervals [offset, end) taken by buffers live at the same time, and
    // those of the buffers freed before this one is allocated, with how
    // many steps before.
    std::vector<Interval> taken;
    std::vector<std::pair<int64_t, Interval>> freed;
    for (size_t p : placed) {
      const BufferRequest &q = requests[p];
      Interval bytes{offsets[p], offsets[p] + align(q.bytes)};
      if (q.first <= r.last && r.first <= q.last)
        taken.push_back(bytes);
      else if (q.last < r.first)
        freed.push_back({firstStep(r) - lastStep(q), bytes});
    }
    offsets[idx] = tightestGap(taken, size);
    // The distances to try, largest first: those of the buffers freed
    // within reuseDistance steps (each a smaller set of bytes to avoid).
    std::vector<int64_t> distances;
    for (auto &[steps, bytes] : freed)
      if (steps <= reuseDistance)
        distances.push_back(steps);
    std::sort(distances.rbegin(), distances.rend());
    distances.erase(std::unique(distances.begin(), distances.end()), distances.end());
    for (int64_t distance : distances) {
      std::vector<Interval> avoided = taken;
      for (auto &[steps, bytes] : freed)
        if (steps <= distance)
          avoided.push_back(bytes);
      int64_t apart = tightestGap(avoided, size);
      if (apart + size <= cap) {
        offsets[idx] = apart;
        break;
      }
    }
    placed.push_back(idx);
  }
  return offsets;
}

MemoryPlan dlc::planMemory(const std::vector<BufferRequest> &requests,
                           int64_t alignment, int64_t reuseDistance) {
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
  // The smallest arena of the orders, without the reuse distance (cap
  // INT64_MAX: unused) and then with it, within the first's arena.
  auto bestOrder = [&](int64_t distance, int64_t cap, MemoryPlan &best) {
    for (const Key &key : orders) {
      std::vector<size_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return key(a) > key(b); });
      std::vector<int64_t> offsets = placeInOrder(requests, order, align, distance, cap);
      int64_t arena = 0;
      for (size_t i = 0; i < n; ++i)
        arena = std::max(arena, offsets[i] + align(requests[i].bytes));
      if (arena <= cap && (best.arenaBytes < 0 || arena < best.arenaBytes)) {
        best.arenaBytes = arena;
        best.offsets = std::move(offsets);
      }
    }
  };
  plan.arenaBytes = -1;
  bestOrder(/*distance=*/0, /*cap=*/INT64_MAX, plan);
  if (reuseDistance > 0) {
    MemoryPlan apart;
    apart.arenaBytes = -1;
    bestOrder(reuseDistance, plan.arenaBytes, apart);
    if (apart.arenaBytes >= 0) {
      plan.arenaBytes = apart.arenaBytes;
      plan.offsets = std::move(apart.offsets);
    }
  }
  return plan;
}
