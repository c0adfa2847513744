/* Per-call latency of a dlc-compiled library and of onnxruntime on the same
 * model, both through their C APIs, in one process: what a C or C++ program
 * embedding either would see, without Python's per-call overhead (on Zen 5
 * about 1.4 us on dlc's side through ctypes, 2.5 us on onnxruntime's through
 * InferenceSession.run), which moves the ratio on 5-20 us models.
 *
 *   c_latency --dlc LIB.so --ort libonnxruntime.so.X --model M.onnx --threads N
 *             [--rounds R] [--min-ms MS] --input NAME:1x784 ... --output NAME:1x10 ...
 *
 * Both run on the same seeded uniform [-1, 1) float32 inputs, each into its
 * own preallocated output buffers (onnxruntime through OrtValues over them,
 * so neither allocates per call). Rounds alternate the two; a round is the
 * median of the calls made in at least --min-ms after --min-ms / 4 of
 * warm-up, and each side's result its best round, as in bench_latency.py.
 * Prints one JSON line: dlc_us, ort_us, max_abs_diff (dlc against
 * onnxruntime) and max_abs_ref (onnxruntime's largest output magnitude).
 *
 * onnxruntime's C API is a table of function pointers (OrtApi) whose order
 * is its ABI: entries are only ever appended, so an index names the same
 * function in every release from the one that added it. The PyPI wheel
 * ships libonnxruntime.so without its header, so the few entries used here
 * are named by index (ORT_* below, all from API version 1) and called
 * through the signatures they are documented with. */
#define _GNU_SOURCE
#include <dlc/runtime.h>

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  ORT_GET_ERROR_MESSAGE = 2,
  ORT_CREATE_ENV = 3,
  ORT_CREATE_SESSION = 7,
  ORT_RUN = 9,
  ORT_CREATE_SESSION_OPTIONS = 10,
  ORT_SET_INTRA_OP_NUM_THREADS = 24,
  ORT_SET_INTER_OP_NUM_THREADS = 25,
  ORT_CREATE_TENSOR_WITH_DATA = 49,
  ORT_CREATE_CPU_MEMORY_INFO = 69,
  ORT_RELEASE_SESSION = 95,
};
enum { ORT_LOGGING_LEVEL_ERROR = 3, ORT_FLOAT = 1, ORT_ARENA_ALLOCATOR = 1, ORT_MEM_DEFAULT = 0 };

typedef void *OrtStatus; /* opaque; NULL is success */
typedef struct {
  const void *const *(*GetApi)(uint32_t version);
  const char *(*GetVersionString)(void);
} OrtApiBase;

static const void *const *ort; /* the OrtApi table */
#define ORT_FN(index, type) ((type)ort[index])

enum { MAX_TENSORS = 8, MAX_RANK = 8 };
typedef struct {
  const char *name;
  int rank;
  int64_t shape[MAX_RANK];
  size_t count;
  float *dlc, *ref; /* inputs: one buffer for both sides; outputs: dlc's and onnxruntime's */
} Tensor;

static void die(const char *what, const char *why) {
  fprintf(stderr, "c_latency: %s: %s\n", what, why);
  exit(1);
}

