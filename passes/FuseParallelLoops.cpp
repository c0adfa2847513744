//===- FuseParallelLoops.cpp - adjacent parallel loops as one -------------===//
//
// A pad decomposed by dlc-tile-and-vectorize is five loops over the
// channels: its top and bottom rows, its left and right columns, and the
// interior's copy. Each of the four frame fills is too little work for the
// thread pool (dlc-outline-parallel-loops leaves it serial in the entry),
// and the column fills touch one cache line a row that the copy then
// touches again: on MobileNetV2's 14x14 and 7x7 maps the frame took 13-17
// us a pad on one thread, with the other idle. Fused, the channel's frame
// and interior are written together, on the channel's thread.
//
// A loop may also read what the previous one writes, where iteration c of
// each touches only index c of some dim (the same window, through
// subviews or a transfer's indices): the depthwise taps that read channel
// c's padded plane run right after its copy, the plane still in L1 (the
// 56x56 and 28x28 padded inputs, 0.7-1.9 MB, went through L3 between two
// loops), and the pool dispatches one loop instead of two.
//
// Upstream's scf-parallel-loop-fusion is not used: it checks only
// memref.load/store pairs for dependences (these bodies read and write
// through vector transfers and linalg ops, which it would not see) and
// needs the very same bound values, not equal constants.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/VectorInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dlc {
#define GEN_PASS_DEF_FUSEPARALLELLOOPS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// `v` and the views it is a view of, innermost first, up to the buffer.
SmallVector<Value> viewChain(Value v) {
  SmallVector<Value> chain{v};
  while (Operation *def = chain.back().getDefiningOp()) {
    // Views that stay within their source's elements; anything else
    // (reinterpret_cast) ends the chain where it is.
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp>(def))
      break;
    chain.push_back(def->getOperand(0));
  }
  return chain;
}

/// A buffer no other buffer overlaps: an allocation, a global, or an entry
/// argument (the runtime rejects inputs and outputs that overlap).
bool distinctBuffer(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp());
  Operation *def = root.getDefiningOp();
  return def && isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def);
}

/// Whether two different buffer roots are different buffers: two
/// memref.get_global ops of one global are the same one.
bool distinctBuffers(Value a, Value b) {
  if (!distinctBuffer(a) || !distinctBuffer(b))
    return false;
  auto ga = a.getDefiningOp<memref::GetGlobalOp>(), gb = b.getDefiningOp<memref::GetGlobalOp>();
  return !(ga && gb && ga.getName() == gb.getName());
}

/// Whether two static subviews of one buffer select disjoint elements: in
/// some dim their index ranges do not meet.
bool disjointSubviews(memref::SubViewOp a, memref::SubViewOp b) {
  if (a.getSourceType().getRank() != b.getSourceType().getRank())
    return false;
  for (unsigned d = 0; d < a.getSourceType().getRank(); ++d) {
    auto ao = getConstantIntValue(a.getMixedOffsets()[d]);
    auto as = getConstantIntValue(a.getMixedSizes()[d]);
    auto at = getConstantIntValue(a.getMixedStrides()[d]);
    auto bo = getConstantIntValue(b.getMixedOffsets()[d]);
    auto bs = getConstantIntValue(b.getMixedSizes()[d]);
    auto bt = getConstantIntValue(b.getMixedStrides()[d]);
    if (!ao || !as || !at || !bo || !bs || !bt || *at != 1 || *bt != 1)
      continue;
    if (*ao + *as <= *bo || *bo + *bs <= *ao)
      return true;
  }
  return false;
}

/// Whether `a` and `b` provably share no element: different buffers, or
/// views that go apart at disjoint static subviews of a common view.
/// (A view of a view stays within it: what parents keep apart, their
/// views do too.)
bool disjoint(Value a, Value b) {
  SmallVector<Value> ca = viewChain(a), cb = viewChain(b);
  if (ca.back() != cb.back())
    return distinctBuffers(ca.back(), cb.back());
  // From the buffer down, the first views that differ.
  size_t i = ca.size(), j = cb.size();
  while (i > 0 && j > 0 && ca[i - 1] == cb[j - 1]) {
    --i;
    --j;
  }
  if (i == 0 || j == 0)
    return false; // one is a view of the other
  auto sa = ca[i - 1].getDefiningOp<memref::SubViewOp>();
  auto sb = cb[j - 1].getDefiningOp<memref::SubViewOp>();
  return sa && sb && disjointSubviews(sa, sb);
}

