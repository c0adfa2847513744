//===- PackMatmulWeights.cpp - constant matmul weights in column panels ---===//
//
// A matmul's register tile reads, at each k, one row of `lanes` weights. In
// the weight's own [K, N] layout those rows are N floats apart: with N a
// multiple of 1024 every row of a tile falls into the same few L1 sets, and
// a 1024^3 matmul ran at half the speed of a 256^3 one. Packed at compile
// time into column panels [N/lanes, K, lanes], a tile's rows are contiguous.
//
//===----------------------------------------------------------------------===//
#include "passes/ConvGemmLayout.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace dlc {
#define GEN_PASS_DEF_PACKMATMULWEIGHTS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct PackMatmulWeightsPass : dlc::impl::PackMatmulWeightsBase<PackMatmulWeightsPass> {
  using PackMatmulWeightsBase::PackMatmulWeightsBase;

  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
    for (linalg::MatmulOp op : matmuls)
      pack(op);
  }

  /// A matrix-vector product's panel width for N outputs: the widest of
  /// matvec-panel-vectors, half as many, ... vectors that N fills at least
  /// once with padding within an eighth (the MLP's 256 outputs: 64 lanes,
  /// LeNet's 84: one 8-lane vector). A register tile of that many vectors
  /// then reads one run of 256 bytes a k step, where one-vector panels
  /// made it eight streams 25 KB apart (the MLP's 784 x 256 layer on Zen
  /// 4: 8 panels of 8 lanes a tile), fewer than the prefetchers keep full.
  int64_t matvecPanelLanes(int64_t n) {
    for (int64_t v = matvecPanelVectors; v > 1; v /= 2) {
      int64_t lanes = v * matvecLanes;
      if (n >= lanes && 8 * (dlc::roundUp(n, lanes) - n) <= n)
        return lanes;
    }
    return matvecLanes;
  }

  /// C[M, N] += A[M, K] x W[K, N] with W constant becomes a generic over
  /// (m, panel, lane, k) reading the panels [N/lanes, K, lanes] and writing
  /// C viewed as [M, N/lanes, lanes]. A matrix-vector product (M below 4)
  /// takes panels of `matvec-lanes` (one vector): its register tile is a
  /// row of several panels (dlc-tile-and-vectorize), each a vector of its
  /// own whatever their count, and each panel one contiguous stream of
  /// weights. N a multiple of `matvec-lanes` only takes panels of those.
  /// N over one panel and within an eighth of a multiple of the lanes (a
  /// classifier's 1000 outputs: 63 panels of 16 or 32 of 32) is padded
  /// with zero columns, C with it, and the result sliced back to N. Left
  /// alone: other N, non-f32 or dynamic shapes.
  void pack(linalg::MatmulOp op) {
    if (!op.hasPureTensorSemantics())
      return;
    auto a = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    auto w = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
    auto c = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
    if (!a || !w || !c || !a.hasStaticShape() || !w.hasStaticShape() || !c.hasStaticShape() ||
        !c.getElementType().isF32() || !a.getElementType().isF32())
      return;
    int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = w.getDimSize(1);
    int64_t lanes = m < 4 ? matvecPanelLanes(n) : this->lanes;
    // N a multiple of one vector but not of the register tile's lanes (48
    // with AVX-512's 32): one-vector panels, which the register tile takes
    // one at a time, rather than the weight's rows N floats apart.
    if (m >= 4 && matvecLanes > 0 && n % lanes != 0 && n % matvecLanes == 0)
      lanes = matvecLanes;
    // (N = lanes: the weight's rows are one panel already.)
    if (lanes <= 0 || n <= lanes)
      return;
    // Unpacked, a 1000-wide classifier's register tiles read 32 lanes of
    // rows 4000 bytes apart, two FMA chains a tile: MobileNetV2's 1280 x
    // 1000 layer took 0.144 ms (5.1 MB, 35 GB/s; L3 reads it at 120).
    int64_t panels = (n + lanes - 1) / lanes, width = panels * lanes;
    if (8 * (width - n) > n)
      return;
    std::optional<SmallVector<float>> values = dlc::constantF32Values(op.getInputs()[1]);
    if (!values)
      return;
    SmallVector<float> packed(panels * k * lanes, 0.0f);
    for (int64_t ki = 0; ki < k; ++ki)
      for (int64_t ni = 0; ni < n; ++ni)
        packed[((ni / lanes) * k + ki) * lanes + ni % lanes] = (*values)[ki * n + ni];
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value wp = dlc::f32Constant(b, loc, {panels, k, lanes}, packed, "packed_weight");
    Type elem = c.getElementType();
    // Padded, the product starts from zeros and C is added to its first N
    // columns after: a tensor.pad of C (a bias broadcast, vectorized in 16-
    // lane steps and an 8-lane tail) lost all but the tail's write in LLVM
    // 19's folding of insert_slice into transfer_write.
    Value init = width == n ? op.getOutputs()[0]
                            : dlc::filled(b, loc, RankedTensorType::get({m, width}, elem), 0.0);
    Value acc = b.create<tensor::ExpandShapeOp>(
        loc, RankedTensorType::get({m, panels, lanes}, elem), init,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}});
    MLIRContext *ctx = b.getContext();
    AffineExpr dm, dpanel, dlane, dk;
    bindDims(ctx, dm, dpanel, dlane, dk);
    SmallVector<AffineMap> maps{AffineMap::get(4, 0, {dm, dk}, ctx),
                                AffineMap::get(4, 0, {dpanel, dk, dlane}, ctx),
                                AffineMap::get(4, 0, {dm, dpanel, dlane}, ctx)};
    SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    Value gemm = dlc::multiplyAccumulate(b, loc, op.getInputs()[0], wp, acc, maps, iters);
    Value result = b.create<tensor::CollapseShapeOp>(
        loc, RankedTensorType::get({m, width}, elem), gemm,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}});
    if (width != n) {
      result = b.create<tensor::ExtractSliceOp>(
          loc, c, result, ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(m), b.getIndexAttr(n)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
      result = dlc::buildElementwise(b, loc, c, ValueRange{result, op.getOutputs()[0]},
                                     [](OpBuilder &b, Location loc, ValueRange args) -> Value {
                                       return b.create<arith::AddFOp>(loc, args[0], args[1]);
                                     });
    }
    op->replaceAllUsesWith(ValueRange{result});
    op->erase();
  }
};
} // namespace
