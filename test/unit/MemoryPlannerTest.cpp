//===- MemoryPlannerTest.cpp - offsets from lifetimes ---------------------===//
#include "passes/MemoryPlanner.h"

#include <gtest/gtest.h>

#include <random>

using dlc::BufferRequest;
using dlc::planMemory;

namespace {
/// No two buffers that are live at the same time may share a byte.
void expectNoConflicts(const std::vector<BufferRequest> &reqs, const dlc::MemoryPlan &plan,
                       int64_t alignment) {
  for (size_t a = 0; a < reqs.size(); ++a) {
    EXPECT_EQ(plan.offsets[a] % alignment, 0);
    EXPECT_LE(plan.offsets[a] + reqs[a].bytes, plan.arenaBytes);
    for (size_t b = a + 1; b < reqs.size(); ++b) {
      bool liveTogether = reqs[a].first <= reqs[b].last && reqs[b].first <= reqs[a].last;
      bool overlap = plan.offsets[a] < plan.offsets[b] + reqs[b].bytes &&
                     plan.offsets[b] < plan.offsets[a] + reqs[a].bytes;
      EXPECT_FALSE(liveTogether && overlap) << "buffers " << a << " and " << b;
    }
  }
}

/// Up to 40 buffers of up to 100000 bytes, each born in the first 50
/// positions and live for up to 10.
std::vector<BufferRequest> randomRequests(std::mt19937 &rng) {
  std::vector<BufferRequest> reqs;
  int n = 1 + rng() % 40;
  for (int i = 0; i < n; ++i) {
    int64_t first = rng() % 50;
    reqs.push_back({1 + (int64_t)(rng() % 100000), first, first + (int64_t)(rng() % 10)});
  }
  return reqs;
}
} // namespace

TEST(MemoryPlanner, DisjointLifetimesShareMemory) {
  std::vector<BufferRequest> reqs{{1000, 0, 1}, {1000, 2, 3}, {1000, 4, 5}};
  auto plan = planMemory(reqs, 64);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(plan.arenaBytes, 1024);
  EXPECT_EQ(plan.lowerBound, 1024);
}

// Largest first (equal sizes: in request order) places buffer 2 above
// buffers 0 and 1 (320 bytes); placing the longest-lived buffer 2 first
// (also the largest size x lifetime) reaches the lower bound.
TEST(MemoryPlanner, KeepsTheBestOfSeveralOrders) {
  std::vector<BufferRequest> reqs{{128, 4, 4}, {128, 0, 1}, {128, 2, 4}, {64, 1, 2}};
  auto plan = planMemory(reqs, 64);
  expectNoConflicts(reqs, plan, 64);
  EXPECT_EQ(plan.lowerBound, 256);
  EXPECT_EQ(plan.arenaBytes, 256);
}

TEST(MemoryPlanner, OverlappingLifetimesAreSeparatedAndAligned) {
  std::vector<BufferRequest> reqs{{100, 0, 2}, {10, 1, 3}, {70, 2, 4}};
  auto plan = planMemory(reqs, 64);
  expectNoConflicts(reqs, plan, 64);
  EXPECT_EQ(plan.lowerBound, 128 + 64 + 128); // all three live at position 2
  EXPECT_EQ(plan.arenaBytes, plan.lowerBound);
}

TEST(MemoryPlanner, ReusesTheTightestGap) {
  // A chain a -> b -> c -> d where each buffer dies after the next is made:
  // two slots suffice, as in a CNN's ping-pong between layers.
  std::vector<BufferRequest> reqs{{4096, 0, 1}, {4096, 1, 2}, {4096, 2, 3}, {4096, 3, 4}};
  auto plan = planMemory(reqs, 64);
  expectNoConflicts(reqs, plan, 64);
  EXPECT_EQ(plan.arenaBytes, 2 * 4096);
}

TEST(MemoryPlanner, RandomProblemsAreValidAndNearTheLowerBound) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferRequest> reqs = randomRequests(rng);
    auto plan = planMemory(reqs, 64);
    expectNoConflicts(reqs, plan, 64);
    EXPECT_GE(plan.arenaBytes, plan.lowerBound);
    EXPECT_LE(plan.arenaBytes, 2 * plan.lowerBound) << "trial " << trial;
  }
}

TEST(MemoryPlanner, EmptyPlan) {
  auto plan = planMemory({}, 64);
  EXPECT_EQ(plan.arenaBytes, 0);
  EXPECT_EQ(plan.lowerBound, 0);
}

// A 16 KiB buffer early sets the arena; then a chain of 4 KiB buffers, each
// allocated one step after the last read of the one before (3 steps after
// the one before that). Without a reuse distance each takes the bytes just
// freed (offset 0); with a distance of 2 they alternate between two slots,
// with 3 they rotate over three, all within the 16 KiB.
TEST(MemoryPlanner, ReuseDistanceKeepsOffRecentlyFreedBytes) {
  std::vector<BufferRequest> reqs{{16384, 0, 1, 0, 1}};
  for (int64_t i = 0; i < 4; ++i)
    reqs.push_back({4096, 2 + 2 * i, 3 + 2 * i, 2 + 2 * i, 3 + 2 * i});
  auto tight = planMemory(reqs, 64);
  EXPECT_EQ(tight.offsets, (std::vector<int64_t>{0, 0, 0, 0, 0}));
  auto alternate = planMemory(reqs, 64, /*reuseDistance=*/2);
  expectNoConflicts(reqs, alternate, 64);
  EXPECT_EQ(alternate.arenaBytes, 16384);
  EXPECT_EQ(alternate.offsets, (std::vector<int64_t>{0, 0, 4096, 0, 4096}));
  auto rotate = planMemory(reqs, 64, /*reuseDistance=*/3);
  expectNoConflicts(reqs, rotate, 64);
  EXPECT_EQ(rotate.arenaBytes, 16384);
  EXPECT_EQ(rotate.offsets, (std::vector<int64_t>{0, 0, 4096, 8192, 0}));
}

// Where keeping apart would need more bytes than the plan without it, the
// plan without it stands: the reuse distance never grows the arena.
TEST(MemoryPlanner, ReuseDistanceNeverGrowsTheArena) {
  std::vector<BufferRequest> reqs{{4096, 0, 1}, {4096, 2, 3}, {4096, 4, 5}};
  auto plan = planMemory(reqs, 64, /*reuseDistance=*/8);
  EXPECT_EQ(plan.arenaBytes, 4096);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0}));
}

TEST(MemoryPlanner, ReuseDistancePlansAreValidAndNoLarger) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferRequest> reqs = randomRequests(rng);
    auto tight = planMemory(reqs, 64);
    auto apart = planMemory(reqs, 64, /*reuseDistance=*/1 + rng() % 8);
    expectNoConflicts(reqs, apart, 64);
    EXPECT_LE(apart.arenaBytes, tight.arenaBytes) << "trial " << trial;
    EXPECT_EQ(apart.lowerBound, tight.lowerBound);
  }
}
