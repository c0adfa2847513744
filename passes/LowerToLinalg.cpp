//===- LowerToLinalg.cpp - dlc ops to linalg on tensors -------------------===//
#include "dialects/DlcDialect.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

namespace dlc {
#define GEN_PASS_DEF_LOWERTOLINALG
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
using namespace dlc;

template <typename OpTy>
struct DlcPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
};

struct ConstantLowering : DlcPattern<dlc::ConstantOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::ConstantOp op, Adaptor,
                                ConversionPatternRewriter &r) const override {
    Attribute value = op.getValue();
    auto type = signlessType(op.getType());
    if (type != op.getType()) {
      if (auto dense = dyn_cast<DenseElementsAttr>(value))
        value = dense.bitcast(type.getElementType());
      else if (auto res = dyn_cast<DenseResourceElementsAttr>(value))
        value = DenseResourceElementsAttr::get(type, res.getRawHandle());
    }
    r.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(value));
    return success();
  }
};

/// Identity, and Dropout outside the train step.
template <typename OpTy>
struct IdentityLowering : DlcPattern<OpTy> {
  using DlcPattern<OpTy>::DlcPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor a,
                                ConversionPatternRewriter &r) const override {
    r.replaceOp(op, a.getInput());
    return success();
  }
};

/// Unary and binary elementwise ops, by their scalar body.
template <typename OpTy>
struct ElementwiseLowering : DlcPattern<OpTy> {
  using DlcPattern<OpTy>::DlcPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor a,
                                ConversionPatternRewriter &r) const override {
    auto outType = signlessType(op.getType());
    Value result = buildElementwise(
        r, op.getLoc(), outType, a.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange x) {
          // f16/bf16: widen, compute in f32, round once at the end.
          SmallVector<Value> wide;
          for (Value v : x)
            wide.push_back(isNarrowFloat(v.getType())
                               ? b.create<arith::ExtFOp>(loc, b.getF32Type(), v).getResult()
                               : v);
          Value y = body(op, b, loc, wide);
          Type want = outType.getElementType();
          if (isNarrowFloat(want) && y.getType() != want)
            y = b.create<arith::TruncFOp>(loc, want, y);
          return y;
        });
    r.replaceOp(op, result);
    return success();
  }
  static Value body(OpTy op, OpBuilder &b, Location loc, ValueRange x);
};

template <>
Value ElementwiseLowering<dlc::ReluOp>::body(dlc::ReluOp, OpBuilder &b,
                                             Location loc, ValueRange x) {
  return b.create<arith::MaximumFOp>(loc, x[0], constLike(b, loc, x[0], 0.0),
                                    ignoreZeroSign(b));
}
template <>
Value ElementwiseLowering<dlc::SigmoidOp>::body(dlc::SigmoidOp, OpBuilder &b,
                                                Location loc, ValueRange x) {
  Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x[0]));
  Value one = constLike(b, loc, x[0], 1.0);
  return b.create<arith::DivFOp>(loc, one, b.create<arith::AddFOp>(loc, one, e));
}
template <>
Value ElementwiseLowering<dlc::TanhOp>::body(dlc::TanhOp, OpBuilder &b,
                                             Location loc, ValueRange x) {
  return b.create<math::TanhOp>(loc, x[0]);
}
template <>
Value ElementwiseLowering<dlc::ClipOp>::body(dlc::ClipOp op, OpBuilder &b,
                                             Location loc, ValueRange x) {
  if (!isFloatValue(x[0])) {
    // Bounds outside the type's range clip nothing.
    bool u = isUnsignedLike(op.getInput());
    unsigned w = x[0].getType().getIntOrFloatBitWidth();
    double lo = op.getMin().convertToFloat(), hi = op.getMax().convertToFloat();
    double tmin = u ? 0.0 : -std::ldexp(1.0, w - 1), tmax = std::ldexp(1.0, u ? w : w - 1) - 1;
    Value v = x[0];
    auto intConst = [&](double d) {
      return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(v.getType(), (int64_t)d));
    };
    if (lo > tmin)
      v = u ? b.create<arith::MaxUIOp>(loc, v, intConst(lo)).getResult()
            : b.create<arith::MaxSIOp>(loc, v, intConst(lo)).getResult();
    if (hi < tmax)
      v = u ? b.create<arith::MinUIOp>(loc, v, intConst(hi)).getResult()
            : b.create<arith::MinSIOp>(loc, v, intConst(hi)).getResult();
    return v;
  }
  Value lo = b.create<arith::MaximumFOp>(
      loc, x[0], constLike(b, loc, x[0], op.getMin().convertToFloat()), ignoreZeroSign(b));
  return b.create<arith::MinimumFOp>(
      loc, lo, constLike(b, loc, x[0], op.getMax().convertToFloat()), ignoreZeroSign(b));
}
template <>
Value ElementwiseLowering<dlc::AddOp>::body(dlc::AddOp, OpBuilder &b,
                                            Location loc, ValueRange x) {
  if (!isFloatValue(x[0]))
    return b.create<arith::AddIOp>(loc, x[0], x[1]);
  return b.create<arith::AddFOp>(loc, x[0], x[1]);
}
template <>
Value ElementwiseLowering<dlc::SubOp>::body(dlc::SubOp, OpBuilder &b,
                                            Location loc, ValueRange x) {
  if (!isFloatValue(x[0]))
    return b.create<arith::SubIOp>(loc, x[0], x[1]);
  return b.create<arith::SubFOp>(loc, x[0], x[1]);
}
template <>
Value ElementwiseLowering<dlc::MulOp>::body(dlc::MulOp, OpBuilder &b,
                                            Location loc, ValueRange x) {
  if (!isFloatValue(x[0]))
    return b.create<arith::MulIOp>(loc, x[0], x[1]);
  return b.create<arith::MulFOp>(loc, x[0], x[1]);
}
/// An integer divisor `d` that cannot trap: 1 where `d` is 0 or, signed,
/// -1. x86's integer division raises SIGFPE on a zero divisor and on the
/// signed minimum over -1, and a zero in a model's integer input killed the
/// process running it. ONNX leaves the result undefined; onnxruntime
/// checks every divisor and fails the run ("Integer division by zero"),
/// for which generated code has no error path yet. Callers give such lanes
/// numpy's results instead: x / 0 and x % 0 are 0, x / -1 is -x
/// (wrapping), x % -1 is 0.
Value nonTrappingDivisor(OpBuilder &b, Location loc, Value d, bool isSigned) {
  Value one = constLike(b, loc, d, 1);
  Value bad = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, d, constLike(b, loc, d, 0));
  if (isSigned)
    bad = b.create<arith::OrIOp>(
        loc, bad,
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, d, constLike(b, loc, d, -1)));
  return b.create<arith::SelectOp>(loc, bad, one, d);
}

template <>
Value ElementwiseLowering<dlc::DivOp>::body(dlc::DivOp op, OpBuilder &b,
                                            Location loc, ValueRange x) {
  if (isFloatValue(x[0]))
    return b.create<arith::DivFOp>(loc, x[0], x[1]);
  bool isSigned = !isUnsignedTensor(op.getLhs());
  Value d = nonTrappingDivisor(b, loc, x[1], isSigned);
  Value q = isSigned ? b.create<arith::DivSIOp>(loc, x[0], d).getResult()
                     : b.create<arith::DivUIOp>(loc, x[0], d).getResult();
  Value zero = constLike(b, loc, x[0], 0);
  if (isSigned)
    q = b.create<arith::SelectOp>(
        loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x[1], constLike(b, loc, x[1], -1)),
        b.create<arith::SubIOp>(loc, zero, x[0]), q);
  return b.create<arith::SelectOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x[1], zero), zero, q);
}

#define DLC_MATH_UNARY(OP, MATH)                                                \
  template <>                                                                  \
  Value ElementwiseLowering<dlc::OP>::body(dlc::OP, OpBuilder &b, Location loc, \
                                           ValueRange x) {                     \
    return b.create<MATH>(loc, x[0]);                                          \
  }
