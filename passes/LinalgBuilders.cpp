//===- LinalgBuilders.cpp - building linalg on tensors for dlc lowerings --===//
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

namespace dlc {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

/// dlc's unsigned element types (ui8...) become signless: arith and linalg
/// take signless integers, and the ops pick unsigned arithmetic themselves.
Type signlessElement(Type t) {
  if (auto i = dyn_cast<IntegerType>(t); i && !i.isSignless())
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}
RankedTensorType signlessType(Type t) {
  auto rt = cast<RankedTensorType>(t);
  return rt.clone(signlessElement(rt.getElementType()));
}
bool isUnsignedTensor(Value v) { return getElementTypeOrSelf(v.getType()).isUnsignedInteger(); }
/// Unsigned ints and bool compare and widen as unsigned.
bool isUnsignedLike(Value v) {
  Type t = getElementTypeOrSelf(v.getType());
  return t.isUnsignedInteger() || t.isInteger(1);
}
bool isFloatValue(Value v) { return isa<FloatType>(getElementTypeOrSelf(v.getType())); }
/// 16-bit floats compute in f32 inside elementwise bodies.
bool isNarrowFloat(Type t) { return t.isF16() || t.isBF16(); }

/// A scalar of type `t` (float or signless integer). For integers, +-inf
/// become the signed type's largest and smallest values.
Value scalarConst(OpBuilder &b, Location loc, Type t, double v) {
  if (auto ft = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(ft, v));
  unsigned w = t.getIntOrFloatBitWidth();
  APInt i = std::isinf(v) ? (v > 0 ? APInt::getSignedMaxValue(w) : APInt::getSignedMinValue(w))
                          : APInt(w, (int64_t)v, /*isSigned=*/true);
  if (w == 1)
    i = APInt(1, v != 0);
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, i));
}

/// A constant of `like`'s type (a scalar element inside bodies).
Value constLike(OpBuilder &b, Location loc, Value like, double v) {
  return scalarConst(b, loc, like.getType(), v);
}

arith::FastMathFlagsAttr ignoreZeroSign(OpBuilder &b) {
  return arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::nsz);
}

Value filled(OpBuilder &b, Location loc, RankedTensorType type, double v) {
  Value empty = b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  return b.create<linalg::FillOp>(loc, scalarConst(b, loc, type.getElementType(), v), empty)
      .getResult(0);
}

/// One linalg.generic, all loops parallel, with explicit input maps; the
/// output map is the identity.
Value buildParallelGeneric(OpBuilder &b, Location loc, RankedTensorType outType,
                           ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                           BodyFn body) {
  int64_t rank = outType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  Value init = b.create<tensor::EmptyOp>(loc, outType.getShape(), outType.getElementType());
  auto generic = b.create<linalg::GenericOp>(
      loc, outType, inputs, init, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        nb.create<linalg::YieldOp>(nl, body(nb, nl, args.drop_back()));
      });
  return generic.getResult(0);
}

/// Static reshape as collapse-to-1-D + expand: both are views after
/// bufferization, whatever the two shapes are. Rank 0 (one element) goes
/// through an empty reassociation.
Value reshapeStatic(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = tensorType(v);
  if (type.getShape() == shape)
    return v;
  auto outType = RankedTensorType::get(shape, type.getElementType());
  auto allDims = [](int64_t rank) {
    SmallVector<ReassociationIndices> groups;
    if (rank > 0)
      groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
    return groups;
  };
  if (type.getRank() == 0)
    return b.create<tensor::ExpandShapeOp>(loc, outType, v, allDims(0));
  if (shape.empty())
    return b.create<tensor::CollapseShapeOp>(loc, outType, v, allDims(0));
  Value flat = v;
  if (type.getRank() != 1) {
    auto flatType = RankedTensorType::get({type.getNumElements()}, type.getElementType());
    flat = b.create<tensor::CollapseShapeOp>(loc, flatType, v, allDims(type.getRank()));
  }
  if (shape.size() == 1)
    return flat;
  return b.create<tensor::ExpandShapeOp>(loc, outType, flat, allDims(shape.size()));
}

