//===- LowerGradientsToLinalg.cpp - gradient ops to linalg on tensors -----===//
//
// Part of dlc-lower-to-linalg. The two conv gradients are rewritten as
// im2col + GEMM like the forward conv:
//  - d/dinput: the output gradient, dilated by the strides and padded by the
//    kernel's extent, convolved with the kernel flipped and its channel roles
//    swapped (a transposed convolution);
//  - d/dweight: the forward conv's im2col columns against the output
//    gradient, summed over batch and output positions in vector lanes.
// Groups run one at a time on channel slices.
// max_pool_grad routes each window's gradient to its first maximum: an
// argmax pass over windows, then a pass over input positions that gathers
// from the (at most ceil(k/s)^2) windows containing each position.
// average_pool_grad gathers the same way, each window's gradient divided by
// its divisor. dropout_mask (the train step's Dropout) is a counter-based
// hash of (seed, step, element index).
//
//===----------------------------------------------------------------------===//
#include "dialects/DlcDialect.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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
                  ArrayRef<int64_t> offsets) {
  auto t = tensorType(part);
  SmallVector<int64_t> strides(t.getRank(), 1);
  return b.create<tensor::InsertSliceOp>(loc, part, into, ValueRange{}, ValueRange{},
                                         ValueRange{}, offsets, t.getShape(), strides);
}

Value transpose(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto t = tensorType(v);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  Value init = b.create<tensor::EmptyOp>(loc, shape, t.getElementType());
  return b.create<linalg::TransposeOp>(loc, v, init, perm).getResult()[0];
}

/// Which output position a window tap reaches from input position (dims 2
/// and 3 of the enclosing generic): for tap (i, j), output row
/// (y + pt - i*dh) / sh when that division is exact and in range (clamped to
/// 0 otherwise, with `valid` false).
struct WindowTap {
  Value pos[2];
  Value valid;
};
WindowTap windowTap(OpBuilder &nb, Location l, ArrayRef<int64_t> tap, ArrayRef<int64_t> s,
                    ArrayRef<int64_t> p, ArrayRef<int64_t> d, ArrayRef<int64_t> outDims) {
  auto cst = [&](int64_t k) -> Value { return nb.create<arith::ConstantIndexOp>(l, k); };
  Value zero = cst(0);
  WindowTap t;
  t.valid = nb.create<arith::ConstantIntOp>(l, 1, 1);
  for (int a = 0; a < 2; ++a) {
    Value start = nb.create<arith::SubIOp>(
        l, nb.create<arith::AddIOp>(l, nb.create<linalg::IndexOp>(l, 2 + a), cst(p[a])),
        cst(tap[a] * d[a]));
    Value q = s[a] == 1 ? start : nb.create<arith::DivSIOp>(l, start, cst(s[a])).getResult();
    Value ok = nb.create<arith::AndIOp>(
        l, nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, start, zero),
        nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, q, cst(outDims[a])));
    if (s[a] != 1)
      ok = nb.create<arith::AndIOp>(
          l, ok,
          nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                   nb.create<arith::RemSIOp>(l, start, cst(s[a])), zero));
    t.valid = nb.create<arith::AndIOp>(l, t.valid, ok);
    t.pos[a] = nb.create<arith::SelectOp>(l, ok, q, zero);
  }
  return t;
}

/// What one window tap (i, j) adds at an input position: `value`, where the
/// tap is valid and `take` (null: always) holds.
struct TapContribution {
  Value value, take;
};
using TapFn = function_ref<TapContribution(OpBuilder &, Location, const WindowTap &,
                                           int64_t i, int64_t j)>;

