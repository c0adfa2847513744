//===- MapToGpu.cpp - planned memref code to gpu.launch -------------------===//
//
// The CUDA back end's mapping, after bufferization and the memory plan: the
// entry's body becomes a sequence of gpu.launch ops and nothing else that
// touches memory, so that the host side is only a launch list (kernel, grid,
// block, which buffer each argument is) that the runtime replays.
//
// - A linalg op becomes loops (scf.parallel over its parallel dims, scf.for
//   over reductions); a top-level scf.parallel becomes one thread per
//   iteration: its dims are linearized, `threads-per-block` threads a
//   block, and each thread delinearizes its id and runs the loop body.
// - Any other op that touches memory (a copy, a sequential loop) runs in a
//   kernel of one thread: correct, slow, and visible in the launch list.
// - With `library-gemm`, float32 contractions stay in the entry, marked
//   `dlc.library_gemm`: the compiler launches its tensor-core GEMM kernel
//   (runtime/kernels/gemm_tc.cu) for them, with their strides; so do
//   dlc.conv_gemm ops (dlc-implicit-gemm), launched as its conv kernels,
//   and the elementwise tails dlc-fuse-gemm-epilogue marked
//   (dlc.gemm_epilogue), which those kernels run in their store.
// - View-like ops and constants are copied into the kernels, so that
//   kernels capture only the entry's arguments (inputs, outputs, arena,
//   weights), each one pointer under the bare-pointer calling convention.
//
//===----------------------------------------------------------------------===//
#include "dialects/DlcDialect.h"
#include "passes/LibraryGemm.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace dlc {
#define GEN_PASS_DEF_MAPTOGPU
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct MapToGpuPass : dlc::impl::MapToGpuBase<MapToGpuPass> {
  using MapToGpuBase::MapToGpuBase;

  /// One thread per iteration of `loop`, which must be at the top level.
  LogicalResult mapParallel(scf::ParallelOp loop) {
    if (loop.getNumResults() != 0)
      return loop.emitError("cannot map a parallel loop with reductions to the GPU");
    SmallVector<int64_t> lbs, steps, trips;
    int64_t total = 1;
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0)
        return loop.emitError("cannot map a parallel loop with dynamic bounds to the GPU");
      lbs.push_back(*l);
      steps.push_back(*s);
      trips.push_back(std::max<int64_t>(0, (*u - *l + *s - 1) / *s));
      total *= trips.back();
    }
    if (total == 0) {
      loop.erase();
      return success();
    }
    int64_t threads = std::min<int64_t>(threadsPerBlock, total);
    int64_t blocks = (total + threads - 1) / threads;
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v).getResult(); };
    Value one = idx(1);
    auto launch = b.create<gpu::LaunchOp>(loc, idx(blocks), one, one, idx(threads), one, one);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value id = b.create<arith::AddIOp>(
        loc, b.create<arith::MulIOp>(loc, launch.getBlockIds().x, idx(threads)),
        launch.getThreadIds().x);
    Value inRange = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, id, idx(total));
    auto guard = b.create<scf::IfOp>(loc, inRange, /*withElseRegion=*/false);
    b.create<gpu::TerminatorOp>(loc);
    b.setInsertionPointToStart(guard.thenBlock());
    IRMapping map;
    Value rest = id;
    for (int64_t d = trips.size() - 1; d >= 0; --d) {
      Value i = d > 0 ? b.create<arith::RemUIOp>(loc, rest, idx(trips[d])).getResult() : rest;
      if (d > 0)
        rest = b.create<arith::DivUIOp>(loc, rest, idx(trips[d]));
      Value iv = b.create<arith::AddIOp>(loc, idx(lbs[d]),
                                         b.create<arith::MulIOp>(loc, i, idx(steps[d])));
      map.map(loop.getInductionVars()[d], iv);
    }
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, map);
    loop.erase();
    return success();
  }

  /// `op` alone in a kernel of one thread.
  LogicalResult wrapSingleThread(Operation *op) {
    for (Value r : op->getResults())
      if (!r.use_empty())
        return op->emitError("cannot run '") << op->getName() << "' on the GPU: its result is "
                                                "used on the host";
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    auto launch = b.create<gpu::LaunchOp>(loc, one, one, one, one, one, one);
    launch->setAttr("dlc.single_thread", b.getUnitAttr());
    b.setInsertionPointToStart(&launch.getBody().front());
    op->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
    b.setInsertionPointAfter(op);
    b.create<gpu::TerminatorOp>(loc);
    return success();
  }

  static bool sinkable(Operation *op) {
    return op && (isa<ViewLikeOpInterface>(op) || matchPattern(op, m_Constant()) ||
                  isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op));
  }

  /// Clones the view-like ops and constants a launch reads from outside
  /// into it, operands first, so that it captures their roots instead.
  /// (Upstream's sinkOperationsIntoLaunchOp sinks only ops whose operands
  /// the launch already captures, which keeps a view of an argument out.)
  void sinkViews(gpu::LaunchOp launch) {
    Region &body = launch.getBody();
    OpBuilder b(&body.front(), body.front().begin());
    IRMapping map;
    std::function<Value(Value)> sink = [&](Value v) -> Value {
      if (Value done = map.lookupOrNull(v))
        return done;
      Operation *def = v.getDefiningOp();
      if (!sinkable(def) || body.isAncestor(def->getParentRegion()))
        return v;
      for (Value operand : def->getOperands())
        sink(operand);
      Operation *clone = b.clone(*def, map);
      for (auto [from, to] : llvm::zip(def->getResults(), clone->getResults()))
        map.map(from, to);
      return map.lookup(v);
    };
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(body, captured);
    for (Value v : captured) {
      Value inside = sink(v);
      if (inside != v)
        replaceAllUsesInRegionWith(v, inside, body);
    }
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &block = func.getBody().front();
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> linalgOps;
    for (Operation &op : block)
      if (auto l = dyn_cast<linalg::LinalgOp>(&op)) {
        if (libraryGemm && dlc::isLibraryGemm(l))
          l->setAttr("dlc.library_gemm", rewriter.getUnitAttr());
        else if (!l->hasAttr(dlc::kGemmEpilogueAttr))
          linalgOps.push_back(l);
      }
    for (linalg::LinalgOp op : linalgOps) {
      rewriter.setInsertionPoint(op);
      // Parallel dims first, in the order of the output's dims: a reduction
      // dim outside a parallel one would put a sequential loop around the
      // rest and leave each thread a whole plane, and neighbouring threads
      // must write neighbouring elements (linalg's depthwise conv iterates
      // (n, oh, ow, c, kh, kw): channels innermost, a plane apart in NCHW).
      SmallVector<utils::IteratorType> types = op.getIteratorTypesArray();
      SmallVector<unsigned> order;
      auto add = [&](unsigned d) {
        if (!llvm::is_contained(order, d))
          order.push_back(d);
      };
      if (op.getNumDpsInits() > 0)
        for (AffineExpr e : op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults())
          if (auto dim = dyn_cast<AffineDimExpr>(e);
              dim && types[dim.getPosition()] == utils::IteratorType::parallel)
            add(dim.getPosition());
      for (auto [i, type] : llvm::enumerate(types))
        if (type == utils::IteratorType::parallel)
          add(i);
      for (auto [i, type] : llvm::enumerate(types))
        if (type != utils::IteratorType::parallel)
          add(i);
      if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
        FailureOr<linalg::GenericOp> generic =
            isa<linalg::GenericOp>(op) ? cast<linalg::GenericOp>(op)
                                       : linalg::generalizeNamedOp(rewriter, op);
        if (succeeded(generic))
          generic = linalg::interchangeGenericOp(rewriter, *generic, order);
        if (succeeded(generic))
          op = *generic;
      }
      rewriter.setInsertionPoint(op); // generalizing replaced the named op
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op))) {
        op->emitError("cannot turn '") << op->getName() << "' into loops for the GPU";
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (op.hasTrait<OpTrait::IsTerminator>() || isMemoryEffectFree(&op) ||
          isa<gpu::LaunchOp, dlc::ConvGemmOp>(op) || op.hasAttr("dlc.library_gemm") ||
          op.hasAttr(dlc::kGemmEpilogueAttr))
        continue;
      LogicalResult done = isa<scf::ParallelOp>(op) ? mapParallel(cast<scf::ParallelOp>(op))
                                                    : wrapSingleThread(&op);
      if (failed(done))
        return signalPassFailure();
    }
    func.walk([&](gpu::LaunchOp launch) { sinkViews(launch); });
  }
};
} // namespace