/// numpy broadcasting: an operand is aligned to the trailing dims of the
/// result. Its broadcast (size-1) dims are reshaped away first, so that every
/// indexing map stays a projected permutation (which tiling and the
/// vectorizer need).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType outType,
                       ValueRange inputs, BodyFn body) {
  int64_t rank = outType.getRank();
  SmallVector<AffineMap> maps;
  SmallVector<Value> operands;
  for (Value v : inputs) {
    auto t = tensorType(v);
    SmallVector<int64_t> kept;
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0, r = t.getRank(); i < r; ++i) {
      int64_t j = rank - r + i;
      if (t.getDimSize(i) == 1 && outType.getDimSize(j) != 1)
        continue;
      kept.push_back(t.getDimSize(i));
      exprs.push_back(b.getAffineDimExpr(j));
    }
    operands.push_back(reshapeStatic(b, loc, v, kept));
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  return buildParallelGeneric(b, loc, outType, operands, maps, body);
}

/// A per-channel vector [C] read at dim `dim` of a rank-`rank` iteration.
AffineMap channelMap(OpBuilder &b, int64_t rank, int64_t dim) {
  return AffineMap::get(rank, 0, {b.getAffineDimExpr(dim)}, b.getContext());
}

tensor::PadOp zeroSpatialPadOf(Value x) {
  auto pad = x.getDefiningOp<tensor::PadOp>();
  if (!pad || pad.getSourceType().getRank() != 4)
    return {};
  Value value = pad.getConstantPaddingValue();
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  if (!value || !matchPattern(value, m_AnyZeroFloat()) ||
      llvm::any_of(low, ShapedType::isDynamic) || llvm::any_of(high, ShapedType::isDynamic) ||
      low[0] != 0 || low[1] != 0 || high[0] != 0 || high[1] != 0)
    return {};
  return pad;
}

Value padWith(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
              ArrayRef<int64_t> high, double value) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return input;
  auto type = tensorType(input);
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < shape.size(); ++i)
    shape[i] += low[i] + high[i];
  auto padType = RankedTensorType::get(shape, type.getElementType());
  return b.create<tensor::PadOp>(loc, padType, input,
                                 getAsIndexOpFoldResult(b.getContext(), low),
                                 getAsIndexOpFoldResult(b.getContext(), high),
                                 scalarConst(b, loc, type.getElementType(), value));
}

/// Accumulator for conv/gemm: the bias broadcast along `dim`, or zeros.
Value biasInit(OpBuilder &b, Location loc, RankedTensorType outType, Value bias,
               int64_t dim) {
  if (!bias)
    return filled(b, loc, outType, 0.0);
  return buildParallelGeneric(b, loc, outType, bias,
                              channelMap(b, outType.getRank(), dim),
                              [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

SmallVector<AffineMap> weightTimesBatchMaps(MLIRContext *ctx) {
  AffineExpr dn, dm, dp, dk;
  bindDims(ctx, dn, dm, dp, dk);
  return {AffineMap::get(4, 0, {dm, dk}, ctx), AffineMap::get(4, 0, {dn, dk, dp}, ctx),
          AffineMap::get(4, 0, {dn, dm, dp}, ctx)};
}

Value weightTimesBatch(OpBuilder &b, Location loc, Value w, Value x, Value init) {
  SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  return multiplyAccumulate(b, loc, w, x, init, weightTimesBatchMaps(b.getContext()), iters);
}

Value multiplyAccumulate(OpBuilder &b, Location loc, Value lhs, Value rhs, Value init,
                         ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters) {
  return b.create<linalg::GenericOp>(
              loc, init.getType(), ValueRange{lhs, rhs}, init, maps, iters,
              [](OpBuilder &nb, Location l, ValueRange v) {
                Value m = nb.create<arith::MulFOp>(l, v[0], v[1]);
                nb.create<linalg::YieldOp>(l, ValueRange{nb.create<arith::AddFOp>(l, v[2], m)});
              })
      .getResult(0);
}
std::optional<SmallVector<float>> constantF32Values(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto res = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
    if (std::optional<ArrayRef<float>> data = res.tryGetAsArrayRef())
      return SmallVector<float>(data->begin(), data->end());
    return std::nullopt;
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !dense.getElementType().isF32())
    return std::nullopt;
  return SmallVector<float>(dense.getValues<float>());
}

Value f32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ArrayRef<float> data,
                  StringRef name) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  ArrayRef<char> bytes(reinterpret_cast<const char *>(data.data()), data.size() * sizeof(float));
  auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(float));
  return b.create<arith::ConstantOp>(loc, DenseResourceElementsAttr::get(type, name, std::move(blob)));
}

