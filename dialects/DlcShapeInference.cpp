//===- DlcShapeInference.cpp - result-type inference of dlc ops -----------===//
//
// The importer builds every op without naming its result type: these rules
// (ONNX's, restated for static shapes) are dlc's authority on shapes, also
// for opsets newer than the ONNX library we link knows.
//
//===----------------------------------------------------------------------===//
#include "dialects/DlcDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace dlc;

namespace {
LogicalResult fail(std::optional<Location> loc, const Twine &msg) {
  return emitOptionalError(loc, msg);
}

RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type elem) {
  return RankedTensorType::get(shape, elem);
}

/// ONNX types an op's data operands with one type variable T (Conv's X, W
/// and B; Gemm's A, B and C; MatMul's A and B): an operand of another
/// element type (an f64 weight beside f32 activations, which NumPy 2
/// gives for a float32 array times a float64 scalar) is an invalid model.
/// Unchecked, it reached lowering as a verifier error about a reshape.
LogicalResult sameElementType(std::optional<Location> loc, StringRef op,
                              ArrayRef<std::pair<StringRef, Value>> operands) {
  Type first = getElementTypeOrSelf(operands.front().second.getType());
  for (auto [name, v] : operands.drop_front()) {
    if (!v)
      continue;
    Type t = getElementTypeOrSelf(v.getType());
    if (t != first) {
      std::string a, b;
      llvm::raw_string_ostream(a) << first;
      llvm::raw_string_ostream(b) << t;
      return fail(loc, op + " operands must have one element type: " +
                           operands.front().first + " is " + a + ", " + name + " is " + b);
    }
  }
  return success();
}

/// numpy multidirectional broadcast of two static shapes.
LogicalResult broadcastShapes(std::optional<Location> loc, ArrayRef<int64_t> a,
                              ArrayRef<int64_t> b,
                              SmallVectorImpl<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return fail(loc, "shapes are not broadcastable: dim " + Twine(i) + " is " +
                           Twine(da) + " vs " + Twine(db));
    out[i] = da == 1 ? db : da;
  }
  return success();
}

/// The broadcast shape of a binary op's operands, with the first's element
/// type; `op` (its name) where both must have one element type, as every
/// binary op but Pow (whose exponent ONNX types on its own, T1).
template <typename AdaptorT>
LogicalResult inferBinary(std::optional<Location> loc, AdaptorT adaptor,
                          SmallVectorImpl<Type> &types, StringRef op = "") {
  if (!op.empty() &&
      failed(sameElementType(loc, op, {{"A", adaptor.getLhs()}, {"B", adaptor.getRhs()}})))
    return failure();
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, lhs.getShape(), rhs.getShape(), shape)))
    return failure();
  types.push_back(tensorOf(shape, lhs.getElementType()));
  return success();
}

template <typename AdaptorT>
LogicalResult inferPool(std::optional<Location> loc, AdaptorT adaptor,
                        SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> k = adaptor.getKernelShape(), s = adaptor.getStrides(),
                    p = adaptor.getPads(), d = adaptor.getDilations();
  int64_t spatial = in.getRank() - 2;
  if (spatial != 2)
    return fail(loc, "only 2-D pooling is supported (input rank " +
                         Twine(in.getRank()) + ")");
  if ((int64_t)k.size() != spatial || (int64_t)s.size() != spatial ||
      (int64_t)d.size() != spatial || (int64_t)p.size() != 2 * spatial)
    return fail(loc, "kernel_shape/strides/dilations/pads do not match rank");
  SmallVector<int64_t> shape{in.getDimSize(0), in.getDimSize(1)};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t o = windowOutputSize(in.getDimSize(2 + i), k[i], s[i], p[i],
                                 p[i + spatial], d[i], adaptor.getCeilMode());
    if (o <= 0)
      return fail(loc, "pooling window larger than the padded input");
    shape.push_back(o);
  }
  types.push_back(tensorOf(shape, in.getElementType()));
  return success();
}
} // namespace

int64_t dlc::windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                              int64_t padBegin, int64_t padEnd,
                              int64_t dilation, bool ceilMode) {
  int64_t span = in + padBegin + padEnd - ((kernel - 1) * dilation + 1);
  if (span < 0 || stride <= 0)
    return 0;
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // ONNX (and PyTorch): with ceil_mode, the last window must start inside the
  // input or the leading padding.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

#define DLC_BINARY_INFER(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> l,  \
                                     Adaptor a, SmallVectorImpl<Type> &t) {    \
    return inferBinary(l, a, t, OP::getOperationName());                       \
  }
