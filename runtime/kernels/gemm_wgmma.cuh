// dlc_gemm_wgmma*: the tf32 GEMM on Hopper's warpgroup tensor cores (wgmma,
// sm_90a), included by gemm_tc.cu where it is compiled for sm_90a. Same
// contract as dlc_gemm_tf32: C[b] += A[b] * B[b], A's rows (k) and B's rows
// (n) contiguous, any row strides, split K over grid.z with atomicAdd, and
// with beta 0 C = A B.
//
// wgmma takes tf32 operands only K-major (the multiplicand's k contiguous).
// A is (m rows of k) and so qualifies; B (k rows of n) does not. So the kernel
// computes the transposed product C^T = B^T A^T: wgmma's first operand, a
// 64 x 8 slice of B^T, comes from registers (loaded from shared memory in
// the mma.sync fragment order, so B needs no transposing copy), and its
// second operand, BM x 8 of A^T, is A's tile in shared memory read through
// a K-major 128-byte-swizzle descriptor. The accumulators are C^T's: the
// epilogue writes them back transposed.
//
// Block: NWG warpgroups; tile BM (m: 64 or 256) x 64 NWG (n);
// warpgroup w owns n 64w..64w+63 against all BM columns: one m64nBMk8
// wgmma per 8 of K, BM / 2 accumulators a thread. K goes by 32 through
// STAGES shared-memory stages filled by every thread with cp.async
// (zero-filled past the edges), STAGES - 1 tiles ahead: each step waits for
// its wgmmas (wait_group 0; overlapping them within a warpgroup made ptxas
// serialize them, since the next step's fragment loads define wgmma inputs),
// so after the next step's barrier the stage read last step is free. The
// warpgroups overlap each other on the tensor cores. A's stage is BM rows of
// 128 bytes in the 128-byte swizzle (16-byte chunk c of row r at c ^ (r %
// 8)); B's is 32 rows of 64 NWG floats padded by 8 (fragment loads
// conflict-free). Blocks go through the tiles in groups of 8 tile rows, so
// that those running together share A and B tiles in L2.
// Operands are rounded to tf32 (to nearest, as in the mma.sync kernel; the
// tensor cores alone would truncate): B's fragments in registers, A's tile
// in shared memory by the threads that copied it. Truncating made
// MobileNetV2's error 1.8e-2 of its largest output (9e-3 rounded).
//
// Measured on an H100 (test/cuda/gemm_kernels.cu, each kernel alone): 4096^3
// at 146 TFLOP/s adding into C (169 storing it, through shared memory)
// against 121 (124) for dlc_gemm_tf32 and 360-400 for cuBLAS. What
// bounds it: without the copies it ran at 241, with a quarter of the wgmmas
// at 216 (truncating, before the rounding): the cp.async traffic from L2
// (about 5 TB/s, 2 (1/BM + 1/BN) bytes a flop: 256 x 192 tiles did no
// better) and the per-step barrier. TMA multicast across a cluster (fewer
// bytes from L2) and producer/consumer warpgroups on mbarriers (no
// block-wide barrier) are what remain.

__device__ inline unsigned long long wgmmaDescriptor(unsigned sharedAddress) {
  // Start address, leading offset (unused with swizzling: 16), stride
  // between 8-row groups 1024 bytes, 128-byte swizzle; all in 16 bytes.
  return (unsigned long long)((sharedAddress & 0x3FFFF) >> 4) | (1ull << 16) |
         ((unsigned long long)(1024 >> 4) << 32) | (1ull << 62);
}

