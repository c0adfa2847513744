// dlc_conv_tma: a stride-1 conv (3x3 and the like) as an implicit GEMM on
// Hopper through TMA, included by gemm_tc.cu where it is compiled for
// sm_90a. The NCHW implicit GEMM (dlc_conv_wgmma and the mma.sync kernels)
// gathers its columns 4 bytes a copy, since a tap shifted by a pixel is
// never 16-byte aligned; ResNet-50's 3x3 convs ran there at about 60
// TFLOP/s. Here the input comes channels-last (NHWC, which dlc_transpose
// writes into scratch after the arena), so that one K step (one tap, 32
// channels) of a pixel is 128 contiguous bytes, and a block's 256 pixels of
// B^T are boxes of a 4-d tensor map over [images, H, W, C] at the tap's
// shifted coordinates: TMA fills what hangs over the edges (the padding)
// with zeros and lands the rows K-major in the 128-byte swizzle wgmma
// reads. The pipeline is dlc_gemm_tma's (tmaPipeline: a producer warp
// group, two consumers, mbarriers), on the same 128 x 256 x 32 tiles.
//
// C = the conv's output [images][M filters][OH, OW] (sCb and sCm its image
// and row strides, sCn 1), A the filter [M, K] with K over (kh, kw, c), c
// innermost (mapA; as the other conv kernels take it). The block's 256
// columns are S = 256 / R boxes of R = BW x BH x BI output pixels (BW
// columns by BH rows by BI images; R a multiple of 8, so that each box
// starts on a 1024-byte swizzle period), box b of tile t being box t S + b
// of the grid of boxes over the output (x fastest, then y, then images):
// the compiler picks the box that wastes least of the tiles (a 56x56 map
// at 8 x 8 x 4, 28x28 at 4 x 4 x 16, 14x14 at 2 x 2 x 32, 7x7 at 7 x 1 x
// 32). C's columns outside the output are not stored. K may be split over
// grid.z (atomicAdd, onto zeros); the _ep twin applies the conv's tail
// (Epilogue, gemm_tc.cu) with K whole.

// The conv's geometry and the box shape after the GEMM arguments, then
// the maps: A's [M, K] in 128 x 32 boxes, the NHWC input's in 32 x BW x
// BH x BI boxes.
#define DLC_CONV_TMA_GEOMETRY                                                                 \
  long long cin, long long kw, long long ph, long long pw, long long dh, long long dw,         \
      long long OH, long long OW, long long images, long long BW, long long BH, long long BI
#define DLC_CONV_TMA_PARAMS                                                                   \
  DLC_GEMM_PARAMS, DLC_CONV_TMA_GEOMETRY, const __grid_constant__ DlcTensorMap mapA,          \
      const __grid_constant__ DlcTensorMap mapX
// Dynamic shared memory of dlc_conv_tma: dlc_gemm_tma's, then the tile's
// 256 column offsets in C.
#define CONV_TMA_SHARED_BYTES (TMA_SHARED_BYTES + 256 * 4)

