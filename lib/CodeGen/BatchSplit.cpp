//===- BatchSplit.cpp - batch-separable models run one image at a time ----===//
//
// A batch-N model whose ops each act on every image alone (convs, pools,
// inference BatchNorm, elementwise ops, matmuls whose rows are images,
// reshapes that keep the batch as dim 0) computes the same as N runs of its
// batch-1 import, each on the next slice of every input and output. Where
// the batch's activations overflow the cache, dlc compiles that batch-1
// model and the runtime calls it once per image (dlc_model_meta's
// batch_runs): each layer's input and output then stay in cache, and the
// arena is a batch-1 plan. (At batch 8 ResNet-50 ran 90 ms an image
// against 84 at batch 1, MobileNetV2 10.4 against 9.1: the batch-8 layers
// streamed activations of up to 26 MB through memory.)
//
// Separability is checked, not assumed: the batch-N and batch-1 imports of
// one file are walked side by side. Every value computed from the inputs
// must have dim 0 = N in one and 1 in the other with the other dims equal,
// and every op computing one must be on a list of ops that never combine
// elements of different images (softmax, reductions, concat, gather and
// transpose only away from dim 0). Anything else keeps the batched build,
// as do models whose matmuls are mostly matrix-vector products per image
// (rows as images), which only the batched GEMM reuses weights across.
//
// Late layers go the other way: ResNet-50's 14x14 and 7x7 stages hold
// most of its weights (a 256 x 256 3x3 filter, 2.4 MB, for 0.2 MB of an
// image's activations), which an image at a time reads from beyond L2 once
// per image. splitBatchTail cuts the model where running the rest once on
// the batch saves the most (batchGain) and the runtime runs the ops after
// the cut on the batch of the images' cut values (at batch 8 ResNet-50's
// cut lands after its first 14x14 block: 0.957 of the time of the classifier
// cut at one thread, ResNet-18's before its first 14x14 block: 0.946).
//
//===----------------------------------------------------------------------===//
#include "dlc/Compile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace {
/// The batch's largest activation, in bytes, from which running it an
/// image at a time pays: about a 2-core machine's share of the last-level
/// cache. Below it (LeNet, the MLP at batch 8: at most 150 KB) the batched
/// GEMMs reuse each weight across the images and win.
constexpr int64_t kSplitFromBytes = 4 << 20;

/// The images of the batch a core needs for a batch tail that starts
/// before the classifier (see splitBatchTail).
constexpr int64_t kImagesPerCore = 4;

/// Ops that compute each image's output from that image's input alone,
/// given that the shapes check below holds (dim 0 is the batch in and out).
const llvm::StringSet<> &perImageOps() {
  static const llvm::StringSet<> ops = {
      "dlc.relu", "dlc.sigmoid", "dlc.tanh", "dlc.abs", "dlc.neg", "dlc.exp", "dlc.log",
      "dlc.sqrt", "dlc.reciprocal", "dlc.floor", "dlc.ceil", "dlc.round", "dlc.sign",
      "dlc.sin", "dlc.cos", "dlc.tan", "dlc.asin", "dlc.acos", "dlc.atan", "dlc.sinh",
      "dlc.cosh", "dlc.asinh", "dlc.acosh", "dlc.atanh", "dlc.erf", "dlc.softplus",
      "dlc.softsign", "dlc.mish", "dlc.leaky_relu", "dlc.elu", "dlc.celu", "dlc.selu",
      "dlc.hard_sigmoid", "dlc.hard_swish", "dlc.thresholded_relu", "dlc.gelu",
      "dlc.identity", "dlc.clip", "dlc.add", "dlc.sub", "dlc.mul", "dlc.div", "dlc.pow",
      "dlc.max", "dlc.min", "dlc.prelu", "dlc.mod", "dlc.and", "dlc.or", "dlc.xor",
      "dlc.bit_shift", "dlc.compare", "dlc.not", "dlc.is_nan", "dlc.is_inf", "dlc.cast",
      "dlc.where", "dlc.matmul", "dlc.gemm", "dlc.conv", "dlc.max_pool", "dlc.average_pool",
      "dlc.global_average_pool", "dlc.batch_norm", "dlc.dropout", "dlc.flatten",
      "dlc.reshape", "dlc.expand", "dlc.slice",
      // Along an axis other than the batch's (checked in awayFromBatch).
      "dlc.softmax", "dlc.log_softmax", "dlc.reduce", "dlc.gather", "dlc.transpose",
      "dlc.concat"};
  return ops;
}

