// Tensor-core GEMMs for the CUDA back end: C[b] += A[b] * B[b], float32 in
// memory, any strides (so a conv's im2col GEMM with shared weights, a
// transposed B and a plain matmul are one kernel). Two kernels: the WMMA
// one below (any precision, any strides), and at the end dlc_gemm_tf32,
// raw mma.sync for tf32 with contiguous rows, which the compiler picks
// where it applies and M is over 16 (dlc_gemm_tf32_m64 up to 64 rows). Compiled by NVRTC at
// `dlc compile` time for the target chip, with DLC_PRECISION_TF32, _BF16 or
// _FP16 defined: tiles are rounded to that type when staged in shared memory
// and multiplied on tensor cores (WMMA, mma.sync) with float accumulators.
//
// Block tile BM x 128 x 32 (BM 128, or 64 for small M: dlc_gemm_m64), 8
// warps in a 2 x 4 grid, each warp (BM/2) x 32 of C in 16 x 16 fragments.
// Shared memory is dynamic (over the 48 KiB static limit; the runtime
// raises the kernel's maximum): the launch's size must be
// dlc::cudaGemmSharedBytes's (lib/CodeGen/CompileCuda.cpp). Two ways to
// fill it:
// - fast (tf32, unit inner strides): cp.async copies (16 bytes where rows,
//   K or N and the base are multiples of 4 floats, else 4), zero-filled
//   past the edges, double-buffered, the next tile in flight while the
//   current one multiplies;
// - general: bounds-checked element loads (zeros past the edges, any
//   strides, rounding to the staged type), single-buffered.
// The epilogue adds into C through a per-warp staging tile, so whatever C
// held (the bias) is kept, or with `beta` 0 stores into it (the output's
// zero start folded away: dlc-fold-gemm-zero-init). With `splits` > 1 the
// K range is split over grid.z (small-M/N layers would otherwise leave most
// SMs idle) and the parts are added with atomicAdd (onto zeros dlc_gemm_zero
// wrote, with `beta` 0): the sum's order then varies. The tf32 kernels
// (mma.sync, wgmma) also take a batch folded into N (see Folded columns
// below): one GEMM over every image's columns. The _ep twins of
// the tf32 kernels (mma.sync, wgmma; GEMM and conv) apply a conv's
// elementwise tail as they store C (Epilogue below).
// A library (dlc compile --emit=lib) gets only the kernels its launch plan
// names (-DDLC_WANT_<name> each, lib/CodeGen/CompileCuda.cpp); --emit=ptx
// and cubin, and the device tests, define DLC_ALL_KERNELS.
#include <mma.h>
#if defined(DLC_PRECISION_BF16)
#include <cuda_bf16.h>
#elif defined(DLC_PRECISION_FP16)
#include <cuda_fp16.h>
#endif

using namespace nvcuda;

#if defined(DLC_PRECISION_TF32)
typedef float Staged;
typedef wmma::precision::tf32 FragType;
#define WK 8
__device__ inline Staged stage(float v) { return v; }
#elif defined(DLC_PRECISION_BF16)
typedef __nv_bfloat16 Staged;
typedef __nv_bfloat16 FragType;
#define WK 16
__device__ inline Staged stage(float v) { return __float2bfloat16(v); }
#else
typedef half Staged;
typedef half FragType;
#define WK 16
__device__ inline Staged stage(float v) { return __float2half(v); }
#endif

#define BN 128
#define BK 32
// Rows stay 16-byte aligned (cp.async) and 32-byte aligned every 16 rows
// (WMMA), off the same banks.
#define PAD (16 / (int)sizeof(Staged))

// 16 bytes global -> shared, asynchronously; zeros instead where !valid
// (the source is then not read: cp.async's src-size 0).
__device__ inline void copy16(void *smem, const void *gmem, bool valid) {
  unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
               "r"(valid ? 16 : 0));
}

__device__ inline void copy4(void *smem, const void *gmem, bool valid) {
  unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem),
               "r"(valid ? 4 : 0));
}

// This block's share [begin, end) of K, split `split` of `splits`, in whole
// steps of 32 (every kernel's K step), so that only the last split ends
// short of a step.
struct KRange {
  long long begin, end;
};
__device__ inline KRange splitK(long long K, long long splits, long long split) {
  long long steps = (K + 31) / 32, per = (steps + splits - 1) / splits;
  return {split * per * 32, min(K, (split + 1) * per * 32)};
}

