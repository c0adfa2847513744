//===- CompileCuda.cpp - the CUDA back end's artifacts --------------------===//
//
// dlc module -> buildCudaPipeline (passes/Pipelines.cpp) -> one gpu.binary
// of PTX and an entry that is only gpu.launch_func ops over its arguments
// (inputs, outputs, arena, weights). From that:
//   --emit=ptx / --emit=cubin: the kernels alone, plus OUT.json with the
//     launch plan and the memory plan, for users with their own loader;
//   --emit=lib: a host library (the runtime, the launch list as tables, the
//     cubin and the weights embedded) with the CPU build's C API.
// The cubin comes from ptxas (CUDA toolkit: $CUDA_HOME, /usr/local/cuda or
// PATH); without one the library embeds the PTX for the driver to JIT.
// Matmuls and convs (as im2col GEMMs) do not come from MLIR unless
// --precision=fp32: they launch one hand-written tensor-core GEMM
// (runtime/kernels/gemm_tc.cu), compiled here by NVRTC for the chip and
// precision, as a second kernel image; in tf32, convs with a constant
// filter and over 16 filters launch its implicit-GEMM twins
// (dlc.conv_gemm), which gather the im2col columns themselves. A GEMM's
// elementwise tail (BatchNorm, residual, ReLU: dlc-fuse-gemm-epilogue)
// runs in the store of the kernels' _ep twins.
//
//===----------------------------------------------------------------------===//
#include "Artifact.h"
#include "dlc/Compile.h"
#include "dialects/DlcDialect.h"
#include "dlc/DType.h"
#include "passes/LibraryGemm.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <nlohmann/json.hpp>
#include <set>

using namespace mlir;
using namespace dlc::codegen;

namespace {
/// A kernel argument: a buffer (input|output|arena|weights, which one, byte
/// offset) or an integer ("i64", value).
struct LaunchArg {
  std::string kind;
  int index = 0;
  int64_t value = 0;
};

/// One kernel launch of the plan.
struct Launch {
  int image = 0; ///< 0: the generated kernels; 1: the tensor-core GEMM
  std::string kernel;
  int64_t grid[3], block[3];
  int64_t sharedBytes = 0; ///< dynamic shared memory
  std::vector<LaunchArg> args;
};

/// A TMA tensor map, which the runtime encodes at create time
/// (cuTensorMapEncodeTiled; runtime/cuda.c): a `rank`-d tensor of floats
/// from `buffer`, dims[0] contiguous, dimension d + 1 strides[d] bytes
/// apart, in boxes spanning `box` elements of which every
/// elementStrides-th is read, 128-byte swizzle, read as tf32 (rounded to
/// nearest), zeros outside. A launch argument of kind "tensor_map" passes
/// map `index`.
struct TensorMap {
  LaunchArg buffer;
  int rank = 2;
  int64_t dims[4] = {}, strides[3] = {}, box[4] = {}, elementStrides[4] = {1, 1, 1, 1};
};

struct CudaProgram {
  std::string ptx;
  std::vector<Launch> launches;
  std::vector<TensorMap> tensorMaps;
  bool usesGemm = false;
  int64_t arenaBytes = 0, lowerBound = 0, buffers = 0, weightsBytes = 0;
  /// Bytes after the planned arena for the TMA kernels' K-major operands
  /// (dlc_transpose before dlc_gemm_tma, dlc_to_nhwc before dlc_conv_tma;
  /// one kernel at a time uses them).
  int64_t scratchBytes = 0;
  std::vector<char> weights;
};

std::string cudaToolkit() {
  for (const char *env : {"CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"})
    if (const char *p = getenv(env); p && *p && llvm::sys::fs::is_directory(p))
      return p;
  return llvm::sys::fs::is_directory("/usr/local/cuda") ? "/usr/local/cuda" : "";
}

std::string findPtxas() {
  std::string toolkit = cudaToolkit();
  if (!toolkit.empty() && llvm::sys::fs::can_execute(toolkit + "/bin/ptxas"))
    return toolkit + "/bin/ptxas";
  if (auto p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  return "";
}

/// The bytes of a constant global, as laid out in memory.
bool globalBytes(memref::GlobalOp g, std::vector<char> &out) {
  Attribute value = g.getInitialValue().value_or(Attribute());
  MemRefType t = g.getType();
  int64_t elemBytes = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
  int64_t bytes = t.getNumElements() * elemBytes;
  if (auto r = dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = r.getRawHandle().getBlob();
    if (!blob || (int64_t)blob->getData().size() != bytes)
      return false;
    out.assign(blob->getData().begin(), blob->getData().end());
    return true;
  }
  auto d = dyn_cast_or_null<DenseElementsAttr>(value);
  if (!d)
    return false;
  out.assign(bytes, 0);
  if (d.getElementType().isInteger(1)) { // bit-packed in the attribute
    int64_t i = 0;
    for (bool b : d.getValues<bool>())
      out[i++] = b;
  } else if (d.isSplat()) {
    ArrayRef<char> one = d.getRawData();
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      std::copy(one.begin(), one.begin() + elemBytes, out.begin() + i * elemBytes);
  } else {
    ArrayRef<char> raw = d.getRawData();
    if ((int64_t)raw.size() != bytes)
      return false;
    std::copy(raw.begin(), raw.end(), out.begin());
  }
  return true;
}

/// Which of the entry's arguments `arg` is: inputs, outputs, arena, weights.
LaunchArg bufferArg(BlockArgument arg, size_t ni, size_t no) {
  size_t i = arg.getArgNumber();
  if (i < ni)
    return {"input", (int)i, 0};
  if (i < ni + no)
    return {"output", (int)(i - ni), 0};
  return {i == ni + no ? "arena" : "weights", 0, 0};
}

/// The buffer and byte offset a memref of the entry points into, through
/// memref.view (a byte shift of the arena or weights) and the views after
/// it, whose offsets are in the final type. False if not static.
bool resolveBuffer(Value v, Block &entry, size_t ni, size_t no, LaunchArg &out) {
  auto type = cast<MemRefType>(v.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(getStridesAndOffset(type, strides, offset)) || ShapedType::isDynamic(offset))
    return false;
  int64_t shift = 0;
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &entry)
        return false;
      out = bufferArg(arg, ni, no);
      out.value = shift + offset * (type.getElementTypeBitWidth() / 8);
      return true;
    }
    Operation *def = v.getDefiningOp();
    if (auto view = dyn_cast_or_null<memref::ViewOp>(def)) {
      std::optional<int64_t> s = getConstantIntValue(view.getByteShift());
      if (!s)
        return false;
      shift += *s;
      v = view.getSource();
    } else if (auto viewLike = dyn_cast_or_null<ViewLikeOpInterface>(def)) {
      v = viewLike.getViewSource();
    } else if (isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(def)) {
      v = def->getOperand(0);
    } else {
      return false;
    }
  }
}

/// Whether the GEMM kernels are built with Hopper's wgmma: sm_90 is the
/// H100 and H200, whose sm_90a features the GEMM image is compiled for.
bool usesWgmma(const std::string &chip) { return chip == "sm_90" || chip == "sm_90a"; }

/// The GEMM kernels of runtime/kernels/gemm_tc.cu and gemm_wgmma.cuh.
enum class GemmKernel { Wmma, MmaSync, Wgmma };

/// Dynamic shared memory of the GEMM kernels with `bm`-row tiles; must
/// match the kernels' layouts. dlc_gemm_wgmma* (wgmma): 4 stages of bm x
/// 32 swizzled and 32 x 136 floats, plus 1024 bytes to align the swizzle
/// (WGMMA_SHARED_BYTES). dlc_gemm_tf32* (mma.sync): 3 stages of bm x 36 and
/// 32 x 136 floats. dlc_gemm* (WMMA): two stages of A (bm x 32) and B (32 x
/// 128) tiles in the staged type, rows padded by 16 bytes, and 8 warps' 16
/// x 16 float staging tiles.
int64_t gemmSharedBytes(int64_t bm, const std::string &precision, GemmKernel kernel) {
  if (kernel == GemmKernel::Wgmma)
    return 4 * (bm * 128 + 32 * 136 * 4) + 1024;
  if (kernel == GemmKernel::MmaSync)
    return 3 * (bm * 36 + 32 * 136) * 4;
  int64_t staged = precision == "tf32" ? 4 : 2, pad = 16 / staged;
  return 2 * bm * (32 + pad) * staged + 2 * 32 * (128 + pad) * staged + 8 * 256 * 4;
}