Value fillValue(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return fill.getInputs()[0];
  return nullptr;
}

SmallVector<Value> windowTaps(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> outShape,
                              int64_t kh, int64_t kw, ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations) {
  auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  auto tapType = RankedTensorType::get(outShape, tensorType(x).getElementType());
  SmallVector<Value> taps;
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      taps.push_back(b.create<tensor::ExtractSliceOp>(
          loc, tapType, x,
          ArrayRef<OpFoldResult>{index(0), index(0), index(i * dilations[0]),
                                 index(j * dilations[1])},
          ArrayRef<OpFoldResult>{index(outShape[0]), index(outShape[1]), index(outShape[2]),
                                 index(outShape[3])},
          ArrayRef<OpFoldResult>{index(1), index(1), index(strides[0]), index(strides[1])}));
  return taps;
}

Value readInsideOr(OpBuilder &b, Location loc, Value x, Value h, Value w, Value outside,
                   int64_t channelDim) {
  auto t = tensorType(x);
  auto c = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
  // One unsigned compare per axis: a negative index wraps past the size.
  Value inside = b.create<arith::AndIOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, h, c(t.getDimSize(2))),
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, w, c(t.getDimSize(3))));
  h = b.create<arith::SelectOp>(loc, inside, h, c(0));
  w = b.create<arith::SelectOp>(loc, inside, w, c(0));
  Value v = b.create<tensor::ExtractOp>(
      loc, x,
      ValueRange{b.create<linalg::IndexOp>(loc, 0), b.create<linalg::IndexOp>(loc, channelDim), h, w});
  return b.create<arith::SelectOp>(loc, inside, v, outside);
}

std::optional<PaddedTaps> matchPaddedTaps(linalg::GenericOp op) {
  if (op.getNumResults() != 1 || op.getNumDpsInits() != 1)
    return std::nullopt;
  auto outType = dyn_cast<RankedTensorType>(op.getResultTypes().front());
  if (!outType || !outType.hasStaticShape() || outType.getRank() != 4 ||
      op.getNumParallelLoops() != 4 || op.getNumLoops() != 4 ||
      !op.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>() ||
      !op.getBody()->getOps<linalg::IndexOp>().empty())
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineMap perChannel = AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx);
  PaddedTaps taps;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    auto slice = in->get().getDefiningOp<tensor::ExtractSliceOp>();
    auto source = slice ? slice.getSource().getDefiningOp<tensor::PadOp>() : nullptr;
    if (source) {
      if ((taps.pad && source != taps.pad) || map != identity || slice.getType() != outType)
        return std::nullopt;
      taps.pad = source;
      ArrayRef<int64_t> offsets = slice.getStaticOffsets(), strides = slice.getStaticStrides();
      if (ShapedType::isDynamicShape(offsets) || ShapedType::isDynamicShape(strides) ||
          offsets[0] || offsets[1] || strides[0] != 1 || strides[1] != 1 ||
          (taps.strideH && strides[2] != taps.strideH) ||
          (taps.strideW && strides[3] != taps.strideW))
        return std::nullopt;
      taps.strideH = strides[2];
      taps.strideW = strides[3];
      taps.inputs.push_back({PaddedTaps::Kind::Tap, offsets[2], offsets[3]});
    } else if (map == identity) {
      taps.inputs.push_back({PaddedTaps::Kind::Element});
    } else if (map == perChannel) {
      taps.inputs.push_back({PaddedTaps::Kind::Channel});
    } else if (map.getNumResults() == 0) {
      taps.inputs.push_back({PaddedTaps::Kind::Scalar});
    } else {
      return std::nullopt;
    }
  }
  if (!taps.pad)
    return std::nullopt;
  // A constant pad of the spatial dims only.
  auto srcType = dyn_cast<RankedTensorType>(taps.pad.getSource().getType());
  ArrayRef<int64_t> low = taps.pad.getStaticLow(), high = taps.pad.getStaticHigh();
  Value padScalar = taps.pad.getConstantPaddingValue();
  if (!srcType || !srcType.hasStaticShape() || ShapedType::isDynamicShape(low) ||
      ShapedType::isDynamicShape(high) || low[0] || low[1] || high[0] || high[1] ||
      !padScalar || !matchPattern(padScalar, m_Constant(&taps.padValue)))
    return std::nullopt;
  // Pads under the window's extent: a window wholly in the padding (pads
  // of 1000 around a 3x3 pool, which ONNX allows) leaves the plain padded
  // copy. The taps' passes unroll the rows whose window reaches outside the
  // input, and such a pool had 1000 of them: its compile ran for minutes.
  int64_t extentH = 0, extentW = 0;
  for (const PaddedTaps::Input &in : taps.inputs)
    if (in.kind == PaddedTaps::Kind::Tap) {
      extentH = std::max(extentH, in.row + 1);
      extentW = std::max(extentW, in.col + 1);
    }
  if (low[2] >= extentH || high[2] >= extentH || low[3] >= extentW || high[3] >= extentW)
    return std::nullopt;
  return taps;
}

