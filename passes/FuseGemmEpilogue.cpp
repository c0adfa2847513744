//===- FuseGemmEpilogue.cpp - a conv GEMM's elementwise tail in its store -===//
//
// After a conv's GEMM comes its elementwise tail: BatchNorm's scale and
// shift per filter, the residual branch (itself maybe scaled and shifted),
// ReLU or a clamp (ReLU6). On the GPU that tail was a second pass over the
// GEMM's output: at ResNet-50 batch 32, 49 launches and 1.35 ms of 6.3.
// This pass, after dlc-implicit-gemm and before dlc-plan-memory (which
// then keeps the GEMM's operands and the tail's output apart: the GEMM
// writes one while reading the others), finds a GEMM that overwrites its
// output (a library GEMM, passes/LibraryGemm.h, or a dlc.conv_gemm) and
// whose next memory-touching op is an elementwise linalg.generic E of the
// form
//
//   y = act(x * scale[m] + shift[m] + r * rscale[m] + rshift[m])
//
// (x the GEMM's output, m its row: the filter; r a tensor in y's layout;
// every term optional; act none, max(., 0), or a clamp to constants), and
// marks E with `dlc.gemm_epilogue`, a dictionary of E's input numbers for
// each part. The compiler (lib/CodeGen/CompileCuda.cpp) then launches the
// GEMM's _ep kernel with E's output as C and the parts as its epilogue's
// arguments (runtime/kernels/gemm_tc.cu), and E not at all; where the GEMM
// splits K (or runs the WMMA kernel) it keeps the GEMM's own output and
// applies E with dlc_gemm_epilogue. The IR keeps both ops and still means
// what it did.
//
// Conditions, each checked (anything else keeps E a kernel of its own):
// - x is E's input with exactly the GEMM output's bytes, nothing but E
//   reads the GEMM's output buffer (its alloc's uses), and x, y and r
//   share one shape and strides, so the GEMM's C strides serve all three;
// - the per-row vectors are contiguous, sized M, indexed by E's dim that
//   walks the GEMM's M (same size and stride in x);
// - y overlaps none of the GEMM's inputs (the GEMM now writes y while
//   reading them), the row vectors nor r.
//
// Session 12 ran this tail in the kernels once before (commit 365b349) and
// took it out: applied to the accumulators in the unrolled stores it
// spilled registers, and as a second pass over the stored tile it was
// latency-bound. The kernels now stage C in shared memory and store it row
// by row (storeTile), and the tail rides on that pass.
//
//===----------------------------------------------------------------------===//
#include "dialects/DlcDialect.h"
#include "passes/LibraryGemm.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace dlc {
#define GEN_PASS_DEF_FUSEGEMMEPILOGUE
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// What each of E's inputs can be in the epilogue.
enum class Role { Unknown, Gemm, Full, Row };

/// `v * scale + shift` over block arguments: the body's term for the GEMM's
/// output or for the residual.
struct Affine {
  BlockArgument x, scale, shift;
};

/// The epilogue read off E's body.
struct Tail {
  Affine main, residual; ///< residual.x null where there is none
  int64_t act = 0;       ///< 0 none, 1 max(., 0), 2 clamp to [lo, hi]
  float lo = 0, hi = 0;
};

class BodyMatcher {
public:
  explicit BodyMatcher(ArrayRef<Role> roles) : roles(roles) {}