int64_t normalized(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

/// Whether an op with an axis or a permutation leaves dim 0 alone.
bool awayFromBatch(Operation *op) {
  auto rank = [&] {
    return cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
  };
  if (auto axis = op->getAttrOfType<IntegerAttr>("axis"))
    return normalized(axis.getInt(), rank()) != 0;
  if (auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes"))
    return llvm::none_of(axes.asArrayRef(),
                         [&](int64_t a) { return normalized(a, rank()) == 0; });
  if (auto perm = op->getAttrOfType<DenseI64ArrayAttr>("perm"))
    return !perm.empty() && perm[0] == 0;
  return true;
}

/// `b` is `one` with dim 0 = n instead of 1.
bool batchOf(Type b, Type one, int64_t n) {
  auto bt = dyn_cast<RankedTensorType>(b), ot = dyn_cast<RankedTensorType>(one);
  if (!bt || !ot || bt.getRank() == 0 || bt.getRank() != ot.getRank() ||
      bt.getElementType() != ot.getElementType() || bt.getDimSize(0) != n ||
      ot.getDimSize(0) != 1)
    return false;
  return bt.getShape().drop_front() == ot.getShape().drop_front();
}

/// For a matmul, Gemm or conv: its output rows per image (pixels of a
/// conv; 1 for a matrix-vector product) and its multiply-adds (the rows
/// times the second operand's elements: B or the filter). False for other
/// ops.
bool rowsAndWork(Operation *op, int64_t &rows, int64_t &work) {
  StringRef name = op->getName().getStringRef();
  bool conv = name == "dlc.conv";
  if ((!conv && name != "dlc.matmul" && name != "dlc.gemm") || op->getNumOperands() < 2 ||
      op->getNumResults() != 1)
    return false;
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto weight = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!out || !weight || !out.hasStaticShape() || !weight.hasStaticShape() || out.getRank() < 2)
    return false;
  int64_t features = conv ? out.getDimSize(1) : out.getShape().back();
  rows = out.getNumElements() / std::max<int64_t>(features, 1);
  work = rows * weight.getNumElements();
  return true;
}

int64_t bytesOf(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return 0;
  return rt.getNumElements() * std::max<int64_t>(1, rt.getElementTypeBitWidth() / 8);
}
} // namespace

int64_t dlc::separableBatch(const ImportedModel &batched, const ImportedModel &single,
                            std::string &why) {
  auto mainOf = [](const ImportedModel &m) {
    return m.module ? (*m.module).lookupSymbol<func::FuncOp>("main") : func::FuncOp();
  };
  func::FuncOp bf = mainOf(batched), sf = mainOf(single);
  if (!bf || !sf || batched.inputs.empty()) {
    why = "no main function";
    return 1;
  }
  int64_t n = batched.inputs[0].shape.empty() ? 0 : batched.inputs[0].shape[0];
  if (n <= 1) {
    why = "batch of one";
    return 1;
  }
  if (bf.getNumArguments() != sf.getNumArguments()) {
    why = "the batch-1 import has other inputs";
    return 1;
  }
  llvm::DenseSet<Value> fromInputs;
  for (auto [b, s] : llvm::zip(bf.getArguments(), sf.getArguments())) {
    if (!batchOf(b.getType(), s.getType(), n)) {
      why = "an input without the batch as dim 0";
      return 1;
    }
    fromInputs.insert(b);
  }
  SmallVector<Operation *> bops, sops;
  bf.walk([&](Operation *op) { bops.push_back(op); });
  sf.walk([&](Operation *op) { sops.push_back(op); });
  if (bops.size() != sops.size()) {
    why = "the batch-1 import has other ops";
    return 1;
  }
  int64_t largest = 0;
  // Multiply-adds of the batch-1 model's matmuls and convs, and of those
  // that are matrix-vector products there.
  int64_t work = 0, vectorWork = 0;
  for (auto [b, s] : llvm::zip(bops, sops)) {
    if (b->getName() != s->getName() || b->getNumResults() != s->getNumResults()) {
      why = "the batch-1 import has other ops";
      return 1;
    }
    if (isa<func::FuncOp>(b))
      continue;
    bool derived = llvm::any_of(b->getOperands(), [&](Value v) { return fromInputs.contains(v); });
    if (isa<func::ReturnOp>(b)) {
      for (auto [bv, sv] : llvm::zip(b->getOperands(), s->getOperands()))
        if (!fromInputs.contains(bv) || !batchOf(bv.getType(), sv.getType(), n)) {
          why = "an output without the batch as dim 0";
          return 1;
        }
      continue;
    }
    if (!derived) {
      if (b->getResultTypes() != s->getResultTypes()) {
        why = "a constant that depends on the batch";
        return 1;
      }
      continue;
    }
    StringRef name = b->getName().getStringRef();
    if (!perImageOps().contains(name) || !awayFromBatch(b)) {
      why = "'" + name.str() + "' may combine images";
      return 1;
    }
    for (auto [bv, sv] : llvm::zip(b->getResults(), s->getResults())) {
      if (!batchOf(bv.getType(), sv.getType(), n)) {
        why = "'" + name.str() + "' gives a value without the batch as dim 0";
        return 1;
      }
      fromInputs.insert(bv);
      largest = std::max(largest, bytesOf(bv.getType()));
    }
    int64_t rows = 0, opWork = 0;
    if (rowsAndWork(s, rows, opWork)) {
      work += opWork;
      if (rows == 1)
        vectorWork += opWork;
    }
  }
  if (largest < kSplitFromBytes) {
    why = "the batch's activations fit in cache";
    return 1;
  }
  // An image's matrix-vector product reads each weight once: a batch of n
  // run an image at a time reads them n times, where the batched GEMM
  // reuses each across the images (a 1024 x 1024 MatMul split into 1024
  // rows ran at 0.38 of OpenBLAS, batched at 0.96). A convnet's final
  // classifier is such a product too, a sliver of its work.
  if (vectorWork * 2 > work) {
    why = "its matmuls are matrix-vector products per image: batched, each weight serves every "
          "image";
    return 1;
  }
  return n;
}

