// dlc_conv_tma: a conv (ResNet's 3x3 and strided 1x1 ones) as an implicit
// GEMM on Hopper through TMA, included by gemm_tc.cu where it is compiled
// for sm_90a. The NCHW implicit GEMM (dlc_conv_wgmma and the mma.sync
// kernels) gathers its columns 4 bytes a copy, since a tap shifted by a
// pixel is never 16-byte aligned; ResNet-50's 3x3 convs ran there at about
// 60 TFLOP/s, its strided 1x1 ones at 40. Here the input comes
// channels-last (NHWC, which dlc_to_nhwc writes into scratch after the
// arena), so that one K step (one tap, 32 channels) of a pixel is 128
// contiguous bytes, and a block's 256 pixels of B^T are boxes of a 4-d
// tensor map over [images, H, W, C] at the tap's shifted coordinates: TMA
// fills what hangs over the edges (the padding) with zeros and lands the
// rows K-major in the 128-byte swizzle wgmma reads. A strided conv's map
// steps over the input (the map's element strides sw, sh); a strided 1x1
// conv's input is subsampled by dlc_to_nhwc instead (a quarter of the
// bytes written), and the conv runs at stride 1. The pipeline is
// dlc_gemm_tma's (tmaPipeline: a producer warp group, two consumers,
// mbarriers), on the same 128 x 256 x 32 tiles, or 64 x 256 x 32 ones
// (dlc_conv_tma_m64) for convs of 64 filters or fewer.
//
// C = the conv's output [images][M filters][OH, OW] (sCb and sCm its image
// and row strides, sCn 1), A the filter [M, K] with K over (kh, kw, c), c
// innermost (mapA; as the other conv kernels take it). The block's 256
// columns are S = 256 / R boxes of R = BW x BH x BI output pixels (BW
// columns by BH rows by BI images; R a multiple of 8, so that each box
// starts on a 1024-byte swizzle period), box b of tile t being box t S + b
// of the grid of boxes over the output (x fastest, then y, then images):
// the compiler picks the box that wastes least of the tiles (a 56x56 map
// at 8 x 1 x 32, 28x28 at 4 x 2 x 32, 14x14 at 2 x 2 x 32, 7x7 at 7 x 1 x
// 32). C's columns outside the output are not stored. K may be split over
// grid.z (atomicAdd, onto zeros); the _ep twin applies the conv's tail
// (Epilogue, gemm_tc.cu) with K whole.

// Xt [images][OH, OW][C] = X [images][C][H, W] at (oy sh, ox sw): a conv's
// input channels-last for dlc_conv_tma (strides 1: the input as it is; a
// strided 1x1 conv's, subsampled). 32 x 32 tiles of (channels, pixels)
// through shared memory, both sides coalesced. Grid (ceil(OH OW / 32),
// ceil(C / 32), images), 32 x 8 threads.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_to_nhwc)
extern "C" __global__ void dlc_to_nhwc(const float *__restrict__ X, float *__restrict__ Xt,
                                       long long C, long long H, long long W, long long OH,
                                       long long OW, long long sh, long long sw) {
  __shared__ float tile[32][33];
  const unsigned P = (unsigned)(OH * OW);
  X += blockIdx.z * C * H * W;
  Xt += blockIdx.z * (long long)P * C;
  unsigned p = blockIdx.x * 32 + threadIdx.x, c = blockIdx.y * 32 + threadIdx.y;
  // The pixel's offset in X: p itself where nothing is subsampled (a
  // division per element cost the plain copy of a 56x56 map 35%), else
  // through a 32-bit division.
  const bool whole = sh == 1 && sw == 1 && OW == W;
  const unsigned oy = whole ? 0 : p / (unsigned)OW,
                 at = whole ? p : oy * (unsigned)(sh * W) + (p - oy * (unsigned)OW) * (unsigned)sw;
#pragma unroll
  for (int i = 0; i < 32; i += 8)
    if (c + i < C && p < P)
      tile[threadIdx.y + i][threadIdx.x] = X[(c + i) * H * W + at];
  __syncthreads();
  c = blockIdx.y * 32 + threadIdx.x, p = blockIdx.x * 32 + threadIdx.y;
#pragma unroll
  for (int i = 0; i < 32; i += 8)
    if (p + i < P && c < C)
      Xt[(long long)(p + i) * C + c] = tile[threadIdx.x][threadIdx.y + i];
}
#endif

