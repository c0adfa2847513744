// The tf32 GEMM and conv kernels (runtime/kernels/gemm_tc.cu,
// gemm_wgmma.cuh) with a batch folded into N ("Folded columns" in
// gemm_tc.cu) against the same kernels one image a grid.z slice, on the
// conv GEMMs of ResNet-50 and MobileNetV2 at batch 32 (weights shared over
// the batch). Each layer runs as a model runs it (CompileCuda's
// finishGemmLaunch): K split by dlc's rule for the kernel's tile count, and
// then zeroed first and its tail (BatchNorm's scale and shift, a residual,
// ReLU) applied by dlc_gemm_epilogue after; whole K, the kernel's _ep twin.
// The convs over 32 channels or a multiple also run as dlc_conv_tma
// (conv_tma.cuh) does them: the input copied to NHWC (dlc_to_nhwc; a
// strided 1x1 conv's subsampled), then the TMA kernel over boxes of the
// shape the compiler picks (convTmaBox, CompileCuda.cpp), split or with its
// _ep twin by the same rule for one block an SM (64-row tiles,
// dlc_conv_tma_m64, for 64 filters or fewer).
// Every result against a float64 reference with the tail applied (largest
// error over largest value before ReLU, within 5e-3 for tf32), then timed.
// Not part of the test suite (no GPU there).
//
// Here:   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a \
//           -Iruntime/kernels test/cuda/folded_kernels.cu -o devrun/folded_kernels \
//           -L/usr/local/cuda/lib64/stubs -lcuda
// Device: devrun/folded_kernels [convs]   (through the device tool, carrying
//         devrun/; `convs`: the implicit-GEMM convs alone)
#define DLC_PRECISION_TF32
#define DLC_ALL_KERNELS
#include "cuda_check.h"
#include "gemm_tc.cu"
#include "tensor_map.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

// A layer: a GEMM (kh 0: B is [n, K, P], K = c) or a conv (B is the input
// [n, c, h, w], K = c kh kw in the implicit kernels' (kh, kw, c) order).
struct Layer {
  long long n, c, h, w, f, kh, s, p;
  __host__ __device__ long long oh() const { return kh ? (h + 2 * p - kh) / s + 1 : h; }
  __host__ __device__ long long ow() const { return kh ? (w + 2 * p - kh) / s + 1 : w; }
  __host__ __device__ long long P() const { return oh() * ow(); }
  __host__ __device__ long long K() const { return kh ? c * kh * kh : c; }
};

// Y[b, f, q] = sum_k W[f, k] col(b, k, q), in double (the conv's columns in
// (kh, kw, c) order, zeros outside the input).
__global__ void reference(const float *X, const float *Wt, double *Y, Layer v) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x, P = v.P(), K = v.K();
  if (i >= v.n * v.f * P)
    return;
  long long q = i % P, f = i / P % v.f, b = i / (P * v.f);
  double s = 0;
  for (long long k = 0; k < K; ++k) {
    float x;
    if (!v.kh) {
      x = X[(b * K + k) * P + q];
    } else {
      long long tap = k / v.c, c = k % v.c, a = tap / v.kh, e = tap % v.kh;
      long long y = q / v.ow() * v.s - v.p + a, xx = q % v.ow() * v.s - v.p + e;
      x = y >= 0 && y < v.h && xx >= 0 && xx < v.w ? X[((b * v.c + c) * v.h + y) * v.w + xx] : 0;
    }
    s += (double)Wt[f * K + k] * x;
  }
  Y[i] = s;
}