// Where every GEMM kernel starts: A, B and C moved to this block's batch
// (grid.z is batches x splits), and the block's share of K.
__device__ inline KRange enterBlock(const float *__restrict__ &A, const float *__restrict__ &B,
                                   float *__restrict__ &C, long long sAb, long long sBb,
                                   long long sCb, long long K, long long splits) {
  const long long b = blockIdx.z / splits;
  A += b * sAb;
  B += b * sBb;
  C += b * sCb;
  return splitK(K, splits, blockIdx.z % splits);
}

// Whether rows of `width` floats, `stride` floats apart from `p`, can be
// copied 16 bytes at a time.
__device__ inline bool wideRows(const float *p, long long stride, long long width) {
  return stride % 4 == 0 && width % 4 == 0 && ((unsigned long long)p & 15) == 0;
}

// Folded columns. A conv's GEMM over a batch (weights A shared by every
// image, B and C one [K or M, P] matrix per image) runs as one GEMM whose N
// is every image's P columns: column n is column n % P of image n / P,
// whose B and C start sBb and sCb floats after image 0's. Per image, N was
// a tile's poor fit on small maps (ResNet-50 at batch 32: 196 columns in
// two 128-wide tiles, 49 in one) and left few tiles, so that K was split.
// The compiler folds only where every offset fits in 32 bits, so the
// division is 32-bit. Unfolded, P is N (grid.z walks the batch): every
// column is then in image 0 of the block's batch, and there is no division
// (64-bit ones at every block's start cost MobileNetV2 at batch 1 a tenth
// of its time).
__device__ inline long long columnOffset(long long n, long long N, long long P,
                                         long long sImage, long long sColumn) {
  if (P == N)
    return n * sColumn;
  unsigned image = (unsigned)n / (unsigned)P;
  return (long long)image * sImage + (long long)((unsigned)n - image * (unsigned)P) * sColumn;
}

// B rows staged 16 bytes at a time also need 4 columns in one image, and
// each image 16-byte aligned.
__device__ inline bool wideColumns(const float *B, long long sBk, long long sBb, long long N,
                                   long long P) {
  return wideRows(B, sBk, P) && (P == N || sBb % 4 == 0);
}

// Implicit GEMM (dlc_conv_*): B is not a buffer but the im2col columns of
// an NCHW input X [C, H, W] per image, gathered into shared memory as the
// tiles are staged; no column buffer exists. K runs over (kh, kw, c), c
// innermost (the compiler permutes the filter to match): where C is a
// multiple of 32, each 32-row K step is one filter tap (kh, kw) over 32
// consecutive channels, so the tap's bounds check and offset are worked
// out once per step and pixel, and the step's rows are planes H W apart
// (else each row works out its own tap). N runs over the output pixels
// (oh, ow), OW to a row, and folded over the batch (P pixels an image,
// images sBb apart: `image`). Outside the input (the conv's zero padding) the
// copies write zeros.
struct ConvGeometry {
  long long H, W, C, KW, sh, sw, ph, pw, dh, dw, OW;
  long long P = 1, image = 0; // pixels an image, floats between images
};

// One thread's PIX output pixels n + 32 e (e < PIX) of B's tile (a warp's
// 32 threads then read 32 consecutive pixels per copy: whole cache lines,
// and conflict-free shared-memory rows): where their receptive fields
// start in the input (y0, x0; far outside for pixels past N, so that every
// tap misses) and their image's offset in X (`base`).
template <int PIX> struct ConvPixels {
  int y0[PIX], x0[PIX], base[PIX];
  __device__ ConvPixels(const ConvGeometry &g, long long n, long long N) {
#pragma unroll
    for (int e = 0; e < PIX; ++e) {
      // 32-bit divisions (see columnOffset): pixels in an image, images in N.
      unsigned p = (unsigned)(n + 32 * e), image = g.P == N ? 0 : p / (unsigned)g.P;
      unsigned q = p - image * (unsigned)g.P, ow = (unsigned)g.OW;
      bool in = n + 32 * e < N;
      y0[e] = in ? (int)(q / ow) * (int)g.sh - (int)g.ph : -(1 << 29);
      x0[e] = in ? (int)(q % ow) * (int)g.sw - (int)g.pw : -(1 << 29);
      base[e] = in ? (int)image * (int)g.image : 0;
    }
  }
};

