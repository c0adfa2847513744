/*===- thread_pool.c - the compiled model's own thread pool -----------------===*
 *
 * See thread_pool.h. Waiting spins for up to SPIN_NS before it blocks, so
 * that a model's many short loops, and calls that follow each other, do
 * not pay a wake-up each: on this VM a sleeping worker took about 0.25 ms
 * to wake, ten times the MLP's whole call, when a spin of 4000 pauses (a
 * few microseconds) had run out between calls.
 *
 *===----------------------------------------------------------------------===*/
#define _DEFAULT_SOURCE
#include "thread_pool.h"
#include "denormals.h"
#include "model_abi.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef DLC_POOL_STATS
/* The per-loop clock of bench/pool_stats.py, which builds the runtime with
 * -DDLC_POOL_STATS into a directory of its own and compiles the model
 * through DLC_RUNTIME_DIR; never in an artifact `dlc compile` builds. For
 * each loop body (its outlined function's address): calls, iterations,
 * and TSC cycles from the dispatch to the loop's end (wall), of the
 * caller's and worker 1's time in `work`, of the caller's wait after its
 * own work and of worker 1's start after the dispatch. Written at exit to
 * $DLC_POOL_STATS, one line per body, its address as an offset into the
 * library. A loop run on one thread (inline) counts its wall time only.
 * One dispatching thread (no batch groups) is assumed. */
#include <dlfcn.h>
#include <stdio.h>
#include <x86intrin.h>

enum { STATS_SLOTS = 1024 };
typedef struct loop_stats {
  void *body;
  unsigned long long calls, iterations, wall, caller_work, caller_wait;
  _Atomic unsigned long long worker_work, worker_delay;
} loop_stats;
static loop_stats stats[STATS_SLOTS];
static loop_stats *_Atomic current_stats;
static _Atomic unsigned long long dispatched_at;

/* A loop's key: its generated body; run_plain's context (a plain_body,
 * below) holds that first. */
static loop_stats *stats_for_loop(dlc_thread_body_fn fn, void *ctx);

/* Its slot (open addressing); past STATS_SLOTS bodies, the last probed
 * slot's, shared, rather than a probe that never ends. */
static loop_stats *stats_for(void *body) {
  unsigned h = (unsigned)(((uintptr_t)body >> 4) % STATS_SLOTS);
  for (int probes = 1; stats[h].body && stats[h].body != body && probes < STATS_SLOTS; ++probes)
    h = (h + 1) % STATS_SLOTS;
  if (!stats[h].body)
    stats[h].body = body;
  return &stats[h];
}

__attribute__((destructor)) static void write_stats(void) {
  const char *path = getenv("DLC_POOL_STATS");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (!f)
    return;
  /* The TSC's rate, against the monotonic clock over 20 ms. */
  struct timespec pause = {0, 20000000}, a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  unsigned long long c0 = __rdtsc();
  nanosleep(&pause, NULL);
  unsigned long long c1 = __rdtsc();
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
  fprintf(f, "tsc_per_ns %.6f\n", (double)(c1 - c0) / ns);
  for (int i = 0; i < STATS_SLOTS; ++i) {
    loop_stats *e = &stats[i];
    Dl_info info;
    if (!e->body || !dladdr(e->body, &info))
      continue;
    fprintf(f, "%lx %llu %llu %llu %llu %llu %llu %llu\n",
            (unsigned long)((char *)e->body - (char *)info.dli_fbase), e->calls, e->iterations,
            e->wall, e->caller_work, e->caller_wait, atomic_load(&e->worker_work),
            atomic_load(&e->worker_delay));
  }
  fclose(f);
}
#endif

