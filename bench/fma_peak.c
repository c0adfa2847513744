/* Single-core f32 FMA peak, for bench_matmul.py's "% peak" columns:
 * independent chains of FMAs on the widest vectors the compiler targets
 * (-march=native), enough to cover the FMA latency on two FMA units and
 * few enough to stay in the vector registers with the two operands (24 of
 * AVX-512's 32, 12 of AVX2's 16). Prints GFLOP/s. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define FIRST(v) _mm512_cvtss_f32(v)
#define CHAINS 24
#else
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#define FIRST(v) _mm256_cvtss_f32(v)
#define CHAINS 12
#endif

enum { STEPS = 20000000 };

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  vec acc[CHAINS];
  for (int i = 0; i < CHAINS; ++i)
    acc[i] = SET1(i * 1e-3f);
  vec b = SET1(0.999f), c = SET1(1e-4f);
  double start = seconds();
  /* Fully unrolled, so that the accumulators live in registers with any
   * compiler (gcc -O2 kept the array in memory: a quarter of the peak). */
  for (long s = 0; s < STEPS; ++s) {
#if defined(__clang__)
#pragma clang loop unroll(full)
#else
#pragma GCC unroll 32
#endif
    for (int i = 0; i < CHAINS; ++i)
      acc[i] = FMA(acc[i], b, c);
  }
  double elapsed = seconds() - start;
  vec sum = acc[0];
  for (int i = 1; i < CHAINS; ++i)
    sum = ADD(sum, acc[i]);
  /* The sum keeps the chains live; printed so the compiler cannot drop them. */
  printf("%.1f GFLOP/s (%g)\n", 2.0 * LANES * CHAINS * STEPS / elapsed * 1e-9, FIRST(sum));
  return 0;
}