/// How many ways a GEMM of `tiles` output tiles splits K over grid.z: to
/// about `blocksPerSM` blocks an SM of the chip, keeping 64 of K a block.
int64_t kSplits(int64_t tiles, int64_t blocksPerSM, const std::string &chip, int64_t k) {
  int64_t sms = llvm::StringRef(chip).starts_with("sm_9") ? 132 : 108;
  return std::clamp<int64_t>(blocksPerSM * sms / tiles, 1, std::max<int64_t>(1, k / 64));
}

/// dlc_gemm_zero's launch: C (`c`, M x N per image, C's strides in
/// `strides`' last three) = 0 before a GEMM that splits K and adds its
/// parts.
Launch zeroLaunch(const LaunchArg &c, int64_t m, int64_t n, int64_t images,
                  const std::vector<LaunchArg> &strides) {
  Launch z;
  z.image = 1;
  z.kernel = "dlc_gemm_zero";
  z.grid[0] = (m * n + 255) / 256, z.grid[1] = 1, z.grid[2] = images;
  z.block[0] = 256, z.block[1] = 1, z.block[2] = 1;
  z.args = {c, {"i64", 0, m}, {"i64", 0, n}, strides[6], strides[7], strides[8]};
  return z;
}

/// The kernel, grid, shared memory and trailing arguments (M, N, K, the
/// strides, splits, beta) of a tensor-core GEMM launch whose first three
/// arguments (A, B, C) `l` holds: `family` dlc_gemm (the GEMM kernels) or
/// dlc_conv (their implicit-GEMM twins, which take the same choice), and
/// `zero`, a launch zeroing C first, where the kernel overwrites C but
/// splits K.
void finishGemmLaunch(const std::string &family, int64_t m, int64_t n, int64_t k,
                      int64_t batches, const std::vector<LaunchArg> &strides, bool contiguousRows,
                      bool overwrite, const std::string &chip, const std::string &precision,
                      Launch &l, std::optional<Launch> &zero) {
  // tf32 with contiguous rows of A and B (every im2col GEMM and matmul
  // here) and M over 16: the mma.sync kernel, 4 warps, 128 x 128 tiles (64
  // x 128 where M is at most 64), or on Hopper the wgmma kernels. Otherwise
  // the WMMA kernel, with 64-row tiles where M is at most 64 (it ran MLP
  // and LeNet, M 1 to 16, faster).
  // Hopper, from single GEMMs storing C (as the conv GEMMs do after
  // dlc-fold-gemm-zero-init) timed on an H100 (test/cuda/gemm_kernels.cu:
  // ResNet-18, ResNet-50 and MobileNetV2 at batch 32): the 64 x 128 wgmma
  // tiles, two blocks an SM, were fastest or level on every shape but
  // these, where the 256 x 128 ones were: 7x7 maps (N at most 64) with M
  // and K of 512 or more (0.091 against 0.123 ms at 2048 x 49 x 512), and M
  // of 256 or more with K of 2048 or more (0.82 against 1.16 ms at
  // 4096^3). Against the mma.sync kernel they gained up to 30% (0.043
  // against 0.061 ms at 256 x 196 x 1024), and nearly half on
  // MobileNetV2's 7x7 maps (0.024 against 0.046 at 960 x 49 x 160). (An
  // earlier rule, from times adding into C, kept mma.sync for 128 to 1024
  // filters.)
  // The implicit-GEMM conv kernels (test/cuda/conv_kernels.cu, ResNet's
  // convs): their gather costs the wgmma kernels more than the mma.sync
  // one, which was fastest wherever there are 64 or more 128 x 128 tiles
  // and K is over 256 (batch 32: 0.11 against 0.12 ms at 256 filters on
  // 14x14, 0.19 against 0.20 at 512 on 7x7); with fewer tiles (batch 1),
  // M up to 96 or K up to 256, the 64 x 128 wgmma tiles were (0.016
  // against 0.024 ms at batch 1; 0.15 against 0.21 for a 1x1 stride-2 conv
  // of 256 channels).
  bool tensorRows = contiguousRows && m > 16;
  GemmKernel kernel = tensorRows ? GemmKernel::MmaSync : GemmKernel::Wmma;
  // A batch whose images share A (a conv's weights) runs folded into N on
  // the tf32 kernels (gemm_tc.cu, "Folded columns"): one GEMM over every
  // image's columns, where 128-wide tiles fit per image only as well as
  // the map's pixels allow (ResNet-50's 7x7 maps, 49 pixels, filled 38% of
  // each tile; 14x14 ones 77%) and K was split to find work for the SMs.
  // B's and C's images must lie within 2^31 floats (32-bit offsets).
  const int64_t sAb = strides[0].value, sBb = strides[3].value, sCb = strides[6].value;
  const int64_t images = batches; // what a split GEMM's zeroing walks
  int64_t cols = n;
  if (tensorRows && batches > 1 && sAb == 0 && sBb > 0 && sCb > 0 &&
      batches * std::max(sBb, sCb) < (int64_t(1) << 31))
    cols = batches * n, batches = 1;
  int64_t bm = m <= 64 ? 64 : 128;
  int64_t tiles128 = ((cols + 127) / 128) * ((m + 127) / 128) * batches;
  // Folded (test/cuda/folded_kernels.cu, ResNet-50's and MobileNetV2's
  // layers at batch 32 as the models run them, split K and tails
  // included): the 256 x 128 wgmma tiles won wherever K is 2048 or more
  // (ResNet-50's 3x3 convs of 256 and 512 filters: 0.106 and 0.102 ms
  // against 0.155 and 0.132 for mma.sync; 0.063 against 0.081 for the 64-row
  // tiles at 512 x 49 x 2048), the 64-row ones on 1x1 convs below that
  // (0.081 against 0.085 at 2048 x 49 x 512, where per image the 256-row
  // tiles had won) and on convs of few filters or short K, and mma.sync on
  // the convs between (0.116 against 0.125 for 128 filters on 28x28 maps,
  // 0.117 against 0.147 for the stride-2 1x1 conv of 1024 to 2048), but
  // for many filters over short K, where the 256-row tiles won again (the
  // stride-2 1x1 convs of 256 to 512 and 512 to 1024: 0.150 and 0.149 ms
  // against 0.178 for the 64-row tiles and 0.164 for mma.sync).
  bool folded = cols != n;
  if (tensorRows && usesWgmma(chip) && family == "dlc_conv") {
    if (folded && m >= 512 && k <= 512)
      kernel = GemmKernel::Wgmma, bm = 256;
    else if (m <= 96 || k <= 256 || (!folded && tiles128 < 64))
      kernel = GemmKernel::Wgmma, bm = 64;
    else if (folded && k >= 2048)
      kernel = GemmKernel::Wgmma, bm = 256;
  } else if (tensorRows && usesWgmma(chip)) {
    // Folded, 2048 filters or more also took the 256-row tiles (0.060
    // against 0.078 ms at 2048 x 49 x 512, batch 32).
    bool large = (!folded && n <= 64 && m >= 512 && k >= 512) || (m >= 256 && k >= 2048) ||
                 (folded && m >= 2048);
    kernel = GemmKernel::Wgmma, bm = large ? 256 : 64;
  }
  // Split K over more blocks where the tiles alone would leave SMs idle
  // (batch-1 ResNet's last layers: M 512, N 49, K 4608 is 4 tiles), aiming
  // at two blocks per SM and keeping 64 of K per block. Folded, the
  // 256-row wgmma tiles (one block an SM) aim at one: half the splits ran
  // ResNet-50's 7x7 layers 10-20% faster at batch 32 (0.088 against 0.099
  // ms for its 3x3 conv, 0.049 against 0.061 for 512 x 49 x 2048), and
  // its 3x3 convs on 14x14 maps 4% slower.
  int64_t tilesMN = ((cols + 127) / 128) * ((m + bm - 1) / bm) * batches;
  int64_t blocksPerSM = folded && kernel == GemmKernel::Wgmma && bm == 256 ? 1 : 2;
  int64_t splits = kSplits(tilesMN, blocksPerSM, chip, k);
  l.image = 1;
  l.kernel = family +
             (kernel == GemmKernel::Wgmma     ? "_wgmma"
              : kernel == GemmKernel::MmaSync ? "_tf32"
                                              : "") +
             (bm == 64 ? "_m64" : "");
  l.grid[0] = (cols + 127) / 128, l.grid[1] = (m + bm - 1) / bm, l.grid[2] = batches * splits;
  l.block[0] = kernel == GemmKernel::MmaSync ? 128 : 256, l.block[1] = 1, l.block[2] = 1;
  l.sharedBytes = gemmSharedBytes(bm, precision, kernel);
  for (int64_t v : {m, cols, k})
    l.args.push_back({"i64", 0, v});
  l.args.insert(l.args.end(), strides.begin(), strides.end());
  l.args.push_back({"i64", 0, splits});
  l.args.push_back({"i64", 0, overwrite ? 0 : 1}); // beta
  l.args.push_back({"i64", 0, n});                 // P: columns an image
  if (overwrite && splits > 1)
    zero = zeroLaunch(l.args[2], m, n, images, strides);
}

