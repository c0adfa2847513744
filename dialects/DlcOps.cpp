//===- DlcOps.cpp - folders and verifiers of dlc ops ----------------------===//
#include "dialects/DlcDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace dlc;

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location>,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  types.push_back(cast<TypedAttr>(adaptor.getValue()).getType());
  return success();
}

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

LogicalResult ClipOp::verify() {
  if (getMin().convertToFloat() > getMax().convertToFloat())
    return emitOpError("min ") << getMin().convertToFloat() << " exceeds max "
                               << getMax().convertToFloat();
  return success();
}

LogicalResult CompareOp::verify() {
  StringRef p = getPredicate();
  if (p != "eq" && p != "lt" && p != "le" && p != "gt" && p != "ge")
    return emitOpError("unknown predicate '") << p << "'";
  if (getElementTypeOrSelf(getLhs().getType()) != getElementTypeOrSelf(getRhs().getType()))
    return emitOpError("operands have different element types");
  return success();
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getInput().getType().getRank();
  // I64Attr reads back unsigned: a negative axis as itself, not 2^64 - 1.
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " out of range for rank " << rank;
  return success();
}

LogicalResult LogSoftmaxOp::verify() {
  int64_t rank = getInput().getType().getRank();
  // I64Attr reads back unsigned: a negative axis as itself, not 2^64 - 1.
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " out of range for rank " << rank;
  return success();
}

LogicalResult ConvGemmOp::verify() {
  for (ArrayRef<int64_t> pair : {getKernelSize(), getOutputSize(), getStrides(), getDilations(),
                                 getPadding()})
    if (pair.size() != 2)
      return emitOpError("kernel_size, output_size, strides, dilations and padding take 2 values");
  MemRefType in = getInput().getType(), w = getFilter().getType(), out = getOutput().getType();
  if (!in.hasStaticShape() || !w.hasStaticShape() || !out.hasStaticShape())
    return emitOpError("needs static shapes");
  ArrayRef<int64_t> k = getKernelSize(), o = getOutputSize();
  if (out.getDimSize(0) != in.getDimSize(0) || out.getDimSize(1) != w.getDimSize(0) ||
      out.getDimSize(2) != o[0] * o[1] || w.getDimSize(1) != k[0] * k[1] * in.getDimSize(1))
    return emitOpError("output [N, F, OH OW] and filter [F, KH KW C] do not match input ")
           << in << ", filter " << w << " and output " << out;
  return success();
}

#define GET_OP_CLASSES
#include "dialects/DlcOps.cpp.inc"
