//===- PlanMemory.cpp - one arena, offsets from liveness ------------------===//
//
// Every memref.alloc in the entry function becomes a memref.view into one
// arena passed as the last argument (static allocs inside sequential loops
// are first hoisted to the top level). A buffer lives from its alloc to the
// last top-level op that touches it or any view of it; buffers whose
// lifetimes do not overlap may share bytes (a GEMM and the elementwise tail
// its kernel runs, dlc-fuse-gemm-epilogue, count as one op). Placement is
// greedy (each buffer into the tightest gap among buffers live at the same
// time) in three orders, the smallest arena kept: largest first, the
// heuristic TFLite's and Glow's planners use, largest size x lifetime
// first, and longest-lived first (passes/MemoryPlanner.h). It lands at or
// close to the lower bound (peak live bytes) on CNNs.
//
//===----------------------------------------------------------------------===//
#include "passes/LibraryGemm.h"
#include "passes/MemoryPlanner.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace dlc {
#define GEN_PASS_DEF_PLANMEMORY
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// Position of the last top-level op that uses `root` or a view derived from it.
int64_t lastUse(Value root, Block &block, const DenseMap<Operation *, int64_t> &pos) {
  int64_t last = -1;
  SmallVector<Value> work{root};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (Operation *user : v.getUsers()) {
      Operation *top = block.findAncestorOpInBlock(*user);
      if (top)
        last = std::max(last, pos.lookup(top));
      // Any memref an op derives from this buffer may alias it.
      for (Value r : user->getResults())
        if (isa<BaseMemRefType>(r.getType()))
          work.push_back(r);
    }
  }
  return last;
}

/// Moves a static alloc out of the sequential loops around it (a chunked
/// conv's im2col buffer in its scf.for), to the entry's top level where the
/// planner sees it: every iteration then reuses one buffer, as it would
/// have reused freed memory. Not out of parallel loops (iterations run at
/// once), and not a buffer that a loop yields (its contents outlive the
/// iteration).
void hoistLoopAllocs(func::FuncOp func) {
  Block &top = func.getBody().front();
  SmallVector<memref::AllocOp> nested;
  func.walk([&](memref::AllocOp alloc) {
    if (alloc->getBlock() != &top && alloc.getType().hasStaticShape() &&
        alloc->getNumOperands() == 0)
      nested.push_back(alloc);
  });
  for (memref::AllocOp alloc : nested) {
    bool movable = true;
    for (Operation *p = alloc->getParentOp(); p != func.getOperation(); p = p->getParentOp())
      movable &= isa<scf::ForOp, scf::IfOp>(p);
    SmallVector<Value> work{alloc.getResult()};
    DenseSet<Value> seen;
    while (movable && !work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      for (Operation *user : v.getUsers()) {
        movable &= !isa<scf::YieldOp>(user);
        for (Value r : user->getResults())
          if (isa<BaseMemRefType>(r.getType()))
            work.push_back(r);
      }
    }
    if (movable)
      alloc->moveBefore(top.findAncestorOpInBlock(*alloc));
  }
}

struct PlanMemoryPass : dlc::impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;

  void runOnOperation() override {
    auto func = dlc::lookupEntry(getOperation(), entry);
    if (!func)
      return signalPassFailure();
    hoistLoopAllocs(func);
    Block &block = func.getBody().front();
    DenseMap<Operation *, int64_t> pos, step;
    int64_t i = 0, steps = 0;
    for (Operation &op : block) {
      pos[&op] = i++;
      step[&op] = steps;
      steps += dlc::touchesData(&op);
    }
    // A GEMM and the elementwise tail it runs in its epilogue
    // (dlc-fuse-gemm-epilogue) are one step: the GEMM writes the tail's
    // output while it reads its operands, so none of their buffers may
    // share bytes.
    for (Operation &op : block) {
      if (!op.hasAttr(dlc::kGemmEpilogueAttr))
        continue;
      Operation *gemm = op.getPrevNode();
      while (gemm && !dlc::touchesData(gemm))
        gemm = gemm->getPrevNode();
      for (Operation *o = gemm ? gemm->getNextNode() : nullptr; o && o != op.getNextNode();
           o = o->getNextNode()) {
        pos[o] = pos[gemm];
        step[o] = step[gemm];
      }
    }
    // The step of each position, for a buffer's last use.
    std::vector<int64_t> stepAt(i, 0);
    for (Operation &op : block)
      stepAt[pos[&op]] = step[&op];

    SmallVector<memref::AllocOp> allocs;
    std::vector<dlc::BufferRequest> requests;
    for (Operation &op : block) {
      auto alloc = dyn_cast<memref::AllocOp>(&op);
      if (!alloc)
        continue;
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        alloc.emitError("cannot plan a buffer without a static identity layout: ")
            << type;
        return signalPassFailure();
      }
      int64_t bytes = type.getNumElements() *
                      std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      int64_t start = pos[&op], last = std::max(start, lastUse(alloc, block, pos));
      requests.push_back({bytes, start, last, step[&op], stepAt[last]});
      allocs.push_back(alloc);
    }
    dlc::MemoryPlan plan = dlc::planMemory(requests, /*alignment=*/64, reuseDistance);

    auto arenaType = MemRefType::get({std::max<int64_t>(plan.arenaBytes, 64)},
                                     IntegerType::get(&getContext(), 8));
    unsigned argIndex = func.getNumArguments();
    func.insertArgument(argIndex, arenaType, {}, func.getLoc());
    Value arena = func.getArgument(argIndex);
    OpBuilder b(&getContext());
    for (auto [alloc, offset] : llvm::zip(allocs, plan.offsets)) {
      b.setInsertionPoint(alloc);
      Value off = b.create<arith::ConstantIndexOp>(alloc.getLoc(), offset);
      Value view = b.create<memref::ViewOp>(alloc.getLoc(), alloc.getType(), arena,
                                            off, ValueRange{});
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    // Planned buffers are never freed one by one.
    SmallVector<memref::DeallocOp> deallocs;
    func.walk([&](memref::DeallocOp d) { deallocs.push_back(d); });
    for (auto d : deallocs)
      d.erase();

    func->setAttr("dlc.arena_bytes", b.getI64IntegerAttr(arenaType.getDimSize(0)));
    func->setAttr("dlc.arena_lower_bound", b.getI64IntegerAttr(plan.lowerBound));
    func->setAttr("dlc.arena_buffers", b.getI64IntegerAttr(allocs.size()));
  }
};
} // namespace