/// A tensor map over `rows` rows of `inner` floats, `rowFloats` apart, in
/// boxes of 32 by `boxRows` (the TMA kernels' K steps of a [rows, K]
/// operand), and the launch argument that passes it.
LaunchArg rowsMap(CudaProgram &program, const LaunchArg &buffer, int64_t inner, int64_t rows,
                  int64_t rowFloats, int64_t boxRows) {
  program.tensorMaps.push_back(
      TensorMap{buffer, 2, {inner, rows}, {rowFloats * 4}, {32, boxRows}, {1, 1}});
  return LaunchArg{"tensor_map", (int)program.tensorMaps.size() - 1, 0};
}

/// dlc_gemm_tma's launch (runtime/kernels/gemm_tma.cuh) for a large single
/// GEMM on Hopper in tf32, with `before` transposing B into the scratch
/// after the arena where B is row-major (the kernel takes both operands
/// K-major); false (nothing added) where the GEMM does not qualify. Measured
/// on an H100 (test/cuda/gemm_tma.cu), transposing included, it beat
/// dlc_gemm_wgmma on every shape tried, 300 x 700 x 132 to 4096^3 (0.40
/// against 0.83 ms there); it has no split K nor fused tail, so it takes
/// GEMMs with M and N of 256 and more (the caller: plain matmuls only).
/// TMA wants 16-byte aligned rows.
bool tmaGemmLaunch(int64_t m, int64_t n, int64_t k, int64_t batches,
                   const std::vector<LaunchArg> &strides, bool overwrite, CudaProgram &program,
                   Launch &l, std::optional<Launch> &before) {
  auto aligned = [](int64_t elements) { return elements * 4 % 16 == 0; };
  const LaunchArg &a = l.args[0], &b = l.args[1];
  int64_t sAm = strides[1].value, sAk = strides[2].value, sBk = strides[4].value,
          sBn = strides[5].value, sCm = strides[7].value, sCn = strides[8].value;
  bool kMajorB = sBk == 1 && aligned(sBn), rowMajorB = sBn == 1 && n > 1;
  if (batches != 1 || m < 256 || n < 256 || sAk != 1 || !aligned(sAm) || a.value % 16 ||
      b.value % 16 || sCn != 1 || !(kMajorB || rowMajorB))
    return false;
  auto map = [&](const LaunchArg &buffer, int64_t rows, int64_t rowFloats, int64_t boxRows) {
    return rowsMap(program, buffer, k, rows, rowFloats, boxRows);
  };
  LaunchArg bt = b;
  int64_t ldt = sBn;
  if (!kMajorB) {
    // B^T, rows of K rounded up to 4 floats, at the start of the scratch.
    ldt = (k + 3) / 4 * 4;
    bt = {"arena", 0, (program.arenaBytes + 255) / 256 * 256};
    program.scratchBytes = std::max(program.scratchBytes, n * ldt * 4);
    Launch t;
    t.image = 1;
    t.kernel = "dlc_transpose";
    t.grid[0] = (n + 31) / 32, t.grid[1] = (k + 31) / 32, t.grid[2] = 1;
    t.block[0] = 32, t.block[1] = 8, t.block[2] = 1;
    t.args = {b, bt, {"i64", 0, k}, {"i64", 0, n}, {"i64", 0, sBk}, {"i64", 0, ldt}};
    before = std::move(t);
  }
  LaunchArg mapA = map(a, m, sAm, 128), mapB = map(bt, n, ldt, 256);
  l.image = 1;
  l.kernel = "dlc_gemm_tma";
  l.grid[0] = (n + 255) / 256, l.grid[1] = (m + 127) / 128, l.grid[2] = 1;
  l.block[0] = 384, l.block[1] = 1, l.block[2] = 1;
  // 4 stages of 128 x 32 and 256 x 32 floats, 1024 bytes to align them,
  // 8 barriers (TMA_SHARED_BYTES).
  l.sharedBytes = 4 * (128 + 256) * 32 * 4 + 1024 + 8 * 8;
  l.args[1] = bt;
  for (int64_t v : {m, n, k})
    l.args.push_back({"i64", 0, v});
  auto i64 = [](int64_t v) { return LaunchArg{"i64", 0, v}; };
  std::vector<LaunchArg> rest = {strides[0], strides[1], strides[2], i64(0),
                                 i64(1),     i64(ldt),   strides[6], i64(sCm),
                                 i64(1),     i64(1),     i64(overwrite ? 0 : 1), i64(n),
                                 mapA,       mapB};
  l.args.insert(l.args.end(), rest.begin(), rest.end());
  return true;
}

/// The tensor-core GEMM's launch for a contraction MapToGpu left in the
/// entry (dlc.library_gemm): C[b] += A[b] * B[b] with every stride, or C[b] =
/// (dlc.gemm_overwrite), in which case a GEMM that splits K gets `before`, a
/// launch zeroing C before it (or, for dlc_gemm_tma, transposing B).
bool gemmLaunch(linalg::LinalgOp op, Block &entry, size_t ni, size_t no,
                const std::string &chip, const std::string &precision, CudaProgram &program,
                Launch &l, std::optional<Launch> &before, std::string &error) {
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  if (failed(dims)) {
    error = "internal error: a library GEMM is not a contraction";
    return false;
  }
  // The batch loop: a true batch dim, or the outer of two N-like dims (the
  // images of a conv's im2col GEMM, which A, the weights, does not index).
  std::optional<unsigned> batch = !dims->batch.empty()  ? std::optional<unsigned>(dims->batch[0])
                                  : dims->n.size() == 2 ? std::optional<unsigned>(dims->n[0])
                                                        : std::nullopt;
  dims->n.assign({dims->n.back()});
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t m = ranges[dims->m[0]], n = ranges[dims->n[0]], k = ranges[dims->k[0]];
  int64_t batches = batch ? ranges[*batch] : 1;
  std::vector<LaunchArg> strides;
  // Operands in the kernel's order A (m, k), B (k, n), C (m, n); each
  // loop dim's element stride in it, 0 where the operand does not vary.
  unsigned order[3][3] = {{dims->m[0], dims->k[0], 0}, {dims->k[0], dims->n[0], 0},
                          {dims->m[0], dims->n[0], 0}};
  for (int o = 0; o < 3; ++o) {
    OpOperand &operand = op->getOpOperand(o);
    LaunchArg buffer;
    if (!resolveBuffer(operand.get(), entry, ni, no, buffer)) {
      error = "internal error: a library GEMM operand is not a static view of a buffer";
      return false;
    }
    l.args.push_back(buffer);
    auto type = cast<MemRefType>(operand.get().getType());
    int64_t offset;
    SmallVector<int64_t> memStrides;
    (void)getStridesAndOffset(type, memStrides, offset);
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto strideOf = [&](std::optional<unsigned> dim) {
      int64_t s = 0;
      for (auto [r, e] : llvm::enumerate(map.getResults()))
        if (dim && isa<AffineDimExpr>(e) && cast<AffineDimExpr>(e).getPosition() == *dim)
          s += memStrides[r];
      return s;
    };
    strides.push_back({"i64", 0, strideOf(batch)});
    strides.push_back({"i64", 0, strideOf(order[o][0])});
    strides.push_back({"i64", 0, strideOf(order[o][1])});
  }
  // strides: (b, m, k) of A, (b, k, n) of B, (b, m, n) of C.
  bool overwrite = op->hasAttr(dlc::kGemmOverwriteAttr);
  // Plain matmuls only (no batch dim): the convs' GEMMs keep the kernels
  // and rule measured on them, and their fused tails.
  if (precision == "tf32" && usesWgmma(chip) && !batch &&
      tmaGemmLaunch(m, n, k, batches, strides, overwrite, program, l, before))
    return true;
  bool unitInnerStrides = strides[2].value == 1 && strides[5].value == 1;
  finishGemmLaunch("dlc_gemm", m, n, k, batches, strides, precision == "tf32" && unitInnerStrides,
                   overwrite, chip, precision, l, before);
  return true;
}