DLC_MATH_UNARY(ExpOp, math::ExpOp)
DLC_MATH_UNARY(LogOp, math::LogOp)
DLC_MATH_UNARY(SqrtOp, math::SqrtOp)
DLC_MATH_UNARY(FloorOp, math::FloorOp)
DLC_MATH_UNARY(CeilOp, math::CeilOp)
DLC_MATH_UNARY(RoundOp, math::RoundEvenOp)
DLC_MATH_UNARY(SinOp, math::SinOp)
DLC_MATH_UNARY(CosOp, math::CosOp)
DLC_MATH_UNARY(TanOp, math::TanOp)
DLC_MATH_UNARY(AsinOp, math::AsinOp)
DLC_MATH_UNARY(AcosOp, math::AcosOp)
DLC_MATH_UNARY(AtanOp, math::AtanOp)
DLC_MATH_UNARY(SinhOp, math::SinhOp)
DLC_MATH_UNARY(CoshOp, math::CoshOp)
DLC_MATH_UNARY(AsinhOp, math::AsinhOp)
DLC_MATH_UNARY(AcoshOp, math::AcoshOp)
DLC_MATH_UNARY(AtanhOp, math::AtanhOp)
DLC_MATH_UNARY(ErfOp, math::ErfOp)
#undef DLC_MATH_UNARY

namespace {
Value select(OpBuilder &b, Location loc, arith::CmpFPredicate pred, Value lhs, Value rhs,
             Value ifTrue, Value ifFalse) {
  Value c = b.create<arith::CmpFOp>(loc, pred, lhs, rhs);
  return b.create<arith::SelectOp>(loc, c, ifTrue, ifFalse);
}
Value softplus(OpBuilder &b, Location loc, Value x) {
  // log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large x.
  Value m = b.create<arith::MaximumFOp>(loc, x, constLike(b, loc, x, 0.0));
  Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, b.create<math::AbsFOp>(loc, x)));
  return b.create<arith::AddFOp>(loc, m, b.create<math::Log1pOp>(loc, e));
}
Value expm1Scaled(OpBuilder &b, Location loc, Value x, double alpha) {
  Value e = b.create<math::ExpOp>(loc, x);
  return b.create<arith::MulFOp>(loc, constLike(b, loc, x, alpha),
                                 b.create<arith::SubFOp>(loc, e, constLike(b, loc, x, 1.0)));
}
} // namespace

template <>
Value ElementwiseLowering<dlc::AbsOp>::body(dlc::AbsOp op, OpBuilder &b, Location loc,
                                            ValueRange x) {
  if (isFloatValue(x[0]))
    return b.create<math::AbsFOp>(loc, x[0]);
  if (isUnsignedTensor(op.getInput()))
    return x[0];
  return b.create<math::AbsIOp>(loc, x[0]);
}
template <>
Value ElementwiseLowering<dlc::NegOp>::body(dlc::NegOp, OpBuilder &b, Location loc,
                                            ValueRange x) {
  if (isFloatValue(x[0]))
    return b.create<arith::NegFOp>(loc, x[0]);
  return b.create<arith::SubIOp>(loc, constLike(b, loc, x[0], 0), x[0]);
}
template <>
Value ElementwiseLowering<dlc::ReciprocalOp>::body(dlc::ReciprocalOp, OpBuilder &b,
                                                   Location loc, ValueRange x) {
  return b.create<arith::DivFOp>(loc, constLike(b, loc, x[0], 1.0), x[0]);
}
template <>
Value ElementwiseLowering<dlc::SignOp>::body(dlc::SignOp op, OpBuilder &b, Location loc,
                                             ValueRange x) {
  Value zero = constLike(b, loc, x[0], 0.0);
  if (!isFloatValue(x[0])) {
    Value one = constLike(b, loc, x[0], 1.0);
    Value pos = b.create<arith::SelectOp>(
        loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x[0], zero), one, zero);
    if (isUnsignedTensor(op.getInput()))
      return pos;
    Value neg = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x[0], zero);
    return b.create<arith::SelectOp>(loc, neg, constLike(b, loc, x[0], -1.0), pos);
  }
  Value pos = select(b, loc, arith::CmpFPredicate::OGT, x[0], zero, constLike(b, loc, x[0], 1.0), zero);
  Value neg = select(b, loc, arith::CmpFPredicate::OLT, x[0], zero, constLike(b, loc, x[0], -1.0), pos);
  // NaN stays NaN.
  return select(b, loc, arith::CmpFPredicate::UNO, x[0], x[0], x[0], neg);
}
template <>
Value ElementwiseLowering<dlc::SoftplusOp>::body(dlc::SoftplusOp, OpBuilder &b,
                                                 Location loc, ValueRange x) {
  return softplus(b, loc, x[0]);
}
template <>
Value ElementwiseLowering<dlc::SoftsignOp>::body(dlc::SoftsignOp, OpBuilder &b,
                                                 Location loc, ValueRange x) {
  Value d = b.create<arith::AddFOp>(loc, constLike(b, loc, x[0], 1.0), b.create<math::AbsFOp>(loc, x[0]));
  return b.create<arith::DivFOp>(loc, x[0], d);
}
template <>
Value ElementwiseLowering<dlc::MishOp>::body(dlc::MishOp, OpBuilder &b, Location loc,
                                             ValueRange x) {
  return b.create<arith::MulFOp>(loc, x[0], b.create<math::TanhOp>(loc, softplus(b, loc, x[0])));
}
template <>
Value ElementwiseLowering<dlc::LeakyReluOp>::body(dlc::LeakyReluOp op, OpBuilder &b,
                                                  Location loc, ValueRange x) {
  Value scaled = b.create<arith::MulFOp>(loc, x[0], constLike(b, loc, x[0], op.getAlpha().convertToFloat()));
  return select(b, loc, arith::CmpFPredicate::OGE, x[0], constLike(b, loc, x[0], 0.0), x[0], scaled);
}
template <>
Value ElementwiseLowering<dlc::EluOp>::body(dlc::EluOp op, OpBuilder &b, Location loc,
                                            ValueRange x) {
  Value neg = expm1Scaled(b, loc, x[0], op.getAlpha().convertToFloat());
  return select(b, loc, arith::CmpFPredicate::OGE, x[0], constLike(b, loc, x[0], 0.0), x[0], neg);
}
template <>
Value ElementwiseLowering<dlc::CeluOp>::body(dlc::CeluOp op, OpBuilder &b, Location loc,
                                             ValueRange x) {
  double alpha = op.getAlpha().convertToFloat();
  Value zero = constLike(b, loc, x[0], 0.0);
  Value e = expm1Scaled(b, loc, b.create<arith::DivFOp>(loc, x[0], constLike(b, loc, x[0], alpha)), alpha);
  return b.create<arith::AddFOp>(loc, b.create<arith::MaximumFOp>(loc, x[0], zero),
                                 b.create<arith::MinimumFOp>(loc, e, zero));
}
template <>
Value ElementwiseLowering<dlc::SeluOp>::body(dlc::SeluOp op, OpBuilder &b, Location loc,
                                             ValueRange x) {
  Value neg = expm1Scaled(b, loc, x[0], op.getAlpha().convertToFloat());
  Value v = select(b, loc, arith::CmpFPredicate::OGT, x[0], constLike(b, loc, x[0], 0.0), x[0], neg);
  return b.create<arith::MulFOp>(loc, v, constLike(b, loc, x[0], op.getGamma().convertToFloat()));
}
template <>
Value ElementwiseLowering<dlc::HardSigmoidOp>::body(dlc::HardSigmoidOp op, OpBuilder &b,
                                                    Location loc, ValueRange x) {
  Value v = b.create<math::FmaOp>(loc, x[0], constLike(b, loc, x[0], op.getAlpha().convertToFloat()),
                                  constLike(b, loc, x[0], op.getBeta().convertToFloat()));
  v = b.create<arith::MaximumFOp>(loc, v, constLike(b, loc, x[0], 0.0));
  return b.create<arith::MinimumFOp>(loc, v, constLike(b, loc, x[0], 1.0));
}
template <>
Value ElementwiseLowering<dlc::HardSwishOp>::body(dlc::HardSwishOp, OpBuilder &b,
                                                  Location loc, ValueRange x) {
  Value v = b.create<math::FmaOp>(loc, x[0], constLike(b, loc, x[0], 1.0 / 6.0), constLike(b, loc, x[0], 0.5));
  v = b.create<arith::MaximumFOp>(loc, v, constLike(b, loc, x[0], 0.0));
  v = b.create<arith::MinimumFOp>(loc, v, constLike(b, loc, x[0], 1.0));
  return b.create<arith::MulFOp>(loc, x[0], v);
}
template <>
Value ElementwiseLowering<dlc::ThresholdedReluOp>::body(dlc::ThresholdedReluOp op, OpBuilder &b,
                                                        Location loc, ValueRange x) {
  return select(b, loc, arith::CmpFPredicate::OGT, x[0],
                constLike(b, loc, x[0], op.getAlpha().convertToFloat()), x[0], constLike(b, loc, x[0], 0.0));
}
template <>
Value ElementwiseLowering<dlc::GeluOp>::body(dlc::GeluOp op, OpBuilder &b, Location loc,
                                             ValueRange x) {
  Value half = b.create<arith::MulFOp>(loc, x[0], constLike(b, loc, x[0], 0.5));
  Value inner;
  if (op.getTanhApproximation()) {
    // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
    Value x3 = b.create<arith::MulFOp>(loc, x[0], b.create<arith::MulFOp>(loc, x[0], x[0]));
    Value poly = b.create<math::FmaOp>(loc, x3, constLike(b, loc, x[0], 0.044715), x[0]);
    inner = b.create<math::TanhOp>(
        loc, b.create<arith::MulFOp>(loc, poly, constLike(b, loc, x[0], 0.7978845608028654)));
  } else {
    inner = b.create<math::ErfOp>(
        loc, b.create<arith::MulFOp>(loc, x[0], constLike(b, loc, x[0], 0.7071067811865476)));
  }
  return b.create<arith::MulFOp>(loc, half, b.create<arith::AddFOp>(loc, inner, constLike(b, loc, x[0], 1.0)));
}
template <>
Value ElementwiseLowering<dlc::PowOp>::body(dlc::PowOp op, OpBuilder &b, Location loc,
                                            ValueRange x) {
  // Mixed and integer forms go through f64 (exact for the int32 range).
  if (isFloatValue(x[0]) && x[0].getType() == x[1].getType())
    return b.create<math::PowFOp>(loc, x[0], x[1]);
  Type f64 = b.getF64Type();
  auto toF64 = [&](Value v, Value orig) -> Value {
    if (isFloatValue(v))
      return v.getType() == f64 ? v : b.create<arith::ExtFOp>(loc, f64, v).getResult();
    return isUnsignedTensor(orig) ? b.create<arith::UIToFPOp>(loc, f64, v).getResult()
                                  : b.create<arith::SIToFPOp>(loc, f64, v).getResult();
  };
  Value p = b.create<math::PowFOp>(loc, toF64(x[0], op.getLhs()), toF64(x[1], op.getRhs()));
  if (isFloatValue(x[0]))
    return b.create<arith::TruncFOp>(loc, x[0].getType(), p);
  return b.create<arith::FPToSIOp>(loc, x[0].getType(), p);
}
template <>
Value ElementwiseLowering<dlc::MaxOp>::body(dlc::MaxOp op, OpBuilder &b, Location loc,
                                            ValueRange x) {
  if (!isFloatValue(x[0]))
    return isUnsignedTensor(op.getLhs()) ? b.create<arith::MaxUIOp>(loc, x[0], x[1]).getResult()
                                         : b.create<arith::MaxSIOp>(loc, x[0], x[1]).getResult();
  return b.create<arith::MaximumFOp>(loc, x[0], x[1]); // NaN-propagating, as ONNX
}
template <>
Value ElementwiseLowering<dlc::MinOp>::body(dlc::MinOp op, OpBuilder &b, Location loc,
                                            ValueRange x) {
  if (!isFloatValue(x[0]))
    return isUnsignedTensor(op.getLhs()) ? b.create<arith::MinUIOp>(loc, x[0], x[1]).getResult()
                                         : b.create<arith::MinSIOp>(loc, x[0], x[1]).getResult();
  return b.create<arith::MinimumFOp>(loc, x[0], x[1]);
}
template <>
Value ElementwiseLowering<dlc::PReluOp>::body(dlc::PReluOp, OpBuilder &b, Location loc,
                                              ValueRange x) {
  Value scaled = b.create<arith::MulFOp>(loc, x[0], x[1]);
  return select(b, loc, arith::CmpFPredicate::OLT, x[0], constLike(b, loc, x[0], 0.0), scaled, x[0]);
}

