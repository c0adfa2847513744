/*===- ThreadPoolTest.c - the runtime's thread pool on its own ---------------===*
 *
 * Plain C like the pool (its header is C11 atomics). Checks that every
 * iteration of a loop runs exactly once, whatever n and the thread count,
 * over many loops in a row (a worker that is late for one loop must not
 * run a chunk of the next with the old body), and that a thread done with
 * its share takes over chunks of a share that is held up, and that a
 * share's chunks shrink to single iterations at its end while its owner
 * takes no more than a quarter of it at first, and that groups
 * of the pool's threads run their own loops, and that an alternating loop
 * turns around at each flip (every iteration still once), and that the
 * workers count denormal floats as zero (MXCSR's FTZ and DAZ: see
 * denormals.h). Prints "ok" or what failed, and exits non-zero on failure.
 *
 *===----------------------------------------------------------------------===*/
#define _DEFAULT_SOURCE
#include "thread_pool.h"
#include "denormals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__);                                       \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

enum { MAX_N = 20000 };

typedef struct counts {
  atomic_int runs[MAX_N];
  atomic_int thread[MAX_N];
  atomic_int chunk[MAX_N]; /* the size of the chunk that ran it */
  int64_t n;
  int stall_first; /* the chunk holding iteration 0 sleeps */
} counts;

/* Counts each iteration and records its thread (dlc_parallel_for_threads). */
static void count(void *ctx, int64_t lo, int64_t hi, int thread) {
  counts *c = ctx;
  if (c->stall_first && lo == 0)
    usleep(50000);
  for (int64_t i = lo; i < hi; ++i) {
    atomic_fetch_add(&c->runs[i], 1);
    atomic_store(&c->thread[i], thread);
    atomic_store(&c->chunk[i], (int)(hi - lo));
  }
}

/* A second body, of the generated code's kind (dlc_parallel_for), so that a
 * worker running the previous loop's body on this loop's context (or the
 * reverse) shows as a wrong count. */
static void count_twice(void *ctx, int64_t lo, int64_t hi) {
  counts *c = ctx;
  for (int64_t i = lo; i < hi; ++i)
    atomic_fetch_add(&c->runs[i], 2);
}

static counts a, b;

/* Records the order iterations ran in (dlc_parallel_for_alternating). */
static atomic_int next_seq, seq[MAX_N];
static void record_order(void *ctx, int64_t lo, int64_t hi) {
  counts *c = ctx;
  for (int64_t i = lo; i < hi; ++i) {
    atomic_fetch_add(&c->runs[i], 1);
    atomic_store(&seq[i], atomic_fetch_add(&next_seq, 1));
  }
}

/* Whether iterations [0, n) ran in increasing (1) or decreasing (-1)
 * order, else 0. */
static int order_of(int64_t n) {
  int up = 1, down = 1;
  for (int64_t i = 1; i < n; ++i) {
    up &= atomic_load(&seq[i]) > atomic_load(&seq[i - 1]);
    down &= atomic_load(&seq[i]) < atomic_load(&seq[i - 1]);
  }
  return up ? 1 : down ? -1 : 0;
}

static void reset(counts *c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    atomic_store(&c->runs[i], 0);
    atomic_store(&c->thread[i], -1);
  }
  c->n = n;
  c->stall_first = 0;
}

static void expect_each(counts *c, int per, const char *what) {
  for (int64_t i = 0; i < c->n; ++i)
    if (atomic_load(&c->runs[i]) != per) {
      CHECK(0, "%s: n=%lld iteration %lld ran %d times, not %d", what, (long long)c->n,
            (long long)i, atomic_load(&c->runs[i]), per);
      return;
    }
}

/* Groups of a pool's threads (the runtime's batch images side by side,
 * several threads each, dlc_parallel_groups): group k runs `loops` loops
 * on its group pool. */
enum { MAX_GROUPS = 8 };
typedef struct group_test {
  dlc_pool groups[MAX_GROUPS];
  counts *c[MAX_GROUPS];
  int loops;
} group_test;

static void group_loops(void *ctx, int k, int groups, dlc_pool *group) {
  (void)groups;
  group_test *g = ctx;
  for (int r = 0; r < g->loops; ++r)
    dlc_parallel_for_threads(group, count, g->c[k], g->c[k]->n);
}

static counts group_counts[2];