/// The col2im-shaped gather all three window gradients are: an all-parallel
/// generic over `outType` (NCHW) summing, over the K0 x K1 window unrolled,
/// each tap's contribution from the output position it reaches. All-parallel,
/// so tile-and-vectorize shares rows among threads (reduction loops would
/// stay serial).
Value sumOverWindowTaps(OpBuilder &b, Location loc, RankedTensorType outType,
                        ArrayRef<int64_t> k, ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                        ArrayRef<int64_t> d, ArrayRef<int64_t> outDims, TapFn contribution) {
  Type elem = outType.getElementType();
  return buildParallelGeneric(
      b, loc, outType, ValueRange{}, {}, [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value zero = scalarConst(nb, l, elem, 0.0), acc = zero;
        for (int64_t i = 0; i < k[0]; ++i)
          for (int64_t j = 0; j < k[1]; ++j) {
            WindowTap tap = windowTap(nb, l, {i, j}, s, p, d, outDims);
            TapContribution c = contribution(nb, l, tap, i, j);
            Value take = c.take ? nb.create<arith::AndIOp>(l, tap.valid, c.take) : tap.valid;
            acc = nb.create<arith::AddFOp>(l, acc,
                                           nb.create<arith::SelectOp>(l, take, c.value, zero));
          }
        return acc;
      });
}

/// Whether the windows tile the input exactly: kernel == stride, no
/// dilation or padding, and no partial window at the far edges. Each input
/// position then lies in exactly one window.
bool windowsTileInput(ArrayRef<int64_t> k, ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                      ArrayRef<int64_t> d, ArrayRef<int64_t> inDims,
                      ArrayRef<int64_t> outDims) {
  for (int a = 0; a < 2; ++a)
    if (k[a] != s[a] || d[a] != 1 || p[a] != 0 || p[2 + a] != 0 ||
        inDims[a] != outDims[a] * k[a])
      return false;
  return true;
}

/// sumOverWindowTaps when windowsTileInput: the one window of (y, x) is
/// (y / K0, x / K1) and its tap (y % K0) * K1 + x % K1. Constant divisions,
/// no tap loop: the col2im form costs K0*K1 checked gathers per element
/// (the LeNet max-pool gradient was 14% of its train step).
using OneTapFn = function_ref<Value(OpBuilder &, Location, ArrayRef<Value> window,
                                   Value tap)>;
Value gradOfTilingWindows(OpBuilder &b, Location loc, RankedTensorType outType,
                          ArrayRef<int64_t> k, OneTapFn contribution) {
  return buildParallelGeneric(
      b, loc, outType, ValueRange{}, {}, [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        auto cst = [&](int64_t v) -> Value { return nb.create<arith::ConstantIndexOp>(l, v); };
        Value window[2], offset[2];
        for (int a = 0; a < 2; ++a) {
          Value at = nb.create<linalg::IndexOp>(l, 2 + a);
          window[a] = nb.create<arith::DivUIOp>(l, at, cst(k[a]));
          offset[a] = nb.create<arith::RemUIOp>(l, at, cst(k[a]));
        }
        Value tap = nb.create<arith::AddIOp>(
            l, nb.create<arith::MulIOp>(l, offset[0], cst(k[1])), offset[1]);
        return contribution(nb, l, window, tap);
      });
}

