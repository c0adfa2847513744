//===- LibraryGemm.cpp - contractions the CUDA back end's GEMM kernel runs ===//
#include "passes/LibraryGemm.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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

std::optional<dlc::ByteRange> dlc::rangeOf(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
      failed(getStridesAndOffset(type, strides, offset)) || ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t bytes = type.getElementTypeBitWidth() / 8, last = offset;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides))
    last += (size - 1) * stride;
  // Down to the root: subviews and reshapes keep the aligned pointer (their
  // types carry the offset from it); memref.view moves it by a byte shift.
  int64_t shift = 0;
  Value cur = v;
  while (Operation *def = cur.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def))
      break;
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      std::optional<int64_t> s = getConstantIntValue(view.getByteShift());
      if (!s)
        return std::nullopt;
      shift += *s;
      cur = view.getSource();
      continue;
    }
    if (isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(
            def)) {
      cur = def->getOperand(0);
      continue;
    }
    return std::nullopt;
  }
  return ByteRange{cur, shift + offset * bytes, shift + (last + 1) * bytes,
                   memref::isStaticShapeAndContiguousRowMajor(type)};
}

bool dlc::touchesData(Operation *op) {
  return !isMemoryEffectFree(op) && !isa<memref::AllocOp, memref::DeallocOp>(op);
}
