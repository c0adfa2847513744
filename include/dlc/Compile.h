//===- Compile.h - from an imported model to an artifact ------------------===//
#ifndef DLC_COMPILE_H
#define DLC_COMPILE_H

#include "dlc/Import.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace dlc {
/// What the code is generated for.
struct Target {
  std::string name;     ///< as given: x86-64-avx2, x86-64-avx512, native, cuda:sm_90
  std::string cpu;      ///< LLVM CPU name (for CUDA: the GPU, sm_90)
  std::string features; ///< LLVM feature string
  int64_t vectorWidth;  ///< f32 lanes
  int64_t vectorRegisters = 16; ///< 32 with AVX-512 (also at 8 lanes: ymm0-31)
  int64_t l2CacheBytes = 0;     ///< one core's L2 (native: the host's); 0: unknown
  int64_t cores = 0;            ///< cores it runs on (native: the host's); 0: unknown
  /// Conv GEMMs with larger filters keep row panels where they would take
  /// the transposed tile in rows of 7 to 12 pixels (Intel's AVX-512 cores:
  /// the L2; see resolveTarget); 0: no bound.
  int64_t transposedFilterBytes = 0;
  bool isCuda() const { return name.rfind("cuda:", 0) == 0; }
};

/// Resolves --target; false with `error` for an unknown name.
bool resolveTarget(const std::string &name, Target &target, std::string &error);

struct CompileOptions {
  Target target;
  int optLevel = 3;
  std::string emit = "lib"; ///< mlir | llvm | asm | obj | lib; CUDA: mlir | ptx | cubin | lib
  bool printIrAfterAll = false;
  std::string output;
  /// `--mem-budget`: the largest arena allowed (0: none). Over it, conv
  /// im2col workspaces are chunked (maxWorkspaceBytes) until the plan fits,
  /// and where that is not enough cheap activations are recomputed in
  /// backward (rematerialize).
  int64_t memBudget = 0;
  int64_t maxWorkspaceBytes = 0; ///< largest im2col buffer; 0: no limit
  bool rematerialize = false;    ///< the dlc-rematerialize pass runs
  /// CUDA: how matmuls and convs multiply. fp32: generated kernels, no
  /// tensor cores; tf32 (default, as cuDNN and TensorRT), bf16, fp16: the
  /// tensor-core GEMM with float accumulation.
  std::string precision = "tf32";
  /// > 1: the model was imported at batch 1 (see separableBatch) and its
  /// signature says batch `batchRuns`; the runtime runs it once per image.
  int64_t batchRuns = 1;
  /// Why a batched model was not split (for `dlc inspect`); empty if not tried.
  std::string batchKept;
  /// With batchRuns > 1, the ops that run once on the whole batch after
  /// the per-image runs (splitBatchTail); null if none. `batchTailInput`
  /// is the batch of per-image results they read, `batchTail` says which.
  mlir::ModuleOp batchTailModule;
  TensorSignature batchTailInput;
  std::string batchTail;
  /// Training build (`--train`): the library also exports dlc_train_step.
  struct Training {
    bool enabled = false;
    std::string loss = "softmax-cross-entropy"; ///< or mse
    std::string optimizer = "sgd";              ///< or adam
    double momentum = 0.0, weightDecay = 0.0;
  } train;
};

/// The CUDA back end (`--target=cuda:sm_XX`): PTX, cubin or a host library
/// embedding them; called by compileModel.
bool compileCudaModel(ImportedModel &model, const CompileOptions &options, std::string &error);

/// The batch N with which `batched` (a batch-N import) may run as N runs of
/// `single` (the same file imported at batch 1), one image each: every
/// value computed from the inputs has the batch as dim 0, no op combines
/// images, and the batch's activations overflow the cache (see
/// BatchSplit.cpp). Else 1, with `why` saying what stopped it.
int64_t separableBatch(const ImportedModel &batched, const ImportedModel &single,
                       std::string &why);

/// For a model separableBatch splits: cuts `single` (batch 1) at a value
/// through which alone its output depends on its inputs, and builds `tail`,
/// the ops after it on the whole batch (a func main(cut) -> outputs, from
/// `batched`): the runtime runs `single` per image into the batch of cuts,
/// then `tail` once. The cut is where the matmuls and convs after it save
/// the most reads by running on the batch: each weight read once for the
/// batch instead of once an image, less the activations that overflow the
/// cache once batched (a convnet's classifier; ResNet's 14x14 and 7x7
/// stages where the target's `cores` have at least 4 images each; else
/// the latest cut that saves anything). `cut` gets the batch's cut tensor
/// and `what` a line for `dlc inspect`. False, changing nothing, where no
/// cut saves anything or the model has several outputs.
bool splitBatchTail(ImportedModel &single, const ImportedModel &batched, int64_t cores,
                    mlir::OwningOpRef<mlir::ModuleOp> &tail, TensorSignature &cut,
                    std::string &what);

/// Lowers, plans and emits `model`; false with a one-line `error` on failure.
bool compileModel(ImportedModel &model, const CompileOptions &options,
                  std::string &error);
} // namespace dlc

#endif
