//===- ConvToWinograd.cpp - 3x3 stride-1 convs as Winograd F(m x m, 3 x 3) -===//
//
// A 3x3 stride-1 conv computes each m x m tile of its output from an
// alpha x alpha patch of its input (alpha = m + 2). Winograd's minimal
// filtering (Lavin & Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2016) does it with alpha^2 multiplies per (input channel,
// output channel) pair instead of 9 m^2: 2.25x fewer for m = 2, 4x for
// m = 4. Those multiplies are alpha^2 GEMMs U[F, C] x V[C, tiles], the bulk
// of the work, in the packed register-tile layout of dlc-conv-to-im2col's
// GEMM; around them an input transform (V = Bt d B per patch d) and an
// output transform (Y = At M A per tile), both additions with small
// constant coefficients. The filter transform (U = G g Gt) and its packing
// run at compile time.
//
// Upstream's linalg::winogradConv2D is not used: it takes NHWC convs only,
// and its transforms decompose into one small matmul per tile inside scf
// loops, which vectorizes across nothing; here each transform is two
// separable stages (rows, then columns), each one linalg.generic that
// dlc-tile-and-vectorize vectorizes along a row (contiguous loads), except
// the output's column stage, vector code written here (its results
// interleave into the output row), and the GEMM is the packed one.
//
//===----------------------------------------------------------------------===//
#include "passes/ConvGemmLayout.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc {
#define GEN_PASS_DEF_CONVTOWINOGRAD
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
using Matrix = std::vector<std::vector<double>>;

/// F(m x m, 3 x 3): Y = At [(G g Gt) . (Bt d B)] A for a 3x3 filter g and
/// an alpha x alpha input patch d, the matrices of Lavin & Gray.
struct Winograd {
  int64_t m;
  Matrix bt; ///< [alpha][alpha]
  Matrix g;  ///< [alpha][3]
  Matrix at; ///< [m][alpha]
  int64_t alpha() const { return m + 2; }
};

const Winograd *winogradFor(int64_t m) {
  static const Winograd f2{2,
                           {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
                           {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}},
                           {{1, 1, 1, 0}, {0, 1, -1, -1}}};
  static const Winograd f4{4,
                           {{4, 0, -5, 0, 1, 0},
                            {0, -4, -4, 1, 1, 0},
                            {0, 4, -4, -1, 1, 0},
                            {0, -2, -1, 2, 1, 0},
                            {0, 2, -1, -2, 1, 0},
                            {0, 4, 0, -5, 0, 1}},
                           {{1. / 4, 0, 0},
                            {-1. / 6, -1. / 6, -1. / 6},
                            {-1. / 6, 1. / 6, -1. / 6},
                            {1. / 24, 1. / 12, 1. / 6},
                            {1. / 24, -1. / 12, 1. / 6},
                            {0, 0, 1}},
                           {{1, 1, 1, 1, 1, 0},
                            {0, 1, -1, 2, -2, 0},
                            {0, 1, 1, 4, 4, 0},
                            {0, 1, -1, 8, -8, 1}}};
  return m == 2 ? &f2 : m == 4 ? &f4 : nullptr;
}

/// The nonzero terms of each row of a transform matrix L (out[p] = sum_j
/// L[p][j] x[j]), every row's list padded to the longest with zero
/// coefficients: tables [P][count] that a transform stage's generic reads
/// at its p loop index.
struct Terms {
  int64_t count = 0;
  SmallVector<float> coef;
  SmallVector<int32_t> col;
};

Terms rowTerms(const Matrix &l) {
  Terms t;
  for (const auto &row : l)
    t.count = std::max<int64_t>(t.count, llvm::count_if(row, [](double v) { return v != 0; }));
  for (const auto &row : l) {
    int64_t k = 0;
    for (size_t j = 0; j < row.size(); ++j)
      if (row[j] != 0) {
        t.coef.push_back(row[j]);
        t.col.push_back(j);
        ++k;
      }
    for (; k < t.count; ++k) {
      t.coef.push_back(0);
      t.col.push_back(0);
    }
  }
  return t;
}

Value i32Table(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ArrayRef<int32_t> v) {
  auto type = RankedTensorType::get(shape, b.getI32Type());
  return b.create<arith::ConstantOp>(loc, DenseIntElementsAttr::get(type, v));
}

Value f32Table(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ArrayRef<float> v) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, v));
}

