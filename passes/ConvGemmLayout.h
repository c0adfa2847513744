//===- ConvGemmLayout.h - the register-tile layout of conv GEMMs ----------===//
//
// Shared by dlc-conv-to-im2col and dlc-conv-to-winograd: both end in GEMMs
// over a constant filter re-packed into row panels and pixels padded to
// whole register tiles, and both record which kernel a conv took for
// `dlc inspect`.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_CONVGEMMLAYOUT_H
#define DLC_PASSES_CONVGEMMLAYOUT_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <string>

namespace dlc {
using namespace mlir;

/// How the GEMM of an inference conv is laid out for the CPU's register
/// tile (`rows` output channels x `lanes` output pixels): the filter is
/// re-packed at compile time into row panels [F'/rows, K, rows] (F' = F
/// rounded up to `rows`, the extra rows zero), so that the tile's `rows`
/// broadcasts are contiguous and every tile is full; the pixels are padded
/// to a multiple of `lanes` in the columns and the output (padding columns
/// hold whatever the buffer held: they are computed and never read). Full
/// tiles everywhere: no peeled remainders, no scalar column. (Small maps
/// once took twice the rows and half the lanes, 49 pixels padded to 56 in
/// 12 x 8 tiles; the 6 x 16 tile over 64 pixels measured faster, session
/// 20. They now take the transposed tile below.)
///
/// With `pixelRows` the tile is transposed: `rows` pixels x `lanes`
/// filters, the filter in panels [F'/lanes, K, lanes] (F' = F rounded up to
/// `lanes`) broadcast-free along the lanes, the pixels padded to a multiple
/// of `rows` and broadcast from the columns (im2col and 1x1 convs pack them
/// into row tiles [P'/rows, K, rows], so that a tile's k steps are
/// contiguous), the output tile stored transposed once its K loop (chunk)
/// is done.
/// ResNet's 7x7 maps pad 49 pixels to 54 instead of 64 (session 22, A/B:
/// ResNet-50 86.1 -> 84.4 ms at 1 thread with Winograd's 49-tile GEMMs
/// included), and to 50 in 5-pixel tiles (session 23: ResNet-50 81.4 ->
/// 80.0 ms at 1 thread, 42.8 -> 42.2 at 2; MobileNetV2 9.29 -> 9.13 at 1).
struct GemmLayout {
  int64_t rows = 0; ///< 0: the plain GEMM
  int64_t lanes = 0;
  bool pixelRows = false;
  /// In a target's layout, narrower pixel tiles (one vector) for GEMMs
  /// whose pixels `lanes` would pad by more than 1/8 beyond them (0: none):
  /// AVX-512's 12 x 32 tiles fall back to 12 x 16 on Winograd's 16 tiles.
  int64_t narrowLanes = 0;
  /// Pixels padded to a multiple of this instead of `lanes` (0: not):
  /// every register tile is `lanes` wide but the last, `tailLanes` wide
  /// (dlc-tile-and-vectorize peels it). Set by layoutFor on row panels,
  /// taken by 1x1 convs' GEMMs.
  int64_t tailLanes = 0;
  /// Filter panels a GEMM needs for a pixel tail (kMinTailPanels, or fewer
  /// for a target of few cores).
  int64_t minTailPanels = 0;
  /// dlc-tile-and-vectorize's K cache tile (its cache-k; 0: unknown): a
  /// GEMM it splits along K takes no pixel tail (see takesDepthWhole).
  int64_t depthTile = 0;
  /// The largest filter (bytes) a GEMM may take the transposed tile in
  /// rows of 7 to 12 pixels for (0: any). See layoutFor.
  int64_t maxTransposedFilterBytes = 0;
  /// The filter panels' width: the tile dim along the filters.
  int64_t panelWidth() const { return pixelRows ? lanes : rows; }
  /// The tile dim along the pixels, which are padded to a multiple of it.
  int64_t pixelTile() const { return pixelRows ? rows : lanes; }
};

inline int64_t roundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

/// Filter panels a GEMM needs for a pixel tail (GemmLayout::tailLanes):
/// its cache tiles, the iterations the threads share, are then single
/// panels over all the pixels, and fewer than this (dlc-tile-and-
/// vectorize's 32 forall iterations) leave threads idle. On the device's
/// Xeon at 16 threads (AVX-512, one process, best of 4 rounds), with all
/// of MobileNetV2's 14x14 1x1 convs in tails (its 64- and 96-filter ones
/// in 8 panels) the model took 1.135x its time before; with 32 panels or
/// more (its 384- and 576-filter expand convs only) 0.999x. On Zen 5 at
/// one and two threads: 0.973 and 0.980 against 0.984 and 0.992.
constexpr int64_t kMinTailPanels = 32;

/// The panels a pixel tail needs on a target of `cores` cores (0: unknown,
/// as for a cross-compiled target): kMinTailPanels, or 4 a core where that
/// is fewer. A native build on a 2-core host then gives MobileNetV2's 64-
/// and 96-filter 14x14 projections (8 and 12 panels, each a thread's
/// iteration) 8-lane tails: 200 pixels instead of 208 (session 59, Zen 4
/// VM, paired rounds: the model 0.988 of its time at one thread, identical
/// copies 0.994-1.006; at two threads even to 0.993).
inline int64_t minTailPanelsFor(int64_t cores) {
  return cores > 0 && 4 * cores < kMinTailPanels ? 4 * cores : kMinTailPanels;
}

/// Whether dlc-tile-and-vectorize takes a row-panel GEMM `depth` deep
/// whole under a K cache tile of `depthTile` (0: unknown, whole), as it
/// must for a peeled pixel tail: up to the tile, or with a tile of 1024
/// or more up to a quarter past it.
inline bool takesDepthWhole(int64_t depth, int64_t depthTile) {
  return depthTile <= 0 || depth <= depthTile || (depthTile >= 1024 && depth <= depthTile * 5 / 4);
}

/// The layout of a conv GEMM of `filters` x `depth` x `pixels` on a target
/// whose register tile is `target` (its pixel tiles `narrowLanes` wide
/// where `lanes` would pad the pixels by more than 1/8 beyond that):
/// transposed (pixelRows: on AVX2 the target's rows of pixels, or one fewer
/// where that pads less; on AVX-512 rows of 14 pixels where 14 divides them
/// for GEMMs at least 256 deep over at least 256 filters, else 7 to 12,
/// whichever pads least, for GEMMs at least 2048 deep, or 160 deep where
/// that pads them at least 1/5 less: 7x7 maps) where that pads the
/// GEMM at least 1/8 less (ResNet's 7x7 maps: 2048 x 54 against 2048 x 64;
/// on AVX2 14x14 maps, 198 against 208 pixels, stay: the transposed tile's
/// store costs more than 5%) and the GEMM has at least 2^19 multiply-adds
/// to pay for packing its columns (LeNet's second conv, 16 x 150 x 100,
/// ran 8% slower), else the target's. Row panels whose pixels `lanes`
/// would pad more than `narrowLanes` do, in fewer than 16 tiles, take a
/// `narrowLanes` tail where they are at least the target's minTailPanels and
/// take their depth whole (tailLanes: MobileNetV2's 14x14 expand convs,
/// 196 pixels as six 32-lane tiles and a 16-lane one, 208 against 224).
/// Not in rows of 7 to 12 where the filter is over the target's
/// maxTransposedFilterBytes (where set: Intel's AVX-512 cores, see
/// dlc::resolveTarget).
GemmLayout layoutFor(const GemmLayout &target, int64_t filters, int64_t depth, int64_t pixels);

/// Pixels padded to whole register tiles; past 16 tiles, to an odd number
/// of them, so that a column block's rows spread over every L1 set (see
/// dlc-tile-and-vectorize), for at most 1/16 more work.
int64_t paddedPixels(int64_t p, int64_t lanes);

/// Output rows per cache tile where dlc-tile-and-vectorize builds an
/// im2col GEMM's columns tile by tile, inside the GEMM's parallel loop
/// (each tile's block is then read from L2 right after it is written,
/// instead of the whole map's columns going through memory: 7.4 MB for
/// ResNet's stem), else 0. It does for one image whose GEMM takes its depth
/// whole (at most `maxDepth`, the GEMM's K cache tile: no partial sums),
/// whose columns overflow L2 (`l2Bytes`; smaller ones stay in cache
/// anyway), in tiles of the fewest whole output rows a multiple of
/// `lanes` pixels wide, whose block fits kMaxFusedColumnBytes (a thread's
/// stack scratch).
int64_t fusedColumnRows(int64_t batch, int64_t depth, int64_t oh, int64_t ow, int64_t lanes,
                        int64_t maxDepth, int64_t l2Bytes);

/// The largest column block fusedColumnRows allows: each thread builds its
/// own on its stack.
constexpr int64_t kMaxFusedColumnBytes = 256 << 10;

/// A buffer of `shape` for padded GEMM operands (not a tensor.empty:
/// dlc-split-empty-tensors would give the columns and their padded home
/// different buffers, and a copy between them).
Value paddedBuffer(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type elem);

/// `v` written into the leading corner of `buf` (same rank, each dim at
/// least as large), through a view of the corner: a producer that computes
/// `v` from nothing (a fill, a bias broadcast) is cloned to write there
/// directly; anything else is copied by a linalg.copy, which
/// dlc-tile-and-vectorize tiles and threads. (A tensor.insert_slice would
/// bufferize into an untiled copy in the entry, which LLVM unrolled into
/// 340 KB of code for MobileNetV2.) `v` may have the corner's dims split
/// (`groups`, as for expand_shape).
Value writeIntoCorner(OpBuilder &b, Location loc, Value v, Value buf,
                      ArrayRef<ReassociationIndices> groups, ArrayRef<int64_t> cornerShape);

/// "filter in R-row panels (F -> F' rows), L-lane tiles (P -> P' UNIT)", or
/// for a pixelRows layout "filter in L-lane panels (F -> F' filters),
/// R-pixel rows (P -> P' UNIT)".
std::string packedKernelName(const GemmLayout &l, int64_t f, int64_t p, int64_t pp,
                             StringRef unit = "pixels");

/// The function attribute listing which kernel each conv became (read by
/// the compiler into the signature's `conv_kernels`).
constexpr llvm::StringLiteral kConvKernelsAttr = "dlc.conv_kernels";

/// Records on the enclosing function which kernel `conv` became (for
/// `dlc inspect`): "NODE: KERNEL", NODE the ONNX node's name.
void recordKernel(Operation *conv, const std::string &kernel);
/// Replaces what an earlier pass recorded for `conv`'s node (nothing if
/// none did: a pool).
void replaceKernel(Operation *conv, const std::string &kernel);
} // namespace dlc

#endif
