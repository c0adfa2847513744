//===- Rematerialize.cpp - recompute cheap tensors at their late uses -----===//
//
// A train step keeps forward activations alive until the backward pass
// reads them; every byte kept that way is a byte of arena the planner
// cannot share. Recomputing a value right before its late use ends the
// original's life at its last early use. This pass recomputes one op per
// use and only where nothing else has to live longer for it (see
// Passes.td); whether that lowers the arena is the planner's call, so
// --mem-budget runs the pipeline with and without it and keeps what fits.
// Recomputed values are bit-identical to the originals (same ops, same
// inputs), so training under a budget follows the same trajectory.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/RegionUtils.h"

namespace dlc {
#define GEN_PASS_DEF_REMATERIALIZE
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kRecomputed = "dlc.recomputed";

int64_t tensorBytes(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return -1;
  return t.getNumElements() * std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

/// Arithmetic ops one execution of `op` runs: loop trip count times the
/// body's ops for a linalg op, none for a pad (a copy). -1 when unknown.
int64_t flopsOf(Operation *op) {
  if (isa<tensor::PadOp>(op))
    return 0;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return -1;
  std::optional<SmallVector<int64_t, 4>> ranges = linalgOp.getStaticLoopRanges();
  if (!ranges)
    return -1;
  int64_t trips = 1;
  for (int64_t r : *ranges) {
    if (ShapedType::isDynamic(r))
      return -1;
    trips *= r;
  }
  int64_t bodyOps = 0;
  for (Operation &inner : linalgOp.getBlock()->without_terminator())
    bodyOps += !isa<linalg::IndexOp>(inner) && !matchPattern(&inner, m_Constant());
  return trips * bodyOps;
}

struct RematerializePass : dlc::impl::RematerializeBase<RematerializePass> {
  using RematerializeBase::RematerializeBase;

  DenseMap<Operation *, int64_t> pos;
  Block *block = nullptr;

  void number() {
    pos.clear();
    int64_t i = 0;
    for (Operation &op : *block)
      pos[&op] = i++;
  }

  int64_t position(Operation *user) {
    Operation *top = block->findAncestorOpInBlock(*user);
    return top ? pos.lookup(top) : -1;
  }

  /// Whether `v` can be read at top-level position `at` without living
  /// longer than it does now.
  bool availableAt(Value v, int64_t at) {
    if (isa<BlockArgument>(v) && cast<BlockArgument>(v).getOwner() == block)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (matchPattern(def, m_Constant()) || isa<tensor::EmptyOp>(def))
      return true;
    if (def->getBlock() != block)
      return false;
    for (Operation *user : v.getUsers())
      if (position(user) >= at)
        return true;
    return false;
  }

  bool cheap(Operation *op) {
    if (op->getBlock() != block || op->getNumResults() != 1 ||
        tensorBytes(op->getResult(0)) < minBytes)
      return false;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureTensorSemantics())
        return false;
    } else if (!isa<tensor::PadOp>(op)) {
      return false;
    }
    int64_t flops = flopsOf(op);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    return flops >= 0 && flops <= maxFlopsPerElement * type.getNumElements();
  }

  bool inputsAvailableAt(Operation *op, int64_t at) {
    for (Value v : op->getOperands())
      if (!availableAt(v, at))
        return false;
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    for (Value v : captured)
      if (!availableAt(v, at))
        return false;
    return true;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // The backward pass's lowering often builds a second copy of a forward
    // value (a conv's padded input for its weight gradient) that the CSE
    // later in the pipeline would merge into the first, keeping it alive
    // across the step: merge now, so that the copy is a late use here.
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance(func);
    eliminateCommonSubExpressions(rewriter, dominance, func);
    block = &func.getBody().front();
    SmallVector<Operation *> candidates;
    for (Operation &op : *block)
      if (cheap(&op))
        candidates.push_back(&op);

    int64_t clones = 0, flops = 0, bytes = 0;
    for (Operation *op : candidates) {
      number();
      SmallVector<std::pair<int64_t, OpOperand *>> uses;
      for (OpOperand &use : op->getResult(0).getUses())
        uses.push_back({position(use.getOwner()), &use});
      llvm::stable_sort(uses, [](auto &a, auto &b) { return a.first < b.first; });
      int64_t previous = pos[op];
      Value current = op->getResult(0);
      for (auto [at, use] : uses) {
        Operation *top = block->findAncestorOpInBlock(*use->getOwner());
        if (at - previous >= minDistance && !top->hasTrait<OpTrait::IsTerminator>() &&
            inputsAvailableAt(op, at)) {
          OpBuilder b(top);
          Operation *clone = b.clone(*op);
          clone->setAttr(kRecomputed, b.getUnitAttr());
          current = clone->getResult(0);
          ++clones;
          flops += flopsOf(op);
          bytes += tensorBytes(current);
        }
        use->set(current);
        previous = at;
      }
    }
    if (clones) {
      Builder b(&getContext());
      func->setAttr("dlc.recomputed_ops", b.getI64IntegerAttr(clones));
      func->setAttr("dlc.recomputed_flops", b.getI64IntegerAttr(flops));
      func->setAttr("dlc.recomputed_bytes", b.getI64IntegerAttr(bytes));
    }
  }
};
} // namespace
