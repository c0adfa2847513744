//===- ConstantMinMaxToSelect.cpp - clamps by a constant as compare+select ===//
//
// A Relu or Clip bound is arith.maximumf/minimumf of a value and a constant,
// NaN-propagating as ONNX asks. LLVM's x86 back end lowers that to one
// vmaxps/vminps only when it can see the constant is not NaN; in a vector
// of a lane count that is not a power of two (a 7x7 map's row of 7 lanes, a
// GEMM tile over 49 pixels) the widened constant has an undefined lane, and
// each bound became vmaxps + vcmpunordps + vblendvps. Compare-and-select of
// the constant against the value is the same function (a NaN value fails
// the ordered compare and is selected) and is exactly what vmaxps computes,
// so LLVM matches it to one instruction at any width.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc {
#define GEN_PASS_DEF_CONSTANTMINMAXTOSELECT
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// The float constant `v` is (a scalar, or a splat vector's element).
std::optional<APFloat> constantFloat(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue();
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    if (isa<FloatType>(splat.getElementType()))
      return splat.getSplatValue<APFloat>();
  return std::nullopt;
}

/// max(x, c) as select(c > x, c, x); min(x, c) as select(c < x, c, x).
/// Where c is a zero the select may return the other zero than IEEE
/// maximum/minimum, so only ops that ignore the zero's sign (nsz) qualify.
template <typename MinMaxOp, arith::CmpFPredicate kPredicate>
struct ConstantBoundAsSelect : OpRewritePattern<MinMaxOp> {
  using OpRewritePattern<MinMaxOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MinMaxOp op, PatternRewriter &rewriter) const override {
    Value x = op.getLhs(), c = op.getRhs();
    std::optional<APFloat> bound = constantFloat(c);
    if (!bound) {
      std::swap(x, c);
      bound = constantFloat(c);
    }
    if (!bound || bound->isNaN())
      return failure();
    if (bound->isZero() &&
        !bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::nsz))
      return failure();
    Value pick = rewriter.create<arith::CmpFOp>(op.getLoc(), kPredicate, c, x);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, pick, c, x);
    return success();
  }
};

struct ConstantMinMaxToSelectPass
    : dlc::impl::ConstantMinMaxToSelectBase<ConstantMinMaxToSelectPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConstantBoundAsSelect<arith::MaximumFOp, arith::CmpFPredicate::OGT>,
                 ConstantBoundAsSelect<arith::MinimumFOp, arith::CmpFPredicate::OLT>>(
        &getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