// Rows k0 + r0 + ROW_STEP i (i < ROWS) x the PIX pixels of `px` into the
// shared tile at `dst` (row r0, the first pixel's column; the others 32
// columns apart; rows `pitch` floats apart), from X (this image's input),
// 4 bytes a copy; zeros outside the input and past kEnd.
template <int ROWS, int ROW_STEP, int PIX>
__device__ inline void gatherColumns(float *dst, int pitch, const float *__restrict__ X,
                                     const ConvGeometry &g, const ConvPixels<PIX> &px,
                                     long long k0, int r0, long long kEnd) {
  const long long plane = g.H * g.W;
  if (g.C % 32 == 0) {
    // One tap for the whole step (K and its splits are whole steps): its
    // offsets once, then plane after plane.
    // 32-bit divisions (K, C and KW are small): 64-bit ones cost a
    // hundred-odd instructions each.
    const unsigned tap = (unsigned)k0 / (unsigned)g.C, c0 = (unsigned)k0 - tap * (unsigned)g.C;
    const int dy = (int)(tap / (unsigned)g.KW) * (int)g.dh;
    const int dx = (int)(tap % (unsigned)g.KW) * (int)g.dw;
    int offset[PIX];
    bool in[PIX];
#pragma unroll
    for (int e = 0; e < PIX; ++e) {
      int y = px.y0[e] + dy, x = px.x0[e] + dx;
      in[e] = (unsigned)y < (unsigned)g.H && (unsigned)x < (unsigned)g.W;
      offset[e] = in[e] ? px.base[e] + y * (int)g.W + x : 0;
    }
#pragma unroll
    for (int i = 0; i < ROWS; ++i) {
      const float *src = X + (c0 + r0 + ROW_STEP * i) * plane;
      float *d = dst + ROW_STEP * i * pitch;
#pragma unroll
      for (int e = 0; e < PIX; ++e)
        copy4(d + 32 * e, in[e] ? src + offset[e] : X, in[e]);
    }
  } else {
    // Few channels (a network's first conv): each row its own tap.
#pragma unroll
    for (int i = 0; i < ROWS; ++i) {
      long long k = k0 + r0 + ROW_STEP * i;
      const unsigned tap = (unsigned)k / (unsigned)g.C;
      const int dy = (int)(tap / (unsigned)g.KW) * (int)g.dh;
      const int dx = (int)(tap % (unsigned)g.KW) * (int)g.dw;
      const float *src = X + ((unsigned)k - tap * (unsigned)g.C) * plane;
      float *d = dst + ROW_STEP * i * pitch;
#pragma unroll
      for (int e = 0; e < PIX; ++e) {
        int y = px.y0[e] + dy, x = px.x0[e] + dx;
        bool in = k < kEnd && (unsigned)y < (unsigned)g.H && (unsigned)x < (unsigned)g.W;
        copy4(d + 32 * e, in ? src + px.base[e] + y * (int)g.W + x : X, in);
      }
    }
  }
}

// The elementwise tail of a conv's GEMM, run by the _ep kernels as they
// store C (dlc-fuse-gemm-epilogue marks it; the compiler passes its parts):
// each output element v of row (filter) m, at offset `at` from C, becomes
//   act(v * scale[m] + shift[m] + res[at] * resScale[m] + resShift[m])
// where a null pointer drops its term; act 0 is none, 1 max(., 0), 2 a
// clamp to [lo, hi] (float bits in the low 32 bits of eLo and eHi). res
// has C's layout and is not C's memory. Only where the kernel stores C
// whole (beta 0, K not split): the compiler runs dlc_gemm_epilogue after
// the other GEMMs.
#define DLC_EPILOGUE_PARAMS                                                                   \
  const float *__restrict__ eScale, const float *__restrict__ eShift,                         \
      const float *__restrict__ eRes, const float *__restrict__ eResScale,                    \
      const float *__restrict__ eResShift, long long eAct, long long eLo, long long eHi
#define DLC_EPILOGUE_ARGS eScale, eShift, eRes, eResScale, eResShift, eAct, eLo, eHi

__device__ inline float floatBits(long long v) {
  union {
    int i;
    float f;
  } u;
  u.i = (int)v;
  return u.f;
}

struct Epilogue {
  const float *__restrict__ scale = nullptr, *__restrict__ shift = nullptr;
  const float *__restrict__ res = nullptr, *__restrict__ resScale = nullptr,
              *__restrict__ resShift = nullptr;
  float lo = 0.0f, hi = 0.0f; // the activation as a clamp: none is (-inf, inf)
  Epilogue() = default;
  // `batchOffset`: the block's image's offset in C (and so in res).
  __device__ Epilogue(DLC_EPILOGUE_PARAMS, long long batchOffset)
      : scale(eScale), shift(eShift), res(eRes ? eRes + batchOffset : nullptr),
        resScale(eResScale), resShift(eResShift),
        lo(eAct == 2 ? floatBits(eLo) : eAct == 1 ? 0.0f : floatBits(0xff800000)),
        hi(eAct == 2 ? floatBits(eHi) : floatBits(0x7f800000)) {}
  // v's tail, r its residual's value (ignored where there is none).
  __device__ float operator()(float v, float r, long long m) const {
    float y = fmaf(v, scale ? scale[m] : 1.0f, shift ? shift[m] : 0.0f);
    if (res)
      y += fmaf(r, resScale ? resScale[m] : 1.0f, resShift ? resShift[m] : 0.0f);
    return fminf(fmaxf(y, lo), hi);
  }
};

