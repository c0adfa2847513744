//===- ParallelScratchOnStack.cpp - a parallel iteration's own buffers -----===//
//
// A buffer allocated inside a parallel loop's iteration and used only there
// (a GEMM cache tile's own column block: dlc-tile-and-vectorize's columns
// built per tile) is needed once per thread at a time. The arena's fixed
// offsets give one copy, shared by every thread; the thread's stack gives
// each its own, for nothing at run time. Such an allocation becomes a
// memref.alloca, in a memref.alloca_scope around the iteration so that the
// stack comes back at each iteration's end (a loop left serial would
// otherwise grow it by one buffer per iteration).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace dlc {
#define GEN_PASS_DEF_PARALLELSCRATCHONSTACK
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// The alloca_scope holding all of `loop`'s iteration, made on first use.
memref::AllocaScopeOp iterationScope(scf::ParallelOp loop) {
  Block *body = loop.getBody();
  if (auto scope = dyn_cast<memref::AllocaScopeOp>(body->front()))
    return scope;
  OpBuilder b(body, body->begin());
  auto scope = b.create<memref::AllocaScopeOp>(loop.getLoc(), TypeRange{});
  Block *inner = b.createBlock(&scope.getBodyRegion());
  while (scope->getNextNode() != body->getTerminator())
    scope->getNextNode()->moveBefore(inner, inner->end());
  b.setInsertionPointToEnd(inner);
  b.create<memref::AllocaScopeReturnOp>(loop.getLoc());
  return scope;
}

/// Whether every use of `v`, and of the views derived from it, is inside
/// `region`: the buffer does not outlive the iteration.
bool usedOnlyIn(Value v, Region &region) {
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    for (Operation *user : x.getUsers()) {
      if (!region.isAncestor(user->getParentRegion()) || isa<scf::YieldOp>(user))
        return false;
      for (Value r : user->getResults())
        if (isa<BaseMemRefType>(r.getType()))
          work.push_back(r);
    }
  }
  return true;
}

struct ParallelScratchOnStackPass
    : dlc::impl::ParallelScratchOnStackBase<ParallelScratchOnStackPass> {
  using ParallelScratchOnStackBase::ParallelScratchOnStackBase;

  void runOnOperation() override {
    SmallVector<memref::AllocOp> scratch;
    getOperation().walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (alloc->getParentOfType<scf::ParallelOp>() && alloc->getNumOperands() == 0 &&
          type.hasStaticShape() &&
          type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8) <=
              maxBytes)
        scratch.push_back(alloc);
    });
    for (memref::AllocOp alloc : scratch) {
      // The outermost parallel loop: its iterations are what threads run.
      scf::ParallelOp loop = alloc->getParentOfType<scf::ParallelOp>();
      while (auto outer = loop->getParentOfType<scf::ParallelOp>())
        loop = outer;
      if (!usedOnlyIn(alloc.getResult(), loop.getRegion()))
        continue;
      memref::AllocaScopeOp scope = iterationScope(loop);
      OpBuilder b(&scope.getBodyRegion().front(), scope.getBodyRegion().front().begin());
      auto alloca = b.create<memref::AllocaOp>(alloc.getLoc(), alloc.getType(),
                                               alloc.getAlignmentAttr());
      alloc.replaceAllUsesWith(alloca.getResult());
      alloc.erase();
    }
    // A stack buffer is never freed by hand.
    getOperation().walk([&](memref::DeallocOp d) {
      if (d.getMemref().getDefiningOp<memref::AllocaOp>())
        d.erase();
    });
  }
};
} // namespace
