//===- LowerGradientsToLinalg.cpp - gradient ops to linalg on tensors -----===//
//
// Part of dlc-lower-to-linalg. The two conv gradients are rewritten as
// ordinary convolutions, so that they take the same im2col + GEMM path (and
// tiling) as the forward conv:
//  - d/dinput: the output gradient, dilated by the strides and padded by the
//    kernel's extent, convolved with the kernel flipped and its channel roles
//    swapped (a transposed convolution);
//  - d/dweight: with batch and channels exchanged, the padded input convolved
//    with the output gradient as the kernel (strides and dilations swap).
// Groups run one at a time on channel slices.
// max_pool_grad routes each window's gradient to its first maximum: an
// argmax pass over windows, then a pass over input positions that gathers
// from the (at most ceil(k/s)^2) windows containing each position.
//
//===----------------------------------------------------------------------===//
#include "dialects/DlcDialect.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace dlc;

namespace {
Value extractSlice(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> offsets,
                   ArrayRef<int64_t> sizes) {
  auto t = tensorType(v);
  if (t.getShape() == sizes)
    return v;
  SmallVector<int64_t> strides(sizes.size(), 1);
  auto type = RankedTensorType::get(sizes, t.getElementType());
  return b.create<tensor::ExtractSliceOp>(loc, type, v, ValueRange{}, ValueRange{},
                                          ValueRange{}, offsets, sizes, strides);
}

Value insertSlice(OpBuilder &b, Location loc, Value part, Value into,
                  ArrayRef<int64_t> offsets, ArrayRef<int64_t> strides = {}) {
  auto t = tensorType(part);
  SmallVector<int64_t> st(strides);
  if (st.empty())
    st.assign(t.getRank(), 1);
  return b.create<tensor::InsertSliceOp>(loc, part, into, ValueRange{}, ValueRange{},
                                         ValueRange{}, offsets, t.getShape(), st);
}

Value transpose(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto t = tensorType(v);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  Value init = b.create<tensor::EmptyOp>(loc, shape, t.getElementType());
  return b.create<linalg::TransposeOp>(loc, v, init, perm).getResult()[0];
}

Value conv2d(OpBuilder &b, Location loc, Value input, Value filter, ArrayRef<int64_t> strides,
             ArrayRef<int64_t> dilations) {
  auto in = tensorType(input), w = tensorType(filter);
  SmallVector<int64_t> out{in.getDimSize(0), w.getDimSize(0), 0, 0};
  for (int i = 0; i < 2; ++i)
    out[2 + i] = (in.getDimSize(2 + i) - (w.getDimSize(2 + i) - 1) * dilations[i] - 1) /
                     strides[i] + 1;
  auto outType = RankedTensorType::get(out, in.getElementType());
  return b.create<linalg::Conv2DNchwFchwOp>(loc, outType, ValueRange{input, filter},
                                            filled(b, loc, outType, 0.0),
                                            b.getI64TensorAttr(strides),
                                            b.getI64TensorAttr(dilations))
      .getResult(0);
}

/// Gradient of one group's conv input: dy [N,O,OH,OW], w [O,C,KH,KW] ->
/// [N,C,H,W].
Value convGradInputGroup(OpBuilder &b, Location loc, Value dy, Value w, int64_t h,
                         int64_t wd, ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                         ArrayRef<int64_t> d) {
  auto dyT = tensorType(dy), wT = tensorType(w);
  Type elem = dyT.getElementType();
  int64_t n = dyT.getDimSize(0), o = dyT.getDimSize(1), c = wT.getDimSize(1);
  int64_t k[2] = {wT.getDimSize(2), wT.getDimSize(3)}, in[2] = {h, wd};
  // Zeros between the output rows/columns a stride skipped.
  SmallVector<int64_t> dil{n, o, (dyT.getDimSize(2) - 1) * s[0] + 1,
                           (dyT.getDimSize(3) - 1) * s[1] + 1};
  Value dilated = dy;
  if (s[0] != 1 || s[1] != 1)
    dilated = insertSlice(b, loc, dy, filled(b, loc, RankedTensorType::get(dil, elem), 0.0),
                          {0, 0, 0, 0}, {1, 1, s[0], s[1]});
  SmallVector<int64_t> low{0, 0, 0, 0}, high{0, 0, 0, 0};
  for (int i = 0; i < 2; ++i) {
    int64_t extent = (k[i] - 1) * d[i];
    int64_t padded = in[i] + p[i] + p[2 + i]; // the forward conv's padded input
    low[2 + i] = extent;
    high[2 + i] = extent + (padded - (dil[2 + i] + extent));
  }
  Value x = padWith(b, loc, dilated, low, high, 0.0);
  // flipped[c, o, i, j] = w[o, c, KH-1-i, KW-1-j], read with tensor.extract:
  // an indexing map with -i would not survive tiling (its tiles' shapes
  // cannot be inferred).
  Value flipped = buildParallelGeneric(
      b, loc, RankedTensorType::get({c, o, k[0], k[1]}, elem), ValueRange{}, {},
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        auto idx = [&](int64_t dim) { return nb.create<linalg::IndexOp>(l, dim); };
        auto flip = [&](int64_t dim, int64_t size) -> Value {
          return nb.create<arith::SubIOp>(l, nb.create<arith::ConstantIndexOp>(l, size - 1),
                                          idx(dim));
        };
        return nb.create<tensor::ExtractOp>(
            l, w, ValueRange{idx(1), idx(0), flip(2, k[0]), flip(3, k[1])});
      });
  Value full = conv2d(b, loc, x, flipped, {1, 1}, d);
  return extractSlice(b, loc, full, {0, 0, p[0], p[1]}, {n, c, h, wd});
}