// The block's ROWS x COLS tile of C, staged in shared memory at `Cs` (rows
// `pitch` floats apart), out to C row by row: a warp's 32 threads store 32
// consecutive floats of one row, whole cache lines (added atomically
// across K splits, or onto C's start with `beta`). Straight from the
// accumulators, each warp instruction writes pieces of 4 to 8 rows. What
// it gained (H100, test/cuda/conv_kernels.cu and gemm_kernels.cu): the
// mma.sync kernel storing C, 0.21 -> 0.14 ms for a 1x1 stride-2 conv of
// 256 to 512 channels at batch 32, 0.22 -> 0.20 for a 64-channel 3x3; the
// 256-row wgmma tiles 1.04 -> 0.99 ms at 4096^3 and 0.13 -> 0.11 for a
// 256-channel 3x3. The 64-row wgmma tiles (two blocks an SM) lost 5-15%
// and store from their registers, but for their _ep twins.
// A thread keeps one column (THREADS is a multiple of COLS), its offset in
// C (folded columns) worked out once.
// With EP (beta 0, K not split) each element goes through `ep` on the way,
// and the thread reads the residual of U rows ahead of their stores: a read
// of it per store would wait out its latency every time (session 12's
// tail, run as a second pass over the stored tile, was latency-bound at 1-2
// blocks an SM).
//
// storeColumn is the core, for a column whose offset in C the caller worked out: `tid`
// (the thread's index among the THREADS) keeps column tid % COLS, at `cn`
// in C, stored only where `in`.
template <int ROWS, int COLS, int THREADS, bool EP = false>
__device__ inline void storeColumn(const float *Cs, int pitch, float *__restrict__ C,
                                   long long m0, long long M, long long cn, bool in,
                                   long long sCm, long long splits, long long beta,
                                   const Epilogue &ep, int tid) {
  static_assert(THREADS % COLS == 0, "a thread keeps one column");
  const int c = tid % COLS;
  if constexpr (EP) {
    constexpr int STEP = THREADS / COLS, U = 2048 / THREADS;
#pragma unroll 1
    for (int r0 = tid / COLS; r0 < ROWS; r0 += STEP * U) {
      float res[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        int r = r0 + u * STEP;
        long long gm = m0 + r;
        res[u] = r < ROWS && gm < M && in && ep.res ? ep.res[gm * sCm + cn] : 0.0f;
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        int r = r0 + u * STEP;
        long long gm = m0 + r;
        if (r < ROWS && gm < M && in)
          C[gm * sCm + cn] = ep(Cs[r * pitch + c], res[u], gm);
      }
    }
  } else {
#pragma unroll 4
    for (int r = tid / COLS; r < ROWS; r += THREADS / COLS) {
      long long gm = m0 + r;
      if (gm < M && in) {
        float v = Cs[r * pitch + c], *p = &C[gm * sCm + cn];
        if (splits > 1)
          atomicAdd(p, v);
        else
          *p = beta ? *p + v : v;
      }
    }
  }
}

template <int ROWS, int COLS, int THREADS, bool EP = false>
__device__ inline void storeTile(const float *Cs, int pitch, float *__restrict__ C, long long m0,
                                 long long n0, long long M, long long N, long long sCb,
                                 long long sCm, long long sCn, long long P, long long splits,
                                 long long beta, const Epilogue &ep = {}) {
  const long long gn = n0 + threadIdx.x % COLS;
  storeColumn<ROWS, COLS, THREADS, EP>(Cs, pitch, C, m0, M, columnOffset(gn, N, P, sCb, sCn),
                                       gn < N, sCm, splits, beta, ep, threadIdx.x);
}

#define DLC_CONV_PARAMS                                                                       \
  DLC_GEMM_PARAMS, long long H, long long W, long long Cin, long long KW, long long sh,         \
      long long sw, long long ph, long long pw, long long dh, long long dw, long long OW
#define DLC_CONV_GEOMETRY                                                                     \
  ConvGeometry { H, W, Cin, KW, sh, sw, ph, pw, dh, dw, OW, P, sBb }

