//===- LaneBlockTranspose.h - 2-D vector transposes in lane x lane blocks -===//
//
// Used by dlc-lower-vectors: a transposed GEMM register tile (dlc::GemmLayout's
// pixelRows, 14 pixels x 32 filters on AVX-512) is transposed into the NCHW
// output's rows in its epilogue.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_LANEBLOCKTRANSPOSE_H
#define DLC_PASSES_LANEBLOCKTRANSPOSE_H

#include "mlir/IR/PatternMatch.h"

namespace dlc {
/// Adds the pattern lowering a vector.transpose of f32 that swaps its two
/// non-unit dims (the source's last one among them), each at most `lanes`
/// (8 or 16) long or a multiple of it, into `lanes` x `lanes` blocks, each
/// transposed by a fixed network of two-vector shuffles.
void populateLaneBlockTransposePatterns(mlir::RewritePatternSet &patterns, int64_t lanes,
                                        mlir::PatternBenefit benefit);
} // namespace dlc

#endif
