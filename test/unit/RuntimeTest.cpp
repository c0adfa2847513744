//===- RuntimeTest.cpp - the C API of compiled model libraries ------------===//
//
// Needs two compiled libraries, named by DLC_TEST_LIB_MLP (mlp.onnx) and
// DLC_TEST_LIB_LENET (lenet.onnx); test/Runtime/runtime.test builds them.
//
//===----------------------------------------------------------------------===//
#include "dlc/runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <string>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

// Heap calls from anywhere in the process, the loaded models included,
// counted while `countHeap` is set.
static std::atomic<bool> countHeap{false};
static std::atomic<long> heapCalls{0};
extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void *malloc(size_t n) {
  if (countHeap)
    ++heapCalls;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t s) {
  if (countHeap)
    ++heapCalls;
  return __libc_calloc(n, s);
}
void *realloc(void *p, size_t n) {
  if (countHeap)
    ++heapCalls;
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
  if (countHeap)
    ++heapCalls;
  return __libc_memalign(a, n);
}
}

namespace {
struct Lib {
  void *h = nullptr;
  decltype(&dlc_arena_bytes) arenaBytes;
  decltype(&dlc_create) create;
  decltype(&dlc_run) run;
  decltype(&dlc_signature_json) signature;
  decltype(&dlc_last_error) lastError;
  decltype(&dlc_set_threads) setThreads;
  decltype(&dlc_destroy) destroy;

  explicit Lib(const char *env) {
    const char *path = getenv(env);
    if (!path)
      return;
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      return;
    arenaBytes = (decltype(arenaBytes))dlsym(h, "dlc_arena_bytes");
    create = (decltype(create))dlsym(h, "dlc_create");
    run = (decltype(run))dlsym(h, "dlc_run");
    signature = (decltype(signature))dlsym(h, "dlc_signature_json");
    lastError = (decltype(lastError))dlsym(h, "dlc_last_error");
    destroy = (decltype(destroy))dlsym(h, "dlc_destroy");
    setThreads = (decltype(setThreads))dlsym(h, "dlc_set_threads");
  }
};

struct Io {
  std::vector<int64_t> inShape, outShape;
  std::vector<float> in, out;
  dlc_tensor input, output;
  Io(std::vector<int64_t> is, const char *inName, std::vector<int64_t> os, const char *outName)
      : inShape(is), outShape(os) {
    size_t n = 1, m = 1;
    for (auto d : is)
      n *= d;
    for (auto d : os)
      m *= d;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1, 1);
    in.resize(n);
    for (float &v : in)
      v = dist(rng);
    out.assign(m, 0);
    input = {inName, DLC_FLOAT32, (int32_t)is.size(), inShape.data(), in.data()};
    output = {outName, DLC_FLOAT32, (int32_t)os.size(), outShape.data(), out.data()};
  }
};

#define REQUIRE_LIB(lib)                                                       \
  if (!(lib).h)                                                                \
    GTEST_SKIP() << "set DLC_TEST_LIB_MLP/DLC_TEST_LIB_LENET (runtime.test does)";
} // namespace

TEST(Runtime, RunsAndIsDeterministic) {
  Lib L("DLC_TEST_LIB_MLP");
  REQUIRE_LIB(L);
  dlc_model *m = nullptr;
  ASSERT_EQ(L.create(&m, nullptr, 0), DLC_OK);
  Io io({1, 784}, "input", {1, 10}, "softmax_12");
  ASSERT_EQ(L.run(m, &io.input, 1, &io.output, 1), DLC_OK) << L.lastError(m);
  std::vector<float> first = io.out;
  float sum = 0;
  for (float v : first)
    sum += v;
  EXPECT_NEAR(sum, 1.0f, 1e-5); // softmax output
  // A library whose loops sweep alternately (dlc-alternate-sweeps) runs
  // them the other way round now: same bits. Then on two threads.
  ASSERT_EQ(L.run(m, &io.input, 1, &io.output, 1), DLC_OK);
  EXPECT_EQ(first, io.out);
  ASSERT_EQ(L.setThreads(m, 2), DLC_OK);
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(L.run(m, &io.input, 1, &io.output, 1), DLC_OK);
    EXPECT_EQ(first, io.out) << "two threads, run " << run;
  }
  L.destroy(m);
}