/// The box of output pixels, bw x bh x bi (columns, rows, images), that
/// dlc_conv_tma (runtime/kernels/conv_tma.cuh) fills its 256-pixel tiles
/// with: a multiple of 8 pixels (each box on a whole swizzle period), at
/// most 256, spanning at most 256 input columns and rows at strides sw and
/// sh, wasting least of the tiles; then the fewest boxes a tile (TMA
/// copies); then the widest (runs of C stored whole). `tiles` is how many
/// tiles cover the output. ResNet-50 at batch 32: 56x56 at 8 x 1 x 32,
/// 28x28 at 4 x 2 x 32, 14x14 at 2 x 2 x 32, 7x7 at 7 x 1 x 32 (224 of 256:
/// 7 has no factor of 2). test/cuda/folded_kernels.cu repeats the rule.
void convTmaBox(int64_t oh, int64_t ow, int64_t images, int64_t sh, int64_t sw, int64_t box[3],
                int64_t &tiles) {
  double best = -1;
  for (int64_t bw = 1; bw <= std::min<int64_t>(ow, 256 / sw); ++bw)
    for (int64_t bh = 1; bh <= std::min<int64_t>(oh, std::min(256 / bw, 256 / sh)); ++bh)
      for (int64_t bi = 1; bi <= std::min<int64_t>(images, 256 / (bw * bh)); ++bi) {
        int64_t r = bw * bh * bi;
        if (r % 8)
          continue;
        int64_t boxes = ((ow + bw - 1) / bw) * ((oh + bh - 1) / bh) * ((images + bi - 1) / bi);
        int64_t t = (boxes + 256 / r - 1) / (256 / r);
        double score = (double)(ow * oh * images) / (t * 256) + r * 1e-6 + bw * 1e-9;
        if (score > best)
          best = score, box[0] = bw, box[1] = bh, box[2] = bi, tiles = t;
      }
}

/// dlc_conv_tma's launch for a conv on Hopper in tf32 (ResNet's 3x3 and
/// strided 1x1 convs), with `toNhwc` writing its input channels-last
/// into the scratch after the arena first (dlc_to_nhwc; a strided 1x1
/// conv's subsampled, so that it runs at stride 1), and `zero` where it
/// overwrites C but splits K; false (nothing set) where the conv does not
/// qualify. `a`, `x`, `c`: the filter, input and output buffers; `sOut` the
/// output's strides.
/// Measured on an H100 (test/cuda/folded_kernels.cu, batch 32, BatchNorm, a
/// residual and ReLU fused, the input's copy included) against the kernel
/// finishGemmLaunch picks, in ms:
/// - ResNet-50's 3x3 convs: 128 filters on 28x28 0.059 against 0.117, 256
///   on 14x14 0.075 against 0.100, 512 on 7x7 0.053 against 0.083; 64 on
///   56x56 0.134 against 0.124 on 128-row tiles (half of each idle), 0.104
///   on 64-row ones (dlc_conv_tma_m64, taken for 64 filters or fewer);
/// - its 3x3 stride-2 convs: 128 on 56x56 0.114 against 0.146 (in the
///   model), 256 on 28x28 0.102 against 0.115, 512 on 14x14 0.063 against
///   0.093;
/// - its strided 1x1 convs: 512 to 1024 channels 0.124 against 0.157, 1024
///   to 2048 0.058 against 0.138; 256 to 512 0.166 against 0.158, its 8 K
///   steps too few for the tile's fill and store: hence K of 512 or more.
/// K is split as for the 256-row wgmma tiles (one block an SM). Only for
/// batches of 8 or more: measured at 32, while batch 1 keeps the kernels
/// and rule tuned on it.
bool convTmaLaunch(dlc::ConvGemmOp conv, const LaunchArg &a, const LaunchArg &x,
                   const LaunchArg &c, ArrayRef<int64_t> sOut, const std::string &chip,
                   CudaProgram &program, Launch &l, std::optional<Launch> &toNhwc,
                   std::optional<Launch> &zero) {
  MemRefType in = conv.getInput().getType(), w = conv.getFilter().getType();
  int64_t m = w.getDimSize(0), k = w.getDimSize(1), images = in.getDimSize(0),
          ch = in.getDimSize(1), h = in.getDimSize(2), wd = in.getDimSize(3);
  ArrayRef<int64_t> ks = conv.getKernelSize(), st = conv.getStrides(), pad = conv.getPadding(),
                    dil = conv.getDilations(), outSize = conv.getOutputSize();
  int64_t oh = outSize[0], ow = outSize[1];
  // A strided 1x1 conv without padding reads every st-th pixel: the copy
  // takes only those, and the conv runs at stride 1 on the output's grid.
  bool subsample = ks[0] == 1 && ks[1] == 1 && pad[0] == 0 && pad[1] == 0;
  int64_t xh = subsample ? oh : h, xw = subsample ? ow : wd, sh = subsample ? 1 : st[0],
          sw = subsample ? 1 : st[1], pixels = images * ch * xh * xw;
  // 32 channels a K step (one tap); 32-bit column offsets; TMA's 16-byte
  // aligned rows (the filter's, a multiple of 4 floats with ch) and element
  // strides up to 8.
  if (!usesWgmma(chip) || images < 8 || ch % 32 || a.value % 16 || sh > 8 || sw > 8 ||
      (subsample && k < 512) ||
      images * sOut[0] >= (int64_t(1) << 31) || pixels >= (int64_t(1) << 31) ||
      k != ks[0] * ks[1] * ch)
    return false;
  int64_t box[3], tiles = 0;
  convTmaBox(oh, ow, images, sh, sw, box, tiles);
  auto i64 = [](int64_t v) { return LaunchArg{"i64", 0, v}; };
  // The NHWC input at the start of the scratch.
  LaunchArg xt = {"arena", 0, (program.arenaBytes + 255) / 256 * 256};
  program.scratchBytes = std::max(program.scratchBytes, pixels * 4);
  Launch t;
  t.image = 1;
  t.kernel = "dlc_to_nhwc";
  t.grid[0] = (xh * xw + 31) / 32, t.grid[1] = (ch + 31) / 32, t.grid[2] = images;
  t.block[0] = 32, t.block[1] = 8, t.block[2] = 1;
  t.args = {x,       xt,      i64(ch),          i64(h),          i64(wd),
            i64(xh), i64(xw), i64(st[0] / sh), i64(st[1] / sw)};
  toNhwc = std::move(t);
  // The NHWC input as [images, xh, xw, ch], dims[0] innermost.
  program.tensorMaps.push_back(TensorMap{xt,
                                         4,
                                         {ch, xw, xh, images},
                                         {ch * 4, xw * ch * 4, xh * xw * ch * 4},
                                         {32, box[0] * sw, box[1] * sh, box[2]},
                                         {1, sw, sh, 1}});
  LaunchArg mapX{"tensor_map", (int)program.tensorMaps.size() - 1, 0};
  const int64_t tm = m <= 64 ? 64 : 128; // the tile's rows (filters)
  LaunchArg mapA = rowsMap(program, a, k, m, k, tm);
  int64_t tilesMN = tiles * ((m + tm - 1) / tm);
  int64_t splits = kSplits(tilesMN, 1, chip, k);
  l.image = 1;
  l.kernel = tm == 64 ? "dlc_conv_tma_m64" : "dlc_conv_tma";
  l.grid[0] = tiles, l.grid[1] = (m + tm - 1) / tm, l.grid[2] = splits;
  l.block[0] = 384, l.block[1] = 1, l.block[2] = 1;
  // 4 stages of tm x 32 and 256 x 32 floats, 1024 bytes to align them, 8
  // barriers, then 256 column offsets (CONV_TMA_SHARED_BYTES_TM).
  l.sharedBytes = 4 * (tm + 256) * 32 * 4 + 1024 + 8 * 8 + 256 * 4;
  // The GEMM arguments as the other kernels take them (A, B, C, M, N, K,
  // the strides of A, B and C, splits, beta, P), then the conv's.
  std::vector<LaunchArg> strides3 = {i64(0), i64(k), i64(1), i64(0), i64(0), i64(0),
                                     i64(sOut[0]), i64(sOut[1]), i64(1)};
  l.args = {a, xt, c, i64(m), i64(images * oh * ow), i64(k)};
  l.args.insert(l.args.end(), strides3.begin(), strides3.end());
  bool overwrite = conv.getOverwrite();
  int64_t ph = subsample ? 0 : pad[0], pw = subsample ? 0 : pad[1];
  for (int64_t v : {splits, overwrite ? int64_t(0) : int64_t(1), oh * ow, ch, ks[1], sh, sw, ph,
                    pw, dil[0], dil[1], oh, ow, images, box[0], box[1], box[2]})
    l.args.push_back(i64(v));
  l.args.push_back(mapA);
  l.args.push_back(mapX);
  if (overwrite && splits > 1)
    zero = zeroLaunch(c, m, oh * ow, images, strides3);
  return true;
}

