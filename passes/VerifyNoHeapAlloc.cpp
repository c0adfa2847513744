//===- VerifyNoHeapAlloc.cpp - the memory plan must cover every buffer ----===//
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace dlc {
#define GEN_PASS_DEF_VERIFYNOHEAPALLOC
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
bool isHeapFunction(StringRef name) {
  return llvm::is_contained({"malloc", "calloc", "realloc", "aligned_alloc",
                             "posix_memalign", "_mlir_memref_to_llvm_alloc"},
                            name);
}

struct VerifyNoHeapAllocPass
    : dlc::impl::VerifyNoHeapAllocBase<VerifyNoHeapAllocPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      bool bad = isa<memref::AllocOp, memref::ReallocOp>(op);
      if (auto call = dyn_cast<LLVM::CallOp>(op))
        bad = call.getCallee() && isHeapFunction(*call.getCallee());
      if (bad) {
        op->emitError("heap allocation left in generated code after memory "
                      "planning: ")
            << op->getName();
        signalPassFailure();
      }
    });
  }
};
} // namespace
