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
  atomic_llong unfinished; /* chunks not done yet */
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

/* A group: a pool without threads of its own, whose loops threads of a
 * larger pool run while each is in dlc_group_serve (a batch's images side
 * by side, several threads each). Its caller is thread 0; members are 1 ..
 * threads - 1 (thread_pool.c's work stealing finishes each loop even if a
 * member never comes). Between dlc_group_open and dlc_group_release,
 * dlc_parallel_for on it uses the members that serve it. */
int dlc_group_start(dlc_pool *p, int threads); /* 0 on failure; stop with dlc_pool_stop */
void dlc_group_open(dlc_pool *p, int threads); /* while no thread serves it */
void dlc_group_serve(dlc_pool *p, int index);  /* returns once released */
void dlc_group_release(dlc_pool *p);

#endif /* DLC_RUNTIME_THREAD_POOL_H */