enum {
  SPIN_NS = 2000000, /* 2 ms, as OpenMP runtimes spin before sleeping */
  /* Chunks per thread: the granule a thread that is done can take over.
   * 32 shrinking ones (chunk_start) against 8 even ones: ResNet-50 at two
   * threads lost 3.6-4.1 thread-ms a call to waiting at its loops' ends
   * instead of 5.2-6.3 (session 31, the pool's per-loop clock). */
  CHUNKS_PER_THREAD = 32,
  /* A share's owner takes an eighth of its chunks left at a time (at
   * least one), another thread one chunk. Each take is a locked compare-
   * and-swap, which waits for the chunk's stores to drain, and an owner
   * took 32 a loop; now about 16. As the chunks shrink, an eighth of
   * those left from the front is about a quarter of the share's work
   * left, so a thread that is done still finds three quarters of a slow
   * owner's share to take. perf put `take` at 1.6% of MobileNetV2's
   * thread time at two threads on Zen 5, about 1% with batches; the
   * model's time moved within noise (1.000 and 0.988 in two pairs; a
   * quarter or a half at a time 0.98-1.02 against an eighth). */
  OWNER_TAKES_OF = 8,
};

/* A share's word: the loop's generation (low 24 bits), then the share's
 * first and end chunk (20 bits each; a loop has at most threads x 32). */
#define GEN_BITS 24
#define GEN_MASK ((1ull << GEN_BITS) - 1)
#define CHUNK_MASK ((1ull << 20) - 1)

static inline unsigned long long pack(unsigned long long gen, int64_t lo, int64_t hi) {
  return ((gen & GEN_MASK) << 40) | ((unsigned long long)lo << 20) | (unsigned long long)hi;
}

static inline void cpu_relax(void) { __builtin_ia32_pause(); }

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Spins until `done(arg)` or SPIN_NS pass; returns done(arg). */
static int spin_until(int (*done)(void *), void *arg) {
  int64_t start = now_ns();
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done(arg))
        return 1;
      cpu_relax();
    }
    if (now_ns() - start > SPIN_NS)
      return done(arg);
  }
}

/* What a thread read of the loop it works on. */
typedef struct loop {
  unsigned long long gen;
  dlc_thread_body_fn fn;
  void *ctx;
  int64_t n, chunks;
  int parts;
  int backward; /* owners run their shares back to front */
} loop;

/* The first of `*count` chunks of share `s` of loop `l`, from its front
 * or its back: several where `own` (the share's owner, see
 * OWNER_TAKES_OF), else one; -1 if none is left or `l` is over. */
static int64_t take(dlc_pool *p, int s, const loop *l, int front, int own, int64_t *count) {
  atomic_ullong *word = &p->shares[s].word;
  unsigned long long cur = atomic_load_explicit(word, memory_order_acquire);
  for (;;) {
    if ((cur >> 40) != (l->gen & GEN_MASK))
      return -1;
    int64_t lo = (int64_t)((cur >> 20) & CHUNK_MASK), hi = (int64_t)(cur & CHUNK_MASK);
    if (lo >= hi)
      return -1;
    int64_t g = own ? (hi - lo + OWNER_TAKES_OF - 1) / OWNER_TAKES_OF : 1;
    unsigned long long next = front ? pack(l->gen, lo + g, hi) : pack(l->gen, lo, hi - g);
    if (atomic_compare_exchange_weak_explicit(word, &cur, next, memory_order_acq_rel,
                                              memory_order_acquire)) {
      *count = g;
      return front ? lo : hi - g;
    }
  }
}

/* The first iteration of chunk `c`: c itself where each chunk is one
 * iteration (n at most threads x S); else share t's S chunks [t S, (t+1) S)
 * cover its iterations [n t / parts, n (t+1) / parts) in sizes that shrink
 * linearly, from about 2/S of the share to 1/S^2 (rounded, so where the
 * share is short its last ones are empty): the chunks its owner runs last
 * and the other threads take first are small, and the threads finish a
 * loop close together. */
static int64_t chunk_start(const loop *l, int64_t c) {
  if (l->chunks == l->n)
    return c;
  int64_t per = l->chunks / l->parts, t = c / per, left = per - c % per;
  int64_t lo = l->n * t / l->parts, hi = l->n * (t + 1) / l->parts;
  return hi - (hi - lo) * left * left / (per * per);
}

/* Iterations [lo, hi) of `l` on thread `t`, one at a time from the last
 * where `l` runs back to front. */
static void run_range(int t, const loop *l, int64_t lo, int64_t hi) {
  if (!l->backward) {
    l->fn(l->ctx, lo, hi, t);
    return;
  }
  for (int64_t i = hi; i-- > lo;)
    l->fn(l->ctx, i, i + 1, t);
}

