// The implicit-GEMM conv kernels (dlc_conv_*, runtime/kernels/gemm_tc.cu and
// gemm_wgmma.cuh) alone on a GPU: each against a float64 direct convolution
// (largest error over largest output, within 5e-3 for tf32), and timed
// against the explicit way (an im2col kernel writing the columns, then the
// same GEMM kernel reading them; and that GEMM alone), on the 3x3 convs of
// ResNet-18/50 at batch 32, their first convs (3 channels) and stride-2
// 1x1 convs, and odd geometries (stride 2, dilation, pixels past a tile,
// split K, 5 channels). Their _ep twins (and the GEMM kernels', on the
// columns) too: the conv through a tail of BatchNorm, a residual branch
// and ReLU or a clamp (dlc-fuse-gemm-epilogue's), against the float64
// conv with the tail applied in float64, and timed against the plain
// kernel followed by dlc_gemm_epilogue (what the tail cost apart).
// Not part of the test suite (no GPU there).
//
// Here:   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a \
//           -Iruntime/kernels test/cuda/conv_kernels.cu -o devrun/conv_kernels
// Device: devrun/conv_kernels   (through the device tool, carrying devrun/)
#define DLC_PRECISION_TF32
#define DLC_ALL_KERNELS
#include "cuda_check.h"
#include "gemm_tc.cu"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

struct Conv {
  long long n, c, h, w, f, kh, kw, s, p, d;
  __host__ __device__ long long oh() const { return (h + 2 * p - d * (kh - 1) - 1) / s + 1; }
  __host__ __device__ long long ow() const { return (w + 2 * p - d * (kw - 1) - 1) / s + 1; }
  __host__ __device__ long long k() const { return c * kh * kw; }
};

// out[n, f, y, x] = start + sum over c, i, j of x[n, c, ..] w[f, c, i, j], in double.
__global__ void reference(const float *X, const float *Wt, float *Y, Conv v) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long oh = v.oh(), ow = v.ow();
  if (i >= v.n * v.f * oh * ow)
    return;
  long long x = i % ow, y = i / ow % oh, f = i / (ow * oh) % v.f, b = i / (ow * oh * v.f);
  double s = 0;
  for (long long c = 0; c < v.c; ++c)
    for (long long a = 0; a < v.kh; ++a)
      for (long long e = 0; e < v.kw; ++e) {
        long long yy = y * v.s - v.p + a * v.d, xx = x * v.s - v.p + e * v.d;
        if (yy >= 0 && yy < v.h && xx >= 0 && xx < v.w)
          s += (double)X[((b * v.c + c) * v.h + yy) * v.w + xx] *
               Wt[((f * v.c + c) * v.kh + a) * v.kw + e];
      }
  Y[i] += (float)s;
}

// The explicit columns [n, (c, kh, kw), (oh, ow)], one thread an element.
__global__ void im2col(const float *X, float *cols, Conv v) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long oh = v.oh(), ow = v.ow(), p = oh * ow, k = v.k();
  if (i >= v.n * k * p)
    return;
  long long px = i % p, kk = i / p % k, b = i / (p * k);
  long long c = kk / (v.kh * v.kw), a = kk / v.kw % v.kh, e = kk % v.kw;
  long long yy = px / ow * v.s - v.p + a * v.d, xx = px % ow * v.s - v.p + e * v.d;
  cols[i] = yy >= 0 && yy < v.h && xx >= 0 && xx < v.w
                ? X[((b * v.c + c) * v.h + yy) * v.w + xx]
                : 0.0f;
}

typedef void (*ConvKernel)(DLC_CONV_PARAMS);
typedef void (*GemmKernel)(DLC_GEMM_PARAMS);
typedef void (*ConvEpKernel)(DLC_CONV_PARAMS, DLC_EPILOGUE_PARAMS);
typedef void (*GemmEpKernel)(DLC_GEMM_PARAMS, DLC_EPILOGUE_PARAMS);
struct Kernel {
  const char *name;
  ConvKernel conv;
  GemmKernel gemm;
  ConvEpKernel convEp;
  GemmEpKernel gemmEp;
  int bm, threads, shared;
};
Kernel kernels[] = {
    {"mma.sync", dlc_conv_tf32, dlc_gemm_tf32, dlc_conv_tf32_ep, dlc_gemm_tf32_ep, 128, 128,
     3 * (128 * 36 + 32 * 136) * 4},
    {"mma.sync64", dlc_conv_tf32_m64, dlc_gemm_tf32_m64, dlc_conv_tf32_m64_ep,
     dlc_gemm_tf32_m64_ep, 64, 128, 3 * (64 * 36 + 32 * 136) * 4},
    {"wgmma256", dlc_conv_wgmma, dlc_gemm_wgmma, dlc_conv_wgmma_ep, dlc_gemm_wgmma_ep, 256, 256,
     WGMMA_SHARED_BYTES(256, 2, 4)},
    {"wgmma64", dlc_conv_wgmma_m64, dlc_gemm_wgmma_m64, dlc_conv_wgmma_m64_ep,
     dlc_gemm_wgmma_m64_ep, 64, 256, WGMMA_SHARED_BYTES(64, 2, 4)},
};

