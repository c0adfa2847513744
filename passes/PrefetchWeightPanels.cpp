//===- PrefetchWeightPanels.cpp - prefetch the weights a GEMM streams -----===//
//
// A register tile's k loop reads one filter panel from start to end. Where
// the GEMM has few columns the panel serves one register tile and comes
// from memory (weights are read once per run), and the hardware prefetcher
// does not run far enough ahead for the FMAs not to wait: a prefetch a few
// KB ahead of the read keeps the panel's stream in flight. See the pass
// description in Passes.td for the measurements.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace dlc {
#define GEN_PASS_DEF_PREFETCHWEIGHTPANELS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
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

struct PrefetchWeightPanelsPass
    : dlc::impl::PrefetchWeightPanelsBase<PrefetchWeightPanelsPass> {
  using PrefetchWeightPanelsBase::PrefetchWeightPanelsBase;

  void runOnOperation() override {
    if (distanceBytes <= 0)
      return;
    getOperation().walk([&](scf::ForOp loop) {
      if (isRegisterTileLoop(loop))
        prefetchWeights(loop);
    });
  }

  /// A prefetch before each weight read indexed by the loop's induction
  /// variable, that index moved `distanceBytes` on. Past the dim's end the
  /// address runs on into the next panel (packed panels are contiguous);
  /// past the buffer's end it points at nothing, which a prefetch may do
  /// (no fault, no effect).
  void prefetchWeights(scf::ForOp loop) {
    Value iv = loop.getInductionVar();
    for (auto read : llvm::to_vector(loop.getBody()->getOps<vector::TransferReadOp>())) {
      auto type = dyn_cast<MemRefType>(read.getSource().getType());
      if (!type || !isWeight(read.getSource()))
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
      int64_t ahead = llvm::divideCeil(distanceBytes, stride * elemBytes);
      OpBuilder b(read);
      Location loc = read.getLoc();
      *at = b.create<arith::AddIOp>(loc, iv, b.create<arith::ConstantIndexOp>(loc, ahead));
      b.create<memref::PrefetchOp>(loc, read.getSource(), indices, /*isWrite=*/false,
                                   /*localityHint=*/3, /*isDataCache=*/true);
    }
  }
};
} // namespace