/// ONNX Cast of one scalar: `v` (of `from`'s signedness) to `to`.
Value convertScalar(OpBuilder &b, Location loc, Value v, bool fromUnsigned, Type to,
                    bool toUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  if (fromF && toF)
    return toF.getWidth() > fromF.getWidth() ? b.create<arith::ExtFOp>(loc, to, v).getResult()
                                             : b.create<arith::TruncFOp>(loc, to, v).getResult();
  if (to.isInteger(1)) {
    Value zero = scalarConst(b, loc, from, 0);
    return fromF ? b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, v, zero).getResult()
                 : b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v, zero).getResult();
  }
  if (fromF)
    return toUnsigned ? b.create<arith::FPToUIOp>(loc, to, v).getResult()
                      : b.create<arith::FPToSIOp>(loc, to, v).getResult();
  if (toF)
    return fromUnsigned ? b.create<arith::UIToFPOp>(loc, to, v).getResult()
                        : b.create<arith::SIToFPOp>(loc, to, v).getResult();
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (tw < fw)
    return b.create<arith::TruncIOp>(loc, to, v);
  return fromUnsigned ? b.create<arith::ExtUIOp>(loc, to, v).getResult()
                      : b.create<arith::ExtSIOp>(loc, to, v).getResult();
}

template <>
Value ElementwiseLowering<dlc::CastOp>::body(dlc::CastOp op, OpBuilder &b, Location loc,
                                             ValueRange x) {
  Type to = signlessElement(op.getTo());
  return convertScalar(b, loc, x[0], isUnsignedLike(op.getInput()), to,
                       op.getTo().isUnsignedInteger());
}
template <>
Value ElementwiseLowering<dlc::CompareOp>::body(dlc::CompareOp op, OpBuilder &b,
                                                Location loc, ValueRange x) {
  StringRef p = op.getPredicate();
  if (isFloatValue(x[0])) {
    auto pred = p == "eq"   ? arith::CmpFPredicate::OEQ
                : p == "lt" ? arith::CmpFPredicate::OLT
                : p == "le" ? arith::CmpFPredicate::OLE
                : p == "gt" ? arith::CmpFPredicate::OGT
                            : arith::CmpFPredicate::OGE;
    return b.create<arith::CmpFOp>(loc, pred, x[0], x[1]);
  }
  bool u = isUnsignedLike(op.getLhs());
  auto pred = p == "eq"   ? arith::CmpIPredicate::eq
              : p == "lt" ? (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
              : p == "le" ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
              : p == "gt" ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                          : (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge);
  return b.create<arith::CmpIOp>(loc, pred, x[0], x[1]);
}
template <>
Value ElementwiseLowering<dlc::AndOp>::body(dlc::AndOp, OpBuilder &b, Location loc,
                                            ValueRange x) {
  return b.create<arith::AndIOp>(loc, x[0], x[1]);
}
template <>
Value ElementwiseLowering<dlc::OrOp>::body(dlc::OrOp, OpBuilder &b, Location loc,
                                           ValueRange x) {
  return b.create<arith::OrIOp>(loc, x[0], x[1]);
}
template <>
Value ElementwiseLowering<dlc::XorOp>::body(dlc::XorOp, OpBuilder &b, Location loc,
                                            ValueRange x) {
  return b.create<arith::XOrIOp>(loc, x[0], x[1]);
}
template <>
Value ElementwiseLowering<dlc::NotOp>::body(dlc::NotOp, OpBuilder &b, Location loc,
                                            ValueRange x) {
  return b.create<arith::XOrIOp>(loc, x[0], constLike(b, loc, x[0], -1)); // all ones
}
template <>
Value ElementwiseLowering<dlc::WhereOp>::body(dlc::WhereOp, OpBuilder &b, Location loc,
                                              ValueRange x) {
  return b.create<arith::SelectOp>(loc, x[0], x[1], x[2]);
}
template <>
Value ElementwiseLowering<dlc::IsNaNOp>::body(dlc::IsNaNOp, OpBuilder &b, Location loc,
                                              ValueRange x) {
  return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x[0], x[0]);
}
template <>
Value ElementwiseLowering<dlc::IsInfOp>::body(dlc::IsInfOp op, OpBuilder &b, Location loc,
                                              ValueRange x) {
  double inf = std::numeric_limits<double>::infinity();
  Value result = scalarConst(b, loc, b.getI1Type(), 0);
  if (op.getDetectPositive())
    result = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, x[0], constLike(b, loc, x[0], inf));
  if (op.getDetectNegative())
    result = b.create<arith::OrIOp>(
        loc, result,
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, x[0], constLike(b, loc, x[0], -inf)));
  return result;
}
template <>
Value ElementwiseLowering<dlc::ModOp>::body(dlc::ModOp op, OpBuilder &b, Location loc,
                                            ValueRange x) {
  if (isFloatValue(x[0]))
    return b.create<arith::RemFOp>(loc, x[0], x[1]); // C fmod: the dividend's sign
  // Divisors 0 and -1 as 1: the remainder 0 (see nonTrappingDivisor).
  if (isUnsignedLike(op.getLhs()))
    return b.create<arith::RemUIOp>(loc, x[0], nonTrappingDivisor(b, loc, x[1], false));
  Value r = b.create<arith::RemSIOp>(loc, x[0], nonTrappingDivisor(b, loc, x[1], true));
  if (op.getFmod())
    return r;
  // Python's %: a nonzero remainder takes the divisor's sign.
  Value zero = constLike(b, loc, x[0], 0);
  Value rNeg = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, r, zero);
  Value dNeg = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x[1], zero);
  Value fix = b.create<arith::AndIOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, r, zero),
      b.create<arith::XOrIOp>(loc, rNeg, dNeg));
  return b.create<arith::SelectOp>(loc, fix, b.create<arith::AddIOp>(loc, r, x[1]), r);
}
template <>
Value ElementwiseLowering<dlc::BitShiftOp>::body(dlc::BitShiftOp op, OpBuilder &b,
                                                 Location loc, ValueRange x) {
  Value shifted = op.getLeft() ? b.create<arith::ShLIOp>(loc, x[0], x[1]).getResult()
                               : b.create<arith::ShRUIOp>(loc, x[0], x[1]).getResult();
  // LLVM leaves shifts by the width or more undefined; ONNX gives 0.
  Value width = constLike(b, loc, x[1], x[1].getType().getIntOrFloatBitWidth());
  Value tooFar = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, x[1], width);
  return b.create<arith::SelectOp>(loc, tooFar, constLike(b, loc, x[0], 0), shifted);
}

