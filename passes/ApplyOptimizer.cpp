//===- ApplyOptimizer.cpp - gradients become parameter updates ------------===//
//
// Input: main returning (loss, new values of the "buffer" and "state"
// arguments (dlc-training-mode's), d loss/d p for each "parameter" argument,
// in order), as dlc-autodiff leaves it. Output: main taking also a 0-D
// `learning_rate` and the optimizer's state, and returning
// (loss, updated parameters and buffers in argument order..., updated
// state...). Same arithmetic as
// PyTorch's torch.optim, so that a run from the same weights and data
// follows the same trajectory:
//   sgd:  g += wd * p;  v = momentum * v + g (v starts at 0, so v1 = g1);
//         p -= lr * v                      (plain p -= lr * g without momentum)
//   adam: g += wd * p;  t += 1;  m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
//         p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
// New state arguments carry `dlc.role = "state"`; the runtime keeps them
// (zero at create) with the parameters in its persistent region.
//
//===----------------------------------------------------------------------===//
#include "passes/DlcBuilder.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace dlc {
#define GEN_PASS_DEF_APPLYOPTIMIZER
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;
using namespace dlc;

namespace {
struct ApplyOptimizerPass : dlc::impl::ApplyOptimizerBase<ApplyOptimizerPass> {
  using ApplyOptimizerBase::ApplyOptimizerBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getName() != "main")
      return;
    // Buffers and state that dlc-training-mode already updates (their new
    // values follow the loss), then the gradients of the parameters.
    SmallVector<BlockArgument> params, carried;
    for (BlockArgument arg : func.getArguments()) {
      StringRef r = argRole(func, arg.getArgNumber());
      if (r == "parameter")
        params.push_back(arg);
      else if (r == "buffer" || r == "state")
        carried.push_back(arg);
    }
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    if (ret.getNumOperands() != 1 + carried.size() + params.size()) {
      func.emitError("dlc-apply-optimizer: expected the loss, the new value of each "
                     "buffer/state argument and one gradient per parameter");
      return signalPassFailure();
    }
    DenseMap<Value, Value> carriedUpdate;
    for (auto [i, arg] : llvm::enumerate(carried))
      carriedUpdate[arg] = ret.getOperand(1 + i);
    unsigned firstGrad = 1 + carried.size();
    if (optimizer != "sgd" && optimizer != "adam") {
      func.emitError("dlc-apply-optimizer: unknown optimizer '") << optimizer << "' (sgd or adam)";
      return signalPassFailure();
    }
    Type elem = params.empty() ? Float32Type::get(&getContext()) : DlcBuilder::elem(params[0]);
    // The runtime passes the rate before all state (dlc-training-mode's too).
    unsigned lrIndex = func.getNumArguments();
    for (BlockArgument arg : carried)
      if (argRole(func, arg.getArgNumber()) == "state") {
        lrIndex = arg.getArgNumber();
        break;
      }
    Value lr = addRoleArgument(func, RankedTensorType::get({}, elem), "learning_rate", "learning_rate",
                      lrIndex);

    OpBuilder b(ret);
    DlcBuilder g{b, NameLoc::get(b.getStringAttr(optimizer.getValue()))};
    // Parameters and buffers keep their argument order; so does carried state.
    SmallVector<Value> newParams, newState;
    for (BlockArgument arg : carried)
      if (argRole(func, arg.getArgNumber()) == "state")
        newState.push_back(carriedUpdate[arg]);
    DenseMap<Value, Value> updated;
    Value step, bias1, bias2;
    if (optimizer == "adam") {
      Value t = addRoleArgument(func, RankedTensorType::get({}, elem), "adam.step", "state");
      step = g.add(t, g.scalar(elem, 1.0));
      newState.push_back(step);
      // 1 - b^t, from the step count the state carries
      bias1 = g.sub(g.scalar(elem, 1.0), g.op<PowOp>({g.scalar(elem, beta1), step}));
      bias2 = g.sub(g.scalar(elem, 1.0), g.op<PowOp>({g.scalar(elem, beta2), step}));
    }
    for (auto [i, p] : llvm::enumerate(params)) {
      Value grad = ret.getOperand(firstGrad + i);
      auto type = DlcBuilder::type(p);
      std::string name = func.getArgAttrOfType<StringAttr>(p.getArgNumber(), "dlc.name").str();
      if (weightDecay != 0.0)
        grad = g.add(grad, g.scale(p, weightDecay));
      if (optimizer == "sgd") {
        Value update = grad;
        if (momentum != 0.0) {
          Value v = addRoleArgument(func, type, name + ".momentum", "state");
          update = g.add(g.scale(v, momentum), grad);
          newState.push_back(update);
        }
        updated[p] = g.sub(p, g.mul(lr, update));
      } else {
        Value m = addRoleArgument(func, type, name + ".adam_m", "state");
        Value v = addRoleArgument(func, type, name + ".adam_v", "state");
        Value m1 = g.add(g.scale(m, beta1), g.scale(grad, 1.0 - beta1));
        Value v1 = g.add(g.scale(v, beta2), g.scale(g.mul(grad, grad), 1.0 - beta2));
        Value denom = g.add(g.same<SqrtOp>(g.div(v1, bias2)), g.scalar(elem, epsilon));
        updated[p] = g.sub(p, g.mul(lr, g.div(g.div(m1, bias1), denom)));
        newState.push_back(m1);
        newState.push_back(v1);
      }
    }
    for (BlockArgument arg : func.getArguments()) {
      StringRef r = argRole(func, arg.getArgNumber());
      if (r == "parameter")
        newParams.push_back(updated[arg]);
      else if (r == "buffer")
        newParams.push_back(carriedUpdate[arg]);
    }
    // State arguments were appended in the order their new values were pushed
    // (after the carried ones), Adam's step count first.
    SmallVector<Value> results{ret.getOperand(0)};
    results.append(newParams);
    results.append(newState);
    b.create<func::ReturnOp>(ret.getLoc(), results);
    ret.erase();
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
  }
};
} // namespace