/// col2im for stride 1: dx starts at zero and each tap (i, j) adds its
/// column plane cols[n, (c, i, j), :] to the window of dx it covers (shifted
/// by i*dh - pt, j*dw - pl, clipped to dx), one elementwise add per tap on
/// contiguous rows. The gather form reads every tap through a checked
/// index (25 gathers per element on LeNet's conv2: 13% of its train step).
/// Same additions in the same tap order as the gather form.
Value col2imByShiftedAdds(OpBuilder &b, Location loc, Value cols, RankedTensorType outType,
                          ArrayRef<int64_t> k, ArrayRef<int64_t> p, ArrayRef<int64_t> d,
                          ArrayRef<int64_t> outDims) {
  int64_t n = outType.getDimSize(0), c = outType.getDimSize(1);
  ArrayRef<int64_t> in = outType.getShape().drop_front(2);
  Type elem = outType.getElementType();
  Value dx = filled(b, loc, outType, 0.0);
  auto attr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  for (int64_t i = 0; i < k[0]; ++i)
    for (int64_t j = 0; j < k[1]; ++j) {
      // Output positions q whose input position q + tap*dil - pad is in dx.
      int64_t tap[2] = {i, j}, first[2], count[2];
      for (int a = 0; a < 2; ++a) {
        int64_t shift = tap[a] * d[a] - p[a];
        first[a] = std::max<int64_t>(0, -shift);
        count[a] = std::min<int64_t>(outDims[a], in[a] - shift) - first[a];
      }
      if (count[0] <= 0 || count[1] <= 0)
        continue;
      auto windowType = RankedTensorType::get({n, c, count[0], count[1]}, elem);
      // The tap's planes: a strided slice of the columns, then viewed as
      // [N, C, OH, OW]. (Expanding the columns themselves would let fusion
      // push the expansion into the GEMM that produces them, whose tiling
      // then sees 6 dims.)
      Value planes = b.create<tensor::ExtractSliceOp>(
          loc, RankedTensorType::get({n, c, outDims[0] * outDims[1]}, elem), cols,
          SmallVector<OpFoldResult>{attr(0), attr(i * k[1] + j), attr(0)},
          SmallVector<OpFoldResult>{attr(n), attr(c), attr(outDims[0] * outDims[1])},
          SmallVector<OpFoldResult>{attr(1), attr(k[0] * k[1]), attr(1)});
      planes = b.create<tensor::ExpandShapeOp>(
          loc, RankedTensorType::get({n, c, outDims[0], outDims[1]}, elem), planes,
          ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
      SmallVector<OpFoldResult> ones(4, attr(1));
      Value src = b.create<tensor::ExtractSliceOp>(
          loc, windowType, planes,
          SmallVector<OpFoldResult>{attr(0), attr(0), attr(first[0]), attr(first[1])},
          SmallVector<OpFoldResult>{attr(n), attr(c), attr(count[0]), attr(count[1])}, ones);
      SmallVector<OpFoldResult> at{attr(0), attr(0), attr(first[0] + i * d[0] - p[0]),
                                   attr(first[1] + j * d[1] - p[1])};
      SmallVector<OpFoldResult> sizes{attr(n), attr(c), attr(count[0]), attr(count[1])};
      Value window = b.create<tensor::ExtractSliceOp>(loc, windowType, dx, at, sizes, ones);
      AffineMap id = b.getMultiDimIdentityMap(4);
      Value sum = b.create<linalg::GenericOp>(
                       loc, windowType, src, window, ArrayRef<AffineMap>{id, id},
                       SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
                       [](OpBuilder &nb, Location l, ValueRange v) {
                         nb.create<linalg::YieldOp>(
                             l, ValueRange{nb.create<arith::AddFOp>(l, v[1], v[0])});
                       })
                      .getResult(0);
      dx = b.create<tensor::InsertSliceOp>(loc, sum, dx, at, sizes, ones);
    }
  return dx;
}

/// Gradient of one group's conv input: dy [N,O,OH,OW], w [O,C,KH,KW] ->
/// [N,C,H,W], as a GEMM and a col2im:
///   cols[n, (c,i,j), q] = sum_o w[o, (c,i,j)] dy[n, o, q]
///   dx[n, c, y, x] = sum_{i,j} cols[n, (c,i,j), ((y+pt-i*dh)/sh, (x+pl-j*dw)/sw)]
/// over the (i, j) whose division is exact and in range. The GEMM has the
/// weightTimesBatch form that tile-and-vectorize treats as a matmul; the
/// col2im reads each column entry once. (A transposed convolution over the
/// dilated, padded gradient does the same sums but multiplies the zeros in
/// it too: twice the FLOPs and a 5x larger im2col buffer on LeNet.)
Value convGradInputGroup(OpBuilder &b, Location loc, Value dy, Value w, int64_t h,
                         int64_t wd, ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                         ArrayRef<int64_t> d) {
  auto dyT = tensorType(dy), wT = tensorType(w);
  Type elem = dyT.getElementType();
  int64_t n = dyT.getDimSize(0), o = dyT.getDimSize(1), c = wT.getDimSize(1);
  int64_t kh = wT.getDimSize(2), kw = wT.getDimSize(3);
  int64_t oh = dyT.getDimSize(2), ow = dyT.getDimSize(3), ckk = c * kh * kw;
  Value wt = transpose(b, loc, reshapeStatic(b, loc, w, {o, ckk}), {1, 0});
  Value dy3 = reshapeStatic(b, loc, dy, {n, o, oh * ow});
  auto colsType = RankedTensorType::get({n, ckk, oh * ow}, elem);
  Value cols = weightTimesBatch(b, loc, wt, dy3, filled(b, loc, colsType, 0.0));

  auto outType = RankedTensorType::get({n, c, h, wd}, elem);
  if (s[0] == 1 && s[1] == 1)
    return col2imByShiftedAdds(b, loc, cols, outType, {kh, kw}, p, d, {oh, ow});
  return sumOverWindowTaps(
      b, loc, outType, {kh, kw}, s, p, d, {oh, ow},
      [&](OpBuilder &nb, Location l, const WindowTap &tap, int64_t i,
          int64_t j) -> TapContribution {
        auto cst = [&](int64_t v) -> Value { return nb.create<arith::ConstantIndexOp>(l, v); };
        Value row = nb.create<arith::AddIOp>(
            l, nb.create<arith::MulIOp>(l, nb.create<linalg::IndexOp>(l, 1), cst(kh * kw)),
            cst(i * kw + j));
        Value col = nb.create<arith::AddIOp>(
            l, nb.create<arith::MulIOp>(l, tap.pos[0], cst(ow)), tap.pos[1]);
        return {nb.create<tensor::ExtractOp>(
                    l, cols, ValueRange{nb.create<linalg::IndexOp>(l, 0), row, col}),
                nullptr};
      });
}

/// dW[f, c, kh, kw] = sum over n, oh, ow of dy[n, f, oh, ow] *
/// xp[n, c, oh*s + kh*d, ow*s + kw*d]: the forward conv's im2col columns
/// [N, C*KH*KW, OH*OW] against dy [N, F, OH*OW], both read along OH*OW, so
/// the sum runs in vector lanes (sumInLanes). The columns are rebuilt rather
/// than kept from the forward pass (marked, so that CSE does not merge the
/// two and keep them alive across the step). Over batch chunks accumulated
/// in dW when the columns would exceed `limit` bytes.
Value convGradWeightGroup(OpBuilder &b, Location loc, Value x, Value dy, int64_t kh,
                          int64_t kw, ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                          ArrayRef<int64_t> d, int64_t limit) {
  Value xp = padWith(b, loc, x, {0, 0, p[0], p[1]}, {0, 0, p[2], p[3]}, 0.0);
  auto xT = tensorType(xp), dyT = tensorType(dy);
  Type elem = dyT.getElementType();
  int64_t n = xT.getDimSize(0), c = xT.getDimSize(1), f = dyT.getDimSize(1);
  int64_t oh = dyT.getDimSize(2), ow = dyT.getDimSize(3), ckk = c * kh * kw, hw = oh * ow;
  MLIRContext *ctx = b.getContext();
  AffineExpr df, dk, dn, dp;
  bindDims(ctx, df, dk, dn, dp);
  SmallVector<AffineMap> inMaps{AffineMap::get(4, 0, {dn, df, dp}, ctx),
                                AffineMap::get(4, 0, {dn, dk, dp}, ctx)};
  AffineMap outMap = AffineMap::get(4, 0, {df, dk}, ctx);
  SmallVector<utils::IteratorType> iters{utils::IteratorType::parallel,
                                         utils::IteratorType::parallel,
                                         utils::IteratorType::reduction,
                                         utils::IteratorType::reduction};
  auto product = [](OpBuilder &nb, Location l, ValueRange v) -> Value {
    return nb.create<arith::MulFOp>(l, v[0], v[1]);
  };
  int64_t lanes = reductionLanes(hw);
  // acc + the contribution of samples xs, dys; with lanes, acc holds the
  // lane partial sums [F, CKK, lanes], added up once after all chunks (so
  // that chunking does not change the order of the additions).
  auto accumulate = [&](OpBuilder &nb, Location l, Value xs, Value dys, Value acc) -> Value {
    int64_t batch = tensorType(xs).getDimSize(0);
    Value col = im2colColumns(nb, l, xs, kh, kw, oh, ow, s, d);
    col.getDefiningOp()->setAttr(kRecomputedAttr, nb.getUnitAttr());
    Value cols = nb.create<tensor::CollapseShapeOp>(
        l, RankedTensorType::get({batch, ckk, hw}, elem), col,
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    Value dyf = nb.create<tensor::CollapseShapeOp>(
        l, RankedTensorType::get({batch, f, hw}, elem), dys,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    if (lanes)
      return partialSumsInLanes(nb, l, {dyf, cols}, inMaps, outMap, iters, acc, product);
    SmallVector<AffineMap> maps(inMaps);
    maps.push_back(outMap);
    return nb
        .create<linalg::GenericOp>(l, acc.getType(), ValueRange{dyf, cols}, acc, maps, iters,
                                   [&](OpBuilder &bb, Location ll, ValueRange v) {
                                     Value t = product(bb, ll, v.take_front(2));
                                     bb.create<linalg::YieldOp>(
                                         ll, ValueRange{bb.create<arith::AddFOp>(ll, v[2], t)});
                                   })
        .getResult(0);
  };
  Value dw = filled(b, loc, RankedTensorType::get({f, ckk}, elem), 0.0);
  Value acc = lanes ? lanePartialInit(b, loc, dw, lanes) : dw;
  int64_t perSample = ckk * hw * std::max<int64_t>(1, dyT.getElementTypeBitWidth() / 8);
  int64_t chunk = limit > 0 ? chunkThatFits(n, perSample, limit) : n;
  if (chunk == n) {
    acc = accumulate(b, loc, xp, dy, acc);
  } else {
    auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
    acc = b.create<scf::ForOp>(loc, idx(0), idx(n), idx(chunk), ValueRange{acc},
                               [&](OpBuilder &nb, Location l, Value at, ValueRange carried) {
                                 nb.create<scf::YieldOp>(
                                     l, accumulate(nb, l, sliceAlong(nb, l, xp, 0, at, chunk),
                                                   sliceAlong(nb, l, dy, 0, at, chunk),
                                                   carried[0]));
                               })
              .getResult(0);
  }
  if (lanes)
    dw = addLaneSums(b, loc, acc, dw);
  else
    dw = acc;
  return b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get({f, c, kh, kw}, elem), dw,
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
}

/// Channel slice `group` of `v` along `dim`, which has `groups` equal parts.
Value groupSlice(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t groups,
                 int64_t group) {
  SmallVector<int64_t> offsets(4, 0), sizes(tensorType(v).getShape());
  sizes[dim] /= groups;
  offsets[dim] = group * sizes[dim];
  return extractSlice(b, loc, v, offsets, sizes);
}

/// One result from per-group parts: `part(i)` fills group i's slice of
/// `outType` along `dim` (the whole result when there is one group).
Value byGroups(OpBuilder &b, Location loc, RankedTensorType outType, int64_t groups,
               int64_t dim, function_ref<Value(int64_t)> part) {
  if (groups == 1)
    return part(0);
  Value result =
      b.create<tensor::EmptyOp>(loc, outType.getShape(), outType.getElementType());
  for (int64_t i = 0; i < groups; ++i) {
    SmallVector<int64_t> offsets(4, 0);
    offsets[dim] = i * outType.getDimSize(dim) / groups;
    result = insertSlice(b, loc, part(i), result, offsets);
  }
  return result;
}

/// convGradInputGroup over batch chunks (an scf.for whose iterations reuse
/// one column buffer), when the whole batch's columns would exceed `limit`.
Value convGradInputChunked(OpBuilder &b, Location loc, Value dy, Value w, int64_t h,
                           int64_t wd, ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                           ArrayRef<int64_t> d, int64_t limit) {
  auto dyT = tensorType(dy), wT = tensorType(w);
  int64_t n = dyT.getDimSize(0), c = wT.getDimSize(1);
  int64_t perSample = c * wT.getDimSize(2) * wT.getDimSize(3) * dyT.getDimSize(2) *
                      dyT.getDimSize(3) * std::max<int64_t>(1, dyT.getElementTypeBitWidth() / 8);
  int64_t chunk = limit > 0 ? chunkThatFits(n, perSample, limit) : n;
  if (chunk == n)
    return convGradInputGroup(b, loc, dy, w, h, wd, s, p, d);
  Value init = b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{n, c, h, wd},
                                         dyT.getElementType());
  return forEachBatchChunk(b, loc, init, chunk, [&](OpBuilder &nb, Location l, Value at, Value) {
    return convGradInputGroup(nb, l, sliceAlong(nb, l, dy, 0, at, chunk), w, h, wd, s, p, d);
  });
}

/// A conv gradient's lowering, with --mem-budget's cap on one im2col
/// buffer (`limit` bytes, 0: none).
template <typename OpTy>
struct WorkspaceLimitedLowering : OpConversionPattern<OpTy> {
  WorkspaceLimitedLowering(TypeConverter &converter, MLIRContext *ctx, int64_t limit)
      : OpConversionPattern<OpTy>(converter, ctx), limit(limit) {}
  int64_t limit;
};

struct ConvGradInputLowering : WorkspaceLimitedLowering<dlc::ConvGradInputOp> {
  using WorkspaceLimitedLowering::WorkspaceLimitedLowering;

  LogicalResult matchAndRewrite(dlc::ConvGradInputOp op, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = tensorType(op.getResult());
    int64_t g = op.getGroup();
    r.replaceOp(op, byGroups(r, loc, outType, g, /*dim=*/1, [&](int64_t i) {
                  return convGradInputChunked(
                      r, loc, groupSlice(r, loc, a.getGradOutput(), 1, g, i),
                      groupSlice(r, loc, a.getWeight(), 0, g, i), outType.getDimSize(2),
                      outType.getDimSize(3), op.getStrides(), op.getPads(), op.getDilations(),
                      limit);
                }));
    return success();
  }
};

struct ConvGradWeightLowering : WorkspaceLimitedLowering<dlc::ConvGradWeightOp> {
  using WorkspaceLimitedLowering::WorkspaceLimitedLowering;

  LogicalResult matchAndRewrite(dlc::ConvGradWeightOp op, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto outType = tensorType(op.getResult());
    int64_t g = op.getGroup();
    r.replaceOp(op, byGroups(r, loc, outType, g, /*dim=*/0, [&](int64_t i) {
                  return convGradWeightGroup(
                      r, loc, groupSlice(r, loc, a.getInput(), 1, g, i),
                      groupSlice(r, loc, a.getGradOutput(), 1, g, i), outType.getDimSize(2),
                      outType.getDimSize(3), op.getStrides(), op.getPads(), op.getDilations(),
                      limit);
                }));
    return success();
  }
};

struct MaxPoolGradLowering : OpConversionPattern<dlc::MaxPoolGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(dlc::MaxPoolGradOp op, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
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

    // Both passes all-parallel with the window unrolled in the body, so
    // that tile-and-vectorize shares their rows among threads.
    // 1. Per window: the first maximum's offset i * KW + j.
    auto idxType = RankedTensorType::get(dyType.getShape(), r.getI64Type());
    Value best = buildParallelGeneric(
        r, loc, idxType, ValueRange{}, {}, [&](OpBuilder &b, Location l, ValueRange) -> Value {
          auto idx = [&](int64_t dim) -> Value { return b.create<linalg::IndexOp>(l, dim); };
          auto cst = [&](int64_t c) -> Value { return b.create<arith::ConstantIndexOp>(l, c); };
          Value y0 = b.create<arith::MulIOp>(l, idx(2), cst(s[0]));
          Value x0 = b.create<arith::MulIOp>(l, idx(3), cst(s[1]));
          Value max = scalarConst(b, l, elem, -INFINITY);
          Value at = b.create<arith::ConstantIntOp>(l, 0, 64);
          for (int64_t i = 0; i < k[0]; ++i)
            for (int64_t j = 0; j < k[1]; ++j) {
              Value v = b.create<tensor::ExtractOp>(
                  l, xp, ValueRange{idx(0), idx(1), b.create<arith::AddIOp>(l, y0, cst(i * d[0])),
                                    b.create<arith::AddIOp>(l, x0, cst(j * d[1]))});
              Value better = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, v, max);
              max = b.create<arith::SelectOp>(l, better, v, max);
              at = b.create<arith::SelectOp>(l, better,
                                             b.create<arith::ConstantIntOp>(l, i * k[1] + j, 64), at);
            }
          return at;
        });
    Value dy = a.getGradOutput();

    // 2. Per input position: the sum over the windows whose maximum it is.
    ArrayRef<int64_t> inDims = inType.getShape().drop_front(2);
    if (windowsTileInput(k, s, p, d, inDims, {oh, ow})) {
      r.replaceOp(op, gradOfTilingWindows(
                          r, loc, inType, k,
                          [&](OpBuilder &b, Location l, ArrayRef<Value> window,
                              Value tap) -> Value {
                            SmallVector<Value> c4{b.create<linalg::IndexOp>(l, 0),
                                                  b.create<linalg::IndexOp>(l, 1), window[0],
                                                  window[1]};
                            Value winner = b.create<arith::IndexCastOp>(
                                l, b.getIndexType(), b.create<tensor::ExtractOp>(l, best, c4));
                            Value mine = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                                                 winner, tap);
                            return b.create<arith::SelectOp>(
                                l, mine, b.create<tensor::ExtractOp>(l, dy, c4),
                                scalarConst(b, l, elem, 0.0));
                          }));
      return success();
    }
    Value grad = sumOverWindowTaps(
        r, loc, inType, k, s, p, d, {oh, ow},
        [&](OpBuilder &b, Location l, const WindowTap &tap, int64_t i,
            int64_t j) -> TapContribution {
          SmallVector<Value> c4{b.create<linalg::IndexOp>(l, 0), b.create<linalg::IndexOp>(l, 1),
                                tap.pos[0], tap.pos[1]};
          Value winner = b.create<tensor::ExtractOp>(l, best, c4);
          Value mine = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, winner,
                                               b.create<arith::ConstantIntOp>(l, i * k[1] + j, 64));
          return {b.create<tensor::ExtractOp>(l, dy, c4), mine};
        });
    r.replaceOp(op, grad);
    return success();
  }
};