void replacePaddedTaps(linalg::GenericOp op, const PaddedTaps &taps, Value result) {
  SmallVector<Operation *> dead;
  for (OpOperand &operand : op->getOpOperands())
    if (Operation *def = operand.get().getDefiningOp();
        def && isa<tensor::ExtractSliceOp, tensor::EmptyOp>(def))
      dead.push_back(def);
  op.getResult(0).replaceAllUsesWith(result);
  op.erase();
  for (Operation *def : dead)
    if (def->use_empty())
      def->erase();
  if (Operation *pad = taps.pad; pad->use_empty())
    pad->erase();
}

Value im2colColumns(OpBuilder &b, Location loc, Value xp, int64_t kh, int64_t kw,
                    int64_t oh, int64_t ow, ArrayRef<int64_t> s, ArrayRef<int64_t> d,
                    Value into, ArrayRef<int64_t> pad, ColumnOrder order) {
  auto in = tensorType(xp);
  Type elem = in.getElementType();
  int64_t n = in.getDimSize(0), c = in.getDimSize(1);
  SmallVector<int64_t> shape{n, c, kh, kw, oh, ow};
  // Dims of the columns: channel, tap row, tap column, output row.
  int64_t cDim = 1, khDim = 2, kwDim = 3, ohDim = 4;
  if (order == ColumnOrder::TapsOuter) {
    shape = {n, kh, kw, c, oh, ow};
    cDim = 3, khDim = 1, kwDim = 2;
  } else if (order == ColumnOrder::RowsOuter) {
    shape = {n, oh, c, kh, kw, ow};
    ohDim = 1, cDim = 2, khDim = 3, kwDim = 4;
  }
  Value empty = into ? into : b.create<tensor::EmptyOp>(loc, shape, elem).getResult();
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(6)};
  SmallVector<utils::IteratorType> iters(6, utils::IteratorType::parallel);
  auto columns = b.create<linalg::GenericOp>(
          loc, empty.getType(), ValueRange{}, empty, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange) {
            auto index = [&](int64_t dim) -> Value { return nb.create<linalg::IndexOp>(l, dim); };
            // k * dilation + o * stride, as index arithmetic the vectorizer
            // analyses (contiguous when the stride is 1). The o term goes
            // last: LLVM 19's contiguity check keeps only the last
            // linalg.index it visits.
            auto at = [&](int64_t o, int64_t k, int64_t stride, int64_t dil) -> Value {
              auto scaled = [&](int64_t dim, int64_t by) -> Value {
                Value i = index(dim);
                return by == 1 ? i
                               : nb.create<arith::MulIOp>(
                                     l, i, nb.create<arith::ConstantIndexOp>(l, by));
              };
              return nb.create<arith::AddIOp>(l, scaled(k, dil), scaled(o, stride));
            };
            Value h = at(ohDim, khDim, s[0], d[0]), w = at(5, kwDim, s[1], d[1]);
            if (pad.empty()) {
              Value v =
                  nb.create<tensor::ExtractOp>(l, xp, ValueRange{index(0), index(cDim), h, w});
              nb.create<linalg::YieldOp>(l, v);
              return;
            }
            // Unpadded input: (h - top, w - left), zero outside it.
            auto c = [&](int64_t v) { return nb.create<arith::ConstantIndexOp>(l, v); };
            h = nb.create<arith::SubIOp>(l, h, c(pad[0]));
            w = nb.create<arith::SubIOp>(l, w, c(pad[1]));
            Value zero = nb.create<arith::ConstantOp>(l, nb.getZeroAttr(elem));
            nb.create<linalg::YieldOp>(l, readInsideOr(nb, l, xp, h, w, zero, cDim));
          });
  if (order == ColumnOrder::RowsOuter) {
    columns->setAttr(kRowTileColumnsAttr, b.getUnitAttr());
    columns->setAttr(kShareByDimAttr, b.getI64IntegerAttr(cDim));
  }
  return columns.getResult(0);
}

