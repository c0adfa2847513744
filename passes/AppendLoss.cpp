//===- AppendLoss.cpp - the model's first output becomes a loss -----------===//
//
// softmax-cross-entropy: the first output [N, C] holds logits (a final
// Softmax over C is taken as the loss's own and skipped), a new argument
// `labels` [N] of class indices (int64) is added, and the function returns
//   loss = -mean_n log_softmax(logits)[n, labels[n]]
// (PyTorch's CrossEntropyLoss, ONNX's SoftmaxCrossEntropyLoss with
// reduction=mean). mse: `labels` has the output's shape and
//   loss = mean((output - labels)^2).
// The function then returns the loss alone.
//
//===----------------------------------------------------------------------===//
#include "passes/DlcBuilder.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace dlc {
#define GEN_PASS_DEF_APPENDLOSS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;
using namespace dlc;

namespace {
struct AppendLossPass : dlc::impl::AppendLossBase<AppendLossPass> {
  using AppendLossBase::AppendLossBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getName() != "main")
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    if (ret.getNumOperands() == 0)
      return fail(func, "the model has no output to train");
    Value out = ret.getOperand(0);
    auto outType = DlcBuilder::type(out);
    if (!isa<FloatType>(outType.getElementType()))
      return fail(func, "the first output is not a float tensor");
    OpBuilder b(ret);
    DlcBuilder g{b, NameLoc::get(b.getStringAttr("loss"))};
    Type elem = outType.getElementType();
    Value result;
    Type labelType;
    if (loss == "softmax-cross-entropy") {
      if (outType.getRank() != 2)
        return fail(func, "softmax-cross-entropy needs [N, C] logits as the first output");
      if (auto sm = out.getDefiningOp<SoftmaxOp>(); sm && sm.getAxis() == 1)
        out = sm.getInput();
      int64_t n = outType.getDimSize(0), c = outType.getDimSize(1);
      labelType = RankedTensorType::get({n}, b.getI64Type());
      Value labels = addRoleArgument(func, labelType, "labels", "labels");
      Value logp = b.create<LogSoftmaxOp>(g.loc, outType, out, b.getI64IntegerAttr(1),
                                          b.getBoolAttr(false));
      SmallVector<int64_t> classes(c);
      for (int64_t i = 0; i < c; ++i)
        classes[i] = i;
      auto classType = RankedTensorType::get({1, c}, b.getI64Type());
      Value iota = b.create<ConstantOp>(
          g.loc, classType, DenseElementsAttr::get(classType, ArrayRef<int64_t>(classes)));
      Value onehot = g.cast(g.compare("eq", iota, g.reshape(labels, {n, 1})), elem);
      Value picked = g.reduce(g.mul(logp, onehot), "sum", {0, 1}, /*keepdims=*/false);
      result = g.scale(picked, -1.0 / n);
    } else if (loss == "mse") {
      labelType = outType;
      Value labels = addRoleArgument(func, labelType, "labels", "labels");
      Value diff = g.sub(out, labels);
      result = g.reduce(g.mul(diff, diff), "mean", {}, /*keepdims=*/false);
    } else {
      return fail(func, "unknown loss '" + loss + "' (softmax-cross-entropy or mse)");
    }
    b.create<func::ReturnOp>(ret.getLoc(), result);
    ret.erase();
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(), result.getType()));
  }

  void fail(func::FuncOp func, const std::string &msg) {
    func.emitError("dlc-append-loss: ") << msg;
    signalPassFailure();
  }
};
} // namespace