template <int BM>
__device__ void gemm(const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C, long long M, long long N, long long K, long long sAb,
                     long long sAm, long long sAk, long long sBb, long long sBk, long long sBn,
                     long long sCb, long long sCm, long long sCn, long long splits,
                     long long beta, long long /*P: never folded*/) {
  constexpr int MI = BM / 32; // fragments down a warp's tile
  extern __shared__ __align__(128) unsigned char smem[];
  typedef Staged ATile[BM][BK + PAD];
  typedef Staged BTile[BK][BN + PAD];
  ATile *As = (ATile *)smem;
  BTile *Bs = (BTile *)(smem + 2 * sizeof(ATile));
  float(*Cs)[16 * 16] = (float(*)[16 * 16])(smem + 2 * sizeof(ATile) + 2 * sizeof(BTile));
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / 4, wn = warp % 4;
  const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * BN;
  // The block's batch and share of K (BK is splitK's step of 32).
  const KRange ks = enterBlock(A, B, C, sAb, sBb, sCb, K, splits);
  const long long kBegin = ks.begin, kEnd = ks.end;

  wmma::fragment<wmma::accumulator, 16, 16, WK, float> acc[MI][2];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);

  auto multiply = [&](int buf) {
#pragma unroll
    for (int kk = 0; kk < BK; kk += WK) {
      wmma::fragment<wmma::matrix_a, 16, 16, WK, FragType, wmma::row_major> a[MI];
      wmma::fragment<wmma::matrix_b, 16, 16, WK, FragType, wmma::row_major> bf[2];
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        wmma::load_matrix_sync(a[i], &As[buf][wm * (BM / 2) + i * 16][kk], BK + PAD);
#if defined(DLC_PRECISION_TF32)
        for (int t = 0; t < a[i].num_elements; ++t)
          a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
#endif
      }
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        wmma::load_matrix_sync(bf[j], &Bs[buf][kk][wn * 32 + j * 16], BN + PAD);
#if defined(DLC_PRECISION_TF32)
        for (int t = 0; t < bf[j].num_elements; ++t)
          bf[j].x[t] = wmma::__float_to_tf32(bf[j].x[t]);
#endif
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
          wmma::mma_sync(acc[i][j], a[i], bf[j], acc[i][j]);
    }
  };

#if defined(DLC_PRECISION_TF32)
  // Per operand: 16-byte pieces where rows and K (or N) are multiples of 4
  // floats, else single floats; either way asynchronous and zero-filled.
  const bool wideA = wideRows(A, sAm, K), wideB = wideRows(B, sBk, N);
  const bool fast = sAk == 1 && sBn == 1;
#else
  const bool wideA = false, wideB = false, fast = false;
#endif
  if (fast) {
    auto load = [&](int buf, long long k0) {
      if (wideA) {
        // BM x 32 of A in 16-byte pieces: BM / 32 a thread.
#pragma unroll
        for (int p = 0; p < BM / 32; ++p) {
          int i = tid + p * 256, r = i / (BK / 4), c = (i % (BK / 4)) * 4;
          bool in = m0 + r < M && k0 + c < kEnd;
          copy16(&As[buf][r][c], in ? A + (m0 + r) * sAm + k0 + c : A, in);
        }
      } else {
#pragma unroll 1
        for (int p = 0; p < BM / 8; ++p) {
          int i = tid + p * 256, r = i / BK, c = i % BK;
          bool in = m0 + r < M && k0 + c < kEnd;
          copy4(&As[buf][r][c], in ? A + (m0 + r) * sAm + k0 + c : A, in);
        }
      }
      if (wideB) {
#pragma unroll
        for (int p = 0; p < 4; ++p) {
          int i = tid + p * 256, r = i / (BN / 4), c = (i % (BN / 4)) * 4;
          bool in = k0 + r < kEnd && n0 + c < N;
          copy16(&Bs[buf][r][c], in ? B + (k0 + r) * sBk + n0 + c : B, in);
        }
      } else {
#pragma unroll 1
        for (int p = 0; p < 16; ++p) {
          int i = tid + p * 256, r = i / BN, c = i % BN;
          bool in = k0 + r < kEnd && n0 + c < N;
          copy4(&Bs[buf][r][c], in ? B + (k0 + r) * sBk + n0 + c : B, in);
        }
      }
      asm volatile("cp.async.commit_group;\n" ::);
    };
    if (kBegin < kEnd)
      load(0, kBegin);
    int buf = 0;
    for (long long k0 = kBegin; k0 < kEnd; k0 += BK, buf ^= 1) {
      if (k0 + BK < kEnd) {
        load(buf ^ 1, k0 + BK);
        asm volatile("cp.async.wait_group 1;\n" ::);
      } else {
        asm volatile("cp.async.wait_group 0;\n" ::);
      }
      __syncthreads();
      multiply(buf);
      __syncthreads();
    }
  } else {
    for (long long k0 = kBegin; k0 < kEnd; k0 += BK) {
      // Neighbouring threads read neighbouring addresses: along k where A's
      // rows are contiguous, along m where its columns are (as much for B).
      bool aRows = sAk == 1, bRows = sBn == 1;
      for (int i = tid; i < BM * BK; i += 256) {
        int r = aRows ? i / BK : i % BM, c = aRows ? i % BK : i / BM;
        long long gm = m0 + r, gk = k0 + c;
        As[0][r][c] = stage(gm < M && gk < kEnd ? A[gm * sAm + gk * sAk] : 0.0f);
      }
      for (int i = tid; i < BK * BN; i += 256) {
        int r = bRows ? i / BN : i % BK, c = bRows ? i % BN : i / BK;
        long long gk = k0 + r, gn = n0 + c;
        Bs[0][r][c] = stage(gk < kEnd && gn < N ? B[gk * sBk + gn * sBn] : 0.0f);
      }
      __syncthreads();
      multiply(0);
      __syncthreads();
    }
  }

