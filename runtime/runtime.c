/*===- runtime.c - the runtime linked into every compiled model -----------===*
 *
 * Plain C, libc only. dlc_create allocates the instance and (unless the
 * caller provides one) the arena; dlc_run checks the tensors against the
 * signature, fills a preallocated argument array and calls the generated
 * code. Nothing is allocated after dlc_create.
 *
 *===----------------------------------------------------------------------===*/
#include "dlc/runtime.h"
#include "model_abi.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DLC_API __attribute__((visibility("default")))

/* The instance's thread pool: workers created once in dlc_create, each
 * parallel loop split into equal contiguous chunks (static partitioning),
 * the calling thread taking the first. Waiting spins briefly before it
 * blocks, so that a model's many short loops do not pay a futex wake-up
 * each. */
typedef void (*dlc_body_fn)(void *ctx, int64_t lo, int64_t hi);
typedef struct dlc_pool {
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  pthread_t *workers;
  int num_workers; /* threads besides the caller */
  int active;      /* threads a loop may use, caller included */
  atomic_int stop;
  atomic_ulong generation; /* one per dispatched loop */
  dlc_body_fn fn;
  void *ctx;
  int64_t n;
  int parts;
  atomic_int pending; /* chunks of workers not finished yet */
} dlc_pool;

enum { SPIN_ITERATIONS = 4000 };

static inline void cpu_relax(void) { __builtin_ia32_pause(); }

struct dlc_model {
  void *arena;
  int owns_arena;
  dlc_pool pool;
  void **args; /* inputs, outputs, arena, pool */
  char error[512];
};

typedef struct worker_arg {
  dlc_pool *pool;
  int index; /* chunk index: 1 .. num_workers */
} worker_arg;

static void run_chunk(dlc_pool *p, int part) {
  int64_t lo = p->n * part / p->parts, hi = p->n * (part + 1) / p->parts;
  if (lo < hi)
    p->fn(p->ctx, lo, hi);
}

static void *worker_main(void *arg) {
  dlc_pool *p = ((worker_arg *)arg)->pool;
  int index = ((worker_arg *)arg)->index;
  unsigned long seen = 0;
  for (;;) {
    for (int i = 0; i < SPIN_ITERATIONS &&
                    atomic_load_explicit(&p->generation, memory_order_acquire) == seen &&
                    !atomic_load(&p->stop);
         ++i)
      cpu_relax();
    if (atomic_load_explicit(&p->generation, memory_order_acquire) == seen) {
      pthread_mutex_lock(&p->mu);
      while (atomic_load(&p->generation) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->wake, &p->mu);
      pthread_mutex_unlock(&p->mu);
    }
    if (atomic_load(&p->stop))
      return NULL;
    seen = atomic_load_explicit(&p->generation, memory_order_acquire);
    if (index >= p->parts)
      continue;
    run_chunk(p, index);
    if (atomic_fetch_sub(&p->pending, 1) == 1) {
      pthread_mutex_lock(&p->mu);
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->mu);
    }
  }
}

/* Called by the generated code for each outermost parallel loop. */
DLC_HIDDEN void dlc_parallel_for(void *pool, dlc_body_fn fn, void *ctx, int64_t n) {
  dlc_pool *p = pool;
  int parts = p->active < n ? p->active : (int)n;
  if (parts <= 1) {
    fn(ctx, 0, n);
    return;
  }
  p->fn = fn;
  p->ctx = ctx;
  p->n = n;
  p->parts = parts;
  atomic_store(&p->pending, parts - 1);
  atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
  pthread_mutex_lock(&p->mu); /* wakes workers that stopped spinning */
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  run_chunk(p, 0);
  for (int i = 0; i < SPIN_ITERATIONS && atomic_load(&p->pending) > 0; ++i)
    cpu_relax();
  if (atomic_load(&p->pending) > 0) {
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->pending) > 0)
      pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
  }
}

