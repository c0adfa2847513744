/*===- runtime.c - the runtime linked into every compiled model -----------===*
 *
 * Plain C, libc only. dlc_create allocates the instance and (unless the
 * caller provides one) the arena; dlc_run checks the tensors against the
 * signature, fills a preallocated argument array and calls the generated
 * code. Nothing is allocated after dlc_create.
 *
 *===----------------------------------------------------------------------===*/
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE under -std=c11 */
#include "dlc/runtime.h"
#include "denormals.h"
#include "huge_pages.h"
#include "model_abi.h"
#include "thread_pool.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DLC_API __attribute__((visibility("default")))

struct dlc_model {
  void *arena;
  int owns_arena;
  dlc_pool pool;
  void **args; /* inputs, parameters, outputs, arena, pool */
  /* batch_runs > 1 (run_per_image): per concurrent image, its argument
   * list and, past the first (the model's arena), its arena; a one-thread
   * pool for images that run side by side. */
  void **run_args;
  char *image_arenas;
  int image_slots;
  dlc_pool serial;
  /* Where the cores outnumber the batch's images (16 cores, batch 8): per
   * image slot, a group of up to group_threads of the pool's threads. */
  dlc_pool *groups;
  int group_threads;
  /* Trainable builds: two sets of [parameters | optimizer state], each slot
   * 64-byte aligned; `current` holds the live values. */
  char *persist;
  int64_t set_bytes;
  int64_t *slot_offset; /* per parameter, then per state tensor */
  int current;
  void **train_args;
  union { float f; double d; } lr, loss;
  struct dlc_gpu_state *gpu; /* CUDA builds */
  char error[512];
};