struct ConvLowering : DlcPattern<dlc::ConvOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::ConvOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = signlessType(op.getType());
    auto inType = tensorType(a.getInput());
    auto wType = tensorType(a.getWeight());
    ArrayRef<int64_t> p = op.getPads();
    Value input = padWith(r, loc, a.getInput(), {0, 0, p[0], p[1]},
                          {0, 0, p[2], p[3]}, 0.0);
    auto strides = r.getI64TensorAttr(op.getStrides());
    auto dilations = r.getI64TensorAttr(op.getDilations());
    Value init = biasInit(r, loc, outType, a.getBias(), 1);
    int64_t group = op.getGroup();
    int64_t c = inType.getDimSize(1), f = wType.getDimSize(0);
    Value result;
    if (group == 1) {
      result = r.create<linalg::Conv2DNchwFchwOp>(loc, outType,
                                                  ValueRange{input, a.getWeight()},
                                                  init, strides, dilations)
                   .getResult(0);
    } else if (group == c && f == c) {
      // Depthwise: weight [C,1,kh,kw] -> [C,kh,kw].
      Value w = reshapeStatic(r, loc, a.getWeight(),
                              {c, wType.getDimSize(2), wType.getDimSize(3)});
      result = r.create<linalg::DepthwiseConv2DNchwChwOp>(
                    loc, outType, ValueRange{input, w}, init, strides, dilations)
                   .getResult(0);
    } else {
      // Grouped: split the channel dims into [G, C/G].
      auto pt = tensorType(input);
      Value x = reshapeStatic(r, loc, input,
                              {pt.getDimSize(0), group, c / group,
                               pt.getDimSize(2), pt.getDimSize(3)});
      Value w = reshapeStatic(r, loc, a.getWeight(),
                              {group, f / group, wType.getDimSize(1),
                               wType.getDimSize(2), wType.getDimSize(3)});
      SmallVector<int64_t> gOut{outType.getDimSize(0), group, f / group,
                                outType.getDimSize(2), outType.getDimSize(3)};
      auto gType = RankedTensorType::get(gOut, outType.getElementType());
      Value gInit = reshapeStatic(r, loc, init, gOut);
      Value g = r.create<linalg::Conv2DNgchwGfchwOp>(loc, gType, ValueRange{x, w},
                                                     gInit, strides, dilations)
                    .getResult(0);
      result = reshapeStatic(r, loc, g, outType.getShape());
    }
    r.replaceOp(op, result);
    return success();
  }
};

/// The float32 values of a constant tensor (dense or dense_resource).
std::optional<SmallVector<float>> constantFloats(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return llvm::to_vector(dense.getValues<float>());
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob()) {
      ArrayRef<char> bytes = blob->getData();
      SmallVector<float> out(bytes.size() / sizeof(float));
      memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
      return out;
    }
  return std::nullopt;
}

struct GemmLowering : DlcPattern<dlc::GemmOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::GemmOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = signlessType(op.getType());
    auto transpose2d = [&](Value v) -> Value {
      auto t = tensorType(v);
      Value init = r.create<tensor::EmptyOp>(
          loc, ArrayRef<int64_t>{t.getDimSize(1), t.getDimSize(0)}, t.getElementType());
      return r.create<linalg::TransposeOp>(loc, v, init, ArrayRef<int64_t>{1, 0})
          .getResult()[0];
    };
    Value lhs = op.getTransA() ? transpose2d(a.getA()) : a.getA();
    float alpha = op.getAlpha().convertToFloat(), beta = op.getBeta().convertToFloat();
    Value c = a.getC();
    // With alpha == 1 the scaled C is the accumulator's initial value.
    Value init;
    if (c && alpha == 1.0f && beta != 0.0f)
      init = buildElementwise(r, loc, outType, c,
                              [&](OpBuilder &b, Location l, ValueRange x) -> Value {
                                if (beta == 1.0f)
                                  return x[0];
                                return b.create<arith::MulFOp>(l, x[0], constLike(b, l, x[0], beta));
                              });
    else
      init = filled(r, loc, outType, 0.0);
    Value result, rhs = a.getB();
    bool transB = op.getTransB();
    if (transB) {
      // A weight [N, K] is transposed here, once, so that the GEMM reads
      // rows of [K, N] along its vector lanes instead of strided columns.
      if (auto w = constantFloats(rhs)) {
        auto t = tensorType(rhs);
        int64_t n = t.getDimSize(0), k = t.getDimSize(1);
        SmallVector<float> wt(w->size());
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < k; ++j)
            wt[j * n + i] = (*w)[i * k + j];
        auto type = RankedTensorType::get({k, n}, t.getElementType());
        auto blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<float>(wt));
        rhs = r.create<arith::ConstantOp>(
            loc, DenseResourceElementsAttr::get(type, "transposed", std::move(blob)));
        transB = false;
      }
    }
    if (transB)
      result = r.create<linalg::MatmulTransposeBOp>(loc, outType, ValueRange{lhs, rhs}, init)
                   .getResult(0);
    else
      result = r.create<linalg::MatmulOp>(loc, outType, ValueRange{lhs, rhs}, init)
                   .getResult(0);
    if (alpha != 1.0f) {
      SmallVector<Value> ins{result};
      if (c && beta != 0.0f)
        ins.push_back(c);
      result = buildElementwise(r, loc, outType, ins,
                                [&](OpBuilder &b, Location l, ValueRange x) -> Value {
                                  Value s = b.create<arith::MulFOp>(l, x[0], constLike(b, l, x[0], alpha));
                                  if (x.size() == 1)
                                    return s;
                                  Value cb = b.create<arith::MulFOp>(l, x[1], constLike(b, l, x[0], beta));
                                  return b.create<arith::AddFOp>(l, s, cb);
                                });
    }
    r.replaceOp(op, result);
    return success();
  }
};

/// Materialise numpy broadcasting of `v` to `shape` (a copy only when needed).
Value broadcastTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto t = tensorType(v);
  if (t.getShape() == shape)
    return v;
  auto outType = RankedTensorType::get(shape, t.getElementType());
  return buildElementwise(b, loc, outType, v,
                          [](OpBuilder &, Location, ValueRange x) { return x[0]; });
}