  std::optional<Tail> match(linalg::GenericOp e) {
    Block &body = e.getRegion().front();
    if (body.getArgument(body.getNumArguments() - 1).use_empty() == false)
      return std::nullopt; // reads its output
    Value v = body.getTerminator()->getOperand(0);
    Tail t;
    if (auto clamp = matchClamp(v, t.lo, t.hi)) {
      t.act = 2;
      v = *clamp;
    } else if (auto relu = matchMaxZero(v)) {
      t.act = 1;
      v = *relu;
    }
    if (auto sum = v.getDefiningOp<arith::AddFOp>()) {
      for (auto [a, b] : {std::pair(sum.getLhs(), sum.getRhs()), std::pair(sum.getRhs(), sum.getLhs())}) {
        std::optional<Affine> p = affine(a), q = affine(b);
        if (p && q && role(p->x) == Role::Gemm && role(q->x) == Role::Full) {
          t.main = *p;
          t.residual = *q;
          return t;
        }
      }
    }
    std::optional<Affine> p = affine(v);
    if (!p || role(p->x) != Role::Gemm)
      return std::nullopt;
    t.main = *p;
    return t;
  }

private:
  ArrayRef<Role> roles;

  Role role(Value v) const {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getArgNumber() < roles.size() ? roles[arg.getArgNumber()] : Role::Unknown;
  }
  bool isFull(Value v) const { return role(v) == Role::Gemm || role(v) == Role::Full; }
  bool isRow(Value v) const { return role(v) == Role::Row; }

  /// x, x * s, s * x, fma(x, s, b), fma(s, x, b), (any of those) + b, b + (...).
  std::optional<Affine> affine(Value v) const {
    if (isFull(v))
      return Affine{cast<BlockArgument>(v), {}, {}};
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto mul = dyn_cast<arith::MulFOp>(def)) {
      if (isFull(mul.getLhs()) && isRow(mul.getRhs()))
        return Affine{cast<BlockArgument>(mul.getLhs()), cast<BlockArgument>(mul.getRhs()), {}};
      if (isRow(mul.getLhs()) && isFull(mul.getRhs()))
        return Affine{cast<BlockArgument>(mul.getRhs()), cast<BlockArgument>(mul.getLhs()), {}};
    }
    if (auto fma = dyn_cast<math::FmaOp>(def)) {
      Value a = fma.getA(), b = fma.getB(), c = fma.getC();
      if (!isRow(c))
        return std::nullopt;
      if (isFull(a) && isRow(b))
        return Affine{cast<BlockArgument>(a), cast<BlockArgument>(b), cast<BlockArgument>(c)};
      if (isRow(a) && isFull(b))
        return Affine{cast<BlockArgument>(b), cast<BlockArgument>(a), cast<BlockArgument>(c)};
    }
    if (auto add = dyn_cast<arith::AddFOp>(def)) {
      for (auto [a, b] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
        if (!isRow(b))
          continue;
        std::optional<Affine> inner = affine(a);
        if (inner && !inner->shift) {
          inner->shift = cast<BlockArgument>(b);
          return inner;
        }
      }
    }
    return std::nullopt;
  }

  static bool isConstant(Value v, float &out) {
    FloatAttr attr;
    if (!matchPattern(v, m_Constant(&attr)))
      return false;
    out = attr.getValueAsDouble();
    return true;
  }

  /// max(u, 0) or max(0, u) (maximumf or maxnumf).
  static std::optional<Value> matchMaxZero(Value v) {
    Operation *def = v.getDefiningOp();
    if (!isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp>(def))
      return std::nullopt;
    float c;
    if (isConstant(def->getOperand(1), c) && c == 0.0f)
      return def->getOperand(0);
    if (isConstant(def->getOperand(0), c) && c == 0.0f)
      return def->getOperand(1);
    return std::nullopt;
  }

  /// min(max(u, lo), hi) or max(min(u, hi), lo), constants in either place.
  static std::optional<Value> matchClamp(Value v, float &lo, float &hi) {
    auto bound = [](Value v, bool isMax, float &c) -> std::optional<Value> {
      Operation *def = v.getDefiningOp();
      bool ok = isMax ? isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp>(def)
                      : isa_and_nonnull<arith::MinimumFOp, arith::MinNumFOp>(def);
      if (!ok)
        return std::nullopt;
      if (isConstant(def->getOperand(1), c))
        return def->getOperand(0);
      if (isConstant(def->getOperand(0), c))
        return def->getOperand(1);
      return std::nullopt;
    };
    if (auto inner = bound(v, /*isMax=*/false, hi))
      if (auto u = bound(*inner, /*isMax=*/true, lo); u && lo <= hi)
        return u;
    if (auto inner = bound(v, /*isMax=*/true, lo))
      if (auto u = bound(*inner, /*isMax=*/false, hi); u && lo <= hi)
        return u;
    return std::nullopt;
  }
};

