//===- OutlineParallelLoops.cpp - parallel loop bodies as functions -------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace dlc {
#define GEN_PASS_DEF_OUTLINEPARALLELLOOPS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// Whether `v` is computed from constants alone by side-effect-free ops
/// (a gather's lane offsets, a constant broadcast to the vector's rank):
/// the body recomputes it rather than taking it as an argument, so that
/// the body's vector patterns (dlc-lower-vectors reads a gather's indices
/// as a scalar plus constant lane offsets) still see the constants.
bool constantExpression(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (def->hasTrait<OpTrait::ConstantLike>())
    return true;
  // Values only (a buffer, even a global's, stays an argument: the cost
  // model counts the bytes each body shares).
  return depth < 8 && !isa<MemRefType>(v.getType()) && def->getNumOperands() > 0 &&
         def->getNumResults() == 1 && def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
         llvm::all_of(def->getOperands(),
                      [&](Value x) { return constantExpression(x, depth + 1); });
}

/// Clones constantExpression `v` (and what it is computed from) at `b`.
Value cloneConstantExpression(OpBuilder &b, Value v, IRMapping &map) {
  if (Value done = map.lookupOrNull(v))
    return done;
  Operation *def = v.getDefiningOp();
  for (Value x : def->getOperands())
    cloneConstantExpression(b, x, map);
  return b.clone(*def, map)->getResult(0);
}

/// What a memref's bytes belong to: an entry argument, a global, or a byte
/// range of the arena (a memref.view at a constant offset).
struct BufferRoot {
  enum Kind { Argument, Global, Arena, Unknown } kind = Unknown;
  int64_t id = 0, begin = 0, end = 0;
  std::string global;
};

BufferRoot rootOf(Value v, func::FuncOp entry) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() == entry.getOperation())
        return {BufferRoot::Argument, (int64_t)arg.getArgNumber(), 0, 0, {}};
      return {};
    }
    Operation *def = v.getDefiningOp();
    if (auto g = dyn_cast<memref::GetGlobalOp>(def)) {
      return {BufferRoot::Global, 0, 0, 0, g.getName().str()};
    }
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      auto offset = getConstantIntValue(view.getByteShift());
      MemRefType t = view.getType();
      if (!offset || !t.hasStaticShape())
        return {};
      return {BufferRoot::Arena, 0, *offset,
              *offset + t.getNumElements() * (t.getElementTypeBitWidth() / 8), {}};
    }
    if (auto viewLike = dyn_cast<ViewLikeOpInterface>(def)) {
      v = viewLike.getViewSource();
      continue;
    }
    return {};
  }
}

/// True if the memrefs provably share no bytes (so the outlined body may
/// treat its pointers as noalias, as the entry does).
bool pairwiseDisjoint(ArrayRef<Value> memrefs, func::FuncOp entry) {
  SmallVector<BufferRoot> roots;
  for (Value v : memrefs) {
    BufferRoot r = rootOf(v, entry);
    if (r.kind == BufferRoot::Unknown)
      return false;
    for (const BufferRoot &o : roots) {
      if (o.kind != r.kind)
        continue;
      if ((r.kind == BufferRoot::Argument && r.id == o.id) ||
          (r.kind == BufferRoot::Global && r.global == o.global) ||
          (r.kind == BufferRoot::Arena && r.begin < o.end && o.begin < r.end))
        return false;
    }
    roots.push_back(r);
  }
  return true;
}

/// Vector instructions one op stands for: a transcendental math op becomes
/// a polynomial after this pass (dlc-approximate-math: exp 42 ops, log 58,
/// tanh 33, erf 79, a third to half of them constants hoisted out of the
/// loops) or a libm call per lane, so it counts 20. Counted as one, the
/// sum of exp(x - max) of a LogSoftmax over 64 x 1000 (about 60 us of
/// work) stayed on one thread, charged for the 256 KB it reads.
int64_t opWeight(Operation *op) {
  if (isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp, math::Log1pOp, math::Log2Op,
          math::Log10Op, math::TanhOp, math::ErfOp, math::SinOp, math::CosOp, math::TanOp,
          math::AtanOp, math::Atan2Op, math::AsinOp, math::AcosOp, math::SinhOp,
          math::CoshOp, math::AsinhOp, math::AcoshOp, math::AtanhOp, math::PowFOp,
          math::CbrtOp>(op))
    return 20;
  return 1;
}