namespace {
/// Erases `fn`'s ops whose results nothing uses, last first: what a cut
/// leaves behind (the dlc dialect's ops are Pure).
void eraseDeadOps(func::FuncOp fn) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(fn.getBody().front())))
    if (isOpTriviallyDead(&op))
      op.erase();
}
} // namespace

namespace {
/// What running `op` once on the batch of n images, instead of once an
/// image, saves per image in bytes brought from beyond L2. Only matmuls,
/// Gemms and convs count: the elementwise ops between them fuse into their
/// epilogues, and pools are small. Their weights (operand 1, where
/// constant) are read once instead of n times; their activations, which
/// one image's run keeps in cache, stream through memory once the batch's
/// overflow it (kSplitFromBytes, as for the split itself).
int64_t batchGain(Operation *op, int64_t n, const llvm::DenseSet<Value> &fromInputs) {
  int64_t rows = 0, work = 0;
  if (!rowsAndWork(op, rows, work))
    return 0;
  int64_t weights = fromInputs.contains(op->getOperand(1))
                        ? 0
                        : bytesOf(op->getOperand(1).getType()) * (n - 1) / n;
  int64_t activations = bytesOf(op->getResult(0).getType());
  for (Value v : op->getOperands())
    if (fromInputs.contains(v))
      activations += bytesOf(v.getType());
  return weights - (activations * n > kSplitFromBytes ? activations : 0);
}
} // namespace