#if defined(__x86_64__) || defined(__i386__)
/* Records, per iteration, its thread and whether that had FTZ and DAZ set. */
static atomic_int flushing[64], flushing_thread[64];
static void record_mxcsr(void *ctx, int64_t lo, int64_t hi, int thread) {
  (void)ctx;
  for (int64_t i = lo; i < hi; ++i) {
    atomic_store(&flushing[i], (_mm_getcsr() & DLC_MXCSR_FTZ_DAZ) == DLC_MXCSR_FTZ_DAZ);
    atomic_store(&flushing_thread[i], thread);
  }
}
#endif

int main(void) {
  static dlc_pool pool; /* zeroed, as the runtime's calloc'd instance */
  if (!dlc_pool_start(&pool)) {
    fprintf(stderr, "FAILED: cannot start the pool\n");
    return 1;
  }
  int threads = pool.num_workers + 1;
  const int64_t sizes[] = {1, 2, 3, 5, 7, 15, 16, 17, 100, 157, 1000, 12345, MAX_N};
  for (int active = 1; active <= threads; ++active) {
    pool.active = active;
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
      int64_t n = sizes[s];
      reset(&a, n);
      reset(&b, n);
      /* Alternate two bodies and contexts, loop after loop. */
      for (int r = 0; r < 200; ++r) {
        dlc_parallel_for_threads(&pool, count, &a, n);
        dlc_parallel_for(&pool, count_twice, &b, n);
      }
      expect_each(&a, 200, "count");
      expect_each(&b, 400, "count_twice");
      if (active == 1)
        for (int64_t i = 0; i < n; ++i)
          CHECK(atomic_load(&a.thread[i]) == 0, "one thread: iteration %lld ran on thread %d",
                (long long)i, atomic_load(&a.thread[i]));
    }
  }
  /* Alternating loops: on one thread, front to back, then after a flip
   * back to front, then front to back again; on all threads, every
   * iteration once whichever way, flip after flip. */
  pool.active = 1;
  for (int k = 0; k < 3; ++k) {
    reset(&a, 100);
    dlc_parallel_for_alternating(&pool, record_order, &a, a.n);
    expect_each(&a, 1, "alternating, one thread");
    CHECK(order_of(a.n) == (k % 2 ? -1 : 1), "alternating loop %d on one thread ran %s", k,
          order_of(a.n) == 1 ? "front to back" : order_of(a.n) ? "back to front" : "out of order");
    dlc_pool_flip_sweeps(&pool);
  }
  pool.sweep_backward = 0;
  pool.active = threads;
  for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    reset(&a, sizes[s]);
    reset(&b, sizes[s]);
    for (int r = 0; r < 50; ++r) {
      dlc_parallel_for_alternating(&pool, record_order, &a, a.n);
      dlc_parallel_for(&pool, count_twice, &b, b.n);
      dlc_pool_flip_sweeps(&pool);
    }
    expect_each(&a, 50, "alternating");
    expect_each(&b, 100, "count_twice between alternating loops");
  }
  pool.sweep_backward = 0;

  /* Many tiny loops back to back (the workers mostly still on the last). */
  pool.active = threads;
  reset(&a, 3);
  for (int r = 0; r < 100000; ++r)
    dlc_parallel_for_threads(&pool, count, &a, 3);
  expect_each(&a, 100000, "tiny loops");

  /* A share's chunks shrink: its owner's first take (several chunks,
   * OWNER_TAKES_OF) is more than an even 32nd of it and at most a
   * quarter, its last chunk (what a thread done early waits for at a
   * loop's end) about a 1024th. Where a share is under 1024 iterations (16 threads: 771) the
   * last chunk rounds to empty and the one before it, 4/1024ths, runs the
   * share's last iteration. */
  if (threads > 1) {
    /* The take sizes hold where no thread was descheduled at the loop's
     * start: a caller held up there finds its share's back already taken
     * and its first take an eighth of less (under CI's parallel tests it
     * once ran 380 of 6172 iterations). So the loop runs until one run
     * shows them, at most 20 times; every run covers each iteration once. */
    int shaped = 0;
    for (int attempt = 0; attempt < 20 && !shaped; ++attempt) {
      reset(&a, 12345);
      dlc_parallel_for_threads(&pool, count, &a, a.n);
      expect_each(&a, 1, "shrinking chunks");
      shaped = 1;
      for (int t = 0; t < threads; ++t) {
        int64_t first = a.n * t / threads, last = a.n * (t + 1) / threads - 1, size = last - first + 1;
        int head = atomic_load(&a.chunk[first]), tail = atomic_load(&a.chunk[last]);
        /* Its last chunk about a 1024th; its owner's first take several
         * chunks (OWNER_TAKES_OF), more than an even 32nd and leaving
         * three quarters of the share for the others to take. */
        if (tail > size * 4 / 1024 + 1 || head <= size / 32 || head > size / 4)
          shaped = 0;
      }
      /* The caller takes its own share's front before anything else: its
       * first take is several chunks, more than the first chunk's 2/32
       * (a worker's front may go to a thread that took its whole share). */
      if (atomic_load(&a.chunk[0]) <= a.n / threads / 8)
        shaped = 0;
    }
    for (int t = 0; t < threads; ++t) {
      int64_t first = a.n * t / threads, last = a.n * (t + 1) / threads - 1;
      CHECK(atomic_load(&a.chunk[last]) <= (last - first + 1) * 4 / 1024 + 1,
            "share %d: last chunk of %d iterations", t, atomic_load(&a.chunk[last]));
      CHECK(atomic_load(&a.chunk[first]) > (last - first + 1) / 32,
            "share %d: first chunk of %d iterations, no more than an even 32nd", t,
            atomic_load(&a.chunk[first]));
      CHECK(atomic_load(&a.chunk[first]) <= (last - first + 1) / 4,
            "share %d: its owner's first take ran %d of its %lld iterations", t,
            atomic_load(&a.chunk[first]), (long long)(last - first + 1));
    }
    CHECK(atomic_load(&a.chunk[0]) > a.n / threads / 8,
          "share 0: its owner's first take ran %d iterations, one chunk", atomic_load(&a.chunk[0]));
  }

  /* Thread 0's first chunk stalls: the others finish their shares and take
   * the rest of thread 0's from its back. */
  if (threads > 1) {
    reset(&a, 16 * threads);
    a.stall_first = 1;
    dlc_parallel_for_threads(&pool, count, &a, a.n);
    expect_each(&a, 1, "stalled share");
    int taken = 0;
    for (int64_t i = 1; i < a.n / threads; ++i)
      taken += atomic_load(&a.thread[i]) != 0;
    CHECK(taken > 0, "no chunk of the stalled share ran on another thread");
    printf("stalled share: %d of %lld iterations taken over\n", taken,
           (long long)(a.n / threads - 1));
  }
  /* The threads as one or two groups, batch after batch: each group's
   * loops run every iteration once; in a loop whose first chunk stalls,
   * the group's other threads run part of it. */
  if (threads > 1) {
    static group_test g;
    int groups = threads >= 4 ? 2 : 1, per = threads / groups;
    g.loops = 50;
    for (int k = 0; k < groups; ++k) {
      CHECK(dlc_group_start(&g.groups[k], per), "cannot start group %d", k);
      g.c[k] = &group_counts[k];
      reset(g.c[k], 1000);
    }
    for (int batch = 0; batch < 20; ++batch)
      dlc_parallel_groups(&pool, g.groups, groups, per, group_loops, &g);
    for (int k = 0; k < groups; ++k)
      expect_each(g.c[k], 20 * 50, "group loops");
    for (int k = 0; k < groups; ++k) {
      reset(g.c[k], 16 * per);
      g.c[k]->stall_first = 1;
    }
    g.loops = 1;
    dlc_parallel_groups(&pool, g.groups, groups, per, group_loops, &g);
    for (int k = 0; k < groups; ++k) {
      expect_each(g.c[k], 1, "stalled group loop");
      int others = 0;
      for (int64_t i = 0; i < g.c[k]->n; ++i)
        others += atomic_load(&g.c[k]->thread[i]) != 0;
      CHECK(others > 0, "group %d: no iteration ran on the group's other threads", k);
      dlc_pool_stop(&g.groups[k]);
    }
    printf("groups: %d of %d threads\n", groups, per);
  }
#if defined(__x86_64__) || defined(__i386__)
  /* The workers flush denormals; the caller's thread keeps its own MXCSR
   * (dlc_run sets and restores it around the whole run). */
  pool.active = threads;
  unsigned caller = _mm_getcsr();
  dlc_parallel_for_threads(&pool, record_mxcsr, NULL, 64);
  for (int64_t i = 0; i < 64; ++i)
    if (atomic_load(&flushing_thread[i]) != 0) /* thread 0: the caller */
      CHECK(atomic_load(&flushing[i]), "iteration %lld: worker %d without FTZ and DAZ",
            (long long)i, atomic_load(&flushing_thread[i]));
  CHECK(_mm_getcsr() == caller, "the caller's MXCSR changed");
#endif
  dlc_pool_stop(&pool);
  if (failures)
    return 1;
  printf("ok: %d threads\n", threads);
  return 0;
}
