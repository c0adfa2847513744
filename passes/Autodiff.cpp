//===- Autodiff.cpp - reverse-mode gradients on the dlc dialect -----------===//
//
// The entry function returns a scalar loss first; its arguments with a
// `dlc.role = "parameter"` attribute are what we differentiate for. After
// the pass it also returns d(loss)/d(parameter) for each of them, in
// argument order.
//
// Classic reverse mode over one block: only ops on a path from a parameter
// to the loss are differentiated (activity analysis), the adjoint of the
// loss is 1, and ops are visited in reverse, each adding its operands'
// adjoints (sums where a value has several uses). Gradients are ordinary dlc
// ops (plus conv_grad_*/max_pool_grad), so the backward graph goes through
// the same lowering, tiling and memory planning as the forward one; forward
// values the backward needs stay live, and the planner sees that.
//
//===----------------------------------------------------------------------===//
#include "passes/DlcBuilder.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace dlc {
#define GEN_PASS_DEF_AUTODIFF
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;
using namespace dlc;

namespace {
/// Operand adjoints of one op given its result's adjoint `dy`; null where
/// `needed(i)` is false or the operand has no gradient.
using Needed = llvm::function_ref<bool(unsigned)>;

FailureOr<SmallVector<Value>> gradients(Operation *op, Value dy, Needed needed) {
  OpBuilder b(op->getContext());
  b.setInsertionPoint(op->getBlock()->getTerminator());
  DlcBuilder g{b, op->getLoc()};
  SmallVector<Value> dx(op->getNumOperands());
  Value y = op->getResult(0);
  auto shapeOf = [](Value v) { return DlcBuilder::type(v).getShape(); };
  auto x = [&](unsigned i) { return op->getOperand(i); };
  auto zero = [&](Value like) { return g.scalar(DlcBuilder::elem(like), 0.0); };

  if (isa<AddOp, SubOp>(op)) {
    if (needed(0))
      dx[0] = g.sumTo(dy, shapeOf(x(0)));
    if (needed(1))
      dx[1] = g.sumTo(isa<SubOp>(op) ? g.neg(dy) : dy, shapeOf(x(1)));
  } else if (isa<MulOp>(op)) {
    if (needed(0))
      dx[0] = g.sumTo(g.mul(dy, x(1)), shapeOf(x(0)));
    if (needed(1))
      dx[1] = g.sumTo(g.mul(dy, x(0)), shapeOf(x(1)));
  } else if (isa<DivOp>(op)) {
    if (needed(0))
      dx[0] = g.sumTo(g.div(dy, x(1)), shapeOf(x(0)));
    if (needed(1)) // d(a/b)/db = -y/b
      dx[1] = g.sumTo(g.neg(g.div(g.mul(dy, y), x(1))), shapeOf(x(1)));
  } else if (isa<NegOp>(op)) {
    dx[0] = g.neg(dy);
  } else if (isa<IdentityOp>(op)) {
    dx[0] = dy;
  } else if (isa<ReluOp>(op)) {
    // y > 0 exactly where x > 0 (NaN and -0 included); reading the output,
    // as PyTorch does, lets the pre-activation die in the forward pass when
    // nothing else needs it (1.2 MB of LeNet's plan).
    dx[0] = g.where(g.compare("gt", y, zero(y)), dy, zero(dy));
  } else if (isa<SigmoidOp>(op)) {
    Value one = g.scalar(DlcBuilder::elem(y), 1.0);
    dx[0] = g.mul(dy, g.mul(y, g.sub(one, y)));
  } else if (isa<TanhOp>(op)) {
    Value one = g.scalar(DlcBuilder::elem(y), 1.0);
    dx[0] = g.mul(dy, g.sub(one, g.mul(y, y)));
  } else if (isa<ExpOp>(op)) {
    dx[0] = g.mul(dy, y);
  } else if (isa<LogOp>(op)) {
    dx[0] = g.div(dy, x(0));
  } else if (isa<SqrtOp>(op)) {
    dx[0] = g.div(g.scale(dy, 0.5), y);
  } else if (isa<ReciprocalOp>(op)) { // d(1/x) = -y^2
    dx[0] = g.neg(g.mul(dy, g.mul(y, y)));
  } else if (auto clip = dyn_cast<ClipOp>(op)) {
    // As torch.clamp: the gradient passes where min <= x <= max.
    Type e = DlcBuilder::elem(x(0));
    Value inside = g.op<AndOp>(
        {g.compare("ge", x(0), g.scalar(e, clip.getMin().convertToDouble())),
         g.compare("le", x(0), g.scalar(e, clip.getMax().convertToDouble()))});
    dx[0] = g.where(inside, dy, zero(dy));
  } else if (auto gemm = dyn_cast<GemmOp>(op)) {
    bool ta = gemm.getTransA(), tb = gemm.getTransB();
    double alpha = gemm.getAlpha().convertToDouble();
    if (needed(0))
      dx[0] = ta ? g.gemm(x(1), dy, tb, true, alpha) : g.gemm(dy, x(1), false, !tb, alpha);
    if (needed(1))
      dx[1] = tb ? g.gemm(dy, x(0), true, ta, alpha) : g.gemm(x(0), dy, !ta, false, alpha);
    if (op->getNumOperands() > 2 && needed(2))
      dx[2] = g.scale(g.sumTo(dy, shapeOf(x(2))), gemm.getBeta().convertToDouble());
  } else if (isa<MatMulOp>(op)) {
    auto a = shapeOf(x(0)), w = shapeOf(x(1));
    if (a.size() < 2 || w.size() < 2)
      return op->emitError("no gradient for matmul with a 1-D operand");
    if (w.size() == 2) {
      // A (batched) lhs against a 2-D rhs, as Linear: two plain GEMMs.
      int64_t k = a.back(), m = DlcBuilder::type(x(0)).getNumElements() / k, n = w.back();
      Value a2 = g.reshape(x(0), {m, k}), dy2 = g.reshape(dy, {m, n});
      if (needed(0))
        dx[0] = g.reshape(g.gemm(dy2, x(1), false, true), a);
      if (needed(1))
        dx[1] = g.gemm(a2, dy2, true, false);
    } else {
      // Batched: dA = dY B^T, dB = A^T dY, each summed over the batch dims
      // its operand was broadcast along.
      auto swapLast = [&](Value v) {
        auto perm = llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(v).size()));
        std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
        return g.transpose(v, perm);
      };
      if (needed(0))
        dx[0] = g.sumTo(g.op<MatMulOp>({dy, swapLast(x(1))}), a);
      if (needed(1))
        dx[1] = g.sumTo(g.op<MatMulOp>({swapLast(x(0)), dy}), w);
    }
  } else if (auto conv = dyn_cast<ConvOp>(op)) {
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr("strides", conv.getStridesAttr()),
        b.getNamedAttr("pads", conv.getPadsAttr()),
        b.getNamedAttr("dilations", conv.getDilationsAttr()),
        b.getNamedAttr("group", conv.getGroupAttr())};
    if (needed(0))
      dx[0] = b.create<ConvGradInputOp>(op->getLoc(), x(0).getType(), ValueRange{dy, x(1)}, attrs);
    if (needed(1))
      dx[1] = b.create<ConvGradWeightOp>(op->getLoc(), x(1).getType(), ValueRange{x(0), dy}, attrs);
    if (op->getNumOperands() > 2 && needed(2))
      dx[2] = g.reduce(dy, "sum", {0, 2, 3}, /*keepdims=*/false);
  } else if (auto pool = dyn_cast<MaxPoolOp>(op)) {
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr("kernel_shape", pool.getKernelShapeAttr()),
        b.getNamedAttr("strides", pool.getStridesAttr()),
        b.getNamedAttr("pads", pool.getPadsAttr()),
        b.getNamedAttr("dilations", pool.getDilationsAttr())};
    dx[0] = b.create<MaxPoolGradOp>(op->getLoc(), x(0).getType(), ValueRange{x(0), dy}, attrs);
  } else if (auto pool = dyn_cast<AveragePoolOp>(op)) {
    dx[0] = b.create<AveragePoolGradOp>(
        op->getLoc(), x(0).getType(), dy,
        ArrayRef<NamedAttribute>{
            b.getNamedAttr("kernel_shape", pool.getKernelShapeAttr()),
            b.getNamedAttr("strides", pool.getStridesAttr()),
            b.getNamedAttr("pads", pool.getPadsAttr()),
            b.getNamedAttr("dilations", pool.getDilationsAttr()),
            b.getNamedAttr("count_include_pad", pool.getCountIncludePadAttr())});
  } else if (isa<GlobalAveragePoolOp>(op)) {
    auto s = shapeOf(x(0));
    dx[0] = g.scale(g.expand(dy, s), 1.0 / (double)(s[2] * s[3]));
  } else if (isa<ReshapeOp, FlattenOp>(op)) {
    dx[0] = g.reshape(dy, shapeOf(x(0)));
  } else if (auto t = dyn_cast<TransposeOp>(op)) {
    SmallVector<int64_t> inverse(t.getPerm().size());
    for (auto [i, p] : llvm::enumerate(t.getPerm()))
      inverse[p] = i;
    dx[0] = g.transpose(dy, inverse);
  } else if (auto red = dyn_cast<ReduceOp>(op); red && (red.getKind() == "sum" ||
                                                      red.getKind() == "mean")) {
    auto s = shapeOf(x(0));
    SmallVector<int64_t> axes(red.getAxes()), kept(s);
    if (axes.empty())
      axes = llvm::to_vector(llvm::seq<int64_t>(0, s.size()));
    int64_t count = 1;
    for (int64_t a : axes) {
      kept[a] = 1;
      count *= s[a];
    }
    Value full = g.expand(g.reshape(dy, kept), s);
    dx[0] = red.getKind() == "mean" ? g.scale(full, 1.0 / count) : full;
  } else if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
    int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
    int64_t rank = shapeOf(y).size();
    if (op->getAttrOfType<BoolAttr>("coerce_2d").getValue() && axis != rank - 1)
      return op->emitError("no gradient for an opset < 13 softmax over several dims");
    if (isa<SoftmaxOp>(op)) // y * (dy - sum(dy * y))
      dx[0] = g.mul(y, g.sub(dy, g.reduce(g.mul(dy, y), "sum", {axis}, true)));
    else // dy - softmax * sum(dy)
      dx[0] = g.sub(dy, g.mul(g.same<ExpOp>(y), g.reduce(dy, "sum", {axis}, true)));
  } else if (auto cat = dyn_cast<ConcatOp>(op)) {
    int64_t axis = cat.getAxis(), offset = 0;
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      auto s = shapeOf(x(i));
      SmallVector<int64_t> offs(s.size(), 0), steps(s.size(), 1);
      offs[axis] = offset;
      offset += s[axis];
      if (needed(i))
        dx[i] = g.op<SliceOp>({dy}, {b.getNamedAttr("offsets", b.getDenseI64ArrayAttr(offs)),
                                     b.getNamedAttr("sizes", b.getDenseI64ArrayAttr(s)),
                                     b.getNamedAttr("steps", b.getDenseI64ArrayAttr(steps))});
    }
  } else if (isa<WhereOp>(op)) {
    if (needed(1))
      dx[1] = g.sumTo(g.where(x(0), dy, zero(dy)), shapeOf(x(1)));
    if (needed(2))
      dx[2] = g.sumTo(g.where(x(0), zero(dy), dy), shapeOf(x(2)));
  } else {
    return op->emitError("dlc-autodiff: no gradient for '")
           << op->getName() << "' (training supports Gemm, MatMul, Conv, MaxPool, "
              "GlobalAveragePool, Relu, Sigmoid, Tanh, Clip, Softmax, LogSoftmax, "
              "Add/Sub/Mul/Div, Reshape, Flatten, Transpose, Concat, ReduceSum/Mean)";
  }
  return dx;
}