static int num_params(void) { return dlc_meta.num_params; }
static int num_state(void) { return dlc_meta.train ? dlc_meta.train->num_state : 0; }
static void *slot(const dlc_model *m, int set, int i) {
  return m->persist + set * m->set_bytes + m->slot_offset[i];
}
static int64_t slot_bytes(int i) {
  return i < num_params() ? dlc_meta.params[i].bytes : dlc_meta.train->state[i - num_params()].bytes;
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

/* An image slot's arena past the first (run_per_image), 64-byte rounded:
 * one image's plan, without the batch tail's plan and input. */
static size_t image_arena_bytes(void) {
  int64_t bytes = dlc_meta.image_arena_bytes ? dlc_meta.image_arena_bytes : dlc_meta.arena_bytes;
  return (size_t)(bytes + 63) / 64 * 64;
}

DLC_API const char *dlc_signature_json(void) { return dlc_meta.signature_json; }

/* The persistent region and the train step's argument array, filled with
 * the compiled-in initial parameters and zero optimizer state. */
static int persist_start(dlc_model *m) {
  int n = num_params() + num_state();
  if (n == 0)
    return 1;
  m->slot_offset = calloc(n, sizeof(int64_t));
  if (!m->slot_offset)
    return 0;
  int64_t off = 0;
  for (int i = 0; i < n; ++i) {
    m->slot_offset[i] = off;
    off += (slot_bytes(i) + 63) / 64 * 64;
  }
  m->set_bytes = off;
  m->persist = aligned_alloc(64, 2 * (size_t)off);
  if (!m->persist)
    return 0;
  memset(m->persist, 0, 2 * (size_t)off);
  for (int i = 0; i < num_params(); ++i)
    memcpy(slot(m, 0, i), dlc_meta.param_init[i], dlc_meta.params[i].bytes);
  if (dlc_meta.train) {
    const dlc_train_meta *t = dlc_meta.train;
    size_t nargs = (size_t)dlc_meta.num_inputs + 2 * num_params() + t->num_labels + 2 +
                   2 * num_state() + 2;
    m->train_args = calloc(nargs, sizeof(void *));
    if (!m->train_args)
      return 0;
    m->train_args[nargs - 2] = m->arena;
    m->train_args[nargs - 1] = &m->pool;
  }
  return 1;
}

/* CUDA builds: the instance holds the argument slots for binding and the
 * device state; the arena lives on the device (the `arena` argument must
 * be NULL). */
static int create_gpu(dlc_model **out, void *arena) {
  if (arena)
    return set_error(create_error, DLC_ERROR_INVALID_ARGUMENT,
                     "dlc_create: a CUDA library allocates its arena on the device; pass NULL");
  dlc_model *m = calloc(1, sizeof(dlc_model));
  void **args = m ? calloc((size_t)dlc_meta.num_inputs + dlc_meta.num_outputs + 1,
                           sizeof(void *)) : NULL;
  if (!m || !args) {
    free(m);
    free(args);
    return set_error(create_error, DLC_ERROR_OUT_OF_MEMORY, "dlc_create: out of host memory");
  }
  m->args = args;
  int rc = dlc_gpu_create(&m->gpu, create_error, sizeof(create_error));
  if (rc) {
    free(args);
    free(m);
    return rc;
  }
  *out = m;
  return DLC_OK;
}

/* The arena, in 2 MB huge pages where it spans at least one (Linux, with
 * transparent huge pages on "madvise" as Debian ships them): a GEMM's
 * register tile walks its columns k by k, one row of pixels (3 KB for a
 * 28x28 map) apart, and with 4 KB pages nearly every k step missed the
 * first-level TLB. Without huge pages it is plain 64-byte aligned memory. */
static void *alloc_arena(size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  if (bytes < huge)
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
  size_t rounded = (bytes + huge - 1) / huge * huge;
  void *p = aligned_alloc(huge, rounded);
#ifdef MADV_HUGEPAGE
  if (p)
    madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

/* The image slots' thread groups, where each can have two threads or more
 * (see run_per_image); 0 if they cannot be allocated. */
static int start_groups(dlc_model *m, int slots, int per_slot) {
  if (slots < 2 || per_slot < 2)
    return 1;
  m->groups = calloc((size_t)slots, sizeof(dlc_pool));
  if (!m->groups)
    return 0;
  for (int k = 0; k < slots; ++k)
    if (!dlc_group_start(&m->groups[k], per_slot)) {
      for (int j = 0; j < k; ++j)
        dlc_pool_stop(&m->groups[j]);
      free(m->groups);
      m->groups = NULL;
      return 0;
    }
  m->group_threads = per_slot;
  return 1;
}

static void stop_groups(dlc_model *m) {
  if (!m->groups)
    return;
  for (int k = 0; k < m->image_slots; ++k)
    dlc_pool_stop(&m->groups[k]);
  free(m->groups);
  m->groups = NULL;
}

DLC_API int dlc_create(dlc_model **out, void *arena, size_t arena_bytes) {
  if (!out)
    return set_error(create_error, DLC_ERROR_INVALID_ARGUMENT, "dlc_create: out is NULL");
  *out = NULL;
  if (dlc_meta.gpu)
    return create_gpu(out, arena);
  dlc_weights_to_huge_pages();
  if (arena && arena_bytes < dlc_arena_bytes())
    return set_error(create_error, DLC_ERROR_INVALID_ARGUMENT,
                     "dlc_create: arena of %zu bytes is smaller than the %zu the model needs",
                     arena_bytes, dlc_arena_bytes());
  if (arena && ((uintptr_t)arena % 64) != 0)
    return set_error(create_error, DLC_ERROR_INVALID_ARGUMENT,
                     "dlc_create: arena must be 64-byte aligned");
  dlc_model *m = calloc(1, sizeof(dlc_model));
  size_t nargs = (size_t)dlc_meta.num_inputs + dlc_meta.num_params + dlc_meta.num_outputs + 2;
  void **args = m ? calloc(nargs, sizeof(void *)) : NULL;
  /* Images of a batch-separable model run side by side, as many as there
   * are threads, each on a slot: its arena, its argument list and, where
   * the cores are at least twice the images, its group of cores / images
   * threads (run_per_image). */
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int slots = dlc_meta.batch_runs > 1 ? (int)(cores < dlc_meta.batch_runs ? cores
                                                                         : dlc_meta.batch_runs)
                                      : 1;
  if (slots < 1)
    slots = 1;
  void **run_args = m ? calloc(nargs * (size_t)slots, sizeof(void *)) : NULL;
  if (m && slots > 1) {
    m->image_arenas = alloc_arena(image_arena_bytes() * (size_t)(slots - 1));
    if (!m->image_arenas) {
      free(run_args);
      run_args = NULL;
    }
  }
  if (m) {
    m->image_slots = slots;
    m->serial.active = 1;
    if (!start_groups(m, slots, (int)(cores / slots)) && run_args) {
      free(run_args);
      run_args = NULL;
    }
  }
  if (!run_args) {
    free(args);
    args = NULL;
  }
  if (!arena && args) {
    arena = alloc_arena(dlc_arena_bytes());
    if (m)
      m->owns_arena = 1;
  }
  if (!m || !args || !arena || !dlc_pool_start(&m->pool)) {
    if (m && m->owns_arena)
      free(arena);
    free(args);
    free(run_args);
    if (m) {
      free(m->image_arenas);
      stop_groups(m);
    }
    free(m);
    return set_error(create_error, DLC_ERROR_OUT_OF_MEMORY,
                     "dlc_create: cannot allocate the %zu-byte arena or the thread pool",
                     dlc_arena_bytes());
  }
  m->arena = arena;
  m->args = args;
  m->run_args = run_args;
  m->args[nargs - 2] = arena;
  m->args[nargs - 1] = &m->pool;
  if (!persist_start(m)) {
    dlc_destroy(m);
    return set_error(create_error, DLC_ERROR_OUT_OF_MEMORY,
                     "dlc_create: cannot allocate the parameters' persistent region");
  }
  *out = m;
  return DLC_OK;
}

DLC_API int dlc_set_threads(dlc_model *m, int threads) {
  if (!m || threads < 0)
    return DLC_ERROR_INVALID_ARGUMENT;
  if (m->gpu)
    return DLC_OK; /* the host only enqueues work */
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

/* Finds the tensor named as `desc` among `ts`, checks it and stores its
 * data pointer in *slot_out. */
static int bind_one(dlc_model *m, const char *kind, const dlc_tensor_desc *desc,
                    const dlc_tensor *ts, size_t count, void **slot_out) {
  const dlc_tensor *found = NULL;
  for (size_t j = 0; j < count; ++j)
    if (ts[j].name && strcmp(ts[j].name, desc->name) == 0)
      found = &ts[j];
  if (!found)
    return set_error(m->error, DLC_ERROR_NAME, "missing %s '%s'", kind, desc->name);
  int rc = check_tensor(m, kind, desc, found);
  if (!rc)
    *slot_out = found->data;
  return rc;
}

/* Matches tensors to descriptors by name and stores their data pointers. */
static int bind(dlc_model *m, const char *kind, const dlc_tensor_desc *descs, int n,
                const dlc_tensor *ts, size_t count, void **slots) {
  if (count != (size_t)n || (n && !ts))
    return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT, "expected %d %ss, got %zu", n,
                     kind, count);
  for (int i = 0; i < n; ++i) {
    int rc = bind_one(m, kind, &descs[i], ts, count, &slots[i]);
    if (rc)
      return rc;
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
  int ni = dlc_meta.num_inputs, no = dlc_meta.num_outputs, np = num_params();
  for (int o = 0; o < no; ++o) {
    const void *out = m->args[ni + np + o];
    int64_t bytes = dlc_meta.outputs[o].bytes;
    if (overlaps(out, bytes, m->arena, dlc_meta.arena_bytes))
      return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT,
                       "output '%s' overlaps the model's arena", dlc_meta.outputs[o].name);
    for (int i = 0; i < ni + no; ++i) {
      if (i == ni + o)
        continue;
      int64_t other = i < ni ? dlc_meta.inputs[i].bytes : dlc_meta.outputs[i - ni].bytes;
      if (overlaps(out, bytes, m->args[i < ni ? i : i + np], other))
        return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT, "output '%s' overlaps %s '%s'",
                         dlc_meta.outputs[o].name, i < ni ? "input" : "output",
                         i < ni ? dlc_meta.inputs[i].name : dlc_meta.outputs[i - ni].name);
    }
  }
  return DLC_OK;
}

/* A model with a batch tail (dlc_meta.tail_entry): the batch of per-image
 * results the tail reads, at the end of the model's arena (the compiler
 * sized the arena for the larger entry's plan plus this, 64-byte
 * aligned), where no image's run and not the tail's own plan reach. */
static char *tail_input(const dlc_model *m) {
  return (char *)m->arena + dlc_meta.arena_bytes - (dlc_meta.tail_input_bytes + 63) / 64 * 64;
}

/* One image of a batch-separable model: the entry on `args` (a copy of
 * the model's), its input and output pointers advanced to image r (with a
 * batch tail, its one output is image r's share of the tail's input). */
static void run_image(dlc_model *m, void **args, int64_t r) {
  int ni = dlc_meta.num_inputs, no = dlc_meta.num_outputs, np = num_params();
  int64_t runs = dlc_meta.batch_runs;
  for (int i = 0; i < ni; ++i)
    args[i] = (char *)m->args[i] + r * (dlc_meta.inputs[i].bytes / runs);
  if (dlc_meta.tail_entry)
    args[ni + np] = tail_input(m) + r * (dlc_meta.tail_input_bytes / runs);
  else
    for (int o = 0; o < no; ++o)
      args[ni + np + o] = (char *)m->args[ni + np + o] + r * (dlc_meta.outputs[o].bytes / runs);
  dlc_meta.entry(args);
}

/* Before each run: the loops that sweep their data alternately
 * (dlc_parallel_for_alternating) turn around on every pool the entry may
 * get. Images of one run (run_per_image) share a direction. */
static void flip_sweeps(dlc_model *m) {
  dlc_pool_flip_sweeps(&m->pool);
  dlc_pool_flip_sweeps(&m->serial);
  for (int k = 0; m->groups && k < m->image_slots; ++k)
    dlc_pool_flip_sweeps(&m->groups[k]);
}

static size_t num_args(void) {
  return (size_t)dlc_meta.num_inputs + num_params() + dlc_meta.num_outputs + 2;
}

/* Image slot `k`'s argument list: the model's, with slot k's arena (slot
 * 0: the model's own) and `pool` for the generated code's loops. */
static void **slot_args(dlc_model *m, int k, dlc_pool *pool) {
  size_t nargs = num_args();
  void **args = m->run_args + (size_t)k * nargs;
  memcpy(args, m->args, nargs * sizeof(void *));
  if (k > 0)
    args[nargs - 2] =
        m->image_arenas + (size_t)(k - 1) * image_arena_bytes();
  args[nargs - 1] = pool;
  return args;
}

/* Images [lo, hi) on one thread of the pool: its own argument list, arena
 * and one-thread pool (by the thread's index in the pool). */
static void images_on_one_thread(void *ctx, int64_t lo, int64_t hi, int thread) {
  dlc_model *m = ctx;
  void **args = slot_args(m, thread, &m->serial);
  for (int64_t r = lo; r < hi; ++r)
    run_image(m, args, r);
}

/* Group k of `groups` (dlc_parallel_groups): images k, k + groups, ... on
 * slot k, the group's pool running their loops. */
static void images_on_a_group(void *ctx, int k, int groups, dlc_pool *group) {
  dlc_model *m = ctx;
  void **args = slot_args(m, k, group);
  for (int64_t r = k; r < dlc_meta.batch_runs; r += groups)
    run_image(m, args, r);
}

/* A batch-separable model (dlc_model_meta's batch_runs), compiled at batch
 * 1: with several threads, images side by side, each on its own arena (on
 * 16 cores one image's layers were too small to share out: MobileNetV2 at
 * batch 8 took 34.8 ms an image at a time against 15.0 for the batched
 * build). One thread each while the images are at least as many as the
 * threads; else each image slot gets a group of threads / images of them
 * (batch 8 on 16 threads: 8 groups of 2, where one thread an image left
 * half the cores idle). With one thread, image after image. */
static void run_per_image(dlc_model *m) {
  int threads = m->pool.active;
  int groups = threads < m->image_slots ? threads : m->image_slots;
  int per_group = m->groups ? threads / groups : 1;
  if (per_group > m->group_threads)
    per_group = m->group_threads;
  int saved = m->pool.active;
  if (groups > 1 && per_group > 1) {
    dlc_parallel_groups(&m->pool, m->groups, groups, per_group, images_on_a_group, m);
    return;
  }
  if (groups > 1) {
    m->pool.active = groups;
    dlc_parallel_for_threads(&m->pool, images_on_one_thread, m, dlc_meta.batch_runs);
    m->pool.active = saved;
    return;
  }
  void **args = slot_args(m, 0, &m->serial);
  for (int64_t r = 0; r < dlc_meta.batch_runs; ++r)
    run_image(m, args, r);
}

/* The batch tail, once the images are done: on the batch of their results,
 * into the outputs, on the model's arena and with all the pool's threads. */
static void run_tail(dlc_model *m) {
  int ni = dlc_meta.num_inputs, np = num_params();
  size_t nargs = num_args();
  void *args[4] = {tail_input(m), m->args[ni + np], m->args[nargs - 2], &m->pool};
  dlc_meta.tail_entry(args);
}

DLC_API int dlc_run(dlc_model *m, const dlc_tensor *inputs, size_t num_inputs,
                    dlc_tensor *outputs, size_t num_outputs) {
  if (!m)
    return DLC_ERROR_INVALID_ARGUMENT;
  int rc = bind(m, "input", dlc_meta.inputs, dlc_meta.num_inputs, inputs, num_inputs, m->args);
  if (!rc)
    rc = bind(m, "output", dlc_meta.outputs, dlc_meta.num_outputs, outputs, num_outputs,
              m->args + dlc_meta.num_inputs + num_params());
  if (!rc && !m->gpu)
    rc = check_overlap(m);
  if (rc)
    return rc;
  if (m->gpu) {
    rc = dlc_gpu_run(m->gpu, m->args, m->args + dlc_meta.num_inputs, m->error,
                     sizeof(m->error));
    if (rc)
      return rc;
    m->error[0] = 0;
    return DLC_OK;
  }
  for (int i = 0; i < num_params(); ++i)
    m->args[dlc_meta.num_inputs + i] = slot(m, m->current, i);
  unsigned fp_state = dlc_flush_denormals();
  flip_sweeps(m);
  if (dlc_meta.batch_runs > 1) {
    run_per_image(m);
    if (dlc_meta.tail_entry)
      run_tail(m);
  } else
    dlc_meta.entry(m->args);
  dlc_restore_denormals(fp_state);
  m->error[0] = 0;
  return DLC_OK;
}

DLC_API const char *dlc_last_error(const dlc_model *m) {
  return m ? m->error : create_error;
}

DLC_API void dlc_destroy(dlc_model *m) {
  if (!m)
    return;
  if (m->gpu)
    dlc_gpu_destroy(m->gpu);
  else
    dlc_pool_stop(&m->pool);
  stop_groups(m);
  if (m->owns_arena)
    free(m->arena);
  free(m->args);
  free(m->run_args);
  free(m->image_arenas);
  free(m->persist);
  free(m->slot_offset);
  free(m->train_args);
  free(m);
}

/*--- Training ---------------------------------------------------------------*/

static int need_train(dlc_model *m) {
  if (!m)
    return DLC_ERROR_INVALID_ARGUMENT;
  if (!dlc_meta.train)
    return set_error(m->error, DLC_ERROR_NOT_TRAINABLE,
                     "this library was compiled without --train");
  return DLC_OK;
}

DLC_API int dlc_train_step(dlc_model *m, const dlc_tensor *inputs, size_t num_inputs,
                           double learning_rate, double *loss) {
  int rc = need_train(m);
  if (rc)
    return rc;
  const dlc_train_meta *t = dlc_meta.train;
  int ni = dlc_meta.num_inputs, np = num_params(), ns = num_state();
  if (num_inputs != (size_t)(ni + t->num_labels) || !inputs)
    return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT,
                     "expected %d inputs and %d labels, got %zu tensors", ni, t->num_labels,
                     num_inputs);
  void **a = m->train_args;
  for (int i = 0; i < ni && !rc; ++i)
    rc = bind_one(m, "input", &dlc_meta.inputs[i], inputs, num_inputs, &a[i]);
  for (int i = 0; i < t->num_labels && !rc; ++i)
    rc = bind_one(m, "labels", &t->labels[i], inputs, num_inputs, &a[ni + np + i]);
  if (rc)
    return rc;
  /* An out-of-range class would silently drop its sample from the loss. */
  if (t->num_classes > 0) {
    const int64_t *cls = a[ni + np];
    for (int64_t i = 0; i < t->labels[0].bytes / 8; ++i)
      if (cls[i] < 0 || cls[i] >= t->num_classes)
        return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT,
                         "labels[%lld] is %lld, outside the %lld classes [0, %lld)",
                         (long long)i, (long long)cls[i], (long long)t->num_classes,
                         (long long)t->num_classes);
  }
  int cur = m->current, next = 1 - cur, k = ni;
  for (int i = 0; i < np; ++i)
    a[k++] = slot(m, cur, i);
  k += t->num_labels;
  if (t->lr_dtype == DLC_FLOAT64)
    m->lr.d = learning_rate;
  else
    m->lr.f = (float)learning_rate;
  a[k++] = &m->lr;
  for (int i = 0; i < ns; ++i)
    a[k++] = slot(m, cur, np + i);
  a[k++] = &m->loss;
  for (int i = 0; i < np + ns; ++i)
    a[k++] = slot(m, next, i);
  unsigned fp_state = dlc_flush_denormals();
  flip_sweeps(m);
  t->entry(a);
  dlc_restore_denormals(fp_state);
  m->current = next;
  if (loss)
    *loss = t->lr_dtype == DLC_FLOAT64 ? m->loss.d : (double)m->loss.f;
  m->error[0] = 0;
  return DLC_OK;
}

