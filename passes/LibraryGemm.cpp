//===- LibraryGemm.cpp - contractions the CUDA back end's GEMM kernel runs ===//
#include "passes/LibraryGemm.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

bool dlc::isLibraryGemm(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || !linalg::isaContractionOpInterface(op) ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return false;
    int64_t offset;
    SmallVector<int64_t> strides;
    if (failed(getStridesAndOffset(type, strides, offset)) ||
        ShapedType::isDynamic(offset) || llvm::any_of(strides, ShapedType::isDynamic))
      return false;
  }
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return false;
  // One batch dim at most: a true one, or (a conv's im2col GEMM, whose
  // weights every image shares) a second N-like dim A does not index.
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  return succeeded(dims) && dims->m.size() == 1 && dims->k.size() == 1 &&
         dims->batch.size() + dims->n.size() <= 2 && !dims->n.empty() &&
         op.getNumLoops() == 2 + dims->batch.size() + dims->n.size();
}