/// The buffer (an alloc, or a memref.view of the arena) a memref is a
/// reshape or subview of, if any.
Value rootBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::ViewOp>(def))
      return v;
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(
            def))
      return {};
    v = def->getOperand(0);
  }
  return {};
}

/// Whether every op using `v` (through views of it) is a view, a dealloc
/// or one of `allowed`.
bool onlyUsedBy(Value v, ArrayRef<Operation *> allowed) {
  for (Operation *user : v.getUsers()) {
    if (llvm::is_contained(allowed, user) || isa<memref::DeallocOp>(user))
      continue;
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(
            user) ||
        !onlyUsedBy(user->getResult(0), allowed))
      return false;
  }
  return true;
}

bool stridesOf(Value v, SmallVectorImpl<int64_t> &strides) {
  auto type = cast<MemRefType>(v.getType());
  int64_t offset;
  return succeeded(getStridesAndOffset(type, strides, offset)) &&
         !llvm::any_of(strides, ShapedType::isDynamic);
}

/// What the pass needs of a GEMM that overwrites its output: a library
/// GEMM or a dlc.conv_gemm.
struct GemmView {
  Operation *op = nullptr;
  SmallVector<Value> inputs;
  Value output;
  int64_t m = 0, mStride = -1; ///< M's size and its stride in the output
};