TEST(Runtime, RunAllocatesNothing) {
  Lib L("DLC_TEST_LIB_LENET");
  REQUIRE_LIB(L);
  dlc_model *m = nullptr;
  ASSERT_EQ(L.create(&m, nullptr, 0), DLC_OK);
  Io io({1, 1, 28, 28}, "input", {1, 10}, "gemm_22");
  ASSERT_EQ(L.run(m, &io.input, 1, &io.output, 1), DLC_OK) << L.lastError(m);
  heapCalls = 0;
  countHeap = true;
  for (int i = 0; i < 50; ++i)
    L.run(m, &io.input, 1, &io.output, 1);
  countHeap = false;
  EXPECT_EQ(heapCalls.load(), 0);
  // The counter works: create does allocate.
  countHeap = true;
  dlc_model *m2 = nullptr;
  ASSERT_EQ(L.create(&m2, nullptr, 0), DLC_OK);
  countHeap = false;
  EXPECT_GT(heapCalls.load(), 0);
  L.destroy(m2);
  L.destroy(m);
}

TEST(Runtime, RejectsWrongInputs) {
  Lib L("DLC_TEST_LIB_MLP");
  REQUIRE_LIB(L);
  dlc_model *m = nullptr;
  ASSERT_EQ(L.create(&m, nullptr, 0), DLC_OK);
  Io io({1, 784}, "input", {1, 10}, "softmax_12");

  Io badShape({1, 783}, "input", {1, 10}, "softmax_12");
  EXPECT_EQ(L.run(m, &badShape.input, 1, &io.output, 1), DLC_ERROR_SHAPE);
  EXPECT_NE(std::string(L.lastError(m)).find("dim 1 is 783, expected 784"), std::string::npos)
      << L.lastError(m);

  dlc_tensor badType = io.input;
  badType.dtype = 7;
  EXPECT_EQ(L.run(m, &badType, 1, &io.output, 1), DLC_ERROR_DTYPE);

  dlc_tensor badName = io.input;
  badName.name = "image";
  EXPECT_EQ(L.run(m, &badName, 1, &io.output, 1), DLC_ERROR_NAME);
  EXPECT_NE(std::string(L.lastError(m)).find("missing input 'input'"), std::string::npos);

  EXPECT_EQ(L.run(m, &io.input, 0, &io.output, 1), DLC_ERROR_INVALID_ARGUMENT);
  dlc_tensor badRank = io.output;
  badRank.rank = 1;
  EXPECT_EQ(L.run(m, &io.input, 1, &badRank, 1), DLC_ERROR_SHAPE);
  EXPECT_EQ(L.run(m, &io.input, 1, &io.output, 1), DLC_OK);

  // An output that overlaps an input would break the generated code's
  // noalias assumption: rejected.
  dlc_tensor inPlace = io.output;
  inPlace.data = io.in.data();
  EXPECT_EQ(L.run(m, &io.input, 1, &inPlace, 1), DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(L.lastError(m)).find("overlaps input 'input'"), std::string::npos)
      << L.lastError(m);
  L.destroy(m);
}

