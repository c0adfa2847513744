//===- PoolingToTaps.cpp - NCHW pooling as an elementwise op over taps ----===//
//
// linalg.pooling_nchw_max/sum read their input through (oh * s + kh,
// ow * s + kw), which upstream's vectorizer takes only for NHWC pooling: on
// the CPU they ran as scalar loops, and a scalar maximumf is a compare, a
// branch and a blend (LeNet's two 2x2 max pools were a quarter of its
// time). As in dlc-depthwise-conv-to-taps, each window position is one
// strided slice of the input and the pool one all-parallel generic over
// the output that combines its taps.
//
//===----------------------------------------------------------------------===//
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace dlc {
#define GEN_PASS_DEF_POOLINGTOTAPS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// Rewrites `op` (a pooling_nchw_max or _sum on static f32 tensors with at
/// most `maxTaps` window positions) as a generic combining its taps with
/// maximumf (ignoring the sign of zero, as dlc's activations do) or addf;
/// false if it cannot.
template <typename PoolOp>
bool rewriteAsTaps(PoolOp op, int64_t maxTaps) {
  constexpr bool isMax = std::is_same_v<PoolOp, linalg::PoolingNchwMaxOp>;
  Value input = op.getInputs()[0], window = op.getInputs()[1], init = op.getOutputs()[0];
  auto inType = dyn_cast<RankedTensorType>(input.getType());
  auto winType = dyn_cast<RankedTensorType>(window.getType());
  auto outType = dyn_cast<RankedTensorType>(init.getType());
  if (!inType || !winType || !outType || !inType.hasStaticShape() ||
      !winType.hasStaticShape() || !outType.hasStaticShape() ||
      !outType.getElementType().isF32() || winType.getRank() != 2)
    return false;
  int64_t kh = winType.getDimSize(0), kw = winType.getDimSize(1);
  if (kh * kw > maxTaps)
    return false;
  // (The accessors give the defaults, 1, where the attributes are absent.)
  SmallVector<int64_t> strides(op.getStrides().template getValues<int64_t>());
  SmallVector<int64_t> dilations(op.getDilations().template getValues<int64_t>());

  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> taps =
      dlc::windowTaps(b, loc, input, outType.getShape(), kh, kw, strides, dilations);
  // A constant start is a constant of the body; a max pool's -inf start is
  // left out (max(-inf, x) is x, NaN included).
  Value start = dlc::fillValue(init);
  bool startFromInput = !start;
  bool skipStart = isMax && start && matchPattern(start, m_NegInfFloat());
  SmallVector<Value> inputs;
  if (startFromInput)
    inputs.push_back(init);
  inputs.append(taps);
  SmallVector<AffineMap> maps(inputs.size() + 1, b.getMultiDimIdentityMap(4));
  Value empty = b.create<tensor::EmptyOp>(loc, outType.getShape(), outType.getElementType());
  auto generic = b.create<linalg::GenericOp>(
      loc, outType, inputs, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        // The named op's order: over kh, then kw.
        ValueRange xs = args.drop_front(startFromInput ? 1 : 0).take_front(taps.size());
        Value acc = startFromInput ? args[0] : skipStart ? xs[0] : start;
        for (Value x : xs.drop_front(skipStart ? 1 : 0)) {
          if constexpr (isMax)
            acc = nb.create<arith::MaximumFOp>(l, acc, x, dlc::ignoreZeroSign(nb));
          else
            acc = nb.create<arith::AddFOp>(l, acc, x);
        }
        nb.create<linalg::YieldOp>(l, acc);
      });
  op->getResult(0).replaceAllUsesWith(generic.getResult(0));
  op->erase();
  if (auto fill = init.getDefiningOp<linalg::FillOp>(); fill && fill->use_empty())
    fill->erase();
  return true;
}

struct PoolingToTapsPass : dlc::impl::PoolingToTapsBase<PoolingToTapsPass> {
  using PoolingToTapsBase::PoolingToTapsBase;

  void runOnOperation() override {
    SmallVector<Operation *> pools;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op) &&
          op.hasPureTensorSemantics())
        pools.push_back(op);
    });
    for (Operation *op : pools) {
      if (auto max = dyn_cast<linalg::PoolingNchwMaxOp>(op))
        rewriteAsTaps(max, maxTaps);
      else
        rewriteAsTaps(cast<linalg::PoolingNchwSumOp>(op), maxTaps);
    }
  }
};
} // namespace
