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

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DLC_API __attribute__((visibility("default")))

struct dlc_model {
  void *arena;
  int owns_arena;
  int threads;
  void **args; /* inputs, outputs, arena */
  char error[512];
};

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
  size_t nargs = (size_t)dlc_meta.num_inputs + dlc_meta.num_outputs + 1;
  void **args = m ? calloc(nargs, sizeof(void *)) : NULL;
  if (!arena && args) {
    arena = aligned_alloc(64, (dlc_arena_bytes() + 63) / 64 * 64);
    if (m)
      m->owns_arena = 1;
  }
  if (!m || !args || !arena) {
    if (m && m->owns_arena)
      free(arena);
    free(args);
    free(m);
    return set_error(create_error, DLC_ERROR_OUT_OF_MEMORY,
                     "dlc_create: cannot allocate the %zu-byte arena", dlc_arena_bytes());
  }
  m->arena = arena;
  m->args = args;
  m->args[nargs - 1] = arena;
  *out = m;
  return DLC_OK;
}

DLC_API int dlc_set_threads(dlc_model *m, int threads) {
  if (!m || threads < 0)
    return DLC_ERROR_INVALID_ARGUMENT;
  m->threads = threads;
  return DLC_OK;
}

static int check_tensor(dlc_model *m, const char *kind, const dlc_tensor_desc *d,
                        const dlc_tensor *t) {
  if (t->dtype != d->dtype)
    return set_error(m->error, DLC_ERROR_DTYPE, "%s '%s': dtype %d, expected %d (float32)",
                     kind, d->name, t->dtype, d->dtype);
  if (t->rank != d->rank)
    return set_error(m->error, DLC_ERROR_SHAPE, "%s '%s': rank %d, expected %d", kind,
                     d->name, t->rank, d->rank);
  for (int i = 0; i < d->rank; ++i)
    if (!t->shape || t->shape[i] != d->shape[i])
      return set_error(m->error, DLC_ERROR_SHAPE, "%s '%s': dim %d is %lld, expected %lld",
                       kind, d->name, i, t->shape ? (long long)t->shape[i] : -1LL,
                       (long long)d->shape[i]);
  if (!t->data)
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
  if (m->owns_arena)
    free(m->arena);
  free(m->args);
  free(m);
}