typedef void (*Plain)(DLC_CONV_PARAMS);
typedef void (*Twin)(DLC_CONV_PARAMS, DLC_EPILOGUE_PARAMS);
typedef void (*PlainGemm)(DLC_GEMM_PARAMS);
typedef void (*TwinGemm)(DLC_GEMM_PARAMS, DLC_EPILOGUE_PARAMS);
struct Kernel {
  const char *name;
  PlainGemm gemm;
  TwinGemm gemmEp;
  Plain conv;
  Twin convEp;
  int bm, threads, shared;
  int blocksPerSM = 2; // what dlc's split rule aims at
};
Kernel kernels[] = {
    {"mma.sync", dlc_gemm_tf32, dlc_gemm_tf32_ep, dlc_conv_tf32, dlc_conv_tf32_ep, 128, 128,
     3 * (128 * 36 + 32 * 136) * 4},
    {"mma.sync64", dlc_gemm_tf32_m64, dlc_gemm_tf32_m64_ep, dlc_conv_tf32_m64,
     dlc_conv_tf32_m64_ep, 64, 128, 3 * (64 * 36 + 32 * 136) * 4},
    {"wgmma256", dlc_gemm_wgmma, dlc_gemm_wgmma_ep, dlc_conv_wgmma, dlc_conv_wgmma_ep, 256, 256,
     WGMMA_SHARED_BYTES(256, 2, 4)},
    {"wgmma64", dlc_gemm_wgmma_m64, dlc_gemm_wgmma_m64_ep, dlc_conv_wgmma_m64,
     dlc_conv_wgmma_m64_ep, 64, 256, WGMMA_SHARED_BYTES(64, 2, 4)},
    // The 256-row tiles run one block an SM: K split half as much.
    {"wgmma256 (splits for 1 block an SM)", dlc_gemm_wgmma, dlc_gemm_wgmma_ep, dlc_conv_wgmma,
     dlc_conv_wgmma_ep, 256, 256, WGMMA_SHARED_BYTES(256, 2, 4), 1},
};

// The box of output pixels (BW x BH x BI, a multiple of 8 and at most 256,
// spanning at most 256 input columns and rows at strides sw, sh) that
// wastes least of dlc_conv_tma's 256-column tiles: the same rule as
// convTmaBox in lib/CodeGen/CompileCuda.cpp.
void convTmaBox(long long oh, long long ow, long long n, long long sh, long long sw,
                long long box[3], long long &tiles) {
  double best = -1;
  for (long long bw = 1; bw <= std::min(ow, 256 / sw); ++bw)
    for (long long bh = 1; bh <= std::min(oh, std::min(256 / bw, 256 / sh)); ++bh)
      for (long long bi = 1; bi <= std::min(n, 256 / (bw * bh)); ++bi) {
        long long r = bw * bh * bi;
        if (r % 8)
          continue;
        long long boxes = ((ow + bw - 1) / bw) * ((oh + bh - 1) / bh) * ((n + bi - 1) / bi);
        long long t = (boxes + 256 / r - 1) / (256 / r);
        // The least waste, then the fewest boxes a tile (TMA copies), then
        // the widest (C's stores).
        double use = (double)(ow * oh * n) / (t * 256) + r * 1e-6 + bw * 1e-9;
        if (use > best)
          best = use, box[0] = bw, box[1] = bh, box[2] = bi, tiles = t;
      }
}

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  return ms;
}