/// Index arithmetic inside a generic's body, in the forms the vectorizer
/// analyses (see dlc::im2colColumns): linalg.index ops created where used,
/// the innermost one last.
struct BodyIndex {
  OpBuilder &b;
  Location loc;
  Value dim(int64_t d) { return b.create<linalg::IndexOp>(loc, d); }
  Value cst(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  Value add(Value x, Value y) { return b.create<arith::AddIOp>(loc, x, y); }
  Value mul(Value x, int64_t by) { return by == 1 ? x : b.create<arith::MulIOp>(loc, x, cst(by)); }
  /// An entry of an i32 table, as an index.
  Value lookup(Value table, ArrayRef<Value> at) {
    Value v = b.create<tensor::ExtractOp>(loc, table, at);
    return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
  }
};

/// x [N, C, H, W] with each row split into its m phases: xd[n, c, y, ph *
/// (TX+1) + u] = x[n, c, y, m*u + ph] for y < m*TY + 2, the rows and
/// columns past x zeros when the tiles overhang the output (else only the
/// last u of phases >= 2 lies past the row: clamped into it, never read).
/// The transform's column stage then reads rows of tiles contiguously (a
/// stride-m read would be a gather per term; this is one per element).
/// Without overhang the tiles u < TX, which need no clamp, are a generic
/// of their own: its stride-m gather along u is then contiguous reads and
/// shuffles (dlc-lower-vectors), where the clamp left one scalar read per
/// element (ResNet-50's 13 splits: 1.2 ms at one thread).
Value splitPhases(OpBuilder &b, Location loc, Value x, int64_t m, int64_t tilesY,
                  int64_t tilesX) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t h = t.getDimSize(2), w = t.getDimSize(3), hp = m * tilesY + 2;
  bool overhang = hp > h || m * tilesX + 2 > w;
  SmallVector<int64_t> shape{t.getDimSize(0), t.getDimSize(1), hp, m, tilesX + 1};
  Type elem = t.getElementType();
  Value empty = b.create<tensor::EmptyOp>(loc, shape, elem);
  SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
  // The split over `dest` (tiles u0 on), columns clamped into the row with
  // `clamp`.
  auto split = [&](Value dest, int64_t u0, bool clamp) {
    auto op = b.create<linalg::GenericOp>(
            loc, dest.getType(), ValueRange{}, dest, b.getMultiDimIdentityMap(5), iters,
            [&](OpBuilder &nb, Location l, ValueRange) {
              BodyIndex ix{nb, l};
              Value y = ix.dim(2);
              Value u = u0 ? ix.add(ix.dim(4), ix.cst(u0)) : ix.dim(4);
              Value col = ix.add(ix.dim(3), ix.mul(u, m));
              Value yIn =
                  hp > h ? nb.create<arith::MinSIOp>(l, y, ix.cst(h - 1)).getResult() : y;
              Value colIn =
                  clamp ? nb.create<arith::MinSIOp>(l, col, ix.cst(w - 1)).getResult() : col;
              Value v = nb.create<tensor::ExtractOp>(
                  l, x, ValueRange{ix.dim(0), ix.dim(1), yIn, colIn});
              if (overhang) {
                auto below = [&](Value i, int64_t bound) {
                  return nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, i,
                                                  ix.cst(bound));
                };
                Value inside = nb.create<arith::AndIOp>(l, below(y, h), below(col, w));
                v = nb.create<arith::SelectOp>(l, inside, v, dlc::scalarConst(nb, l, elem, 0));
              }
              nb.create<linalg::YieldOp>(l, v);
            });
    // A channel an iteration, as the pad before it and the transform's
    // stages after it share them out (see dlc::kForallDimsAttr).
    op->setAttr(dlc::kForallDimsAttr, b.getDenseI64ArrayAttr({0, 1}));
    return op.getResult(0);
  };
  Value xd;
  if (overhang || m * (tilesX + 1) <= w) {
    xd = split(empty, 0, /*clamp=*/m * (tilesX + 1) > w);
  } else {
    // Tiles [0, TX), then the last one, each into its part of `empty`.
    auto part = [&](Value into, int64_t u0, int64_t count, bool clamp) {
      SmallVector<OpFoldResult> offsets(5, b.getIndexAttr(0)), strides(5, b.getIndexAttr(1));
      offsets[4] = b.getIndexAttr(u0);
      SmallVector<int64_t> sizes(shape);
      sizes[4] = count;
      SmallVector<OpFoldResult> sizeAttrs = getAsIndexOpFoldResult(b.getContext(), sizes);
      Value dest = b.create<tensor::ExtractSliceOp>(loc, into, offsets, sizeAttrs, strides);
      return b.create<tensor::InsertSliceOp>(loc, split(dest, u0, clamp), into, offsets,
                                             sizeAttrs, strides)
          .getResult();
    };
    xd = part(part(empty, 0, tilesX, /*clamp=*/false), tilesX, 1, /*clamp=*/true);
  }
  return b.create<tensor::CollapseShapeOp>(
      loc, RankedTensorType::get({shape[0], shape[1], hp, m * (tilesX + 1)}, elem), xd,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
}

/// `x`, a zero pad of the conv's input, padded instead to at least
/// `width` columns (the extra ones zeros the conv never reads), so that the
/// phase split's tiles all lie inside its rows: no clamped column, no
/// scalar tail (ResNet's 56x56 maps: 58 columns padded to 60 for 15 tiles
/// of 4). `x` itself where it is wide enough or not such a pad.
Value widerPad(OpBuilder &b, Location loc, Value x, int64_t width) {
  auto pad = x.getDefiningOp<tensor::PadOp>();
  auto t = cast<RankedTensorType>(x.getType());
  if (!pad || t.getRank() != 4 || !t.hasStaticShape() || t.getDimSize(3) >= width ||
      !pad.getConstantPaddingValue() || !pad.getSourceType().hasStaticShape())
    return x;
  SmallVector<OpFoldResult> high = pad.getMixedHighPad();
  std::optional<int64_t> right = getConstantIntValue(high[3]);
  if (!right)
    return x;
  high[3] = b.getIndexAttr(*right + width - t.getDimSize(3));
  SmallVector<int64_t> shape(t.getShape());
  shape[3] = width;
  return b.create<tensor::PadOp>(loc, t.clone(shape), pad.getSource(), pad.getMixedLowPad(),
                                 high, pad.getConstantPaddingValue());
}