struct MatMulLowering : DlcPattern<dlc::MatMulOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::MatMulOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = signlessType(op.getType());
    Type elem = outType.getElementType();
    SmallVector<int64_t> ls(tensorType(a.getLhs()).getShape()),
        rs(tensorType(a.getRhs()).getShape());
    if (ls.size() == 1)
      ls.insert(ls.begin(), 1);
    if (rs.size() == 1)
      rs.push_back(1);
    Value lhs = reshapeStatic(r, loc, a.getLhs(), ls);
    Value rhs = reshapeStatic(r, loc, a.getRhs(), rs);
    int64_t m = ls[ls.size() - 2], k = ls.back(), n = rs.back();
    Value result;
    if (rs.size() == 2) {
      // Fold all batch dims of the lhs into M: one plain matmul.
      int64_t bm = 1;
      for (int64_t d : ls)
        bm *= d;
      bm /= k;
      Value l2 = reshapeStatic(r, loc, lhs, {bm, k});
      auto t = RankedTensorType::get({bm, n}, elem);
      result = r.create<linalg::MatmulOp>(loc, t, ValueRange{l2, rhs},
                                          filled(r, loc, t, 0.0))
                   .getResult(0);
    } else {
      SmallVector<int64_t> batch(outType.getShape());
      batch.resize(std::max(ls.size(), rs.size()) - 2);
      // Recompute the broadcast batch shape from the operands.
      size_t br = batch.size();
      for (size_t i = 0; i < br; ++i) {
        auto dimOf = [&](ArrayRef<int64_t> s) -> int64_t {
          size_t sb = s.size() - 2;
          return i < br - sb ? 1 : s[i - (br - sb)];
        };
        batch[i] = std::max(dimOf(ls), dimOf(rs));
      }
      int64_t nb = 1;
      for (int64_t d : batch)
        nb *= d;
      SmallVector<int64_t> lFull(batch), rFull(batch);
      lFull.append({m, k});
      rFull.append({k, n});
      Value l3 = reshapeStatic(r, loc, broadcastTo(r, loc, lhs, lFull), {nb, m, k});
      Value r3 = reshapeStatic(r, loc, broadcastTo(r, loc, rhs, rFull), {nb, k, n});
      auto t = RankedTensorType::get({nb, m, n}, elem);
      result = r.create<linalg::BatchMatmulOp>(loc, t, ValueRange{l3, r3},
                                               filled(r, loc, t, 0.0))
                   .getResult(0);
    }
    r.replaceOp(op, reshapeStatic(r, loc, result, outType.getShape()));
    return success();
  }
};

template <typename OpTy>
struct PoolLowering : DlcPattern<OpTy> {
  PoolLowering(const TypeConverter &converter, MLIRContext *ctx, bool foldPadding)
      : DlcPattern<OpTy>(converter, ctx), foldPadding(foldPadding) {}
  static constexpr bool isMax = std::is_same_v<OpTy, dlc::MaxPoolOp>;
  bool foldPadding; ///< max pooling reads the unpadded input (see below)

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = signlessType(op.getType());
    auto inType = tensorType(a.getInput());
    ArrayRef<int64_t> k = op.getKernelShape(), s = op.getStrides(),
                      p = op.getPads(), d = op.getDilations();
    // ceil_mode may need more trailing padding than the explicit pads.
    SmallVector<int64_t> high(4, 0), low{0, 0, p[0], p[1]};
    for (int i = 0; i < 2; ++i) {
      int64_t need = (outType.getDimSize(2 + i) - 1) * s[i] + (k[i] - 1) * d[i] + 1;
      high[2 + i] = std::max<int64_t>(p[2 + i], need - inType.getDimSize(2 + i) - p[i]);
    }
    double neutral = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    bool padded = llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
                  llvm::any_of(high, [](int64_t v) { return v != 0; });
    if (isMax && foldPadding && padded) {
      r.replaceOp(op, maxOverUnpadded(r, loc, a.getInput(), outType, k, s, d, low));
      return success();
    }
    Value input = padWith(r, loc, a.getInput(), low, high, neutral);
    Value window = r.create<tensor::EmptyOp>(loc, k, r.getF32Type());
    auto strides = r.getI64TensorAttr(s);
    auto dilations = r.getI64TensorAttr(d);
    Value init = filled(r, loc, outType, neutral);
    if constexpr (isMax) {
      r.replaceOp(op, r.create<linalg::PoolingNchwMaxOp>(
                          loc, outType, ValueRange{input, window}, init, strides, dilations)
                          .getResult(0));
    } else {
      Value sum = r.create<linalg::PoolingNchwSumOp>(
                       loc, outType, ValueRange{input, window}, init, strides, dilations)
                      .getResult(0);
      r.replaceOp(op, divideByCount(r, loc, op, sum, inType, outType));
    }
    return success();
  }

  /// Max pooling of `x` read in place, -inf outside it: an all-parallel
  /// generic over (n, c, oh, ow) whose body reads the window's taps, one
  /// after another, and keeps their maximum in a register. On the GPU this
  /// is one kernel where the padded copy took a fill and a copy of the
  /// input (ResNet-50 batch 32: 4 launches, 0.27 ms), and where the
  /// window as reduction dims (linalg's form) took a fill of -inf and a
  /// kernel that stored the running maximum after every tap: LLVM cannot
  /// tell the input's and output's views of the arena apart (0.104 ms).
  static Value maxOverUnpadded(OpBuilder &b, Location loc, Value x, RankedTensorType outType,
                               ArrayRef<int64_t> k, ArrayRef<int64_t> s, ArrayRef<int64_t> d,
                               ArrayRef<int64_t> low) {
    double negInf = -std::numeric_limits<double>::infinity();
    Value out = b.create<tensor::EmptyOp>(loc, outType.getShape(), b.getF32Type());
    SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(4)};
    SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
    return b
        .create<linalg::GenericOp>(
            loc, outType, ValueRange{}, ValueRange{out}, maps, iters,
            [&](OpBuilder &nb, Location l, ValueRange) {
              auto c = [&](int64_t v) { return nb.create<arith::ConstantIndexOp>(l, v); };
              // o * stride + tap * dilation - pad.
              auto at = [&](unsigned o, int64_t tap, int axis) -> Value {
                Value v = nb.create<arith::MulIOp>(l, nb.create<linalg::IndexOp>(l, o),
                                                   c(s[axis]));
                return nb.create<arith::AddIOp>(l, v, c(tap * d[axis] - low[2 + axis]));
              };
              Value lowest = nb.create<arith::ConstantOp>(l, nb.getF32FloatAttr(negInf));
              Value m;
              for (int64_t i = 0; i < k[0]; ++i)
                for (int64_t j = 0; j < k[1]; ++j) {
                  Value v = readInsideOr(nb, l, x, at(2, i, 0), at(3, j, 1), lowest);
                  m = m ? nb.create<arith::MaximumFOp>(l, m, v).getResult() : v;
                }
              nb.create<linalg::YieldOp>(l, m);
            })
        .getResult(0);
  }

  static Value divideByCount(OpBuilder &b, Location loc, dlc::AveragePoolOp op,
                             Value sum, RankedTensorType inType,
                             RankedTensorType outType) {
    Value table = poolInverseDivisors(b, loc, outType, inType.getShape(), op.getKernelShape(),
                                      op.getStrides(), op.getPads(), op.getDilations(),
                                      op.getCountIncludePad());
    AffineMap id = b.getMultiDimIdentityMap(4);
    AffineMap hw = AffineMap::get(4, 0, {b.getAffineDimExpr(2), b.getAffineDimExpr(3)},
                                  b.getContext());
    return buildParallelGeneric(b, loc, outType, ValueRange{sum, table}, {id, hw},
                                [](OpBuilder &nb, Location l, ValueRange x) -> Value {
                                  return nb.create<arith::MulFOp>(l, x[0], x[1]);
                                });
  }
  static Value divideByCount(OpBuilder &, Location, dlc::MaxPoolOp, Value v,
                             RankedTensorType, RankedTensorType) {
    return v;
  }
};

/// Reduce `input` over dim `axis` into a tensor without that dim. Over a
/// static innermost dim that splits into vector lanes (reductionLanes), the
/// reduction runs in lanes (dlc::sumInLanes with `combine`, `init` its
/// identity): a Softmax over 1000 classes otherwise kept one scalar chain
/// of max and one of add per row.
Value reduceDim(OpBuilder &b, Location loc, Value input, int64_t axis, double init,
                CombineFn combine) {
  auto t = tensorType(input);
  int64_t rank = t.getRank();
  if (axis == rank - 1 && t.hasStaticShape())
    if (int64_t lanes = reductionLanes(t.getDimSize(axis))) {
      auto keptType = RankedTensorType::get(t.getShape().drop_back(), t.getElementType());
      SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
      iters.back() = utils::IteratorType::reduction;
      return sumInLanes(
          b, loc, input, {b.getMultiDimIdentityMap(rank)},
          b.getMultiDimIdentityMap(rank).dropResult(rank - 1), iters,
          filled(b, loc, keptType, init), lanes,
          [](OpBuilder &, Location, ValueRange v) { return v[0]; }, combine, init);
    }
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis) {
      shape.push_back(t.getDimSize(i));
      outExprs.push_back(b.getAffineDimExpr(i));
    }
  auto outType = RankedTensorType::get(shape, t.getElementType());
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank),
                              AffineMap::get(rank, 0, outExprs, b.getContext())};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[axis] = utils::IteratorType::reduction;
  return b
      .create<linalg::GenericOp>(loc, outType, input, filled(b, loc, outType, init),
                                 maps, iters,
                                 [&](OpBuilder &nb, Location l, ValueRange x) {
                                   nb.create<linalg::YieldOp>(l, combine(nb, l, x[1], x[0]));
                                 })
      .getResult(0);
}

