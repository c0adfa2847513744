/* Counts heap allocations around dlc_train_step and dlc_run: after the
 * first step, a train library must allocate nothing (the "zero
 * heap allocations per step"). malloc and friends are interposed here, in
 * the executable, so the library's calls come through them too.
 * usage: count_allocs LIB.so STEPS */
#include "dlc/runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static volatile size_t allocations;

void *malloc(size_t n) { ++allocations; return __libc_malloc(n); }
void *calloc(size_t n, size_t s) { ++allocations; return __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { ++allocations; return __libc_realloc(p, n); }
void *aligned_alloc(size_t a, size_t n) { ++allocations; return __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) {
  ++allocations;
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*create)(dlc_model **, void *, size_t) = dlsym(h, "dlc_create");
  int (*step)(dlc_model *, const dlc_tensor *, size_t, double, double *) = dlsym(h, "dlc_train_step");
  int (*run)(dlc_model *, const dlc_tensor *, size_t, dlc_tensor *, size_t) = dlsym(h, "dlc_run");
  const char *(*last_error)(const dlc_model *) = dlsym(h, "dlc_last_error");
  /* mlp_train: input [64,784], labels [64], output gemm_11 [64,10] */
  static float x[64 * 784], y[64 * 10];
  static int64_t labels[64];
  for (int i = 0; i < 64 * 784; ++i)
    x[i] = (float)((i * 7919) % 1000) / 1000.0f;
  for (int i = 0; i < 64; ++i)
    labels[i] = i % 10;
  int64_t xs[] = {64, 784}, ls[] = {64}, ys[] = {64, 10};
  dlc_tensor ins[] = {{"input", DLC_FLOAT32, 2, xs, x}, {"labels", DLC_INT64, 1, ls, labels}};
  dlc_tensor out = {"gemm_11", DLC_FLOAT32, 2, ys, y};
  dlc_model *m = NULL;
  double loss = 0, first = 0;
  size_t start = allocations;
  if (create(&m, NULL, 0) || step(m, ins, 2, 0.05, &first)) {
    fprintf(stderr, "%s\n", last_error(m));
    return 1;
  }
  size_t before = allocations;
  int steps = atoi(argv[2]);
  for (int i = 0; i < steps; ++i)
    if (step(m, ins, 2, 0.05, &loss) || run(m, ins, 1, &out, 1)) {
      fprintf(stderr, "%s\n", last_error(m));
      return 1;
    }
  size_t during = allocations - before;
  /* Proof that the counting sees the library: dlc_create allocates. */
  printf("heap allocations by dlc_create and the first step: %zu\n", before - start);
  printf("heap allocations in %d train steps and runs after the first: %zu\n", steps, during);
  printf("loss first %.4f last %.4f (%s)\n", first, loss, loss < first ? "decreasing" : "NOT decreasing");
  return during != 0;
}