/// Gradient of one group's conv weight: x [N,C,H,W], dy [N,O,OH,OW] ->
/// [O,C,KH,KW].
Value convGradWeightGroup(OpBuilder &b, Location loc, Value x, Value dy, int64_t kh,
                          int64_t kw, ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                          ArrayRef<int64_t> d) {
  Value xp = padWith(b, loc, x, {0, 0, p[0], p[1]}, {0, 0, p[2], p[3]}, 0.0);
  // [C,N,Hp,Wp] (*) [O,N,OH,OW], stride d, dilation s -> [C,O,>=KH,>=KW]
  Value full = conv2d(b, loc, transpose(b, loc, xp, {1, 0, 2, 3}),
                      transpose(b, loc, dy, {1, 0, 2, 3}), d, s);
  auto ft = tensorType(full);
  Value cut = extractSlice(b, loc, full, {0, 0, 0, 0},
                           {ft.getDimSize(0), ft.getDimSize(1), kh, kw});
  return transpose(b, loc, cut, {1, 0, 2, 3});
}

struct ConvGradInputLowering : OpConversionPattern<dlc::ConvGradInputOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(dlc::ConvGradInputOp op, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = tensorType(op.getResult());
    auto dyT = tensorType(a.getGradOutput()), wT = tensorType(a.getWeight());
    int64_t g = op.getGroup(), n = outType.getDimSize(0);
    int64_t cg = outType.getDimSize(1) / g, og = dyT.getDimSize(1) / g;
    int64_t h = outType.getDimSize(2), w = outType.getDimSize(3);
    Value result = g == 1 ? Value() : r.create<tensor::EmptyOp>(loc, outType.getShape(),
                                                                 outType.getElementType());
    for (int64_t i = 0; i < g; ++i) {
      Value dy = extractSlice(r, loc, a.getGradOutput(), {0, i * og, 0, 0},
                              {n, og, dyT.getDimSize(2), dyT.getDimSize(3)});
      Value wg = extractSlice(r, loc, a.getWeight(), {i * og, 0, 0, 0},
                              {og, cg, wT.getDimSize(2), wT.getDimSize(3)});
      Value part = convGradInputGroup(r, loc, dy, wg, h, w, op.getStrides(), op.getPads(),
                                      op.getDilations());
      result = g == 1 ? part : insertSlice(r, loc, part, result, {0, i * cg, 0, 0});
    }
    r.replaceOp(op, result);
    return success();
  }
};

struct ConvGradWeightLowering : OpConversionPattern<dlc::ConvGradWeightOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(dlc::ConvGradWeightOp op, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = tensorType(op.getResult());
    auto xT = tensorType(a.getInput()), dyT = tensorType(a.getGradOutput());
    int64_t g = op.getGroup(), n = xT.getDimSize(0);
    int64_t cg = xT.getDimSize(1) / g, og = dyT.getDimSize(1) / g;
    Value result = g == 1 ? Value() : r.create<tensor::EmptyOp>(loc, outType.getShape(),
                                                                 outType.getElementType());
    for (int64_t i = 0; i < g; ++i) {
      Value x = extractSlice(r, loc, a.getInput(), {0, i * cg, 0, 0},
                             {n, cg, xT.getDimSize(2), xT.getDimSize(3)});
      Value dy = extractSlice(r, loc, a.getGradOutput(), {0, i * og, 0, 0},
                              {n, og, dyT.getDimSize(2), dyT.getDimSize(3)});
      Value part = convGradWeightGroup(r, loc, x, dy, outType.getDimSize(2),
                                       outType.getDimSize(3), op.getStrides(), op.getPads(),
                                       op.getDilations());
      result = g == 1 ? part : insertSlice(r, loc, part, result, {i * og, 0, 0, 0});
    }
    r.replaceOp(op, result);
    return success();
  }
};

