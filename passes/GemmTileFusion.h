//===- GemmTileFusion.h - elementwise work into a GEMM's cache tiles ------===//
#ifndef DLC_PASSES_GEMMTILEFUSION_H
#define DLC_PASSES_GEMMTILEFUSION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace dlc {
/// An elementwise op after a conv's GEMM reads the GEMM's [N, M/rows,
/// rows, pixels] result through a collapse and an expand to [N, M, H, W].
/// Moving the reshapes past the elementwise op (collapsing its H, W, then
/// expanding its M: upstream's reshape-folding patterns, limited to
/// operands that are reshaped GEMM results) makes it read the GEMM's result
/// directly, in the GEMM's shape, ready for fuseEpilogue. An op reading
/// the valid corner of a padded GEMM result runs over the padding too; a
/// 1x1 conv's pixel-padded input taken from the corner of such a result
/// reads it in place; and an elementwise op computed twice from the same
/// values goes once.
void propagateReshapesToGemms(mlir::func::FuncOp func);

/// The GEMM's cache tiles (`forall`, one result) compute, after their K
/// loop, the tile of the one all-parallel generic that reads the GEMM's
/// whole result through an identity map, in place on the GEMM's tile
/// (the GEMM's value read from the tile op's init): the tile is still in
/// L1/L2 instead of making a trip through memory, and the generic's result
/// needs no buffer of its own. Returns the tile op (to be vectorized) and
/// sets `replaced` to the generic, now erased; null if nothing was fused.
mlir::linalg::LinalgOp fuseEpilogue(mlir::RewriterBase &rewriter, mlir::scf::ForallOp forall,
                                    mlir::Operation *&replaced);

/// The constant fill a GEMM accumulates into, moved into its cache tiles
/// (`forall`): each tile is filled just before its K loop reads it back
/// from L1/L2, instead of one pass writing the whole output to memory
/// first (MobileNetV2 spent 5% of its time in those memsets). Returns the
/// tile's fill (to be vectorized), or null.
mlir::linalg::LinalgOp fuseInitFill(mlir::RewriterBase &rewriter, mlir::scf::ForallOp forall);

/// The linalg op with a reduction (a GEMM, or a conv not yet rewritten
/// into one) whose result `v` is through reshapes and slices, or null.
mlir::linalg::LinalgOp reshapedGemm(mlir::Value v);

/// Whether `op` is a fill whose only use is a contraction's accumulator,
/// which fuseInitFill will move into the contraction's tiles.
bool initOfContraction(mlir::linalg::LinalgOp op);
} // namespace dlc

#endif // DLC_PASSES_GEMMTILEFUSION_H