int64_t reductionLanes(int64_t size, int64_t vectorWidth, bool partialVectors) {
  for (int64_t lanes : {vectorWidth, vectorWidth / 2})
    if (lanes > 1 && size % lanes == 0 && size >= 2 * lanes)
      return lanes;
  for (int64_t lanes = vectorWidth - 1; partialVectors && lanes > vectorWidth / 2; --lanes)
    if (size % lanes == 0 && size >= 2 * lanes)
      return lanes;
  return 0;
}

Value partialSumsInLanes(OpBuilder &b, Location loc, ValueRange inputs,
                         ArrayRef<AffineMap> inputMaps, AffineMap outMap,
                         ArrayRef<utils::IteratorType> iters, Value partialInit, BodyFn term,
                         CombineFn combine) {
  MLIRContext *ctx = b.getContext();
  auto partialType = tensorType(partialInit);
  int64_t lanes = partialType.getShape().back();
  unsigned rank = iters.size(), inner = rank - 1;
  AffineExpr block = b.getAffineDimExpr(inner), lane = b.getAffineDimExpr(rank);
  // Inputs: the innermost dim R viewed as [R / lanes, lanes].
  SmallVector<Value> split;
  SmallVector<AffineMap> maps;
  for (auto [v, map] : llvm::zip(inputs, inputMaps)) {
    auto t = tensorType(v);
    SmallVector<int64_t> shape(t.getShape());
    shape.back() /= lanes;
    shape.push_back(lanes);
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i + 1 < t.getRank(); ++i)
      groups.push_back({i});
    groups.push_back({t.getRank() - 1, t.getRank()});
    split.push_back(b.create<tensor::ExpandShapeOp>(loc, t.clone(shape), v, groups));
    SmallVector<AffineExpr> exprs(map.getResults());
    exprs.back() = block;
    exprs.push_back(lane);
    maps.push_back(AffineMap::get(rank + 1, 0, exprs, ctx));
  }
  SmallVector<AffineExpr> outExprs(outMap.getResults());
  outExprs.push_back(lane);
  maps.push_back(AffineMap::get(rank + 1, 0, outExprs, ctx));
  SmallVector<utils::IteratorType> partialIters(iters);
  partialIters.push_back(utils::IteratorType::parallel);
  Value partial =
      b.create<linalg::GenericOp>(
           loc, partialType, split, partialInit, maps, partialIters,
           [&](OpBuilder &nb, Location l, ValueRange v) {
             Value t = term(nb, l, v.drop_back());
             Value acc = combine ? combine(nb, l, v.back(), t)
                                 : nb.create<arith::AddFOp>(l, v.back(), t).getResult();
             nb.create<linalg::YieldOp>(l, acc);
           })
          .getResult(0);
  return partial;
}