bool dlc::splitBatchTail(ImportedModel &single, const ImportedModel &batched, int64_t cores,
                         OwningOpRef<ModuleOp> &tail, TensorSignature &cut,
                         std::string &what) {
  auto mainOf = [](ModuleOp m) { return m.lookupSymbol<func::FuncOp>("main"); };
  func::FuncOp sf = mainOf(*single.module);
  if (!sf || batched.outputs.size() != 1 || sf.getNumResults() != 1 ||
      batched.inputs.empty() || batched.inputs[0].shape.empty())
    return false;
  int64_t n = batched.inputs[0].shape[0];
  SmallVector<Operation *> sops;
  sf.walk([&](Operation *op) { sops.push_back(op); });
  // Values computed from the inputs (and the inputs).
  llvm::DenseSet<Value> fromArgs;
  for (Value a : sf.getArguments())
    fromArgs.insert(a);
  for (Operation *op : sops)
    for (Value v : op->getOperands())
      if (fromArgs.contains(v))
        for (Value r : op->getResults())
          fromArgs.insert(r);
  // The cut: a value after which everything the output needs from the
  // inputs comes through it alone (after op p of the body, it is the one
  // value from the inputs defined up to p and used past p), where the ops
  // after it save the most by running on the batch (batchGain; ties go to
  // the latest cut, the smallest tail). A convnet's classifier alone saves
  // its weights' reads n - 1 times; where late layers' weights outweigh
  // their activations (ResNet's 14x14 and 7x7 stages) the cut moves up
  // before them, but only where each core has at least kImagesPerCore of
  // the batch's images: before the cut the images run side by side, each
  // on its own cores with no synchronization, while the tail shares every
  // layer among all the threads. On the device's 16-core Xeon (AVX-512,
  // ResNet-18 at batch 8, against the classifier's cut) the early cut took
  // 0.87 of the time at 1 thread and 0.92 at 2, but 1.07 at 4, 1.05 at 8
  // and 1.18 at 16. Elsewhere (and where the cores are unknown, a cross
  // build) the cut is the latest that saves.
  bool earlyCut = cores > 0 && cores * kImagesPerCore <= n;
  SmallVector<Operation *> ops;
  for (Operation &op : sf.getBody().front())
    ops.push_back(&op);
  int64_t count = ops.size();
  llvm::DenseMap<Value, int64_t> lastUse;
  for (int64_t i = 0; i < count; ++i)
    for (Value v : ops[i]->getOperands())
      if (fromArgs.contains(v))
        lastUse[v] = i;
  // live[b]: how many such values start (+1) or stop (-1) crossing the
  // boundary b, before op b.
  SmallVector<int64_t> live(count + 1, 0), gainAfter(count + 1, 0);
  for (Value a : sf.getArguments())
    if (lastUse.count(a))
      ++live[0], --live[lastUse[a] + 1];
  for (int64_t i = 0; i < count; ++i)
    for (Value r : ops[i]->getResults())
      if (lastUse.count(r))
        ++live[i + 1], --live[lastUse[r] + 1];
  for (int64_t i = count - 1; i >= 0; --i)
    gainAfter[i] = gainAfter[i + 1] + batchGain(ops[i], n, fromArgs);
  Value cutValue;
  int64_t best = 0, crossing = live[0];
  for (int64_t i = 0; i < count; ++i) {
    crossing += live[i + 1]; // the values from the inputs crossing op i's end
    if (crossing != 1 || ops[i]->getNumResults() != 1)
      continue;
    Value r = ops[i]->getResult(0);
    auto type = dyn_cast<RankedTensorType>(r.getType());
    if (!lastUse.count(r) || lastUse[r] <= i || !type || !type.hasStaticShape() ||
        !type.getElementType().isF32() || type.getRank() < 1 || type.getDimSize(0) != 1)
      continue;
    if (gainAfter[i + 1] > 0 && (gainAfter[i + 1] >= best || !earlyCut)) {
      best = gainAfter[i + 1];
      cutValue = r;
    }
  }
  if (!cutValue)
    return false;
  auto cutType = cast<RankedTensorType>(cutValue.getType());
  // The output must come from the cut and constants alone: walking back
  // from the return, every value stops at the cut or at an op that uses no
  // argument of main (a constant). (The sweep above says so; this checks.)
  SmallVector<Value> work{sf.getBody().front().getTerminator()->getOperand(0)};
  llvm::DenseSet<Value> seen;
  int64_t tailOps = 0;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == cutValue || !fromArgs.contains(v) || !seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def)
      return false; // an input reaches the output around the cut
    ++tailOps;
    for (Value x : def->getOperands())
      work.push_back(x);
  }
  // The tail's first op, for `dlc inspect`.
  Operation *first = nullptr;
  for (Operation *user : cutValue.getUsers())
    if (!first || user->isBeforeInBlock(first))
      first = user;
  int64_t at = llvm::find(sops, cutValue.getDefiningOp()) - sops.begin();
  // The batched twin of the cut (the two imports' ops correspond one to
  // one, as separableBatch checked).
  OwningOpRef<ModuleOp> t = (*batched.module).clone();
  func::FuncOp bf = mainOf(*t);
  SmallVector<Operation *> bops;
  bf.walk([&](Operation *op) { bops.push_back(op); });
  if (bops.size() != sops.size())
    return false;
  Value batchedCut = bops[at]->getResult(0);
  // Tail: main(cut) -> outputs, on the batch.
  Block &body = bf.getBody().front();
  unsigned last = bf.getNumArguments();
  bf.insertArgument(last, batchedCut.getType(), DictionaryAttr(), batchedCut.getLoc());
  BlockArgument arg = bf.getArgument(last);
  batchedCut.replaceAllUsesWith(arg);
  eraseDeadOps(bf);
  llvm::BitVector inputs(body.getNumArguments());
  for (unsigned i = 0; i + 1 < body.getNumArguments(); ++i) {
    if (!body.getArgument(i).use_empty())
      return false;
    inputs.set(i);
  }
  bf.eraseArguments(inputs);
  // Head: main(inputs) -> the cut, one image.
  Operation *ret = sf.getBody().front().getTerminator();
  ret->setOperand(0, cutValue);
  sf.setType(FunctionType::get(sf.getContext(), sf.getArgumentTypes(), {cutType}));
  eraseDeadOps(sf);
  auto shape = cast<RankedTensorType>(arg.getType()).getShape();
  cut.name = "batch_tail_input";
  cut.shape.assign(shape.begin(), shape.end());
  std::string op = first->getName().getStringRef().drop_front(4).str();
  std::string perImage;
  for (int64_t d : cutType.getShape().drop_front())
    perImage += (perImage.empty() ? "" : "x") + std::to_string(d);
  what = op +
         (tailOps > 1
              ? " and " + std::to_string(tailOps - 1) + (tailOps > 2 ? " ops" : " op") + " after it"
              : "") +
         " (" + (cutType.getRank() == 2 ? perImage + " features" : perImage) + " an image)";
  tail = std::move(t);
  return true;
}
