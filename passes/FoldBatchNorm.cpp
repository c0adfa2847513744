//===- FoldBatchNorm.cpp - BatchNorm into its conv's constant weights ------===//
//
// A BatchNormalization after a conv lowers to a scale and a shift per
// channel, which the conv's kernel applies in its epilogue. Folded into the
// conv's constant weights (w * s per filter) and bias (b * s + t), it costs
// one vector a filter, the bias, which the kernel starts from or adds.
// Done where that measured faster: before a residual Add (the Add's other
// branch brings its own vector), and for depthwise, 1x1 and image-stem
// convs; not for the others, whose fold ran ResNet-50 slower.
//
//===----------------------------------------------------------------------===//
#include "dialects/DlcDialect.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include <cmath>

namespace dlc {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// Input channels up to which a conv counts as an image stem (RGB is 3).
constexpr int64_t kStemChannels = 4;

/// Whether folding `bn` into `conv` (weights `wType`) measured faster:
/// - `bn` feeds only Adds: a residual Add's epilogue carried both
///   branches' BatchNorms, four per-filter vectors (ResNet-50's first
///   bottleneck expand conv, 0.59 -> 0.44 ms with this one folded).
/// - A depthwise conv: its taps start from the bias instead of ending in a
///   multiply-add by the scale (MobileNetV2's 144-channel 56x56 one 0.088
///   -> 0.078 ms, its 384-channel 14x14 ones 0.047 -> 0.039; Zen 5, one
///   thread, perf).
/// - A 1x1 conv: its GEMM's epilogue adds a bias where it took a scale and
///   a shift, half the per-filter values to keep at hand.
/// - An image stem (at most kStemChannels input channels): with a short
///   reduction (27 multiply-adds a pixel for a 3x3 window over RGB) the
///   tile's zeroing and multiply-add by the scale are a large part of
///   dlc-conv-to-outer-products' work; folded, the tile starts from the
///   bias. MobileNetV2's 3x3 stride-2 stem alone, one thread, Zen 4 (the
///   pool's per-loop clock): 264-266 -> 232-236 us; the model 0.98 of
///   before, ResNet-18 0.985 (its 7x7 stem).
/// MobileNetV2, the first three kinds against residual Adds only, Zen 5,
/// pairs: 0.976-0.994 of before at one and two threads; AVX2 build 0.986.
/// Folding every conv's (onnxruntime's ConvBNFusion) ran ResNet-50 1-4%
/// slower, in the 3x3 stride-2 im2col convs (512 x 512 over 7x7: 1.10 ->
/// 1.19 ms), and is not done (on Zen 4, session 54, it ran even: ResNet-18
/// 0.998, ResNet-50 1.005).
bool worthFolding(dlc::BatchNormOp bn, dlc::ConvOp conv, RankedTensorType wType) {
  if (llvm::all_of(bn->getUsers(), [](Operation *u) { return isa<dlc::AddOp>(u); }))
    return true;
  int64_t group = conv.getGroup();
  bool depthwise = group > 1 && group == wType.getDimSize(0) &&
                   wType.getDimSize(1) == 1;
  bool pointwise = wType.getRank() == 4 && wType.getDimSize(2) == 1 && wType.getDimSize(3) == 1;
  bool stem =
      group == 1 && wType.getRank() == 4 && wType.getDimSize(1) <= kStemChannels;
  return depthwise || pointwise || stem;
}

/// Folds `bn` into the conv it normalizes; false where it does not apply:
/// the conv has another use, a non-constant or dynamic weight, bias or
/// BatchNorm parameter (a training build's parameters), or worthFolding
/// says no.
bool fold(dlc::BatchNormOp bn) {
  auto conv = bn.getInput().getDefiningOp<dlc::ConvOp>();
  if (!conv || !conv->hasOneUse() || bn->use_empty())
    return false;
  auto wType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  if (!wType || !wType.hasStaticShape() || !wType.getElementType().isF32() ||
      !worthFolding(bn, conv, wType))
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

struct FoldBatchNormPass : dlc::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    SmallVector<dlc::BatchNormOp> norms;
    getOperation().walk([&](dlc::BatchNormOp bn) { norms.push_back(bn); });
    for (dlc::BatchNormOp bn : norms)
      (void)fold(bn);
  }
};
} // namespace
