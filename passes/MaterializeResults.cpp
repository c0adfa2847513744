//===- MaterializeResults.cpp - one buffer per function result ------------===//
//
// Each function result should bufferize to one allocation of its own, which
// buffer-results-to-out-params (hoist-static-allocs) then replaces with the
// caller's output memory. Results that are arguments, constants or repeats
// get a copy into a fresh tensor. A result that is a reshape of an op's
// result (a broadcast Add over [1, 64, 56, 56] computes in a 6-d view) would
// bufferize to a view of an arena buffer, copied to the output after the op
// (a serial 784 KB copy, a third of that Add's time at one thread): the op
// instead writes into the result's own buffer through the inverse reshape.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace dlc {
#define GEN_PASS_DEF_MATERIALIZERESULTS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// The tensor.empty that `init` starts from (directly or through a
/// linalg.fill), if `init` is its only use.
tensor::EmptyOp emptyBehind(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    if (!fill->hasOneUse())
      return {};
    init = fill.getOutputs()[0];
  }
  auto empty = init.getDefiningOp<tensor::EmptyOp>();
  return empty && empty->hasOneUse() ? empty : tensor::EmptyOp();
}

/// `result` = reshape(op(..., init = [fill of] tensor.empty)) with every
/// value used once: the empty becomes the inverse reshape of an empty of
/// the result's shape, so that op writes into the result's buffer (its
/// reshape then folds away on buffers).
void writeThroughReshape(Value result) {
  Operation *reshape = result.getDefiningOp();
  if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(reshape))
    return;
  Value source = reshape->getOperand(0);
  auto producer = source.getDefiningOp<DestinationStyleOpInterface>();
  if (!producer || !source.hasOneUse() || !cast<RankedTensorType>(result.getType()).hasStaticShape())
    return;
  tensor::EmptyOp empty =
      emptyBehind(producer.getDpsInitOperand(cast<OpResult>(source).getResultNumber())->get());
  if (!empty)
    return;
  OpBuilder b(empty);
  auto type = cast<RankedTensorType>(result.getType());
  Value whole = b.create<tensor::EmptyOp>(empty.getLoc(), type.getShape(), type.getElementType());
  Value view;
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape))
    view = b.create<tensor::ExpandShapeOp>(empty.getLoc(), empty.getType(), whole,
                                           collapse.getReassociationIndices());
  else
    view = b.create<tensor::CollapseShapeOp>(
        empty.getLoc(), empty.getType(), whole,
        cast<tensor::ExpandShapeOp>(reshape).getReassociationIndices());
  empty.getResult().replaceAllUsesWith(view);
  empty.erase();
}

struct MaterializeResultsPass
    : dlc::impl::MaterializeResultsBase<MaterializeResultsPass> {
  void runOnOperation() override {
    // The inputs are the caller's: one-shot-bufferize copies a tensor
    // argument before writing into it. (A Gemm whose C input was its
    // matmul's init accumulated A x B into the caller's C.)
    func::FuncOp func = getOperation();
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (isa<TensorType>(func.getArgument(i).getType()))
        func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                        BoolAttr::get(func.getContext(), false));
    func.walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      DenseSet<Value> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        Operation *def = v.getDefiningOp();
        bool ownBuffer =
            def && !def->hasTrait<OpTrait::ConstantLike>() && seen.insert(v).second;
        if (!type)
          continue;
        if (ownBuffer) {
          writeThroughReshape(v);
          continue;
        }
        Value init = b.create<tensor::EmptyOp>(ret.getLoc(), type.getShape(),
                                               type.getElementType());
        operand.set(b.create<linalg::CopyOp>(ret.getLoc(), v, init).getResult(0));
      }
    });
  }
};
} // namespace
