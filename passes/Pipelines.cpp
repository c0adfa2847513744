//===- Pipelines.cpp - the CPU compilation pipeline -----------------------===//
#include "passes/ConvGemmLayout.h"
#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// Tensors to buffers, the same on every target: graph outputs are written
/// in place into the caller's memory. With `vectorCopies` (CPU), a copy of
/// at most one vector of one row is a vector load and store: a vectorized
/// copy tile (a pad's interior) folds back to tensor slices, which
/// bufferization copies, and as loops LLVM called memmove for 32 bytes.
void addBufferization(OpPassManager &pm, bool vectorCopies = false) {
  pm.addNestedPass<func::FuncOp>(dlc::createMaterializeResults());
  pm.addNestedPass<func::FuncOp>(dlc::createSplitEmptyTensors());
  bufferization::OneShotBufferizationOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  bufOpts.bufferAlignment = 64;
  // linalg.copy lowers to loops; a strided memref.copy would call
  // memrefCopy from MLIR's runner library, which the artifact does not have.
  auto bufferCopy = [vectorCopies](OpBuilder &b, Location loc, Value from, Value to) {
    auto type = cast<MemRefType>(to.getType());
    ArrayRef<int64_t> shape = type.getShape();
    if (vectorCopies && type.hasStaticShape() && type.getRank() > 0 &&
        shape.back() <= 16 && type.getNumElements() == shape.back()) {
      auto vecType = VectorType::get(shape, type.getElementType());
      SmallVector<Value> zeros(type.getRank(), b.create<arith::ConstantIndexOp>(loc, 0));
      SmallVector<bool> inBounds(type.getRank(), true);
      Value pad = b.create<arith::ConstantOp>(loc, b.getZeroAttr(type.getElementType()));
      Value v = b.create<vector::TransferReadOp>(loc, vecType, from, zeros, pad, inBounds);
      b.create<vector::TransferWriteOp>(loc, v, to, zeros, inBounds);
      return success();
    }
    b.create<linalg::CopyOp>(loc, from, to);
    return success();
  };
  bufOpts.memCpyFn = bufferCopy;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  // A result written through a reshape (dlc-materialize-results) returns
  // collapse(expand(alloc)): folded to the allocation, which the caller's
  // output memory then replaces instead of taking a copy of it.
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsOpts outParams;
  outParams.hoistStaticAllocs = true;
  outParams.memCpyFn = bufferCopy;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

/// A core's L2, 512 KB where the target does not say.
int64_t l2Bytes(const dlc::CpuPipelineOptions &opts) {
  return opts.l2CacheBytes > 0 ? opts.l2CacheBytes : 512 << 10;
}

/// The K cache tile of the GEMMs: 1024 instead of 256 where a core has 1 MB
/// of L2 or more (the column block, 64 KB at 16 lanes, then streams from L2
/// with a quarter of the partial-sum passes). Zen 4, one thread: ResNet-18
/// 24.7 -> 21.6 ms, ResNet-50 67.6 -> 63.9 (36.2 -> 33.8 at two),
/// MobileNetV2 7.60 -> 7.34; 512 and 2048 in between. AVX-512's 12 x 16
/// tiles on the device's Sapphire Rapids (2 MB of L2), interleaved rounds,
/// best of 5: ResNet-18 5.80 -> 5.44 ms at 16 threads (35.6 -> 35.0 at
/// one), MobileNetV2 2.44 -> 2.35 (one thread alike, 9.1).
int64_t gemmDepthTile(const dlc::CpuPipelineOptions &opts) {
  return opts.l2CacheBytes >= (1 << 20) ? 1024 : 256;
}

/// dlc ops to linalg on tensors, fused elementwise chains; depthwise convs
/// and pools as elementwise ops over their window's taps first where asked,
/// so that they vectorize and their bias and activation fuse into them.
void addLowerToLinalg(OpPassManager &pm, int64_t maxWorkspaceBytes,
                      bool foldPoolPadding = false, bool windowTaps = false,
                      int64_t slideLanes = 0, bool partialReductionLanes = false) {
  pm.addNestedPass<func::FuncOp>(dlc::createWidenNarrowFloats());
  dlc::LowerToLinalgOptions lower;
  lower.maxWorkspaceBytes = maxWorkspaceBytes;
  lower.foldPoolPadding = foldPoolPadding;
  lower.partialReductionLanes = partialReductionLanes;
  pm.addNestedPass<func::FuncOp>(dlc::createLowerToLinalg(lower));
  if (windowTaps) {
    dlc::DepthwiseConvToTapsOptions taps;
    taps.vectorWidth = slideLanes;
    pm.addNestedPass<func::FuncOp>(dlc::createDepthwiseConvToTaps(taps));
    pm.addNestedPass<func::FuncOp>(dlc::createPoolingToTaps());
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  // Window taps from row vectors where they take them (`slideLanes` lanes),
  // split into regions where not.
  if (windowTaps && slideLanes > 0) {
    dlc::SlideTapsInRegistersOptions slide;
    slide.vectorWidth = slideLanes;
    pm.addNestedPass<func::FuncOp>(dlc::createSlideTapsInRegisters(slide));
  }
  if (windowTaps)
    pm.addNestedPass<func::FuncOp>(dlc::createSplitPaddedTaps());
}
} // namespace

void dlc::buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &opts) {
  // BatchNorms into their convs' weights where that runs faster (a bias
  // instead of a scale and a shift: see dlc-fold-batch-norm).
  if (opts.optLevel > 0)
    pm.addNestedPass<func::FuncOp>(dlc::createFoldBatchNorm());
  // Graph level -> linalg on tensors.
  // Window taps from row vectors where a row's store is one masked store
  // (AVX-512; on AVX2 7-wide rows split into three stores, and MobileNetV2
  // measured even there: 6.03 -> 6.04 ms at one thread, Zen 5).
  // Sums of 49 (7x7 maps) in 7 lanes rather than one chain a channel (see
  // dlc-lower-to-linalg's GlobalAveragePool); the GPU's reductions keep
  // their kernels.
  // 32 registers mean AVX-512 (AVX-512VL at 8 lanes: AMD Zen 4, whose GEMM
  // tiles take 8 lanes, see Target.cpp). There the window-tap kernels and
  // image stems still take AVX-512's 16-lane rows and masked stores: they
  // are bound by loads and shuffles, not by the FMA rate that split 512-bit
  // ops halve. Zen 4 VM, one thread, paired rounds: MobileNetV2 0.926 of
  // its time with 16-lane taps, 0.915 with the stem's outer products too;
  // the whole model at 16 lanes 0.96.
  bool avx512 = opts.vectorRegisters >= 32;
  // Softmax and LogSoftmax a row at a time, the row in L1 through its three
  // passes (see the pass). 64 x 1000 on the Zen 5 VM at one / two threads:
  // Softmax 24.1 -> 13.5 us and 13.6 -> 7.6 (onnxruntime 17.0 / 10.9),
  // LogSoftmax 28.3 -> 14.3 and 16.5 -> 8.3 (17.4 / 11.4); the MLP's
  // 10-class Softmax, from C at one thread, 5.8-6.5 -> 5.4-5.8 us.
  if (opts.optLevel > 0) {
    SoftmaxToRowLoopsOptions rows;
    rows.vectorWidth = opts.vectorWidth;
    pm.addNestedPass<func::FuncOp>(createSoftmaxToRowLoops(rows));
  }
  int64_t tapLanes = opts.vectorWidth >= 16 ? opts.vectorWidth : (avx512 ? 16 : 0);
  addLowerToLinalg(pm, opts.maxWorkspaceBytes, /*foldPoolPadding=*/false,
                   /*windowTaps=*/opts.optLevel > 0, /*slideLanes=*/tapLanes,
                   /*partialReductionLanes=*/true);
  ConvToIm2ColOptions im2col;
  im2col.maxWorkspaceBytes = opts.maxWorkspaceBytes;
  // Batched convs run image chunks whose columns fit in the last-level
  // cache: at batch 8 ResNet-18's stem wrote 59 MB of columns before its
  // GEMM read them back from memory (chunks of one image, 7.4 MB, here).
  // A chunk loop costs a zeroed output, a copy per chunk and the BatchNorm
  // outside the GEMM's tiles: MobileNetV2's stem at batch 8 (10.8 MB of
  // columns) took 16.0 ms in two chunks under an 8 MB bound, 9.6 ms whole.
  if (opts.optLevel > 0)
    im2col.cacheWorkspaceBytes = 12 << 20;
  // Inference convs in the register tile's layout (see ConvToIm2Col):
  // AVX2 6 rows x 16 lanes, AVX-512 12 rows x 32 lanes (two zmm vectors,
  // 24 accumulators: 14 loads a k step for 24 FMAs, where 12 x 16 took 13
  // for 12 and waited on the load ports; MobileNetV2 at one thread on the
  // device's Sapphire Rapids 8.42 -> 7.53 ms median, session 32) with 12 x
  // 16 where 32-lane tiles pad the pixels 1/8 more (Winograd's 16 tiles;
  // 12 x 16 panels took ResNet-18 from 87.6 to 57.9 ms at one thread
  // there, session 9), and 8
  // rows x 16 lanes at 8 lanes with AVX-512VL's 32 registers (Zen 4, one
  // thread: MobileNetV2 7.14 -> 6.90 ms, ResNet-18 24.5 -> 24.0,
  // ResNet-50 66.3 -> 66.0; 12 rows padded 256 filters to 264 and ran
  // 1-4% slower).
  bool wideRegisterFile = opts.vectorWidth < 16 && avx512;
  if (opts.optLevel > 0) {
    im2col.packRows = opts.vectorWidth < 16 ? (wideRegisterFile ? 8 : 6) : 12;
    im2col.padLanes = 2 * opts.vectorWidth;
    // One-vector tiles where two would pad the pixels more (see
    // dlc::layoutFor: a narrow tail after the full tiles): on AVX-512, and
    // at 8 lanes with AVX-512VL's 32 registers, whose 8 x 8 tail keeps 8
    // accumulators in flight (AVX2's 6 x 8 would leave the FMAs waiting).
    // Zen 4, one thread: MobileNetV2's seven 384- and 576-filter 14x14
    // expand convs, 196 pixels as 200 instead of 208, went 3-8 us faster
    // each (the pool's per-loop clock), the model 0.989-0.995 of its time
    // in paired rounds; ResNet-50 (its 14x14 1x1 convs of 256 to 1024
    // filters) 0.998, ResNet-18 unchanged.
    im2col.narrowLanes = opts.vectorWidth < 16 && !wideRegisterFile ? 0 : opts.vectorWidth;
    // Columns dlc-tile-and-vectorize builds per cache tile (its K tile).
    im2col.fusedColumnsDepth = gemmDepthTile(opts);
    im2col.l2CacheBytes = l2Bytes(opts);
    im2col.minTailPanels = dlc::minTailPanelsFor(opts.cores);
    // The K tile dlc-tile-and-vectorize takes (below): GEMMs it splits get
    // no tail, which it cannot peel. With a 512 KB L2 on 2 cores (256-deep
    // tiles), MobileNetV2's 384- and 576-deep 14x14 projections had their
    // pixels padded for a tail (200) and ran in 8-lane tiles throughout;
    // as 208 pixels in 16-lane tiles the model ran 0.968 of its time (Zen
    // 4 VM with its L2 taken as 512 KB, one thread, paired rounds; an
    // identical copy 1.005).
    im2col.depthTile = gemmDepthTile(opts);
    im2col.transposedFilterBytes = opts.transposedFilterBytes;
  }
  // Small stride-1 convs (LeNet's) as outer products per output row, no
  // im2col (see dlc-conv-to-outer-products), with the GEMM tile's register
  // budget.
  if (opts.optLevel > 0) {
    ConvToOuterProductsOptions outer;
    outer.vectorWidth = opts.vectorWidth;
    outer.maxAccumulators = wideRegisterFile ? 24 : 12;
    // Image stems too (3 channels, 7x7 or 3x3, stride 2: their C x KH
    // input rows take 19 KB at 224 wide) with AVX-512's 32 registers, where
    // it was measured (Zen 5; Zen 4 at 8 lanes: MobileNetV2 0.988 of its
    // time with the 16-lane taps above).
    if (avx512)
      outer.maxWindowRowBytes = 32 << 10;
    pm.addNestedPass<func::FuncOp>(createConvToOuterProducts(outer));
  }
  // 3x3 stride-1 convs with constant filters as Winograd F(4x4 or 2x2,
  // 3x3), the GEMMs in the same register-tile layout; the rest im2col.
  if (opts.optLevel > 0) {
    ConvToWinogradOptions winograd;
    winograd.packRows = im2col.packRows;
    winograd.padLanes = im2col.padLanes;
    winograd.narrowLanes = im2col.narrowLanes;
    winograd.transposedFilterBytes = im2col.transposedFilterBytes;
    // Batches in chunks of about an image (ResNet-18's transformed input
    // is 1.9 MB per image on 56x56 maps): at batch 8, 2 MB chunks ran 5%
    // (1 thread) to 12% (2 threads) faster than 8 MB ones here; 1 and 2 MB
    // measured alike, 4 MB between.
    winograd.cacheWorkspaceBytes = 2 << 20;
    winograd.vectorWidth = opts.vectorWidth;
    pm.addNestedPass<func::FuncOp>(createConvToWinograd(winograd));
  }
  pm.addNestedPass<func::FuncOp>(createConvToIm2Col(im2col));
  if (opts.optLevel > 0) {
    // Weight panels as wide as the register tile (two vectors, as the conv
    // layouts above): AVX-512's 16-lane panels gave a 12 x 16 tile, 13
    // loads a k step for 12 FMAs, and a 1024^3 matmul ran at 65% of
    // OpenBLAS on Sapphire Rapids, one thread; 12 x 32 runs it at 0.97 to
    // 1.09 of OpenBLAS (bench/bench_matmul.py and per-call pairs, session
    // 40).
    PackMatmulWeightsOptions packing;
    packing.lanes = 2 * opts.vectorWidth;
    packing.matvecLanes = opts.vectorWidth;
    // Matrix-vector panels of 64 lanes at 8 lanes: one-vector panels are
    // half a cache line a k step there, and a register tile of 8 of them
    // read 8 streams 25 KB apart (the MLP's 784 x 256 layer). Zen 4,
    // paired rounds: the MLP 0.953-0.967 of its time at one thread and
    // 0.85-0.95 at two, LeNet 0.98-0.99 / 0.95-0.96; AVX2 builds there, the
    // MLP 0.952 / 0.981. AVX-512's one-vector panels are a whole line a k
    // step and stay: 64-lane ones ran the MLP 1.02-1.03x and LeNet
    // 1.01-1.05x slower on the device's Sapphire Rapids.
    packing.matvecPanelVectors = opts.vectorWidth < 16 ? 64 / opts.vectorWidth : 1;
    pm.addNestedPass<func::FuncOp>(createPackMatmulWeights(packing));
  }
  pm.addPass(createCanonicalizerPass());
  // After im2col, while every producer is still one op on whole tensors.
  if (opts.rematerialize)
    pm.addNestedPass<func::FuncOp>(createRematerialize());
  if (opts.optLevel > 0) {
    TileAndVectorizeOptions tv;
    tv.vectorWidth = opts.vectorWidth;
    // Register tiles measured per target: 4 x 16 lanes on AVX2 (6 rows was
    // 1.7x slower on ResNet-18 here); on AVX-512 (Sapphire Rapids, device
    // machine) 12 x 32 lanes (see the conv layouts above; 6 x 32 and 8 x 32
    // ran MobileNetV2 at one thread in 15.5 and 14.4 ms against 12.0 for 12
    // x 16 and 10.3 for 12 x 32, session 32; session 9 had 12 x 16 at 17.1
    // against 31.7 for 4 x 32, 17.5 for 6 x 16 and 23.6 for 8 x 16). Conv
    // GEMMs whose pixels were padded to 16 lanes keep 12 x 16.
    if (opts.vectorWidth >= 16) {
      tv.rows = 12;
      tv.nVectors = 2;
      // 28 for the transposed tile's rows of 14 pixels (dlc::layoutFor);
      // the 12 x 32 tile takes 24.
      tv.maxAccumulators = 28;
    }
    // 8 x 16 tiles (16 accumulators) need more than AVX2's 16 registers.
    if (wideRegisterFile)
      tv.maxAccumulators = 24;
    tv.cacheK = gemmDepthTile(opts);
    tv.fuseColumns = true;
    tv.l2CacheBytes = l2Bytes(opts);
    tv.minTailPanels = dlc::minTailPanelsFor(opts.cores);
    pm.addNestedPass<func::FuncOp>(createTileAndVectorize(tv));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm, /*vectorCopies=*/opts.optLevel > 0);
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  if (opts.optLevel > 0) {
    pm.addNestedPass<func::FuncOp>(createFuseParallelLoops());
    pm.addNestedPass<func::FuncOp>(createHoistVectorTransfers());
    // Weights over the L2 (read from memory each run) prefetched 16 KB
    // ahead, the others 4 KB (see the pass).
    PrefetchGemmOperandsOptions prefetch;
    prefetch.streamedDistanceBytes = 16 << 10;
    prefetch.streamedWeightBytes = l2Bytes(opts);
    pm.addNestedPass<func::FuncOp>(createPrefetchGemmOperands(prefetch));
  }

  // A parallel iteration's own buffers on its thread's stack, then one
  // arena for every other intermediate buffer.
  // Column blocks dlc-tile-and-vectorize builds per cache tile fit by
  // construction.
  ParallelScratchOnStackOptions scratch;
  scratch.maxBytes = dlc::kMaxFusedColumnBytes;
  pm.addNestedPass<func::FuncOp>(createParallelScratchOnStack(scratch));
  // Bytes freed in the last 32 steps (loops and copies; about ten
  // MobileNetV2 blocks) stay untouched where the arena has room, else those
  // of fewer: at two threads a depthwise conv (channels split) then no
  // longer writes over what the 1x1 conv before it (pixels split) had just
  // read in both cores. Zen 4 VM, fast cross-core state, paired rounds
  // against the tight plan: MobileNetV2 0.974-0.984 of its time at two
  // threads (8 steps 0.980-0.984, 16 0.982, 64 0.989; an identical copy
  // 0.990-1.006), 0.988 at one (copy 0.995); the device's Xeon even at
  // 1 and 16 threads. ResNet-18 and -50 have no room and keep their plans.
  PlanMemoryOptions plan;
  plan.reuseDistance = 32;
  pm.addPass(createPlanMemory(plan));
  pm.addPass(createVerifyNoHeapAlloc());
  // Outermost parallel loops become functions the thread pool runs.
  pm.addPass(createOutlineParallelLoops());
  // A model that nearly fits one core's L2 (the MLP) sweeps it back to
  // front on alternate runs.
  AlternateSweepsOptions sweeps;
  sweeps.cacheBytes = l2Bytes(opts);
  pm.addPass(createAlternateSweeps(sweeps));

  // Down to the LLVM dialect.
  LowerVectorsOptions lowering;
  lowering.maskedStores = opts.vectorWidth >= 16 || avx512;
  lowering.vectorWidth = opts.vectorWidth;
  pm.addNestedPass<func::FuncOp>(createLowerVectors(lowering));
  // Relu/Clip bounds as compare+select: one vmaxps/vminps at any width.
  pm.addNestedPass<func::FuncOp>(createConstantMinMaxToSelect());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  // Loop bodies' stack buffers at function entry: scf-to-cf keeps no
  // allocation scope, and a loop's alloca would grow the stack each trip.
  pm.addNestedPass<func::FuncOp>(createHoistStaticAllocas());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addNestedPass<func::FuncOp>(createExpandBF16());
  // Vector exp, log, tanh and erf instead of a libm call per lane.
  pm.addNestedPass<func::FuncOp>(createApproximateMath());
  // Math first: math-to-libm scalarizes vector ops it has no intrinsic for
  // (tanh) into vector.extract/insert, which vector-to-llvm must still see.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  // The entry takes one pointer per tensor (its llvm.bareptr attribute);
  // outlined parallel bodies take memref descriptors.
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createDispatchParallelCalls());
  pm.addPass(createVerifyNoHeapAlloc());
}

