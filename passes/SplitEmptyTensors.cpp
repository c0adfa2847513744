//===- SplitEmptyTensors.cpp - one tensor.empty per use -------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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
      // A slice taken from the empty and one inserted back at the same
      // place share a clone: the op computing into the slice then writes
      // the inserted tensor's buffer in place (a split depthwise conv's
      // corner, otherwise computed aside and copied, serially).
      llvm::DenseMap<Operation *, Value> sharedClone;
      for (Operation *user : op->getUsers()) {
        auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
        if (!slice)
          continue;
        for (Operation *other : op->getUsers()) {
          auto insert = dyn_cast<tensor::InsertSliceOp>(other);
          if (insert && insert.getDest() == op.getResult() && !sharedClone.count(insert) &&
              slice.isSameAs(insert, isEqualConstantIntOrValue)) {
            Block *block = op->getBlock();
            Operation *at = block->findAncestorOpInBlock(*slice);
            Operation *insertAt = block->findAncestorOpInBlock(*insert);
            if (insertAt->isBeforeInBlock(at))
              at = insertAt; // the clone must come before both
            Value clone = OpBuilder(at).clone(*op)->getResult(0);
            sharedClone[slice] = sharedClone[insert] = clone;
            break;
          }
        }
      }
      // Each use gets a clone in the original's block, right before the op
      // holding the use (not inside its loops: a buffer there would be
      // allocated per iteration; not earlier: the planner starts a buffer's
      // lifetime at its allocation).
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        if (Value clone = sharedClone.lookup(use.getOwner())) {
          use.set(clone);
          continue;
        }
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