/// The conv kernels' launch for a dlc.conv_gemm (dlc-implicit-gemm): the
/// GEMM of its filter (A) and the input's implicit columns (B) into its
/// output (C), the conv's geometry after the GEMM's arguments.
bool convGemmLaunch(dlc::ConvGemmOp conv, Block &entry, size_t ni, size_t no,
                    const std::string &chip, const std::string &precision, CudaProgram &program,
                    Launch &l, std::optional<Launch> &toNhwc, std::optional<Launch> &zero,
                    std::string &error) {
  MemRefType in = conv.getInput().getType(), w = conv.getFilter().getType(),
             out = conv.getOutput().getType();
  int64_t m = w.getDimSize(0), k = w.getDimSize(1), n = out.getDimSize(2);
  int64_t batches = in.getDimSize(0), c = in.getDimSize(1), h = in.getDimSize(2),
          wd = in.getDimSize(3);
  if (precision != "tf32" || m <= 16) {
    error = "internal error: a dlc.conv_gemm the tf32 conv kernels cannot run";
    return false;
  }
  // Each operand's buffer and element strides (empty if not static).
  auto resolve = [&](Value v, LaunchArg &buffer) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!resolveBuffer(v, entry, ni, no, buffer) ||
        failed(getStridesAndOffset(cast<MemRefType>(v.getType()), strides, offset)))
      strides.clear();
    return strides;
  };
  LaunchArg inBuf, wBuf, outBuf;
  SmallVector<int64_t> sIn = resolve(conv.getInput(), inBuf), sW = resolve(conv.getFilter(), wBuf),
                       sOut = resolve(conv.getOutput(), outBuf);
  // The kernels index the input as contiguous [C, H, W] planes and need
  // unit inner strides in A (k) and C (pixels).
  if (sIn.size() != 4 || sIn[3] != 1 || sIn[2] != wd || sIn[1] != h * wd || sW.size() != 2 ||
      sW[1] != 1 || sOut.size() != 3 || sOut[2] != 1) {
    error = "internal error: a dlc.conv_gemm operand is not a static contiguous view of a buffer";
    return false;
  }
  if (convTmaLaunch(conv, wBuf, inBuf, outBuf, sOut, chip, program, l, toNhwc, zero))
    return true;
  l.args = {wBuf, inBuf, outBuf};
  auto i64 = [](int64_t v) { return LaunchArg{"i64", 0, v}; };
  // A (b, m, k), B (b, k, n) (only the image stride is read), C (b, m, n).
  std::vector<LaunchArg> strides = {i64(0),      i64(sW[0]),   i64(1),       i64(sIn[0]), i64(0),
             i64(1),      i64(sOut[0]), i64(sOut[1]), i64(1)};
  finishGemmLaunch("dlc_conv", m, n, k, batches, strides, /*tensorRows=*/true,
                   conv.getOverwrite(), chip, precision, l, zero);
  ArrayRef<int64_t> ks = conv.getKernelSize(), st = conv.getStrides(),
                    pad = conv.getPadding(), dil = conv.getDilations();
  for (int64_t v : {h, wd, c, ks[1], st[0], st[1], pad[0], pad[1], dil[0], dil[1],
                    conv.getOutputSize()[1]})
    l.args.push_back(i64(v));
  return true;
}

/// The GEMM kernels' epilogue arguments (DLC_EPILOGUE_PARAMS in
/// runtime/kernels/gemm_tc.cu) for the elementwise op `e` that
/// dlc-fuse-gemm-epilogue marked: its row vectors and residual (null
/// pointers where absent), the activation and its clamp's bounds (a
/// float's bits).
bool epilogueArgs(linalg::GenericOp e, Block &entry, size_t ni, size_t no,
                  std::vector<LaunchArg> &args, std::string &error) {
  auto parts = e->getAttrOfType<DictionaryAttr>(dlc::kGemmEpilogueAttr);
  if (!parts) {
    error = "internal error: a GEMM epilogue's parts are not a dictionary";
    return false;
  }
  for (const char *name : {"scale", "shift", "residual", "residual_scale", "residual_shift"}) {
    auto index = parts.getAs<IntegerAttr>(name);
    LaunchArg a{"i64", 0, 0}; // a null pointer
    if (index && (index.getInt() < 0 || index.getInt() >= e.getNumDpsInputs() ||
                  !resolveBuffer(e.getDpsInputs()[index.getInt()], entry, ni, no, a))) {
      error = "internal error: a GEMM epilogue operand is not a static view of a buffer";
      return false;
    }
    args.push_back(a);
  }
  auto act = parts.getAs<IntegerAttr>("act");
  args.push_back({"i64", 0, act ? act.getInt() : 0});
  for (const char *bound : {"lo", "hi"}) {
    auto v = parts.getAs<FloatAttr>(bound);
    args.push_back(
        {"i64", 0, v ? (int64_t)llvm::bit_cast<uint32_t>((float)v.getValueAsDouble()) : 0});
  }
  return true;
}

/// Runs `epilogue` (the elementwise op after GEMM launch `gemm`, marked by
/// dlc-fuse-gemm-epilogue) in the GEMM kernel: its _ep twin stores into the
/// op's output (same layout as C: the pass checked) through the epilogue.
/// The WMMA kernel has none, and a GEMM that splits K has only partial
/// sums in its store: then the GEMM keeps its own output and
/// dlc_gemm_epilogue applies the tail after it, over C's M x N per batch.
bool addEpilogue(linalg::GenericOp epilogue, Block &entry, size_t ni, size_t no, Launch &gemm,
                 std::optional<Launch> &after, std::string &error) {
  LaunchArg y;
  if (!resolveBuffer(epilogue.getDpsInits()[0], entry, ni, no, y)) {
    error = "internal error: a GEMM epilogue's output is not a static view of a buffer";
    return false;
  }
  // gemm.args: A, B, C, M, N, K, the strides of A, B and C (b, m, k / b, k,
  // n / b, m, n), splits, beta, P (columns an image: N / P images folded
  // into N)[, the conv's geometry].
  const std::vector<LaunchArg> &g = gemm.args;
  llvm::StringRef kernel = gemm.kernel;
  bool hasTwin =
      kernel.contains("_tf32") || kernel.contains("_wgmma") || kernel.starts_with("dlc_conv_tma");
  if (hasTwin && g[15].value == 1 && g[16].value == 0) {
    gemm.kernel += "_ep";
    gemm.args[2] = y;
    return epilogueArgs(epilogue, entry, ni, no, gemm.args, error);
  }
  Launch e;
  e.image = 1;
  e.kernel = "dlc_gemm_epilogue";
  int64_t m = g[3].value, n = g[17].value,
          batches = gemm.grid[2] / g[15].value * (g[4].value / n);
  e.grid[0] = (m * n + 255) / 256, e.grid[1] = 1, e.grid[2] = batches;
  e.block[0] = 256, e.block[1] = 1, e.block[2] = 1;
  e.args = {g[2], y, g[3], {"i64", 0, n}, g[12], g[13], g[14]};
  if (!epilogueArgs(epilogue, entry, ni, no, e.args, error))
    return false;
  after = std::move(e);
  return true;
}