/* Chunks [c, c + count) of `l` on thread `t` (0: the caller). */
static void run_chunk(int t, const loop *l, int64_t c, int64_t count) {
  int64_t lo = chunk_start(l, c), hi = chunk_start(l, c + count);
  if (lo < hi)
    run_range(t, l, lo, hi);
}

/* Thread `t`'s own share front to back, then the others' from the back
 * (a loop run backward: its own from the back, the others' from the
 * front).
 * The chunks it ran come off `unfinished` once, when none is left to take:
 * one atomic per chunk on that shared line made MobileNetV2 a quarter
 * slower at 16 threads (session 31, 32 chunks a thread). */
static void work(dlc_pool *p, int t, const loop *l) {
  int64_t c, ran = 0, count;
  while ((c = take(p, t, l, !l->backward, 1, &count)) >= 0) {
    run_chunk(t, l, c, count);
    ran += count;
  }
  for (int k = 1; k < l->parts; ++k) {
    int victim = (t + k) % l->parts;
    while ((c = take(p, victim, l, l->backward, 0, &count)) >= 0) {
      run_chunk(t, l, c, count);
      ran += count;
    }
  }
  if (ran && atomic_fetch_sub_explicit(&p->unfinished, ran, memory_order_acq_rel) == ran && t) {
    pthread_mutex_lock(&p->mu); /* the caller may have stopped spinning */
    pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->mu);
  }
}

typedef struct worker_arg {
  dlc_pool *pool;
  int index; /* 1 .. num_workers */
} worker_arg;

typedef struct wait_arg {
  dlc_pool *pool;
  unsigned long seen;
} wait_arg;

static int new_loop_or_stop(void *arg) {
  wait_arg *w = arg;
  return atomic_load_explicit(&w->pool->generation, memory_order_acquire) != w->seen ||
         atomic_load(&w->pool->stop);
}

static int loop_finished(void *pool) {
  return atomic_load_explicit(&((dlc_pool *)pool)->unfinished, memory_order_acquire) == 0;
}

/* Runs the loops `p`'s caller dispatches, as thread `index`, until the
 * pool stops; `seen` is the last loop this thread need not run. */
static void serve(dlc_pool *p, int index, unsigned long seen) {
  for (;;) {
    wait_arg w = {p, seen};
    spin_until(new_loop_or_stop, &w);
    if (atomic_load_explicit(&p->generation, memory_order_acquire) == seen) {
      pthread_mutex_lock(&p->mu);
      while (atomic_load(&p->generation) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->wake, &p->mu);
      pthread_mutex_unlock(&p->mu);
    }
    if (atomic_load(&p->stop))
      return;
    /* The fields may already be the next loop's when this thread was
     * late: then every take fails on the generation, as the caller only
     * rewrites them once no chunk of this one is left. */
    loop l;
    l.gen = atomic_load_explicit(&p->generation, memory_order_acquire);
    l.fn = atomic_load_explicit(&p->fn, memory_order_relaxed);
    l.ctx = atomic_load_explicit(&p->ctx, memory_order_relaxed);
    l.n = atomic_load_explicit(&p->n, memory_order_relaxed);
    l.chunks = atomic_load_explicit(&p->chunks, memory_order_relaxed);
    l.parts = atomic_load_explicit(&p->parts, memory_order_relaxed);
    l.backward = atomic_load_explicit(&p->backward, memory_order_relaxed);
    seen = l.gen;
#ifdef DLC_POOL_STATS
    unsigned long long start = __rdtsc();
    loop_stats *e = atomic_load(&current_stats);
#endif
    if (index < l.parts)
      work(p, index, &l);
#ifdef DLC_POOL_STATS
    if (index == 1 && e) {
      unsigned long long at = atomic_load(&dispatched_at);
      atomic_fetch_add(&e->worker_work, __rdtsc() - start);
      atomic_fetch_add(&e->worker_delay, start > at ? start - at : 0);
    }
#endif
  }
}

