//===- MaterializeResults.cpp - one buffer per function result ------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace dlc {
#define GEN_PASS_DEF_MATERIALIZERESULTS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct MaterializeResultsPass
    : dlc::impl::MaterializeResultsBase<MaterializeResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      DenseSet<Value> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        Operation *def = v.getDefiningOp();
        bool ownBuffer =
            def && !def->hasTrait<OpTrait::ConstantLike>() && seen.insert(v).second;
        if (!type || ownBuffer)
          continue;
        Value init = b.create<tensor::EmptyOp>(ret.getLoc(), type.getShape(),
                                               type.getElementType());
        operand.set(b.create<linalg::CopyOp>(ret.getLoc(), v, init).getResult(0));
      }
    });
  }
};
} // namespace