template <bool EP>
__device__ void conv_tma(DLC_GEMM_PARAMS, DLC_CONV_TMA_GEOMETRY, const DlcTensorMap &mapA,
                         const DlcTensorMap &mapX, const Epilogue &ep) {
  extern __shared__ __align__(1024) unsigned char convTmaSmem[];
  const unsigned raw = (unsigned)__cvta_generic_to_shared(convTmaSmem);
  const unsigned pad = (1024 - (raw & 1023)) & 1023, base = raw + pad;
  int *columns = (int *)(convTmaSmem + pad + TMA_SHARED_BYTES - 1024);
  long long m0;
  int tile;
  tmaTile(m0, tile);
  const int R = (int)(BW * BH * BI), S = TMA_TN / R, nbx = (int)((OW + BW - 1) / BW),
            nby = (int)((OH + BH - 1) / BH), boxes = nbx * nby * (int)((images + BI - 1) / BI);
  const int subs = min(S, boxes - tile * S); // boxes in this tile
  // Where each of the tile's columns lies in C (-1: outside the output),
  // worked out once, by the consumers' 256 threads.
  if (threadIdx.x >= 128) {
    const int c = threadIdx.x - 128, b = tile * S + c / R, r = c % R;
    const int x = b % nbx * (int)BW + r % (int)BW, y = b / nbx % nby * (int)BH + r / (int)BW % (int)BH,
              image = b / (nbx * nby) * (int)BI + r / (int)(BW * BH);
    columns[c] = c / R < subs && x < OW && y < OH && image < images
                     ? image * (int)sCb + y * (int)OW + x
                     : -1;
  }
  const KRange ks = splitK(K, splits, blockIdx.z);
  float d[128];
  // (tmaPipeline's barrier publishes `columns` to the consumers.)
  if (!tmaPipeline(d, base, (int)((ks.end - ks.begin + 31) / 32),
                   [&](unsigned stage, int s, unsigned bar) {
                     // One tap and 32 of its channels (cin is a multiple of 32).
                     const int k0 = (int)ks.begin + 32 * s, tap = k0 / (int)cin,
                               c0 = k0 - tap * (int)cin;
                     const int dy = tap / (int)kw * (int)dh - (int)ph,
                               dx = tap % (int)kw * (int)dw - (int)pw;
                     barrierExpect(bar, TMA_TM * 128 + subs * R * 128);
                     tmaLoad(stage, &mapA, k0, (int)m0, bar);
                     for (int q = 0; q < subs; ++q) {
                       const int b = tile * S + q;
                       tmaLoad4(stage + TMA_TM * 128 + q * R * 128, &mapX, c0,
                                b % nbx * (int)BW + dx, b / nbx % nby * (int)BH + dy,
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
  const int tid = threadIdx.x - 128, row0 = tid / 128 * 64;
  const int warp = tid % 128 / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  constexpr int CP = TMA_TN + 8; // float2 writes conflict-free
  float *Cs = (float *)(convTmaSmem + pad);
  asm volatile("bar.sync 1, 256;\n" ::: "memory"); // both warp groups done reading
  // d[4j + e]: row (warp % 4) 16 + g + 8 (e / 2) of this warp group's 64,
  // column 8j + 2t + e % 2.
#pragma unroll
  for (int j = 0; j < 32; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *(float2 *)&Cs[(row0 + warp * 16 + g + 8 * h) * CP + 8 * j + 2 * t] =
          make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
  asm volatile("bar.sync 1, 256;\n" ::: "memory");
  const int at = columns[tid];
  storeColumn<TMA_TM, TMA_TN, 256, EP>(Cs, CP, C, m0, M, at, at >= 0, sCm, splits, beta, ep,
                                       tid);
}

#define DLC_CONV_TMA_ARGS                                                                     \
  DLC_GEMM_ARGS, cin, kw, ph, pw, dh, dw, OH, OW, images, BW, BH, BI, mapA, mapX
// Grid (ceil(boxes / S), ceil(M / 128), splits), 384 threads,
// CONV_TMA_SHARED_BYTES.
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tma)
extern "C" __global__ void __launch_bounds__(384, 1) dlc_conv_tma(DLC_CONV_TMA_PARAMS) {
  conv_tma<false>(DLC_CONV_TMA_ARGS, {});
}
#endif
#if defined(DLC_ALL_KERNELS) || defined(DLC_WANT_dlc_conv_tma_ep)
extern "C" __global__ void __launch_bounds__(384, 1)
    dlc_conv_tma_ep(DLC_CONV_TMA_PARAMS, DLC_EPILOGUE_PARAMS) {
  conv_tma<true>(DLC_CONV_TMA_ARGS, Epilogue(DLC_EPILOGUE_ARGS, 0));
}
#endif