static void *worker_main(void *arg) {
  dlc_flush_denormals(); /* for the thread's life: see denormals.h */
  serve(((worker_arg *)arg)->pool, ((worker_arg *)arg)->index, 0);
  return NULL;
}

#ifdef DLC_POOL_STATS
static void run_plain(void *body, int64_t lo, int64_t hi, int thread);
#endif

/* Runs fn over [0, n) on the pool's active threads, each share back to
 * front where `backward`. */
static void dispatch(dlc_pool *p, dlc_thread_body_fn fn, void *ctx, int64_t n, int backward) {
  int parts = p->active < n ? p->active : (int)n;
  loop l = {atomic_load(&p->generation) + 1, fn, ctx, n,
            n < (int64_t)parts * CHUNKS_PER_THREAD ? n : (int64_t)parts * CHUNKS_PER_THREAD,
            parts, backward};
  if (parts <= 1) {
#ifdef DLC_POOL_STATS
    loop_stats *one = stats_for_loop(fn, ctx);
    unsigned long long start = __rdtsc();
#endif
    run_range(0, &l, 0, n);
#ifdef DLC_POOL_STATS
    unsigned long long took = __rdtsc() - start;
    one->calls++;
    one->iterations += (unsigned long long)n;
    one->wall += took;
    one->caller_work += took;
#endif
    return;
  }
  atomic_store_explicit(&p->fn, fn, memory_order_relaxed);
  atomic_store_explicit(&p->ctx, ctx, memory_order_relaxed);
  atomic_store_explicit(&p->n, n, memory_order_relaxed);
  atomic_store_explicit(&p->chunks, l.chunks, memory_order_relaxed);
  atomic_store_explicit(&p->parts, parts, memory_order_relaxed);
  atomic_store_explicit(&p->backward, backward, memory_order_relaxed);
  atomic_store_explicit(&p->unfinished, l.chunks, memory_order_relaxed);
  for (int t = 0; t < parts; ++t)
    atomic_store_explicit(&p->shares[t].word,
                          pack(l.gen, l.chunks * t / parts, l.chunks * (t + 1) / parts),
                          memory_order_relaxed);
#ifdef DLC_POOL_STATS
  loop_stats *e = stats_for_loop(fn, ctx);
  atomic_store(&current_stats, e);
  unsigned long long t0 = __rdtsc();
  atomic_store(&dispatched_at, t0);
#endif
  atomic_store_explicit(&p->generation, l.gen, memory_order_release);
  pthread_mutex_lock(&p->mu); /* wakes workers that stopped spinning */
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
#ifdef DLC_POOL_STATS
  unsigned long long t1 = __rdtsc();
#endif
  work(p, 0, &l);
#ifdef DLC_POOL_STATS
  unsigned long long t2 = __rdtsc();
#endif
  if (!spin_until(loop_finished, p)) {
    pthread_mutex_lock(&p->mu);
    while (!loop_finished(p))
      pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
  }
#ifdef DLC_POOL_STATS
  unsigned long long t3 = __rdtsc();
  e->calls++;
  e->iterations += (unsigned long long)n;
  e->wall += t3 - t0;
  e->caller_work += t2 - t1;
  e->caller_wait += t3 - t2;
#endif
}

void dlc_parallel_for_threads(dlc_pool *p, dlc_thread_body_fn fn, void *ctx, int64_t n) {
  dispatch(p, fn, ctx, n, 0);
}

void dlc_pool_flip_sweeps(dlc_pool *p) { p->sweep_backward = !p->sweep_backward; }

/* A generated body (no thread index) with its context. */
typedef struct plain_body {
  dlc_body_fn fn;
  void *ctx;
} plain_body;

static void run_plain(void *body, int64_t lo, int64_t hi, int thread) {
  (void)thread;
  ((plain_body *)body)->fn(((plain_body *)body)->ctx, lo, hi);
}

#ifdef DLC_POOL_STATS
static loop_stats *stats_for_loop(dlc_thread_body_fn fn, void *ctx) {
  return stats_for(fn == run_plain ? (void *)((plain_body *)ctx)->fn : (void *)fn);
}
#endif

/* Called by the generated code for each outermost parallel loop. The
 * adapter may live on this stack: dlc_parallel_for_threads returns only
 * when no chunk is left or running. */