/// dx[n, c, y, x] = sum over the windows covering (y, x) of
/// dy[n, c, window] / divisor[window]: all-parallel, the window unrolled.
struct AveragePoolGradLowering : OpConversionPattern<dlc::AveragePoolGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(dlc::AveragePoolGradOp op, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto inType = tensorType(op.getResult()), dyType = tensorType(a.getGradOutput());
    ArrayRef<int64_t> k = op.getKernelShape(), s = op.getStrides(), p = op.getPads(),
                      d = op.getDilations();
    int64_t oh = dyType.getDimSize(2), ow = dyType.getDimSize(3);
    Value inverse = poolInverseDivisors(r, loc, dyType, inType.getShape(), k, s, p, d,
                                        op.getCountIncludePad());
    Value dy = a.getGradOutput();
    if (windowsTileInput(k, s, p, d, inType.getShape().drop_front(2), {oh, ow})) {
      r.replaceOp(op, gradOfTilingWindows(
                          r, loc, inType, k,
                          [&](OpBuilder &b, Location l, ArrayRef<Value> window, Value) -> Value {
                            Value g = b.create<tensor::ExtractOp>(
                                l, dy, ValueRange{b.create<linalg::IndexOp>(l, 0),
                                                  b.create<linalg::IndexOp>(l, 1), window[0],
                                                  window[1]});
                            Value w = b.create<tensor::ExtractOp>(l, inverse, window);
                            return b.create<arith::MulFOp>(l, g, w);
                          }));
      return success();
    }
    r.replaceOp(op, sumOverWindowTaps(
                        r, loc, inType, k, s, p, d, {oh, ow},
                        [&](OpBuilder &b, Location l, const WindowTap &tap, int64_t,
                            int64_t) -> TapContribution {
                          Value g = b.create<tensor::ExtractOp>(
                              l, dy, ValueRange{b.create<linalg::IndexOp>(l, 0),
                                                b.create<linalg::IndexOp>(l, 1), tap.pos[0],
                                                tap.pos[1]});
                          Value w = b.create<tensor::ExtractOp>(
                              l, inverse, ValueRange{tap.pos[0], tap.pos[1]});
                          return {b.create<arith::MulFOp>(l, g, w), nullptr};
                        }));
    return success();
  }
};