TEST(Runtime, CallerProvidedArena) {
  Lib L("DLC_TEST_LIB_LENET");
  REQUIRE_LIB(L);
  size_t bytes = L.arenaBytes();
  ASSERT_GT(bytes, 0u);
  void *arena = aligned_alloc(64, (bytes + 64) / 64 * 64 + 64);
  dlc_model *m = nullptr;
  EXPECT_EQ(L.create(&m, (char *)arena + 4, bytes), DLC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(L.lastError(nullptr)).find("aligned"), std::string::npos);
  EXPECT_EQ(L.create(&m, arena, bytes - 1), DLC_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(L.create(&m, arena, bytes), DLC_OK);
  Io a({1, 1, 28, 28}, "input", {1, 10}, "gemm_22"), b = a;
  b.input.data = b.in.data();
  b.output.data = b.out.data();
  ASSERT_EQ(L.run(m, &a.input, 1, &a.output, 1), DLC_OK);
  dlc_model *own = nullptr;
  ASSERT_EQ(L.create(&own, nullptr, 0), DLC_OK);
  ASSERT_EQ(L.run(own, &b.input, 1, &b.output, 1), DLC_OK);
  EXPECT_EQ(a.out, b.out);
  L.destroy(own);
  L.destroy(m);
  free(arena);
}

TEST(Runtime, ThreadCountDoesNotChangeResults) {
  // Each output tile is computed by one thread (whichever takes its chunk)
  // with the same arithmetic, so any thread count gives bit-identical
  // outputs.
  Lib L("DLC_TEST_LIB_LENET");
  REQUIRE_LIB(L);
  dlc_model *m = nullptr;
  ASSERT_EQ(L.create(&m, nullptr, 0), DLC_OK);
  Io one({1, 1, 28, 28}, "input", {1, 10}, "gemm_22"), two = one;
  two.input.data = two.in.data();
  two.output.data = two.out.data();
  ASSERT_EQ(L.setThreads(m, 1), DLC_OK);
  ASSERT_EQ(L.run(m, &one.input, 1, &one.output, 1), DLC_OK);
  ASSERT_EQ(L.setThreads(m, 2), DLC_OK);
  heapCalls = 0;
  countHeap = true;
  ASSERT_EQ(L.run(m, &two.input, 1, &two.output, 1), DLC_OK);
  countHeap = false;
  EXPECT_EQ(heapCalls.load(), 0);
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(L.setThreads(m, -1), DLC_ERROR_INVALID_ARGUMENT);
  L.destroy(m);
}

#if defined(__x86_64__) || defined(__i386__)
// dlc_run counts denormals as zero while it runs (runtime/denormals.h) and
// gives the caller back its own floating-point state, whatever it was.
TEST(Runtime, RunRestoresCallersFloatState) {
  Lib L("DLC_TEST_LIB_LENET");
  REQUIRE_LIB(L);
  dlc_model *m = nullptr;
  ASSERT_EQ(L.create(&m, nullptr, 0), DLC_OK);
  Io io({1, 1, 28, 28}, "input", {1, 10}, "gemm_22");
  unsigned saved = _mm_getcsr();
  for (unsigned state : {saved & ~0x8040u, saved | 0x8040u, (saved & ~0x6000u) | 0x2000u}) {
    _mm_setcsr(state); // plain, flushing, rounding down
    ASSERT_EQ(L.run(m, &io.input, 1, &io.output, 1), DLC_OK) << L.lastError(m);
    EXPECT_EQ(_mm_getcsr(), state);
  }
  _mm_setcsr(saved);
  L.destroy(m);
}
#endif

TEST(Runtime, TwoModelsInOneProcess) {
  Lib mlp("DLC_TEST_LIB_MLP"), lenet("DLC_TEST_LIB_LENET");
  REQUIRE_LIB(mlp);
  REQUIRE_LIB(lenet);
  EXPECT_NE(mlp.arenaBytes(), lenet.arenaBytes());
  EXPECT_NE(std::string(mlp.signature()).find("\"mlp\""), std::string::npos);
  EXPECT_NE(std::string(lenet.signature()).find("\"lenet\""), std::string::npos);
  dlc_model *a = nullptr, *b = nullptr;
  ASSERT_EQ(mlp.create(&a, nullptr, 0), DLC_OK);
  ASSERT_EQ(lenet.create(&b, nullptr, 0), DLC_OK);
  Io x({1, 784}, "input", {1, 10}, "softmax_12");
  Io y({1, 1, 28, 28}, "input", {1, 10}, "gemm_22");
  EXPECT_EQ(mlp.run(a, &x.input, 1, &x.output, 1), DLC_OK);
  EXPECT_EQ(lenet.run(b, &y.input, 1, &y.output, 1), DLC_OK);
  // Each library validates against its own signature.
  EXPECT_EQ(mlp.run(a, &y.input, 1, &x.output, 1), DLC_ERROR_SHAPE);
  mlp.destroy(a);
  lenet.destroy(b);
}
