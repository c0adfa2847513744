//===- WidenNarrowFloats.cpp - f16/bf16 reductions computed in f32 --------===//
#include "dialects/DlcDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

namespace dlc {
#define GEN_PASS_DEF_WIDENNARROWFLOATS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
bool isNarrowFloat(Type t) {
  Type e = getElementTypeOrSelf(t);
  return e.isF16() || e.isBF16();
}

/// Ops that accumulate over many elements.
bool accumulates(Operation *op) {
  return isa<dlc::MatMulOp, dlc::GemmOp, dlc::ConvOp, dlc::MaxPoolOp, dlc::AveragePoolOp,
             dlc::GlobalAveragePoolOp, dlc::BatchNormOp, dlc::SoftmaxOp, dlc::LogSoftmaxOp,
             dlc::ReduceOp>(op);
}

struct WidenNarrowFloatsPass : dlc::impl::WidenNarrowFloatsBase<WidenNarrowFloatsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (accumulates(op) && op->getNumResults() == 1 && isNarrowFloat(op->getResult(0).getType()))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Type f32 = b.getF32Type();
      auto castTo = [&](Value v, Type elem) -> Value {
        auto t = cast<RankedTensorType>(v.getType());
        return b.create<dlc::CastOp>(op->getLoc(), t.clone(elem), v, TypeAttr::get(elem));
      };
      for (OpOperand &operand : op->getOpOperands())
        if (isNarrowFloat(operand.get().getType()))
          operand.set(castTo(operand.get(), f32));
      Value result = op->getResult(0);
      auto narrow = cast<RankedTensorType>(result.getType());
      result.setType(narrow.clone(f32));
      b.setInsertionPointAfter(op);
      Value back = castTo(result, narrow.getElementType());
      result.replaceAllUsesExcept(back, back.getDefiningOp());
    }
  }
};
} // namespace
