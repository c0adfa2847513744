//===- DepthwiseConvToTaps.cpp - depthwise convs as a sum over taps -------===//
//
// linalg.depthwise_conv_2d_nchw_chw reads its input through maps like
// (oh * s + kh, ow * s + kw), which upstream's vectorizer does not take for
// NCHW; the CPU pipeline then ran its loops scalar (MobileNetV2's depthwise
// convs were a quarter of its time at a few GFLOP/s). Each window position
// (tap) is instead one strided slice of the input, read through an identity
// map, and the whole conv one elementwise generic summing the taps.
//
//===----------------------------------------------------------------------===//
#include "passes/ConvGemmLayout.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace dlc {
#define GEN_PASS_DEF_DEPTHWISECONVTOTAPS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

using dlc::fillValue;

namespace {
/// Sums a loop step of dlc-slide-taps-in-registers must keep in flight for
/// the FMA units (two, 4 cycles each on Zen 5) to be busy.
constexpr int64_t kMinSumsInFlight = 12;

/// Rewrites `op` (static shapes, at most `maxTaps` taps); false if it
/// cannot. `lanes`: see the pass's vector-width.
bool rewriteAsTaps(linalg::DepthwiseConv2DNchwChwOp op, int64_t maxTaps, int64_t lanes) {
  Value input = op.getInputs()[0], weight = op.getInputs()[1], init = op.getOutputs()[0];
  auto inType = dyn_cast<RankedTensorType>(input.getType());
  auto wType = dyn_cast<RankedTensorType>(weight.getType());
  auto outType = dyn_cast<RankedTensorType>(init.getType());
  if (!inType || !wType || !outType || !inType.hasStaticShape() ||
      !wType.hasStaticShape() || !outType.hasStaticShape() ||
      !outType.getElementType().isF32())
    return false;
  int64_t kh = wType.getDimSize(1), kw = wType.getDimSize(2);
  if (kh * kw > maxTaps)
    return false;
  SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(op.getDilations().getValues<int64_t>());
  int64_t c = outType.getDimSize(1), ow = outType.getDimSize(3);
  // A sum per window row where the row vectors' loop keeps fewer sums than
  // that in flight: rows over one vector wide (narrower ones are unrolled
  // whole, and out-of-order execution overlaps their chains), one or four
  // a step (dlc::slidRowsPerStep).
  bool rowSums = lanes > 0 && kh > 1 && ow > lanes &&
                 dlc::slidRowsPerStep(strides[0]) * ((ow + lanes - 1) / lanes) < kMinSumsInFlight;

  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  // out[n, c, oh, ow] reads tap (i, j) at input[n, c, oh*sh + i*dh, ow*sw + j*dw]
  // and multiplies it by weight[c, i, j] (a per-channel slice).
  SmallVector<Value> taps = dlc::windowTaps(b, loc, input, outType.getShape(), kh, kw,
                                            strides, dilations);
  SmallVector<Value> weights;
  auto wSliceType = RankedTensorType::get({c}, wType.getElementType());
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      weights.push_back(b.create<tensor::ExtractSliceOp>(
          loc, wSliceType, weight, ArrayRef<OpFoldResult>{index(0), index(i), index(j)},
          ArrayRef<OpFoldResult>{index(c), index(1), index(1)},
          ArrayRef<OpFoldResult>{index(1), index(1), index(1)}));

  // A zero (or any constant) start is a constant of the body: the fill goes
  // and the generic writes a fresh tensor without reading it.
  Value start = fillValue(init);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, ctx);
  if (!start) {
    inputs.push_back(init);
    maps.push_back(identity);
  }
  inputs.append(taps);
  maps.append(taps.size(), identity);
  inputs.append(weights);
  maps.append(weights.size(), AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx));
  maps.push_back(identity);
  Value empty = b.create<tensor::EmptyOp>(loc, outType.getShape(), outType.getElementType());
  size_t numTaps = taps.size();
  bool startFromInput = !start;
  auto generic = b.create<linalg::GenericOp>(
      loc, outType, inputs, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value acc = startFromInput ? args[0] : start;
        ValueRange xs = args.drop_front(startFromInput ? 1 : 0).take_front(numTaps);
        ValueRange ws = args.drop_front((startFromInput ? 1 : 0) + numTaps).take_front(numTaps);
        // The named op's order: the sum runs over kh, then kw, in one chain
        // of FMAs; with rowSums each window row's taps in its own (the
        // first row's from the start), the rows' sums added at the end. In
        // one chain the 28x28 convs (two vectors a row, four rows a step:
        // 8 chains of nine 4-cycle FMAs) waited on the FMAs' latency.
        Value sum;
        for (int64_t i = 0; i < kh; ++i) {
          // The row's chain: from the start, from the sum so far, or anew.
          Value part = i == 0 ? acc : rowSums ? Value() : sum;
          for (int64_t j = 0; j < kw; ++j) {
            size_t t = i * kw + j;
            part = part ? nb.create<math::FmaOp>(l, xs[t], ws[t], part).getResult()
                        : nb.create<arith::MulFOp>(l, xs[t], ws[t]).getResult();
          }
          sum = i > 0 && rowSums ? nb.create<arith::AddFOp>(l, sum, part).getResult() : part;
        }
        nb.create<linalg::YieldOp>(l, sum);
      });
  // `dlc inspect` lists which kernel each conv took.
  std::string kernel = "depthwise: " + std::to_string(numTaps) +
                       " taps summed in one elementwise loop, vectorized along output rows";
  if (strides[1] == 2)
    kernel += " (stride-2 taps as two loads and a shuffle)";
  dlc::recordKernel(op, kernel);
  op->getResult(0).replaceAllUsesWith(generic.getResult(0));
  op->erase();
  return true;
}

struct DepthwiseConvToTapsPass
    : dlc::impl::DepthwiseConvToTapsBase<DepthwiseConvToTapsPass> {
  using DepthwiseConvToTapsBase::DepthwiseConvToTapsBase;

  void runOnOperation() override {
    SmallVector<linalg::DepthwiseConv2DNchwChwOp> convs;
    getOperation().walk([&](linalg::DepthwiseConv2DNchwChwOp op) {
      if (op.hasPureTensorSemantics())
        convs.push_back(op);
    });
    for (linalg::DepthwiseConv2DNchwChwOp op : convs) {
      Value init = op.getOutputs()[0];
      if (!rewriteAsTaps(op, maxTaps, vectorWidth)) {
        dlc::recordKernel(op, "depthwise: direct loops over the window (too many taps or "
                              "dynamic shapes), vectorized by LLVM along output rows");
        continue;
      }
      if (auto fill = init.getDefiningOp<linalg::FillOp>(); fill && fill->use_empty())
        fill->erase();
    }
  }
};
} // namespace
