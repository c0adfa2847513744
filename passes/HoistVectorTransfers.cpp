//===- HoistVectorTransfers.cpp - accumulators out of reduction loops -----===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"

namespace dlc {
#define GEN_PASS_DEF_HOISTVECTORTRANSFERS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct HoistVectorTransfersPass
    : dlc::impl::HoistVectorTransfersBase<HoistVectorTransfersPass> {
  void runOnOperation() override {
    linalg::hoistRedundantVectorTransfers(getOperation());
  }
};
} // namespace
