//===- HoistStaticAllocas.cpp - loop-scoped stack buffers at function entry -===//
//
// scf.for and scf.parallel are automatic allocation scopes: a memref.alloca
// in their body lives for one iteration. The canonicalizer relies on that
// and folds dlc-parallel-scratch-on-stack's memref.alloca_scope into the
// loop, but convert-scf-to-cf keeps no scope: the alloca lands in a loop
// block, which LLVM treats as a dynamic alloca, and the stack grows by the
// buffer every iteration until the function returns. A ConvTranspose's
// 229 KB column block over 56 tiles overflowed an 8 MB stack at one thread
// (`dlc run --threads 1`: SIGSEGV), and each tile's columns went to new
// stack lines rather than over the previous tile's, still in cache. (The
// bench models' libraries are unchanged by it.) Every iteration of a function's loops
// runs one after another (threads call outlined bodies, each on its own
// stack), so a static alloca whose scope is a loop or an alloca_scope can be
// one buffer at function entry, reused by each iteration.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace dlc {
#define GEN_PASS_DEF_HOISTSTATICALLOCAS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct HoistStaticAllocasPass : dlc::impl::HoistStaticAllocasBase<HoistStaticAllocasPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    SmallVector<memref::AllocaOp> hoist;
    func.walk([&](memref::AllocaOp alloca) {
      if (alloca->getBlock() != &entry && alloca.getType().hasStaticShape() &&
          alloca->getNumOperands() == 0)
        hoist.push_back(alloca);
    });
    // In walk order, at the top of the entry block: the buffers keep their
    // order, and no use comes before its (operand-free) alloca.
    Operation *insertAfter = nullptr;
    for (memref::AllocaOp alloca : hoist) {
      if (insertAfter)
        alloca->moveAfter(insertAfter);
      else
        alloca->moveBefore(&entry, entry.begin());
      insertAfter = alloca;
    }
  }
};
} // namespace