#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(Cs[warp], acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        long long gm = m0 + wm * (BM / 2) + i * 16 + e / 16, gn = n0 + wn * 32 + j * 16 + e % 16;
        if (gm < M && gn < N) {
          if (splits > 1)
            atomicAdd(&C[gm * sCm + gn * sCn], Cs[warp][e]);
          else
            C[gm * sCm + gn * sCn] = beta ? C[gm * sCm + gn * sCn] + Cs[warp][e] : Cs[warp][e];
        }
      }
      __syncwarp();
    }
}

// Two blocks an SM (registers capped at 128, a few spilled): 4096^3 went
// from 54 to 59 TFLOP/s on an H100.
#define DLC_GEMM_PARAMS                                                                       \
  const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, long long M,   \
      long long N, long long K, long long sAb, long long sAm, long long sAk, long long sBb,     \
      long long sBk, long long sBn, long long sCb, long long sCm, long long sCn, long long splits, \
      long long beta, long long P
#define DLC_GEMM_ARGS A, B, C, M, N, K, sAb, sAm, sAk, sBb, sBk, sBn, sCb, sCm, sCn, splits, beta, P

// C[b] = 0 (M x N, any strides; grid.z the batch): before a GEMM that
// stores its output (beta 0) but splits K, whose parts add atomically.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_zero)
extern "C" __global__ void dlc_gemm_zero(float *__restrict__ C, long long M, long long N,
                                         long long sCb, long long sCm, long long sCn) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N)
    C[blockIdx.z * sCb + i / N * sCm + i % N * sCn] = 0.0f;
}
#endif

// Y[b] = epilogue(X[b]) (M x N, X, Y and the residual in one layout;
// grid.z the batch): a GEMM's fused tail where its kernel cannot run it
// (K split, or the WMMA kernel), after the GEMM.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_epilogue)
extern "C" __global__ void dlc_gemm_epilogue(const float *__restrict__ X, float *__restrict__ Y,
                                             long long M, long long N, long long sCb,
                                             long long sCm, long long sCn, DLC_EPILOGUE_PARAMS) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N)
    return;
  const Epilogue ep(DLC_EPILOGUE_ARGS, blockIdx.z * sCb);
  long long m = i / N, at = blockIdx.z * sCb + m * sCm + i % N * sCn;
  Y[at] = ep(X[at], ep.res ? ep.res[at - blockIdx.z * sCb] : 0.0f, m);
}
#endif

#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm)
extern "C" __global__ void __launch_bounds__(256, 2) dlc_gemm(DLC_GEMM_PARAMS) {
  gemm<128>(DLC_GEMM_ARGS);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_m64)
extern "C" __global__ void __launch_bounds__(256, 2) dlc_gemm_m64(DLC_GEMM_PARAMS) {
  gemm<64>(DLC_GEMM_ARGS);
}
#endif

#if defined(DLC_PRECISION_TF32)
// The tf32 workhorse where A's rows and B's rows are contiguous (every
// conv's im2col GEMM and every matmul here): raw mma.sync m16n8k8 instead
// of WMMA, so fragments come from shared memory with one 32-bit load per
// register in a conflict-free pattern and the warp tile can be 64 x 64
// (32 MMAs per 32 loads, against 16 per 24 above). 4 warps in a 2 x 2
// grid make a 128 x 128 block tile (dlc_gemm_tf32_m64: 64 x 128, warps of
// 32 x 64); K goes by 32 through a 3-stage cp.async pipeline. Shared
// memory: 3 * (BM x 36 + 32 x 136) floats.
#define TS 3
#define TAP 36  // A row stride in floats: banks 4g + t for fragment loads
#define TBP 136 // B row stride: banks 8t + g

__device__ inline unsigned to_tf32(float v) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
  return r;
}

