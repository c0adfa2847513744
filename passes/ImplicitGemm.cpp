//===- ImplicitGemm.cpp - a conv's im2col gather folded into its GEMM -----===//
//
// On the GPU the im2col columns of a 3x3 conv are nine times its input:
// ResNet-50 at batch 32 wrote 1.8 GB of them (1.7 ms, a fifth of its time)
// for the GEMMs to read back. The CUDA conv kernels (dlc_conv_* in
// runtime/kernels/gemm_tc.cu) gather the columns from the input while they
// stage each tile, so the gather and its buffer can go: this pass replaces
// the pair by one dlc.conv_gemm (see its description in DlcOps.td).
//
//===----------------------------------------------------------------------===//
#include "dialects/DlcDialect.h"
#include "passes/LibraryGemm.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dlc {
#define GEN_PASS_DEF_IMPLICITGEMM
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// The one buffer the gather's body loads from (the conv's input).
Value gatheredInput(linalg::GenericOp gather) {
  Value input;
  int loads = 0;
  gather.getRegion().walk([&](memref::LoadOp load) {
    ++loads;
    input = load.getMemRef();
  });
  return loads == 1 && !gather->isAncestor(input.getParentBlock()->getParentOp()) ? input
                                                                                   : Value();
}

/// Folds `gather` into the GEMM that reads its columns; false (IR
/// unchanged) where the pattern is not exactly that.
bool fold(linalg::GenericOp gather) {
  auto geometry = gather->getAttrOfType<DictionaryAttr>(dlc::kImplicitGemmColumnsAttr);
  if (!geometry || !gather.hasPureBufferSemantics() || gather.getNumDpsInputs() != 0 ||
      gather.getNumDpsInits() != 1)
    return false;
  auto strides = geometry.getAs<DenseI64ArrayAttr>("strides");
  auto dilations = geometry.getAs<DenseI64ArrayAttr>("dilations");
  auto padding = geometry.getAs<DenseI64ArrayAttr>("padding");
  Value columns = gather.getDpsInitOperand(0)->get();
  auto alloc = columns.getDefiningOp<memref::AllocOp>();
  auto columnsType = cast<MemRefType>(columns.getType());
  Value input = gatheredInput(gather);
  auto pair = [](DenseI64ArrayAttr a) { return a && a.size() == 2; };
  if (!pair(strides) || !pair(dilations) || !pair(padding) || !alloc ||
      columnsType.getRank() != 6 || !input)
    return false;
  auto inputType = cast<MemRefType>(input.getType());
  // Columns [N, KH, KW, C, OH, OW] of input [N, C, H, W], which the kernels
  // index with its sizes as strides.
  if (inputType.getRank() != 4 || !memref::isStaticShapeAndContiguousRowMajor(inputType) ||
      inputType.getDimSize(0) != columnsType.getDimSize(0) ||
      inputType.getDimSize(1) != columnsType.getDimSize(3))
    return false;

  // The columns' readers: one collapse_shape to [N, K, P], read by one
  // library GEMM as its B operand.
  memref::CollapseShapeOp view;
  SmallVector<Operation *> deallocs;
  for (Operation *user : alloc->getUsers()) {
    if (user == gather)
      continue;
    if (isa<memref::DeallocOp>(user))
      deallocs.push_back(user);
    else if (auto c = dyn_cast<memref::CollapseShapeOp>(user); c && !view)
      view = c;
    else
      return false;
  }
  if (!view || !view->hasOneUse())
    return false;
  auto gemm = dyn_cast<linalg::LinalgOp>(*view->getUsers().begin());
  if (!gemm || !dlc::isLibraryGemm(gemm) || gemm->getBlock() != gather->getBlock() ||
      gemm.getDpsInputOperand(1)->get() != view.getResult() ||
      gemm.getDpsInputOperand(0)->get() == view.getResult())
    return false;
  // The weight-times-batch GEMM: A [F, K], B [N, K, P], C [N, F, P].
  if (!llvm::equal(gemm.getIndexingMapsArray(), dlc::weightTimesBatchMaps(gather.getContext())))
    return false;
  // Nothing between the gather and the GEMM may write memory (the input
  // must hold at the GEMM what the gather read): views and new buffers only.
  for (Operation *op = gather->getNextNode(); op != gemm.getOperation(); op = op->getNextNode())
    if (!op || !(isMemoryEffectFree(op) || isa<memref::AllocOp>(op)))
      return false;

  // The shapes agree by construction: the GEMM's maps tie A's K and C's F
  // and P to the columns', which are the input's N and C by the checks above.
  OpBuilder b(gemm);
  ArrayRef<int64_t> shape = columnsType.getShape();
  b.create<dlc::ConvGemmOp>(
      gemm.getLoc(), input, gemm.getDpsInputOperand(0)->get(), gemm.getDpsInitOperand(0)->get(),
      b.getDenseI64ArrayAttr({shape[1], shape[2]}), b.getDenseI64ArrayAttr({shape[4], shape[5]}),
      strides, dilations, padding, gemm->hasAttr(dlc::kGemmOverwriteAttr));
  gemm->erase();
  view->erase();
  gather->erase();
  for (Operation *d : deallocs)
    d->erase();
  alloc->erase();
  return true;
}

struct ImplicitGemmPass : dlc::impl::ImplicitGemmBase<ImplicitGemmPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> gathers;
    getOperation().walk([&](linalg::GenericOp g) {
      if (g->hasAttr(dlc::kImplicitGemmColumnsAttr))
        gathers.push_back(g);
    });
    for (linalg::GenericOp g : gathers)
      fold(g);
  }
};
} // namespace