/// murmur3's 32-bit finalizer: every input bit flips about half the output bits.
Value fmix32(OpBuilder &b, Location l, Value h) {
  auto c = [&](uint32_t v) -> Value { return b.create<arith::ConstantIntOp>(l, v, 32); };
  h = b.create<arith::XOrIOp>(l, h, b.create<arith::ShRUIOp>(l, h, c(16)));
  h = b.create<arith::MulIOp>(l, h, c(0x85ebca6bu));
  h = b.create<arith::XOrIOp>(l, h, b.create<arith::ShRUIOp>(l, h, c(13)));
  h = b.create<arith::MulIOp>(l, h, c(0xc2b2ae35u));
  return b.create<arith::XOrIOp>(l, h, b.create<arith::ShRUIOp>(l, h, c(16)));
}

/// mask[i] = hash(key, i) >> 8 >= ratio * 2^24 ? 1 / (1 - ratio) : 0 with
/// key = fmix32(step * golden + seed): all-parallel over the mask, 32-bit
/// integer arithmetic (vector multiplies on AVX2).
struct DropoutMaskLowering : OpConversionPattern<dlc::DropoutMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(dlc::DropoutMaskOp op, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto type = tensorType(op.getResult());
    int64_t rank = type.getRank();
    double ratio = op.getRatio().convertToDouble();
    auto threshold = (uint32_t)std::min(std::llround(ratio * (1 << 24)), (long long)1 << 24);
    auto seed = (uint32_t)op.getSeed();
    AffineMap scalar = AffineMap::get(rank, 0, {}, r.getContext());
    Value mask = buildParallelGeneric(
        r, loc, type, ValueRange{a.getStep()}, {scalar},
        [&](OpBuilder &b, Location l, ValueRange v) -> Value {
          auto c = [&](uint32_t x) -> Value { return b.create<arith::ConstantIntOp>(l, x, 32); };
          Value step = b.create<arith::TruncIOp>(l, b.getI32Type(), v[0]);
          Value key = fmix32(b, l, b.create<arith::AddIOp>(
                                       l, b.create<arith::MulIOp>(l, step, c(0x9e3779b9u)),
                                       c(seed)));
          Value linear = b.create<arith::ConstantIndexOp>(l, 0);
          for (int64_t d = 0; d < rank; ++d)
            linear = b.create<arith::AddIOp>(
                l, b.create<arith::MulIOp>(l, linear, b.create<arith::ConstantIndexOp>(l, type.getDimSize(d))),
                b.create<linalg::IndexOp>(l, d));
          Value i = b.create<arith::IndexCastUIOp>(l, b.getI32Type(), linear);
          Value h = fmix32(b, l, b.create<arith::XOrIOp>(l, fmix32(b, l, i), key));
          Value keep = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::uge,
                                               b.create<arith::ShRUIOp>(l, h, c(8)), c(threshold));
          Type e = type.getElementType();
          return b.create<arith::SelectOp>(l, keep, scalarConst(b, l, e, 1.0 / (1.0 - ratio)),
                                           scalarConst(b, l, e, 0.0));
        });
    r.replaceOp(op, mask);
    return success();
  }
};
} // namespace

void dlc::populateGradientLoweringPatterns(RewritePatternSet &patterns,
                                           TypeConverter &converter,
                                           int64_t maxWorkspaceBytes) {
  patterns.add<ConvGradInputLowering, ConvGradWeightLowering>(converter, patterns.getContext(),
                                                              maxWorkspaceBytes);
  patterns.add<MaxPoolGradLowering,
               AveragePoolGradLowering, DropoutMaskLowering>(
      converter, patterns.getContext());
}
