//===- TransposedPlanes.h - a plane-by-plane producer writing [N, H, C, W] -===//
#ifndef DLC_PASSES_TRANSPOSEDPLANES_H
#define DLC_PASSES_TRANSPOSEDPLANES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace dlc {
/// `x` [N, C, H, W] transposed to [N, H, C, W], written that way by x's own
/// producer, or null where it cannot be. The producer is an scf.forall
/// that writes x a channel plane (or a few) at a time: it takes [1, c, H,
/// W] slices of its shared output, stores 1-D rows into them at constant
/// (0, channel, row, column) indices and inserts them back (the narrow
/// depthwise kernels of dlc-slide-taps-in-registers, on 7x7 maps). The new
/// forall runs the same body on [1, H, c, W] slices of an [N, H, C, W]
/// output, each row stored at (0, row, channel, column): a transposed GEMM
/// tile's packed rows (dlc-conv-to-im2col, R = W) without the separate
/// transpose, which took 2-3 us per 7x7 projection at one thread and no
/// less at two (it reads what both threads wrote). `x` keeps its value
/// (its producer is left for its other users, or for the canonicalizer).
mlir::Value writePlanesTransposed(mlir::OpBuilder &b, mlir::Value x);
} // namespace dlc

#endif // DLC_PASSES_TRANSPOSEDPLANES_H
