//===- PlanWeights.cpp - constants as views of one weights buffer ---------===//
//
// On a GPU the kernels cannot read the host's constant globals, so every
// constant the entry reads becomes a view at a fixed, 64-byte aligned
// offset of one more argument, the weights buffer, which the runtime
// uploads to the device once at create. The globals stay in the module,
// each with its `dlc.weights_offset`, for the compiler to write the
// buffer's bytes from.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace dlc {
#define GEN_PASS_DEF_PLANWEIGHTS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct PlanWeightsPass : dlc::impl::PlanWeightsBase<PlanWeightsPass> {
  using PlanWeightsBase::PlanWeightsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = dlc::lookupEntry(module, entry);
    if (!func)
      return signalPassFailure();
    SmallVector<memref::GetGlobalOp> reads;
    func.walk([&](memref::GetGlobalOp op) { reads.push_back(op); });
    // Offsets in order of first read; a global read twice is laid out once.
    llvm::MapVector<memref::GlobalOp, int64_t> offsets;
    int64_t bytes = 0;
    for (memref::GetGlobalOp read : reads) {
      auto global = module.lookupSymbol<memref::GlobalOp>(read.getNameAttr());
      if (!global || !global.getConstant() || !global.getInitialValue() ||
          !global.getType().hasStaticShape() || !global.getType().getLayout().isIdentity()) {
        read.emitError("cannot place '") << read.getName()
                                          << "' in the weights buffer: not a static constant";
        return signalPassFailure();
      }
      if (offsets.count(global))
        continue;
      MemRefType t = global.getType();
      bytes = (bytes + 63) / 64 * 64;
      offsets[global] = bytes;
      bytes += t.getNumElements() * std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
    }
    bytes = std::max<int64_t>(64, (bytes + 63) / 64 * 64);
    OpBuilder b(&getContext());
    auto type = MemRefType::get({bytes}, b.getI8Type());
    unsigned index = func.getNumArguments();
    func.insertArgument(index, type, b.getDictionaryAttr(b.getNamedAttr(
                                         "dlc.role", b.getStringAttr("weights"))),
                        func.getLoc());
    Value weights = func.getArgument(index);
    for (memref::GetGlobalOp read : reads) {
      auto global = module.lookupSymbol<memref::GlobalOp>(read.getNameAttr());
      b.setInsertionPoint(read);
      Value offset = b.create<arith::ConstantIndexOp>(read.getLoc(), offsets[global]);
      Value view = b.create<memref::ViewOp>(read.getLoc(), read.getType(), weights, offset,
                                            ValueRange{});
      read.replaceAllUsesWith(view);
      read.erase();
    }
    for (auto [global, offset] : offsets)
      global->setAttr("dlc.weights_offset", b.getI64IntegerAttr(offset));
    func->setAttr("dlc.weights_bytes", b.getI64IntegerAttr(bytes));
  }
};
} // namespace