/// One stage of a separable transform, out = sum_k coef[p][k] * read(col[p][k]):
/// a generic over `out`'s dims, `p` its loop dim `pDim`, `read` building
/// the source element of one term from the term's table entry (an index).
/// Terms come from constant tables so that every p is the same loop body:
/// one parallel loop for the thread pool.
Value transformStage(OpBuilder &b, Location loc, const Terms &terms, int64_t pDim, Value out,
                     function_ref<Value(BodyIndex &, Value)> read) {
  int64_t rank = cast<RankedTensorType>(out.getType()).getRank();
  int64_t rows = terms.coef.size() / terms.count;
  Value colTable = i32Table(b, loc, {rows, terms.count}, terms.col);
  Value coefTable = f32Table(b, loc, {rows, terms.count}, terms.coef);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, out.getType(), ValueRange{}, out, b.getMultiDimIdentityMap(rank), iters,
          [&](OpBuilder &nb, Location l, ValueRange) {
            BodyIndex ix{nb, l};
            Value acc;
            for (int64_t k = 0; k < terms.count; ++k) {
              Value col = ix.lookup(colTable, {ix.dim(pDim), ix.cst(k)});
              Value coef =
                  nb.create<tensor::ExtractOp>(l, coefTable, ValueRange{ix.dim(pDim), ix.cst(k)});
              // One FMA per term (half the instructions of a multiply and an
              // add; the transforms were as costly as the GEMMs).
              Value v = read(ix, col);
              acc = acc ? nb.create<math::FmaOp>(l, coef, v, acc).getResult()
                        : nb.create<arith::MulFOp>(l, coef, v).getResult();
            }
            nb.create<linalg::YieldOp>(l, acc);
          })
      .getResult(0);
}

/// V[a, b, n, c, ty, tx] = (Bt d B)[a][b], d the input patch at (m*ty,
/// m*tx), in two stages over the phase-split rows `xd` [N, C, H, m*(TX+1)]:
/// rows, T[n, c, a, ty, q] = sum_i Bt[a][i] xd[n, c, m*ty + i, q]; then
/// columns, V[a, b, ...] = sum_j Bt[b][j] T[..., a, ty, phase-split j + tx],
/// written into `into` [alpha, alpha, N, C, TY, TX]. (As one bilinear sum
/// the terms multiply: 16 per output for m = 4 against 2 x 4.)
Value inputTransform(OpBuilder &b, Location loc, const Winograd &w, Value xd, Value into) {
  Terms terms = rowTerms(w.bt);
  auto xt = cast<RankedTensorType>(xd.getType());
  auto vt = cast<RankedTensorType>(into.getType());
  int64_t alpha = w.alpha(), m = w.m, n = xt.getDimSize(0), c = xt.getDimSize(1);
  int64_t ty = vt.getDimSize(4), tx = vt.getDimSize(5), q = xt.getDimSize(3);
  Value tEmpty = b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{n, c, alpha, ty, q},
                                           xt.getElementType());
  Value rows = transformStage(
      b, loc, terms, 2, tEmpty, [&](BodyIndex &ix, Value i) {
        Value y = ix.add(ix.mul(ix.dim(3), m), i);
        return ix.b.create<tensor::ExtractOp>(ix.loc, xd,
                                              ValueRange{ix.dim(0), ix.dim(1), y, ix.dim(4)});
      });
  rows.getDefiningOp()->setAttr(dlc::kForallDimsAttr, b.getDenseI64ArrayAttr({0, 1}));
  // Column j of a patch is phase j % m, tile shift j / m of the split rows.
  Terms cols = terms;
  for (int32_t &j : cols.col)
    j = (j % m) * (tx + 1) + j / m;
  Value v = transformStage(
      b, loc, cols, 1, into, [&](BodyIndex &ix, Value at) {
        Value q = ix.add(at, ix.dim(5));
        return ix.b.create<tensor::ExtractOp>(
            ix.loc, rows, ValueRange{ix.dim(2), ix.dim(3), ix.dim(0), ix.dim(4), q});
      });
  // Shared out by channel, as the row stage was (see dlc::kShareByDimAttr),
  // though V is laid out point first for the GEMMs.
  v.getDefiningOp()->setAttr(dlc::kShareByDimAttr, b.getI64IntegerAttr(3));
  v.getDefiningOp()->setAttr(dlc::kForallDimsAttr, b.getDenseI64ArrayAttr({2, 3}));
  return v;
}

/// What the conv's accumulator starts from where it is known: a scalar
/// fill or a per-filter [F] bias (dlc::biasOf); null: read it.
struct Start {
  Value value;
  bool scalar = false;
};