/* The current value of parameter `name`, which must be `bytes` long. */
static int param_slot(dlc_model *m, const char *name, size_t bytes, void **out) {
  int rc = need_train(m);
  if (rc)
    return rc;
  for (int i = 0; i < num_params(); ++i)
    if (name && strcmp(dlc_meta.params[i].name, name) == 0) {
      if ((int64_t)bytes != dlc_meta.params[i].bytes)
        return set_error(m->error, DLC_ERROR_SHAPE, "parameter '%s' has %lld bytes, not %zu",
                         name, (long long)dlc_meta.params[i].bytes, bytes);
      *out = slot(m, m->current, i);
      return DLC_OK;
    }
  return set_error(m->error, DLC_ERROR_NAME, "no parameter '%s'", name ? name : "(null)");
}

DLC_API int dlc_get_parameter(dlc_model *m, const char *name, void *data, size_t bytes) {
  void *p = NULL;
  int rc = param_slot(m, name, bytes, &p);
  if (!rc)
    memcpy(data, p, bytes);
  return rc;
}

DLC_API int dlc_set_parameter(dlc_model *m, const char *name, const void *data, size_t bytes) {
  void *p = NULL;
  int rc = param_slot(m, name, bytes, &p);
  if (!rc)
    memcpy(p, data, bytes);
  return rc;
}

