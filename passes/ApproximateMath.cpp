//===- ApproximateMath.cpp - f32 exp, log, tanh, erf as vector polynomials ===//
//
// LLVM has no vector exp, log, tanh or erf for x86: `llvm.exp.v16f32`
// becomes sixteen calls of libm's expf, and math-to-libm turns a vector
// tanh or erf into one call per lane the same way. Sigmoid, Softmax, SiLU,
// GELU, Tanh and LogSoftmax then ran 7-58x slower than onnxruntime, whose
// MLAS evaluates them as vector polynomials. MLIR's polynomial
// approximations (the ones IREE's CPU back end uses) are vector code of
// arith and math.fma ops; this pass applies them to f32 exp, expm1, log,
// log1p, log2, tanh and erf only. Trigonometric ops keep libm: their
// approximations reduce the argument in f32 and lose accuracy far from
// zero, and models rarely spend time in them. f64 and other types are left
// to libm by the patterns themselves.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// The ops whose approximations are accurate over all of f32 (a few ulp).
bool isApproximated(Operation *op) {
  if (!isa<math::ExpOp, math::ExpM1Op, math::LogOp, math::Log1pOp, math::Log2Op, math::TanhOp,
           math::ErfOp>(op))
    return false;
  return getElementTypeOrSelf(op->getResult(0).getType()).isF32();
}

struct ApproximateMathPass : dlc::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isApproximated(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    // The listed ops and what their rewrites create (log1p's log, expm1's
    // exp), never a sin or cos that was there before.
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    if (failed(applyOpPatternsAndFold(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
