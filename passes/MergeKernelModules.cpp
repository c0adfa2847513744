//===- MergeKernelModules.cpp - one gpu.module for all kernels ------------===//
//
// gpu-kernel-outlining puts each kernel in a gpu.module of its own; merged,
// the kernels become one PTX file and one cubin, which the runtime loads
// with one cuModuleLoadData and `--emit=ptx` writes as one file. Each
// kernel takes its module's (unique) name.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace dlc {
#define GEN_PASS_DEF_MERGEKERNELMODULES
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct MergeKernelModulesPass : dlc::impl::MergeKernelModulesBase<MergeKernelModulesPass> {
  using MergeKernelModulesBase::MergeKernelModulesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.empty())
      return;
    OpBuilder b(kernelModules.front());
    auto merged = b.create<gpu::GPUModuleOp>(module.getLoc(), moduleName);
    Block &body = merged.getBodyRegion().front();
    // Each outlined module's first launch names it.
    DenseMap<StringAttr, Location> launchLoc;
    module.walk([&](gpu::LaunchFuncOp launch) {
      launchLoc.try_emplace(launch.getKernelModuleName(), launch.getLoc());
    });
    int index = 0;
    for (gpu::GPUModuleOp m : kernelModules) {
      std::string node = "kernel";
      if (auto it = launchLoc.find(m.getSymNameAttr()); it != launchLoc.end())
        if (auto nameLoc = dyn_cast<NameLoc>(it->second))
          node = nameLoc.getName().str();
      for (char &c : node)
        if (!isalnum((unsigned char)c))
          c = '_';
      StringAttr name = b.getStringAttr(node + "_k" + std::to_string(index++));
      for (gpu::GPUFuncOp fn : llvm::make_early_inc_range(m.getOps<gpu::GPUFuncOp>())) {
        auto oldRef = SymbolRefAttr::get(m.getSymNameAttr(),
                                         {FlatSymbolRefAttr::get(fn.getNameAttr())});
        auto newRef = SymbolRefAttr::get(merged.getSymNameAttr(), {FlatSymbolRefAttr::get(name)});
        module.walk([&](gpu::LaunchFuncOp launch) {
          if (launch.getKernel() == oldRef)
            launch.setKernelAttr(newRef);
        });
        fn.setName(name);
        fn->moveBefore(body.getTerminator());
      }
      m.erase();
    }
  }
};
} // namespace