/// One memory access of a loop body: the op and the memref it touches.
struct Access {
  Operation *op;
  Value memref;
};

/// The memrefs `loop` reads and writes; false if an op's effects are not
/// known (a call) or are not on a memref operand.
bool accesses(scf::ParallelOp loop, SmallVectorImpl<Access> &reads,
              SmallVectorImpl<Access> &writes) {
  WalkResult r = loop.getBody()->walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isMemoryEffectFree(op))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &e : effects) {
      Value v = e.getValue();
      if (!v || !isa<MemRefType>(v.getType()))
        return WalkResult::interrupt();
      if (isa<MemoryEffects::Write>(e.getEffect()))
        writes.push_back({op, v});
      else if (isa<MemoryEffects::Read>(e.getEffect()))
        reads.push_back({op, v});
      else
        return WalkResult::interrupt(); // an allocation inside
    }
    return WalkResult::advance();
  });
  return !r.wasInterrupted();
}

/// Where an access lies in one dim of a buffer: indices [start, start +
/// extent), start being a constant plus, where `iv` >= 0, the loop's
/// induction variable number `iv`. Unknown where `known` is false.
struct DimRange {
  bool known = false;
  int iv = -1;
  int64_t constant = 0;
  int64_t extent = 0;
};

/// `v` as a DimRange start: a constant, or one of `loop`'s induction
/// variables.
DimRange startOf(OpFoldResult v, scf::ParallelOp loop) {
  DimRange r;
  if (auto c = getConstantIntValue(v)) {
    r.known = true;
    r.constant = *c;
    return r;
  }
  auto value = dyn_cast<Value>(v);
  for (auto [i, iv] : llvm::enumerate(loop.getInductionVars()))
    if (value == iv) {
      r.known = true;
      r.iv = i;
    }
  return r;
}

/// The elements `a` touches, dim by dim, in `base`: the buffer or view
/// that the chain of rank-keeping, unit-stride subviews above `a.memref`
/// starts from. A vector transfer or load/store covers its indices (and
/// the vector's extent); any other op its whole memref.
SmallVector<DimRange> accessedRanges(const Access &a, scf::ParallelOp loop, Value &base) {
  auto type = cast<MemRefType>(a.memref.getType());
  SmallVector<DimRange> ranges(type.getRank());
  // From an access's indices, over `extent` elements a dim (1 where empty).
  auto atIndices = [&](ValueRange indices, ArrayRef<int64_t> extent) {
    for (auto [d, index] : llvm::enumerate(indices)) {
      ranges[d] = startOf(index, loop);
      ranges[d].extent = extent.empty() ? 1 : extent[d];
    }
  };
  auto transfer = dyn_cast<VectorTransferOpInterface>(a.op);
  if (transfer && transfer.getSource() == a.memref) {
    // A dim the vector does not run along covers one index.
    SmallVector<int64_t> extent(type.getRank(), 1);
    AffineMap map = transfer.getPermutationMap();
    for (auto [i, e] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        extent[dim.getPosition()] = transfer.getVectorType().getDimSize(i);
    atIndices(transfer.getIndices(), extent);
  } else if (auto load = dyn_cast<memref::LoadOp>(a.op)) {
    atIndices(load.getIndices(), {});
  } else if (auto store = dyn_cast<memref::StoreOp>(a.op)) {
    atIndices(store.getIndices(), {});
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!type.isDynamicDim(d))
        ranges[d] = {true, -1, 0, type.getDimSize(d)};
  }
  base = a.memref;
  while (auto subview = base.getDefiningOp<memref::SubViewOp>()) {
    if (subview.getSourceType().getRank() != subview.getType().getRank())
      break;
    for (auto [d, range] : llvm::enumerate(ranges)) {
      if (!range.known)
        continue;
      auto stride = getConstantIntValue(subview.getMixedStrides()[d]);
      DimRange offset = startOf(subview.getMixedOffsets()[d], loop);
      if (!stride || *stride != 1 || !offset.known || (offset.iv >= 0 && range.iv >= 0)) {
        range.known = false;
        continue;
      }
      range.constant += offset.constant;
      if (offset.iv >= 0)
        range.iv = offset.iv;
    }
    base = subview.getSource();
  }
  return ranges;
}

