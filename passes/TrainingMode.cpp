//===- TrainingMode.cpp - BatchNormalization and Dropout while training ---===//
//
// The inference module and the train step come from one import; the ops
// whose behaviour differs while training are written in their inference
// form (batch_norm with running statistics, dropout as the identity) and
// take their training form here, in the train step only.
//
// batch_norm is decomposed into dlc ops (mean, centred square mean, 1/sqrt),
// so that dlc-autodiff differentiates through the batch statistics with
// its ordinary rules. The running statistics' updates follow ONNX's
// training-mode BatchNormalization: biased batch variance, and
// running * momentum + batch * (1 - momentum).
//
//===----------------------------------------------------------------------===//
#include "passes/DlcBuilder.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace dlc {
#define GEN_PASS_DEF_TRAININGMODE
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;
using namespace dlc;

namespace {
/// The role of `v` when it is one of main's arguments.
StringRef roleOf(func::FuncOp func, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner()->getParentOp() != func.getOperation())
    return "";
  return argRole(func, arg.getArgNumber());
}

struct TrainingModePass : dlc::impl::TrainingModeBase<TrainingModePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getName() != "main")
      return;
    Block &block = func.getBody().front();
    // New value of each buffer/state argument; unchanged unless set below.
    DenseMap<Value, Value> updates;

    SmallVector<BatchNormOp> norms;
    SmallVector<DropoutOp> dropouts;
    func.walk([&](BatchNormOp op) { norms.push_back(op); });
    func.walk([&](DropoutOp op) { dropouts.push_back(op); });

    for (BatchNormOp op : norms) {
      OpBuilder b(op);
      DlcBuilder g{b, op.getLoc()};
      Value x = op.getInput();
      auto shape = DlcBuilder::type(x).getShape();
      int64_t c = shape[1];
      SmallVector<int64_t> axes{0}, perChannel(shape.size(), 1);
      for (int64_t i = 2; i < (int64_t)shape.size(); ++i)
        axes.push_back(i);
      perChannel[1] = c;
      Type e = DlcBuilder::elem(x);
      Value mean = g.reduce(x, "mean", axes, /*keepdims=*/true);
      Value centred = g.sub(x, mean);
      Value var = g.reduce(g.mul(centred, centred), "mean", axes, /*keepdims=*/true);
      double eps = op.getEpsilon().convertToDouble();
      Value inv = g.same<ReciprocalOp>(g.same<SqrtOp>(g.add(var, g.scalar(e, eps))));
      Value y = g.add(g.mul(g.mul(centred, inv), g.reshape(op.getScale(), perChannel)),
                      g.reshape(op.getBias(), perChannel));
      op.getResult().replaceAllUsesWith(y);

      double momentum = op.getMomentum() ? op.getMomentum()->convertToDouble() : 0.9;
      for (auto [running, batch] : {std::pair{op.getMean(), mean}, {op.getVariance(), var}}) {
        if (roleOf(func, running) != "buffer")
          continue;
        if (updates.count(running)) {
          op.emitError("dlc-training-mode: running statistic '")
              << func.getArgAttrOfType<StringAttr>(cast<BlockArgument>(running).getArgNumber(),
                                                   "dlc.name").getValue()
              << "' is shared by two BatchNormalization nodes";
          return signalPassFailure();
        }
        updates[running] = g.add(g.scale(running, momentum),
                                 g.scale(g.reshape(batch, {c}), 1.0 - momentum));
      }
      op.erase();
    }

    if (!dropouts.empty()) {
      Value step = addRoleArgument(
          func, RankedTensorType::get({}, IntegerType::get(&getContext(), 64)), "rng.step",
          "state");
      for (DropoutOp op : dropouts) {
        OpBuilder b(op);
        DlcBuilder g{b, op.getLoc()};
        Value mask = b.create<DropoutMaskOp>(op.getLoc(), op.getType(), step,
                                             op.getRatioAttr(), op.getSeedAttr());
        op.getResult().replaceAllUsesWith(g.mul(op.getInput(), mask));
        op.erase();
      }
      OpBuilder b(block.getTerminator());
      DlcBuilder g{b, NameLoc::get(b.getStringAttr("rng.step"))};
      updates[step] = g.add(step, g.splat(RankedTensorType::get({}, b.getI64Type()), 1.0));
    }

    // Results: the loss, then every buffer/state argument's new value.
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    SmallVector<Value> results(ret.getOperands());
    for (BlockArgument arg : func.getArguments()) {
      StringRef role = roleOf(func, arg);
      if (role == "buffer" || role == "state")
        results.push_back(updates.count(arg) ? updates[arg] : Value(arg));
    }
    OpBuilder b(ret);
    b.create<func::ReturnOp>(ret.getLoc(), results);
    ret.erase();
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
  }
};
} // namespace