static void check_ort(OrtStatus status, const char *what) {
  if (status)
    die(what, ORT_FN(ORT_GET_ERROR_MESSAGE, const char *(*)(OrtStatus))(status));
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median microseconds of `call(arg)` over calls lasting at least `min_ms`,
 * after at least 3 calls and `min_ms` / 4 of warm-up. */
static double median_us(void (*call)(void *), void *arg, double min_ms) {
  double start = now_us();
  for (int done = 0; done < 3 || now_us() - start < min_ms * 250; ++done)
    call(arg);
  size_t n = 0, cap = 1 << 16;
  double *times = malloc(cap * sizeof(double));
  start = now_us();
  while (n < 10 || now_us() - start < min_ms * 1e3) {
    double t0 = now_us();
    call(arg);
    if (n == cap)
      times = realloc(times, (cap *= 2) * sizeof(double));
    times[n++] = now_us() - t0;
  }
  qsort(times, n, sizeof(double), by_value);
  double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  free(times);
  return median;
}

typedef struct {
  int (*run)(dlc_model *, const dlc_tensor *, size_t, dlc_tensor *, size_t);
  const char *(*last_error)(const dlc_model *);
  dlc_model *model;
  dlc_tensor ins[MAX_TENSORS], outs[MAX_TENSORS];
  size_t n_in, n_out;
} DlcSide;

static void dlc_call(void *arg) {
  DlcSide *s = arg;
  if (s->run(s->model, s->ins, s->n_in, s->outs, s->n_out) != DLC_OK)
    die("dlc_run", s->last_error(s->model));
}

typedef struct {
  void *session;
  const char *in_names[MAX_TENSORS], *out_names[MAX_TENSORS];
  void *ins[MAX_TENSORS], *outs[MAX_TENSORS];
  size_t n_in, n_out;
} OrtSide;

typedef OrtStatus (*OrtRunFn)(void *, const void *, const char *const *, const void *const *, size_t,
                              const char *const *, size_t, void **);

static void ort_call(void *arg) {
  OrtSide *s = arg;
  check_ort(ORT_FN(ORT_RUN, OrtRunFn)(s->session, NULL, s->in_names, (const void *const *)s->ins,
                                      s->n_in, s->out_names, s->n_out, s->outs),
            "onnxruntime Run");
}

/* An OrtValue over `t`'s onnxruntime buffer (the `ref` side), its name in
 * `*name`. */
static void *ort_value(const void *memory, const Tensor *t, const char **name) {
  typedef OrtStatus (*TensorFn)(const void *, void *, size_t, const int64_t *, size_t, int, void **);
  void *value;
  check_ort(ORT_FN(ORT_CREATE_TENSOR_WITH_DATA, TensorFn)(memory, t->ref, t->count * sizeof(float),
                                                          t->shape, t->rank, ORT_FLOAT, &value),
            "CreateTensorWithDataAsOrtValue");
  *name = t->name;
  return value;
}

/* "NAME:1x3x224x224" into `t`, with a buffer for each side that needs one. */
static void parse_tensor(char *spec, Tensor *t, int input) {
  char *colon = strrchr(spec, ':');
  if (!colon)
    die(spec, "expected NAME:D0xD1x...");
  *colon = 0;
  t->name = spec;
  t->count = 1;
  for (char *d = colon + 1; *d; ++t->rank) {
    if (t->rank == MAX_RANK)
      die(spec, "rank above 8");
    char *end;
    t->shape[t->rank] = strtoll(d, &end, 10);
    if (end == d || t->shape[t->rank] <= 0 || (*end && (*end != 'x' || !end[1])))
      die(spec, "expected NAME:D0xD1x... with positive dims");
    t->count *= (size_t)t->shape[t->rank];
    d = *end ? end + 1 : end;
  }
  size_t bytes = (t->count * sizeof(float) + 63) / 64 * 64;
  t->dlc = aligned_alloc(64, bytes);
  t->ref = input ? t->dlc : aligned_alloc(64, bytes);
  if (!t->dlc || !t->ref)
    die(spec, "out of memory");
}

int main(int argc, char **argv) {
  const char *dlc_path = NULL, *ort_path = NULL, *model_path = NULL;
  int threads = 1, rounds = 3;
  double min_ms = 300;
  Tensor ins[MAX_TENSORS] = {0}, outs[MAX_TENSORS] = {0};
  size_t n_in = 0, n_out = 0;
  if (argc % 2 == 0)
    die(argv[argc - 1], "a flag without its value");
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *flag = argv[i];
    char *value = argv[i + 1];
    if (!strcmp(flag, "--dlc"))
      dlc_path = value;
    else if (!strcmp(flag, "--ort"))
      ort_path = value;
    else if (!strcmp(flag, "--model"))
      model_path = value;
    else if (!strcmp(flag, "--threads"))
      threads = atoi(value);
    else if (!strcmp(flag, "--rounds"))
      rounds = atoi(value);
    else if (!strcmp(flag, "--min-ms"))
      min_ms = atof(value);
    else if (!strcmp(flag, "--input") && n_in < MAX_TENSORS)
      parse_tensor(value, &ins[n_in++], 1);
    else if (!strcmp(flag, "--output") && n_out < MAX_TENSORS)
      parse_tensor(value, &outs[n_out++], 0);
    else
      die(flag, "unknown flag, or more than 8 inputs or outputs");
  }
  if (!dlc_path || !ort_path || !model_path || !n_in || !n_out)
    die("usage", "--dlc LIB --ort LIBONNXRUNTIME --model M.onnx --input N:S... --output N:S...");

  uint64_t seed = 0x9e3779b97f4a7c15u; /* xorshift64: uniform [-1, 1) */
  for (size_t t = 0; t < n_in; ++t)
    for (size_t i = 0; i < ins[t].count; ++i) {
      seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
      ins[t].dlc[i] = (float)((seed >> 40) * (2.0 / (1 << 24)) - 1.0);
    }

  DlcSide dlc = {.n_in = n_in, .n_out = n_out};
  void *lib = dlopen(dlc_path, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    die(dlc_path, dlerror());
  int (*create)(dlc_model **, void *, size_t) = dlsym(lib, "dlc_create");
  int (*set_threads)(dlc_model *, int) = dlsym(lib, "dlc_set_threads");
  dlc.run = dlsym(lib, "dlc_run");
  dlc.last_error = dlsym(lib, "dlc_last_error");
  if (!create || !set_threads || !dlc.run || !dlc.last_error)
    die(dlc_path, "not a dlc library (dlc_create, dlc_run, ... missing)");
  if (create(&dlc.model, NULL, 0) != DLC_OK || set_threads(dlc.model, threads) != DLC_OK)
    die("dlc_create", dlc.last_error(dlc.model));
  for (size_t t = 0; t < n_in; ++t)
    dlc.ins[t] = (dlc_tensor){ins[t].name, DLC_FLOAT32, ins[t].rank, ins[t].shape, ins[t].dlc};
  for (size_t t = 0; t < n_out; ++t)
    dlc.outs[t] = (dlc_tensor){outs[t].name, DLC_FLOAT32, outs[t].rank, outs[t].shape, outs[t].dlc};

  void *ort_lib = dlopen(ort_path, RTLD_NOW | RTLD_LOCAL);
  if (!ort_lib)
    die(ort_path, dlerror());
  const OrtApiBase *(*get_base)(void) = dlsym(ort_lib, "OrtGetApiBase");
  if (!get_base)
    die(ort_path, "no OrtGetApiBase");
  const OrtApiBase *base = get_base();
  if (!(ort = base->GetApi(1)))
    die(ort_path, "no C API of version 1");
  void *env, *options, *memory;
  check_ort(ORT_FN(ORT_CREATE_ENV, OrtStatus (*)(int, const char *, void **))(
                ORT_LOGGING_LEVEL_ERROR, "c_latency", &env),
            "CreateEnv");
  check_ort(ORT_FN(ORT_CREATE_SESSION_OPTIONS, OrtStatus (*)(void **))(&options),
            "CreateSessionOptions");
  /* As bench_latency.py's sessions: intra-op threads = the thread count. */
  check_ort(ORT_FN(ORT_SET_INTRA_OP_NUM_THREADS, OrtStatus (*)(void *, int))(options, threads),
            "SetIntraOpNumThreads");
  check_ort(ORT_FN(ORT_SET_INTER_OP_NUM_THREADS, OrtStatus (*)(void *, int))(options, 1),
            "SetInterOpNumThreads");
  check_ort(ORT_FN(ORT_CREATE_CPU_MEMORY_INFO, OrtStatus (*)(int, int, void **))(
                ORT_ARENA_ALLOCATOR, ORT_MEM_DEFAULT, &memory),
            "CreateCpuMemoryInfo");
  OrtSide ortside = {.n_in = n_in, .n_out = n_out};
  for (size_t t = 0; t < n_in; ++t)
    ortside.ins[t] = ort_value(memory, &ins[t], &ortside.in_names[t]);
  for (size_t t = 0; t < n_out; ++t)
    ortside.outs[t] = ort_value(memory, &outs[t], &ortside.out_names[t]);

  double dlc_us = 1e300, ort_us = 1e300;
  for (int r = 0; r < rounds; ++r) {
    double us = median_us(dlc_call, &dlc, min_ms);
    dlc_us = us < dlc_us ? us : dlc_us;
    /* A session per round, released after it: its spinning worker threads
     * must not compete with dlc's round on a 2-core machine. */
    check_ort(ORT_FN(ORT_CREATE_SESSION, OrtStatus (*)(void *, const char *, void *, void **))(
                  env, model_path, options, &ortside.session),
              "CreateSession");
    us = median_us(ort_call, &ortside, min_ms);
    ort_us = us < ort_us ? us : ort_us;
    ORT_FN(ORT_RELEASE_SESSION, void (*)(void *))(ortside.session);
  }

  double diff = 0, ref = 0;
  for (size_t t = 0; t < n_out; ++t)
    for (size_t i = 0; i < outs[t].count; ++i) {
      diff = fmax(diff, fabs((double)outs[t].dlc[i] - outs[t].ref[i]));
      ref = fmax(ref, fabs(outs[t].ref[i]));
    }
  printf("{\"dlc_us\": %.4f, \"ort_us\": %.4f, \"max_abs_diff\": %.3g, \"max_abs_ref\": %.6g, "
         "\"ort_version\": \"%s\"}\n",
         dlc_us, ort_us, diff, ref, base->GetVersionString());
  return 0;
}
