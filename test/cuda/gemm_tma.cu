// dlc_gemm_tma and dlc_transpose (runtime/kernels/gemm_tma.cuh) alone on a
// GPU: C = A B through B^T, against a float64 reference (largest error over
// largest output, within 5e-3), with tensor maps encoded as the runtime
// does (runtime/cuda.c), in tf32 (TMA rounds) and float32 (the tensor
// cores truncate) maps; timed against dlc_gemm_wgmma on square GEMMs.
// Not part of the test suite (no GPU there).
//
// Here:   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a \
//           -Iruntime/kernels test/cuda/gemm_tma.cu -o devrun/gemm_tma \
//           -L/usr/local/cuda/lib64/stubs -lcuda
// Device: devrun/gemm_tma
#define DLC_PRECISION_TF32
#define DLC_ALL_KERNELS
#include "cuda_check.h"
#include "gemm_tc.cu"
#include "tensor_map.h"
#include <algorithm>
#include <cmath>
#include <vector>

__global__ void reference(const float *A, const float *B, float *C, int M, int N, int K) {
  int m = blockIdx.y * 16 + threadIdx.y, n = blockIdx.x * 16 + threadIdx.x;
  if (m >= M || n >= N)
    return;
  double s = 0;
  for (int k = 0; k < K; ++k)
    s += (double)A[(long long)m * K + k] * B[(long long)k * N + n];
  C[(long long)m * N + n] = (float)s;
}

// Rows of `inner` floats, `ld` apart, in boxes of 32 x `boxRows`.
DlcTensorMap tileMap(const float *p, long long inner, long long rows, long long ld, int boxRows,
                     CUtensorMapDataType type) {
  cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)ld * 4};
  cuuint32_t box[2] = {32, (cuuint32_t)boxRows}, elementStrides[2] = {1, 1};
  return encodeTensorMap(p, 2, dims, strides, box, elementStrides, type);
}

int main() {
  int failures = 0;
  printf("| M N K | error tf32 map | error f32 map | transpose ms | dlc_gemm_tma ms | TFLOP/s | "
         "dlc_gemm_wgmma ms |\n|---|---:|---:|---:|---:|---:|---:|\n");
  struct {
    int M, N, K;
  } shapes[] = {{300, 700, 132}, {1000, 1000, 1000}, {1024, 1024, 1024}, {2048, 2048, 2048},
                {4096, 4096, 4096}};
  for (const auto &shape : shapes) {
    const int M = shape.M, N = shape.N, K = shape.K;
    long long ldt = (K + 3) / 4 * 4;
    std::vector<float> hA((size_t)M * K), hB((size_t)K * N), out((size_t)M * N), ref(out.size());
    srand(1);
    for (float &x : hA)
      x = rand() / (float)RAND_MAX * 2 - 1;
    for (float &x : hB)
      x = rand() / (float)RAND_MAX * 2 - 1;
    float *A, *B, *Bt, *C, *R;
    CHECK(cudaMalloc(&A, hA.size() * 4));
    CHECK(cudaMalloc(&B, hB.size() * 4));
    CHECK(cudaMalloc(&Bt, (size_t)N * ldt * 4));
    CHECK(cudaMalloc(&C, out.size() * 4));
    CHECK(cudaMalloc(&R, out.size() * 4));
    cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(B, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice);
    reference<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, R, M, N, K);
    CHECK(cudaDeviceSynchronize());
    cudaMemcpy(ref.data(), R, ref.size() * 4, cudaMemcpyDeviceToHost);
    double largest = 0;
    for (float x : ref)
      largest = std::max(largest, (double)fabs(x));
    CHECK(cudaFuncSetAttribute(dlc_gemm_tma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               TMA_SHARED_BYTES));
    CHECK(cudaFuncSetAttribute(dlc_gemm_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               WGMMA_SHARED_BYTES(256, 2, 4)));
    auto transpose = [&] {
      dlc_transpose<<<dim3((N + 31) / 32, (K + 31) / 32), dim3(32, 8)>>>(B, Bt, K, N, N, ldt);
    };
    auto gemm = [&](const DlcTensorMap &a, const DlcTensorMap &b) {
      dlc_gemm_tma<<<dim3((N + 255) / 256, (M + 127) / 128), 384, TMA_SHARED_BYTES>>>(
          A, Bt, C, M, N, K, 0, K, 1, 0, 1, ldt, 0, N, 1, 1, 0, N, a, b);
    };
    auto wgmma = [&] {
      dlc_gemm_wgmma<<<dim3((N + 127) / 128, (M + 255) / 256), 256,
                       WGMMA_SHARED_BYTES(256, 2, 4)>>>(A, B, R, M, N, K, 0, K, 1, 0, N, 1, 0, N,
                                                        1, 1, 0, N);
    };
    double err[2];
    DlcTensorMap maps[2][2];
    for (int f = 0; f < 2; ++f) {
      CUtensorMapDataType type = f == 0 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
      maps[f][0] = tileMap(A, K, M, K, TMA_TM, type);
      maps[f][1] = tileMap(Bt, K, N, ldt, TMA_TN, type);
      transpose();
      CHECK(cudaMemset(C, 0xff, out.size() * 4));
      gemm(maps[f][0], maps[f][1]);
      CHECK(cudaDeviceSynchronize());
      cudaMemcpy(out.data(), C, out.size() * 4, cudaMemcpyDeviceToHost);
      err[f] = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        double e = fabs(out[i] - ref[i]);
        err[f] = std::max(err[f], e == e ? e : INFINITY);
      }
      err[f] /= largest;
    }
    bool ok = err[0] < 5e-3 && err[1] < 5e-3;
    failures += !ok;
    cudaEvent_t e0, e1, e2, e3;
    for (cudaEvent_t *e : {&e0, &e1, &e2, &e3})
      cudaEventCreate(e);
    const int reps = 20;
    for (int r = 0; r < 3; ++r)
      transpose(), gemm(maps[0][0], maps[0][1]), wgmma();
    cudaEventRecord(e0);
    for (int r = 0; r < reps; ++r)
      transpose();
    cudaEventRecord(e1);
    for (int r = 0; r < reps; ++r)
      gemm(maps[0][0], maps[0][1]);
    cudaEventRecord(e2);
    for (int r = 0; r < reps; ++r)
      wgmma();
    cudaEventRecord(e3);
    CHECK(cudaEventSynchronize(e3));
    CHECK(cudaGetLastError());
    float tMs, gMs, wMs;
    cudaEventElapsedTime(&tMs, e0, e1);
    cudaEventElapsedTime(&gMs, e1, e2);
    cudaEventElapsedTime(&wMs, e2, e3);
    tMs /= reps, gMs /= reps, wMs /= reps;
    printf("| %d %d %d | %.1e | %.1e%s | %.4f | %.4f | %.0f | %.4f |\n", M, N, K, err[0], err[1],
           ok ? "" : " FAIL", tMs, gMs, 2.0 * M * N * K / gMs / 1e9, wMs);
    for (float *p : {A, B, Bt, C, R})
      cudaFree(p);
  }
  printf(failures ? "%d FAILED\n" : "all match\n", failures);
  return failures != 0;
}
