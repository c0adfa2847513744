//===- LibraryGemm.h - contractions the CUDA back end's GEMM kernel runs --===//
//
// Shared by dlc-map-to-gpu (which leaves these ops in the entry, marked
// dlc.library_gemm, for the compiler to launch runtime/kernels/gemm_tc.cu),
// dlc-fold-gemm-zero-init (which may let that kernel overwrite its output
// instead of adding into zeros), dlc-implicit-gemm (which folds a conv's
// im2col gather into the GEMM that reads it) and dlc-fuse-gemm-epilogue
// (which lets the GEMM kernel run the elementwise op after it).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_LIBRARYGEMM_H
#define DLC_PASSES_LIBRARYGEMM_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

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

/// The attribute dlc-fuse-gemm-epilogue sets on an elementwise
/// linalg.generic that the GEMM kernel just before it runs in its store: a
/// dictionary naming which of the op's inputs plays which part of the
/// kernel's epilogue (see FuseGemmEpilogue.cpp).
inline constexpr const char kGemmEpilogueAttr[] = "dlc.gemm_epilogue";

/// Bytes [begin, end) of `root` (an alloc, a global or the arena argument)
/// that a memref view spans (its hull), and whether it covers them
/// contiguously.
struct ByteRange {
  mlir::Value root;
  int64_t begin = 0, end = 0;
  bool contiguous = false;

  bool same(const ByteRange &o) const {
    return root == o.root && begin == o.begin && end == o.end && contiguous && o.contiguous;
  }
  bool overlaps(const ByteRange &o) const {
    return root == o.root && begin < o.end && o.begin < end;
  }
};

/// The bytes a static memref view spans, read off the view types down to
/// its root; nullopt where a shape, stride or shift is not static.
std::optional<ByteRange> rangeOf(mlir::Value v);

/// Whether `op` reads or writes memory contents (allocs and deallocs do
/// not): the ops that order a GEMM against its neighbours.
bool touchesData(mlir::Operation *op);
} // namespace dlc

#endif // DLC_PASSES_LIBRARYGEMM_H