/// The elementwise generic that reads the conv's result `v` (its one user)
/// where it can run on the output transform's vectors: all parallel, one
/// result of v's type through the identity map, v among its inputs once
/// through the identity map, its other inputs indexed by (n, f) alone (a
/// BatchNorm's per-channel scale and shift, a constant: one value per
/// output row) or, with `wholeInputs`, tensors of v's shape through the
/// identity map (a residual: read a row at a time), its body scalar
/// elementwise ops. Null otherwise.
linalg::GenericOp epilogueOf(Value v, bool wholeInputs) {
  if (!v.hasOneUse())
    return nullptr;
  auto g = dyn_cast<linalg::GenericOp>(*v.getUsers().begin());
  if (!g || g.getNumResults() != 1 || g.getNumDpsInits() != 1 || g.getNumReductionLoops() != 0 ||
      g.getResult(0).getType() != v.getType() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      !g.getRegionOutputArgs()[0].use_empty())
    return nullptr;
  int reads = 0;
  for (OpOperand *in : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(in);
    if (in->get() == v) {
      if (!map.isIdentity())
        return nullptr;
      ++reads;
      continue;
    }
    if (map.isIdentity() && wholeInputs && in->get().getType() == v.getType())
      continue;
    bool perRow = llvm::all_of(map.getResults(), [&](AffineExpr e) {
      auto d = dyn_cast<AffineDimExpr>(e);
      return d && (d.getPosition() == 1 || (wholeInputs && d.getPosition() == 0));
    });
    if (!perRow || !isa<RankedTensorType>(in->get().getType()))
      return nullptr;
  }
  if (reads != 1)
    return nullptr;
  return dlc::hasScalarElementwiseBody(g) ? g : nullptr;
}

/// The column stage of the output transform: out[n, f, m*ty + i, m*tx + j]
/// = start + sum_b At[j][b] S[n, f, i, b, ty*TX + tx], start `init`'s
/// element unless `start` knows it, then `epilogue` (the elementwise op
/// reading `conv`, the conv's result) if any; one scf.forall iteration per
/// output row (n, f, m*ty + i). Per block of up to `width` tiles along the
/// row: alpha vector reads of S (a tile a lane), the m sums with At's
/// constants unrolled (+-1 terms as adds), the m results interleaved into
/// the block's m*width contiguous outputs. As a
/// generic vectorized along the tiles (contiguous S reads) each output
/// lane went to memory m floats from the next: a scalar extract and store
/// per element, the costliest of the transform's loops (0.17 ms of ResNet's
/// 64-channel 56x56 conv, whose GEMMs take 0.7).
Value outputColumns(OpBuilder &b, Location loc, const Winograd &w, Value s, Value init,
                    const Start &start, int64_t width, linalg::GenericOp epilogue, Value conv) {
  auto t = cast<RankedTensorType>(init.getType());
  int64_t m = w.m, alpha = w.alpha(), n = t.getDimSize(0), f = t.getDimSize(1);
  int64_t oh = t.getDimSize(2), ow = t.getDimSize(3), tx = ow / m;
  MLIRContext *ctx = b.getContext();
  Type f32 = t.getElementType();
  auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
  auto forall = b.create<scf::ForallOp>(loc, getAsIndexOpFoldResult(ctx, {n, f, oh}),
                                        ValueRange{init}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value bn = forall.getInductionVar(0), bf = forall.getInductionVar(1),
        row = forall.getInductionVar(2);
  Value ty = b.create<arith::DivUIOp>(loc, row, idx(m));
  Value i = b.create<arith::RemUIOp>(loc, row, idx(m));
  Value rowTiles = b.create<arith::MulIOp>(loc, ty, idx(tx));
  Value shared = forall.getRegionIterArgs()[0];
  SmallVector<OpFoldResult> offsets{bn, bf, row, b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, {1, 1, 1, ow});
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  Value out = b.create<tensor::ExtractSliceOp>(loc, shared, offsets, sizes, strides);
  Value zero = idx(0);
  Value pad = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0.0f));
  for (int64_t t0 = 0; t0 < tx; t0 += width) {
    int64_t lanes = std::min(width, tx - t0);
    auto tilesType = VectorType::get({lanes}, f32);
    Value p = b.create<arith::AddIOp>(loc, rowTiles, idx(t0));
    SmallVector<Value> sb;
    for (int64_t bb = 0; bb < alpha; ++bb)
      sb.push_back(b.create<vector::TransferReadOp>(loc, tilesType, s,
                                                    ValueRange{bn, bf, i, idx(bb), p}, pad,
                                                    ArrayRef<bool>{true}));
    SmallVector<Value> y;
    for (int64_t j = 0; j < m; ++j) {
      Value sum;
      for (int64_t bb = 0; bb < alpha; ++bb) {
        double c = w.at[j][bb];
        if (c == 0)
          continue;
        Value term = sb[bb];
        if (sum && (c == 1 || c == -1)) {
          sum = c == 1 ? b.create<arith::AddFOp>(loc, sum, term).getResult()
                       : b.create<arith::SubFOp>(loc, sum, term).getResult();
          continue;
        }
        Value coef = b.create<arith::ConstantOp>(
            loc, tilesType, DenseElementsAttr::get(tilesType, static_cast<float>(c)));
        sum = sum ? b.create<math::FmaOp>(loc, coef, term, sum).getResult()
              : c == 1 ? term
                       : b.create<arith::MulFOp>(loc, coef, term).getResult();
      }
      y.push_back(sum);
    }
    // Tile-major order: lane k of y[j] goes to m*k + j.
    Value inter = m == 2 ? b.create<vector::InterleaveOp>(loc, y[0], y[1]).getResult()
                         : b.create<vector::InterleaveOp>(
                                loc, b.create<vector::InterleaveOp>(loc, y[0], y[2]),
                                b.create<vector::InterleaveOp>(loc, y[1], y[3]))
                               .getResult();
    auto outType = VectorType::get({m * lanes}, f32);
    AffineMap last = AffineMap::get(4, 0, {getAffineDimExpr(3, ctx)}, ctx);
    SmallVector<bool> inBounds{true};
    Value sum = inter;
    if (!start.value)
      sum = b.create<arith::AddFOp>(
          loc,
          b.create<vector::TransferReadOp>(loc, outType, out,
                                           ValueRange{zero, zero, zero, idx(m * t0)}, last, pad,
                                           Value(), b.getBoolArrayAttr(inBounds)),
          sum);
    else if (!start.scalar || !matchPattern(start.value, m_AnyZeroFloat()))
      sum = b.create<arith::AddFOp>(
          loc,
          b.create<vector::BroadcastOp>(
              loc, outType,
              start.scalar ? start.value : b.create<tensor::ExtractOp>(loc, start.value, bf)),
          sum);
    if (epilogue) {
      // Its inputs at this row: the sums, a residual's row, a channel's
      // values.
      SmallVector<Value> ins;
      for (OpOperand *in : epilogue.getDpsInputOperands()) {
        AffineMap map = epilogue.getMatchingIndexingMap(in);
        if (in->get() == conv) {
          ins.push_back(sum);
        } else if (map.isIdentity()) {
          ins.push_back(b.create<vector::TransferReadOp>(
              loc, outType, in->get(), ValueRange{bn, bf, row, idx(m * t0)}, pad,
              ArrayRef<bool>{true}));
        } else {
          SmallVector<Value> at;
          for (AffineExpr e : map.getResults())
            at.push_back(cast<AffineDimExpr>(e).getPosition() == 0 ? bn : bf);
          ins.push_back(b.create<tensor::ExtractOp>(loc, in->get(), at));
        }
      }
      sum = dlc::applyElementwise(b, loc, epilogue, ins);
    }
    out = b.create<vector::TransferWriteOp>(loc, sum, out,
                                            ValueRange{zero, zero, zero, idx(m * t0)}, last,
                                            ArrayRef<bool>(inBounds))
              .getResult();
  }
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  b.create<tensor::ParallelInsertSliceOp>(loc, out, shared, offsets, sizes, strides);
  return forall.getResult(0);
}