// The conv's geometry (sh, sw: the strides the input map steps by; ph, pw
// the padding before) and the box shape after the GEMM arguments, then
// the maps: A's [M, K] in TM x 32 boxes, the NHWC input's in boxes of 32
// channels by BW sw x BH sh x BI (every sw-th column and sh-th row read).
#define DLC_CONV_TMA_GEOMETRY                                                                 \
  long long cin, long long kw, long long sh, long long sw, long long ph, long long pw,         \
      long long dh, long long dw, long long OH, long long OW, long long images, long long BW,  \
      long long BH, long long BI
#define DLC_CONV_TMA_PARAMS                                                                   \
  DLC_GEMM_PARAMS, DLC_CONV_TMA_GEOMETRY, const __grid_constant__ DlcTensorMap mapA,          \
      const __grid_constant__ DlcTensorMap mapX
// Dynamic shared memory of dlc_conv_tma (TM 128) and dlc_conv_tma_m64
// (TM 64): the TMA kernels' for TM rows of A, then the tile's 256 column
// offsets in C.
#define CONV_TMA_SHARED_BYTES_TM(TM) (TMA_SHARED_BYTES_TM(TM) + 256 * 4)

template <int TM, bool EP>
__device__ void conv_tma(DLC_GEMM_PARAMS, DLC_CONV_TMA_GEOMETRY, const DlcTensorMap &mapA,
                         const DlcTensorMap &mapX, const Epilogue &ep) {
  extern __shared__ __align__(1024) unsigned char convTmaSmem[];
  const unsigned raw = (unsigned)__cvta_generic_to_shared(convTmaSmem);
  const unsigned pad = (1024 - (raw & 1023)) & 1023, base = raw + pad;
  int *columns = (int *)(convTmaSmem + pad + TMA_SHARED_BYTES_TM(TM) - 1024);
  long long m0;
  int tile;
  tmaTile(TM, m0, tile);
  const int R = (int)(BW * BH * BI), S = TMA_TN / R, nbx = (int)((OW + BW - 1) / BW),
            nby = (int)((OH + BH - 1) / BH), boxes = nbx * nby * (int)((images + BI - 1) / BI);
  const int subs = min(S, boxes - tile * S); // boxes in this tile
  // Where each of the tile's columns lies in C (-1: outside the output),
  // worked out once, by the consumers' 256 threads.
  if (threadIdx.x >= 128) {
    const int c = threadIdx.x - 128, b = tile * S + c / R, r = c % R;
    const int x = b % nbx * (int)BW + r % (int)BW,
              y = b / nbx % nby * (int)BH + r / (int)BW % (int)BH,
              image = b / (nbx * nby) * (int)BI + r / (int)(BW * BH);
    columns[c] = c / R < subs && x < OW && y < OH && image < images
                     ? image * (int)sCb + y * (int)OW + x
                     : -1;
  }
  const KRange ks = splitK(K, splits, blockIdx.z);
  float d[TM];
  // (tmaPipeline's barrier publishes `columns` to the consumers.)
  if (!tmaPipeline<TM>(d, base, (int)((ks.end - ks.begin + 31) / 32),
                   [&](unsigned stage, int s, unsigned bar) {
                     // One tap and 32 of its channels (cin is a multiple of 32).
                     const int k0 = (int)ks.begin + 32 * s, tap = k0 / (int)cin,
                               c0 = k0 - tap * (int)cin;
                     const int dy = tap / (int)kw * (int)dh - (int)ph,
                               dx = tap % (int)kw * (int)dw - (int)pw;
                     barrierExpect(bar, TM * 128 + subs * R * 128);
                     tmaLoad(stage, &mapA, k0, (int)m0, bar);
                     for (int q = 0; q < subs; ++q) {
                       const int b = tile * S + q;
                       tmaLoad4(stage + TM * 128 + q * R * 128, &mapX, c0,
                                b % nbx * (int)(BW * sw) + dx, b / nbx % nby * (int)(BH * sh) + dy,
                                b / (nbx * nby) * (int)BI, bar);
                     }
                   }))
    return;
  // Out through shared memory (the stages are done with), a row of the
  // tile at a time, so that a warp stores 32 columns of one filter: runs
  // of BW pixels. Straight from the accumulators (pieces of 8 filters, a
  // scale, a shift and a residual read per element) the _ep twin took 0.20
  // ms for ResNet-50's 3x3 conv of 64 on 56x56 at batch 32, 0.085 without
  // its tail. Only the consumers' 256 threads are left: named barrier 1.
  // The warp group's part of the tile: TM 128, its 64 rows by all 256
  // columns; TM 64, all 64 rows by its 128 columns.
  const int tid = threadIdx.x - 128, row0 = TM == 128 ? tid / 128 * 64 : 0,
            col0 = TM == 128 ? 0 : tid / 128 * 128;
  const int warp = tid % 128 / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  constexpr int CP = TMA_TN + 8; // float2 writes conflict-free
  float *Cs = (float *)(convTmaSmem + pad);
  asm volatile("bar.sync 1, 256;\n" ::: "memory"); // both warp groups done reading
  // d[4j + e]: row (warp % 4) 16 + g + 8 (e / 2) of the part, column 8j +
  // 2t + e % 2.
#pragma unroll
  for (int j = 0; j < TM / 4; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *(float2 *)&Cs[(row0 + warp * 16 + g + 8 * h) * CP + col0 + 8 * j + 2 * t] =
          make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
  asm volatile("bar.sync 1, 256;\n" ::: "memory");
  const int at = columns[tid];
  storeColumn<TM, TMA_TN, 256, EP>(Cs, CP, C, m0, M, at, at >= 0, sCm, splits, beta, ep, tid);
}

#define DLC_CONV_TMA_ARGS                                                                     \
  DLC_GEMM_ARGS, cin, kw, sh, sw, ph, pw, dh, dw, OH, OW, images, BW, BH, BI, mapA, mapX
// Grid (ceil(boxes / S), ceil(M / TM), splits), 384 threads,
// CONV_TMA_SHARED_BYTES_TM(TM). The 64-row tiles (dlc_conv_tma_m64) for
// convs of 64 filters, which leave half of a 128-row tile idle.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tma)
extern "C" __global__ void __launch_bounds__(384, 1) dlc_conv_tma(DLC_CONV_TMA_PARAMS) {
  conv_tma<128, false>(DLC_CONV_TMA_ARGS, {});
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tma_m64)
extern "C" __global__ void __launch_bounds__(384, 1) dlc_conv_tma_m64(DLC_CONV_TMA_PARAMS) {
  conv_tma<64, false>(DLC_CONV_TMA_ARGS, {});
}
#endif
// The _ep twins: the same, C stored through the epilogue.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tma_ep)
extern "C" __global__ void __launch_bounds__(384, 1)
    dlc_conv_tma_ep(DLC_CONV_TMA_PARAMS, DLC_EPILOGUE_PARAMS) {
  conv_tma<128, true>(DLC_CONV_TMA_ARGS, Epilogue(DLC_EPILOGUE_ARGS, 0));
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tma_m64_ep)
extern "C" __global__ void __launch_bounds__(384, 1)
    dlc_conv_tma_m64_ep(DLC_CONV_TMA_PARAMS, DLC_EPILOGUE_PARAMS) {
  conv_tma<64, true>(DLC_CONV_TMA_ARGS, Epilogue(DLC_EPILOGUE_ARGS, 0));
}
#endif
