// The tensor-core GEMM kernels (runtime/kernels/gemm_tc.cu, gemm_wgmma.cuh)
// alone on a GPU: each kernel's result against a float64-accumulated
// reference (largest error over largest output, within 5e-3 for tf32) and
// its time, on GEMM shapes of the models (conv GEMMs of ResNet-18, ResNet-50
// and MobileNetV2 at batch 32, per image N, weights shared over the batch),
// odd edges, split K, and 4096^3. Not part of the test suite (no GPU there).
//
// Here:   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a \
//           -Iruntime/kernels test/cuda/gemm_kernels.cu -o devrun/gemm_kernels
// Device: devrun/gemm_kernels   (through the device tool, carrying devrun/)
// Splits follow dlc's rule (CompileCuda's gemmLaunch) for each kernel's tile.
// Each kernel runs once adding into C (beta 1) and once storing (beta 0,
// after dlc_gemm_zero where K is split), both checked; the times are
// storing's.
#define DLC_PRECISION_TF32
#define DLC_ALL_KERNELS
#include "cuda_check.h"
#include "gemm_tc.cu"
#include <algorithm>
#include <cmath>
#include <vector>

__global__ void reference(const float *A, const float *B, float *C, long long M, long long N,
                          long long K, long long sAb, long long sBb, long long sCb) {
  long long b = blockIdx.z, m = blockIdx.y * 16 + threadIdx.y, n = blockIdx.x * 16 + threadIdx.x;
  if (m >= M || n >= N)
    return;
  double s = 0;
  for (long long k = 0; k < K; ++k)
    s += (double)A[b * sAb + m * K + k] * B[b * sBb + k * N + n];
  C[b * sCb + m * N + n] += (float)s;
}

typedef void (*Kernel)(DLC_GEMM_PARAMS);
struct GemmKernel {
  const char *name;
  Kernel f;
  int bm, threads, shared;
};
GemmKernel kernels[] = {
    {"mma.sync", dlc_gemm_tf32, 128, 128, 3 * (128 * 36 + 32 * 136) * 4},
    {"mma.sync64", dlc_gemm_tf32_m64, 64, 128, 3 * (64 * 36 + 32 * 136) * 4},
    {"wgmma256", dlc_gemm_wgmma, 256, 256, WGMMA_SHARED_BYTES(256, 2, 4)},
    {"wgmma64", dlc_gemm_wgmma_m64, 64, 256, WGMMA_SHARED_BYTES(64, 2, 4)},
};

struct Shape {
  long long M, N, K, batch;
  bool sharedA;
};

float launch(const GemmKernel &k, const float *A, const float *B, float *C, const Shape &s,
             long long splits, int reps, long long beta = 1) {
  long long sAb = s.sharedA ? 0 : s.M * s.K, sBb = s.K * s.N, sCb = s.M * s.N;
  CHECK(cudaFuncSetAttribute(k.f, cudaFuncAttributeMaxDynamicSharedMemorySize, k.shared));
  dim3 grid((s.N + 127) / 128, (s.M + k.bm - 1) / k.bm, s.batch * splits);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  for (int r = 0; r < reps; ++r) {
    if (!beta && splits > 1)
      dlc_gemm_zero<<<dim3((s.M * s.N + 255) / 256, 1, s.batch), 256>>>(C, s.M, s.N, sCb, s.N, 1);
    k.f<<<grid, k.threads, k.shared>>>(A, B, C, s.M, s.N, s.K, sAb, s.K, 1, sBb, s.N, 1, sCb, s.N,
                                       1, splits, beta, s.N);
  }
  cudaEventRecord(e1);
  CHECK(cudaEventSynchronize(e1));
  CHECK(cudaGetLastError());
  float ms;
  cudaEventElapsedTime(&ms, e0, e1);
  return ms / reps;
}