/// init[n, f, m*ty + i, m*tx + j] + (At M A)[i][j] over M [alpha^2, N, F',
/// P'] (tile p = ty*TX + tx), in two stages: S[n, f, i, b, p] = sum_a
/// At[i][a] M[a*alpha + b, n, f, p] over whole rows of tiles (a generic);
/// then outputColumns. The stages' results put the transform's own index
/// (i, or the input transform's a) inside the channel, so that one
/// channel's rows are read by all of its terms while in cache: with it
/// outermost each of its values made a pass over the whole input.
Value outputTransform(OpBuilder &b, Location loc, const Winograd &w, Value mats, Value init,
                      const Start &start, int64_t width, linalg::GenericOp epilogue,
                      Value conv) {
  Terms terms = rowTerms(w.at);
  auto t = cast<RankedTensorType>(init.getType());
  auto mt = cast<RankedTensorType>(mats.getType());
  int64_t alpha = w.alpha(), m = w.m, n = t.getDimSize(0), f = t.getDimSize(1);
  int64_t pp = mt.getDimSize(3);
  Type elem = t.getElementType();
  Value sEmpty = b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{n, f, m, alpha, pp}, elem);
  Value rows = transformStage(
      b, loc, terms, 2, sEmpty, [&](BodyIndex &ix, Value a) {
        Value ab = ix.add(ix.mul(a, alpha), ix.dim(3));
        return ix.b.create<tensor::ExtractOp>(ix.loc, mats,
                                              ValueRange{ab, ix.dim(0), ix.dim(1), ix.dim(4)});
      });
  return outputColumns(b, loc, w, rows, init, start, width, epilogue, conv);
}

