//===- FoldGemmZeroInit.cpp - library GEMMs overwrite instead of += zeros -===//
//
// Bufferization gives every conv GEMM's output a zero start: a linalg.fill
// of the output, or (where one zero tensor serves several convs) a copy from
// a buffer filled with zeros once. On the GPU each is a pass over the whole
// output before the GEMM adds into it: at ResNet-50 batch 32, 53 of them.
// This pass, after the memory plan and before dlc-map-to-gpu, removes such a
// fill or copy where it is the last write to a library GEMM's output
// (passes/LibraryGemm.h) and marks the GEMM dlc.gemm_overwrite: its kernel
// then stores C = A B. (Where the kernel splits K over blocks, the compiler
// zeroes C itself first, in a smaller launch.)
//
// Memory is compared by byte range of one root (the arena argument, or an
// alloc), read off each view's type: the fill or copy must cover exactly the
// GEMM's output, contiguously, and be the last op before the GEMM that
// touches memory; a copy's source must have been last written by a fill of
// zeros covering it exactly; the GEMM's operands must not read the output's
// memory. Anything unknown in between keeps the IR.
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

#include <optional>

namespace dlc {
#define GEN_PASS_DEF_FOLDGEMMZEROINIT
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// Bytes [begin, end) of `root` that a memref view spans (its hull), and
/// whether it covers them contiguously.
struct ByteRange {
  Value root;
  int64_t begin = 0, end = 0;
  bool contiguous = false;

  bool same(const ByteRange &o) const {
    return root == o.root && begin == o.begin && end == o.end && contiguous && o.contiguous;
  }
  bool overlaps(const ByteRange &o) const {
    return root == o.root && begin < o.end && o.begin < end;
  }
};

std::optional<ByteRange> rangeOf(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
      failed(getStridesAndOffset(type, strides, offset)) || ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t bytes = type.getElementTypeBitWidth() / 8, last = offset;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides))
    last += (size - 1) * stride;
  // Down to the root: subviews and reshapes keep the aligned pointer (their
  // types carry the offset from it); memref.view moves it by a byte shift.
  int64_t shift = 0;
  Value cur = v;
  while (Operation *def = cur.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::AllocaOp>(def))
      break;
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      std::optional<int64_t> s = getConstantIntValue(view.getByteShift());
      if (!s)
        return std::nullopt;
      shift += *s;
      cur = view.getSource();
      continue;
    }
    if (isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(
            def)) {
      cur = def->getOperand(0);
      continue;
    }
    return std::nullopt;
  }
  return ByteRange{cur, shift + offset * bytes, shift + (last + 1) * bytes,
                   memref::isStaticShapeAndContiguousRowMajor(type)};
}

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

/// The nearest op before `from` (in its block) that touches memory.
Operation *previousEffect(Operation *from) {
  for (Operation *op = from->getPrevNode(); op; op = op->getPrevNode())
    if (!isMemoryEffectFree(op))
      return op;
  return nullptr;
}

/// Whether the last write before `copy` to memory overlapping `source` is a
/// zero fill of exactly `source`.
bool sourceIsZeros(Operation *copy, const ByteRange &source) {
  for (Operation *op = copy->getPrevNode(); op; op = op->getPrevNode()) {
    if (isMemoryEffectFree(op))
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
    for (Operation &op : func.getBody().front())
      if (auto l = dyn_cast<linalg::LinalgOp>(&op); l && dlc::isLibraryGemm(l))
        gemms.push_back(l);
    for (linalg::LinalgOp gemm : gemms) {
      std::optional<ByteRange> out = rangeOf(gemm.getDpsInits()[0]);
      Operation *init = previousEffect(gemm);
      if (!out || !out->contiguous || !init)
        continue;
      // An operand read from the output's memory would see zeros before and
      // the kernel's partial results after.
      if (llvm::any_of(gemm.getDpsInputs(), [&](Value in) {
            std::optional<ByteRange> r = rangeOf(in);
            return !r || r->overlaps(*out);
          }))
        continue;
      bool zeros = false;
      if (isZeroFill(init)) {
        std::optional<ByteRange> filled = rangeOf(cast<linalg::FillOp>(init).getDpsInits()[0]);
        zeros = filled && filled->same(*out);
      } else if (auto copy = dyn_cast<linalg::CopyOp>(init)) {
        std::optional<ByteRange> to = rangeOf(copy.getDpsInits()[0]);
        std::optional<ByteRange> from = rangeOf(copy.getDpsInputs()[0]);
        zeros = to && from && to->same(*out) && sourceIsZeros(copy, *from);
      } else if (auto copy = dyn_cast<memref::CopyOp>(init)) {
        std::optional<ByteRange> to = rangeOf(copy.getTarget());
        std::optional<ByteRange> from = rangeOf(copy.getSource());
        zeros = to && from && to->same(*out) && sourceIsZeros(copy, *from);
      }
      if (!zeros)
        continue;
      init->erase();
      gemm->setAttr(dlc::kGemmOverwriteAttr, UnitAttr::get(&getContext()));
    }
  }
};
} // namespace
