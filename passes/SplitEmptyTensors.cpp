//===- SplitEmptyTensors.cpp - one tensor.empty per use -------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace dlc {
#define GEN_PASS_DEF_SPLITEMPTYTENSORS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct SplitEmptyTensorsPass : dlc::impl::SplitEmptyTensorsBase<SplitEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp op) { empties.push_back(op); });
    for (tensor::EmptyOp op : empties) {
      // Each use gets a clone in the original's block, right before the op
      // holding the use (not inside its loops: a buffer there would be
      // allocated per iteration; not earlier: the planner starts a buffer's
      // lifetime at its allocation).
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        Operation *at = op->getBlock()->findAncestorOpInBlock(*use.getOwner());
        if (op->hasOneUse() && at == op->getNextNode())
          break;
        OpBuilder b(at);
        use.set(b.clone(*op)->getResult(0));
      }
      if (op->use_empty())
        op->erase();
    }
  }
};
} // namespace