void dlc::buildCudaPipeline(OpPassManager &pm, const CudaPipelineOptions &opts) {
  addLowerToLinalg(pm, /*maxWorkspaceBytes=*/0, /*foldPoolPadding=*/true);
  // Convs as im2col + GEMM where the GEMM runs on tensor cores.
  if (opts.libraryGemm) {
    ConvToIm2ColOptions im2col;
    im2col.foldPadding = true;
    im2col.implicitGemm = opts.implicitGemm;
    pm.addNestedPass<func::FuncOp>(createConvToIm2Col(im2col));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  // The GEMM kernel stores its output where it would add into zeros
  // (before the memory plan: a zero buffer left unread then takes no bytes).
  if (opts.libraryGemm)
    pm.addNestedPass<func::FuncOp>(createFoldGemmZeroInit());
  // Marked im2col gathers into the GEMMs reading them: no column buffers.
  if (opts.libraryGemm && opts.implicitGemm)
    pm.addNestedPass<func::FuncOp>(createImplicitGemm());
  // The elementwise tail after a GEMM (BatchNorm, residual, ReLU) in the
  // GEMM kernel's store; before the memory plan, which must then keep the
  // GEMM's operands apart from the tail's output.
  if (opts.libraryGemm)
    pm.addNestedPass<func::FuncOp>(createFuseGemmEpilogue());
  // One device arena, one weights buffer: the entry's arguments are then
  // inputs, outputs, arena, weights, and kernels read nothing else.
  pm.addPass(createPlanMemory());
  pm.addPass(createVerifyNoHeapAlloc());
  pm.addPass(createPlanWeights());
  MapToGpuOptions map;
  map.threadsPerBlock = opts.threadsPerBlock;
  map.libraryGemm = opts.libraryGemm;
  pm.addNestedPass<func::FuncOp>(createMapToGpu(map));
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createMergeKernelModules());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Kernels: NVVM, then PTX through LLVM's NVPTX back end in process.
  GpuNVVMAttachTargetOptions target;
  target.chip = opts.chip;
  target.features = "+ptx80";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Views of the arena (subviews, reshapes) become pointer arithmetic.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createConvertSCFToCFPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = opts.indexBitwidth;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  // What NVVM's patterns leave (math.fma) becomes LLVM intrinsics.
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = opts.toolkitPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {
struct CpuPipelineCLOptions : PassPipelineOptions<CpuPipelineCLOptions> {
  Option<int64_t> vectorWidth{*this, "vector-width",
                              llvm::cl::desc("f32 lanes (8 AVX2, 16 AVX-512)"),
                              llvm::cl::init(8)};
  Option<int64_t> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("vector registers (16 AVX2, 32 AVX-512, also at 8 lanes)"),
      llvm::cl::init(16)};
  Option<int64_t> l2CacheBytes{*this, "l2-cache-bytes",
                               llvm::cl::desc("one core's L2 cache (0: unknown)"),
                               llvm::cl::init(0)};
  Option<int64_t> cores{*this, "cores",
                        llvm::cl::desc("cores the library runs on (0: unknown)"),
                        llvm::cl::init(0)};
  Option<int64_t> transposedFilterBytes{
      *this, "transposed-filter-bytes",
      llvm::cl::desc("conv GEMMs with larger filters keep row panels, not rows of 7 to 12 "
                     "pixels (0: no bound)"),
      llvm::cl::init(0)};
  Option<int> optLevel{*this, "opt-level", llvm::cl::desc("0 disables tiling"),
                       llvm::cl::init(3)};
  Option<int64_t> maxWorkspaceBytes{*this, "max-workspace-bytes",
                                    llvm::cl::desc("largest im2col buffer (0: no limit)"),
                                    llvm::cl::init(0)};
  Option<bool> rematerialize{*this, "rematerialize",
                             llvm::cl::desc("recompute cheap tensors at their late uses"),
                             llvm::cl::init(false)};
};

struct CudaPipelineCLOptions : PassPipelineOptions<CudaPipelineCLOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("NVIDIA GPU (sm_80, sm_90)"),
                           llvm::cl::init("sm_90")};
  Option<int64_t> threadsPerBlock{*this, "threads-per-block", llvm::cl::desc("threads a block"),
                                  llvm::cl::init(256)};
  Option<bool> libraryGemm{*this, "library-gemm",
                           llvm::cl::desc("contractions to the tensor-core GEMM kernel"),
                           llvm::cl::init(false)};
  Option<unsigned> indexBitwidth{*this, "index-bitwidth",
                                 llvm::cl::desc("kernels' index width (32 or 64)"),
                                 llvm::cl::init(64)};
  Option<bool> implicitGemm{*this, "implicit-gemm",
                            llvm::cl::desc("with library-gemm: convs as implicit GEMMs (tf32)"),
                            llvm::cl::init(false)};
};
} // namespace

void dlc::registerDlcPipelines() {
  PassPipelineRegistration<CudaPipelineCLOptions>(
      "dlc-cuda-pipeline", "dlc dialect to PTX kernels and a launch-only host entry",
      [](OpPassManager &pm, const CudaPipelineCLOptions &o) {
        buildCudaPipeline(
            pm, {o.chip, o.threadsPerBlock, "", o.libraryGemm, o.indexBitwidth, o.implicitGemm});
      });
  PassPipelineRegistration<CpuPipelineCLOptions>(
      "dlc-cpu-pipeline", "dlc dialect to the LLVM dialect for x86-64 CPUs",
      [](OpPassManager &pm, const CpuPipelineCLOptions &o) {
        buildCpuPipeline(pm, {o.vectorWidth, o.vectorRegisters, o.optLevel, o.maxWorkspaceBytes,
                               o.rematerialize, o.l2CacheBytes, o.cores,
                               o.transposedFilterBytes});
      });
}