int main(int argc, char **argv) {
  Layer layers[] = {
      // ResNet-50: 1x1 convs as GEMMs, then its 3x3 and strided convs.
      {32, 64, 56, 56, 256, 0, 1, 0},   {32, 256, 56, 56, 64, 0, 1, 0},
      {32, 128, 28, 28, 512, 0, 1, 0},  {32, 512, 28, 28, 128, 0, 1, 0},
      {32, 256, 14, 14, 1024, 0, 1, 0}, {32, 1024, 14, 14, 256, 0, 1, 0},
      {32, 512, 7, 7, 2048, 0, 1, 0},   {32, 2048, 7, 7, 512, 0, 1, 0},
      {32, 64, 56, 56, 64, 3, 1, 1},    {32, 128, 28, 28, 128, 3, 1, 1},
      {32, 256, 14, 14, 256, 3, 1, 1},  {32, 512, 7, 7, 512, 3, 1, 1},
      {32, 256, 28, 28, 256, 3, 2, 1},  {32, 512, 14, 14, 512, 3, 2, 1},
      {32, 256, 56, 56, 512, 1, 2, 0},  {32, 512, 28, 28, 1024, 1, 2, 0},
      {32, 1024, 14, 14, 2048, 1, 2, 0}, {32, 128, 56, 56, 128, 3, 2, 1},
      {32, 3, 224, 224, 64, 7, 2, 3},   {32, 3, 224, 224, 32, 3, 2, 1},
      // MobileNetV2's 1x1 convs on 14x14 and 7x7 maps.
      {32, 64, 14, 14, 384, 0, 1, 0},   {32, 384, 14, 14, 96, 0, 1, 0},
      {32, 160, 7, 7, 960, 0, 1, 0},    {32, 960, 7, 7, 160, 0, 1, 0},
      {32, 320, 7, 7, 1280, 0, 1, 0},
      // Odd shapes for dlc_conv_tma: filters short of a tile, boxes over the
      // edges, a 5x5 kernel.
      {3, 32, 9, 11, 40, 3, 1, 1},      {2, 64, 10, 10, 200, 5, 1, 2}};
  // `folded_kernels convs`: only the implicit-GEMM convs.
  const bool convsOnly = argc > 1 && !strcmp(argv[1], "convs");
  int failures = 0;
  srand(1);
  printf("| layer (n c h w f k s) | M | P | K |");
  for (const Kernel &k : kernels)
    printf(" %s per image ms | folded ms |", k.name);
  printf(" to NHWC ms | dlc_conv_tma ms | box |\n");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (const Layer &v : layers) {
    if (convsOnly && !v.kh)
      continue;
    const long long P = v.P(), K = v.K(), M = v.f, nb = v.n;
    const long long nX = v.kh ? nb * v.c * v.h * v.w : nb * K * P, nW = M * K, nY = nb * M * P;
    std::vector<float> hX(nX), hW(nW), hScale(M), hShift(M), hRes(nY), out(nY);
    for (auto *vec : {&hX, &hW, &hRes})
      for (float &x : *vec)
        x = rand() / (float)RAND_MAX * 2 - 1;
    for (long long m = 0; m < M; ++m)
      hScale[m] = 0.5f + rand() / (float)RAND_MAX, hShift[m] = rand() / (float)RAND_MAX - 0.5f;
    float *X, *Wt, *Y, *Z, *scale, *shift, *res;
    double *R;
    CHECK(cudaMalloc(&X, nX * 4));
    CHECK(cudaMalloc(&Wt, nW * 4));
    CHECK(cudaMalloc(&Y, nY * 4));
    CHECK(cudaMalloc(&Z, nY * 4));
    CHECK(cudaMalloc(&res, nY * 4));
    CHECK(cudaMalloc(&scale, M * 4));
    CHECK(cudaMalloc(&shift, M * 4));
    CHECK(cudaMalloc(&R, nY * 8));
    cudaMemcpy(X, hX.data(), nX * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(Wt, hW.data(), nW * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(res, hRes.data(), nY * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(scale, hScale.data(), M * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(shift, hShift.data(), M * 4, cudaMemcpyHostToDevice);
    reference<<<(nY + 255) / 256, 256>>>(X, Wt, R, v);
    CHECK(cudaDeviceSynchronize());
    std::vector<double> ref(nY);
    cudaMemcpy(ref.data(), R, nY * 8, cudaMemcpyDeviceToHost);
    double largest = 0;
    for (long long i = 0; i < nY; ++i) {
      long long m = i / P % M;
      ref[i] = ref[i] * hScale[m] + hShift[m] + hRes[i];
      largest = std::max(largest, fabs(ref[i]));
      ref[i] = std::max(ref[i], 0.0);
    }
    // Whether `launch`, run once over NaNs, stores the reference (a
    // failure counted if not); then its mean time over 20 runs, in ms.
    auto matches = [&](auto launch) {
      CHECK(cudaMemset(Z, 0xff, nY * 4)); // NaNs where nothing is stored
      launch();
      CHECK(cudaDeviceSynchronize());
      cudaMemcpy(out.data(), Z, nY * 4, cudaMemcpyDeviceToHost);
      double err = 0;
      for (long long i = 0; i < nY; ++i) {
        double d = fabs(out[i] - ref[i]);
        err = std::max(err, d == d ? d : INFINITY);
      }
      bool ok = err / largest < 5e-3;
      failures += !ok;
      return ok;
    };
    auto timeMs = [&](auto launch) {
      for (int r = 0; r < 3; ++r)
        launch();
      const int reps = 20;
      cudaEventRecord(e0);
      for (int r = 0; r < reps; ++r)
        launch();
      cudaEventRecord(e1);
      CHECK(cudaEventSynchronize(e1));
      CHECK(cudaGetLastError());
      return elapsed(e0, e1) / reps;
    };
    printf("| %lld %lld %lld %lld %lld %lld %lld | %lld | %lld | %lld |", v.n, v.c, v.h, v.w, v.f,
           v.kh, v.s, M, P, K);
    const long long sBb = v.kh ? v.c * v.h * v.w : K * P, sCb = M * P;
    for (const Kernel &k : kernels) {
      for (void *f : {(void *)k.gemm, (void *)k.gemmEp, (void *)k.conv, (void *)k.convEp})
        CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, k.shared));
      for (int folded = 0; folded < 2; ++folded) {
        const long long N = folded ? nb * P : P, batches = folded ? 1 : nb;
        const long long tiles = ((N + 127) / 128) * ((M + k.bm - 1) / k.bm) * batches;
        const long long splits =
            std::clamp(k.blocksPerSM * 132 / tiles, 1LL, std::max(1LL, K / 64));
        const dim3 grid((N + 127) / 128, (M + k.bm - 1) / k.bm, batches * splits);
        auto run = [&]() {
#define GEMM_ARGS Wt, X, splits > 1 ? Y : Z, M, N, K, 0, K, 1, sBb, P, 1, sCb, P, 1, splits, 0, P
#define CONV_ARGS GEMM_ARGS, v.h, v.w, v.c, v.kh, v.s, v.s, v.p, v.p, 1, 1, v.ow()
#define TAIL scale, shift, res, nullptr, nullptr, 1, 0, 0
          if (splits > 1) {
            dlc_gemm_zero<<<dim3((M * P + 255) / 256, 1, nb), 256>>>(Y, M, P, sCb, P, 1);
            if (v.kh)
              k.conv<<<grid, k.threads, k.shared>>>(CONV_ARGS);
            else
              k.gemm<<<grid, k.threads, k.shared>>>(GEMM_ARGS);
            dlc_gemm_epilogue<<<dim3((M * P + 255) / 256, 1, nb), 256>>>(Y, Z, M, P, sCb, P, 1,
                                                                        TAIL);
          } else if (v.kh) {
            k.convEp<<<grid, k.threads, k.shared>>>(CONV_ARGS, TAIL);
          } else {
            k.gemmEp<<<grid, k.threads, k.shared>>>(GEMM_ARGS, TAIL);
          }
        };
        const bool ok = matches(run);
        printf(" %.4f%s%s |", timeMs(run), splits > 1 ? " (split)" : "", ok ? "" : " FAIL");
      }
    }
    if (v.kh && v.c % 32 == 0) {
      // dlc_conv_tma: X in NHWC (Xt; a strided 1x1 conv's subsampled, then
      // run at stride 1), maps over the filter and Xt.
      const bool sub = v.kh == 1 && v.p == 0;
      const long long xh = sub ? v.oh() : v.h, xw = sub ? v.ow() : v.w, st = sub ? 1 : v.s;
      long long box[3], tiles;
      convTmaBox(v.oh(), v.ow(), nb, st, st, box, tiles);
      // 64-row tiles for 64 filters or fewer (dlc_conv_tma_m64), as the
      // compiler picks.
      const long long TM = M <= 64 ? 64 : 128;
      const long long tilesMN = tiles * ((M + TM - 1) / TM);
      const long long splits = std::clamp(132 / tilesMN, 1LL, std::max(1LL, K / 64));
      const int shared = TM == 64 ? CONV_TMA_SHARED_BYTES_TM(64) : CONV_TMA_SHARED_BYTES_TM(128);
      const auto plainKernel = TM == 64 ? dlc_conv_tma_m64 : dlc_conv_tma;
      const auto epKernel = TM == 64 ? dlc_conv_tma_m64_ep : dlc_conv_tma_ep;
      float *Xt;
      CHECK(cudaMalloc(&Xt, nX * 4));
      const cuuint64_t aDims[2] = {(cuuint64_t)K, (cuuint64_t)M}, aStrides[1] = {(cuuint64_t)K * 4};
      const cuuint32_t aBox[2] = {32, (cuuint32_t)TM}, ones[2] = {1, 1};
      const cuuint64_t xDims[4] = {(cuuint64_t)v.c, (cuuint64_t)xw, (cuuint64_t)xh,
                                   (cuuint64_t)nb};
      const cuuint64_t xStrides[3] = {(cuuint64_t)v.c * 4, (cuuint64_t)(xw * v.c * 4),
                                      (cuuint64_t)(xh * xw * v.c * 4)};
      const cuuint32_t xBox[4] = {32, (cuuint32_t)(box[0] * st), (cuuint32_t)(box[1] * st),
                                  (cuuint32_t)box[2]},
                       xSteps[4] = {1, (cuuint32_t)st, (cuuint32_t)st, 1};
      const DlcTensorMap mapA = encodeTensorMap(Wt, 2, aDims, aStrides, aBox, ones),
                         mapX = encodeTensorMap(Xt, 4, xDims, xStrides, xBox, xSteps);
      for (void *f : {(void *)plainKernel, (void *)epKernel})
        CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
      const dim3 grid(tiles, (M + TM - 1) / TM, splits);
      auto transpose = [&] {
        dlc_to_nhwc<<<dim3((xh * xw + 31) / 32, (v.c + 31) / 32, nb), dim3(32, 8)>>>(
            X, Xt, v.c, v.h, v.w, xh, xw, v.s / st, v.s / st);
      };
      auto conv = [&] {
#define TMA_ARGS(C)                                                                           \
  Wt, Xt, C, M, nb * P, K, 0, K, 1, 0, 0, 0, sCb, P, 1, splits, 0, P, v.c, v.kh, st, st,       \
      sub ? 0 : v.p, sub ? 0 : v.p, 1, 1, v.oh(), v.ow(), nb, box[0], box[1], box[2], mapA, mapX
        if (splits > 1) {
          dlc_gemm_zero<<<dim3((M * P + 255) / 256, 1, nb), 256>>>(Y, M, P, sCb, P, 1);
          plainKernel<<<grid, 384, shared>>>(TMA_ARGS(Y));
          dlc_gemm_epilogue<<<dim3((M * P + 255) / 256, 1, nb), 256>>>(Y, Z, M, P, sCb, P, 1,
                                                                      TAIL);
        } else {
          epKernel<<<grid, 384, shared>>>(TMA_ARGS(Z), TAIL);
        }
      };
      const bool ok = matches([&] { transpose(), conv(); });
      const float tMs = timeMs(transpose), cMs = timeMs(conv);
      printf(" %.4f | %.4f%s%s | %lld x %lld x %lld |", tMs, cMs, splits > 1 ? " (split)" : "",
             ok ? "" : " FAIL", box[0], box[1], box[2]);
      cudaFree(Xt);
    } else {
      printf(" - | - | - |");
    }
    printf("\n");
    for (void *p : {(void *)X, (void *)Wt, (void *)Y, (void *)Z, (void *)res, (void *)scale,
                    (void *)shift, (void *)R})
      cudaFree(p);
  }
  printf(failures ? "%d FAILED\n" : "all match\n", failures);
  return failures != 0;
}