/// Runs the CUDA pipeline and reads the kernels, the launch list and the
/// weights off the result.
bool lowerForCuda(ModuleOp module, const dlc::ImportedModel &model,
                  const dlc::CompileOptions &opts, CudaProgram &out, std::string &error) {
  MLIRContext *ctx = module.getContext();
  // 32-bit index arithmetic in kernels where every buffer (arena, weights,
  // each input and output) is under 2 GiB: known after planning, so the
  // pipeline runs on a copy and again at 64 bits if one is not.
  OwningOpRef<ModuleOp> original = module.clone();
  auto run = [&](ModuleOp m, unsigned indexBits) {
    FirstDiagnostic first(ctx);
    PassManager pm(ctx);
    if (opts.printIrAfterAll) {
      ctx->disableMultithreading();
      pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                          [](Pass *, Operation *) { return true; },
                          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    }
    dlc::buildCudaPipeline(pm, {opts.target.cpu, 256, cudaToolkit(), opts.precision != "fp32",
                                indexBits, /*implicitGemm=*/opts.precision == "tf32"});
    if (failed(pm.run(m))) {
      error = "compilation failed: " + (first.text.empty() ? "pass pipeline failed" : first.text);
      return false;
    }
    return true;
  };
  if (!run(module, 32))
    return false;
  auto main = module.lookupSymbol<func::FuncOp>("main");
  bool large = !main;
  for (BlockArgument a : main ? main.getArguments() : ArrayRef<BlockArgument>()) {
    auto t = dyn_cast<MemRefType>(a.getType());
    large |= !t || t.getNumElements() * (t.getElementTypeBitWidth() / 8) >= (int64_t(1) << 31);
  }
  if (large) {
    module.getBody()->clear();
    module.getBody()->getOperations().splice(module.getBody()->end(),
                                             original->getBody()->getOperations());
    if (!run(module, 64))
      return false;
    main = module.lookupSymbol<func::FuncOp>("main");
  }
  auto binary = module.lookupSymbol<gpu::BinaryOp>("dlc_kernels");
  size_t ni = model.inputs.size(), no = model.outputs.size();
  if (!main || main.getNumArguments() != ni + no + 2) {
    error = "internal error: the CUDA pipeline's entry does not take inputs, outputs, arena "
            "and weights";
    return false;
  }
  auto intAttr = [&](const char *name) -> int64_t {
    auto a = main->getAttrOfType<IntegerAttr>(name);
    return a ? a.getInt() : 0;
  };
  out.arenaBytes = intAttr("dlc.arena_bytes");
  out.lowerBound = intAttr("dlc.arena_lower_bound");
  out.buffers = intAttr("dlc.arena_buffers");
  out.weightsBytes = intAttr("dlc.weights_bytes");
  if (binary) {
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    out.ptx = object.getObject().getValue().str();
    while (!out.ptx.empty() && out.ptx.back() == '\0')
      out.ptx.pop_back();
  } else {
    // No generated kernels (a model of GEMMs alone): an empty module, which
    // ptxas and the driver take like any other.
    out.ptx = "// dlc: no generated kernels\n.version 8.0\n.target " + opts.target.cpu +
              "\n.address_size 64\n";
  }
  Block &entry = main.getBody().front();
  Operation *fusedEpilogue = nullptr;
  for (Operation &op : entry) {
    if (isa<func::ReturnOp>(op) || isMemoryEffectFree(&op))
      continue;
    if (op.hasAttr(dlc::kGemmEpilogueAttr)) {
      if (&op == fusedEpilogue)
        continue; // launched with its GEMM
      error = "internal error: a GEMM epilogue does not follow its GEMM";
      return false;
    }
    auto conv = dyn_cast<dlc::ConvGemmOp>(op);
    if (conv || op.hasAttr("dlc.library_gemm")) {
      Launch l;
      std::optional<Launch> toNhwc, zero, after;
      if (conv ? !convGemmLaunch(conv, entry, ni, no, opts.target.cpu, opts.precision, out, l,
                                 toNhwc, zero, error)
               : !gemmLaunch(cast<linalg::LinalgOp>(op), entry, ni, no, opts.target.cpu,
                             opts.precision, out, l, zero, error))
        return false;
      // dlc-fuse-gemm-epilogue's mark is on the next op touching memory.
      Operation *next = op.getNextNode();
      while (next && !dlc::touchesData(next))
        next = next->getNextNode();
      auto epilogue = dyn_cast_or_null<linalg::GenericOp>(next);
      if (epilogue && epilogue->hasAttr(dlc::kGemmEpilogueAttr)) {
        fusedEpilogue = epilogue;
        if (!addEpilogue(epilogue, entry, ni, no, l, after, error))
          return false;
      }
      if (toNhwc)
        out.launches.push_back(std::move(*toNhwc));
      if (zero)
        out.launches.push_back(std::move(*zero));
      out.launches.push_back(std::move(l));
      if (after)
        out.launches.push_back(std::move(*after));
      out.usesGemm = true;
      continue;
    }
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch) {
      error = "internal error: host op '" + op.getName().getStringRef().str() +
              "' left in the CUDA entry";
      return false;
    }
    Launch l;
    l.kernel = launch.getKernelName().str();
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues(),
                    block = launch.getBlockSizeOperandValues();
    Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    for (int i = 0; i < 6; ++i) {
      std::optional<int64_t> v = getConstantIntValue(dims[i]);
      if (!v) {
        error = "internal error: kernel " + l.kernel + " has a dynamic launch size";
        return false;
      }
      (i < 3 ? l.grid[i] : l.block[i - 3]) = *v;
    }
    for (Value a : launch.getKernelOperands()) {
      auto arg = dyn_cast<BlockArgument>(a);
      if (!arg || arg.getOwner() != &main.getBody().front()) {
        error = "internal error: kernel " + l.kernel + " takes a value that is not a buffer";
        return false;
      }
      l.args.push_back(bufferArg(arg, ni, no));
    }
    out.launches.push_back(std::move(l));
  }
  // The TMA kernels' operand scratch (tmaGemmLaunch, convTmaLaunch) after
  // the plan.
  if (out.scratchBytes)
    out.arenaBytes = (out.arenaBytes + 255) / 256 * 256 + out.scratchBytes;
  out.weights.assign(out.weightsBytes, 0);
  for (auto g : module.getOps<memref::GlobalOp>()) {
    auto offset = g->getAttrOfType<IntegerAttr>("dlc.weights_offset");
    if (!offset)
      continue;
    std::vector<char> bytes;
    if (!globalBytes(g, bytes)) {
      error = "cannot lay out the weight '" + g.getSymName().str() + "' for the GPU";
      return false;
    }
    std::copy(bytes.begin(), bytes.end(), out.weights.begin() + offset.getInt());
  }
  return true;
}