/// Elementwise over `full` with a reduced tensor (missing `axis`) broadcast.
Value combineWithReduced(OpBuilder &b, Location loc, Value full, Value reduced,
                         int64_t axis, BodyFn body) {
  auto t = tensorType(full);
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (i != axis)
      exprs.push_back(b.getAffineDimExpr(i));
  return buildParallelGeneric(
      b, loc, t, ValueRange{full, reduced},
      {b.getMultiDimIdentityMap(t.getRank()),
       AffineMap::get(t.getRank(), 0, exprs, b.getContext())},
      body);
}

/// Softmax and LogSoftmax: max-subtracted exponentials over `axis`.
template <typename OpTy>
struct SoftmaxLowering : DlcPattern<OpTy> {
  using DlcPattern<OpTy>::DlcPattern;
  static constexpr bool isLog = std::is_same_v<OpTy, dlc::LogSoftmaxOp>;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto type = tensorType(a.getInput());
    Value x = a.getInput();
    int64_t axis = op.getAxis();
    if (op.getCoerce_2d()) {
      int64_t outer = 1, inner = 1;
      for (int64_t i = 0; i < type.getRank(); ++i)
        (i < axis ? outer : inner) *= type.getDimSize(i);
      x = reshapeStatic(r, loc, x, {outer, inner});
      axis = 1;
    }
    Value max = reduceDim(r, loc, x, axis, -std::numeric_limits<double>::infinity(),
                          [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
                            return b.create<arith::MaximumFOp>(l, acc, v);
                          });
    Value e = combineWithReduced(r, loc, x, max, axis,
                                 [](OpBuilder &b, Location l, ValueRange v) -> Value {
                                   return b.create<math::ExpOp>(
                                       l, b.create<arith::SubFOp>(l, v[0], v[1]));
                                 });
    Value sum = reduceDim(r, loc, e, axis, 0.0,
                          [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
                            return b.create<arith::AddFOp>(l, acc, v);
                          });
    Value y;
    auto rowType = tensorType(sum);
    auto rowMap = r.getMultiDimIdentityMap(rowType.getRank());
    if constexpr (isLog) {
      // x - (max + log(sum e^(x - max))): one log per row, not per element
      // (a log per element ran LogSoftmax over 1000 classes 7x slower).
      Value offset = buildParallelGeneric(
          r, loc, rowType, ValueRange{max, sum}, {rowMap, rowMap},
          [](OpBuilder &b, Location l, ValueRange v) -> Value {
            return b.create<arith::AddFOp>(l, v[0], b.create<math::LogOp>(l, v[1]));
          });
      y = combineWithReduced(r, loc, x, offset, axis,
                             [](OpBuilder &b, Location l, ValueRange v) -> Value {
                               return b.create<arith::SubFOp>(l, v[0], v[1]);
                             });
    } else {
      // e * (1 / sum), one divide per row as in MLAS: a vector divide per
      // element cost Softmax over 1000 classes a quarter of its time.
      Value inverse = buildParallelGeneric(
          r, loc, rowType, ValueRange{sum}, {rowMap},
          [&](OpBuilder &b, Location l, ValueRange v) -> Value {
            Value one = b.create<arith::ConstantOp>(l, b.getFloatAttr(rowType.getElementType(), 1.0));
            return b.create<arith::DivFOp>(l, one, v[0]);
          });
      y = combineWithReduced(r, loc, e, inverse, axis,
                             [](OpBuilder &b, Location l, ValueRange v) -> Value {
                               return b.create<arith::MulFOp>(l, v[0], v[1]);
                             });
    }
    r.replaceOp(op, reshapeStatic(r, loc, y, type.getShape()));
    return success();
  }
};

/// A float sum over `axes` that include the innermost dim, in vector lanes
/// (sumInLanes) after merging runs of adjacent reduced or kept dims (views):
/// a conv bias gradient, [N, C, H, W] over {0, 2, 3}, sums [N, C, H*W] in
/// lanes along H*W. Null when the innermost run does not split into lanes
/// (reductionLanes, with `partialVectors`).
Value sumInLanesIfContiguous(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                             RankedTensorType redType, StringRef kind, bool partialVectors) {
  auto type = tensorType(x);
  int64_t rank = type.getRank();
  if (rank == 0 || !llvm::is_contained(axes, rank - 1))
    return nullptr;
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> shape;
  SmallVector<bool> reducedGroup;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(axes, i);
    if (groups.empty() || reducedGroup.back() != reduced) {
      groups.push_back({});
      shape.push_back(1);
      reducedGroup.push_back(reduced);
    }
    groups.back().push_back(i);
    shape.back() *= type.getDimSize(i);
  }
  int64_t lanes = reductionLanes(shape.back(), /*vectorWidth=*/8, partialVectors);
  if (!lanes)
    return nullptr;
  Value merged = b.create<tensor::CollapseShapeOp>(loc, type.clone(shape), x, groups);
  SmallVector<utils::IteratorType> iters;
  SmallVector<AffineExpr> outExprs;
  SmallVector<int64_t> keptShape;
  for (auto [i, reduced] : llvm::enumerate(reducedGroup)) {
    iters.push_back(reduced ? utils::IteratorType::reduction : utils::IteratorType::parallel);
    if (!reduced) {
      outExprs.push_back(b.getAffineDimExpr(i));
      keptShape.push_back(shape[i]);
    }
  }
  auto keptType = redType.clone(keptShape);
  Value sum = sumInLanes(
      b, loc, merged, {b.getMultiDimIdentityMap(shape.size())},
      AffineMap::get(shape.size(), 0, outExprs, b.getContext()), iters,
      filled(b, loc, keptType, 0.0), lanes, [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        if (kind == "l1")
          return nb.create<math::AbsFOp>(l, v[0]);
        if (kind == "l2" || kind == "sum_square")
          return nb.create<arith::MulFOp>(l, v[0], v[0]);
        if (kind == "log_sum_exp")
          return nb.create<math::ExpOp>(l, v[0]);
        return v[0];
      });
  return reshapeStatic(b, loc, sum, redType.getShape());
}

/// ONNX Reduce*: an optional map per element, one reduction over the axes
/// (all of them at once), an optional map of the result.
struct ReduceLowering : DlcPattern<dlc::ReduceOp> {
  ReduceLowering(const TypeConverter &converter, MLIRContext *ctx, bool partialLanes)
      : DlcPattern(converter, ctx), partialLanes(partialLanes) {}
  bool partialLanes; ///< sums in lanes that fill no whole vector (see below)