int main() {
  Shape shapes[] = {
      {100, 50, 37, 2, false},    {300, 130, 260, 1, false},  {1000, 8, 2048, 1, false},
      {64, 12544, 147, 1, true},  {64, 3136, 576, 32, true},  {128, 784, 1152, 32, true},
      {256, 196, 2304, 32, true}, {512, 49, 4608, 32, true},  {64, 3136, 64, 32, true},
      {256, 3136, 64, 32, true},  {64, 3136, 256, 32, true},  {128, 784, 256, 32, true},
      {512, 784, 128, 32, true},  {256, 196, 1024, 32, true}, {1024, 196, 256, 32, true},
      {2048, 49, 512, 32, true},  {512, 49, 2048, 32, true},  {32, 12544, 16, 32, true},
      {96, 3136, 24, 32, true},   {144, 784, 24, 32, true},   {192, 784, 32, 32, true},
      {384, 196, 64, 32, true},   {576, 196, 96, 32, true},   {960, 49, 160, 32, true},
      {160, 49, 960, 32, true},   {1280, 49, 320, 32, true},  {4096, 4096, 4096, 1, false}};
  int failures = 0;
  srand(1);
  printf("| M | N | K | batch |");
  for (const GemmKernel &k : kernels)
    printf(" %s error | ms (TFLOP/s) |", k.name);
  printf("\n");
  for (const Shape &s : shapes) {
    long long nA = (s.sharedA ? 1 : s.batch) * s.M * s.K, nB = s.batch * s.K * s.N,
              nC = s.batch * s.M * s.N;
    std::vector<float> hA(nA), hB(nB), hC(nC), ref(nC), out(nC);
    for (auto *v : {&hA, &hB, &hC})
      for (float &x : *v)
        x = rand() / (float)RAND_MAX * 2 - 1;
    float *A, *B, *C, *R;
    CHECK(cudaMalloc(&A, nA * 4));
    CHECK(cudaMalloc(&B, nB * 4));
    CHECK(cudaMalloc(&C, nC * 4));
    CHECK(cudaMalloc(&R, nC * 4));
    cudaMemcpy(A, hA.data(), nA * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(B, hB.data(), nB * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(R, hC.data(), nC * 4, cudaMemcpyHostToDevice);
    reference<<<dim3((s.N + 15) / 16, (s.M + 15) / 16, s.batch), dim3(16, 16)>>>(
        A, B, R, s.M, s.N, s.K, s.sharedA ? 0 : s.M * s.K, s.K * s.N, s.M * s.N);
    CHECK(cudaDeviceSynchronize());
    cudaMemcpy(ref.data(), R, nC * 4, cudaMemcpyDeviceToHost);
    double largest = 0;
    for (float v : ref)
      largest = std::max(largest, (double)fabs(v));
    printf("| %lld | %lld | %lld | %lld |", s.M, s.N, s.K, s.batch);
    for (const GemmKernel &k : kernels) {
      long long tiles = ((s.N + 127) / 128) * ((s.M + k.bm - 1) / k.bm) * s.batch;
      long long splits = std::clamp(2 * 132 / tiles, 1LL, std::max(1LL, s.K / 64));
      cudaMemcpy(C, hC.data(), nC * 4, cudaMemcpyHostToDevice);
      launch(k, A, B, C, s, splits, 1);
      cudaMemcpy(out.data(), C, nC * 4, cudaMemcpyDeviceToHost);
      double err = 0;
      for (long long i = 0; i < nC; ++i)
        err = std::max(err, (double)fabs(out[i] - ref[i]));
      // Storing: against the reference less C's start.
      cudaMemcpy(C, hC.data(), nC * 4, cudaMemcpyHostToDevice);
      launch(k, A, B, C, s, splits, 1, 0);
      cudaMemcpy(out.data(), C, nC * 4, cudaMemcpyDeviceToHost);
      double errStore = 0;
      for (long long i = 0; i < nC; ++i)
        errStore = std::max(errStore, (double)fabs(out[i] + hC[i] - ref[i]));
      bool ok = err / largest < 5e-3 && errStore / largest < 5e-3;
      failures += !ok;
      // Timed storing C (beta 0, with the zeroing where K is split), as the
      // models' conv GEMMs run after dlc-fold-gemm-zero-init.
      launch(k, A, B, C, s, splits, 3, 0);
      float ms = launch(k, A, B, C, s, splits, 10, 0);
      printf(" %.1e%s | %.4f (%.0f) |", err / largest, ok ? "" : " FAIL", ms,
             2.0 * s.M * s.N * s.K * s.batch / ms / 1e9);
    }
    printf("\n");
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(R);
  }
  printf(failures ? "%d FAILED\n" : "all match\n", failures);
  return failures != 0;
}