static int pool_start(dlc_pool *p) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  p->num_workers = cores > 1 ? (int)cores - 1 : 0;
  p->active = p->num_workers + 1;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  if (!p->num_workers)
    return 1;
  p->workers = calloc(p->num_workers, sizeof(pthread_t) + sizeof(worker_arg));
  if (!p->workers)
    return 0;
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

static void pool_stop(dlc_pool *p) {
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->stop, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->num_workers; ++i)
    pthread_join(p->workers[i], NULL);
  free(p->workers);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
}

static char create_error[512];

static int set_error(char *buf, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, 512, fmt, ap);
  va_end(ap);
  return code;
}

DLC_API size_t dlc_arena_bytes(void) { return (size_t)dlc_meta.arena_bytes; }

DLC_API const char *dlc_signature_json(void) { return dlc_meta.signature_json; }

DLC_API int dlc_create(dlc_model **out, void *arena, size_t arena_bytes) {
  if (!out)
    return set_error(create_error, DLC_ERROR_INVALID_ARGUMENT, "dlc_create: out is NULL");
  *out = NULL;
  if (arena && arena_bytes < dlc_arena_bytes())
    return set_error(create_error, DLC_ERROR_INVALID_ARGUMENT,
                     "dlc_create: arena of %zu bytes is smaller than the %zu the model needs",
                     arena_bytes, dlc_arena_bytes());
  if (arena && ((uintptr_t)arena % 64) != 0)
    return set_error(create_error, DLC_ERROR_INVALID_ARGUMENT,
                     "dlc_create: arena must be 64-byte aligned");
  dlc_model *m = calloc(1, sizeof(dlc_model));
  size_t nargs = (size_t)dlc_meta.num_inputs + dlc_meta.num_outputs + 2;
  void **args = m ? calloc(nargs, sizeof(void *)) : NULL;
  if (!arena && args) {
    arena = aligned_alloc(64, (dlc_arena_bytes() + 63) / 64 * 64);
    if (m)
      m->owns_arena = 1;
  }
  if (!m || !args || !arena || !pool_start(&m->pool)) {
    if (m && m->owns_arena)
      free(arena);
    free(args);
    free(m);
    return set_error(create_error, DLC_ERROR_OUT_OF_MEMORY,
                     "dlc_create: cannot allocate the %zu-byte arena or the thread pool",
                     dlc_arena_bytes());
  }
  m->arena = arena;
  m->args = args;
  m->args[nargs - 2] = arena;
  m->args[nargs - 1] = &m->pool;
  *out = m;
  return DLC_OK;
}

DLC_API int dlc_set_threads(dlc_model *m, int threads) {
  if (!m || threads < 0)
    return DLC_ERROR_INVALID_ARGUMENT;
  int most = m->pool.num_workers + 1;
  m->pool.active = threads == 0 || threads > most ? most : threads;
  return DLC_OK;
}

static const char *dtype_name(int32_t t) {
  switch (t) {
  case DLC_FLOAT32: return "float32";
  case DLC_UINT8: return "uint8";
  case DLC_INT8: return "int8";
  case DLC_UINT16: return "uint16";
  case DLC_INT16: return "int16";
  case DLC_INT32: return "int32";
  case DLC_INT64: return "int64";
  case DLC_BOOL: return "bool";
  case DLC_FLOAT16: return "float16";
  case DLC_FLOAT64: return "float64";
  case DLC_UINT32: return "uint32";
  case DLC_UINT64: return "uint64";
  case DLC_BFLOAT16: return "bfloat16";
  default: return "unknown";
  }
}