  LogicalResult matchAndRewrite(dlc::ReduceOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto type = tensorType(a.getInput());
    int64_t rank = type.getRank();
    StringRef kind = op.getKind();
    SmallVector<int64_t> axes(op.getAxes());
    if (axes.empty())
      axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    SmallVector<int64_t> shape;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    int64_t count = 1;
    for (int64_t i = 0; i < rank; ++i) {
      bool reduced = llvm::is_contained(axes, i);
      iters.push_back(reduced ? utils::IteratorType::reduction : utils::IteratorType::parallel);
      if (reduced) {
        count *= type.getDimSize(i);
      } else {
        shape.push_back(type.getDimSize(i));
        outExprs.push_back(r.getAffineDimExpr(i));
      }
    }
    double init = kind == "max"    ? -std::numeric_limits<double>::infinity()
                  : kind == "min"  ? std::numeric_limits<double>::infinity()
                  : kind == "prod" ? 1.0
                                   : 0.0;
    bool isFloat = isFloatValue(a.getInput()), u = isUnsignedLike(op.getInput());
    if (!isFloat && kind != "max" && kind != "min" && kind != "sum" && kind != "prod" &&
        kind != "sum_square" && kind != "l1")
      return r.notifyMatchFailure(op, "this reduction needs a float input");
    if (u && (kind == "max" || kind == "min"))
      init = kind == "max" ? 0.0 : -1.0; // -1: all ones, the largest unsigned value
    auto redType = RankedTensorType::get(shape, type.getElementType());
    bool additive = isFloat && (kind == "sum" || kind == "mean" || kind == "l1" ||
                                kind == "l2" || kind == "sum_square" || kind == "log_sum" ||
                                kind == "log_sum_exp");
    Value reduced;
    if (additive && type.hasStaticShape())
      reduced = sumInLanesIfContiguous(r, loc, a.getInput(), axes, redType, kind, partialLanes);
    SmallVector<AffineMap> maps{r.getMultiDimIdentityMap(rank),
                                AffineMap::get(rank, 0, outExprs, r.getContext())};
    if (!reduced)
      reduced =
        r.create<linalg::GenericOp>(
             loc, redType, a.getInput(), filled(r, loc, redType, init), maps, iters,
             [&](OpBuilder &b, Location l, ValueRange v) {
               Value x = v[0], acc = v[1], res;
               if (!isFloat) {
                 if (kind == "l1" && !u)
                   x = b.create<math::AbsIOp>(l, x);
                 else if (kind == "sum_square")
                   x = b.create<arith::MulIOp>(l, x, x);
                 if (kind == "max")
                   res = u ? b.create<arith::MaxUIOp>(l, acc, x).getResult()
                           : b.create<arith::MaxSIOp>(l, acc, x).getResult();
                 else if (kind == "min")
                   res = u ? b.create<arith::MinUIOp>(l, acc, x).getResult()
                           : b.create<arith::MinSIOp>(l, acc, x).getResult();
                 else if (kind == "prod")
                   res = b.create<arith::MulIOp>(l, acc, x);
                 else
                   res = b.create<arith::AddIOp>(l, acc, x);
                 b.create<linalg::YieldOp>(l, res);
                 return;
               }
               if (kind == "l1")
                 x = b.create<math::AbsFOp>(l, x);
               else if (kind == "l2" || kind == "sum_square")
                 x = b.create<arith::MulFOp>(l, x, x);
               else if (kind == "log_sum_exp")
                 x = b.create<math::ExpOp>(l, x);
               if (kind == "max")
                 res = b.create<arith::MaximumFOp>(l, acc, x);
               else if (kind == "min")
                 res = b.create<arith::MinimumFOp>(l, acc, x);
               else if (kind == "prod")
                 res = b.create<arith::MulFOp>(l, acc, x);
               else
                 res = b.create<arith::AddFOp>(l, acc, x);
               b.create<linalg::YieldOp>(l, res);
             })
            .getResult(0);
    if (kind == "mean" || kind == "l2" || kind == "log_sum" || kind == "log_sum_exp")
      reduced = buildElementwise(r, loc, redType, reduced,
                                 [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                                   if (kind == "mean")
                                     return b.create<arith::MulFOp>(l, v[0], constLike(b, l, v[0], 1.0 / count));
                                   if (kind == "l2")
                                     return b.create<math::SqrtOp>(l, v[0]);
                                   return b.create<math::LogOp>(l, v[0]);
                                 });
    r.replaceOp(op, reshapeStatic(r, loc, reduced, signlessType(op.getType()).getShape()));
    return success();
  }
};

struct GlobalAveragePoolLowering : DlcPattern<dlc::GlobalAveragePoolOp> {
  GlobalAveragePoolLowering(const TypeConverter &converter, MLIRContext *ctx, bool partialLanes)
      : DlcPattern(converter, ctx), partialLanes(partialLanes) {}
  /// Maps that no whole or half vector divides in lanes too where some
  /// count between divides it (reductionLanes).
  bool partialLanes;

  LogicalResult matchAndRewrite(dlc::GlobalAveragePoolOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto type = tensorType(a.getInput());
    int64_t n = type.getDimSize(0), c = type.getDimSize(1), hw = 1;
    for (int64_t i = 2; i < type.getRank(); ++i)
      hw *= type.getDimSize(i);
    Value x = reshapeStatic(r, loc, a.getInput(), {n, c, hw});
    // In vector lanes where the map splits into them (as ReduceMean): one
    // add chain a channel ran 256 x 56 x 56 at 4 GB/s, serial (0.8 ms).
    // With partialLanes a 7x7 map's 49 go in 7 lanes: MobileNetV2's 1280
    // chains of 49 adds ran serially in its entry, 0.2-0.3% of the model
    // at one thread (Zen 5, perf), and now run as a parallel loop of 3.5 us.
    Value sum;
    if (isFloatValue(a.getInput()) && type.hasStaticShape())
      sum = sumInLanesIfContiguous(r, loc, x, {2},
                                   RankedTensorType::get({n, c}, type.getElementType()), "sum",
                                   partialLanes);
    if (!sum)
      sum = reduceDim(r, loc, x, 2, 0.0, [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
        return b.create<arith::AddFOp>(l, acc, v);
      });
    Value mean = buildElementwise(r, loc, tensorType(sum), sum,
                                  [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                                    return b.create<arith::MulFOp>(
                                        l, v[0], constLike(b, l, v[0], 1.0 / hw));
                                  });
    r.replaceOp(op, reshapeStatic(r, loc, mean, signlessType(op.getType()).getShape()));
    return success();
  }
};

struct BatchNormLowering : DlcPattern<dlc::BatchNormOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::BatchNormOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto type = tensorType(a.getInput());
    auto paramType = tensorType(a.getScale());
    float eps = op.getEpsilon().convertToFloat();
    // y = x * s + t with s = scale / sqrt(var + eps), t = bias - mean * s:
    // folded here when the parameters are weights (the usual case), else
    // computed once per channel at run time.
    auto scale = constantFloats(a.getScale()), bias = constantFloats(a.getBias()),
         mean = constantFloats(a.getMean()), var = constantFloats(a.getVariance());
    int64_t rank = type.getRank();
    if (scale && bias && mean && var) {
      SmallVector<float> s(scale->size()), t(scale->size());
      for (size_t c = 0; c < s.size(); ++c) {
        s[c] = (*scale)[c] / std::sqrt((*var)[c] + eps);
        t[c] = (*bias)[c] - (*mean)[c] * s[c];
      }
      Value sv = r.create<arith::ConstantOp>(loc, DenseElementsAttr::get(paramType, ArrayRef<float>(s)));
      Value tv = r.create<arith::ConstantOp>(loc, DenseElementsAttr::get(paramType, ArrayRef<float>(t)));
      r.replaceOp(op, buildParallelGeneric(
                          r, loc, type, ValueRange{a.getInput(), sv, tv},
                          {r.getMultiDimIdentityMap(rank), channelMap(r, rank, 1), channelMap(r, rank, 1)},
                          [](OpBuilder &b, Location l, ValueRange v) -> Value {
                            return b.create<math::FmaOp>(l, v[0], v[1], v[2]);
                          }));
      return success();
    }
    Value sc = buildElementwise(r, loc, paramType, ValueRange{a.getScale(), a.getVariance()},
                                [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                                  Value ve = b.create<arith::AddFOp>(l, v[1], constLike(b, l, v[1], eps));
                                  return b.create<arith::DivFOp>(l, v[0], b.create<math::SqrtOp>(l, ve));
                                });
    Value sh = buildElementwise(r, loc, paramType, ValueRange{a.getBias(), a.getMean(), sc},
                                [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                                  return b.create<arith::SubFOp>(
                                      l, v[0], b.create<arith::MulFOp>(l, v[1], v[2]));
                                });
    Value y = buildParallelGeneric(
        r, loc, type, ValueRange{a.getInput(), sc, sh},
        {r.getMultiDimIdentityMap(rank), channelMap(r, rank, 1), channelMap(r, rank, 1)},
        [](OpBuilder &b, Location l, ValueRange v) -> Value {
          return b.create<math::FmaOp>(l, v[0], v[1], v[2]);
        });
    r.replaceOp(op, y);
    return success();
  }
};

template <typename OpTy>
struct ReshapeLikeLowering : DlcPattern<OpTy> {
  using DlcPattern<OpTy>::DlcPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor a,
                                ConversionPatternRewriter &r) const override {
    r.replaceOp(op, reshapeStatic(r, op.getLoc(), a.getInput(),
                                  signlessType(op.getType()).getShape()));
    return success();
  }
};

struct ExpandLowering : DlcPattern<dlc::ExpandOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::ExpandOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    r.replaceOp(op, broadcastTo(r, op.getLoc(), a.getInput(),
                                signlessType(op.getType()).getShape()));
    return success();
  }
};

struct SliceLowering : DlcPattern<dlc::SliceOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::SliceOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    auto outType = signlessType(op.getType());
    Value slice = r.create<tensor::ExtractSliceOp>(
        op.getLoc(), outType, a.getInput(), ValueRange{}, ValueRange{}, ValueRange{},
        op.getOffsets(), op.getSizes(), op.getSteps());
    r.replaceOp(op, slice);
    return success();
  }
};