struct AutodiffPass : dlc::impl::AutodiffBase<AutodiffPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getName() != "main")
      return;
    Block &block = func.getBody().front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    if (ret.getNumOperands() == 0 || DlcBuilder::type(ret.getOperand(0)).getNumElements() != 1) {
      func.emitError("dlc-autodiff: the first result must be the scalar loss");
      return signalPassFailure();
    }
    Value loss = ret.getOperand(0);
    SmallVector<BlockArgument> params;
    for (BlockArgument arg : func.getArguments())
      if (argRole(func, arg.getArgNumber()) == "parameter")
        params.push_back(arg);

    // Activity: varied (depends on a parameter) and useful (the loss depends on it).
    DenseSet<Value> varied(params.begin(), params.end()), useful{loss};
    for (Operation &op : block)
      if (llvm::any_of(op.getOperands(), [&](Value v) { return varied.contains(v); }))
        varied.insert(op.result_begin(), op.result_end());
    for (Operation &op : llvm::reverse(block))
      if (llvm::any_of(op.getResults(), [&](Value v) { return useful.contains(v); }))
        useful.insert(op.operand_begin(), op.operand_end());
    auto active = [&](Value v) { return varied.contains(v) && useful.contains(v); };

    OpBuilder b(ret);
    DenseMap<Value, Value> adjoint;
    adjoint[loss] = DlcBuilder{b, loss.getLoc()}.splat(DlcBuilder::type(loss), 1.0);
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      if (&op != ret.getOperation())
        ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      if (op->getNumResults() != 1 || !adjoint.count(op->getResult(0)) ||
          !active(op->getResult(0)))
        continue;
      auto needed = [&](unsigned i) { return active(op->getOperand(i)); };
      auto grads = gradients(op, adjoint[op->getResult(0)], needed);
      if (failed(grads))
        return signalPassFailure();
      for (auto [operand, grad] : llvm::zip(op->getOperands(), *grads)) {
        if (!grad || !active(operand))
          continue;
        Value &acc = adjoint[operand];
        acc = acc ? DlcBuilder{b, op->getLoc()}.add(acc, grad) : grad;
      }
    }

    SmallVector<Value> results(ret.getOperands());
    for (BlockArgument p : params) {
      Value grad = adjoint.lookup(p);
      results.push_back(grad ? grad : DlcBuilder{b, p.getLoc()}.splat(DlcBuilder::type(p), 0.0));
    }
    b.create<func::ReturnOp>(ret.getLoc(), results);
    ret.erase();
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
  }
};
} // namespace