static int check_tensor(dlc_model *m, const char *kind, const dlc_tensor_desc *d,
                        const dlc_tensor *t) {
  if (t->dtype != d->dtype)
    return set_error(m->error, DLC_ERROR_DTYPE, "%s '%s': dtype %s (%d), expected %s (%d)",
                     kind, d->name, dtype_name(t->dtype), t->dtype, dtype_name(d->dtype),
                     d->dtype);
  if (t->rank != d->rank)
    return set_error(m->error, DLC_ERROR_SHAPE, "%s '%s': rank %d, expected %d", kind,
                     d->name, t->rank, d->rank);
  for (int i = 0; i < d->rank; ++i)
    if (!t->shape || t->shape[i] != d->shape[i])
      return set_error(m->error, DLC_ERROR_SHAPE, "%s '%s': dim %d is %lld, expected %lld",
                       kind, d->name, i, t->shape ? (long long)t->shape[i] : -1LL,
                       (long long)d->shape[i]);
  /* A zero-element tensor has no bytes to point at. */
  if (!t->data && d->bytes != 0)
    return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT, "%s '%s': data is NULL", kind,
                     d->name);
  return DLC_OK;
}

/* Matches tensors to descriptors by name and stores their data pointers. */
static int bind(dlc_model *m, const char *kind, const dlc_tensor_desc *descs, int n,
                const dlc_tensor *ts, size_t count, void **slots) {
  if (count != (size_t)n || (n && !ts))
    return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT, "expected %d %ss, got %zu", n,
                     kind, count);
  for (int i = 0; i < n; ++i) {
    const dlc_tensor *found = NULL;
    for (size_t j = 0; j < count; ++j)
      if (ts[j].name && strcmp(ts[j].name, descs[i].name) == 0)
        found = &ts[j];
    if (!found)
      return set_error(m->error, DLC_ERROR_NAME, "missing %s '%s'", kind, descs[i].name);
    int rc = check_tensor(m, kind, &descs[i], found);
    if (rc)
      return rc;
    slots[i] = found->data;
  }
  return DLC_OK;
}

static int overlaps(const void *a, int64_t an, const void *b, int64_t bn) {
  const char *x = (const char *)a, *y = (const char *)b;
  return x < y + bn && y < x + an;
}

/* The generated code assumes outputs share no bytes with inputs, other
 * outputs or the arena (it is compiled with noalias on all of them). */
static int check_overlap(dlc_model *m) {
  int ni = dlc_meta.num_inputs, no = dlc_meta.num_outputs;
  for (int o = 0; o < no; ++o) {
    const void *out = m->args[ni + o];
    int64_t bytes = dlc_meta.outputs[o].bytes;
    if (overlaps(out, bytes, m->arena, dlc_meta.arena_bytes))
      return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT,
                       "output '%s' overlaps the model's arena", dlc_meta.outputs[o].name);
    for (int i = 0; i < ni + no; ++i) {
      if (i == ni + o)
        continue;
      int64_t other = i < ni ? dlc_meta.inputs[i].bytes : dlc_meta.outputs[i - ni].bytes;
      if (overlaps(out, bytes, m->args[i], other))
        return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT, "output '%s' overlaps %s '%s'",
                         dlc_meta.outputs[o].name, i < ni ? "input" : "output",
                         i < ni ? dlc_meta.inputs[i].name : dlc_meta.outputs[i - ni].name);
    }
  }
  return DLC_OK;
}

DLC_API int dlc_run(dlc_model *m, const dlc_tensor *inputs, size_t num_inputs,
                    dlc_tensor *outputs, size_t num_outputs) {
  if (!m)
    return DLC_ERROR_INVALID_ARGUMENT;
  int rc = bind(m, "input", dlc_meta.inputs, dlc_meta.num_inputs, inputs, num_inputs, m->args);
  if (!rc)
    rc = bind(m, "output", dlc_meta.outputs, dlc_meta.num_outputs, outputs, num_outputs,
              m->args + dlc_meta.num_inputs);
  if (!rc)
    rc = check_overlap(m);
  if (rc)
    return rc;
  dlc_model_entry(m->args);
  m->error[0] = 0;
  return DLC_OK;
}

DLC_API const char *dlc_last_error(const dlc_model *m) {
  return m ? m->error : create_error;
}

DLC_API void dlc_destroy(dlc_model *m) {
  if (!m)
    return;
  pool_stop(&m->pool);
  if (m->owns_arena)
    free(m->arena);
  free(m->args);
  free(m);
}