// One m64nNk8 tf32 wgmma, D += A (registers, 4 a thread) * B (descriptor),
// for N = 64 and 256 (BM / 2 accumulators a thread).
__device__ inline void wgmma_n64(float (&d)[32], const unsigned (&a)[4],
                                 unsigned long long desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
               "}, {%32, %33, %34, %35}, %36, 1, 1, 1;\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}
// The 128 accumulators of an m64n256k8 wgmma: their operand numbers (%0
// to %127) for the instruction's text and their constraints, shared by the
// register-A (below) and shared-memory-A (gemm_tma.cuh) forms.
#define WGMMA_D128_REGS                                                                       \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                   \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "         \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "         \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "         \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "         \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "         \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "   \
  "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "     \
  "%125, %126, %127"
#define WGMMA_D8(i)                                                                           \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]),                 \
      "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WGMMA_D128_OPERANDS                                                                   \
  WGMMA_D8(0), WGMMA_D8(8), WGMMA_D8(16), WGMMA_D8(24), WGMMA_D8(32), WGMMA_D8(40),           \
      WGMMA_D8(48), WGMMA_D8(56), WGMMA_D8(64), WGMMA_D8(72), WGMMA_D8(80), WGMMA_D8(88),     \
      WGMMA_D8(96), WGMMA_D8(104), WGMMA_D8(112), WGMMA_D8(120)

__device__ inline void wgmma_n256(float (&d)[128], const unsigned (&a)[4],
                                 unsigned long long desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" WGMMA_D128_REGS
               "}, {%128, %129, %130, %131}, %132, 1, 1, 1;\n"
               : WGMMA_D128_OPERANDS
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}

template <int BM>
__device__ inline void wgmmaTile(float (&d)[BM / 2], const unsigned (&a)[4],
                                 unsigned long long desc) {
  if constexpr (BM == 64)
    wgmma_n64(d, a, desc);
  else
    wgmma_n256(d, a, desc);
}

// Dynamic shared memory of gemm_wgmma<BM, NWG, STAGES>, 1024 bytes of it
// to align the swizzled tiles (dlc::gemmSharedBytes says the same).
#define WGMMA_SHARED_BYTES(BM, NWG, STAGES) ((STAGES) * ((BM) * 128 + 32 * (64 * (NWG) + 8) * 4) + 1024)

// Conv: B is the implicit im2col of an input (ConvGeometry `geo`, gemm_tc.cu);
// EP: C stored through `ep` (the _ep kernels: beta 0, K not split).
template <int BM, int NWG, int STAGES, bool Conv = false, bool EP = false>
__device__ void gemm_wgmma(DLC_GEMM_PARAMS, const ConvGeometry &geo = {}, const Epilogue &ep = {}) {
  constexpr int ND = BM / 2, TN = 64 * NWG, TP = TN + 8, NT = 128 * NWG;
  extern __shared__ __align__(1024) unsigned char smemRaw[];
  // The swizzle pattern repeats every 1024 bytes from an aligned address.
  unsigned rawAddress = (unsigned)__cvta_generic_to_shared(smemRaw);
  unsigned char *smem = smemRaw + ((1024 - (rawAddress & 1023)) & 1023);
  float *As = (float *)smem; // STAGES x BM x 32, swizzled
  float(*Bs)[32][TP] = (float(*)[32][TP])(smem + STAGES * BM * 128);
  const unsigned asAddress = (unsigned)__cvta_generic_to_shared(As);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int nWarp = (warp / 4) * 64 + (warp % 4) * 16; // this warp's 16 rows of C^T
  // Tiles in groups of 8 tile rows, columns across a group.
  const int numN = gridDim.x, numM = gridDim.y, id = blockIdx.y * numN + blockIdx.x;
  const int first = id / (8 * numN) * 8, size = min(numM - first, 8);
  const long long m0 = (long long)(first + id % (8 * numN) % size) * BM;
  const long long n0 = (long long)(id % (8 * numN) / size) * TN;
  const KRange ks = enterBlock(A, B, C, sAb, sBb, sCb, K, splits);
  const long long kBegin = ks.begin, kEnd = ks.end;
  const bool wideA = wideRows(A, sAm, K), wideB = wideColumns(B, sBk, sBb, N, P);
  // Conv: each thread stages the same 4 pixel columns every step; GEMM:
  // the same 4 columns of B (`bc` on in the tile, at bn[e] in B; with
  // 16-byte copies, one image's).
  const ConvPixels<TN / 32> pixels(geo, n0 + tid % 32, Conv ? N : 0);
  const int bc = (tid % (TN / 4)) * 4;
  long long bn[4];
#pragma unroll
  for (int e = 0; e < 4; ++e)
    bn[e] = Conv ? 0 : columnOffset(n0 + bc + e, N, P, sBb, 1);

  auto load = [&](int stage, long long k0) {
    float *as = As + stage * BM * 32;
#pragma unroll
    for (int p = 0; p < (BM * 8 + NT - 1) / NT; ++p) { // BM rows x 8 chunks
      int i = tid + p * NT, r = i / 8, c = i % 8;
      if (BM * 8 % NT != 0 && i >= BM * 8)
        break;
      float *dst = as + r * 32 + ((c ^ (r & 7)) * 4);
      const float *src = A + (m0 + r) * sAm + k0 + 4 * c;
      if (wideA) {
        bool in = m0 + r < M && k0 + 4 * c < kEnd;
        copy16(dst, in ? src : A, in);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          bool in = m0 + r < M && k0 + 4 * c + e < kEnd;
          copy4(dst + e, in ? src + e : A, in);
        }
      }
    }
    if constexpr (Conv) {
      gatherColumns<32 * 32 / NT, NT / 32>(&Bs[stage][tid / 32][tid % 32], TP, B, geo, pixels, k0,
                                           tid / 32, kEnd);
    } else {
#pragma unroll
      for (int p = 0; p < 4; ++p) { // 32 rows x TN / 4 chunks
        int r = (tid + p * NT) / (TN / 4), c = bc;
        float *dst = &Bs[stage][r][c];
        const float *row = B + (k0 + r) * sBk;
        if (wideB) {
          bool in = k0 + r < kEnd && n0 + c < N;
          copy16(dst, in ? row + bn[0] : B, in);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            bool in = k0 + r < kEnd && n0 + c + e < N;
            copy4(dst + e, in ? row + bn[e] : B, in);
          }
        }
      }
    }
  };

  // wgmma would truncate A to tf32: each thread rounds (to nearest, as the
  // mma.sync kernel does) the 16-byte chunks it copied, once they landed.
  auto roundA = [&](int stage) {
    float *as = As + stage * BM * 32;
#pragma unroll
    for (int p = 0; p < (BM * 8 + NT - 1) / NT; ++p) {
      int i = tid + p * NT, r = i / 8, c = i % 8;
      if (BM * 8 % NT != 0 && i >= BM * 8)
        break;
      float4 *chunk = (float4 *)(as + r * 32 + ((c ^ (r & 7)) * 4));
      float4 v = *chunk;
      v.x = __uint_as_float(to_tf32(v.x)), v.y = __uint_as_float(to_tf32(v.y));
      v.z = __uint_as_float(to_tf32(v.z)), v.w = __uint_as_float(to_tf32(v.w));
      *chunk = v;
    }
  };

  float d[ND];
