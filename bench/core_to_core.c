/*===- core_to_core.c - what sharing cache lines between two cores costs ---===*
 *
 *   core_to_core [CPU_A CPU_B]     (default: the first two CPUs this process may use)
 *
 * Prints one JSON object:
 *   round_trip_ns        a flag passed A -> B -> A (one cache line each way);
 *   write_ns_per_line    a 256 KB buffer that A wrote, rewritten by A, per
 *                        64-byte line: after A's own write (own), after B
 *                        read it (after_other_read: each line is then in both
 *                        cores' caches and A's store waits to invalidate
 *                        B's copy), after B wrote it (after_other_write).
 *
 * Why the bench runs it: two-thread times on a VM depend on where its two
 * vCPUs sit. On the Zen 4 VM of sessions 52-54 the round trip read 50-65
 * ns for minutes, then 305-330 ns for minutes (the vCPUs on different
 * core complexes, most likely), and MobileNetV2 at two threads took 3.1 ms
 * or 5.0-5.2. The second line shows the mechanism: rewriting a line the
 * other core has read cost 9 ns a line in the fast state and 28 in the
 * slow one, against under 1 ns for a line only this core held. A model's
 * layers hand their outputs across cores all the time (a depthwise conv
 * split by channels reads what 1x1 convs split by pixels wrote).
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUND_TRIPS = 200000, BUFFER_BYTES = 256 * 1024, LINE = 64, WRITE_ROUNDS = 200 };

static _Atomic int flag;
static _Atomic int phase; /* 0 idle, 1 B reads the buffer, 2 B writes it, 3 stop */
static float *buffer;
static volatile float sink;

static int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void write_buffer(float v) {
  size_t n = BUFFER_BYTES / sizeof(float);
  for (size_t i = 0; i < n; ++i)
    buffer[i] = v;
}

static float read_buffer(void) {
  size_t n = BUFFER_BYTES / sizeof(float);
  float s = 0;
  for (size_t i = 0; i < n; i += LINE / sizeof(float))
    s += buffer[i];
  return s;
}

/* Core B, started pinned (a thread that failed to pin itself would leave
 * core A waiting for its replies). */
static void *other_core(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUND_TRIPS; ++i) {
    while (atomic_load(&flag) != 2 * i + 1)
      ;
    atomic_store(&flag, 2 * i + 2);
  }
  for (;;) {
    int p;
    while ((p = atomic_load(&phase)) == 0)
      ;
    if (p == 3)
      return NULL;
    if (p == 1)
      sink = read_buffer();
    else
      write_buffer(2.0f);
    atomic_store(&phase, 0);
  }
}

/* Has core B do `what` (1: read, 2: write) to the buffer, then times A's rewrite. */
static double rewrite_after(int what) {
  if (what) {
    atomic_store(&phase, what);
    while (atomic_load(&phase) != 0)
      ;
  }
  double t = now_ns();
  write_buffer(3.0f);
  return now_ns() - t;
}

int main(int argc, char **argv) {
  int cpus[2] = {-1, -1};
  if (argc == 3) {
    char *end0, *end1;
    long a = strtol(argv[1], &end0, 10), b = strtol(argv[2], &end1, 10);
    if (*end0 || *end1 || a < 0 || b < 0 || a >= CPU_SETSIZE || b >= CPU_SETSIZE || a == b) {
      puts("{\"error\": \"CPU_A and CPU_B must be two different CPU numbers\"}");
      return 1;
    }
    cpus[0] = (int)a;
    cpus[1] = (int)b;
  } else if (argc != 1) {
    puts("{\"error\": \"usage: core_to_core [CPU_A CPU_B]\"}");
    return 1;
  } else {
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; ++c)
      if (CPU_ISSET(c, &set))
        cpus[k++] = c;
  }
  if (cpus[1] < 0) {
    puts("{\"error\": \"fewer than two CPUs\"}");
    return 0;
  }
  buffer = aligned_alloc(LINE, BUFFER_BYTES);
  if (!buffer || pin(cpus[0])) {
    printf("{\"error\": \"cannot allocate or pin to CPU %d\"}\n", cpus[0]);
    return 0;
  }
  pthread_t thread;
  pthread_attr_t attr;
  cpu_set_t other;
  CPU_ZERO(&other);
  CPU_SET(cpus[1], &other);
  int failed = pthread_attr_init(&attr) ||
               pthread_attr_setaffinity_np(&attr, sizeof other, &other) ||
               pthread_create(&thread, &attr, other_core, NULL);
  pthread_attr_destroy(&attr);
  if (failed) {
    printf("{\"error\": \"cannot start a thread on CPU %d\"}\n", cpus[1]);
    return 0;
  }
  double t = now_ns();
  for (int i = 0; i < ROUND_TRIPS; ++i) {
    atomic_store(&flag, 2 * i + 1);
    while (atomic_load(&flag) != 2 * i + 2)
      ;
  }
  double round_trip = (now_ns() - t) / ROUND_TRIPS;

  double own = 0, after_read = 0, after_write = 0;
  for (int r = 0; r < WRITE_ROUNDS; ++r) {
    write_buffer(1.0f);
    own += rewrite_after(0);
    after_read += rewrite_after(1);
    after_write += rewrite_after(2);
  }
  atomic_store(&phase, 3);
  pthread_join(thread, NULL);
  double lines = (double)WRITE_ROUNDS * (BUFFER_BYTES / LINE);
  printf("{\"cpus\": [%d, %d], \"round_trip_ns\": %.1f, \"write_ns_per_line\": "
         "{\"own\": %.2f, \"after_other_read\": %.2f, \"after_other_write\": %.2f}}\n",
         cpus[0], cpus[1], round_trip, own / lines, after_read / lines, after_write / lines);
  free(buffer);
  return 0;
}