// MI: 16-row fragments down a warp's tile, 4 (128-row blocks) or 2 (64);
// Conv: B is the implicit im2col of an input (ConvGeometry `geo`); EP: C
// stored through `ep` (the _ep kernels: beta 0, K not split).
template <int MI, bool Conv = false, bool EP = false>
__device__ void gemm_tf32(DLC_GEMM_PARAMS, const ConvGeometry &geo = {}, const Epilogue &ep = {}) {
  constexpr int BM = 32 * MI;
  extern __shared__ __align__(128) unsigned char smem[];
  float(*As)[BM][TAP] = (float(*)[BM][TAP])smem;
  float(*Bs)[32][TBP] = (float(*)[32][TBP])(smem + TS * sizeof(float[BM][TAP]));
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = warp / 2, wn = warp % 2; // warp's (16 MI) x 64 of the BM x 128 tile
  const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * 128;
  const KRange ks = enterBlock(A, B, C, sAb, sBb, sCb, K, splits);
  const long long kBegin = ks.begin, kEnd = ks.end;
  const bool wideA = wideRows(A, sAm, K), wideB = wideColumns(B, sBk, sBb, N, P);
  // Conv: each thread stages the same 4 pixel columns every step; GEMM:
  // the same 4 (16-byte copies) or 1 column of B, at `bn` in it.
  const ConvPixels<4> pixels(geo, n0 + tid % 32, Conv ? N : 0);
  const int bc = wideB ? (tid % 32) * 4 : tid;
  const long long bn = Conv ? 0 : columnOffset(n0 + bc, N, P, sBb, 1);

  auto load = [&](int stage, long long k0) {
    if (wideA) {
#pragma unroll
      for (int p = 0; p < BM / 16; ++p) { // BM x 32 floats in 16-byte pieces
        int i = tid + p * 128, r = i / 8, c = (i % 8) * 4;
        bool in = m0 + r < M && k0 + c < kEnd;
        copy16(&As[stage][r][c], in ? A + (m0 + r) * sAm + k0 + c : A, in);
      }
    } else {
#pragma unroll 1
      for (int p = 0; p < BM / 4; ++p) {
        int i = tid + p * 128, r = i / 32, c = i % 32;
        bool in = m0 + r < M && k0 + c < kEnd;
        copy4(&As[stage][r][c], in ? A + (m0 + r) * sAm + k0 + c : A, in);
      }
    }
    if constexpr (Conv) {
      gatherColumns<8, 4>(&Bs[stage][tid / 32][tid % 32], TBP, B, geo, pixels, k0, tid / 32, kEnd);
    } else if (wideB) {
#pragma unroll
      for (int p = 0; p < 8; ++p) { // 32 x 128 floats
        int r = tid / 32 + 4 * p;
        bool in = k0 + r < kEnd && n0 + bc < N;
        copy16(&Bs[stage][r][bc], in ? B + (k0 + r) * sBk + bn : B, in);
      }
    } else {
#pragma unroll 1
      for (int r = 0; r < 32; ++r) {
        bool in = k0 + r < kEnd && n0 + bc < N;
        copy4(&Bs[stage][r][bc], in ? B + (k0 + r) * sBk + bn : B, in);
      }
    }
  };

  float acc[MI][8][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[i][j][e] = 0.0f;

  const long long steps = (kEnd - kBegin + 31) / 32;
  // Prologue: the first TS - 1 tiles in flight (empty groups past the end
  // keep the wait counts uniform).
#pragma unroll
  for (int s = 0; s < TS - 1; ++s) {
    if (s < steps)
      load(s, kBegin + s * 32);
    asm volatile("cp.async.commit_group;\n" ::);
  }
  for (long long step = 0; step < steps; ++step) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(TS - 2));
    __syncthreads();
    // Refill the stage consumed last iteration.
    long long next = step + TS - 1;
    if (next < steps)
      load(next % TS, kBegin + next * 32);
    asm volatile("cp.async.commit_group;\n" ::);
    const int st = step % TS;
#pragma unroll
    for (int kk = 0; kk < 32; kk += 8) {
      unsigned a[MI][4], bf[8][2];
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        const float *p = &As[st][wm * 16 * MI + i * 16 + g][kk + t];
        a[i][0] = to_tf32(p[0]);
        a[i][1] = to_tf32(p[8 * TAP]);
        a[i][2] = to_tf32(p[4]);
        a[i][3] = to_tf32(p[8 * TAP + 4]);
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float *p = &Bs[st][kk + t][wn * 64 + j * 8 + g];
        bf[j][0] = to_tf32(p[0]);
        bf[j][1] = to_tf32(p[4 * TBP]);
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                       "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                       : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]),
                         "+f"(acc[i][j][3])
                       : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]),
                         "r"(bf[j][0]), "r"(bf[j][1]));
    }
  }
  asm volatile("cp.async.wait_group 0;\n" ::);

  // Each thread's accumulators: rows g and g + 8, columns 2t and 2t + 1 of
  // every 16 x 8 tile. Stored over C: through shared memory (the stages
  // are done with; rows 132 floats apart), whole lines at a time. Added
  // into C (beta, split K): straight from the registers, the loads of C
  // all in flight at once (through shared memory they cost more than the
  // scattered stores: 0.44 against 0.27 ms at 256 x 3136 x 64, batch 32).
  if (EP || (beta == 0 && splits == 1)) {
    __syncthreads();
    constexpr int CP = 128 + 4;
    float *Cs = (float *)smem;
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          Cs[(wm * 16 * MI + i * 16 + g + (e / 2) * 8) * CP + wn * 64 + j * 8 + 2 * t + e % 2] =
              acc[i][j][e];
    __syncthreads();
    storeTile<BM, 128, 128, EP>(Cs, CP, C, m0, n0, M, N, sCb, sCm, sCn, P, splits, beta, ep);
    return;
  }
  if constexpr (!EP) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          long long gm = m0 + wm * 16 * MI + i * 16 + g + (e / 2) * 8;
          long long gn = n0 + wn * 64 + j * 8 + 2 * t + e % 2;
          if (gm < M && gn < N) {
            float *c = &C[gm * sCm + columnOffset(gn, N, P, sCb, sCn)];
            if (splits > 1)
              atomicAdd(c, acc[i][j][e]);
            else
              *c = *c + acc[i][j][e];
          }
        }
  }
}