std::optional<GemmView> gemmView(Operation *op) {
  GemmView g;
  g.op = op;
  SmallVector<int64_t> outStrides;
  if (auto conv = dyn_cast<dlc::ConvGemmOp>(op)) {
    if (!conv.getOverwrite() || !stridesOf(conv.getOutput(), outStrides))
      return std::nullopt;
    g.inputs = {conv.getInput(), conv.getFilter()};
    g.output = conv.getOutput();
    g.m = conv.getFilter().getType().getDimSize(0);
    g.mStride = outStrides[1]; // output [N, F, pixels]
    return g;
  }
  auto gemm = dyn_cast<linalg::LinalgOp>(op);
  if (!gemm || !dlc::isLibraryGemm(gemm) || !gemm->hasAttr(dlc::kGemmOverwriteAttr))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(gemm);
  g.output = gemm.getDpsInits()[0];
  if (failed(dims) || !stridesOf(g.output, outStrides))
    return std::nullopt;
  g.inputs = llvm::to_vector(gemm.getDpsInputs());
  g.m = gemm.getStaticLoopRanges()[dims->m[0]];
  AffineMap outMap = gemm.getMatchingIndexingMap(gemm.getDpsInitOperand(0));
  for (auto [r, expr] : llvm::enumerate(outMap.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(expr); d && d.getPosition() == dims->m[0])
      g.mStride = outStrides[r];
  return g;
}

struct FuseGemmEpiloguePass : dlc::impl::FuseGemmEpilogueBase<FuseGemmEpiloguePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    for (Operation &op : func.getBody().front())
      if (std::optional<GemmView> gemm = gemmView(&op))
        if (std::optional<NamedAttrList> parts = epilogueAfter(*gemm))
          nextEffect(&op)->setAttr(dlc::kGemmEpilogueAttr, parts->getDictionary(&getContext()));
  }

  static Operation *nextEffect(Operation *from) {
    for (Operation *op = from->getNextNode(); op; op = op->getNextNode())
      if (dlc::touchesData(op))
        return op;
    return nullptr;
  }

  /// E's parts, if the op after the GEMM is an epilogue it can take.
  std::optional<NamedAttrList> epilogueAfter(const GemmView &gemm) {
    auto e = dyn_cast_or_null<linalg::GenericOp>(nextEffect(gemm.op));
    if (!e || !e.hasPureBufferSemantics() || e.getNumDpsInits() != 1 ||
        e.getNumReductionLoops() != 0 || e->hasAttr(dlc::kGemmEpilogueAttr) ||
        !e.getMatchingIndexingMap(e.getDpsInitOperand(0)).isIdentity())
      return std::nullopt;
    Value y = e.getDpsInits()[0];
    std::optional<dlc::ByteRange> outRange = dlc::rangeOf(gemm.output), yRange = dlc::rangeOf(y);
    Value outBuffer = rootBuffer(gemm.output);
    auto yType = dyn_cast<MemRefType>(y.getType());
    SmallVector<int64_t> yStrides;
    if (!outRange || !yRange || !outRange->contiguous || !outBuffer || !yType ||
        !yType.getElementType().isF32() || !stridesOf(y, yStrides) ||
        !onlyUsedBy(outBuffer, {gemm.op, e}))
      return std::nullopt;
    for (Value in : gemm.inputs) {
      std::optional<dlc::ByteRange> r = dlc::rangeOf(in);
      if (!r || r->overlaps(*yRange))
        return std::nullopt;
    }
    // E's dim that walks M: y's dim of that size and stride.
    std::optional<unsigned> rowDim;
    for (auto [i, size] : llvm::enumerate(yType.getShape()))
      if (size == gemm.m && yStrides[i] == gemm.mStride)
        rowDim = i;
    if (!rowDim)
      return std::nullopt;

    SmallVector<Role> roles;
    std::optional<unsigned> gemmInput;
    for (OpOperand *in : e.getDpsInputOperands()) {
      Value v = in->get();
      AffineMap map = e.getMatchingIndexingMap(in);
      std::optional<dlc::ByteRange> r = dlc::rangeOf(v);
      auto type = dyn_cast<MemRefType>(v.getType());
      SmallVector<int64_t> strides;
      Role role = Role::Unknown;
      if (r && type && type.getElementType().isF32() && stridesOf(v, strides)) {
        bool sameLayout = map.isIdentity() && type.getShape() == yType.getShape() &&
                          strides == yStrides;
        if (sameLayout && r->same(*outRange) && !gemmInput)
          role = Role::Gemm, gemmInput = in->getOperandNumber();
        else if (sameLayout && !r->overlaps(*outRange) && !r->overlaps(*yRange))
          role = Role::Full;
        else if (type.getRank() == 1 && type.getDimSize(0) == gemm.m && strides[0] == 1 &&
                 map.getNumResults() == 1 &&
                 map.getResult(0) == getAffineDimExpr(*rowDim, &getContext()) &&
                 !r->overlaps(*yRange) && !r->overlaps(*outRange))
          role = Role::Row;
      }
      roles.push_back(role);
    }
    if (!gemmInput)
      return std::nullopt;
    std::optional<Tail> tail = BodyMatcher(roles).match(e);
    if (!tail)
      return std::nullopt;

    Builder b(&getContext());
    NamedAttrList parts;
    auto part = [&](StringRef name, BlockArgument arg) {
      if (arg)
        parts.append(name, b.getI64IntegerAttr(arg.getArgNumber()));
    };
    part("input", tail->main.x);
    part("scale", tail->main.scale);
    part("shift", tail->main.shift);
    part("residual", tail->residual.x);
    part("residual_scale", tail->residual.scale);
    part("residual_shift", tail->residual.shift);
    parts.append("act", b.getI64IntegerAttr(tail->act));
    if (tail->act == 2) {
      parts.append("lo", b.getF32FloatAttr(tail->lo));
      parts.append("hi", b.getF32FloatAttr(tail->hi));
    }
    return parts;
  }
};
} // namespace
