//===- FoldGemmZeroInit.cpp - library GEMMs overwrite instead of += zeros -===//
//
// Bufferization gives every conv GEMM's output a zero start: a linalg.fill
// of the output, or (where one zero tensor serves several convs) a copy from
// a buffer filled with zeros once, the last of those convs accumulating in
// that buffer itself. On the GPU each is a pass over the whole output
// before the GEMM adds into it: at ResNet-50 batch 32, 53 of them. This
// pass, after bufferization and before the memory plan, marks a library
// GEMM (passes/LibraryGemm.h) dlc.gemm_overwrite where the last write to its
// output is such a fill or copy (its kernel then stores C = A B; where it
// splits K over blocks the compiler zeroes C first, in a smaller launch),
// and removes that fill or copy unless something between reads it. A zero
// buffer left with nothing but its fill goes too.
//
// Memory is compared by byte range of one root (an alloc, a global or the
// arena argument), read off each view's type: the fill or copy must cover
// exactly the GEMM's output, contiguously; a copy's source must have been
// last written by a fill of zeros covering it exactly; the GEMM's operands
// must not read the output's memory. Anything unknown in between keeps
// the IR.
//
//===----------------------------------------------------------------------===//
#include "passes/LibraryGemm.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

#include <optional>

namespace dlc {
#define GEN_PASS_DEF_FOLDGEMMZEROINIT
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;
using dlc::ByteRange;
using dlc::rangeOf;
using dlc::touchesData;

namespace {
/// What `op` writes, as byte ranges; nullopt where that is not known.
std::optional<SmallVector<ByteRange>> writesOf(Operation *op) {
  SmallVector<ByteRange> out;
  SmallVector<Value> written;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureBufferSemantics())
      return std::nullopt;
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      written.push_back(init.get());
  } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    written.push_back(copy.getTarget());
  } else if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (auto &e : list) {
      if (!isa<MemoryEffects::Write>(e.getEffect()))
        continue;
      if (!e.getValue())
        return std::nullopt;
      written.push_back(e.getValue());
    }
  } else {
    return std::nullopt;
  }
  for (Value v : written) {
    std::optional<ByteRange> r = rangeOf(v);
    if (!r)
      return std::nullopt;
    out.push_back(*r);
  }
  return out;
}

bool isZeroFill(Operation *op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op);
  return fill && fill.hasPureBufferSemantics() && matchPattern(fill.value(), m_AnyZeroFloat());
}

/// Whether `op` may read memory overlapping `r`: through its operands or
/// memrefs its regions use (not an init its payload ignores, nor the output
/// of a GEMM that overwrites it).
bool mayRead(Operation *op, const ByteRange &r) {
  SmallVector<Value> read;
  if (auto l = dyn_cast<linalg::LinalgOp>(op)) {
    for (OpOperand *in : l.getDpsInputOperands())
      read.push_back(in->get());
    for (OpOperand &init : l.getDpsInitsMutable())
      if (l.payloadUsesValueFromOperand(&init) && !op->hasAttr(dlc::kGemmOverwriteAttr))
        read.push_back(init.get());
  } else {
    read.append(op->operand_begin(), op->operand_end());
  }
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  read.append(captured.begin(), captured.end());
  return llvm::any_of(read, [&](Value v) {
    if (!isa<BaseMemRefType>(v.getType()))
      return false;
    std::optional<ByteRange> vr = rangeOf(v);
    return !vr || vr->overlaps(r);
  });
}

/// Whether the last write before `copy` to memory overlapping `source` is a
/// zero fill of exactly `source`.
bool sourceIsZeros(Operation *copy, const ByteRange &source) {
  for (Operation *op = copy->getPrevNode(); op; op = op->getPrevNode()) {
    if (!touchesData(op))
      continue;
    std::optional<SmallVector<ByteRange>> writes = writesOf(op);
    if (!writes)
      return false;
    if (!llvm::any_of(*writes, [&](const ByteRange &w) { return w.overlaps(source); }))
      continue;
    if (!isZeroFill(op))
      return false;
    std::optional<ByteRange> filled = rangeOf(cast<linalg::FillOp>(op).getDpsInits()[0]);
    return filled && filled->same(source);
  }
  return false;
}

struct FoldGemmZeroInitPass : dlc::impl::FoldGemmZeroInitBase<FoldGemmZeroInitPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<linalg::LinalgOp> gemms;
    llvm::SetVector<Value> zeroSources; // the buffers folded copies read
    for (Operation &op : func.getBody().front())
      if (auto l = dyn_cast<linalg::LinalgOp>(&op); l && dlc::isLibraryGemm(l))
        gemms.push_back(l);
    for (linalg::LinalgOp gemm : gemms) {
      std::optional<ByteRange> out = rangeOf(gemm.getDpsInits()[0]);
      if (!out || !out->contiguous)
        continue;
      // An operand read from the output's memory would see zeros before and
      // the kernel's partial results after.
      if (llvm::any_of(gemm.getDpsInputs(), [&](Value in) {
            std::optional<ByteRange> r = rangeOf(in);
            return !r || r->overlaps(*out);
          }))
        continue;
      // The last write to the output before the GEMM: zeros?
      bool readBetween = false;
      Operation *start = nullptr;
      Value source; // a copy's
      for (Operation *op = gemm->getPrevNode(); op; op = op->getPrevNode()) {
        if (!touchesData(op))
          continue;
        std::optional<SmallVector<ByteRange>> writes = writesOf(op);
        if (!writes)
          break;
        if (!llvm::any_of(*writes, [&](const ByteRange &w) { return w.overlaps(*out); })) {
          readBetween |= mayRead(op, *out);
          continue;
        }
        std::optional<ByteRange> to, from;
        if (isZeroFill(op)) {
          to = rangeOf(cast<linalg::FillOp>(op).getDpsInits()[0]);
        } else if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
          to = rangeOf(copy.getDpsInits()[0]);
          from = rangeOf(copy.getDpsInputs()[0]);
        } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
          to = rangeOf(copy.getTarget());
          from = rangeOf(copy.getSource());
        }
        bool isCopy = !isZeroFill(op);
        if (to && to->same(*out) && (!isCopy || (from && sourceIsZeros(op, *from)))) {
          start = op;
          source = isCopy ? from->root : Value();
        }
        break;
      }
      if (!start)
        continue;
      gemm->setAttr(dlc::kGemmOverwriteAttr, UnitAttr::get(&getContext()));
      // The zero start goes unless something between reads it.
      if (!readBetween)
        start->erase();
      if (source)
        zeroSources.insert(source);
    }
    for (Value source : zeroSources)
      eraseIfOnlyFilled(source);
  }

  /// Zero buffers whose copies all went: an alloc that nothing but fills
  /// (and its dealloc) uses is removed, fills included.
  static void eraseIfOnlyFilled(Value root) {
    auto alloc = root.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return;
    SmallVector<Operation *> users, work{alloc};
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      for (Operation *user : op->getUsers()) {
        if (isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
                memref::CastOp>(user))
          work.push_back(user);
        else if (!isZeroFill(user) && !isa<memref::DeallocOp>(user))
          return;
        users.push_back(user);
      }
    }
    // Each user was found after what it uses.
    for (Operation *user : llvm::reverse(users))
      user->erase();
    alloc->erase();
  }
};
} // namespace