static const char param_magic[8] = {'D', 'L', 'C', 'P', 'A', 'R', 'M', '1'};

DLC_API int dlc_save_parameters(dlc_model *m, const char *path) {
  int rc = need_train(m);
  if (rc)
    return rc;
  char tmp[4200];
  if (!path || snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
    return set_error(m->error, DLC_ERROR_INVALID_ARGUMENT, "bad parameter file path");
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return set_error(m->error, DLC_ERROR_IO, "cannot write '%s'", tmp);
  uint32_t count = (uint32_t)num_params();
  int ok = fwrite(param_magic, 8, 1, f) == 1 && fwrite(&count, 4, 1, f) == 1;
  for (int i = 0; ok && i < num_params(); ++i) {
    const dlc_tensor_desc *d = &dlc_meta.params[i];
    uint32_t len = (uint32_t)strlen(d->name);
    uint64_t bytes = (uint64_t)d->bytes;
    ok = fwrite(&len, 4, 1, f) == 1 && fwrite(d->name, 1, len, f) == len &&
         fwrite(&d->dtype, 4, 1, f) == 1 && fwrite(&d->rank, 4, 1, f) == 1 &&
         fwrite(d->shape, 8, d->rank, f) == (size_t)d->rank && fwrite(&bytes, 8, 1, f) == 1 &&
         fwrite(slot(m, m->current, i), 1, bytes, f) == bytes;
  }
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    remove(tmp);
    return set_error(m->error, DLC_ERROR_IO, "cannot write '%s'", path);
  }
  return DLC_OK;
}