/// U[a*alpha + b][f][c] = (G g[f][c] Gt)[a][b], packed in row panels
/// [alpha^2, F'/rows, C, rows] (zero rows up to F').
Value transformedFilter(OpBuilder &b, Location loc, const Winograd &w, ArrayRef<float> g,
                        int64_t f, int64_t c, int64_t rows) {
  int64_t alpha = w.alpha(), panels = dlc::roundUp(f, rows) / rows;
  SmallVector<float> packed(alpha * alpha * panels * c * rows, 0.0f);
  for (int64_t fi = 0; fi < f; ++fi)
    for (int64_t ci = 0; ci < c; ++ci) {
      const float *k3 = &g[(fi * c + ci) * 9];
      double gk[6][3]; // G g: [alpha][3], alpha <= 6
      for (int64_t a = 0; a < alpha; ++a)
        for (int64_t col = 0; col < 3; ++col) {
          gk[a][col] = 0;
          for (int64_t r = 0; r < 3; ++r)
            gk[a][col] += w.g[a][r] * k3[r * 3 + col];
        }
      for (int64_t a = 0; a < alpha; ++a)
        for (int64_t bb = 0; bb < alpha; ++bb) {
          double u = 0;
          for (int64_t col = 0; col < 3; ++col)
            u += gk[a][col] * w.g[bb][col];
          int64_t ab = a * alpha + bb;
          packed[((ab * panels + fi / rows) * c + ci) * rows + fi % rows] = float(u);
        }
    }
  return dlc::f32Constant(b, loc, {alpha * alpha, panels, c, rows}, packed, "winograd_filter");
}

/// M[ab, n, f, p] = sum_c U[ab, f, c] V[ab, n, c, p]: alpha^2 GEMMs as one
/// contraction generic (ab, n, panel, row, p, c) over the packed U, the
/// batch dim ab shared by all operands; (ab, n, panel, p, row, c) for a
/// pixelRows layout (as dlc-conv-to-im2col's). Returns [alpha^2, N, F', P'].
Value tileGemms(OpBuilder &b, Location loc, Value u, Value v, const dlc::GemmLayout &layout) {
  auto ut = cast<RankedTensorType>(u.getType()), vt = cast<RankedTensorType>(v.getType());
  int64_t ab = ut.getDimSize(0), panels = ut.getDimSize(1), rows = ut.getDimSize(3);
  int64_t n = vt.getDimSize(1), pp = vt.getDimSize(3);
  Type elem = vt.getElementType();
  auto accType = RankedTensorType::get({ab, n, panels, rows, pp}, elem);
  Value acc = dlc::filled(b, loc, accType, 0.0);
  MLIRContext *ctx = b.getContext();
  AffineExpr dab, dn, dpanel, drow, dp, dk;
  if (layout.pixelRows)
    bindDims(ctx, dab, dn, dpanel, dp, drow, dk);
  else
    bindDims(ctx, dab, dn, dpanel, drow, dp, dk);
  SmallVector<AffineMap> maps{AffineMap::get(6, 0, {dab, dpanel, dk, drow}, ctx),
                              AffineMap::get(6, 0, {dab, dn, dk, dp}, ctx),
                              AffineMap::get(6, 0, {dab, dn, dpanel, drow, dp}, ctx)};
  SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Value gemm = dlc::multiplyAccumulate(b, loc, u, v, acc, maps, iters);
  return b.create<tensor::CollapseShapeOp>(
      loc, RankedTensorType::get({ab, n, panels * rows, pp}, elem), gemm,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4}});
}

/// A conv GEMM's time per (input, output) channel pair: `weights` filter
/// elements per pair (9 for im2col, (m+2)^2 for Winograd) times `columns`
/// padded columns (pixels or tiles), but at least kMinColumns: below that
/// many columns per filter element (the filter is read from memory once per
/// run; a transformed filter is (m+2)^2/9 times larger) the GEMM waits on
/// memory, not on FMAs. (32 instead made ResNet-18 7-16% slower at 1 and 2
/// threads here: its 7x7 layers went back to im2col, its 14x14 ones to
/// F(2x2).)
constexpr int64_t kMinColumns = 16;
int64_t gemmCost(int64_t weights, int64_t columns) {
  return weights * std::max(columns, kMinColumns);
}

/// How a conv is tiled: F(m x m, 3 x 3) over TY x TX tiles (the last ones
/// may overhang the output), the GEMMs' layout for that many tiles, and the
/// tile count padded to its register tile.
struct Plan {
  const Winograd *w = nullptr;
  int64_t ty = 0, tx = 0;
  dlc::GemmLayout layout;
  int64_t pp = 0;
  int64_t tiles() const { return ty * tx; }
  int64_t cost() const { return gemmCost(w->alpha() * w->alpha(), pp); }
};