#pragma unroll
  for (int i = 0; i < ND; ++i)
    d[i] = 0.0f;

  const long long steps = (kEnd - kBegin + 31) / 32;
  constexpr int ahead = STAGES - 1;
#pragma unroll
  for (int s = 0; s < ahead; ++s) {
    if (s < steps)
      load(s, kBegin + s * 32);
    asm volatile("cp.async.commit_group;\n" ::);
  }
  // Each step starts with this thread's chunks of its stage landed and
  // rounded; the next stage's are rounded while the wgmmas run. cp.async
  // and roundA write through the generic proxy, wgmma reads through the
  // async one: hence the proxy fence before the barrier that publishes them.
  asm volatile("cp.async.wait_group %0;\n" ::"n"(ahead - 1));
  roundA(0);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  for (long long s = 0; s < steps; ++s) {
    __syncthreads();
    const int st = s % STAGES;
    long long next = s + ahead;
    if (next < steps)
      load(next % STAGES, kBegin + next * 32);
    asm volatile("cp.async.commit_group;\n" ::);
    unsigned a[4][4];
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const float *p = &Bs[st][kk * 8 + t][nWarp + g];
      a[kk][0] = to_tf32(p[0]);
      a[kk][1] = to_tf32(p[8]);
      a[kk][2] = to_tf32(p[4 * TP]);
      a[kk][3] = to_tf32(p[4 * TP + 8]);
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      wgmmaTile<BM>(d, a[kk], wgmmaDescriptor(asAddress + st * BM * 128 + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    if (s + 1 < steps) {
      asm volatile("cp.async.wait_group %0;\n" ::"n"(ahead - 1));
      roundA((s + 1) % STAGES);
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
  asm volatile("cp.async.wait_group 0;\n" ::);

  // d[4j + e]: C^T row nWarp + g + 8 (e / 2), column 8j + 2t + e % 2. The
  // 256-row tiles go into C through shared memory (the stages are done
  // with; rows TN + 4 floats apart: the scatter is conflict-free), the
  // 64-row ones straight (see storeTile) but for their _ep twins.
  if constexpr (BM == 256 || EP) {
    __syncthreads();
    constexpr int CP = TN + 4;
    float *Cs = (float *)smem;
#pragma unroll
    for (int j = 0; j < ND / 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        Cs[(8 * j + 2 * t + e % 2) * CP + nWarp + g + 8 * (e / 2)] = d[4 * j + e];
    __syncthreads();
    storeTile<BM, TN, NT, EP>(Cs, CP, C, m0, n0, M, N, sCb, sCm, sCn, P, splits, beta, ep);
  } else {
    const long long cn[2] = {columnOffset(n0 + nWarp + g, N, P, sCb, sCn),
                             columnOffset(n0 + nWarp + g + 8, N, P, sCb, sCn)};
#pragma unroll
    for (int j = 0; j < ND / 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        long long gm = m0 + 8 * j + 2 * t + e % 2, gn = n0 + nWarp + g + 8 * (e / 2);
        if (gm < M && gn < N) {
          float *c = &C[gm * sCm + cn[e / 2]];
          if (splits > 1)
            atomicAdd(c, d[4 * j + e]);
          else
            *c = beta ? *c + d[4 * j + e] : d[4 * j + e];
        }
      }
  }
}

// Launch with grid (ceil(N / 64 NWG), ceil(M / BM), batches x splits),
// 128 NWG threads and WGMMA_SHARED_BYTES.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_wgmma)
extern "C" __global__ void __launch_bounds__(256, 1) dlc_gemm_wgmma(DLC_GEMM_PARAMS) {
  gemm_wgmma<256, 2, 4>(DLC_GEMM_ARGS);
}
#endif
// 64-row tiles in 4 stages (103 KB), two blocks an SM: each step's chain
// (barrier, fragment loads, wgmma, wait) is short of work at this size, and
// a second block fills its gaps (8 stages and one block ran 4096^3 at 79
// TFLOP/s, this 140).
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_wgmma_m64)
extern "C" __global__ void __launch_bounds__(256, 2) dlc_gemm_wgmma_m64(DLC_GEMM_PARAMS) {
  gemm_wgmma<64, 2, 4>(DLC_GEMM_ARGS);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_wgmma)
extern "C" __global__ void __launch_bounds__(256, 1) dlc_conv_wgmma(DLC_CONV_PARAMS) {
  gemm_wgmma<256, 2, 4, true>(DLC_GEMM_ARGS, DLC_CONV_GEOMETRY);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_wgmma_m64)
extern "C" __global__ void __launch_bounds__(256, 2) dlc_conv_wgmma_m64(DLC_CONV_PARAMS) {
  gemm_wgmma<64, 2, 4, true>(DLC_GEMM_ARGS, DLC_CONV_GEOMETRY);
}
#endif
// The _ep twins: the same, C stored through the epilogue.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_wgmma_ep)
extern "C" __global__ void __launch_bounds__(256, 1)
    dlc_gemm_wgmma_ep(DLC_GEMM_PARAMS, DLC_EPILOGUE_PARAMS) {
  gemm_wgmma<256, 2, 4, false, true>(DLC_GEMM_ARGS, {}, DLC_EPILOGUE);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_wgmma_m64_ep)
extern "C" __global__ void __launch_bounds__(256, 2)
    dlc_gemm_wgmma_m64_ep(DLC_GEMM_PARAMS, DLC_EPILOGUE_PARAMS) {
  gemm_wgmma<64, 2, 4, false, true>(DLC_GEMM_ARGS, {}, DLC_EPILOGUE);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_wgmma_ep)
extern "C" __global__ void __launch_bounds__(256, 1)
    dlc_conv_wgmma_ep(DLC_CONV_PARAMS, DLC_EPILOGUE_PARAMS) {
  gemm_wgmma<256, 2, 4, true, true>(DLC_GEMM_ARGS, DLC_CONV_GEOMETRY, DLC_EPILOGUE);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_wgmma_m64_ep)
extern "C" __global__ void __launch_bounds__(256, 2)
    dlc_conv_wgmma_m64_ep(DLC_CONV_PARAMS, DLC_EPILOGUE_PARAMS) {
  gemm_wgmma<64, 2, 4, true, true>(DLC_GEMM_ARGS, DLC_CONV_GEOMETRY, DLC_EPILOGUE);
}
#endif
