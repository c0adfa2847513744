// dlc_gemm_tma: large tf32 GEMMs on Hopper the way cuBLAS and CUTLASS do
// them, included by gemm_tc.cu where it is compiled for sm_90a. C = A B
// (or C += A B with beta) for one batch, A's rows (k) contiguous, and B
// K-major as well: B^T's rows (k) contiguous, which for a row-major B (k
// rows of n) dlc_transpose writes first into scratch bytes after the arena
// (tf32 wgmma takes its operands only K-major). Both operands come by TMA,
// through tensor maps the runtime encodes at create time (the launch's last
// two arguments: A's [M rows, K] and B^T's [N rows, K] in boxes of 128 and
// 256 rows by 32, 128-byte swizzle, zeros outside; their data type
// TFLOAT32, so that the copy rounds to tf32), into 4 stages of a 128 x 256
// x 32 tile (192 KB). Warp group 0 produces (one thread issues the copies
// once a stage is free), warp groups 1 and 2 consume (each m64n256k8
// wgmmas over its 64 rows, both operands through shared-memory
// descriptors), handing stages back and forth on mbarriers: no block-wide
// barrier in the loop and no operand passes through registers, which is
// what bounded dlc_gemm_wgmma (gemm_wgmma.cuh) near 170 TFLOP/s.
// Measured on an H100 (test/cuda/gemm_tma.cu): 4096^3 in 0.358 ms (384
// TFLOP/s; cuBLAS 0.403), 2048^3 0.049, 1024^3 0.024, against 0.82, 0.11
// and 0.068 for dlc_gemm_wgmma; transposing a 4096^2 B 0.049 ms.

// A CUtensorMap (cuda.h), opaque here.
struct alignas(64) DlcTensorMap {
  unsigned long long opaque[16];
};

#define TMA_TM 128
#define TMA_TN 256
#define TMA_STAGES 4
// A stage: TM rows of A and TMA_TN of B^T, 32 floats each (TM 128, or 64
// for dlc_conv_tma_m64).
#define TMA_STAGE_BYTES_TM(TM) (((TM) + TMA_TN) * 32 * 4)
#define TMA_STAGE_BYTES TMA_STAGE_BYTES_TM(TMA_TM)
// Dynamic shared memory of the TMA kernels (dlc::gemmSharedBytes says the
// same): the stages, 1024 bytes to align them, the stages' two barriers.
#define TMA_SHARED_BYTES_TM(TM) (TMA_STAGES * TMA_STAGE_BYTES_TM(TM) + 1024 + 2 * TMA_STAGES * 8)
#define TMA_SHARED_BYTES TMA_SHARED_BYTES_TM(TMA_TM)

__device__ inline void barrierInit(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}
__device__ inline void barrierExpect(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ inline void barrierArrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ inline void barrierWait(unsigned bar, unsigned parity) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "wait:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra wait;\n"
               "}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}
// The box at (x: k, y: row) of `map` into shared memory at `dst`,
// completing on `bar`.
__device__ inline void tmaLoad(unsigned dst, const DlcTensorMap *map, int x, int y,
                               unsigned bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
               "l"(map), "r"(x), "r"(y), "r"(bar)
               : "memory");
}

// The 4-d box at (c, x, y, image) of `map` (a conv's NHWC input) into
// shared memory at `dst`, completing on `bar`; zeros where it hangs over
// the edges (coordinates may be negative).
__device__ inline void tmaLoad4(unsigned dst, const DlcTensorMap *map, int c, int x, int y,
                                int image, unsigned bar) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
               "l"(map), "r"(c), "r"(x), "r"(y), "r"(image), "r"(bar)
               : "memory");
}

// D += A B^T, m64n128k8, both operands through descriptors.
__device__ inline void wgmma_n128_ss(float (&d)[64], unsigned long long a,
                                     unsigned long long b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
               "}, %64, %65, 1, 1, 1;\n"
               : WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32),
                 WGMMA_D8(40), WGMMA_D8(48), WGMMA_D8(56)
               : "l"(a), "l"(b));
}

// D += A B^T, m64n256k8, both operands through descriptors.
__device__ inline void wgmma_n256_ss(float (&d)[128], unsigned long long a,
                                     unsigned long long b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" WGMMA_D128_REGS
               "}, %128, %129, 1, 1, 1;\n"
               : WGMMA_D128_OPERANDS
               : "l"(a), "l"(b));
}

// Bt [N, K] (rows ldt floats apart) = B^T, B [K, N] with rows sBk floats
// apart: 32 x 32 tiles through shared memory, both sides coalesced. Grid
// (ceil(N / 32), ceil(K / 32)), 32 x 8 threads.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_transpose)
extern "C" __global__ void dlc_transpose(const float *__restrict__ B, float *__restrict__ Bt,
                                         long long K, long long N, long long sBk,
                                         long long ldt) {
  __shared__ float tile[32][33];
  long long n = blockIdx.x * 32 + threadIdx.x, k = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
  for (int i = 0; i < 32; i += 8)
    if (k + i < K && n < N)
      tile[threadIdx.y + i][threadIdx.x] = B[(k + i) * sBk + n];
  __syncthreads();
  k = blockIdx.y * 32 + threadIdx.x, n = blockIdx.x * 32 + threadIdx.y;
#pragma unroll
  for (int i = 0; i < 32; i += 8)
    if (n + i < N && k < K)
      Bt[(n + i) * ldt + k] = tile[threadIdx.x][threadIdx.y + i];
}
#endif

