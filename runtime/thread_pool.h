/*===- thread_pool.h - the compiled model's own thread pool -----------------===*
 *
 * Workers are created once (dlc_create) and wait, spinning a while before
 * they block, for the generated code's parallel loops (dlc_parallel_for).
 * Each loop's iterations are cut into chunks; thread t owns the t-th
 * contiguous share (static partitioning: the same thread computes the
 * same part of consecutive layers, whose data is then in its own L2) and
 * runs its chunks front to back; a thread that is done takes the last
 * chunks of a share not finished yet. On a shared VM one vCPU often runs
 * slower for a while: with fixed shares the other waited, ResNet-50 at
 * two threads losing 11% of its thread time to that.
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLC_RUNTIME_THREAD_POOL_H
#define DLC_RUNTIME_THREAD_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef void (*dlc_body_fn)(void *ctx, int64_t lo, int64_t hi);
/* A body told which thread runs it: 0 for the caller, i for worker i. */
typedef void (*dlc_thread_body_fn)(void *ctx, int64_t lo, int64_t hi, int thread);

/* One thread's share of the current loop's chunks, [lo, hi), with the
 * loop's generation: taking a chunk is one compare-and-swap of the word,
 * which fails for a thread that still works from an earlier loop. */
typedef struct dlc_share {
  _Alignas(64) atomic_ullong word;
} dlc_share;

typedef struct dlc_pool {
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  pthread_t *workers;
  dlc_share *shares; /* one per thread, caller first */
  int num_workers;   /* threads besides the caller */
  int active;        /* threads a loop may use, caller included */
  atomic_int stop;
  atomic_ulong generation; /* one per dispatched loop */
  /* The current loop: written by the caller only while no chunk of the
   * previous loop is left or running. */
  _Atomic(dlc_thread_body_fn) fn;
  _Atomic(void *) ctx;
  _Atomic(int64_t) n, chunks;
  atomic_int parts;
  atomic_int backward; /* the current loop runs each share back to front */
  atomic_llong unfinished; /* chunks not done yet */
  /* Whether this run's alternating loops go back to front (see
   * dlc_parallel_for_alternating); only the caller writes it, between
   * runs. */
  int sweep_backward;
} dlc_pool;

/* Starts one worker per online core besides the caller; 0 on failure. */
int dlc_pool_start(dlc_pool *p);
void dlc_pool_stop(dlc_pool *p);

/* Runs fn(ctx, lo, hi) over [0, n) on the pool's active threads; the
 * generated code calls it for each outermost parallel loop. */
void dlc_parallel_for(void *pool, dlc_body_fn fn, void *ctx, int64_t n);

/* dlc_parallel_for for a body that needs its thread's index (a per-thread
 * scratch slot). The index is passed rather than kept in a thread-local:
 * in a dlopen'ed library glibc allocates a thread's TLS block with malloc
 * on its first access, which broke "dlc_run allocates nothing" whenever a
 * worker started late. */
void dlc_parallel_for_threads(dlc_pool *p, dlc_thread_body_fn fn, void *ctx, int64_t n);
/* dlc_parallel_for for a loop whose data the private caches nearly hold
 * from one run to the next (dlc-alternate-sweeps marks them): while
 * `sweep_backward` is set each thread runs its iterations back to front,
 * the others take chunks from its share's front. Swept in the same order
 * each run, a working set a little over the cache misses on every line
 * (the cache evicts the line the sweep needs next, the one used longest
 * ago); swept alternately, the lines read last are read first. The MLP's
 * 0.93 MB of weights in a 1 MB L2 (Zen 5), one thread: 4.8-5.0 us a
 * call against 5.65 one way (bench/read_bandwidth.c's loop: 4.1-5.1
 * against 5.5-5.9 us). The order of a parallel loop's iterations never
 * changes what it computes. */
void dlc_parallel_for_alternating(void *pool, dlc_body_fn fn, void *ctx, int64_t n);
/* Turns the alternating loops' direction around: the runtime calls it
 * before each run of the entry. */
void dlc_pool_flip_sweeps(dlc_pool *p);

/* A group: a pool without threads of its own (dlc_group_start for up to
 * `threads`; stop it with dlc_pool_stop), whose loops some of a larger
 * pool's threads run (a batch's images side by side, several threads
 * each). */
int dlc_group_start(dlc_pool *p, int threads); /* 0 on failure */
typedef void (*dlc_group_fn)(void *ctx, int group, int groups, dlc_pool *pool);

/* Runs lead(ctx, k, count, &groups[k]) for k in [0, count) side by side, each on
 * a group of `per_group` of `p`'s threads: the group's first thread calls
 * it, and dlc_parallel_for on the group pool shares each loop with the
 * group's other threads (thread_pool.c's work stealing finishes a loop
 * even if one of them is late). Needs count * per_group of p's threads. */
void dlc_parallel_groups(dlc_pool *p, dlc_pool *groups, int count, int per_group,
                         dlc_group_fn lead, void *ctx);

#endif /* DLC_RUNTIME_THREAD_POOL_H */