/// The whole conv on `x` [N, C, OH+2, OW+2] (padded) into `init` [N, F, OH,
/// OW]. Tiles overhanging the output write into a larger accumulator whose
/// corner is the result (as dlc-conv-to-im2col's padded pixels).
Value winogradConv(OpBuilder &b, Location loc, const Plan &plan, Value x, Value filter,
                   Value init, int64_t vectorWidth, linalg::GenericOp epilogue, Value conv) {
  const Winograd &w = *plan.w;
  auto xt = cast<RankedTensorType>(x.getType()), it = cast<RankedTensorType>(init.getType());
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), alpha = w.alpha(), m = w.m;
  int64_t ty = plan.ty, tx = plan.tx, pp = plan.pp;
  Type elem = xt.getElementType();
  Value xd = splitPhases(b, loc, widerPad(b, loc, x, m * (tx + 1)), m, ty, tx);
  // V goes into its pixel-padded buffer through a view of the first TY*TX
  // tiles (padding columns hold garbage that no one reads, as in
  // dlc-conv-to-im2col).
  Value vBuf = dlc::paddedBuffer(b, loc, {alpha * alpha, n, c, pp}, elem);
  auto zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> offsets(4, zero), strides(4, one);
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(b.getContext(), {alpha * alpha, n, c, ty * tx});
  Value corner = b.create<tensor::ExtractSliceOp>(loc, vBuf, offsets, sizes, strides);
  SmallVector<ReassociationIndices> groups{{0, 1}, {2}, {3}, {4, 5}};
  Value into = b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get({alpha, alpha, n, c, ty, tx}, elem), corner, groups);
  Value v6 = inputTransform(b, loc, w, xd, into);
  Value v = b.create<tensor::InsertSliceOp>(
      loc, b.create<tensor::CollapseShapeOp>(loc, corner.getType(), v6, groups), vBuf, offsets,
      sizes, strides);
  Value mats = tileGemms(b, loc, filter, v, plan.layout);
  // A fill or bias broadcast to start from is added in registers (not
  // written first and read back); the output transform writes every
  // element of its accumulator.
  Start start;
  start.value = dlc::biasOf(init, start.scalar);
  SmallVector<int64_t> outShape(it.getShape());
  if (ty * m == outShape[2] && tx * m == outShape[3]) {
    Value dest = start.value ? b.create<tensor::EmptyOp>(loc, outShape, elem).getResult() : init;
    return outputTransform(b, loc, w, mats, dest, start, vectorWidth, epilogue, conv);
  }
  SmallVector<int64_t> whole{outShape[0], outShape[1], ty * m, tx * m};
  Value acc = dlc::paddedBuffer(b, loc, whole, elem);
  if (!start.value)
    acc = dlc::writeIntoCorner(b, loc, init, acc, {{0}, {1}, {2}, {3}}, outShape);
  Value out = outputTransform(b, loc, w, mats, acc, start, vectorWidth, epilogue, conv);
  SmallVector<OpFoldResult> at(4, zero), step(4, one);
  return b.create<tensor::ExtractSliceOp>(loc, it, out, at,
                                          getAsIndexOpFoldResult(b.getContext(), outShape), step);
}

