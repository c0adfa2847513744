/*===- denormals.h - denormal floats as zero while a model runs -----------===*
 *
 * dlc_run and dlc_train_step set MXCSR's flush-to-zero (FTZ) and
 * denormals-are-zero (DAZ) bits on the calling thread and restore the
 * caller's MXCSR before they return; the thread pool's workers set them
 * once, when they start. Why: on Intel cores an SSE/AVX operation with a
 * denormal operand or result takes a microcode assist, about 100x slower.
 * A register tile's padding lanes hold whatever the arena held before (see
 * dlc::GemmLayout), and bit patterns left there read as denormals: on the
 * device's Xeon a 960 -> 160 1x1 conv over a 7x7 map ran in 9 ms instead
 * of 0.15, and MobileNetV2 at one thread 9.1 ms median instead of 7.2.
 * Tiny activations and gradients become zero instead (below 1.2e-38 in
 * float32), as under TensorFlow's executors, which flush them too.
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLC_RUNTIME_DENORMALS_H
#define DLC_RUNTIME_DENORMALS_H

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

enum { DLC_MXCSR_FTZ_DAZ = 0x8040 };

/* Sets FTZ and DAZ on this thread; returns the MXCSR to restore. */
static inline unsigned dlc_flush_denormals(void) {
  unsigned old = _mm_getcsr();
  _mm_setcsr(old | DLC_MXCSR_FTZ_DAZ);
  return old;
}

static inline void dlc_restore_denormals(unsigned old) { _mm_setcsr(old); }
#else
static inline unsigned dlc_flush_denormals(void) { return 0; }
static inline void dlc_restore_denormals(unsigned old) { (void)old; }
#endif

#endif
