//===- AlternateSweeps.cpp - loops that sweep a near-L2 model alternately -===//
#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace dlc {
#define GEN_PASS_DEF_ALTERNATESWEEPS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// Bytes every run of `entry` goes through: the module's constant globals
/// (weights; each run reads them whole) and the entry's arena.
int64_t bytesPerRun(ModuleOp module, func::FuncOp entry) {
  int64_t bytes = 0;
  module.walk([&](memref::GlobalOp global) {
    MemRefType type = global.getType();
    if (global.getConstant() && type.hasStaticShape())
      bytes += type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  });
  if (auto arena = entry->getAttrOfType<IntegerAttr>("dlc.arena_bytes"))
    bytes += arena.getInt();
  return bytes;
}

struct AlternateSweepsPass : dlc::impl::AlternateSweepsBase<AlternateSweepsPass> {
  using AlternateSweepsBase::AlternateSweepsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = dlc::lookupEntry(module, entry);
    if (!func)
      return signalPassFailure();
    int64_t bytes = bytesPerRun(module, func);
    if (2 * bytes <= cacheBytes || bytes > 2 * cacheBytes)
      return;
    func.walk([&](func::CallOp call) {
      if (!call->hasAttr("dlc.parallel"))
        return;
      if (auto body = module.lookupSymbol<func::FuncOp>(call.getCallee()))
        body->setAttr("dlc.alternate_sweeps", UnitAttr::get(&getContext()));
    });
  }
};
} // namespace