/* Reads into the set not in use; only a fully matching file makes it current. */
DLC_API int dlc_load_parameters(dlc_model *m, const char *path) {
  int rc = need_train(m);
  if (rc)
    return rc;
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (!f)
    return set_error(m->error, DLC_ERROR_IO, "cannot open '%s'", path ? path : "(null)");
  char magic[8], name[4096];
  uint32_t count = 0;
  int next = 1 - m->current;
  rc = DLC_OK;
  if (fread(magic, 8, 1, f) != 1 || memcmp(magic, param_magic, 8) != 0 ||
      fread(&count, 4, 1, f) != 1)
    rc = set_error(m->error, DLC_ERROR_IO, "'%s' is not a dlc parameter file", path);
  else if (count != (uint32_t)num_params())
    rc = set_error(m->error, DLC_ERROR_NAME, "'%s' holds %u parameters, the model has %d", path,
                   count, num_params());
  char seen[4096] = {0};
  for (uint32_t e = 0; !rc && e < count; ++e) {
    uint32_t len = 0;
    int32_t dtype = 0, rank = 0;
    if (fread(&len, 4, 1, f) != 1 || len >= sizeof(name) || fread(name, 1, len, f) != len) {
      rc = set_error(m->error, DLC_ERROR_IO, "'%s' is truncated", path);
      break;
    }
    name[len] = 0;
    int i = 0;
    while (i < num_params() && strcmp(dlc_meta.params[i].name, name) != 0)
      ++i;
    if (i == num_params() || (i < (int)sizeof(seen) && seen[i]++)) {
      rc = set_error(m->error, DLC_ERROR_NAME, "'%s': parameter '%s' is %s", path, name,
                     i == num_params() ? "not in the model" : "repeated");
      break;
    }
    const dlc_tensor_desc *d = &dlc_meta.params[i];
    int64_t dims[16];
    uint64_t bytes = 0;
    if (fread(&dtype, 4, 1, f) != 1 || fread(&rank, 4, 1, f) != 1 || rank < 0 || rank > 16 ||
        fread(dims, 8, rank, f) != (size_t)rank || fread(&bytes, 8, 1, f) != 1) {
      rc = set_error(m->error, DLC_ERROR_IO, "'%s' is truncated", path);
      break;
    }
    int same = dtype == d->dtype && rank == d->rank && bytes == (uint64_t)d->bytes;
    for (int r = 0; same && r < rank; ++r)
      same = dims[r] == d->shape[r];
    if (!same) {
      rc = set_error(m->error, DLC_ERROR_SHAPE,
                     "'%s': parameter '%s' is %s rank %d, the model's is %s rank %d "
                     "(or the dims differ)",
                     path, name, dtype_name(dtype), rank, dtype_name(d->dtype), d->rank);
      break;
    }
    if (fread(slot(m, next, i), 1, bytes, f) != bytes)
      rc = set_error(m->error, DLC_ERROR_IO, "'%s' is truncated", path);
  }
  fclose(f);
  if (rc)
    return rc;
  /* The optimizer state carries over. */
  for (int i = num_params(); i < num_params() + num_state(); ++i)
    memcpy(slot(m, next, i), slot(m, m->current, i), slot_bytes(i));
  m->current = next;
  return DLC_OK;
}