nlohmann::json planJson(const CudaProgram &p, const dlc::CompileOptions &opts) {
  nlohmann::json launches = nlohmann::json::array();
  for (const Launch &l : p.launches) {
    nlohmann::json args = nlohmann::json::array();
    auto buffer = [](const LaunchArg &a) {
      return nlohmann::json{{"buffer", a.kind}, {"index", a.index}, {"byte_offset", a.value}};
    };
    for (const LaunchArg &a : l.args) {
      if (a.kind == "i64") {
        args.push_back({{"i64", a.value}});
      } else if (a.kind == "tensor_map") {
        // cuTensorMapEncodeTiled's arguments, the data type TFLOAT32.
        const TensorMap &t = p.tensorMaps[a.index];
        nlohmann::json map = buffer(t.buffer);
        map["dims"] = std::vector<int64_t>(t.dims, t.dims + t.rank);
        map["strides_bytes"] = std::vector<int64_t>(t.strides, t.strides + t.rank - 1);
        map["box"] = std::vector<int64_t>(t.box, t.box + t.rank);
        map["element_strides"] =
            std::vector<int64_t>(t.elementStrides, t.elementStrides + t.rank);
        map["swizzle_bytes"] = 128;
        map["data_type"] = "tf32";
        args.push_back({{"tensor_map", map}});
      } else {
        args.push_back(buffer(a));
      }
    }
    launches.push_back({{"image", l.image},
                        {"kernel", l.kernel},
                        {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                        {"block", {l.block[0], l.block[1], l.block[2]}},
                        {"shared_bytes", l.sharedBytes},
                        {"args", args}});
  }
  return {{"target", opts.target.name},
          {"chip", opts.target.cpu},
          {"precision", opts.precision},
          {"memory_plan",
           {{"arena_bytes", p.arenaBytes},
            {"scratch_bytes", p.scratchBytes},
            {"lower_bound_bytes", p.lowerBound},
            {"buffers", p.buffers},
            {"weights_bytes", p.weightsBytes},
            {"alignment", 64}}},
          {"launches", launches}};
}

/// ptxas: PTX -> cubin for the target chip.
bool assemble(const std::string &dir, const std::string &ptx, const std::string &chip,
              std::string &cubin, std::string &error) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    error = "no ptxas found (set CUDA_HOME to a CUDA toolkit)";
    return false;
  }
  std::string in = dir + "/kernels.ptx", outPath = dir + "/kernels.cubin";
  if (!writeFileAtomically(in, ptx, error))
    return false;
  std::string arch = "-arch=" + chip;
  std::vector<llvm::StringRef> args{ptxas, arch, "-O3", in, "-o", outPath};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, {}, 0, 0, &execError);
  auto buf = llvm::MemoryBuffer::getFile(outPath);
  if (rc != 0 || !buf) {
    error = "ptxas failed on the generated PTX (exit " + std::to_string(rc) + ")";
    return false;
  }
  cubin = (*buf)->getBuffer().str();
  return true;
}

std::string incbin(const std::string &symbol, const std::string &path, size_t bytes,
                   bool nulTerminate) {
  std::string s = "\t.section .rodata." + symbol + ",\"a\",@progbits\n\t.p2align 8\n\t.globl " +
                  symbol + "\n\t.hidden " + symbol + "\n" + symbol + ":\n";
  if (bytes)
    s += "\t.incbin \"" + path + "\"\n";
  if (nulTerminate || !bytes)
    s += "\t.byte 0\n";
  return s + "\t.section .note.GNU-stack,\"\",@progbits\n";
}

std::string gpuTables(const CudaProgram &p, const dlc::CompileOptions &opts, int images) {
  std::string src;
  for (int i = 0; i < images; ++i)
    src += "extern DLC_HIDDEN const char dlc_gpu_image" + std::to_string(i) + "[];\n";
  src += "extern DLC_HIDDEN const char dlc_gpu_weights[];\n";
  src += "static const void *const images[] = {";
  for (int i = 0; i < images; ++i)
    src += "dlc_gpu_image" + std::to_string(i) + ", ";
  src += "0};\n";
  auto arg = [](const LaunchArg &a) {
    return "{" +
           std::string(a.kind == "input"        ? "DLC_GPU_ARG_INPUT"
                       : a.kind == "output"     ? "DLC_GPU_ARG_OUTPUT"
                       : a.kind == "arena"      ? "DLC_GPU_ARG_ARENA"
                       : a.kind == "weights"    ? "DLC_GPU_ARG_WEIGHTS"
                       : a.kind == "tensor_map" ? "DLC_GPU_ARG_TENSOR_MAP"
                                                : "DLC_GPU_ARG_I64") +
           ", " + std::to_string(a.index) + ", " + std::to_string(a.value) + "LL}";
  };
  for (size_t i = 0; i < p.launches.size(); ++i) {
    src += "static const dlc_gpu_arg args" + std::to_string(i) + "[] = {";
    for (const LaunchArg &a : p.launches[i].args)
      src += arg(a) + ", ";
    src += "{0, 0, 0}};\n";
  }
  src += "static const dlc_gpu_tensor_map tensor_maps[] = {";
  auto list = [](const int64_t *v, int n, const char *suffix) {
    std::string s = "{";
    for (int i = 0; i < n; ++i)
      s += std::to_string(v[i]) + suffix + ", ";
    return s + "}";
  };
  for (const TensorMap &t : p.tensorMaps)
    src += "{" + arg(t.buffer) + ", " + std::to_string(t.rank) + ", " + list(t.dims, 4, "LL") +
           ", " + list(t.strides, 3, "LL") + ", " + list(t.box, 4, "") + ", " +
           list(t.elementStrides, 4, "") + "}, ";
  src += "{{0, 0, 0}, 0, {0}, {0}, {0}, {0}}};\n";
  src += "static const dlc_gpu_launch launches[] = {\n";
  for (size_t i = 0; i < p.launches.size(); ++i) {
    const Launch &l = p.launches[i];
    src += "  {" + std::to_string(l.image) + ", " + cString(l.kernel) + ", {" +
           std::to_string(l.grid[0]) + ", " + std::to_string(l.grid[1]) + ", " +
           std::to_string(l.grid[2]) + "}, {" + std::to_string(l.block[0]) + ", " +
           std::to_string(l.block[1]) + ", " + std::to_string(l.block[2]) + "}, " +
           std::to_string(l.sharedBytes) + ", " + std::to_string(l.args.size()) + ", args" +
           std::to_string(i) + "},\n";
  }
  src += "  {0, 0, {0, 0, 0}, {0, 0, 0}, 0, 0, 0}};\n";
  src += "static const dlc_gpu_meta gpu = {" + cString(opts.target.cpu) + ", " +
         std::to_string(images) + ", images, dlc_gpu_weights, " + std::to_string(p.weightsBytes) +
         ", " + std::to_string(p.launches.size()) + ", launches, " +
         std::to_string(p.tensorMaps.size()) + ", tensor_maps};\n";
  return src;
}

/// NVRTC (CUDA toolkit), loaded when first needed: dlc itself does not link
/// against CUDA.
struct Nvrtc {
  using Program = struct _nvrtcProgram *;
  int (*create)(Program *, const char *, const char *, int, const char *const *,
                const char *const *) = nullptr;
  int (*compile)(Program, int, const char *const *) = nullptr;
  int (*logSize)(Program, size_t *) = nullptr;
  int (*log)(Program, char *) = nullptr;
  int (*cubinSize)(Program, size_t *) = nullptr;
  int (*cubin)(Program, char *) = nullptr;
  int (*ptxSize)(Program, size_t *) = nullptr;
  int (*ptx)(Program, char *) = nullptr;
  int (*destroy)(Program *) = nullptr;

  bool load(std::string &error) {
    std::string toolkit = cudaToolkit();
    std::string errMsg;
    llvm::sys::DynamicLibrary lib;
    for (std::string path : {toolkit + "/lib64/libnvrtc.so.13", std::string("libnvrtc.so.13"),
                             toolkit + "/lib64/libnvrtc.so", std::string("libnvrtc.so")}) {
      lib = llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &errMsg);
      if (lib.isValid())
        break;
    }
    if (!lib.isValid()) {
      error = "NVRTC not found (" + errMsg + "); set CUDA_HOME or use --precision=fp32";
      return false;
    }
    auto get = [&](auto &fn, const char *name) {
      *(void **)&fn = lib.getAddressOfSymbol(name);
      return fn != nullptr;
    };
    if (!get(create, "nvrtcCreateProgram") || !get(compile, "nvrtcCompileProgram") ||
        !get(logSize, "nvrtcGetProgramLogSize") || !get(log, "nvrtcGetProgramLog") ||
        !get(cubinSize, "nvrtcGetCUBINSize") || !get(cubin, "nvrtcGetCUBIN") ||
        !get(ptxSize, "nvrtcGetPTXSize") || !get(ptx, "nvrtcGetPTX") ||
        !get(destroy, "nvrtcDestroyProgram")) {
      error = "NVRTC lacks an entry point dlc needs";
      return false;
    }
    return true;
  }
};