// The tail of conv i: act i % 3 (none, ReLU, a clamp to [-0.25, 0.5]),
// the residual branch on even i.
struct Tail {
  std::vector<float> scale, shift, res, resScale, resShift;
  float *dScale, *dShift, *dRes, *dResScale, *dResShift;
  long long act;
  float lo = -0.25f, hi = 0.5f;
  Tail(int i, long long M, long long nY) : act(i % 3) {
    for (auto *vec : {&scale, &shift, &resScale, &resShift})
      vec->resize(M);
    res.resize(i % 2 == 0 ? nY : 0);
    for (auto *vec : {&scale, &shift, &res, &resScale, &resShift})
      for (float &x : *vec)
        x = rand() / (float)RAND_MAX * 2 - 1;
    float **ptrs[] = {&dScale, &dShift, &dRes, &dResScale, &dResShift};
    std::vector<float> *vecs[] = {&scale, &shift, &res, &resScale, &resShift};
    for (int j = 0; j < 5; ++j) {
      *ptrs[j] = nullptr;
      if (!vecs[j]->empty()) {
        CHECK(cudaMalloc(ptrs[j], vecs[j]->size() * 4));
        cudaMemcpy(*ptrs[j], vecs[j]->data(), vecs[j]->size() * 4, cudaMemcpyHostToDevice);
      }
    }
  }
  ~Tail() {
    for (float *p : {dScale, dShift, dRes, dResScale, dResShift})
      cudaFree(p);
  }
  // Element `at` (row m) of the conv's output v, in double, before the
  // activation.
  double affine(double v, long long m, long long at) const {
    double y = v * scale[m] + shift[m];
    if (!res.empty())
      y += (double)res[at] * resScale[m] + resShift[m];
    return y;
  }
  double activate(double y) const {
    return act == 1 ? std::max(y, 0.0) : act == 2 ? std::min(std::max(y, (double)lo), (double)hi) : y;
  }
  long long bits(float f) const {
    int i;
    memcpy(&i, &f, 4);
    return i;
  }
#define TAIL_ARGS(t)                                                                          \
  (t).dScale, (t).dShift, (t).dRes, (t).dResScale, (t).dResShift, (t).act, (t).bits((t).lo),   \
      (t).bits((t).hi)
};

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  CHECK(cudaEventSynchronize(b));
  CHECK(cudaGetLastError());
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  return ms;
}