Value addLaneSums(OpBuilder &b, Location loc, Value partial, Value init, CombineFn combine) {
  auto initType = tensorType(init);
  unsigned outRank = initType.getRank();
  SmallVector<utils::IteratorType> finalIters(outRank, utils::IteratorType::parallel);
  finalIters.push_back(utils::IteratorType::reduction);
  SmallVector<AffineExpr> kept;
  for (unsigned i = 0; i < outRank; ++i)
    kept.push_back(b.getAffineDimExpr(i));
  SmallVector<AffineMap> finalMaps{b.getMultiDimIdentityMap(outRank + 1),
                                   AffineMap::get(outRank + 1, 0, kept, b.getContext())};
  return b
      .create<linalg::GenericOp>(loc, initType, partial, init, finalMaps, finalIters,
                                 [&](OpBuilder &nb, Location l, ValueRange v) {
                                   Value acc =
                                       combine ? combine(nb, l, v[1], v[0])
                                               : nb.create<arith::AddFOp>(l, v[1], v[0]).getResult();
                                   nb.create<linalg::YieldOp>(l, acc);
                                 })
      .getResult(0);
}

Value lanePartialInit(OpBuilder &b, Location loc, Value init, int64_t lanes, double identity) {
  auto t = tensorType(init);
  SmallVector<int64_t> shape(t.getShape());
  shape.push_back(lanes);
  return filled(b, loc, t.clone(shape), identity);
}

Value sumInLanes(OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                 AffineMap outMap, ArrayRef<utils::IteratorType> iters, Value init,
                 int64_t lanes, BodyFn term, CombineFn combine, double identity) {
  Value partial = partialSumsInLanes(b, loc, inputs, inputMaps, outMap, iters,
                                     lanePartialInit(b, loc, init, lanes, identity), term, combine);
  return addLaneSums(b, loc, partial, init, combine);
}

Value poolInverseDivisors(OpBuilder &b, Location loc, RankedTensorType outType,
                          ArrayRef<int64_t> inShape, ArrayRef<int64_t> k,
                          ArrayRef<int64_t> s, ArrayRef<int64_t> p, ArrayRef<int64_t> d,
                          bool countIncludePad) {
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  SmallVector<double> inv;
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      int64_t count = 1;
      for (int i = 0; i < 2; ++i) {
        int64_t pos = i == 0 ? y : x, n = 0;
        int64_t lo = countIncludePad ? -p[i] : 0;
        int64_t hi = inShape[2 + i] + (countIncludePad ? p[2 + i] : 0);
        for (int64_t j = 0; j < k[i]; ++j) {
          int64_t c = pos * s[i] - p[i] + j * d[i];
          n += c >= lo && c < hi;
        }
        count *= n;
      }
      inv.push_back(count ? 1.0 / count : 0.0);
    }
  Type elem = outType.getElementType();
  auto tableType = RankedTensorType::get({oh, ow}, elem);
  SmallVector<Attribute> values;
  for (double v : inv)
    values.push_back(b.getFloatAttr(elem, v));
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(tableType, values));
}

int64_t chunkThatFits(int64_t dim, int64_t perUnit, int64_t limit) {
  for (int64_t d = dim; d > 1; --d)
    if (dim % d == 0 && d * perUnit <= limit)
      return d;
  return 1;
}

Value sliceAlong(OpBuilder &b, Location loc, Value v, int64_t dim, OpFoldResult offset,
                 int64_t size) {
  auto t = tensorType(v);
  SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0)), sizes,
      strides(t.getRank(), b.getIndexAttr(1));
  for (int64_t s : t.getShape())
    sizes.push_back(b.getIndexAttr(s));
  offsets[dim] = offset;
  sizes[dim] = b.getIndexAttr(size);
  return b.create<tensor::ExtractSliceOp>(loc, v, offsets, sizes, strides);
}

Value forEachBatchChunk(OpBuilder &b, Location loc, Value init, int64_t chunk,
                        function_ref<Value(OpBuilder &, Location, Value, Value)> part) {
  auto t = tensorType(init);
  auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
  auto loop = b.create<scf::ForOp>(
      loc, idx(0), idx(t.getDimSize(0)), idx(chunk), ValueRange{init},
      [&](OpBuilder &nb, Location l, Value at, ValueRange acc) {
        Value result = part(nb, l, at, acc[0]);
        auto rt = tensorType(result);
        SmallVector<OpFoldResult> offsets(rt.getRank(), nb.getIndexAttr(0)), sizes,
            strides(rt.getRank(), nb.getIndexAttr(1));
        for (int64_t s : rt.getShape())
          sizes.push_back(nb.getIndexAttr(s));
        offsets[0] = at;
        nb.create<scf::YieldOp>(
            l, nb.create<tensor::InsertSliceOp>(l, result, acc[0], offsets, sizes, strides)
                   .getResult());
      });
  return loop.getResult(0);
}