struct MaxPoolGradLowering : OpConversionPattern<dlc::MaxPoolGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(dlc::MaxPoolGradOp op, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = r.getContext();
    auto inType = tensorType(a.getInput()), dyType = tensorType(a.getGradOutput());
    Type elem = inType.getElementType();
    ArrayRef<int64_t> k = op.getKernelShape(), s = op.getStrides(), p = op.getPads(),
                      d = op.getDilations();
    int64_t oh = dyType.getDimSize(2), ow = dyType.getDimSize(3);
    // The forward pass's padding, ceil_mode's extra cells included.
    SmallVector<int64_t> low{0, 0, p[0], p[1]}, high(4, 0);
    for (int i = 0; i < 2; ++i) {
      int64_t need = (dyType.getDimSize(2 + i) - 1) * s[i] + (k[i] - 1) * d[i] + 1;
      high[2 + i] = std::max<int64_t>(p[2 + i], need - inType.getDimSize(2 + i) - p[i]);
    }
    Value xp = padWith(r, loc, a.getInput(), low, high, -INFINITY);
    Value window = r.create<tensor::EmptyOp>(loc, k, elem);

    // 1. Per window: the first maximum's offset i * KW + j.
    AffineExpr n, c, y, x, i, j;
    bindDims(ctx, n, c, y, x, i, j);
    auto idxType = RankedTensorType::get(dyType.getShape(), r.getI64Type());
    SmallVector<AffineMap> maps{
        AffineMap::get(6, 0, {n, c, y * s[0] + i * d[0], x * s[1] + j * d[1]}, ctx),
        AffineMap::get(6, 0, {i, j}, ctx), AffineMap::get(6, 0, {n, c, y, x}, ctx),
        AffineMap::get(6, 0, {n, c, y, x}, ctx)};
    SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
    iters.append(2, utils::IteratorType::reduction);
    auto argmax = r.create<linalg::GenericOp>(
        loc, TypeRange{dyType, idxType}, ValueRange{xp, window},
        ValueRange{filled(r, loc, dyType, -INFINITY), filled(r, loc, idxType, 0.0)}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange v) {
          Value ii = b.create<linalg::IndexOp>(l, 4), jj = b.create<linalg::IndexOp>(l, 5);
          Value flat = b.create<arith::AddIOp>(
              l, b.create<arith::MulIOp>(l, ii, b.create<arith::ConstantIndexOp>(l, k[1])), jj);
          flat = b.create<arith::IndexCastOp>(l, b.getI64Type(), flat);
          Value better = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, v[0], v[2]);
          b.create<linalg::YieldOp>(
              l, ValueRange{b.create<arith::SelectOp>(l, better, v[0], v[2]),
                            b.create<arith::SelectOp>(l, better, flat, v[3])});
        });
    Value best = argmax.getResult(1), dy = a.getGradOutput();

    // 2. Per input position: the sum over the windows whose maximum it is.
    SmallVector<AffineMap> maps2{AffineMap::get(6, 0, {i, j}, ctx),
                                 AffineMap::get(6, 0, {n, c, y, x}, ctx)};
    auto grad = r.create<linalg::GenericOp>(
        loc, TypeRange{inType}, ValueRange{window}, ValueRange{filled(r, loc, inType, 0.0)},
        maps2, iters, [&](OpBuilder &b, Location l, ValueRange v) {
          auto idx = [&](int64_t dim) { return b.create<linalg::IndexOp>(l, dim); };
          auto cst = [&](int64_t c) { return b.create<arith::ConstantIndexOp>(l, c); };
          Value zero = cst(0);
          Value valid = b.create<arith::ConstantIntOp>(l, 1, 1);
          SmallVector<Value> coords{idx(0), idx(1)};
          int64_t outDims[2] = {oh, ow};
          for (int a2 = 0; a2 < 2; ++a2) {
            // padded position minus the window offset: the window start
            Value start = b.create<arith::SubIOp>(
                l, b.create<arith::AddIOp>(l, idx(2 + a2), cst(p[a2])),
                b.create<arith::MulIOp>(l, idx(4 + a2), cst(d[a2])));
            Value q = b.create<arith::DivSIOp>(l, start, cst(s[a2]));
            Value rem = b.create<arith::RemSIOp>(l, start, cst(s[a2]));
            Value ok = b.create<arith::AndIOp>(
                l, b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, start, zero),
                b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, rem, zero));
            ok = b.create<arith::AndIOp>(
                l, ok, b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, q, cst(outDims[a2])));
            valid = b.create<arith::AndIOp>(l, valid, ok);
            coords.push_back(b.create<arith::SelectOp>(l, ok, q, zero));
          }
          Value at = b.create<tensor::ExtractOp>(l, best, coords);
          Value mine = b.create<arith::AddIOp>(
              l, b.create<arith::MulIOp>(l, idx(4), cst(k[1])), idx(5));
          mine = b.create<arith::IndexCastOp>(l, b.getI64Type(), mine);
          valid = b.create<arith::AndIOp>(
              l, valid, b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, at, mine));
          Value g = b.create<tensor::ExtractOp>(l, dy, coords);
          Value add = b.create<arith::SelectOp>(l, valid, g, scalarConst(b, l, elem, 0.0));
          b.create<linalg::YieldOp>(l, ValueRange{b.create<arith::AddFOp>(l, v[1], add)});
        });
    r.replaceOp(op, grad.getResult(0));
    return success();
  }
};
} // namespace

void dlc::populateGradientLoweringPatterns(RewritePatternSet &patterns,
                                           TypeConverter &converter) {
  patterns.add<ConvGradInputLowering, ConvGradWeightLowering, MaxPoolGradLowering>(
      converter, patterns.getContext());
}