int main() {
  int index = 0;
  Conv convs[] = {
      {3, 32, 9, 9, 40, 3, 3, 2, 1, 2},       {2, 64, 10, 13, 70, 3, 3, 1, 1, 1},
      {1, 32, 7, 7, 300, 3, 3, 1, 1, 1},      {32, 64, 56, 56, 64, 3, 3, 1, 1, 1},
      {32, 128, 56, 56, 128, 3, 3, 2, 1, 1},  {32, 128, 28, 28, 128, 3, 3, 1, 1, 1},
      {32, 256, 28, 28, 256, 3, 3, 2, 1, 1},  {32, 256, 14, 14, 256, 3, 3, 1, 1, 1},
      {32, 512, 14, 14, 512, 3, 3, 2, 1, 1},  {32, 512, 7, 7, 512, 3, 3, 1, 1, 1},
      {1, 256, 14, 14, 256, 3, 3, 1, 1, 1},   {1, 512, 7, 7, 512, 3, 3, 1, 1, 1},
      {2, 5, 11, 9, 24, 3, 3, 1, 1, 1},       {32, 3, 224, 224, 64, 7, 7, 2, 3, 1},
      {32, 3, 224, 224, 32, 3, 3, 2, 1, 1},   {32, 256, 56, 56, 512, 1, 1, 2, 0, 1},
      {32, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}};
  int failures = 0;
  srand(1);
  printf("| conv (n c h w f k s p d) |");
  for (const Kernel &k : kernels)
    printf(" %s error | implicit ms | im2col + GEMM ms (GEMM alone) | _ep error (conv, GEMM) | "
           "_ep ms | plain + dlc_gemm_epilogue ms |",
           k.name);
  printf("\n");
  cudaEvent_t e0, e1, e2, e3;
  cudaEventCreate(&e3);
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventCreate(&e2);
  for (const Conv &v : convs) {
    long long oh = v.oh(), ow = v.ow(), P = oh * ow, K = v.k(), M = v.f;
    long long nX = v.n * v.c * v.h * v.w, nW = v.f * K, nY = v.n * v.f * P, nCols = v.n * K * P;
    std::vector<float> hX(nX), hW(nW), hWp(nW), hY(nY), ref(nY), out(nY);
    for (auto *vec : {&hX, &hW, &hY})
      for (float &x : *vec)
        x = rand() / (float)RAND_MAX * 2 - 1;
    // The implicit kernels' filter: [f, (kh, kw, c)].
    for (long long f = 0; f < v.f; ++f)
      for (long long c = 0; c < v.c; ++c)
        for (long long a = 0; a < v.kh; ++a)
          for (long long e = 0; e < v.kw; ++e)
            hWp[f * K + (a * v.kw + e) * v.c + c] = hW[((f * v.c + c) * v.kh + a) * v.kw + e];
    float *X, *Wt, *Wp, *Y, *R, *cols;
    CHECK(cudaMalloc(&X, nX * 4));
    CHECK(cudaMalloc(&Wt, nW * 4));
    CHECK(cudaMalloc(&Wp, nW * 4));
    CHECK(cudaMalloc(&Y, nY * 4));
    CHECK(cudaMalloc(&R, nY * 4));
    CHECK(cudaMalloc(&cols, nCols * 4));
    cudaMemcpy(X, hX.data(), nX * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(Wt, hW.data(), nW * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(Wp, hWp.data(), nW * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(R, hY.data(), nY * 4, cudaMemcpyHostToDevice);
    reference<<<(nY + 255) / 256, 256>>>(X, Wt, R, v);
    CHECK(cudaDeviceSynchronize());
    cudaMemcpy(ref.data(), R, nY * 4, cudaMemcpyDeviceToHost);
    double largest = 0;
    for (float x : ref)
      largest = std::max(largest, (double)fabs(x));
    printf("| %lld %lld %lld %lld %lld %lld %lld %lld %lld |", v.n, v.c, v.h, v.w, v.f, v.kh, v.s,
           v.p, v.d);
    const Tail tail(index++, M, nY);
    // Errors over the largest value before the activation (a clamp to
    // [-0.25, 0.5] keeps the outputs small, not the rounding before it).
    std::vector<double> tailRef(nY);
    double tailLargest = 0;
    for (long long i = 0; i < nY; ++i) {
      double y = tail.affine((double)ref[i] - hY[i], i / P % M, i);
      tailRef[i] = tail.activate(y);
      tailLargest = std::max(tailLargest, fabs(y));
    }
    float *Z;
    CHECK(cudaMalloc(&Z, nY * 4));
    for (const Kernel &k : kernels) {
      long long tiles = ((P + 127) / 128) * ((M + k.bm - 1) / k.bm) * v.n;
      long long splits = std::clamp(2 * 132 / tiles, 1LL, std::max(1LL, K / 64));
      CHECK(cudaFuncSetAttribute(k.conv, cudaFuncAttributeMaxDynamicSharedMemorySize, k.shared));
      CHECK(cudaFuncSetAttribute(k.gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, k.shared));
      dim3 grid((P + 127) / 128, (M + k.bm - 1) / k.bm, v.n * splits);
      auto conv = [&](long long beta) {
        if (!beta && splits > 1)
          dlc_gemm_zero<<<dim3((M * P + 255) / 256, 1, v.n), 256>>>(Y, M, P, M * P, P, 1);
        k.conv<<<grid, k.threads, k.shared>>>(Wp, X, Y, M, P, K, 0, K, 1, v.c * v.h * v.w, 0, 1,
                                              M * P, P, 1, splits, beta, P, v.h, v.w, v.c, v.kw,
                                              v.s, v.s, v.p, v.p, v.d, v.d, ow);
      };
      auto check = [&](long long beta) {
        cudaMemcpy(Y, hY.data(), nY * 4, cudaMemcpyHostToDevice);
        conv(beta);
        CHECK(cudaDeviceSynchronize());
        cudaMemcpy(out.data(), Y, nY * 4, cudaMemcpyDeviceToHost);
        double err = 0;
        for (long long i = 0; i < nY; ++i)
          err = std::max(err, (double)fabs(out[i] + (beta ? 0 : hY[i]) - ref[i]));
        return err / largest;
      };
      double err = std::max(check(1), check(0));
      bool ok = err < 5e-3;
      failures += !ok;
      const int reps = 10;
      for (int r = 0; r < 3; ++r)
        conv(0);
      cudaEventRecord(e0);
      for (int r = 0; r < reps; ++r)
        conv(0);
      cudaEventRecord(e1);
      for (int r = 0; r < reps; ++r) {
        im2col<<<(nCols + 255) / 256, 256>>>(X, cols, v);
        if (splits > 1)
          dlc_gemm_zero<<<dim3((M * P + 255) / 256, 1, v.n), 256>>>(Y, M, P, M * P, P, 1);
        k.gemm<<<grid, k.threads, k.shared>>>(Wt, cols, Y, M, P, K, 0, K, 1, K * P, P, 1, M * P,
                                              P, 1, splits, 0, P);
      }
      cudaEventRecord(e2);
      // The GEMM alone, on the columns the last im2col wrote.
      for (int r = 0; r < reps; ++r) {
        if (splits > 1)
          dlc_gemm_zero<<<dim3((M * P + 255) / 256, 1, v.n), 256>>>(Y, M, P, M * P, P, 1);
        k.gemm<<<grid, k.threads, k.shared>>>(Wt, cols, Y, M, P, K, 0, K, 1, K * P, P, 1, M * P,
                                              P, 1, splits, 0, P);
      }
      cudaEventRecord(e3);
      float implicitMs = elapsed(e0, e1) / reps, explicitMs = elapsed(e1, e2) / reps,
            gemmMs = elapsed(e2, e3) / reps;
      printf(" %.1e%s | %.4f | %.4f (%.4f) |", err, ok ? "" : " FAIL", implicitMs, explicitMs,
             gemmMs);

      // The _ep twins (K never split: the compiler gives them whole K),
      // storing into Z; the GEMM's on the columns the last im2col wrote.
      CHECK(cudaFuncSetAttribute(k.convEp, cudaFuncAttributeMaxDynamicSharedMemorySize, k.shared));
      CHECK(cudaFuncSetAttribute(k.gemmEp, cudaFuncAttributeMaxDynamicSharedMemorySize, k.shared));
      dim3 whole((P + 127) / 128, (M + k.bm - 1) / k.bm, v.n);
      auto convEp = [&]() {
        k.convEp<<<whole, k.threads, k.shared>>>(Wp, X, Z, M, P, K, 0, K, 1, v.c * v.h * v.w, 0, 1,
                                                 M * P, P, 1, 1, 0, P, v.h, v.w, v.c, v.kw, v.s,
                                                 v.s, v.p, v.p, v.d, v.d, ow, TAIL_ARGS(tail));
      };
      auto gemmEp = [&]() {
        k.gemmEp<<<whole, k.threads, k.shared>>>(Wt, cols, Z, M, P, K, 0, K, 1, K * P, P, 1, M * P,
                                                 P, 1, 1, 0, P, TAIL_ARGS(tail));
      };
      auto tailError = [&](auto run) {
        CHECK(cudaMemset(Z, 0xff, nY * 4)); // NaNs where nothing is stored
        run();
        CHECK(cudaDeviceSynchronize());
        cudaMemcpy(out.data(), Z, nY * 4, cudaMemcpyDeviceToHost);
        double e = 0;
        for (long long i = 0; i < nY; ++i) {
          double d = fabs(out[i] - tailRef[i]);
          e = std::max(e, d == d ? d : INFINITY);
        }
        return e / tailLargest;
      };
      double convTailErr = tailError(convEp), gemmTailErr = tailError(gemmEp);
      bool tailOk = convTailErr < 5e-3 && gemmTailErr < 5e-3;
      failures += !tailOk;
      for (int r = 0; r < 3; ++r)
        convEp();
      cudaEventRecord(e0);
      for (int r = 0; r < reps; ++r)
        convEp();
      cudaEventRecord(e1);
      for (int r = 0; r < reps; ++r) {
        k.conv<<<whole, k.threads, k.shared>>>(Wp, X, Y, M, P, K, 0, K, 1, v.c * v.h * v.w, 0, 1,
                                               M * P, P, 1, 1, 0, P, v.h, v.w, v.c, v.kw, v.s, v.s,
                                               v.p, v.p, v.d, v.d, ow);
        dlc_gemm_epilogue<<<dim3((M * P + 255) / 256, 1, v.n), 256>>>(Y, Z, M, P, M * P, P, 1,
                                                                     TAIL_ARGS(tail));
      }
      cudaEventRecord(e2);
      printf(" %.1e, %.1e%s | %.4f | %.4f |", convTailErr, gemmTailErr, tailOk ? "" : " FAIL",
             elapsed(e0, e1) / reps, elapsed(e1, e2) / reps);
    }
    printf("\n");
    for (float *p : {X, Wt, Wp, Y, R, cols, Z})
      cudaFree(p);
  }
  printf(failures ? "%d FAILED\n" : "all match\n", failures);
  return failures != 0;
}