/// Whether iteration i of `first`'s access `a` and iteration j of
/// `second`'s access `b` can meet only where i == j: through one base,
/// each induction variable confines both to the same index window, no
/// wider than its step, in some dim (a channel's pad copy and the
/// depthwise conv that reads the padded channel).
bool sameIterationOnly(const Access &a, scf::ParallelOp first, const Access &b,
                       scf::ParallelOp second) {
  Value baseA, baseB;
  SmallVector<DimRange> ra = accessedRanges(a, first, baseA);
  SmallVector<DimRange> rb = accessedRanges(b, second, baseB);
  if (baseA != baseB)
    return false;
  for (auto [n, step] : llvm::enumerate(first.getStep())) {
    auto s = getConstantIntValue(step);
    bool confined = false;
    for (auto [x, y] : llvm::zip(ra, rb))
      confined |= s && x.known && y.known && x.iv == (int)n && y.iv == (int)n &&
                  x.constant == y.constant && x.extent <= *s && y.extent <= *s;
    if (!confined)
      return false;
  }
  return true;
}

bool sameBounds(scf::ParallelOp a, scf::ParallelOp b) {
  auto equal = [](ValueRange x, ValueRange y) {
    if (x.size() != y.size())
      return false;
    for (auto [u, v] : llvm::zip(x, y)) {
      auto cu = getConstantIntValue(u), cv = getConstantIntValue(v);
      if (u != v && !(cu && cv && *cu == *cv))
        return false;
    }
    return true;
  };
  return equal(a.getLowerBound(), b.getLowerBound()) &&
         equal(a.getUpperBound(), b.getUpperBound()) && equal(a.getStep(), b.getStep());
}

/// Whether iteration i of `second` may run right after iteration i of
/// `first`, in any order across iterations: neither writes what the other
/// touches in another iteration.
bool independent(scf::ParallelOp first, scf::ParallelOp second) {
  SmallVector<Access> r1, w1, r2, w2;
  if (!accesses(first, r1, w1) || !accesses(second, r2, w2))
    return false;
  auto apart = [&](const Access &x, const Access &y) {
    return disjoint(x.memref, y.memref) || sameIterationOnly(x, first, y, second);
  };
  for (const Access &w : w1) {
    for (const Access &v : r2)
      if (!apart(w, v))
        return false;
    for (const Access &v : w2)
      if (!apart(w, v))
        return false;
  }
  for (const Access &w : w2)
    for (const Access &v : r1)
      if (!apart(v, w))
        return false;
  return true;
}

/// The loop after `loop` in its block, when only side-effect-free ops
/// (views, constants) and static allocations (the second loop's output
/// buffer) stand between them, collected in `between`.
scf::ParallelOp nextLoop(scf::ParallelOp loop, SmallVectorImpl<Operation *> &between) {
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
    if (auto next = dyn_cast<scf::ParallelOp>(op))
      return next;
    bool staticAlloc = isa<memref::AllocOp, memref::AllocaOp>(op) && !op->getNumOperands();
    if ((!isMemoryEffectFree(op) && !staticAlloc) || op->getNumRegions())
      return {};
    between.push_back(op);
  }
  return {};
}

struct FuseParallelLoopsPass : dlc::impl::FuseParallelLoopsBase<FuseParallelLoopsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *b) { blocks.push_back(b); });
    // Post-order: a block is done before the loop holding it may be fused
    // away (and the block erased).
    for (Block *block : blocks) {
      if (block->empty())
        continue;
      for (Operation *op = &block->front(); op; op = op->getNextNode()) {
        auto loop = dyn_cast<scf::ParallelOp>(op);
        if (!loop || loop.getNumResults())
          continue;
        // Absorb the loops that follow while each is independent of it.
        while (true) {
          SmallVector<Operation *> between;
          scf::ParallelOp next = nextLoop(loop, between);
          if (!next || next.getNumResults() || !sameBounds(loop, next) ||
              !independent(loop, next))
            break;
          // What `next` uses from between the two goes above `loop` (it
          // cannot use `loop`, which has no results); then `next`'s body
          // after `loop`'s, on `loop`'s induction variables, its empty
          // scf.reduce ending the fused body.
          for (Operation *b : between)
            b->moveBefore(loop);
          rewriter.eraseOp(loop.getBody()->getTerminator());
          rewriter.mergeBlocks(next.getBody(), loop.getBody(), loop.getInductionVars());
          rewriter.eraseOp(next);
        }
      }
    }
  }
};
} // namespace