/// Roughly how many operations one iteration of `region` executes, in
/// units of one vector instruction: each op counts once per iteration of the
/// scf.for loops around it (constant trip counts; an unknown one counts 16),
/// a linalg op once per point of its iteration space and op of its body, a
/// vector op once per 8 elements. A vector read of a constant global (a
/// weight) counts twice: weights come from L2 or memory each run, not from
/// L1, and a loop that streams them (a matrix-vector product) runs at the
/// cache's bandwidth, which a second core's cache doubles.
int64_t opsPerIteration(Region &region) {
  int64_t ops = 0;
  auto timesAround = [&](Operation *op) {
    int64_t times = 1;
    for (Operation *p = op->getParentOp(); p && p != region.getParentOp(); p = p->getParentOp())
      if (auto f = dyn_cast<scf::ForOp>(p)) {
        std::optional<int64_t> trips =
            constantTripCount(f.getLowerBound(), f.getUpperBound(), f.getStep());
        times *= trips ? std::max<int64_t>(1, *trips) : 16;
      }
    return times;
  };
  region.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      int64_t points = 1;
      for (int64_t r : linalgOp.getStaticLoopRanges())
        points *= ShapedType::isDynamic(r) ? 16 : r;
      int64_t bodyOps = 0;
      for (Operation &inner : linalgOp.getBlock()->without_terminator())
        bodyOps += opWeight(&inner);
      bodyOps = std::max<int64_t>(1, bodyOps);
      ops += timesAround(op) * points * bodyOps;
      return WalkResult::skip();
    }
    if (isa<scf::YieldOp, scf::ForOp>(op) || op->hasTrait<OpTrait::ConstantLike>())
      return WalkResult::advance();
    int64_t elements = 1;
    auto widest = [&](TypeRange types) {
      for (Type t : types)
        if (auto v = dyn_cast<VectorType>(t))
          elements = std::max<int64_t>(elements, v.getNumElements());
    };
    widest(op->getOperandTypes());
    widest(op->getResultTypes());
    int64_t weight = opWeight(op);
    if (auto read = dyn_cast<vector::TransferReadOp>(op))
      if (rootOf(read.getSource(), op->getParentOfType<func::FuncOp>()).kind ==
          BufferRoot::Global)
        weight = 2;
    ops += timesAround(op) * weight * ((elements + 7) / 8);
    return WalkResult::advance();
  });
  return ops;
}

/// A static memref's bytes (a byte at least per element: i1).
int64_t staticBytes(MemRefType type) {
  return type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// Bytes of the arena and of the entry's tensors the loop reads or writes
/// (captured views, by their shapes). Split among threads, the lines
/// another core last wrote cross between the cores' private caches;
/// constants (globals) are only ever read and stay in both.
int64_t sharedBytes(scf::ParallelOp loop) {
  auto entry = loop->getParentOfType<func::FuncOp>();
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(loop.getRegion(), captured);
  int64_t bytes = 0;
  for (Value v : captured) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape())
      continue;
    BufferRoot root = rootOf(v, entry);
    if (root.kind == BufferRoot::Arena || root.kind == BufferRoot::Argument)
      bytes += staticBytes(type);
  }
  return bytes;
}