// The producer/consumer pipeline of the TMA kernels (dlc_gemm_tma,
// dlc_conv_tma), 384 threads over TMA_STAGES stages of TM rows of A and
// 256 of B^T from `base` (1024-byte aligned, the stages' barriers after
// them): warp group 0 produces, one thread calling `issue(stage, s, bar)`
// for step s once the stage is free (it expects the step's bytes on `bar`
// and starts the copies); warp groups 1 and 2 consume, handing stages
// back and forth on mbarriers, with wgmmas whose operands both come
// through shared-memory descriptors. TM 128: each consumer m64n256k8 over
// its 64 rows of A against all 256 of B^T; TM 64: m64n128k8 over all 64
// rows of A against its 128 of B^T. Returns false in the producer, which
// has nothing left to do, and true in the consumers with their part of the
// tile in `d`.
template <int TM, class Issue>
__device__ inline bool tmaPipeline(float (&d)[TM], unsigned base, int steps, Issue issue) {
  constexpr unsigned stageBytes = TMA_STAGE_BYTES_TM(TM);
  const unsigned full = base + TMA_STAGES * stageBytes, empty = full + TMA_STAGES * 8;
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < TMA_STAGES; ++s) {
      barrierInit(full + 8 * s, 1);  // the producer's arrival, plus the bytes
      barrierInit(empty + 8 * s, 2); // both consumers done with the stage
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid == 0) {
      for (int s = 0; s < steps; ++s) {
        const int st = s % TMA_STAGES;
        // A fresh barrier counts as having completed the phase before.
        barrierWait(empty + 8 * st, ((s / TMA_STAGES) & 1) ^ 1);
        issue(base + st * stageBytes, s, full + 8 * st);
      }
    }
    return false;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
#pragma unroll
  for (int i = 0; i < TM; ++i)
    d[i] = 0.0f;
  // This warp group's rows of A and of B^T in a stage.
  const unsigned aRows = TM == 128 ? (wg - 1) * 64 : 0, bRows = TM == 128 ? 0 : (wg - 1) * 128;
  for (int s = 0; s < steps; ++s) {
    const int st = s % TMA_STAGES;
    barrierWait(full + 8 * st, (s / TMA_STAGES) & 1);
    const unsigned a = base + st * stageBytes + aRows * 128,
                   b = base + st * stageBytes + (TM + bRows) * 128;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) { // k8 slices: 32 bytes along the swizzled rows
      if constexpr (TM == 128)
        wgmma_n256_ss(d, wgmmaDescriptor(a + kk * 32), wgmmaDescriptor(b + kk * 32));
      else
        wgmma_n128_ss(d, wgmmaDescriptor(a + kk * 32), wgmmaDescriptor(b + kk * 32));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    // The previous step's wgmmas are done: its stage goes back.
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    if (s > 0 && tid == 0)
      barrierArrive(empty + 8 * ((s - 1) % TMA_STAGES));
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  return true;
}

// This block's tile (m0: its first row of A, tiles of TM rows; its column
// tile) in groups of 8 tile rows, columns across a group, as
// dlc_gemm_wgmma: blocks running together share A and B tiles in L2.
__device__ inline void tmaTile(int TM, long long &m0, int &tileN) {
  const int numN = gridDim.x, numM = gridDim.y, id = blockIdx.y * numN + blockIdx.x;
  const int first = id / (8 * numN) * 8, size = min(numM - first, 8);
  m0 = (long long)(first + id % (8 * numN) % size) * TM;
  tileN = id % (8 * numN) / size;
}

// The GEMM arguments as for the other kernels (A and B unused: the maps
// say where they are; only C's row stride and beta are read), then the
// maps. Grid (ceil(N / 256), ceil(M / 128)), 384 threads, TMA_SHARED_BYTES.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_tma)
extern "C" __global__ void __launch_bounds__(384, 1)
    dlc_gemm_tma(DLC_GEMM_PARAMS, const __grid_constant__ DlcTensorMap mapA,
                 const __grid_constant__ DlcTensorMap mapB) {
  extern __shared__ __align__(1024) unsigned char tmaSmem[];
  const unsigned raw = (unsigned)__cvta_generic_to_shared(tmaSmem);
  const unsigned base = raw + ((1024 - (raw & 1023)) & 1023); // swizzled stages 1024-aligned
  long long m0;
  int tileN;
  tmaTile(TMA_TM, m0, tileN);
  const long long n0 = (long long)tileN * TMA_TN;
  float d[128];
  if (!tmaPipeline<TMA_TM>(d, base, (int)((K + 31) / 32), [&](unsigned stage, int s, unsigned bar) {
        barrierExpect(bar, TMA_STAGE_BYTES);
        tmaLoad(stage, &mapA, s * 32, (int)m0, bar);
        tmaLoad(stage + TMA_TM * 128, &mapB, s * 32, (int)n0, bar);
      }))
    return;
  // d[4j + e]: row (warp % 4) 16 + g + 8 (e / 2), column 8j + 2t + e % 2
  // (C's columns unit-strided: the compiler checked).
  const int tid = threadIdx.x % 128, row0 = (threadIdx.x / 128 - 1) * 64;
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const bool pairs = sCm % 2 == 0 && ((unsigned long long)C & 7) == 0;
#pragma unroll
  for (int j = 0; j < 32; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const long long r = m0 + row0 + warp * 16 + g + 8 * h, c = n0 + 8 * j + 2 * t;
      float *p = C + r * sCm + c;
      float v0 = d[4 * j + 2 * h], v1 = d[4 * j + 2 * h + 1];
      if (r >= M)
        continue;
      if (pairs && c + 1 < N) {
        if (beta) {
          float2 old = *(float2 *)p;
          v0 += old.x, v1 += old.y;
        }
        *(float2 *)p = make_float2(v0, v1);
      } else {
        if (c < N)
          p[0] = beta ? p[0] + v0 : v0;
        if (c + 1 < N)
          p[1] = beta ? p[1] + v1 : v1;
      }
    }
}
#endif
