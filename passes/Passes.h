//===- Passes.h - dlc passes and pipelines --------------------------------===//
#ifndef DLC_PASSES_PASSES_H
#define DLC_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

namespace dlc {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The module's entry function (the passes' `entry` option); an error on
/// the module, and null, if it has none.
inline mlir::func::FuncOp lookupEntry(mlir::ModuleOp module, llvm::StringRef name) {
  auto func = module.lookupSymbol<mlir::func::FuncOp>(name);
  if (!func)
    module.emitError("no entry function '") << name << "'";
  return func;
}

/// What the CPU pipeline needs to know about the target.
struct CpuPipelineOptions {
  int64_t vectorWidth = 8; ///< f32 lanes: 8 for AVX2, 16 for AVX-512
  int64_t vectorRegisters = 16; ///< 32 with AVX-512 (AVX-512VL at 8 lanes)
  int optLevel = 3;        ///< 0 disables tiling and vectorization
  int64_t maxWorkspaceBytes = 0; ///< largest im2col buffer; 0: no limit
  bool rematerialize = false;    ///< recompute cheap tensors at late uses
  int64_t l2CacheBytes = 0;      ///< one core's L2; 0: unknown
  int64_t cores = 0;             ///< cores the library runs on; 0: unknown
  /// Conv GEMMs with filters over this many bytes keep row panels where
  /// they would take the transposed tile in rows of 7 to 12 pixels
  /// (dlc::layoutFor); 0: no bound.
  int64_t transposedFilterBytes = 0;
};

/// dlc dialect -> linalg -> tiles/vectors -> bufferized -> planned -> LLVM
/// dialect. The entry function must be named `main`.
void buildCpuPipeline(mlir::OpPassManager &pm, const CpuPipelineOptions &opts);

/// What the CUDA pipeline needs to know about the target.
struct CudaPipelineOptions {
  std::string chip = "sm_90";   ///< NVPTX CPU: sm_80, sm_90, sm_90a
  int64_t threadsPerBlock = 256;
  std::string toolkitPath;      ///< CUDA toolkit (libdevice); "" lets MLIR look
  bool libraryGemm = false;     ///< contractions go to the tensor-core GEMM kernel
  /// Kernels' index arithmetic: 32 bits where every buffer is under 2 GiB
  /// (64-bit multiplies and divisions are several instructions on GPUs).
  unsigned indexBitwidth = 64;
  /// With libraryGemm: convs the tf32 conv kernels take as implicit GEMMs
  /// (no im2col buffer; dlc-implicit-gemm).
  bool implicitGemm = false;
};

/// dlc dialect -> linalg -> bufferized -> planned (arena + weights buffer)
/// -> gpu.launch per loop nest -> outlined kernels -> NVVM -> PTX held in a
/// gpu.binary; the entry keeps only gpu.launch_func ops.
void buildCudaPipeline(mlir::OpPassManager &pm, const CudaPipelineOptions &opts);

/// Registers `--dlc-cpu-pipeline` and `--dlc-cuda-pipeline` with dlc-opt.
void registerDlcPipelines();
} // namespace dlc

#endif