/// The tensor-core GEMM kernels (runtime/kernels/gemm_tc.cu) for `chip` at
/// `precision`: a cubin, or PTX for `asPtx`. All of them for
/// `allKernels` (--emit=ptx and cubin: the image for users with their own
/// loader), else only those `launches` name (-DDLC_WANT_<kernel> each: for
/// a one-matmul model NVRTC took 38 s over all 20 kernels the file had
/// then, 2 s over its own).
bool compileGemmKernel(const std::string &chip, const std::string &precision,
                       const std::vector<Launch> &launches, bool allKernels, bool asPtx,
                       std::string &out, std::string &error) {
  std::string path = runtimeDir() + "/kernels/gemm_tc.cu";
  auto source = llvm::MemoryBuffer::getFile(path);
  if (!source) {
    error = "cannot read the GEMM kernel source '" + path + "'";
    return false;
  }
  Nvrtc nvrtc;
  if (!nvrtc.load(error))
    return false;
  Nvrtc::Program prog;
  std::string src = (*source)->getBuffer().str();
  if (nvrtc.create(&prog, src.c_str(), "gemm_tc.cu", 0, nullptr, nullptr)) {
    error = "NVRTC could not create the GEMM program";
    return false;
  }
  // wgmma (gemm_wgmma.cuh) needs the architecture-specific sm_90a.
  std::string arch = std::string("--gpu-architecture=") + (asPtx ? "compute_" : "sm_") +
                     (usesWgmma(chip) ? "90a" : chip.substr(3));
  std::string define = "-DDLC_PRECISION_" + llvm::StringRef(precision).upper();
  std::string include = "-I" + cudaToolkit() + "/include";
  std::string kernels = "-I" + runtimeDir() + "/kernels";
  std::vector<const char *> options = {arch.c_str(), define.c_str(), include.c_str(),
                                       kernels.c_str(), "--std=c++17"};
  std::set<std::string> wanted;
  if (allKernels)
    wanted.insert("-DDLC_ALL_KERNELS");
  for (const Launch &l : launches)
    if (l.image == 1)
      wanted.insert("-DDLC_WANT_" + l.kernel);
  for (const std::string &w : wanted)
    options.push_back(w.c_str());
  int rc = nvrtc.compile(prog, (int)options.size(), options.data());
  size_t size = 0;
  if (rc) {
    nvrtc.logSize(prog, &size);
    std::string log(size, '\0');
    nvrtc.log(prog, log.data());
    error = "NVRTC failed on the GEMM kernel: " + log.substr(0, 600);
  } else if (asPtx) {
    nvrtc.ptxSize(prog, &size);
    out.assign(size, '\0');
    nvrtc.ptx(prog, out.data());
  } else {
    nvrtc.cubinSize(prog, &size);
    out.assign(size, '\0');
    nvrtc.cubin(prog, out.data());
  }
  nvrtc.destroy(&prog);
  return rc == 0;
}
} // namespace

bool dlc::compileCudaModel(ImportedModel &model, const CompileOptions &opts,
                           std::string &error) {
  CudaProgram program;
  if (!lowerForCuda(*model.module, model, opts, program, error))
    return false;
  nlohmann::json plan = planJson(program, opts);

  TempDir dir;
  if (!dir.make("dlc-cuda", error))
    return false;
  const std::string &d = dir.path;
  // The tensor-core GEMM, from NVRTC, where a contraction uses it.
  std::string gemmImage;
  bool asPtx = opts.emit == "ptx";
  if (program.usesGemm &&
      !compileGemmKernel(opts.target.cpu, opts.precision, program.launches,
                         /*allKernels=*/opts.emit != "lib", asPtx, gemmImage, error))
    return false;
  if (opts.emit == "ptx" || opts.emit == "cubin") {
    std::string image = program.ptx;
    if (opts.emit == "cubin" && !assemble(d, program.ptx, opts.target.cpu, image, error))
      return false;
    std::string gemmPath = opts.output + ".gemm." + opts.emit;
    plan["images"] = {llvm::sys::path::filename(opts.output).str()};
    if (program.usesGemm) {
      plan["images"].push_back(llvm::sys::path::filename(gemmPath).str());
      while (!gemmImage.empty() && gemmImage.back() == '\0')
        gemmImage.pop_back();
    }
    return writeFileAtomically(opts.output, image, error) &&
           (opts.output == "-" ||
            ((!program.usesGemm || writeFileAtomically(gemmPath, gemmImage, error)) &&
             writeFileAtomically(opts.output + ".json", plan.dump(2) + "\n", error)));
  }
  if (opts.emit != "lib") {
    error = "--emit=" + opts.emit + " is not available for " + opts.target.name +
            " (use mlir, ptx, cubin or lib)";
    return false;
  }

  // The kernel image: a cubin where ptxas is at hand, else PTX to JIT.
  std::string image, imageKind = "cubin", jitNote;
  if (!assemble(d, program.ptx, opts.target.cpu, image, jitNote)) {
    image = program.ptx;
    imageKind = "ptx";
  }
  nlohmann::json sig;
  int gemms = 0;
  for (const Launch &l : program.launches) // not the zeroing, tails or copies around them
    gemms += l.image == 1 && l.kernel != "dlc_gemm_zero" && l.kernel != "dlc_gemm_epilogue" &&
             l.kernel != "dlc_transpose" && l.kernel != "dlc_to_nhwc";
  sig["inputs"] = tensorsJson(model.inputs);
  sig["outputs"] = tensorsJson(model.outputs);
  sig["target"] = {{"name", opts.target.name},
                   {"chip", opts.target.cpu},
                   {"image", imageKind},
                   {"precision", opts.precision},
                   {"tensor_core_gemms", gemms}};
  sig["memory_plan"] = plan["memory_plan"];
  sig["memory_plan"]["inference_arena_bytes"] = program.arenaBytes;
  sig["launches"] = program.launches.size();
  sig["opset"] = model.opset;
  sig["graph"] = model.graphName;

  int images = program.usesGemm ? 2 : 1;
  std::string meta = d + "/model_meta.c", tmpLib = d + "/model.so";
  std::string metaSrc = "/* Generated by dlc compile: a CUDA build's tables. */\n"
                        "#include \"model_abi.h\"\n\n" +
                        tensorTable("input", model.inputs) + tensorTable("output", model.outputs) +
                        gpuTables(program, opts, images) +
                        "DLC_HIDDEN const dlc_model_meta dlc_meta = {" +
                        std::to_string(model.inputs.size()) + ", " +
                        std::to_string(model.outputs.size()) + ", inputs, outputs, " +
                        std::to_string(program.arenaBytes) + ", " + cString(sig.dump()) +
                        ", 0, 0, 0, 0, 0, &gpu};\n";
  std::vector<std::string> sources{meta, d + "/image0.s", d + "/weights.s"};
  bool ok = writeFileAtomically(d + "/image0.bin", image, error) &&
            writeFileAtomically(sources[1],
                                incbin("dlc_gpu_image0", d + "/image0.bin", image.size(),
                                       imageKind == "ptx"),
                                error);
  if (ok && program.usesGemm) {
    sources.push_back(d + "/image1.s");
    ok = writeFileAtomically(d + "/image1.bin", gemmImage, error) &&
         writeFileAtomically(sources.back(),
                             incbin("dlc_gpu_image1", d + "/image1.bin", gemmImage.size(), false),
                             error);
  }
  return ok &&
         writeFileAtomically(d + "/weights.bin",
                             llvm::StringRef(program.weights.data(), program.weights.size()),
                             error) &&
         writeFileAtomically(sources[2],
                             incbin("dlc_gpu_weights", d + "/weights.bin",
                                    program.weights.size(), false),
                             error) &&
         writeFileAtomically(meta, metaSrc, error) &&
         linkLibrary(sources, tmpLib, opts.output, error);
}