DLC_HIDDEN void dlc_parallel_for(void *pool, dlc_body_fn fn, void *ctx, int64_t n) {
  plain_body body = {fn, ctx};
  dlc_parallel_for_threads(pool, run_plain, &body, n);
}

DLC_HIDDEN void dlc_parallel_for_alternating(void *pool, dlc_body_fn fn, void *ctx, int64_t n) {
  plain_body body = {fn, ctx};
  dispatch(pool, run_plain, &body, n, ((dlc_pool *)pool)->sweep_backward);
}

/* Mutex, condition variables and `threads` shares, no workers yet. */
static int pool_init(dlc_pool *p, int threads) {
  p->num_workers = threads - 1;
  p->active = threads;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  p->shares = aligned_alloc(64, sizeof(dlc_share) * (size_t)threads);
  if (!p->shares)
    return 0;
  for (int t = 0; t < threads; ++t)
    atomic_init(&p->shares[t].word, pack(0, 0, 0));
  return 1;
}

int dlc_pool_start(dlc_pool *p) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (!pool_init(p, cores > 1 ? (int)cores : 1))
    return 0;
  if (!p->num_workers)
    return 1;
  p->workers = calloc(p->num_workers, sizeof(pthread_t) + sizeof(worker_arg));
  if (!p->workers) {
    free(p->shares);
    p->shares = NULL;
    return 0;
  }
  worker_arg *args = (worker_arg *)(p->workers + p->num_workers);
  for (int i = 0; i < p->num_workers; ++i) {
    args[i].pool = p;
    args[i].index = i + 1;
    if (pthread_create(&p->workers[i], NULL, worker_main, &args[i]) != 0) {
      p->num_workers = i; /* run with the threads we have */
      p->active = i + 1;
      break;
    }
  }
  return 1;
}

int dlc_group_start(dlc_pool *p, int threads) {
  if (!pool_init(p, threads))
    return 0;
  p->num_workers = 0; /* none of its own to join */
  atomic_store(&p->stop, 1);
  return 1;
}

/* Between here and release_group, dlc_parallel_for on `p` uses the
 * threads that serve it; no thread may serve it yet. */
static void open_group(dlc_pool *p, int threads) {
  p->active = threads;
  atomic_store(&p->stop, 0);
}

/* Serves `p` as its thread `index` from its current loop on: a thread that
 * comes while the group's thread 0 already runs a loop takes part in it (a
 * finished one has no chunk left to take). Returns once released. */
static void serve_group(dlc_pool *p, int index) {
  serve(p, index, atomic_load_explicit(&p->generation, memory_order_acquire) - 1);
}

static void release_group(dlc_pool *p) {
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->stop, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
}

typedef struct group_run {
  dlc_pool *groups;
  int count, per_group;
  dlc_group_fn lead;
  void *ctx;
} group_run;

/* Task c is thread c % per_group of group c / per_group. Every thread
 * takes its own task first and a serving thread waits only for its own
 * group's thread 0, which runs or will run: no group waits on another. */
static void group_task(void *arg, int64_t lo, int64_t hi, int thread) {
  (void)thread;
  group_run *run = arg;
  for (int64_t c = lo; c < hi; ++c) {
    int k = (int)(c / run->per_group), member = (int)(c % run->per_group);
    dlc_pool *group = &run->groups[k];
    if (member) {
      serve_group(group, member);
      continue;
    }
    run->lead(run->ctx, k, run->count, group);
    release_group(group);
  }
}

void dlc_parallel_groups(dlc_pool *p, dlc_pool *groups, int count, int per_group,
                         dlc_group_fn lead, void *ctx) {
  for (int k = 0; k < count; ++k)
    open_group(&groups[k], per_group);
  group_run run = {groups, count, per_group, lead, ctx};
  int saved = p->active;
  p->active = count * per_group;
  dlc_parallel_for_threads(p, group_task, &run, count * per_group);
  p->active = saved;
}

void dlc_pool_stop(dlc_pool *p) {
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->stop, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->num_workers; ++i)
    pthread_join(p->workers[i], NULL);
  free(p->workers);
  free(p->shares);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
}
