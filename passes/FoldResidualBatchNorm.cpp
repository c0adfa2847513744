//===- FoldResidualBatchNorm.cpp - BatchNorm into the conv before an Add ---===//
//
// A BatchNormalization after a conv lowers to a scale and a shift per
// channel, which the conv's GEMM applies in its register tiles' epilogue
// (dlc-tile-and-vectorize). Where the normalized conv feeds a residual Add,
// that epilogue also carries the other branch's BatchNorm: ResNet-50's
// first bottleneck held four per-filter vectors in its 56x56 expand conv.
// Folded into the conv's constant weights (w * s per filter) and bias
// (b * s + t), each branch brings one vector, its bias.
//
//===----------------------------------------------------------------------===//
#include "dialects/DlcDialect.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include <cmath>

namespace dlc {
#define GEN_PASS_DEF_FOLDRESIDUALBATCHNORM
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// Folds `bn` into the conv it normalizes; false where it does not apply:
/// the conv has another use, a non-constant or dynamic weight, bias or
/// BatchNorm parameter (a training build's parameters), or `bn` feeds
/// anything but Adds.
bool fold(dlc::BatchNormOp bn) {
  auto conv = bn.getInput().getDefiningOp<dlc::ConvOp>();
  if (!conv || !conv->hasOneUse() || bn->use_empty() ||
      !llvm::all_of(bn->getUsers(), [](Operation *u) { return isa<dlc::AddOp>(u); }))
    return false;
  auto wType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  if (!wType || !wType.hasStaticShape() || !wType.getElementType().isF32())
    return false;
  int64_t filters = wType.getDimSize(0), perFilter = wType.getNumElements() / filters;
  auto w = dlc::constantF32Values(conv.getWeight());
  auto gamma = dlc::constantF32Values(bn.getScale()), beta = dlc::constantF32Values(bn.getBias());
  auto mean = dlc::constantF32Values(bn.getMean()), var = dlc::constantF32Values(bn.getVariance());
  std::optional<SmallVector<float>> b;
  if (conv.getBias() && !(b = dlc::constantF32Values(conv.getBias())))
    return false;
  auto sized = [&](const std::optional<SmallVector<float>> &v) {
    return v && static_cast<int64_t>(v->size()) == filters;
  };
  if (!w || !sized(gamma) || !sized(beta) || !sized(mean) || !sized(var) || (b && !sized(b)))
    return false;
  float eps = bn.getEpsilon().convertToFloat();
  SmallVector<float> bias(filters);
  for (int64_t f = 0; f < filters; ++f) {
    float s = (*gamma)[f] / std::sqrt((*var)[f] + eps);
    for (int64_t i = 0; i < perFilter; ++i)
      (*w)[f * perFilter + i] *= s;
    bias[f] = (b ? (*b)[f] : 0.0f) * s + (*beta)[f] - (*mean)[f] * s;
  }
  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  Value weight = dlc::f32Constant(builder, loc, wType.getShape(), *w, "folded_weight");
  Value biasValue = dlc::f32Constant(builder, loc, {filters}, bias, "folded_bias");
  auto folded = builder.create<dlc::ConvOp>(
      loc, bn.getType(), conv.getInput(), weight, biasValue, conv.getStridesAttr(),
      conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupAttr());
  bn.getResult().replaceAllUsesWith(folded.getResult());
  bn->erase();
  conv->erase();
  return true;
}

struct FoldResidualBatchNormPass
    : dlc::impl::FoldResidualBatchNormBase<FoldResidualBatchNormPass> {
  void runOnOperation() override {
    SmallVector<dlc::BatchNormOp> norms;
    getOperation().walk([&](dlc::BatchNormOp bn) { norms.push_back(bn); });
    for (dlc::BatchNormOp bn : norms)
      (void)fold(bn);
  }
};
} // namespace
