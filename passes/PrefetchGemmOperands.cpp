//===- PrefetchGemmOperands.cpp - prefetch what a GEMM's k loop streams ---===//
//
// A register tile's k loop reads its operands one k step at a time. Two
// streams are not kept ahead of by the hardware prefetcher:
// - a weight panel (read from memory once per run) where the GEMM has few
//   columns, so that each panel serves one register tile: the FMAs wait on
//   memory. A prefetch a few KB ahead keeps the panel's stream in flight.
// - columns read in place (a 1x1 conv's activation rows, P floats apart):
//   each k step is another cache line, another page every few steps, and
//   more lines than L1's sets hold at that stride. A prefetch some steps
//   ahead has the line in L1 when the step comes.
// See the pass description in Passes.td for the measurements.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace dlc {
#define GEN_PASS_DEF_PREFETCHGEMMOPERANDS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
constexpr int64_t kCacheLineBytes = 64;

/// Whether `v` is a view (subview, reshape) of a global: a weight.
bool isWeight(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v.getDefiningOp<memref::GetGlobalOp>() != nullptr;
}

/// A register tile's k loop: it carries vectors (the accumulators) and
/// contracts in its body.
bool isRegisterTileLoop(scf::ForOp loop) {
  return llvm::any_of(loop.getInitArgs(),
                      [](Value v) { return isa<VectorType>(v.getType()); }) &&
         !loop.getBody()->getOps<vector::ContractionOp>().empty();
}

struct PrefetchGemmOperandsPass
    : dlc::impl::PrefetchGemmOperandsBase<PrefetchGemmOperandsPass> {
  using PrefetchGemmOperandsBase::PrefetchGemmOperandsBase;

  void runOnOperation() override {
    getOperation().walk([&](scf::ForOp loop) {
      if (isRegisterTileLoop(loop))
        prefetchOperands(loop);
    });
  }

  /// How many k steps ahead to prefetch a read whose k index moves
  /// `stepBytes` a step, or 0 for none: weights `distanceBytes` ahead;
  /// other operands `columnSteps` ahead where each step is another line
  /// (a packed column tile, 64 bytes a step or less, streams in order and
  /// stays in cache).
  int64_t stepsAhead(bool weight, int64_t stepBytes) const {
    if (weight)
      return distanceBytes > 0 ? llvm::divideCeil(distanceBytes, stepBytes) : 0;
    return stepBytes > kCacheLineBytes ? std::max<int64_t>(columnSteps, 0) : 0;
  }

  /// A prefetch before each read indexed by the loop's induction variable,
  /// that index moved on. Past the dim's end the address runs on into the
  /// next panel or rows (packed panels are contiguous); past the buffer's
  /// end it points at nothing, which a prefetch may do (no fault, no
  /// effect).
  void prefetchOperands(scf::ForOp loop) {
    Value iv = loop.getInductionVar();
    for (auto read : llvm::to_vector(loop.getBody()->getOps<vector::TransferReadOp>())) {
      auto type = dyn_cast<MemRefType>(read.getSource().getType());
      if (!type)
        continue;
      auto indices = llvm::to_vector(read.getIndices());
      auto at = llvm::find(indices, iv);
      if (at == indices.end() || llvm::count(indices, iv) != 1)
        continue;
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(getStridesAndOffset(type, strides, offset)))
        continue;
      int64_t stride = strides[at - indices.begin()];
      int64_t elemBytes = type.getElementTypeBitWidth() / 8;
      if (ShapedType::isDynamic(stride) || stride <= 0 || elemBytes <= 0)
        continue;
      int64_t ahead = stepsAhead(isWeight(read.getSource()), stride * elemBytes);
      if (ahead <= 0)
        continue;
      OpBuilder b(read);
      Location loc = read.getLoc();
      *at = b.create<arith::AddIOp>(loc, iv, b.create<arith::ConstantIndexOp>(loc, ahead));
      b.create<memref::PrefetchOp>(loc, read.getSource(), indices, /*isWrite=*/false,
                                   /*localityHint=*/3, /*isDataCache=*/true);
    }
  }
};
} // namespace
