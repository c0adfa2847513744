//===- HoistVectorTransfers.cpp - accumulators out of reduction loops -----===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace dlc {
#define GEN_PASS_DEF_HOISTVECTORTRANSFERS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// The buffer a view (subview, reshape) is a view of.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether the read-modify-write of `write`'s tile may leave the loop: the
/// loop writes nothing else, and reads nothing else from the same buffer.
/// (Upstream's hoisting gives up on any transfer through a view; the
/// register tile of a GEMM over filter panels is a view of a view.)
bool onlyTouchOfItsBuffer(scf::ForOp loop, vector::TransferReadOp read,
                          vector::TransferWriteOp write) {
  Value root = rootBuffer(write.getSource());
  WalkResult r = loop.getBody()->walk([&](Operation *op) {
    if (op == read || op == write)
      return WalkResult::advance();
    if (auto other = dyn_cast<vector::TransferReadOp>(op))
      return rootBuffer(other.getSource()) == root ? WalkResult::interrupt()
                                                   : WalkResult::advance();
    if (isMemoryEffectFree(op) || isa<vector::ContractionOp>(op) ||
        op->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects && effects.onlyHasEffect<MemoryEffects::Read>()) {
      SmallVector<MemoryEffects::EffectInstance> reads;
      effects.getEffects(reads);
      for (auto &e : reads)
        if (!e.getValue() || rootBuffer(e.getValue()) == root)
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

/// One accumulator pair out of `loop`, if there is one to move: the loop
/// that replaces it, else null.
scf::ForOp hoistOne(RewriterBase &rewriter, scf::ForOp loop) {
  for (auto write : loop.getBody()->getOps<vector::TransferWriteOp>()) {
    vector::TransferReadOp match;
    for (auto r : loop.getBody()->getOps<vector::TransferReadOp>())
      if (r.getSource() == write.getSource() && r.getIndices() == write.getIndices() &&
          r.getVectorType() == write.getVectorType() &&
          r.getPermutationMap() == write.getPermutationMap() && !r.getMask() &&
          !write.getMask() && r->isBeforeInBlock(write))
        match = r;
    if (!match || !loop.isDefinedOutsideOfLoop(write.getSource()) ||
        !llvm::all_of(write.getIndices(),
                      [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }) ||
        !loop.isDefinedOutsideOfLoop(match.getPadding()) ||
        !onlyTouchOfItsBuffer(loop, match, write))
      continue;
    // Read before the loop, carry the tile through it, write after it.
    rewriter.moveOpBefore(match, loop);
    Value tile = match.getResult();
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, tile, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{write.getVector()};
        });
    if (failed(grown))
      return nullptr;
    auto newLoop = cast<scf::ForOp>(grown->getOperation());
    BlockArgument carried = newLoop.getRegionIterArgs().back();
    rewriter.replaceUsesWithIf(tile, carried, [&](OpOperand &use) {
      return newLoop->isProperAncestor(use.getOwner());
    });
    rewriter.moveOpAfter(write, newLoop);
    rewriter.modifyOpInPlace(write, [&] {
      write.getVectorMutable().assign(newLoop.getResults().back());
    });
    return newLoop;
  }
  return nullptr;
}

/// Whether `write` stores back, unchanged, what `read` loaded from the same
/// place, with nothing written in between: a copy of a tile onto itself.
/// Bufferization leaves these where a forall's result slice is the slice
/// its body wrote in place (the frame of a depthwise conv's padded input:
/// zeros written, read back and written again, each row a store-forwarding
/// stall, a third of MobileNetV2's 7x7 depthwise convs on Zen 5).
bool storesBackItsRead(vector::TransferWriteOp write) {
  auto read = write.getVector().getDefiningOp<vector::TransferReadOp>();
  // On buffers only: a write into a tensor is a new value, not a store.
  if (!read || !isa<MemRefType>(write.getSource().getType()) ||
      read->getBlock() != write->getBlock() || read.getSource() != write.getSource() ||
      read.getIndices() != write.getIndices() ||
      read.getPermutationMap() != write.getPermutationMap() ||
      read.getInBoundsAttr() != write.getInBoundsAttr() || read.getMask() || write.getMask())
    return false;
  for (Operation *op = read->getNextNode(); op != write; op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || !effects.onlyHasEffect<MemoryEffects::Read>())
      return false;
  }
  return true;
}

struct HoistVectorTransfersPass
    : dlc::impl::HoistVectorTransfersBase<HoistVectorTransfersPass> {
  void runOnOperation() override {
    SmallVector<vector::TransferWriteOp> selfCopies;
    getOperation().walk([&](vector::TransferWriteOp write) {
      if (storesBackItsRead(write))
        selfCopies.push_back(write);
    });
    for (vector::TransferWriteOp write : selfCopies) {
      Operation *read = write.getVector().getDefiningOp();
      write->erase();
      if (read->use_empty())
        read->erase();
    }
    linalg::hoistRedundantVectorTransfers(getOperation());
    IRRewriter rewriter(&getContext());
    // Innermost loops first (post-order): a pair moved out of one loop
    // moves again out of its parent when its indices allow.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
      while (scf::ForOp grown = hoistOne(rewriter, loop))
        loop = grown;
    }
  }
};
} // namespace