bool hasScalarElementwiseBody(linalg::GenericOp g) {
  return llvm::all_of(g.getBody()->without_terminator(), [](Operation &op) {
    return OpTrait::hasElementwiseMappableTraits(&op) && op.getNumResults() == 1 &&
           op.getNumRegions() == 0 && op.getResult(0).getType().isIntOrFloat() &&
           llvm::all_of(op.getOperandTypes(), [](Type t) { return t.isIntOrFloat(); });
  });
}

linalg::GenericOp epilogueOf(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  auto g = dyn_cast<linalg::GenericOp>(*v.getUsers().begin());
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!g || !type || type.getRank() != 4 || g.getNumDpsInits() != 1 || g.getNumResults() != 1 ||
      g.getNumReductionLoops() != 0 || g.getNumLoops() != 4 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      g.getDpsInitOperand(0)->get().getType() != v.getType() ||
      !g.getRegionOutputArgs()[0].use_empty())
    return nullptr;
  AffineMap channel = AffineMap::get(4, 0, getAffineDimExpr(1, g.getContext()));
  int64_t ofV = 0;
  for (OpOperand *in : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(in);
    if (in->get() == v && map.isIdentity()) {
      ++ofV;
      continue;
    }
    auto t = dyn_cast<RankedTensorType>(in->get().getType());
    if (!t || map != channel || t.getShape() != ArrayRef<int64_t>{type.getDimSize(1)} ||
        t.getElementType() != type.getElementType())
      return nullptr;
  }
  return ofV == 1 && hasScalarElementwiseBody(g) ? g : nullptr;
}

Value applyElementwise(OpBuilder &b, Location loc, linalg::GenericOp g, ArrayRef<Value> inputs) {
  ArrayRef<int64_t> shape;
  for (Value in : inputs)
    if (auto t = dyn_cast<VectorType>(in.getType())) {
      shape = t.getShape();
      break;
    }
  IRMapping map;
  auto splat = [&](Value s) -> Value {
    if (isa<VectorType>(s.getType()))
      return s;
    return b.create<vector::BroadcastOp>(loc, VectorType::get(shape, s.getType()), s);
  };
  for (auto [arg, in] : llvm::zip(g.getBody()->getArguments(), inputs))
    map.map(arg, splat(in));
  auto lookup = [&](Value s) -> Value {
    if (Value m = map.lookupOrNull(s))
      return m;
    Value v = splat(s);
    map.map(s, v);
    return v;
  };
  // Each op on vectors of its scalar result's type (a compare's i1 too).
  for (Operation &op : g.getBody()->without_terminator()) {
    SmallVector<Value> operands;
    for (Value o : op.getOperands())
      operands.push_back(lookup(o));
    Operation *v = b.create(loc, op.getName().getIdentifier(), operands,
                            {VectorType::get(shape, op.getResult(0).getType())}, op.getAttrs());
    map.map(op.getResult(0), v->getResult(0));
  }
  return lookup(g.getBody()->getTerminator()->getOperand(0));
}

Value biasOf(Value init, bool &scalar) {
  scalar = false;
  if (Value v = dlc::fillValue(init)) {
    scalar = true;
    return v;
  }
  auto generic = init.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      !isa_and_nonnull<tensor::EmptyOp>(generic.getDpsInitOperand(0)->get().getDefiningOp()))
    return nullptr;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  AffineMap in = generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
  if (yield.getNumOperands() != 1 || yield.getOperand(0) != generic.getBody()->getArgument(0) ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)).isIdentity() ||
      in.getNumResults() != 1 || in.getResult(0) != getAffineDimExpr(1, init.getContext()))
    return nullptr;
  return generic.getDpsInputOperand(0)->get();
}

} // namespace dlc