#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_tf32)
extern "C" __global__ void __launch_bounds__(128, 2) dlc_gemm_tf32(DLC_GEMM_PARAMS) {
  gemm_tf32<4>(DLC_GEMM_ARGS);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_tf32_m64)
extern "C" __global__ void __launch_bounds__(128, 3) dlc_gemm_tf32_m64(DLC_GEMM_PARAMS) {
  gemm_tf32<2>(DLC_GEMM_ARGS);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tf32)
extern "C" __global__ void __launch_bounds__(128, 2) dlc_conv_tf32(DLC_CONV_PARAMS) {
  gemm_tf32<4, true>(DLC_GEMM_ARGS, DLC_CONV_GEOMETRY);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tf32_m64)
extern "C" __global__ void __launch_bounds__(128, 3) dlc_conv_tf32_m64(DLC_CONV_PARAMS) {
  gemm_tf32<2, true>(DLC_GEMM_ARGS, DLC_CONV_GEOMETRY);
}
#endif
// The _ep twins: the same, C stored through the epilogue.
#define DLC_EPILOGUE (Epilogue(DLC_EPILOGUE_ARGS, blockIdx.z / splits * sCb))
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_tf32_ep)
extern "C" __global__ void __launch_bounds__(128, 2)
    dlc_gemm_tf32_ep(DLC_GEMM_PARAMS, DLC_EPILOGUE_PARAMS) {
  gemm_tf32<4, false, true>(DLC_GEMM_ARGS, {}, DLC_EPILOGUE);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_gemm_tf32_m64_ep)
extern "C" __global__ void __launch_bounds__(128, 3)
    dlc_gemm_tf32_m64_ep(DLC_GEMM_PARAMS, DLC_EPILOGUE_PARAMS) {
  gemm_tf32<2, false, true>(DLC_GEMM_ARGS, {}, DLC_EPILOGUE);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tf32_ep)
extern "C" __global__ void __launch_bounds__(128, 2)
    dlc_conv_tf32_ep(DLC_CONV_PARAMS, DLC_EPILOGUE_PARAMS) {
  gemm_tf32<4, true, true>(DLC_GEMM_ARGS, DLC_CONV_GEOMETRY, DLC_EPILOGUE);
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tf32_m64_ep)
extern "C" __global__ void __launch_bounds__(128, 3)
    dlc_conv_tf32_m64_ep(DLC_CONV_PARAMS, DLC_EPILOGUE_PARAMS) {
  gemm_tf32<2, true, true>(DLC_GEMM_ARGS, DLC_CONV_GEOMETRY, DLC_EPILOGUE);
}
#endif
#endif

// wgmma needs sm_90a (nvcc's host pass, without __CUDA_ARCH__, declares
// the kernels for a test harness).
#if defined(DLC_PRECISION_TF32) && (defined(__CUDA_ARCH_FEAT_SM90_ALL) || !defined(__CUDA_ARCH__))
#include "gemm_wgmma.cuh"
#include "gemm_tma.cuh"
#include "conv_tma.cuh"
#endif