struct WinogradConv : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  WinogradConv(MLIRContext *ctx, const dlc::ConvToWinogradOptions &o)
      : OpRewritePattern(ctx), opts(o), layout{o.packRows, o.padLanes, false, o.narrowLanes} {
    layout.maxTransposedFilterBytes = o.transposedFilterBytes;
  }
  dlc::ConvToWinogradOptions opts;
  /// The register tile's layout, shared with im2col's GEMMs.
  dlc::GemmLayout layout;

  /// The m (up to `max-tile`) whose GEMMs do the least work, tile
  /// overhang and padding included (ResNet's 14x14 maps: 4x4 tiles of
  /// F(4x4) overhang to 16x16, 36 x 16 multiplies per channel pair,
  /// against 16 x 54 for F(2x2)'s 7x7 tiles, in 6-tile rows).
  Plan planFor(int64_t f, int64_t c, int64_t oh, int64_t ow) const {
    Plan best;
    for (int64_t m = 2; m <= opts.maxTile; m *= 2) {
      Plan p;
      p.w = winogradFor(m);
      if (!p.w)
        continue;
      p.ty = (oh + m - 1) / m;
      p.tx = (ow + m - 1) / m;
      p.layout = dlc::layoutFor(layout, f, c, p.tiles());
      p.pp = dlc::paddedPixels(p.tiles(), p.layout.pixelTile());
      if (!best.w || p.cost() < best.cost())
        best = p;
    }
    return best;
  }

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp conv,
                                PatternRewriter &r) const override {
    if (!conv.hasPureTensorSemantics())
      return failure();
    auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
    auto wt = cast<RankedTensorType>(conv.getInputs()[1].getType());
    auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
    if (!in.hasStaticShape() || !wt.hasStaticShape() || !out.hasStaticShape() ||
        !out.getElementType().isF32() || wt.getDimSize(2) != 3 || wt.getDimSize(3) != 3 ||
        !llvm::all_of(conv.getStrides().getValues<int64_t>(), [](int64_t s) { return s == 1; }) ||
        !llvm::all_of(conv.getDilations().getValues<int64_t>(), [](int64_t d) { return d == 1; }))
      return failure();
    // Where it pays (a heuristic): enough pixels and channels that the
    // GEMMs dominate the transforms (below `min-pixels`, 7x7 by default, and
    // `min-channels` they do not), and GEMMs cheaper than im2col's.
    int64_t n = in.getDimSize(0), c = in.getDimSize(1), f = wt.getDimSize(0);
    int64_t oh = out.getDimSize(2), ow = out.getDimSize(3);
    Plan plan = planFor(f, c, oh, ow);
    if (!plan.w || oh * ow < opts.minPixels || c < opts.minChannels || f < opts.minChannels)
      return failure();
    // Against im2col's GEMM over the same pixels in the layout it would take.
    int64_t im2colTile = dlc::layoutFor(layout, f, 9 * c, oh * ow).pixelTile();
    if (plan.cost() >= gemmCost(9, dlc::paddedPixels(oh * ow, im2colTile)))
      return failure();
    std::optional<SmallVector<float>> g = dlc::constantF32Values(conv.getInputs()[1]);
    if (!g)
      return failure();
    const Winograd &w = *plan.w;
    int64_t m = w.m, tiles = plan.tiles(), alpha = w.alpha(), pp = plan.pp;
    // Batches in image chunks whose V stays under the cache bound.
    int64_t perImage = alpha * alpha * c * pp * 4;
    int64_t chunk = n;
    if (opts.cacheWorkspaceBytes > 0 && n * perImage > opts.cacheWorkspaceBytes)
      chunk = dlc::chunkThatFits(n, perImage, opts.cacheWorkspaceBytes);
    // The elementwise ops that read the result (BatchNorm, activation, a
    // residual add) run on the output transform's vectors before they are
    // stored: as their own loop they read and wrote the whole output again.
    // Residual rows only where the output rows are the accumulator's (no
    // overhang) and the whole batch's.
    bool wholeInputs = chunk == n && plan.ty * m == oh && plan.tx * m == ow;
    Value convResult = conv.getResult(0);
    linalg::GenericOp epilogue = epilogueOf(convResult, wholeInputs);
    dlc::recordKernel(conv, "Winograd F(" + std::to_string(m) + "x" + std::to_string(m) +
                                ",3x3), " + std::to_string(alpha * alpha) + " GEMMs over " +
                                std::to_string(tiles) + " tiles; transformed " +
                                dlc::packedKernelName(plan.layout, f, tiles, pp, "tiles") +
                                (epilogue ? ", epilogue in registers" : ""));
    Location loc = conv.getLoc();
    Value x = conv.getInputs()[0], init = conv.getOutputs()[0];
    // At the epilogue, whose other inputs (a residual) may come after the
    // conv; the conv's own operands come before both.
    if (epilogue)
      r.setInsertionPoint(epilogue);
    Value filter = transformedFilter(r, loc, w, *g, f, c, plan.layout.panelWidth());
    Value result;
    if (chunk == n) {
      result =
          winogradConv(r, loc, plan, x, filter, init, opts.vectorWidth, epilogue, convResult);
    } else {
      // Each chunk starts from its own fill or bias broadcast where the
      // conv starts from one: the loop's tensor is then only written, and
      // bufferization no longer copied the whole start into the loop's
      // buffer (serially, 1.6 MB for ResNet-50's 14x14 convs at batch 8)
      // and each chunk's slice of it into the output transform's padded
      // buffer.
      bool scalar = false;
      Value bias = dlc::biasOf(init, scalar);
      auto initType = cast<RankedTensorType>(init.getType());
      Type elem = initType.getElementType();
      Value loopInit =
          bias ? r.create<tensor::EmptyOp>(loc, initType.getShape(), elem).getResult() : init;
      result = dlc::forEachBatchChunk(
          r, loc, loopInit, chunk, [&](OpBuilder &b, Location bl, Value at, Value acc) {
            Value start = dlc::sliceAlong(b, bl, acc, 0, at, chunk);
            if (bias) {
              auto chunkType = cast<RankedTensorType>(start.getType());
              start = scalar ? b.create<linalg::FillOp>(
                                    bl, bias,
                                    b.create<tensor::EmptyOp>(bl, chunkType.getShape(), elem)
                                        .getResult())
                                   .getResult(0)
                             : dlc::biasInit(b, bl, chunkType, bias, 1);
            }
            return winogradConv(b, bl, plan, dlc::sliceAlong(b, bl, x, 0, at, chunk), filter,
                                start, opts.vectorWidth, epilogue, convResult);
          });
    }
    if (epilogue)
      r.replaceOp(epilogue, result);
    r.replaceOp(conv, result);
    return success();
  }
};

struct ConvToWinogradPass : dlc::impl::ConvToWinogradBase<ConvToWinogradPass> {
  using ConvToWinogradBase::ConvToWinogradBase;

  void runOnOperation() override {
    if (maxTile < 2 || packRows <= 0 || padLanes <= 0)
      return;
    RewritePatternSet patterns(&getContext());
    // By name: a positional list shifts silently when Passes.td gains an option.
    dlc::ConvToWinogradOptions opts;
    opts.maxTile = maxTile;
    opts.minPixels = minPixels;
    opts.minChannels = minChannels;
    opts.packRows = packRows;
    opts.padLanes = padLanes;
    opts.narrowLanes = narrowLanes;
    opts.transposedFilterBytes = transposedFilterBytes;
    opts.cacheWorkspaceBytes = cacheWorkspaceBytes;
    opts.vectorWidth = vectorWidth;
    patterns.add<WinogradConv>(&getContext(), opts);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
