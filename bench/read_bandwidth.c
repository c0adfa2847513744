/* Single-core read bandwidth over a buffer of a given size, read again and
 * again (the MLP's weights each call): the floor for a kernel that streams
 * that many bytes. `cc -O2 -march=native bench/read_bandwidth.c -o rb &&
 * ./rb 933888` (bytes); prints the mean and the fastest pass's time and
 * GB/s. Four independent sums on the widest vectors the compiler targets.
 * `./rb 933888 alternate` reads every other pass back to front, as
 * dlc-alternate-sweeps has the MLP's loops do (Zen 5, 1 MB of L2, 0.93
 * MB: 5.5-5.9 us a pass one way, 4.1-5.1 alternating, mean of 2000). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define LOAD _mm512_load_ps
#define ADD _mm512_add_ps
#define ZERO _mm512_setzero_ps
#define FIRST(v) _mm512_cvtss_f32(v)
#else
typedef __m256 vec;
#define LANES 8
#define LOAD _mm256_load_ps
#define ADD _mm256_add_ps
#define ZERO _mm256_setzero_ps
#define FIRST(v) _mm256_cvtss_f32(v)
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || atol(argv[1]) < 4 * LANES * 4 ||
      (argc == 3 && strcmp(argv[2], "alternate") != 0)) {
    fprintf(stderr, "usage: %s BYTES (at least %d) [alternate]\n", argv[0], 4 * LANES * 4);
    return 1;
  }
  int alternate = argc == 3;
  size_t n = (size_t)atol(argv[1]) / sizeof(float) / (4 * LANES) * (4 * LANES);
  float *a = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
  if (!a)
    return 1;
  for (size_t i = 0; i < n; ++i)
    a[i] = 1.0f / (float)(i + 1);
  vec s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO();
  enum { PASSES = 2000 };
  double best = 1e9, total = 0;
  for (int pass = 0; pass < PASSES; ++pass) {
    double t = now();
    if (alternate && pass % 2) {
      for (size_t i = n; i > 0; i -= 4 * LANES) {
        s0 = ADD(s0, LOAD(a + i - 4 * LANES));
        s1 = ADD(s1, LOAD(a + i - 3 * LANES));
        s2 = ADD(s2, LOAD(a + i - 2 * LANES));
        s3 = ADD(s3, LOAD(a + i - LANES));
      }
    } else {
      for (size_t i = 0; i < n; i += 4 * LANES) {
        s0 = ADD(s0, LOAD(a + i));
        s1 = ADD(s1, LOAD(a + i + LANES));
        s2 = ADD(s2, LOAD(a + i + 2 * LANES));
        s3 = ADD(s3, LOAD(a + i + 3 * LANES));
      }
    }
    t = now() - t;
    total += t;
    if (t < best)
      best = t;
  }
  double bytes = (double)n * sizeof(float);
  /* The sum is printed so that the loads are not optimized away. */
  printf("%.0f bytes%s: mean %.2f us a pass, fastest %.2f us, %.1f GB/s (sum %g)\n", bytes,
         alternate ? " alternating" : "", total / PASSES * 1e6, best * 1e6, bytes / best / 1e9,
         FIRST(ADD(ADD(s0, s1), ADD(s2, s3))));
  free(a);
  return 0;
}