DLC_BINARY_INFER(AddOp)
DLC_BINARY_INFER(SubOp)
DLC_BINARY_INFER(MulOp)
DLC_BINARY_INFER(DivOp)
DLC_BINARY_INFER(MaxOp)
DLC_BINARY_INFER(MinOp)
DLC_BINARY_INFER(PReluOp)
DLC_BINARY_INFER(ModOp)
DLC_BINARY_INFER(AndOp)
DLC_BINARY_INFER(OrOp)
DLC_BINARY_INFER(XorOp)
DLC_BINARY_INFER(BitShiftOp)
#undef DLC_BINARY_INFER

LogicalResult PowOp::inferReturnTypes(MLIRContext *, std::optional<Location> l, Adaptor a,
                                      SmallVectorImpl<Type> &t) {
  return inferBinary(l, a, t);
}

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> l,
                                          Adaptor a, SmallVectorImpl<Type> &t) {
  if (failed(inferBinary(l, a, t, CompareOp::getOperationName())))
    return failure();
  t[0] = cast<RankedTensorType>(t[0]).clone(IntegerType::get(ctx, 1));
  return success();
}

LogicalResult IsNaNOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                        Adaptor a, SmallVectorImpl<Type> &t) {
  t.push_back(cast<RankedTensorType>(a.getInput().getType()).clone(IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult IsInfOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                        Adaptor a, SmallVectorImpl<Type> &t) {
  t.push_back(cast<RankedTensorType>(a.getInput().getType()).clone(IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, std::optional<Location>, Adaptor a,
                                       SmallVectorImpl<Type> &t) {
  t.push_back(cast<RankedTensorType>(a.getInput().getType()).clone(a.getTo()));
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> l, Adaptor a,
                                        SmallVectorImpl<Type> &t) {
  auto c = cast<RankedTensorType>(a.getCondition().getType());
  auto x = cast<RankedTensorType>(a.getX().getType());
  auto y = cast<RankedTensorType>(a.getY().getType());
  if (x.getElementType() != y.getElementType())
    return fail(l, "where: x and y have different element types");
  SmallVector<int64_t> xy, all;
  if (failed(broadcastShapes(l, x.getShape(), y.getShape(), xy)) ||
      failed(broadcastShapes(l, c.getShape(), xy, all)))
    return failure();
  t.push_back(tensorOf(all, x.getElementType()));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor a, SmallVectorImpl<Type> &t) {
  return inferPool(loc, a, t);
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor a,
                                              SmallVectorImpl<Type> &t) {
  return inferPool(loc, a, t);
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor a, SmallVectorImpl<Type> &t) {
  auto lhs = cast<RankedTensorType>(a.getLhs().getType());
  auto rhs = cast<RankedTensorType>(a.getRhs().getType());
  if (lhs.getRank() == 0 || rhs.getRank() == 0)
    return fail(loc, "matmul operands must have rank >= 1");
  if (failed(sameElementType(loc, "matmul", {{"A", a.getLhs()}, {"B", a.getRhs()}})))
    return failure();
  SmallVector<int64_t> l(lhs.getShape()), r(rhs.getShape());
  bool lhsVec = l.size() == 1, rhsVec = r.size() == 1;
  if (lhsVec)
    l.insert(l.begin(), 1);
  if (rhsVec)
    r.push_back(1);
  if (l.back() != r[r.size() - 2])
    return fail(loc, "matmul contraction dims differ: " + Twine(l.back()) +
                         " vs " + Twine(r[r.size() - 2]));
  SmallVector<int64_t> batch;
  if (failed(broadcastShapes(loc, ArrayRef<int64_t>(l).drop_back(2),
                             ArrayRef<int64_t>(r).drop_back(2), batch)))
    return failure();
  if (!lhsVec)
    batch.push_back(l[l.size() - 2]);
  if (!rhsVec)
    batch.push_back(r.back());
  t.push_back(tensorOf(batch, lhs.getElementType()));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc, Adaptor a,
                                       SmallVectorImpl<Type> &t) {
  auto at = cast<RankedTensorType>(a.getA().getType());
  auto bt = cast<RankedTensorType>(a.getB().getType());
  if (at.getRank() != 2 || bt.getRank() != 2)
    return fail(loc, "gemm operands must be 2-D");
  if (failed(sameElementType(loc, "gemm", {{"A", a.getA()}, {"B", a.getB()}, {"C", a.getC()}})))
    return failure();
  int64_t m = at.getDimSize(a.getTransA() ? 1 : 0);
  int64_t k = at.getDimSize(a.getTransA() ? 0 : 1);
  int64_t kb = bt.getDimSize(a.getTransB() ? 1 : 0);
  int64_t n = bt.getDimSize(a.getTransB() ? 0 : 1);
  if (k != kb)
    return fail(loc, "gemm inner dims differ: " + Twine(k) + " vs " + Twine(kb));
  if (Value c = a.getC()) {
    auto ct = cast<RankedTensorType>(c.getType());
    SmallVector<int64_t> out;
    if (ct.getRank() > 2 ||
        failed(broadcastShapes(loc, ct.getShape(), {m, n}, out)) ||
        out != SmallVector<int64_t>{m, n})
      return fail(loc, "gemm C is not unidirectionally broadcastable to " +
                           Twine(m) + "x" + Twine(n));
  }
  t.push_back(tensorOf({m, n}, at.getElementType()));
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc, Adaptor a,
                                       SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  auto w = cast<RankedTensorType>(a.getWeight().getType());
  if (in.getRank() != 4 || w.getRank() != 4)
    return fail(loc, "only 2-D convolution (rank-4 input and weight) is supported");
  if (failed(sameElementType(loc, "conv",
                             {{"X", a.getInput()}, {"W", a.getWeight()}, {"B", a.getBias()}})))
    return failure();
  int64_t group = a.getGroup();
  ArrayRef<int64_t> s = a.getStrides(), p = a.getPads(), d = a.getDilations();
  if (s.size() != 2 || d.size() != 2 || p.size() != 4)
    return fail(loc, "conv strides/dilations need 2 values and pads 4");
  if (group <= 0 || in.getDimSize(1) != w.getDimSize(1) * group ||
      w.getDimSize(0) % group != 0)
    return fail(loc, "conv channels do not match: input " +
                         Twine(in.getDimSize(1)) + ", weight " +
                         Twine(w.getDimSize(1)) + " x group " + Twine(group));
  if (Value b = a.getBias()) {
    auto bt = cast<RankedTensorType>(b.getType());
    if (bt.getRank() != 1 || bt.getDimSize(0) != w.getDimSize(0))
      return fail(loc, "conv bias must have shape [" + Twine(w.getDimSize(0)) + "]");
  }
  SmallVector<int64_t> shape{in.getDimSize(0), w.getDimSize(0)};
  for (int i = 0; i < 2; ++i) {
    int64_t o = windowOutputSize(in.getDimSize(2 + i), w.getDimSize(2 + i),
                                 s[i], p[i], p[i + 2], d[i], false);
    if (o <= 0)
      return fail(loc, "conv kernel larger than the padded input");
    shape.push_back(o);
  }
  t.push_back(tensorOf(shape, in.getElementType()));
  return success();
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor a,
    SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  if (in.getRank() < 3)
    return fail(loc, "global pooling needs rank >= 3");
  SmallVector<int64_t> shape(in.getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  t.push_back(tensorOf(shape, in.getElementType()));
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor a,
                                            SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  if (in.getRank() < 2)
    return fail(loc, "batch norm input needs rank >= 2");
  // Opsets up to 14 type all five as T; from 15 the parameters may differ
  // from X (T1, T2), which dlc does not take.
  if (failed(sameElementType(loc, "batch norm",
                             {{"X", a.getInput()}, {"scale", a.getScale()}, {"B", a.getBias()},
                              {"mean", a.getMean()}, {"var", a.getVariance()}})))
    return failure();
  for (Value v : {a.getScale(), a.getBias(), a.getMean(), a.getVariance()}) {
    auto vt = cast<RankedTensorType>(v.getType());
    if (vt.getRank() != 1 || vt.getDimSize(0) != in.getDimSize(1))
      return fail(loc, "batch norm parameters must have shape [" +
                           Twine(in.getDimSize(1)) + "]");
  }
  t.push_back(in);
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor a, SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  int64_t axis = a.getAxis();
  if (axis < 0 || axis > in.getRank())
    return fail(loc, "flatten axis " + Twine(axis) + " out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < in.getRank(); ++i)
    (i < axis ? outer : inner) *= in.getDimSize(i);
  t.push_back(tensorOf({outer, inner}, in.getElementType()));
  return success();
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor a, SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  SmallVector<int64_t> shape(a.getShape());
  int64_t known = 1, inferAt = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !a.getAllowzero()) {
      if ((int64_t)i >= in.getRank())
        return fail(loc, "reshape: 0 at dim " + Twine(i) + " beyond input rank");
      shape[i] = in.getDimSize(i);
    }
    if (shape[i] == -1) {
      if (inferAt >= 0)
        return fail(loc, "reshape: more than one -1 in the target shape");
      inferAt = i;
      continue;
    }
    if (shape[i] < 0)
      return fail(loc, "reshape: negative dim " + Twine(shape[i]));
    known *= shape[i];
  }
  int64_t total = in.getNumElements();
  if (inferAt >= 0) {
    if (known == 0 || total % known != 0)
      return fail(loc, "reshape: cannot infer -1 for " + Twine(total) + " elements");
    shape[inferAt] = total / known;
  } else if (known != total) {
    return fail(loc, "reshape: " + Twine(total) + " elements cannot become " +
                         Twine(known));
  }
  t.push_back(tensorOf(shape, in.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor a,
                                            SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  ArrayRef<int64_t> perm = a.getPerm();
  if ((int64_t)perm.size() != in.getRank())
    return fail(loc, "transpose perm has the wrong length");
  SmallVector<int64_t> shape;
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return fail(loc, "transpose perm is not a permutation");
    seen[p] = true;
    shape.push_back(in.getDimSize(p));
  }
  t.push_back(tensorOf(shape, in.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor a, SmallVectorImpl<Type> &t) {
  if (a.getInputs().empty())
    return fail(loc, "concat needs at least one input");
  auto first = cast<RankedTensorType>(a.getInputs().front().getType());
  int64_t axis = a.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return fail(loc, "concat axis " + Twine(axis) + " out of range");
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value v : a.getInputs()) {
    auto vt = cast<RankedTensorType>(v.getType());
    if (vt.getRank() != first.getRank() ||
        vt.getElementType() != first.getElementType())
      return fail(loc, "concat inputs differ in rank or element type");
    for (int64_t i = 0; i < vt.getRank(); ++i)
      if (i != axis && vt.getDimSize(i) != first.getDimSize(i))
        return fail(loc, "concat inputs differ in dim " + Twine(i));
    shape[axis] += vt.getDimSize(axis);
  }
  t.push_back(tensorOf(shape, first.getElementType()));
  return success();
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor a, SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  static const char *kinds[] = {"sum", "mean", "max", "min", "prod", "l1", "l2",
                                "log_sum", "log_sum_exp", "sum_square"};
  if (!llvm::is_contained(kinds, a.getKind()))
    return fail(loc, "unknown reduction kind '" + a.getKind() + "'");
  ArrayRef<int64_t> axes = a.getAxes();
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] < 0 || axes[i] >= in.getRank() || (i && axes[i] <= axes[i - 1]))
      return fail(loc, "reduce axes must be sorted, unique and within the rank");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    bool reduced = axes.empty() || llvm::is_contained(axes, i);
    if (!reduced)
      shape.push_back(in.getDimSize(i));
    else if (a.getKeepdims())
      shape.push_back(1);
  }
  t.push_back(tensorOf(shape, in.getElementType()));
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor a, SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  for (int64_t d : a.getShape())
    if (d < 0)
      return fail(loc, "expand: negative dim " + Twine(d));
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, in.getShape(), a.getShape(), shape)))
    return failure();
  t.push_back(tensorOf(shape, in.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor a, SmallVectorImpl<Type> &t) {
  auto in = cast<RankedTensorType>(a.getInput().getType());
  ArrayRef<int64_t> off = a.getOffsets(), size = a.getSizes(), step = a.getSteps();
  if ((int64_t)off.size() != in.getRank() || size.size() != off.size() ||
      step.size() != off.size())
    return fail(loc, "slice offsets/sizes/steps must cover every dim");
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (step[i] <= 0 || off[i] < 0 || size[i] < 0 ||
        (size[i] > 0 && off[i] + (size[i] - 1) * step[i] >= in.getDimSize(i)))
      return fail(loc, "slice of dim " + Twine(i) + " is out of bounds");
  t.push_back(tensorOf(size, in.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> l, Adaptor a,
                                         SmallVectorImpl<Type> &t) {
  auto data = cast<RankedTensorType>(a.getData().getType());
  auto idx = cast<RankedTensorType>(a.getIndices().getType());
  int64_t axis = a.getAxis();
  if (axis < 0 || axis >= data.getRank())
    return fail(l, "gather axis " + Twine(axis) + " out of range for rank " + Twine(data.getRank()));
  if (a.getElements()) {
    if (idx.getRank() != data.getRank())
      return fail(l, "gather_elements: indices and data ranks differ");
    t.push_back(tensorOf(idx.getShape(), data.getElementType()));
    return success();
  }
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  shape.append(idx.getShape().begin(), idx.getShape().end());
  shape.append(data.getShape().begin() + axis + 1, data.getShape().end());
  t.push_back(tensorOf(shape, data.getElementType()));
  return success();
}
