//===- LibraryGemm.h - contractions the CUDA back end's GEMM kernel runs --===//
//
// Shared by dlc-map-to-gpu (which leaves these ops in the entry, marked
// dlc.library_gemm, for the compiler to launch runtime/kernels/gemm_tc.cu),
// dlc-fold-gemm-zero-init (which may let that kernel overwrite its output
// instead of adding into zeros) and dlc-implicit-gemm (which folds a conv's
// im2col gather into the GEMM that reads it).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_LIBRARYGEMM_H
#define DLC_PASSES_LIBRARYGEMM_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace dlc {
/// A float32 contraction (matmul, or a conv's im2col GEMM, with at most one
/// batch dim) of static shape and strides: the tensor-core GEMM kernel's work.
bool isLibraryGemm(mlir::linalg::LinalgOp op);

/// The attribute on a library GEMM whose output starts as zeros that
/// dlc-fold-gemm-zero-init removed: the kernel writes C = A B (no +=).
inline constexpr const char kGemmOverwriteAttr[] = "dlc.gemm_overwrite";

/// The attribute dlc-conv-to-im2col (implicit-gemm) sets on an im2col
/// gather [N, KH, KW, C, OH, OW] that dlc-implicit-gemm may fold into the
/// GEMM reading it: a dictionary of the conv's `strides`, `dilations` and
/// `padding` (top, left).
inline constexpr const char kImplicitGemmColumnsAttr[] = "dlc.implicit_gemm_columns";
} // namespace dlc

#endif // DLC_PASSES_LIBRARYGEMM_H
