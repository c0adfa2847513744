//===- DlcBuilder.cpp - building dlc ops from graph passes ----------------===//
#include "passes/DlcBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace dlc;

Value DlcBuilder::splat(RankedTensorType type, double value) {
  Attribute v = isa<FloatType>(type.getElementType())
                    ? Attribute(b.getFloatAttr(type.getElementType(), value))
                    : Attribute(b.getIntegerAttr(type.getElementType(), (int64_t)value));
  return b.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, v));
}

Value DlcBuilder::compare(StringRef predicate, Value x, Value y) {
  return op<CompareOp>({x, y}, {b.getNamedAttr("predicate", b.getStringAttr(predicate))});
}

Value DlcBuilder::cast(Value x, Type to) {
  return op<CastOp>({x}, {b.getNamedAttr("to", TypeAttr::get(to))});
}

Value DlcBuilder::reduce(Value x, StringRef kind, ArrayRef<int64_t> axes, bool keepdims) {
  return op<ReduceOp>({x}, {b.getNamedAttr("kind", b.getStringAttr(kind)),
                            b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
                            b.getNamedAttr("keepdims", b.getBoolAttr(keepdims))});
}

Value DlcBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  if (type(x).getShape() == shape)
    return x;
  return op<ReshapeOp>({x}, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape)),
                             b.getNamedAttr("allowzero", b.getBoolAttr(true))});
}

Value DlcBuilder::expand(Value x, ArrayRef<int64_t> shape) {
  if (type(x).getShape() == shape)
    return x;
  return op<ExpandOp>({x}, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
}

Value DlcBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  return op<TransposeOp>({x}, {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))});
}

Value DlcBuilder::gemm(Value a, Value bv, bool transA, bool transB, double alpha) {
  return op<GemmOp>({a, bv}, {b.getNamedAttr("transA", b.getBoolAttr(transA)),
                              b.getNamedAttr("transB", b.getBoolAttr(transB)),
                              b.getNamedAttr("alpha", b.getF32FloatAttr(alpha))});
}

Value DlcBuilder::sumTo(Value g, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = type(g).getShape();
  if (from == shape)
    return g;
  int64_t lead = from.size() - shape.size();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < (int64_t)from.size(); ++i)
    if (i < lead || (shape[i - lead] == 1 && from[i] != 1))
      axes.push_back(i);
  Value summed = axes.empty() ? g : reduce(g, "sum", axes, /*keepdims=*/true);
  return reshape(summed, shape);
}

StringRef dlc::argRole(func::FuncOp func, unsigned index) {
  auto role = func.getArgAttrOfType<StringAttr>(index, "dlc.role");
  return role ? role.getValue() : "";
}

BlockArgument dlc::addRoleArgument(func::FuncOp func, Type type, StringRef name,
                                   StringRef role, std::optional<unsigned> index) {
  unsigned i = index.value_or(func.getNumArguments());
  Builder b(func.getContext());
  func.insertArgument(i, type,
                      b.getDictionaryAttr({b.getNamedAttr("dlc.role", b.getStringAttr(role)),
                                           b.getNamedAttr("dlc.name", b.getStringAttr(name))}),
                      func.getLoc());
  return func.getArgument(i);
}