/// One generic over the output: the index is read from `indices` (through
/// its indexing map), wrapped if negative, and the element extracted from
/// `data`.
struct GatherLowering : DlcPattern<dlc::GatherOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::GatherOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = signlessType(op.getType());
    auto dataType = tensorType(a.getData());
    auto idxType = tensorType(a.getIndices());
    int64_t axis = op.getAxis(), rank = outType.getRank(), q = idxType.getRank();
    bool elements = op.getElements();
    // Gather: the indices sit at output dims [axis, axis + q).
    SmallVector<AffineExpr> idxExprs;
    for (int64_t k = 0; k < q; ++k)
      idxExprs.push_back(r.getAffineDimExpr(elements ? k : axis + k));
    AffineMap idxMap = AffineMap::get(rank, 0, idxExprs, r.getContext());
    bool idxUnsigned = isUnsignedLike(op.getIndices());
    Value data = a.getData();
    Value result = buildParallelGeneric(
        r, loc, outType, a.getIndices(), {idxMap},
        [&](OpBuilder &b, Location l, ValueRange x) -> Value {
          Value dim = b.create<arith::ConstantIndexOp>(l, dataType.getDimSize(axis));
          Value i = idxUnsigned ? b.create<arith::IndexCastUIOp>(l, b.getIndexType(), x[0]).getResult()
                                : b.create<arith::IndexCastOp>(l, b.getIndexType(), x[0]).getResult();
          Value zero = b.create<arith::ConstantIndexOp>(l, 0);
          Value neg = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, i, zero);
          i = b.create<arith::SelectOp>(l, neg, b.create<arith::AddIOp>(l, i, dim), i);
          // Out-of-range indices are invalid models; clamp so memory stays safe.
          i = b.create<arith::MaxSIOp>(l, i, zero);
          i = b.create<arith::MinSIOp>(l, i, b.create<arith::SubIOp>(
                                                 l, dim, b.create<arith::ConstantIndexOp>(l, 1)));
          SmallVector<Value> coords;
          for (int64_t d = 0; d < dataType.getRank(); ++d) {
            if (d == axis) {
              coords.push_back(i);
              continue;
            }
            int64_t outDim = elements || d < axis ? d : d + q - 1;
            coords.push_back(b.create<linalg::IndexOp>(l, outDim));
          }
          return b.create<tensor::ExtractOp>(l, data, coords);
        });
    r.replaceOp(op, result);
    return success();
  }
};

struct TransposeLowering : DlcPattern<dlc::TransposeOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::TransposeOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    auto outType = signlessType(op.getType());
    Value init = r.create<tensor::EmptyOp>(op.getLoc(), outType.getShape(),
                                           outType.getElementType());
    r.replaceOp(op, r.create<linalg::TransposeOp>(op.getLoc(), a.getInput(), init,
                                                  op.getPerm())
                        .getResult()[0]);
    return success();
  }
};

struct ConcatLowering : DlcPattern<dlc::ConcatOp> {
  using DlcPattern::DlcPattern;
  LogicalResult matchAndRewrite(dlc::ConcatOp op, Adaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = signlessType(op.getType());
    int64_t axis = op.getAxis(), rank = outType.getRank();
    Value acc = r.create<tensor::EmptyOp>(loc, outType.getShape(), outType.getElementType());
    int64_t offset = 0;
    for (Value v : a.getInputs()) {
      auto t = tensorType(v);
      SmallVector<OpFoldResult> offs(rank, r.getIndexAttr(0)), sizes, strides(rank, r.getIndexAttr(1));
      offs[axis] = r.getIndexAttr(offset);
      for (int64_t d : t.getShape())
        sizes.push_back(r.getIndexAttr(d));
      acc = r.create<tensor::InsertSliceOp>(loc, v, acc, offs, sizes, strides);
      offset += t.getDimSize(axis);
    }
    r.replaceOp(op, acc);
    return success();
  }
};

struct LowerToLinalgPass : dlc::impl::LowerToLinalgBase<LowerToLinalgPass> {
  using LowerToLinalgBase::LowerToLinalgBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<dlc::DlcDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect, scf::SCFDialect,
                           arith::ArithDialect, math::MathDialect>();
    // Unsigned element types become signless, also in the signature.
    TypeConverter converter;
    converter.addConversion([](Type t) -> Type {
      if (isa<RankedTensorType>(t))
        return signlessType(t);
      return signlessElement(t);
    });
    target.addDynamicallyLegalOp<func::FuncOp>(
        [&](func::FuncOp f) { return converter.isSignatureLegal(f.getFunctionType()); });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp op) { return converter.isLegal(op.getOperandTypes()); });
    RewritePatternSet patterns(ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    patterns.add<ConstantLowering, IdentityLowering<dlc::IdentityOp>, IdentityLowering<dlc::DropoutOp>, ElementwiseLowering<dlc::ReluOp>,
                 ElementwiseLowering<dlc::SigmoidOp>, ElementwiseLowering<dlc::TanhOp>,
                 ElementwiseLowering<dlc::ClipOp>, ElementwiseLowering<dlc::AddOp>,
                 ElementwiseLowering<dlc::SubOp>, ElementwiseLowering<dlc::MulOp>,
                 ElementwiseLowering<dlc::DivOp>,
#define DLC_ELEMENTWISE(OP) ElementwiseLowering<dlc::OP>,
                 DLC_ELEMENTWISE(AbsOp) DLC_ELEMENTWISE(NegOp) DLC_ELEMENTWISE(ExpOp)
                 DLC_ELEMENTWISE(LogOp) DLC_ELEMENTWISE(SqrtOp) DLC_ELEMENTWISE(ReciprocalOp)
                 DLC_ELEMENTWISE(FloorOp) DLC_ELEMENTWISE(CeilOp) DLC_ELEMENTWISE(RoundOp)
                 DLC_ELEMENTWISE(SignOp) DLC_ELEMENTWISE(SinOp) DLC_ELEMENTWISE(CosOp)
                 DLC_ELEMENTWISE(TanOp) DLC_ELEMENTWISE(AsinOp) DLC_ELEMENTWISE(AcosOp)
                 DLC_ELEMENTWISE(AtanOp) DLC_ELEMENTWISE(SinhOp) DLC_ELEMENTWISE(CoshOp)
                 DLC_ELEMENTWISE(AsinhOp) DLC_ELEMENTWISE(AcoshOp) DLC_ELEMENTWISE(AtanhOp)
                 DLC_ELEMENTWISE(ErfOp) DLC_ELEMENTWISE(SoftplusOp) DLC_ELEMENTWISE(SoftsignOp)
                 DLC_ELEMENTWISE(MishOp) DLC_ELEMENTWISE(LeakyReluOp) DLC_ELEMENTWISE(EluOp)
                 DLC_ELEMENTWISE(CeluOp) DLC_ELEMENTWISE(SeluOp) DLC_ELEMENTWISE(HardSigmoidOp)
                 DLC_ELEMENTWISE(HardSwishOp) DLC_ELEMENTWISE(ThresholdedReluOp)
                 DLC_ELEMENTWISE(GeluOp) DLC_ELEMENTWISE(PowOp) DLC_ELEMENTWISE(MaxOp)
                 DLC_ELEMENTWISE(MinOp) DLC_ELEMENTWISE(PReluOp) DLC_ELEMENTWISE(CastOp)
                 DLC_ELEMENTWISE(CompareOp) DLC_ELEMENTWISE(AndOp) DLC_ELEMENTWISE(OrOp)
                 DLC_ELEMENTWISE(XorOp) DLC_ELEMENTWISE(NotOp) DLC_ELEMENTWISE(WhereOp)
                 DLC_ELEMENTWISE(IsNaNOp) DLC_ELEMENTWISE(IsInfOp) DLC_ELEMENTWISE(ModOp)
                 DLC_ELEMENTWISE(BitShiftOp)
#undef DLC_ELEMENTWISE
                 ConvLowering, GemmLowering,
                 MatMulLowering, SoftmaxLowering<dlc::SoftmaxOp>,
                 SoftmaxLowering<dlc::LogSoftmaxOp>, BatchNormLowering,
                 ReshapeLikeLowering<dlc::ReshapeOp>, ReshapeLikeLowering<dlc::FlattenOp>,
                 TransposeLowering, ConcatLowering, ExpandLowering, SliceLowering,
                 GatherLowering>(converter, ctx);
    patterns.add<PoolLowering<dlc::MaxPoolOp>>(converter, ctx, foldPoolPadding);
    patterns.add<PoolLowering<dlc::AveragePoolOp>>(converter, ctx, false);
    patterns.add<ReduceLowering, GlobalAveragePoolLowering>(converter, ctx,
                                                             partialReductionLanes);
    populateGradientLoweringPatterns(patterns, converter, maxWorkspaceBytes);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