struct OutlineParallelLoopsPass
    : dlc::impl::OutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  using OutlineParallelLoopsBase::OutlineParallelLoopsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = dlc::lookupEntry(module, entry);
    if (!func)
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    // The entry's ABI: one pointer per tensor, then the arena, then the pool.
    func->setAttr("llvm.bareptr", UnitAttr::get(ctx));
    unsigned poolIndex = func.getNumArguments();
    func.insertArgument(poolIndex, LLVM::LLVMPointerType::get(ctx), {}, func.getLoc());

    SmallVector<scf::ParallelOp> loops;
    func.walk([&](scf::ParallelOp p) {
      if (!p->getParentOfType<scf::ParallelOp>())
        loops.push_back(p);
    });
    // Shared bytes are charged only where the whole arena and the entry's
    // tensors fit one core's private cache (LeNet's 97 KB and 3 KB): serial
    // loops then keep every buffer on one core. More flows through L3
    // whichever core runs a loop, and a serial loop between two parallel
    // ones pulls its data from the other cores too (MobileNetV2 on 16
    // threads ran 20-35% slower with its copies charged; a Softmax over a
    // 256 KB input and output, whose arena is 2.5 KB, ran its reductions
    // on one thread).
    auto arena = func->getAttrOfType<IntegerAttr>("dlc.arena_bytes");
    int64_t touched = arena ? arena.getInt() : 0;
    // The tensors are the arguments before the arena (dlc-plan-memory's last).
    for (unsigned i = 0; i + 1 < poolIndex; ++i)
      if (auto t = dyn_cast<MemRefType>(func.getArgument(i).getType()))
        if (t.hasStaticShape())
          touched += staticBytes(t);
    byteCost = arena && touched <= privateCacheBytes ? sharedByteCost : 0.0;
    int counter = 0;
    for (scf::ParallelOp loop : loops)
      if (failed(outline(module, loop, counter++)))
        return signalPassFailure();
  }

  /// shared-byte-cost, or 0 where the arena is over private-cache-bytes.
  double byteCost = 0.0;

  LogicalResult outline(ModuleOp module, scf::ParallelOp loop, int index) {
    // Constant bounds only: the trip counts are compile-time facts.
    SmallVector<int64_t> lbs, steps, trips;
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      auto l = getConstantIntValue(lb), u = getConstantIntValue(ub), s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0)
        return success(); // stays a sequential loop
      lbs.push_back(*l);
      steps.push_back(*s);
      trips.push_back(std::max<int64_t>(0, (*u - *l + *s - 1) / *s));
    }
    int64_t total = 1;
    for (int64_t t : trips)
      total *= t;
    if (total <= 1)
      return success();
    int64_t work = total * opsPerIteration(loop.getRegion());
    // Bytes over one core's private cache go through L3 whichever core
    // touches them: a Sigmoid over a 3.2 MB input in a 64-byte arena was
    // charged for all of them and stayed on one thread.
    int64_t shared = sharedBytes(loop);
    int64_t charge = shared <= privateCacheBytes ? int64_t(byteCost * shared) : 0;
    if (work - charge < minParallelWork)
      return success(); // too little work to share

    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(loop.getRegion(), captured);
    SmallVector<Value> passed;
    for (Value v : captured)
      if (!constantExpression(v))
        passed.push_back(v);

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    Location loc = loop.getLoc();
    SmallVector<Type> argTypes{b.getIndexType(), b.getIndexType()};
    for (Value v : passed)
      argTypes.push_back(v.getType());
    std::string name = "dlc_parallel_body_" + std::to_string(index);
    auto body = b.create<func::FuncOp>(loc, name, b.getFunctionType(argTypes, {}));
    body.setPrivate();
    SmallVector<Value> memrefs;
    for (Value v : passed)
      if (isa<MemRefType>(v.getType()))
        memrefs.push_back(v);
    if (pairwiseDisjoint(memrefs, loop->getParentOfType<func::FuncOp>()))
      body->setAttr("dlc.disjoint_buffers", UnitAttr::get(&getContext()));
    Block *entryBlock = body.addEntryBlock();
    b.setInsertionPointToStart(entryBlock);
    IRMapping map;
    for (Value v : captured)
      if (constantExpression(v))
        cloneConstantExpression(b, v, map);
    for (auto [v, arg] : llvm::zip(passed, entryBlock->getArguments().drop_front(2)))
      map.map(v, arg);

    // for i in [lo, hi): delinearize i into the loop's induction variables.
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    auto forOp = b.create<scf::ForOp>(loc, entryBlock->getArgument(0),
                                      entryBlock->getArgument(1), one);
    b.setInsertionPointToStart(forOp.getBody());
    Value rest = forOp.getInductionVar();
    SmallVector<Value> ivs(trips.size());
    for (int d = trips.size() - 1; d >= 0; --d) {
      Value trip = b.create<arith::ConstantIndexOp>(loc, trips[d]);
      Value idx = d == 0 ? rest : b.create<arith::RemUIOp>(loc, rest, trip);
      if (d > 0)
        rest = b.create<arith::DivUIOp>(loc, rest, trip);
      Value scaled = b.create<arith::MulIOp>(loc, idx, b.create<arith::ConstantIndexOp>(loc, steps[d]));
      ivs[d] = b.create<arith::AddIOp>(loc, scaled, b.create<arith::ConstantIndexOp>(loc, lbs[d]));
    }
    for (auto [iv, v] : llvm::zip(loop.getInductionVars(), ivs))
      map.map(iv, v);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, map);
    b.setInsertionPointToEnd(entryBlock);
    b.create<func::ReturnOp>(loc);

    OpBuilder call(loop);
    SmallVector<Value> operands{call.create<arith::ConstantIndexOp>(loc, 0),
                                call.create<arith::ConstantIndexOp>(loc, total)};
    operands.append(passed.begin(), passed.end());
    auto callOp = call.create<func::CallOp>(loc, body, operands);
    callOp->setAttr("dlc.parallel", UnitAttr::get(&getContext()));
    loop.erase();
    return success();
  }
};
} // namespace
