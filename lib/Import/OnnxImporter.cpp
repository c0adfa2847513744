//===- OnnxImporter.cpp - ONNX protobuf to the dlc dialect ----------------===//
//
// One ONNX node becomes one dlc op (or nothing: Identity/Dropout forward
// their input). Integer tensors that only compute shapes (Shape -> Gather ->
// Concat -> Reshape, Constant shape inputs) are evaluated here, so the
// program that reaches the dialect has static shapes. Result types come from
// the dlc ops' own inference; ONNX's checker and shape inference run first
// where the linked libonnx knows the opset, as an extra validity check.
//
//===----------------------------------------------------------------------===//
#include "dlc/Import.h"
#include "dlc/DType.h"
#include "lib/Import/ConstTensor.h"
#include "lib/Import/ResizeTaps.h"
#include "dialects/DlcDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"

#include "onnx/checker.h"
#include "onnx/onnx-ml.pb.h"
#include "onnx/shape_inference/implementation.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <limits>
#include <new>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace mlir;
using namespace dlc::import;
namespace fs = std::filesystem;

namespace {
/// Opsets this importer implements for the default domain.
// Opsets after 21 changed these ops only by adding element types (bfloat16,
// float8, int4...), not semantics; dlc's float32 lowering is the same.
constexpr int64_t kMinOpset = 7, kMaxOpset = 28;
/// The newest ai.onnx opset Debian's libonnx 1.12 checker knows.
constexpr int64_t kCheckerMaxOpset = 17, kCheckerMaxIr = 8;
/// The largest tensor dlc plans: 1 TiB, past any machine it targets (the
/// arena holding it is allocated at dlc_create).
constexpr int64_t kMaxTensorBytes = int64_t(1) << 40;

std::string dtypeName(int32_t t);

struct ImportError {
  std::string message;
};

class Importer {
public:
  Importer(MLIRContext &ctx, std::string path, const dlc::ImportOptions &opts)
      : ctx(ctx), builder(&ctx), path(std::move(path)), opts(opts) {}

  bool run(dlc::ImportedModel &out, std::string &error);

private:
  // --- errors -------------------------------------------------------------
  [[noreturn]] void fail(const std::string &msg) { throw ImportError{path + ": " + msg}; }
  [[noreturn]] void failNode(const std::string &msg) {
    std::ostringstream os;
    os << path << ": node '" << node->name() << "' (#" << nodeIndex << ", "
       << node->op_type() << "): " << msg;
    throw ImportError{os.str()};
  }

  // --- tensors ------------------------------------------------------------
  ConstTensor readTensor(const onnx::TensorProto &t, const std::string &what);
  std::string readExternal(const onnx::TensorProto &t, const std::string &what);
  Value makeConstant(const std::string &name, const ConstTensor &c);
  Type elemType(int32_t dtype);
  int32_t dtypeOf(Type t);
  Value value(int idx);
  /// The element type (ONNX code) of input idx, without reading its data.
  int32_t inputDtype(int idx);
  const ConstTensor *constInput(int idx);
  /// Input `idx` as a list of integers, if given; it must be a constant
  /// (dlc compiles static shapes), else the node fails naming `what`.
  std::optional<std::vector<int64_t>> constInts(int idx, const std::string &what);
  /// "(bind it with --bind NAME=FILE.npy)" for input idx, which must be constant.
  std::string bindHint(int idx);
  std::vector<int64_t> requiredInts(int idx, const std::string &what);
  bool hasInput(int idx) const {
    return idx < node->input_size() && !node->input(idx).empty();
  }
  void setOutput(int idx, Value v);

  // --- attributes ---------------------------------------------------------
  const onnx::AttributeProto *attr(const std::string &name) const {
    for (const auto &a : node->attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  int64_t attrInt(const std::string &name, int64_t dflt) const {
    auto *a = attr(name);
    return a ? a->i() : dflt;
  }
  float attrFloat(const std::string &name, float dflt) const {
    auto *a = attr(name);
    return a ? a->f() : dflt;
  }
  std::string attrString(const std::string &name, const std::string &dflt) const {
    auto *a = attr(name);
    return a ? a->s() : dflt;
  }
  std::optional<std::vector<int64_t>> attrInts(const std::string &name) const {
    auto *a = attr(name);
    if (!a)
      return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }
  void allowOnlyAttrs(std::initializer_list<const char *> known);

  // --- ops ----------------------------------------------------------------
  void importNode();
  bool foldIntNode();
  template <typename OpTy>
  Value build(ValueRange operands, ArrayRef<NamedAttribute> attrs = {});
  RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
  int64_t normAxis(int64_t axis, int64_t rank, bool inclusive = false);
  void windowAttrs(RankedTensorType in, ArrayRef<int64_t> kernel,
                   SmallVectorImpl<NamedAttribute> &attrs, bool ceil);
  Value liftTo2d(Value x);
  Value dropLiftedDim(Value y);
  Value iotaAlong(int64_t n, int64_t axis, int64_t rank);
  /// x gathered along `axis` at positions known at import; `shape` is the
  /// indices' shape (default: 1-D).
  Value gatherAt(Value x, int64_t axis, const std::vector<double> &idx,
                 std::optional<std::vector<int64_t>> shape = std::nullopt);

  bool importElementwise();
  template <typename OpTy>
  Value unary(Value x, ArrayRef<NamedAttribute> attrs = {}) {
    Location loc = NameLoc::get(builder.getStringAttr(node->name()));
    return builder.create<OpTy>(loc, x.getType(), x, attrs).getResult();
  }
  NamedAttribute f32Attr(const char *name, float dflt) {
    return builder.getNamedAttr(name, builder.getF32FloatAttr(attrFloat(name, dflt)));
  }
  bool importLogical();
  bool importComposite();
  void importAttention();
  void importPad();
  void importResize();
  void importEinsum();
  void importScatterOrGatherND();
  Value scatterConst(Value data, Value updates, const std::vector<int64_t> &target,
                     const std::string &reduction);
  std::optional<std::vector<double>> constDoubles(int idx, const std::string &what);
  // Builders for composite ops (decomposed into dlc ops at import).
  Value scalarLike(Value like, double v);
  Value constOf(int32_t dtype, std::vector<int64_t> shape, std::vector<double> vals);
  Value reshapeTo(Value x, ArrayRef<int64_t> shape);
  Value reduce(Value x, const char *kind, ArrayRef<int64_t> axes, bool keepdims);
  Value cmp(Value a, Value b, const char *pred) {
    return build<dlc::CompareOp>({a, b}, {builder.getNamedAttr("predicate", builder.getStringAttr(pred))});
  }
  Value where(Value c, Value a, Value b) { return build<dlc::WhereOp>({c, a, b}); }
  Value negLogLikelihood(Value logProb, Value target, Value weight, std::optional<int64_t> ignore,
                         const std::string &reduction);
  /// Fails the node where a tensor of `shape` and ONNX element type
  /// `dtype` has more than kMaxTensorBytes (or more elements than int64
  /// counts): it could not be planned into an arena, and building it (a
  /// Pad's index map) held the importer for minutes.
  void requirePlannable(ArrayRef<int64_t> shape, int32_t dtype, const std::string &what) {
    if (ShapedType::isDynamicShape(shape))
      return; // bound before compiling (--input-shape)
    int64_t bytes = dlc::dtypeBytes(dtype);
    for (int64_t d : shape)
      if ((d && bytes > kMaxTensorBytes / d) || (bytes *= d) > kMaxTensorBytes)
        failNode(what + " would be over " + std::to_string(kMaxTensorBytes >> 40) +
                 " TiB, more than dlc plans a tensor for");
  }

  void importConv();
  void importConvTranspose();
  void importPool(const std::string &op);
  void importGemm();
  void importClip();
  void importSoftmax();
  void importBatchNorm();
  void importReshape();
  void importReduce(const std::string &kind);
  void importSlice();
  void importSplit();
  Value slice(Value x, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> steps);
  void importSqueeze(bool unsqueeze);

  MLIRContext &ctx;
  OpBuilder builder;
  std::string path;
  const dlc::ImportOptions &opts;
  int64_t opset = 0;
  const onnx::NodeProto *node = nullptr;
  int nodeIndex = -1;
  std::map<std::string, Value> values;
  std::map<std::string, ConstTensor> consts;
  int resourceCounter = 0;
};

std::string dimsToString(ArrayRef<int64_t> dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "x" : "") + std::to_string(dims[i]);
  return s.empty() ? "scalar" : s;
}

/// dlc's name for an ONNX element type, or ONNX's own for one dlc lacks.
std::string dtypeName(int32_t t) {
  if (const char *n = dlc::dtypeName(t))
    return n;
  if (onnx::TensorProto::DataType_IsValid(t))
    return onnx::TensorProto::DataType_Name((onnx::TensorProto::DataType)t);
  return "ONNX type " + std::to_string(t);
}
} // namespace

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

std::string Importer::readExternal(const onnx::TensorProto &t, const std::string &what) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset")
      offset = std::stoll(kv.value());
    else if (kv.key() == "length")
      length = std::stoll(kv.value());
  }
  if (location.empty())
    fail(what + ": external data without a location");
  // External data may only come from files under the model's directory.
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(path).parent_path(), ec);
  fs::path file = fs::weakly_canonical(dir / location, ec);
  auto rel = file.lexically_relative(dir);
  if (fs::path(location).is_absolute() || rel.empty() || *rel.begin() == "..")
    fail(what + ": external data path '" + location +
         "' escapes the model's directory");
  std::ifstream in(file, std::ios::binary);
  if (!in)
    fail(what + ": cannot open external data file '" + location + "'");
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  if (offset < 0 || offset > size || (length >= 0 && offset + length > size))
    fail(what + ": external data range is outside '" + location + "'");
  if (length < 0)
    length = size - offset;
  std::string bytes(length, '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  return bytes;
}

ConstTensor Importer::readTensor(const onnx::TensorProto &t, const std::string &what) {
  ConstTensor c;
  c.shape.assign(t.dims().begin(), t.dims().end());
  for (int64_t d : c.shape)
    if (d < 0)
      fail(what + ": negative dim in tensor");
  int32_t dt = t.data_type();
  if (!dlc::dtypeName(dt))
    fail(what + ": unsupported tensor element type " + dtypeName(dt));
  c.dtype = dt;
  int64_t n = c.numel(), width = dlc::dtypeBytes(dt);
  std::string raw = t.data_location() == onnx::TensorProto::EXTERNAL
                        ? readExternal(t, what)
                        : t.raw_data();
  // The typed field each element type uses when raw_data is empty.
  int typedCount = 0;
  switch (dt) {
  case onnx::TensorProto::FLOAT: typedCount = t.float_data_size(); break;
  case onnx::TensorProto::DOUBLE: typedCount = t.double_data_size(); break;
  case onnx::TensorProto::INT64: typedCount = t.int64_data_size(); break;
  case onnx::TensorProto::UINT32: case onnx::TensorProto::UINT64: typedCount = t.uint64_data_size(); break;
  default: typedCount = t.int32_data_size(); break;
  }
  bool useRaw = !raw.empty() || typedCount == 0;
  if (useRaw && raw.size() != (size_t)(n * width))
    fail(what + ": tensor holds " + std::to_string(raw.size()) + " bytes, expected " +
         std::to_string(n * width) + " (truncated?)");
  if (!useRaw && typedCount != n)
    fail(what + ": " + dtypeName(dt) + " tensor has " + std::to_string(typedCount) +
         " elements, expected " + std::to_string(n));
  (c.isInt() ? c.i.resize(n) : c.f.resize(n));
  for (int64_t k = 0; k < n; ++k) {
    const char *p = raw.data() + k * width;
    if (c.isInt()) {
      c.i[k] = useRaw ? dlc::loadInteger(dt, p)
               : dt == onnx::TensorProto::INT64 ? t.int64_data(k)
               : (dt == onnx::TensorProto::UINT32 || dt == onnx::TensorProto::UINT64)
                   ? (int64_t)t.uint64_data(k)
                   : t.int32_data(k);
      continue;
    }
    switch (dt) {
    case onnx::TensorProto::FLOAT: c.f[k] = useRaw ? loadLE<float>(p) : t.float_data(k); break;
    case onnx::TensorProto::DOUBLE: c.f[k] = useRaw ? loadLE<double>(p) : t.double_data(k); break;
    default: // FLOAT16, BFLOAT16: the bits, raw or in int32_data
      c.f[k] = halfToDouble(useRaw ? loadLE<uint16_t>(p) : (uint16_t)t.int32_data(k),
                            dt == onnx::TensorProto::BFLOAT16);
      break;
    }
  }
  // int32_data holds narrow integers widened: wrap them to their type (and
  // bools to 0/1), as the raw bytes would have been.
  return c.isInt() && !useRaw ? castConst(c, dt) : c;
}

Type Importer::elemType(int32_t dtype) {
  switch (dtype) {
  case dlc::kFloat32: return builder.getF32Type();
  case dlc::kFloat64: return builder.getF64Type();
  case dlc::kFloat16: return builder.getF16Type();
  case dlc::kBFloat16: return builder.getBF16Type();
  case dlc::kBool: return builder.getI1Type();
  default:
    return IntegerType::get(&ctx, dlc::dtypeBytes(dtype) * 8,
                            dlc::dtypeIsUnsigned(dtype) ? IntegerType::Unsigned
                                                        : IntegerType::Signless);
  }
}

int32_t Importer::dtypeOf(Type t) {
  t = getElementTypeOrSelf(t);
  if (t.isF32()) return dlc::kFloat32;
  if (t.isF64()) return dlc::kFloat64;
  if (t.isF16()) return dlc::kFloat16;
  if (t.isBF16()) return dlc::kBFloat16;
  if (t.isInteger(1)) return dlc::kBool;
  bool u = t.isUnsignedInteger();
  switch (t.getIntOrFloatBitWidth()) {
  case 8: return u ? dlc::kUInt8 : dlc::kInt8;
  case 16: return u ? dlc::kUInt16 : dlc::kInt16;
  case 32: return u ? dlc::kUInt32 : dlc::kInt32;
  default: return u ? dlc::kUInt64 : dlc::kInt64;
  }
}

Value Importer::makeConstant(const std::string &name, const ConstTensor &c) {
  auto type = RankedTensorType::get(c.shape, elemType(c.dtype));
  // Weights live in a resource blob: no copy into an inline attribute.
  // Scalars and tiny vectors stay inline, where folders can read them, and
  // so does bool data (DenseElementsAttr packs i1 bits; blobs hold bytes).
  ElementsAttr attr;
  std::vector<char> bytes = packConst(c, c.dtype);
  if (c.dtype == dlc::kBool) {
    std::vector<bool> bits(c.i.begin(), c.i.end());
    SmallVector<bool> b(bits.begin(), bits.end());
    attr = DenseElementsAttr::get(type, ArrayRef<bool>(b));
  } else if (c.numel() <= 16) {
    attr = DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(bytes));
  } else {
    std::string blobName = "w" + std::to_string(resourceCounter++);
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(bytes),
                                                              dlc::dtypeBytes(c.dtype));
    attr = DenseResourceElementsAttr::get(type, blobName, std::move(blob));
  }
  Location loc = NameLoc::get(builder.getStringAttr(name));
  auto op = builder.create<dlc::ConstantOp>(loc, type, attr);
  values[name] = op.getResult();
  return op.getResult();
}

int32_t Importer::inputDtype(int idx) {
  if (!hasInput(idx))
    failNode("missing required input #" + std::to_string(idx));
  const std::string &name = node->input(idx);
  if (auto it = values.find(name); it != values.end())
    return dtypeOf(it->second.getType());
  if (auto c = consts.find(name); c != consts.end())
    return c->second.dtype;
  failNode("input '" + name + "' is not produced by any node, initializer or graph input");
}

Value Importer::value(int idx) {
  if (hasInput(idx))
    if (auto c = consts.find(node->input(idx)); c != consts.end() && c->second.numel() == 0)
      failNode("zero-size tensors (input '" + node->input(idx) + "') are not supported");
  if (!hasInput(idx))
    failNode("missing required input #" + std::to_string(idx));
  const std::string &name = node->input(idx);
  auto it = values.find(name);
  // Zero-size results may exist (an empty Split part) but not be used.
  if (it != values.end() && cast<RankedTensorType>(it->second.getType()).getNumElements() == 0)
    failNode("zero-size tensors (input '" + name + "') are not supported");
  if (it != values.end())
    return it->second;
  auto c = consts.find(name);
  if (c != consts.end())
    return makeConstant(name, c->second);
  failNode("input '" + name + "' is not produced by any node, initializer or graph input");
}

std::string Importer::bindHint(int idx) {
  std::string name = hasInput(idx) ? node->input(idx) : "NAME";
  return "(bind it with --bind " + name + "=FILE.npy)";
}

const ConstTensor *Importer::constInput(int idx) {
  if (!hasInput(idx))
    return nullptr;
  auto it = consts.find(node->input(idx));
  return it == consts.end() ? nullptr : &it->second;
}

std::optional<std::vector<int64_t>> Importer::constInts(int idx, const std::string &what) {
  if (!hasInput(idx))
    return std::nullopt;
  const ConstTensor *c = constInput(idx);
  if (!c || !c->isInt())
    failNode(what + " must be a constant " + bindHint(idx));
  return c->i;
}

std::vector<int64_t> Importer::requiredInts(int idx, const std::string &what) {
  if (auto v = constInts(idx, what))
    return *v;
  failNode("missing required input #" + std::to_string(idx) + " (" + what + ")");
}

void Importer::setOutput(int idx, Value v) {
  // The op's own verifier (operand element types, attributes) speaks for
  // this node, not later for the whole module.
  if (Operation *op = v.getDefiningOp(); op && !isa<dlc::ConstantOp>(op)) {
    std::string diag;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      if (diag.empty())
        diag = d.str();
      return success();
    });
    if (failed(mlir::verify(op)))
      failNode(diag.empty() ? "invalid operands" : diag);
  }
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    requirePlannable(t.getShape(), dtypeOf(t), "output #" + std::to_string(idx));
  if (idx < node->output_size() && !node->output(idx).empty())
    values[node->output(idx)] = v;
}

void Importer::allowOnlyAttrs(std::initializer_list<const char *> known) {
  for (const auto &a : node->attribute()) {
    bool ok = false;
    for (const char *k : known)
      ok |= a.name() == k;
    if (!ok)
      failNode("unsupported attribute '" + a.name() + "'");
  }
}

int64_t Importer::normAxis(int64_t axis, int64_t rank, bool inclusive) {
  int64_t limit = inclusive ? rank + 1 : rank;
  if (axis < -rank || axis >= limit)
    failNode("axis " + std::to_string(axis) + " out of range for rank " +
             std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

/// Creates `OpTy` with its inferred result type. Inference failures become
/// import errors (the generated builders would abort instead).
template <typename OpTy>
Value Importer::build(ValueRange operands, ArrayRef<NamedAttribute> attrs) {
  Location loc = NameLoc::get(
      builder.getStringAttr(node->name().empty() ? node->op_type() : node->name()),
      FileLineColLoc::get(&ctx, path, nodeIndex, 0));
  OperationState state(loc, OpTy::getOperationName());
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(UnrankedTensorType::get(builder.getF32Type()));
  Operation *op = builder.create(state);
  SmallVector<Type> types;
  std::string diag;
  {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      diag = d.str();
      return success();
    });
    if (failed(cast<InferTypeOpInterface>(op).inferReturnTypes(
            &ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), types))) {
      op->erase();
      failNode(diag.empty() ? "cannot infer the result type" : diag);
    }
  }
  op->getResult(0).setType(types[0]);
  return op->getResult(0);
}

//===----------------------------------------------------------------------===//
// Shape computations on integer constants
//===----------------------------------------------------------------------===//

/// Evaluates integer nodes whose inputs are all known constants (the
/// shape-computing subgraphs exporters emit). Returns false if not foldable.
bool Importer::foldIntNode() {
  const std::string &op = node->op_type();
  std::vector<const ConstTensor *> in;
  for (int i = 0; i < node->input_size(); ++i) {
    if (node->input(i).empty()) {
      in.push_back(nullptr);
      continue;
    }
    const ConstTensor *c = constInput(i);
    if (!c && op != "Shape" && op != "Size") // they only need the static type
      return false;
    in.push_back(c);
  }
  auto put = [&](ConstTensor c) { consts[node->output(0)] = std::move(c); };
  auto ints = [](std::vector<int64_t> v, std::vector<int64_t> shape) {
    ConstTensor c;
    c.dtype = onnx::TensorProto::INT64;
    c.i = std::move(v);
    c.shape = std::move(shape);
    return c;
  };
  if (op == "Shape") {
    std::vector<int64_t> shape;
    if (const ConstTensor *c = in.empty() ? nullptr : in[0])
      shape = c->shape;
    else
      shape = std::vector<int64_t>(typeOf(value(0)).getShape().begin(),
                                   typeOf(value(0)).getShape().end());
    int64_t rank = shape.size();
    int64_t start = attrInt("start", 0), end = attrInt("end", rank);
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
    std::vector<int64_t> v(shape.begin() + start, shape.begin() + std::max(start, end));
    put(ints(v, {(int64_t)v.size()}));
    return true;
  }
  if (op == "Size") {
    int64_t n = 1;
    if (const ConstTensor *c = in.empty() ? nullptr : in[0])
      n = c->numel();
    else
      n = typeOf(value(0)).getNumElements();
    put(ints({n}, {}));
    return true;
  }
  // Elementwise arithmetic, comparisons and logic on (small) constants.
  bool small = std::all_of(in.begin(), in.end(),
                           [](const ConstTensor *c) { return c && c->numel() <= (1 << 16); });
  if (small && !in.empty()) {
    std::string error;
    if (auto r = evalElementwise(op, in, attrInt("fmod", 0) != 0, error)) {
      put(*r);
      return true;
    }
    if (!error.empty())
      failNode(error);
  }
  if (op == "Range") {
    if (in.size() != 3 || !in[0] || !in[1] || !in[2])
      return false;
    double start = in[0]->asDouble(0), limit = in[1]->asDouble(0), delta = in[2]->asDouble(0);
    if (delta == 0)
      failNode("Range with delta 0");
    int64_t n = std::max<int64_t>(0, (int64_t)std::ceil((limit - start) / delta));
    ConstTensor r;
    r.dtype = in[0]->isInt() ? dlc::kInt64 : dlc::kFloat64;
    r.shape = {n};
    for (int64_t k = 0; k < n; ++k)
      if (in[0]->isInt())
        r.i.push_back(in[0]->i[0] + k * in[2]->i[0]);
      else
        r.f.push_back(start + k * delta);
    put(castConst(r, in[0]->dtype));
    return true;
  }
  if (in.empty() || !in[0] || !in[0]->isInt())
    return false;
  const ConstTensor &a = *in[0];
  if (op == "Identity") {
    put(a);
    return true;
  }
  if (op == "Gather" && in.size() == 2 && in[1] && in[1]->isInt()) {
    int64_t axis = attrInt("axis", 0);
    if (a.shape.size() != 1 || axis != 0)
      return false;
    std::vector<int64_t> v;
    for (int64_t idx : in[1]->i) {
      int64_t n = a.shape[0];
      if (idx < -n || idx >= n)
        failNode("gather index " + std::to_string(idx) + " out of range");
      v.push_back(a.i[idx < 0 ? idx + n : idx]);
    }
    ConstTensor g = ints(v, in[1]->shape);
    g.dtype = a.dtype;
    put(g);
    return true;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::vector<int64_t> axes;
    if (auto at = attrInts("axes"))
      axes = *at;
    else if (in.size() > 1 && in[1])
      axes = in[1]->i;
    std::vector<int64_t> shape = a.shape;
    if (op == "Unsqueeze") {
      int64_t outRank = shape.size() + axes.size();
      for (int64_t &x : axes)
        x = x < 0 ? x + outRank : x;
      std::sort(axes.begin(), axes.end());
      for (int64_t x : axes)
        shape.insert(shape.begin() + std::min<int64_t>(x, shape.size()), 1);
    } else {
      std::vector<int64_t> s;
      for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
        bool drop = axes.empty() ? shape[i] == 1
                                 : std::count(axes.begin(), axes.end(), i) ||
                                       std::count(axes.begin(), axes.end(), i - (int64_t)shape.size());
        if (!drop)
          s.push_back(shape[i]);
      }
      shape = s;
    }
    ConstTensor r = a;
    r.shape = shape;
    put(r);
    return true;
  }
  if (op == "Concat") {
    std::vector<int64_t> v;
    for (const ConstTensor *c : in) {
      if (!c || !c->isInt() || c->shape.size() > 1)
        return false;
      v.insert(v.end(), c->i.begin(), c->i.end());
    }
    put(ints(v, {(int64_t)v.size()}));
    return true;
  }
  if (op == "Slice" && a.shape.size() == 1) {
    int64_t n = a.shape[0];
    auto get = [&](int i, const char *name, int64_t dflt) -> int64_t {
      if (opset < 10) {
        auto v = attrInts(name);
        return v && !v->empty() ? (*v)[0] : dflt;
      }
      return i < (int)in.size() && in[i] && !in[i]->i.empty() ? in[i]->i[0] : dflt;
    };
    int64_t start = get(1, "starts", 0), end = get(2, "ends", n), step = get(4, "", 1);
    if (step != 1)
      return false;
    start = std::clamp<int64_t>(start < 0 ? start + n : start, 0, n);
    end = std::clamp<int64_t>(end < 0 ? end + n : end, 0, n);
    std::vector<int64_t> v(a.i.begin() + start, a.i.begin() + std::max(start, end));
    put(ints(v, {(int64_t)v.size()}));
    return true;
  }
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && in.size() == 2 &&
      in[1] && a.dtype == dlc::kInt64 && in[1]->dtype == dlc::kInt64) {
    const ConstTensor &b = *in[1];
    size_t n = std::max(a.i.size(), b.i.size());
    if ((a.i.size() != n && a.i.size() != 1) || (b.i.size() != n && b.i.size() != 1))
      return false;
    std::vector<int64_t> v(n);
    for (size_t k = 0; k < n; ++k) {
      int64_t x = a.i[a.i.size() == 1 ? 0 : k], y = b.i[b.i.size() == 1 ? 0 : k];
      if (op == "Div" && y == 0)
        failNode("integer division by zero in a shape computation");
      v[k] = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y;
    }
    put(ints(v, a.i.size() >= b.i.size() ? a.shape : b.shape));
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

void Importer::windowAttrs(RankedTensorType in, ArrayRef<int64_t> kernel,
                           SmallVectorImpl<NamedAttribute> &attrs, bool ceil) {
  // 1-D windows run as 2-D ones over a height of 1 (the caller reshapes
  // [N, C, L] to [N, C, 1, L]); their attributes gain a leading 1 or 0.
  int64_t spatial = in.getRank() - 2;
  if (spatial != 1 && spatial != 2)
    failNode("only 1-D and 2-D windows are supported (input rank " +
             std::to_string(in.getRank()) + ")");
  size_t d = spatial;
  std::vector<int64_t> strides = attrInts("strides").value_or(std::vector<int64_t>(d, 1));
  std::vector<int64_t> dil = attrInts("dilations").value_or(std::vector<int64_t>(d, 1));
  std::vector<int64_t> pads = attrInts("pads").value_or(std::vector<int64_t>(2 * d, 0));
  if (strides.size() != d || dil.size() != d || pads.size() != 2 * d || kernel.size() != d)
    failNode("kernel_shape/strides/dilations need " + std::to_string(d) + " values and pads " +
             std::to_string(2 * d));
  for (int64_t v : kernel)
    if (v <= 0)
      failNode("kernel_shape must be positive");
  for (int64_t v : strides)
    if (v <= 0)
      failNode("strides must be positive");
  for (int64_t v : dil)
    if (v <= 0)
      failNode("dilations must be positive");
  for (int64_t v : pads)
    if (v < 0)
      failNode("negative pads are not supported");
  std::string autoPad = attrString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    pads.assign(2 * d, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < d; ++i) {
      int64_t inSize = in.getDimSize(2 + i);
      int64_t out = (inSize + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - inSize);
      int64_t small = total / 2, big = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : big;
      pads[i + d] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad != "NOTSET") {
    failNode("unsupported auto_pad '" + autoPad + "'");
  }
  if (d == 1) {
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  attrs.push_back(builder.getNamedAttr("strides", builder.getDenseI64ArrayAttr(strides)));
  attrs.push_back(builder.getNamedAttr("pads", builder.getDenseI64ArrayAttr(pads)));
  attrs.push_back(builder.getNamedAttr("dilations", builder.getDenseI64ArrayAttr(dil)));
  if (ceil)
    attrs.push_back(builder.getNamedAttr("ceil_mode", builder.getBoolAttr(true)));
}

/// [N, C, L] as [N, C, 1, L], for 1-D windows run as 2-D ones.
Value Importer::liftTo2d(Value x) {
  auto s = typeOf(x).getShape();
  return reshapeTo(x, {s[0], s[1], 1, s[2]});
}

/// int64 0..n-1 laid along `axis` of a rank-`rank` shape of ones.
Value Importer::iotaAlong(int64_t n, int64_t axis, int64_t rank) {
  std::vector<int64_t> shape(rank, 1);
  shape[axis] = n;
  std::vector<double> v(n);
  for (int64_t k = 0; k < n; ++k)
    v[k] = (double)k;
  return constOf(dlc::kInt64, shape, v);
}

Value Importer::gatherAt(Value x, int64_t axis, const std::vector<double> &idx,
                         std::optional<std::vector<int64_t>> shape) {
  Value indices = constOf(dlc::kInt64, shape.value_or(std::vector<int64_t>{(int64_t)idx.size()}), idx);
  return build<dlc::GatherOp>({x, indices},
                              {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis)),
                               builder.getNamedAttr("elements", builder.getBoolAttr(false))});
}

Value Importer::dropLiftedDim(Value y) {
  auto s = typeOf(y).getShape();
  return reshapeTo(y, {s[0], s[1], s[3]});
}

/// Elementwise ops beyond the CNN basics: unary math, parameterised
/// activations, and variadic/binary Max, Min, Sum, Mean, Pow, PRelu.
bool Importer::importElementwise() {
  using Fn = std::function<Value(Importer &, Value)>;
  static const std::map<std::string, std::pair<std::vector<const char *>, Fn>> unaryOps = {
      {"Abs", {{}, [](Importer &i, Value x) { return i.unary<dlc::AbsOp>(x); }}},
      {"Neg", {{}, [](Importer &i, Value x) { return i.unary<dlc::NegOp>(x); }}},
      {"Exp", {{}, [](Importer &i, Value x) { return i.unary<dlc::ExpOp>(x); }}},
      {"Log", {{}, [](Importer &i, Value x) { return i.unary<dlc::LogOp>(x); }}},
      {"Sqrt", {{}, [](Importer &i, Value x) { return i.unary<dlc::SqrtOp>(x); }}},
      {"Reciprocal", {{}, [](Importer &i, Value x) { return i.unary<dlc::ReciprocalOp>(x); }}},
      {"Floor", {{}, [](Importer &i, Value x) { return i.unary<dlc::FloorOp>(x); }}},
      {"Ceil", {{}, [](Importer &i, Value x) { return i.unary<dlc::CeilOp>(x); }}},
      {"Round", {{}, [](Importer &i, Value x) { return i.unary<dlc::RoundOp>(x); }}},
      {"Sign", {{}, [](Importer &i, Value x) { return i.unary<dlc::SignOp>(x); }}},
      {"Sin", {{}, [](Importer &i, Value x) { return i.unary<dlc::SinOp>(x); }}},
      {"Cos", {{}, [](Importer &i, Value x) { return i.unary<dlc::CosOp>(x); }}},
      {"Tan", {{}, [](Importer &i, Value x) { return i.unary<dlc::TanOp>(x); }}},
      {"Asin", {{}, [](Importer &i, Value x) { return i.unary<dlc::AsinOp>(x); }}},
      {"Acos", {{}, [](Importer &i, Value x) { return i.unary<dlc::AcosOp>(x); }}},
      {"Atan", {{}, [](Importer &i, Value x) { return i.unary<dlc::AtanOp>(x); }}},
      {"Sinh", {{}, [](Importer &i, Value x) { return i.unary<dlc::SinhOp>(x); }}},
      {"Cosh", {{}, [](Importer &i, Value x) { return i.unary<dlc::CoshOp>(x); }}},
      {"Asinh", {{}, [](Importer &i, Value x) { return i.unary<dlc::AsinhOp>(x); }}},
      {"Acosh", {{}, [](Importer &i, Value x) { return i.unary<dlc::AcoshOp>(x); }}},
      {"Atanh", {{}, [](Importer &i, Value x) { return i.unary<dlc::AtanhOp>(x); }}},
      {"Erf", {{}, [](Importer &i, Value x) { return i.unary<dlc::ErfOp>(x); }}},
      {"Softplus", {{}, [](Importer &i, Value x) { return i.unary<dlc::SoftplusOp>(x); }}},
      {"Softsign", {{}, [](Importer &i, Value x) { return i.unary<dlc::SoftsignOp>(x); }}},
      {"Mish", {{}, [](Importer &i, Value x) { return i.unary<dlc::MishOp>(x); }}},
      {"HardSwish", {{}, [](Importer &i, Value x) { return i.unary<dlc::HardSwishOp>(x); }}},
      {"LeakyRelu", {{"alpha"}, [](Importer &i, Value x) {
         return i.unary<dlc::LeakyReluOp>(x, {i.f32Attr("alpha", 0.01f)}); }}},
      {"Elu", {{"alpha"}, [](Importer &i, Value x) {
         return i.unary<dlc::EluOp>(x, {i.f32Attr("alpha", 1.0f)}); }}},
      {"Celu", {{"alpha"}, [](Importer &i, Value x) {
         return i.unary<dlc::CeluOp>(x, {i.f32Attr("alpha", 1.0f)}); }}},
      {"Selu", {{"alpha", "gamma"}, [](Importer &i, Value x) {
         return i.unary<dlc::SeluOp>(x, {i.f32Attr("alpha", 1.67326319217681884765625f),
                                         i.f32Attr("gamma", 1.05070102214813232421875f)}); }}},
      {"HardSigmoid", {{"alpha", "beta"}, [](Importer &i, Value x) {
         return i.unary<dlc::HardSigmoidOp>(x, {i.f32Attr("alpha", 0.2f), i.f32Attr("beta", 0.5f)}); }}},
      {"ThresholdedRelu", {{"alpha"}, [](Importer &i, Value x) {
         return i.unary<dlc::ThresholdedReluOp>(x, {i.f32Attr("alpha", 1.0f)}); }}},
      {"Gelu", {{"approximate"}, [](Importer &i, Value x) {
         std::string approx = i.attrString("approximate", "none");
         if (approx != "none" && approx != "tanh")
           i.failNode("unsupported approximate='" + approx + "'");
         return i.unary<dlc::GeluOp>(x, {i.builder.getNamedAttr(
                                            "tanh_approximation", i.builder.getBoolAttr(approx == "tanh"))}); }}},
  };
  const std::string &op = node->op_type();
  if (auto it = unaryOps.find(op); it != unaryOps.end()) {
    for (const auto &a : node->attribute())
      if (std::find_if(it->second.first.begin(), it->second.first.end(),
                       [&](const char *k) { return a.name() == k; }) == it->second.first.end())
        failNode("unsupported attribute '" + a.name() + "'");
    setOutput(0, it->second.second(*this, value(0)));
    return true;
  }
  if (op == "Pow" || op == "PRelu") {
    allowOnlyAttrs({});
    Value a = value(0), b = value(1);
    setOutput(0, op == "Pow" ? build<dlc::PowOp>({a, b}) : build<dlc::PReluOp>({a, b}));
    return true;
  }
  if (op == "Max" || op == "Min" || op == "Sum" || op == "Mean") {
    allowOnlyAttrs({});
    if (node->input_size() == 0)
      failNode(op + " needs at least one input");
    Value acc = value(0);
    for (int i = 1; i < node->input_size(); ++i) {
      Value x = value(i);
      acc = op == "Max"   ? build<dlc::MaxOp>({acc, x})
            : op == "Min" ? build<dlc::MinOp>({acc, x})
                          : build<dlc::AddOp>({acc, x});
    }
    if (op == "Mean" && node->input_size() > 1) {
      ConstTensor inv;
      inv.f = {1.0 / node->input_size()};
      inv = castConst(inv, dtypeOf(acc.getType()));
      acc = build<dlc::MulOp>({acc, makeConstant(node->output(0) + ".inv_count", inv)});
    }
    setOutput(0, acc);
    return true;
  }
  return false;
}

Value Importer::constOf(int32_t dtype, std::vector<int64_t> shape, std::vector<double> vals) {
  ConstTensor c;
  c.dtype = dlc::kFloat64;
  c.shape = std::move(shape);
  c.f = std::move(vals);
  std::string name = (node->name().empty() ? node->op_type() : node->name()) + ".const" +
                     std::to_string(resourceCounter);
  return makeConstant(name, castConst(c, dtype));
}

/// A rank-0 constant of `like`'s element type (broadcasts anywhere).
Value Importer::scalarLike(Value like, double v) {
  return constOf(dtypeOf(like.getType()), {}, {v});
}

Value Importer::reshapeTo(Value x, ArrayRef<int64_t> shape) {
  if (typeOf(x).getShape() == shape)
    return x;
  return build<dlc::ReshapeOp>(x, {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape)),
                                   builder.getNamedAttr("allowzero", builder.getBoolAttr(true))});
}

Value Importer::reduce(Value x, const char *kind, ArrayRef<int64_t> axes, bool keepdims) {
  return build<dlc::ReduceOp>(x, {builder.getNamedAttr("kind", builder.getStringAttr(kind)),
                                  builder.getNamedAttr("axes", builder.getDenseI64ArrayAttr(axes)),
                                  builder.getNamedAttr("keepdims", builder.getBoolAttr(keepdims))});
}

std::optional<std::vector<double>> Importer::constDoubles(int idx, const std::string &what) {
  if (!hasInput(idx))
    return std::nullopt;
  const ConstTensor *c = constInput(idx);
  if (!c)
    failNode(what + " must be a constant " + bindHint(idx));
  std::vector<double> v(c->numel());
  for (int64_t k = 0; k < c->numel(); ++k)
    v[k] = c->asDouble(k);
  return v;
}

/// Resize and Upsample with static sizes: per resized axis, one gather of
/// the input per tap (see ResizeTaps.h) weighted and summed; nearest is a
/// single gather, exact for every element type.
void Importer::importResize() {
  bool upsample = node->op_type() == "Upsample";
  ResizeMode m;
  m.mode = attrString("mode", "nearest");
  std::optional<std::vector<double>> roi, scales;
  std::optional<std::vector<int64_t>> sizes;
  std::vector<int64_t> axes;
  std::string keep = "stretch";
  double extrapolation = 0;
  if (upsample || opset < 11) {
    // Upsample and Resize-10: asymmetric coordinates, nearest rounds down.
    allowOnlyAttrs({"mode", "scales"});
    m.coordinates = "asymmetric";
    m.nearest = "floor";
    if (upsample && opset < 9) {
      auto a = attr("scales");
      if (!a)
        failNode("missing attribute scales");
      scales = std::vector<double>(a->floats().begin(), a->floats().end());
    } else {
      scales = constDoubles(1, "scales");
    }
  } else {
    allowOnlyAttrs({"antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a",
                    "exclude_outside", "extrapolation_value", "keep_aspect_ratio_policy",
                    "mode", "nearest_mode"});
    m.coordinates = attrString("coordinate_transformation_mode", "half_pixel");
    m.nearest = attrString("nearest_mode", "round_prefer_floor");
    m.cubicA = attrFloat("cubic_coeff_a", -0.75f);
    m.excludeOutside = attrInt("exclude_outside", 0);
    m.antialias = attrInt("antialias", 0);
    extrapolation = attrFloat("extrapolation_value", 0.0f);
    keep = attrString("keep_aspect_ratio_policy", "stretch");
    // roi matters to tf_crop_and_resize only; elsewhere it may be anything.
    if (m.coordinates == "tf_crop_and_resize")
      roi = constDoubles(1, "roi");
    scales = constDoubles(2, "scales");
    sizes = constInts(3, "sizes");
    if (scales && scales->empty())
      scales.reset();
    if (roi && roi->empty())
      roi.reset();
    if (auto a = attrInts("axes"))
      axes = *a;
  }
  Value x = value(0);
  auto t = typeOf(x);
  int64_t rank = t.getRank();
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a)
      axes.push_back(a);
  for (int64_t &a : axes)
    a = normAxis(a, rank);
  size_t na = axes.size();
  if ((scales && sizes) || (!scales && !sizes))
    failNode("exactly one of scales and sizes must be given");
  if ((scales && scales->size() != na) || (sizes && sizes->size() != na))
    failNode("scales/sizes need one value per resized axis (" + std::to_string(na) + ")");
  if (roi && roi->size() != 2 * na)
    failNode("roi needs 2 values per resized axis");
  if (m.mode != "nearest" && !isa<FloatType>(t.getElementType()))
    failNode("mode '" + m.mode + "' needs a float input");

  // Scale and output size per axis, as ONNX's reference derives them.
  std::vector<double> scale(rank, 1.0);
  std::vector<int64_t> outSize(t.getShape().begin(), t.getShape().end());
  if (sizes) {
    for (size_t k = 0; k < na; ++k)
      scale[axes[k]] = (double)(*sizes)[k] / t.getDimSize(axes[k]), outSize[axes[k]] = (*sizes)[k];
    if (keep != "stretch") {
      if (keep != "not_larger" && keep != "not_smaller")
        failNode("unsupported keep_aspect_ratio_policy '" + keep + "'");
      double s = scale[axes[0]];
      for (int64_t a : axes)
        s = keep == "not_larger" ? std::min(s, scale[a]) : std::max(s, scale[a]);
      for (int64_t a : axes)
        scale[a] = s, outSize[a] = (int64_t)(s * t.getDimSize(a) + 0.5);
    }
  } else {
    for (size_t k = 0; k < na; ++k)
      scale[axes[k]] = (*scales)[k],
      outSize[axes[k]] = (int64_t)((*scales)[k] * t.getDimSize(axes[k]));
  }
  for (int64_t a : axes)
    if (outSize[a] <= 0)
      failNode("the output would have no elements along axis " + std::to_string(a));

  for (size_t k = 0; k < na; ++k) {
    int64_t a = axes[k], in = t.getDimSize(a), out = outSize[a];
    double r0 = roi ? (*roi)[k] : 0.0, r1 = roi ? (*roi)[na + k] : 1.0;
    if (std::fabs(scale[a] - 1.0) < 1e-9 && out == in && std::fabs(r0) < 1e-9 &&
        std::fabs(r1 - 1.0) < 1e-9)
      continue; // identity along this axis
    AxisTaps taps;
    if (std::string err = resizeAxisTaps(in, out, scale[a], m, r0, r1, taps); !err.empty())
      failNode(err);
    auto gatherTap = [&](int64_t tap) {
      std::vector<double> idx(out);
      for (int64_t o = 0; o < out; ++o)
        idx[o] = (double)taps.idx[o * taps.n + tap];
      return gatherAt(x, a, idx);
    };
    Value y;
    if (m.mode == "nearest") {
      // Exactly one tap per output has weight 1.
      std::vector<double> idx(out);
      for (int64_t o = 0; o < out; ++o)
        for (int64_t k2 = 0; k2 < taps.n; ++k2)
          if (taps.w[o * taps.n + k2] == 1.0)
            idx[o] = (double)taps.idx[o * taps.n + k2];
      y = gatherAt(x, a, idx);
    } else {
      std::vector<int64_t> wShape(rank, 1);
      wShape[a] = out;
      for (int64_t tap = 0; tap < taps.n; ++tap) {
        std::vector<double> w(out);
        for (int64_t o = 0; o < out; ++o)
          w[o] = taps.w[o * taps.n + tap];
        if (llvm::all_of(w, [](double v) { return v == 0; }))
          continue; // a wide antialias window's unused end
        Value term = build<dlc::MulOp>({gatherTap(tap), constOf(dtypeOf(t), wShape, w)});
        y = y ? build<dlc::AddOp>({y, term}) : term;
      }
    }
    if (llvm::is_contained(taps.extrapolate, true)) {
      std::vector<double> mask(taps.extrapolate.begin(), taps.extrapolate.end());
      std::vector<int64_t> mShape(rank, 1);
      mShape[a] = out;
      y = where(constOf(dlc::kBool, mShape, mask), scalarLike(y, extrapolation), y);
    }
    x = y;
  }
  setOutput(0, x);
}

/// Einsum with one or two operands: repeated labels take a diagonal,
/// labels no one else needs are summed away, and two operands meet in one
/// batched MatMul over [batch, left, contracted] x [batch, contracted,
/// right] (the matmul-like equations run on the contraction kernels).
void Importer::importEinsum() {
  allowOnlyAttrs({"equation"});
  std::string eq;
  for (char c : attrString("equation", ""))
    if (c != ' ')
      eq += c;
  int n = node->input_size();
  if (n < 1 || n > 2)
    failNode("only one or two operands are supported");
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if ((int)terms.size() != n)
    failNode("the equation names " + std::to_string(terms.size()) + " operands, the node has " +
             std::to_string(n));
  // "..." becomes digit labels, aligned from the right across operands.
  std::vector<Value> ops;
  std::vector<std::string> labels;
  int64_t ellipsisRank = 0;
  for (int i = 0; i < n; ++i) {
    ops.push_back(value(i));
    int64_t explicitCount = (int64_t)terms[i].size() - (terms[i].find("...") != std::string::npos ? 3 : 0);
    ellipsisRank = std::max(ellipsisRank, typeOf(ops[i]).getRank() - explicitCount);
  }
  if (ellipsisRank > 10)
    failNode("too many dimensions under '...'");
  auto expand = [&](const std::string &t, int64_t rank) {
    auto dots = t.find("...");
    if (dots == std::string::npos)
      return t;
    int64_t e = rank - ((int64_t)t.size() - 3);
    std::string digits;
    for (int64_t k = ellipsisRank - e; k < ellipsisRank; ++k)
      digits += char('0' + k);
    return t.substr(0, dots) + digits + t.substr(dots + 3);
  };
  for (int i = 0; i < n; ++i) {
    labels.push_back(expand(terms[i], typeOf(ops[i]).getRank()));
    if ((int64_t)labels[i].size() != typeOf(ops[i]).getRank())
      failNode("operand " + std::to_string(i) + "'s labels do not match its rank");
  }
  std::string out;
  if (arrow != std::string::npos) {
    std::string rhs = eq.substr(arrow + 2);
    out = rhs.find("...") != std::string::npos ? expand(rhs, ellipsisRank + (int64_t)rhs.size() - 3) : rhs;
  } else {
    // Implicit output: the ellipsis, then labels seen once, alphabetically.
    std::map<char, int> count;
    for (auto &l : labels)
      for (char c : l)
        ++count[c];
    for (auto &[c, k] : count)
      if (std::isdigit((unsigned char)c) || (k == 1))
        out += c;
  }
  auto perm = [&](Value v, const std::string &from, const std::string &to) {
    if (from == to)
      return v;
    std::vector<int64_t> p;
    for (char c : to)
      p.push_back((int64_t)from.find(c));
    return build<dlc::TransposeOp>(v, {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(p))});
  };
  std::map<char, int64_t> size;
  for (int i = 0; i < n; ++i)
    for (size_t k = 0; k < labels[i].size(); ++k) {
      int64_t d = typeOf(ops[i]).getDimSize(k);
      if (size.count(labels[i][k]) && size[labels[i][k]] != d)
        failNode(std::string("label '") + labels[i][k] + "' has sizes " +
                 std::to_string(size[labels[i][k]]) + " and " + std::to_string(d));
      size[labels[i][k]] = d;
    }
  for (int i = 0; i < n; ++i) {
    std::string &l = labels[i];
    // A repeated label reads the diagonal: both axes last, flattened, and
    // every (size+1)-th element gathered.
    for (size_t a = 0; a < l.size(); ++a) {
      size_t b = l.find(l[a], a + 1);
      if (b == std::string::npos)
        continue;
      std::string rest;
      for (size_t k = 0; k < l.size(); ++k)
        if (k != a && k != b)
          rest += l[k];
      Value v = perm(ops[i], l, rest + l[a] + l[b]);
      std::vector<int64_t> shape(typeOf(v).getShape().begin(), typeOf(v).getShape().end() - 2);
      int64_t d = size[l[a]];
      shape.push_back(d * d);
      std::vector<double> diag(d);
      for (int64_t k = 0; k < d; ++k)
        diag[k] = (double)(k * (d + 1));
      ops[i] = gatherAt(reshapeTo(v, shape), (int64_t)shape.size() - 1, diag);
      l = rest + l[a];
      a = (size_t)-1; // rescan
    }
    // Labels needed neither by the output nor the other operand: summed.
    std::vector<int64_t> axes;
    std::string kept;
    for (size_t k = 0; k < l.size(); ++k) {
      bool other = n == 2 && labels[1 - i].find(l[k]) != std::string::npos;
      if (out.find(l[k]) == std::string::npos && !other)
        axes.push_back((int64_t)k);
      else
        kept += l[k];
    }
    if (!axes.empty())
      ops[i] = reduce(ops[i], "sum", axes, false), l = kept;
  }
  for (char c : out)
    if (!size.count(c))
      failNode(std::string("output label '") + c + "' is on no operand");
  if (n == 1)
    return setOutput(0, perm(ops[0], labels[0], out));

  std::string batch, left, right, contract;
  for (char c : labels[0]) {
    bool inB = labels[1].find(c) != std::string::npos, inOut = out.find(c) != std::string::npos;
    (inB ? (inOut ? batch : contract) : left) += c;
  }
  for (char c : labels[1])
    if (labels[0].find(c) == std::string::npos)
      right += c;
  auto prod = [&](const std::string &ls) {
    int64_t p = 1;
    for (char c : ls)
      p *= size[c];
    return p;
  };
  Value a = reshapeTo(perm(ops[0], labels[0], batch + left + contract),
                      {prod(batch), prod(left), prod(contract)});
  Value b = reshapeTo(perm(ops[1], labels[1], batch + contract + right),
                      {prod(batch), prod(contract), prod(right)});
  Value y = build<dlc::MatMulOp>({a, b});
  std::vector<int64_t> shape;
  for (char c : batch + left + right)
    shape.push_back(size[c]);
  setOutput(0, perm(reshapeTo(y, shape), batch + left + right, out));
}

/// Writes updates (flattened, element m) into data at flat offsets
/// target[m], known at import. Each round is a gather of the updates and a
/// where: one round for plain assignment (the last write wins, as ONNX's
/// reference), one per repeated hit for add/mul/max/min.
Value Importer::scatterConst(Value data, Value updates, const std::vector<int64_t> &target,
                             const std::string &reduction) {
  auto dt = typeOf(data);
  int64_t n = dt.getNumElements();
  std::vector<std::vector<int64_t>> hits(n);
  for (size_t m = 0; m < target.size(); ++m)
    hits[target[m]].push_back((int64_t)m);
  size_t rounds = 0;
  for (auto &h : hits) {
    if (reduction == "none" && h.size() > 1)
      h = {h.back()};
    rounds = std::max(rounds, h.size());
  }
  Value flat = reshapeTo(updates, {typeOf(updates).getNumElements()});
  std::vector<int64_t> shape(dt.getShape().begin(), dt.getShape().end());
  Value out = data;
  for (size_t r = 0; r < rounds; ++r) {
    std::vector<double> src(n, 0.0), mask(n, 0.0);
    for (int64_t t = 0; t < n; ++t)
      if (r < hits[t].size())
        src[t] = (double)hits[t][r], mask[t] = 1;
    Value g = gatherAt(flat, 0, src, shape);
    Value v = reduction == "none"  ? g
              : reduction == "add" ? build<dlc::AddOp>({out, g})
              : reduction == "mul" ? build<dlc::MulOp>({out, g})
              : reduction == "max" ? build<dlc::MaxOp>({out, g})
                                   : build<dlc::MinOp>({out, g});
    out = where(constOf(dlc::kBool, shape, mask), v, out);
  }
  return out;
}

/// ScatterElements, ScatterND and GatherND with indices known at import
/// (constants or bound with --bind): the offsets they address are computed
/// here, and the data moves by gathers.
void Importer::importScatterOrGatherND() {
  const std::string &op = node->op_type();
  bool gatherNd = op == "GatherND", nd = op == "ScatterND" || gatherNd;
  if (gatherNd)
    allowOnlyAttrs({"batch_dims"});
  else if (nd)
    allowOnlyAttrs({"reduction"});
  else
    allowOnlyAttrs({"axis", "reduction"});
  Value data = value(0);
  const ConstTensor *ic = constInput(1);
  if (!ic || !ic->isInt())
    failNode("indices must be a constant integer tensor " + bindHint(1));
  auto dt = typeOf(data);
  std::vector<int64_t> dshape(dt.getShape().begin(), dt.getShape().end());
  int64_t rank = dt.getRank();
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * dshape[d + 1];
  auto wrap = [&](int64_t i, int64_t dim) {
    int64_t j = i < 0 ? i + dim : i;
    if (j < 0 || j >= dim)
      failNode("index " + std::to_string(i) + " is out of range for a dimension of " +
               std::to_string(dim));
    return j;
  };
  std::string reduction = attrString("reduction", "none");
  if (!gatherNd && reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    failNode("unsupported reduction '" + reduction + "'");

  if (!nd) {
    // ScatterElements: update u lands at u with its axis coordinate replaced.
    Value updates = value(2);
    int64_t axis = normAxis(attrInt("axis", 0), rank);
    if (ic->shape != std::vector<int64_t>(typeOf(updates).getShape().begin(),
                                          typeOf(updates).getShape().end()) ||
        (int64_t)ic->shape.size() != rank)
      failNode("indices and updates must have the same shape and the data's rank");
    std::vector<int64_t> target(ic->numel()), u(rank, 0);
    for (int64_t m = 0; m < ic->numel(); ++m) {
      int64_t t = 0;
      for (int64_t d = 0; d < rank; ++d) {
        if (d != axis && u[d] >= dshape[d])
          failNode("indices are larger than the data along axis " + std::to_string(d));
        t += (d == axis ? wrap(ic->i[m], dshape[d]) : u[d]) * strides[d];
      }
      target[m] = t;
      for (int64_t d = rank - 1; d >= 0 && ++u[d] == ic->shape[d]; --d)
        u[d] = 0;
    }
    return setOutput(0, scatterConst(data, updates, target, reduction));
  }

  int64_t k = ic->shape.empty() ? 0 : ic->shape.back();
  int64_t b = gatherNd ? attrInt("batch_dims", 0) : 0;
  if (ic->shape.empty() || k < 1 || b < 0 || b + k > rank)
    failNode("indices' last dimension must be in [1, rank - batch_dims]");
  int64_t tuples = ic->numel() / k, inner = 1, batchSize = 1;
  for (int64_t d = b + k; d < rank; ++d)
    inner *= dshape[d];
  for (int64_t d = 0; d < b; ++d) {
    if (ic->shape[d] != dshape[d])
      failNode("indices' batch dimensions must match the data's");
    batchSize *= dshape[d];
  }
  // The flat offset of each index tuple's slice (batch part included).
  std::vector<int64_t> base(tuples);
  int64_t perBatch = tuples / batchSize;
  for (int64_t q = 0; q < tuples; ++q) {
    int64_t off = (q / perBatch) * (b ? strides[b - 1] : 0);
    for (int64_t j = 0; j < k; ++j)
      off += wrap(ic->i[q * k + j], dshape[b + j]) * strides[b + j];
    base[q] = off;
  }
  if (gatherNd) {
    // Rows of data viewed as [prod(shape[:b+k]), shape[b+k:]...].
    std::vector<int64_t> view{dt.getNumElements() / inner}, outShape(ic->shape.begin(), ic->shape.end() - 1);
    view.insert(view.end(), dshape.begin() + b + k, dshape.end());
    std::vector<double> rows(tuples);
    for (int64_t q = 0; q < tuples; ++q)
      rows[q] = (double)(base[q] / inner);
    return setOutput(0, gatherAt(reshapeTo(data, view), 0, rows, outShape));
  }
  Value updates = value(2);
  if (typeOf(updates).getNumElements() != tuples * inner)
    failNode("updates must have shape indices.shape[:-1] + data.shape[k:]");
  std::vector<int64_t> target(tuples * inner);
  for (int64_t q = 0; q < tuples; ++q)
    for (int64_t r = 0; r < inner; ++r)
      target[q * inner + r] = base[q] + r;
  setOutput(0, scatterConst(data, updates, target, reduction));
}

/// NegativeLogLikelihoodLoss on [N, C, d...] log-probabilities: the class
/// picked per element through a one-hot mask (target == class), weighted;
/// ignored and out-of-range targets weigh 0.
Value Importer::negLogLikelihood(Value logProb, Value target, Value weight,
                                 std::optional<int64_t> ignore, const std::string &reduction) {
  auto in = typeOf(logProb);
  auto tt = typeOf(target);
  if (in.getRank() < 2 || tt.getRank() != in.getRank() - 1)
    failNode("input must be [N, C, d...] and target [N, d...]");
  if (!isa<IntegerType>(tt.getElementType()))
    failNode("target must be an integer tensor");
  int64_t c = in.getDimSize(1), rank = in.getRank();
  std::vector<double> classes(c);
  for (int64_t k = 0; k < c; ++k)
    classes[k] = k;
  std::vector<int64_t> classShape(rank, 1), tShape(tt.getShape().begin(), tt.getShape().end());
  classShape[1] = c;
  tShape.insert(tShape.begin() + 1, 1);
  Value mask = cmp(reshapeTo(target, tShape), constOf(dtypeOf(tt), classShape, classes), "eq");
  Value zero = scalarLike(logProb, 0.0);
  Value picked = reduce(where(mask, logProb, zero), "sum", {1}, false);
  Value w = weight ? reshapeTo(weight, classShape) : scalarLike(logProb, 1.0);
  Value wsel = reduce(where(mask, w, zero), "sum", {1}, false);
  if (ignore) {
    Value valid = unary<dlc::NotOp>(cmp(target, constOf(dtypeOf(tt), {}, {(double)*ignore}), "eq"));
    wsel = where(valid, wsel, zero);
  }
  Value loss = unary<dlc::NegOp>(build<dlc::MulOp>({picked, wsel}));
  if (reduction == "none")
    return loss;
  Value total = reduce(loss, "sum", {}, false);
  if (reduction == "sum")
    return total;
  if (reduction != "mean")
    failNode("unsupported reduction '" + reduction + "'");
  return build<dlc::DivOp>({total, reduce(wsel, "sum", {}, false)});
}

/// Attention (opset 23/24) as ONNX's reference computes it: heads split
/// for 3-D inputs, past K/V concatenated, K/V heads repeated for grouped
/// queries, Q and K each scaled by sqrt(scale), softcap, mask and causal
/// bias, a softmax whose fully masked rows give 0, and the value matmul.
void Importer::importAttention() {
  allowOnlyAttrs({"is_causal", "kv_num_heads", "q_num_heads", "qk_matmul_output_mode", "scale",
                  "softcap", "softmax_precision"});
  if (hasInput(6))
    failNode("nonpad_kv_seqlen is not supported");
  Value q = value(0), k = value(1), v = value(2);
  auto perm = [&](Value x, ArrayRef<int64_t> p) {
    return build<dlc::TransposeOp>(x, {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(p))});
  };
  int64_t rank = typeOf(q).getRank();
  if (rank != 3 && rank != 4)
    failNode("Q must be 3-D or 4-D");
  auto splitHeads = [&](Value x, int64_t heads) {
    auto s = typeOf(x).getShape();
    if (heads <= 0 || s[2] % heads)
      failNode("hidden size " + std::to_string(s[2]) + " does not split into " +
               std::to_string(heads) + " heads");
    return perm(reshapeTo(x, {s[0], s[1], heads, s[2] / heads}), {0, 2, 1, 3});
  };
  if (rank == 3) {
    int64_t qh = attrInt("q_num_heads", 0), kvh = attrInt("kv_num_heads", 0);
    q = splitHeads(q, qh);
    k = splitHeads(k, kvh);
    v = splitHeads(v, kvh);
  }
  bool hasPast = hasInput(4) && hasInput(5);
  int64_t pastLen = 0;
  auto concat2 = [&](Value a, Value b) {
    return build<dlc::ConcatOp>({a, b}, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(2))});
  };
  if (hasPast) {
    pastLen = typeOf(value(4)).getDimSize(2);
    k = concat2(value(4), k);
    v = concat2(value(5), v);
  }
  setOutput(1, k);
  setOutput(2, v);
  auto qs = typeOf(q).getShape(), ks = typeOf(k).getShape();
  int64_t batch = qs[0], hq = qs[1], seq = qs[2], hkv = ks[1], len = ks[2], d = qs[3];
  if (hq != hkv) {
    if (hq % hkv)
      failNode("query heads are not a multiple of key/value heads");
    auto repeat = [&](Value x) {
      auto s = typeOf(x).getShape();
      Value e = build<dlc::ExpandOp>(reshapeTo(x, {s[0], s[1], 1, s[2], s[3]}),
                                     {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(
                                                                        {s[0], s[1], hq / hkv, s[2], s[3]}))});
      return reshapeTo(e, {s[0], hq, s[2], s[3]});
    };
    k = repeat(k);
    v = repeat(v);
  }
  double scale = attr("scale") ? attrFloat("scale", 1.0f) : 1.0 / std::sqrt((double)d);
  Value sq = scalarLike(q, std::sqrt(scale));
  Value qk = build<dlc::MatMulOp>({build<dlc::MulOp>({q, sq}),
                                   build<dlc::MulOp>({perm(k, {0, 1, 3, 2}), sq})});
  double softcap = attrFloat("softcap", 0.0f);
  if (softcap > 0)
    qk = build<dlc::MulOp>({unary<dlc::TanhOp>(build<dlc::DivOp>({qk, scalarLike(qk, softcap)})),
                            scalarLike(qk, softcap)});
  Value qkOut = qk;
  // The additive bias: the mask (bool: 0 or -inf, padded to the kv length)
  // plus the causal part.
  Value bias;
  double inf = std::numeric_limits<double>::infinity();
  if (hasInput(3)) {
    Value mask = value(3);
    auto ms = typeOf(mask).getShape();
    bool isBool = typeOf(mask).getElementType().isInteger(1);
    if (ms.back() < len) {
      std::vector<int64_t> padShape(ms.begin(), ms.end());
      padShape.back() = len - ms.back();
      std::vector<double> fill(std::accumulate(padShape.begin(), padShape.end(), (int64_t)1,
                                               std::multiplies<int64_t>()),
                               isBool ? 0.0 : -inf);
      Value pad = constOf(dtypeOf(mask.getType()), padShape, fill);
      mask = build<dlc::ConcatOp>({mask, pad}, {builder.getNamedAttr(
                                                    "axis", builder.getI64IntegerAttr(ms.size() - 1))});
    }
    bias = isBool ? where(mask, scalarLike(q, 0), scalarLike(q, -inf)) : mask;
  }
  if (attrInt("is_causal", 0)) {
    std::vector<double> causal(seq * len);
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t j = 0; j < len; ++j)
        causal[i * len + j] = j <= i + pastLen ? 0.0 : -inf;
    Value c = constOf(dtypeOf(q.getType()), {seq, len}, causal);
    bias = bias ? build<dlc::AddOp>({bias, c}) : c;
  }
  if (bias)
    qk = build<dlc::AddOp>({qk, bias});
  int64_t mode = attrInt("qk_matmul_output_mode", 0);
  if (mode == 2)
    qkOut = qk;
  Location loc = NameLoc::get(builder.getStringAttr(node->name()));
  Value p = builder.create<dlc::SoftmaxOp>(loc, qk.getType(), qk,
                                           builder.getI64IntegerAttr(typeOf(qk).getRank() - 1),
                                           builder.getBoolAttr(false));
  if (bias) {
    // Rows that the bias masks completely attend to nothing.
    int64_t br = typeOf(bias).getRank();
    Value rowMax = reduce(bias, "max", {br - 1}, true);
    p = where(cmp(rowMax, scalarLike(rowMax, -inf), "eq"), scalarLike(p, 0), p);
  }
  if (mode == 3)
    qkOut = p;
  Value y = build<dlc::MatMulOp>({p, v});
  if (rank == 3)
    y = reshapeTo(perm(y, {0, 2, 1, 3}), {batch, seq, hq * typeOf(v).getDimSize(3)});
  setOutput(0, y);
  setOutput(3, qkOut);
}

/// Pad in constant and edge modes: per axis, blocks concatenated before
/// and after (a constant, or the edge slice expanded); negative pads slice.
void Importer::importPad() {
  std::string mode = attrString("mode", "constant");
  std::vector<int64_t> pads, axes;
  double fill = 0;
  Value runtimeFill; // a constant_value computed at run time
  Value x = value(0);
  int64_t rank = typeOf(x).getRank();
  if (opset < 11) {
    allowOnlyAttrs({"mode", "pads", "value"});
    pads = attrInts("pads").value_or(std::vector<int64_t>{});
    fill = attrFloat("value", 0.0f);
  } else {
    allowOnlyAttrs({"mode"});
    pads = requiredInts(1, "pads");
    if (hasInput(2)) {
      const ConstTensor *v = constInput(2);
      if (v && v->numel() != 1)
        failNode("constant_value must be a scalar");
      if (v)
        fill = v->asDouble(0);
      else
        runtimeFill = value(2);
    }
    axes = constInts(3, "axes").value_or(std::vector<int64_t>{});
  }
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a)
      axes.push_back(a);
  if (pads.size() != 2 * axes.size())
    failNode("pads must hold two values per axis");
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap")
    failNode("unsupported pad mode '" + mode + "'");
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t axis = normAxis(axes[i], rank);
    int64_t before = pads[i], after = pads[i + axes.size()];
    auto shape = typeOf(x).getShape();
    if (before < 0 || after < 0) {
      // Negative pads crop.
      std::vector<int64_t> off(rank, 0), size(shape.begin(), shape.end()), step(rank, 1);
      int64_t b = std::max<int64_t>(0, -before), e = std::max<int64_t>(0, -after);
      if (b + e >= shape[axis])
        failNode("negative pads remove the whole axis");
      off[axis] = b;
      size[axis] = shape[axis] - b - e;
      x = slice(x, off, size, step);
      before = std::max<int64_t>(0, before);
      after = std::max<int64_t>(0, after);
      shape = typeOf(x).getShape();
    }
    std::vector<int64_t> paddedShape(shape.begin(), shape.end());
    paddedShape[axis] = shape[axis] + before + after;
    requirePlannable(paddedShape, dtypeOf(x.getType()), "the padded tensor");
    if (mode != "constant") {
      // Edge, reflect and wrap read input positions: one gather of the
      // padded index range mapped into [0, n).
      int64_t n = shape[axis];
      if (mode == "reflect" && (before >= n || after >= n))
        failNode("reflect pads must be smaller than the axis");
      std::vector<double> idx;
      for (int64_t k = -before; k < n + after; ++k) {
        int64_t j = mode == "edge" ? std::clamp<int64_t>(k, 0, n - 1)
                    : mode == "wrap" ? ((k % n) + n) % n
                    : k < 0 ? -k : k >= n ? 2 * (n - 1) - k : k;
        idx.push_back((double)j);
      }
      if (before || after)
        x = gatherAt(x, axis, idx);
      continue;
    }
    // The fill, broadcast: a block of its own values was a weight the size
    // of the padding, in the importer's memory and then in the library.
    auto block = [&](int64_t width) -> Value {
      std::vector<int64_t> bs(shape.begin(), shape.end());
      bs[axis] = width;
      return build<dlc::ExpandOp>(scalarLike(x, fill),
                                  {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(bs))});
    };
    SmallVector<Value> parts;
    if (before)
      parts.push_back(block(before));
    parts.push_back(x);
    if (after)
      parts.push_back(block(after));
    if (parts.size() > 1)
      x = build<dlc::ConcatOp>(parts, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))});
    if (runtimeFill && (before || after)) {
      // Padded with 0 above; the run-time value replaces it where padded.
      int64_t n = typeOf(x).getDimSize(axis);
      std::vector<int64_t> maskShape(rank, 1);
      maskShape[axis] = n;
      std::vector<double> padded(n);
      for (int64_t k = 0; k < n; ++k)
        padded[k] = k < before || k >= n - after;
      x = where(constOf(dlc::kBool, maskShape, padded), reshapeTo(runtimeFill, {}), x);
    }
  }
  setOutput(0, x);
}

/// Ops imported as compositions of dlc ops (gathers, wheres, reductions,
/// reshapes and the contraction ops), with what is static computed here.
bool Importer::importComposite() {
  const std::string &op = node->op_type();
  if (op == "Gather" || op == "GatherElements") {
    allowOnlyAttrs({"axis"});
    Value data = value(0), idx = value(1);
    int64_t axis = normAxis(attrInt("axis", 0), typeOf(data).getRank());
    setOutput(0, build<dlc::GatherOp>(
                     {data, idx}, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis)),
                                   builder.getNamedAttr("elements", builder.getBoolAttr(op == "GatherElements"))}));
    return true;
  }
  if (op == "Attention")
    return importAttention(), true;
  if (op == "Resize" || op == "Upsample")
    return importResize(), true;
  if (op == "Einsum")
    return importEinsum(), true;
  if (op == "ScatterElements" || op == "Scatter" || op == "ScatterND" || op == "GatherND")
    return importScatterOrGatherND(), true;
  if (op == "ArgMax" || op == "ArgMin") {
    // The first (or last) position equal to the max/min: a compare with the
    // reduced value, then the smallest (largest) matching index.
    allowOnlyAttrs({"axis", "keepdims", "select_last_index"});
    Value x = value(0);
    auto t = typeOf(x);
    int64_t axis = normAxis(attrInt("axis", 0), t.getRank()), n = t.getDimSize(axis);
    bool last = attrInt("select_last_index", 0), keep = attrInt("keepdims", 1);
    Value best = reduce(x, op == "ArgMax" ? "max" : "min", {axis}, true);
    std::vector<int64_t> iotaShape(t.getRank(), 1);
    iotaShape[axis] = n;
    std::vector<double> iota(n);
    for (int64_t k = 0; k < n; ++k)
      iota[k] = k;
    Value idx = constOf(dlc::kInt64, iotaShape, iota);
    Value none = constOf(dlc::kInt64, {}, {last ? -1.0 : (double)n});
    Value hits = where(cmp(x, best, "eq"), idx, none);
    setOutput(0, reduce(hits, last ? "max" : "min", {axis}, keep));
    return true;
  }
  if (op == "Pad")
    return importPad(), true;
  if (op == "Tile") {
    // Each axis repeated: one gather of positions k mod n.
    allowOnlyAttrs({});
    Value x = value(0);
    auto shape = typeOf(x).getShape();
    std::vector<int64_t> repeats = requiredInts(1, "repeats");
    if (repeats.size() != shape.size())
      failNode("repeats needs one value per input dimension");
    for (size_t a = 0; a < shape.size(); ++a) {
      if (repeats[a] <= 0)
        failNode("repeats must be positive (zero-size tensors are not supported)");
      if (repeats[a] == 1)
        continue;
      std::vector<double> idx(shape[a] * repeats[a]);
      for (size_t k = 0; k < idx.size(); ++k)
        idx[k] = (double)(k % shape[a]);
      x = gatherAt(x, (int64_t)a, idx);
    }
    setOutput(0, x);
    return true;
  }
  if (op == "Hardmax") {
    // 1 at the first maximum along the axis (of the 2-D view before opset 13).
    allowOnlyAttrs({"axis"});
    Value x = value(0);
    auto t = typeOf(x);
    bool coerce = opset < 13;
    int64_t axis = normAxis(attrInt("axis", coerce ? 1 : -1), t.getRank());
    Value in = x;
    if (coerce) {
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < t.getRank(); ++d)
        (d < axis ? outer : inner) *= t.getDimSize(d);
      in = reshapeTo(x, {outer, inner});
      axis = 1;
    }
    int64_t n = typeOf(in).getDimSize(axis), rank = typeOf(in).getRank();
    Value idx = iotaAlong(n, axis, rank);
    Value best = reduce(in, "max", {axis}, true);
    Value first = reduce(where(cmp(in, best, "eq"), idx, constOf(dlc::kInt64, {}, {(double)n})),
                         "min", {axis}, true);
    Value y = where(cmp(idx, first, "eq"), scalarLike(in, 1.0), scalarLike(in, 0.0));
    setOutput(0, reshapeTo(y, t.getShape()));
    return true;
  }
  if (op == "LpNormalization") {
    allowOnlyAttrs({"axis", "p"});
    Value x = value(0);
    int64_t axis = normAxis(attrInt("axis", -1), typeOf(x).getRank()), p = attrInt("p", 2);
    if (p != 1 && p != 2)
      failNode("p must be 1 or 2");
    // A zero norm gives 0, not 0/0 (ONNX's reference and onnxruntime).
    Value norm = reduce(x, p == 1 ? "l1" : "l2", {axis}, true);
    Value zero = scalarLike(x, 0.0);
    setOutput(0, where(cmp(norm, zero, "eq"), zero, build<dlc::DivOp>({x, norm})));
    return true;
  }
  if (op == "CumSum") {
    // y[j] = sum over i of x[i] where M[i][j] (i <= j; i < j when
    // exclusive; mirrored when reverse): x with a new axis after `axis`,
    // masked by the [n, n] M, summed over i. O(n^2) work along the axis.
    allowOnlyAttrs({"exclusive", "reverse"});
    Value x = value(0);
    auto t = typeOf(x);
    std::vector<int64_t> ax = requiredInts(1, "axis");
    if (ax.size() != 1)
      failNode("axis must be a scalar");
    int64_t rank = t.getRank(), axis = normAxis(ax[0], rank), n = t.getDimSize(axis);
    // The [n, n] mask is a compile-time constant and the work O(n^2).
    if (n > 4096)
      failNode("CumSum over more than 4096 elements along the axis is not supported");
    bool exclusive = attrInt("exclusive", 0), reverse = attrInt("reverse", 0);
    std::vector<int64_t> expanded(t.getShape().begin(), t.getShape().end());
    expanded.insert(expanded.begin() + axis + 1, 1);
    std::vector<int64_t> maskShape(rank + 1, 1);
    maskShape[axis] = maskShape[axis + 1] = n;
    std::vector<double> mask(n * n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        mask[i * n + j] = reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
    Value masked = where(constOf(dlc::kBool, maskShape, mask), reshapeTo(x, expanded),
                         scalarLike(x, 0.0));
    setOutput(0, reduce(masked, "sum", {axis}, false));
    return true;
  }
  if (op == "OneHot") {
    // values[1] where the (wrapped) index equals the position along the new
    // axis, values[0] elsewhere; out-of-range indices match nowhere.
    allowOnlyAttrs({"axis"});
    Value ind = value(0);
    const ConstTensor *depthC = constInput(1);
    if (!depthC || depthC->numel() != 1)
      failNode("depth must be a constant scalar " + bindHint(1));
    int64_t depth = (int64_t)depthC->asDouble(0);
    if (depth <= 0)
      failNode("depth must be positive");
    Value vals = value(2);
    if (typeOf(vals).getNumElements() != 2)
      failNode("values must hold 2 elements (off, on)");
    vals = reshapeTo(vals, {2});
    auto pick = [&](double k) { return gatherAt(vals, 0, {k}, std::vector<int64_t>{}); };
    if (typeOf(ind).getElementType() != builder.getI64Type())
      ind = build<dlc::CastOp>(ind, {builder.getNamedAttr("to", TypeAttr::get(builder.getI64Type()))});
    Value depthV = constOf(dlc::kInt64, {}, {(double)depth});
    ind = where(cmp(ind, constOf(dlc::kInt64, {}, {0.0}), "lt"), build<dlc::AddOp>({ind, depthV}), ind);
    auto it = typeOf(ind);
    int64_t outRank = it.getRank() + 1, axis = normAxis(attrInt("axis", -1), outRank);
    std::vector<int64_t> expanded(it.getShape().begin(), it.getShape().end());
    expanded.insert(expanded.begin() + axis, 1);
    Value hit = cmp(reshapeTo(ind, expanded), iotaAlong(depth, axis, outRank), "eq");
    setOutput(0, where(hit, pick(1), pick(0)));
    return true;
  }
  if (op == "DepthToSpace" || op == "SpaceToDepth") {
    // A reshape, a transpose and a reshape (ONNX's own definition).
    bool toSpace = op == "DepthToSpace";
    toSpace ? allowOnlyAttrs({"blocksize", "mode"}) : allowOnlyAttrs({"blocksize"});
    Value x = value(0);
    auto t = typeOf(x);
    int64_t b = attrInt("blocksize", 0);
    if (t.getRank() != 4 || b <= 0)
      failNode("needs a 4-D input and a positive blocksize");
    int64_t n = t.getDimSize(0), c = t.getDimSize(1), h = t.getDimSize(2), w = t.getDimSize(3);
    auto transpose = [&](Value v, std::vector<int64_t> perm) {
      return build<dlc::TransposeOp>(v, {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(perm))});
    };
    Value y;
    if (toSpace) {
      if (c % (b * b))
        failNode("channels must be divisible by blocksize^2");
      std::string mode = attrString("mode", "DCR");
      if (mode != "DCR" && mode != "CRD")
        failNode("unsupported mode '" + mode + "'");
      int64_t cc = c / (b * b);
      y = mode == "DCR" ? transpose(reshapeTo(x, {n, b, b, cc, h, w}), {0, 3, 4, 1, 5, 2})
                        : transpose(reshapeTo(x, {n, cc, b, b, h, w}), {0, 1, 4, 2, 5, 3});
      y = reshapeTo(y, {n, cc, h * b, w * b});
    } else {
      if (h % b || w % b)
        failNode("height and width must be divisible by blocksize");
      y = transpose(reshapeTo(x, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
      y = reshapeTo(y, {n, c * b * b, h / b, w / b});
    }
    setOutput(0, y);
    return true;
  }
  if (op == "Swish") {
    allowOnlyAttrs({"alpha"});
    Value x = value(0);
    Value ax = build<dlc::MulOp>({x, scalarLike(x, attrFloat("alpha", 1.0f))});
    setOutput(0, build<dlc::MulOp>({x, unary<dlc::SigmoidOp>(ax)}));
    return true;
  }
  if (op == "Trilu") {
    allowOnlyAttrs({"upper"});
    Value x = value(0);
    auto t = typeOf(x);
    if (t.getRank() < 2)
      failNode("Trilu needs rank >= 2");
    int64_t k = 0;
    if (hasInput(1)) {
      const ConstTensor *kc = constInput(1);
      if (!kc || !kc->isInt() || kc->numel() != 1)
        failNode("k must be a constant scalar " + bindHint(1));
      k = kc->i[0];
    }
    bool upper = attrInt("upper", 1);
    int64_t rows = t.getDimSize(t.getRank() - 2), cols = t.getDimSize(t.getRank() - 1);
    std::vector<double> keep(rows * cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        keep[i * cols + j] = upper ? j - i >= k : j - i <= k;
    setOutput(0, where(constOf(dlc::kBool, {rows, cols}, keep), x, scalarLike(x, 0)));
    return true;
  }
  if (op == "NegativeLogLikelihoodLoss" || op == "SoftmaxCrossEntropyLoss") {
    allowOnlyAttrs({"ignore_index", "reduction"});
    std::optional<int64_t> ignore;
    if (attr("ignore_index"))
      ignore = attrInt("ignore_index", 0);
    std::string reduction = attrString("reduction", "mean");
    Value x = value(0), weight = hasInput(2) ? value(2) : Value();
    if (op == "SoftmaxCrossEntropyLoss") {
      Location loc = NameLoc::get(builder.getStringAttr(node->name()));
      x = builder.create<dlc::LogSoftmaxOp>(loc, x.getType(), x, builder.getI64IntegerAttr(1),
                                            builder.getBoolAttr(false));
      setOutput(1, x);
    }
    setOutput(0, negLogLikelihood(x, value(1), weight, ignore, reduction));
    return true;
  }
  if (op == "LayerNormalization" || op == "RMSNormalization") {
    bool rms = op == "RMSNormalization";
    allowOnlyAttrs({"axis", "epsilon", "stash_type"});
    Value x = value(0);
    auto t = typeOf(x);
    int64_t axis = normAxis(attrInt("axis", -1), t.getRank());
    std::vector<int64_t> axes;
    for (int64_t a = axis; a < t.getRank(); ++a)
      axes.push_back(a);
    // stash_type 1 (the default): statistics in float32.
    Type orig = t.getElementType();
    bool stash = attrInt("stash_type", 1) == 1 && !orig.isF32() && !orig.isF64();
    auto castTo = [&](Value v, Type e) {
      return build<dlc::CastOp>(v, {builder.getNamedAttr("to", TypeAttr::get(e))});
    };
    Value xs = stash ? castTo(x, builder.getF32Type()) : x;
    Value eps = scalarLike(xs, attrFloat("epsilon", 1e-5f));
    Value centered = xs, mean;
    if (!rms) {
      mean = reduce(xs, "mean", axes, true);
      centered = build<dlc::SubOp>({xs, mean});
    }
    Value var = reduce(build<dlc::MulOp>({centered, centered}), "mean", axes, true);
    Value invStd = unary<dlc::ReciprocalOp>(unary<dlc::SqrtOp>(build<dlc::AddOp>({var, eps})));
    Value y = build<dlc::MulOp>({centered, invStd});
    if (stash)
      y = castTo(y, orig);
    y = build<dlc::MulOp>({y, value(1)});
    if (hasInput(2))
      y = build<dlc::AddOp>({y, value(2)});
    setOutput(0, y);
    if (!rms) {
      setOutput(1, mean);
      setOutput(2, invStd);
    }
    return true;
  }
  return false;
}

/// Comparisons, logical and bitwise ops, Where, Mod, BitShift, IsNaN, IsInf.
bool Importer::importLogical() {
  const std::string &op = node->op_type();
  auto named = [&](const char *n, Attribute a) { return builder.getNamedAttr(n, a); };
  static const std::map<std::string, const char *> comparisons = {
      {"Equal", "eq"}, {"Less", "lt"}, {"LessOrEqual", "le"}, {"Greater", "gt"},
      {"GreaterOrEqual", "ge"}};
  if (auto it = comparisons.find(op); it != comparisons.end()) {
    allowOnlyAttrs({"broadcast", "axis"});
    if (attr("axis"))
      failNode("legacy axis broadcasting is not supported");
    Value a = value(0), b = value(1);
    setOutput(0, build<dlc::CompareOp>({a, b}, {named("predicate", builder.getStringAttr(it->second))}));
    return true;
  }
  if (op == "And" || op == "Or" || op == "Xor" || op == "BitwiseAnd" || op == "BitwiseOr" ||
      op == "BitwiseXor") {
    allowOnlyAttrs({"broadcast", "axis"});
    if (attr("axis"))
      failNode("legacy axis broadcasting is not supported");
    Value a = value(0), b = value(1);
    // Logical (bool) and bitwise (integer) forms are one op each.
    bool isAnd = op == "And" || op == "BitwiseAnd", isOr = op == "Or" || op == "BitwiseOr";
    setOutput(0, isAnd  ? build<dlc::AndOp>({a, b})
                 : isOr ? build<dlc::OrOp>({a, b})
                        : build<dlc::XorOp>({a, b}));
    return true;
  }
  if (op == "Not" || op == "BitwiseNot") {
    allowOnlyAttrs({});
    setOutput(0, unary<dlc::NotOp>(value(0)));
    return true;
  }
  if (op == "Where") {
    allowOnlyAttrs({});
    setOutput(0, build<dlc::WhereOp>({value(0), value(1), value(2)}));
    return true;
  }
  if (op == "Mod") {
    allowOnlyAttrs({"fmod"});
    Value a = value(0), b = value(1);
    bool fmod = attrInt("fmod", 0);
    if (!fmod && isa<FloatType>(typeOf(a).getElementType()))
      failNode("fmod=0 is only defined for integers");
    setOutput(0, build<dlc::ModOp>({a, b}, {named("fmod", builder.getBoolAttr(fmod))}));
    return true;
  }
  if (op == "BitShift") {
    allowOnlyAttrs({"direction"});
    std::string dir = attrString("direction", "");
    if (dir != "LEFT" && dir != "RIGHT")
      failNode("direction must be LEFT or RIGHT");
    Value a = value(0), b = value(1);
    setOutput(0, build<dlc::BitShiftOp>({a, b}, {named("left", builder.getBoolAttr(dir == "LEFT"))}));
    return true;
  }
  if (op == "IsNaN") {
    allowOnlyAttrs({});
    setOutput(0, build<dlc::IsNaNOp>(value(0)));
    return true;
  }
  if (op == "IsInf") {
    allowOnlyAttrs({"detect_positive", "detect_negative"});
    setOutput(0, build<dlc::IsInfOp>(
                     value(0), {named("detect_positive", builder.getBoolAttr(attrInt("detect_positive", 1))),
                                named("detect_negative", builder.getBoolAttr(attrInt("detect_negative", 1)))}));
    return true;
  }
  return false;
}

void Importer::importConv() {
  allowOnlyAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  Value x = value(0), w = value(1);
  auto wt = typeOf(w);
  int64_t rank = typeOf(x).getRank();
  if ((rank != 3 && rank != 4) || wt.getRank() != rank)
    failNode("only 1-D and 2-D convolution is supported");
  std::vector<int64_t> kernel(wt.getShape().begin() + 2, wt.getShape().end());
  if (auto k = attrInts("kernel_shape"))
    if (*k != kernel)
      failNode("kernel_shape does not match the weight's shape");
  SmallVector<NamedAttribute> attrs;
  windowAttrs(typeOf(x), kernel, attrs, false);
  attrs.push_back(builder.getNamedAttr("group", builder.getI64IntegerAttr(attrInt("group", 1))));
  bool lifted = rank == 3;
  SmallVector<Value> operands{lifted ? liftTo2d(x) : x, lifted ? liftTo2d(w) : w};
  if (hasInput(2))
    operands.push_back(value(2));
  Value y = build<dlc::ConvOp>(operands, attrs);
  setOutput(0, lifted ? dropLiftedDim(y) : y);
}

/// ConvTranspose as the convolution it is the adjoint of: the input with
/// stride-1 zeros between elements, padded by dilation*(k-1) less the
/// transposed conv's pads, convolved at stride 1 with the kernel flipped
/// and its channel roles swapped per group.
void Importer::importConvTranspose() {
  allowOnlyAttrs({"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                  "output_shape", "pads", "strides"});
  Value x = value(0);
  // A constant weight is rearranged here and never becomes an op.
  const ConstTensor *wc = constInput(1);
  if (wc && wc->isInt())
    failNode("the weight must be a float tensor");
  Value w = wc ? Value() : value(1);
  std::vector<int64_t> wshape = wc ? wc->shape : std::vector<int64_t>(typeOf(w).getShape().begin(),
                                                                      typeOf(w).getShape().end());
  auto xt = typeOf(x);
  int64_t rank = xt.getRank(), d = rank - 2, group = attrInt("group", 1);
  if ((rank != 3 && rank != 4) || (int64_t)wshape.size() != rank)
    failNode("only 1-D and 2-D transposed convolution is supported");
  if (group <= 0 || xt.getDimSize(1) != wshape[0] || wshape[0] % group)
    failNode("weight must be [C, M/group, k...] with C the input's channels");
  std::vector<int64_t> kernel(wshape.begin() + 2, wshape.end());
  if (auto k = attrInts("kernel_shape"); k && *k != kernel)
    failNode("kernel_shape does not match the weight's shape");
  auto get = [&](const char *name, int64_t n, int64_t dflt) {
    auto v = attrInts(name).value_or(std::vector<int64_t>(n, dflt));
    if ((int64_t)v.size() != n)
      failNode(std::string(name) + " needs " + std::to_string(n) + " values");
    return v;
  };
  std::vector<int64_t> strides = get("strides", d, 1), dil = get("dilations", d, 1),
                       outPad = get("output_padding", d, 0), pads = get("pads", 2 * d, 0);
  for (int64_t i = 0; i < d; ++i)
    if (strides[i] <= 0 || dil[i] <= 0 || outPad[i] < 0)
      failNode("strides and dilations must be positive, output_padding non-negative");
  std::string autoPad = attrString("auto_pad", "NOTSET");
  auto outShape = attrInts("output_shape");
  if (outShape && (int64_t)outShape->size() == rank)
    outShape->erase(outShape->begin(), outShape->begin() + 2);
  if (outShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // Pads that give the requested (or input x stride) output size.
    for (int64_t i = 0; i < d; ++i) {
      int64_t in = xt.getDimSize(2 + i);
      int64_t want = outShape ? (*outShape)[i] : in * strides[i];
      int64_t total = strides[i] * (in - 1) + outPad[i] + (kernel[i] - 1) * dil[i] + 1 - want;
      // A larger output than the input gives is negative padding (more
      // zeros); the halves round down as in ONNX's reference.
      bool upper = autoPad == "SAME_UPPER";
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pads[i] = upper ? half : total - half;
      pads[i + d] = upper ? total - half : half;
    }
  } else if (autoPad == "VALID") {
    pads.assign(2 * d, 0);
  } else if (autoPad != "NOTSET") {
    failNode("unsupported auto_pad '" + autoPad + "'");
  }
  bool lifted = d == 1;
  if (lifted) {
    x = liftTo2d(x);
    if (w)
      w = liftTo2d(w);
    kernel.insert(kernel.begin(), 1), strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1), outPad.insert(outPad.begin(), 0);
    pads = {0, pads[0], 0, pads[1]};
  }
  std::vector<int64_t> convPads(4);
  for (int64_t i = 0; i < 2; ++i) {
    int64_t axis = 2 + i, in = typeOf(x).getDimSize(axis), s = strides[i];
    if (s > 1) {
      // Element k of the dilated input is x[k / s] where s divides k, else 0.
      int64_t n = (in - 1) * s + 1;
      std::vector<double> idx(n), keep(n);
      std::vector<int64_t> maskShape(4, 1);
      maskShape[axis] = n;
      for (int64_t k = 0; k < n; ++k)
        idx[k] = (double)(k / s), keep[k] = k % s == 0;
      x = where(constOf(dlc::kBool, maskShape, keep), gatherAt(x, axis, idx), scalarLike(x, 0.0));
    }
    int64_t lo = dil[i] * (kernel[i] - 1) - pads[i];
    int64_t hi = dil[i] * (kernel[i] - 1) - pads[i + 2] + outPad[i];
    if (lo < 0 || hi < 0) {
      // Pads wider than the kernel crop the dilated input instead.
      auto shape = typeOf(x).getShape();
      std::vector<int64_t> off(4, 0), size(shape.begin(), shape.end()), step(4, 1);
      off[axis] = std::max<int64_t>(0, -lo);
      size[axis] = shape[axis] - off[axis] - std::max<int64_t>(0, -hi);
      if (size[axis] <= 0)
        failNode("pads remove the whole output");
      x = slice(x, off, size, step);
      lo = std::max<int64_t>(0, lo), hi = std::max<int64_t>(0, hi);
    }
    convPads[i] = lo, convPads[i + 2] = hi;
  }
  // [C, M/g, k...] -> [M, C/g, k...], each kernel flipped in space: done
  // here for constant weights, else by ops that run with the model.
  int64_t c = wshape[0], mg = wshape[1], kh = kernel[0], kw = kernel[1];
  int64_t cg = c / group;
  Value wf;
  if (wc) {
    ConstTensor f;
    f.dtype = wc->dtype;
    f.shape = {group * mg, cg, kh, kw};
    f.f.resize(wc->f.size());
    for (int64_t g = 0; g < group; ++g)
      for (int64_t o = 0; o < mg; ++o)
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t y = 0; y < kh; ++y)
            for (int64_t z = 0; z < kw; ++z)
              f.f[(((g * mg + o) * cg + ci) * kh + y) * kw + z] =
                  wc->f[(((g * cg + ci) * mg + o) * kh + (kh - 1 - y)) * kw + (kw - 1 - z)];
    wf = makeConstant(node->input(1) + ".transposed_flipped", f);
  } else {
    wf = reshapeTo(w, {group, cg, mg, kh, kw});
    wf = build<dlc::TransposeOp>(wf, {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr({0, 2, 1, 3, 4}))});
    wf = reshapeTo(wf, {group * mg, cg, kh, kw});
    for (int64_t i = 0; i < 2; ++i) {
      if (kernel[i] == 1)
        continue;
      std::vector<double> rev(kernel[i]);
      for (int64_t k = 0; k < kernel[i]; ++k)
        rev[k] = (double)(kernel[i] - 1 - k);
      wf = gatherAt(wf, 2 + i, rev);
    }
  }
  SmallVector<Value> operands{x, wf};
  if (hasInput(2))
    operands.push_back(value(2));
  Value y = build<dlc::ConvOp>(
      operands, {builder.getNamedAttr("strides", builder.getDenseI64ArrayAttr({1, 1})),
                 builder.getNamedAttr("pads", builder.getDenseI64ArrayAttr(convPads)),
                 builder.getNamedAttr("dilations", builder.getDenseI64ArrayAttr(dil)),
                 builder.getNamedAttr("group", builder.getI64IntegerAttr(group))});
  setOutput(0, lifted ? dropLiftedDim(y) : y);
}

void Importer::importPool(const std::string &op) {
  bool isMax = op == "MaxPool", isLp = op == "LpPool";
  if (isMax) {
    allowOnlyAttrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads",
                    "storage_order", "strides"});
    if (attrInt("storage_order", 0) != 0)
      failNode("storage_order=1 is not supported");
    if (node->output_size() > 1 && !node->output(1).empty())
      failNode("the Indices output of MaxPool is not supported");
  } else if (isLp) {
    allowOnlyAttrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "p", "pads",
                    "strides"});
  } else {
    allowOnlyAttrs({"auto_pad", "ceil_mode", "count_include_pad", "dilations",
                    "kernel_shape", "pads", "strides"});
  }
  Value x = value(0);
  auto kernel = attrInts("kernel_shape");
  if (!kernel)
    failNode("missing attribute kernel_shape");
  if (kernel->size() != 1 && kernel->size() != 2)
    failNode("only 1-D and 2-D pooling is supported");
  if ((int64_t)kernel->size() != typeOf(x).getRank() - 2)
    failNode("kernel_shape does not match the input's rank");
  SmallVector<NamedAttribute> attrs;
  windowAttrs(typeOf(x), *kernel, attrs, attrInt("ceil_mode", 0) != 0);
  bool lifted = kernel->size() == 1;
  if (lifted)
    kernel->insert(kernel->begin(), 1), x = liftTo2d(x);
  attrs.push_back(builder.getNamedAttr("kernel_shape", builder.getDenseI64ArrayAttr(*kernel)));
  if (isMax) {
    // A window wholly in the padding has no maximum (onnxruntime refuses
    // such pads too; ONNX's reference evaluator fails on them).
    auto arrayAttr = [&](StringRef name) {
      for (NamedAttribute a : attrs)
        if (a.getName() == name)
          return cast<DenseI64ArrayAttr>(a.getValue()).asArrayRef();
      return ArrayRef<int64_t>();
    };
    ArrayRef<int64_t> pads = arrayAttr("pads"), dil = arrayAttr("dilations");
    for (size_t i = 0; i < 2; ++i) {
      int64_t extent = ((*kernel)[i] - 1) * dil[i] + 1;
      if (pads[i] >= extent || pads[i + 2] >= extent)
        failNode("pads must be smaller than the window (" + std::to_string(extent) +
                 "): a window wholly in the padding has no maximum");
    }
  }
  Value y;
  if (isMax) {
    y = build<dlc::MaxPoolOp>(x, attrs);
  } else if (isLp) {
    // (sum over the window of |x|^p)^(1/p): an average that counts the
    // zero padding, times the window size. p is an integer attribute.
    int64_t p = attrInt("p", 2);
    if (p <= 0)
      failNode("p must be positive");
    Value a = unary<dlc::AbsOp>(x);
    Value powered = p == 1 ? a : p == 2 ? build<dlc::MulOp>({a, a})
                                        : build<dlc::PowOp>({a, scalarLike(a, (double)p)});
    attrs.push_back(builder.getNamedAttr("count_include_pad", builder.getBoolAttr(true)));
    Value sum = build<dlc::MulOp>({build<dlc::AveragePoolOp>(powered, attrs),
                                   scalarLike(x, (double)((*kernel)[0] * (*kernel)[1]))});
    y = p == 1 ? sum : p == 2 ? unary<dlc::SqrtOp>(sum)
                              : build<dlc::PowOp>({sum, scalarLike(sum, 1.0 / p)});
  } else {
    if (attrInt("count_include_pad", 0))
      attrs.push_back(builder.getNamedAttr("count_include_pad", builder.getBoolAttr(true)));
    y = build<dlc::AveragePoolOp>(x, attrs);
  }
  setOutput(0, lifted ? dropLiftedDim(y) : y);
}

void Importer::importGemm() {
  allowOnlyAttrs({"alpha", "beta", "transA", "transB", "broadcast"});
  SmallVector<NamedAttribute> attrs{
      builder.getNamedAttr("transA", builder.getBoolAttr(attrInt("transA", 0))),
      builder.getNamedAttr("transB", builder.getBoolAttr(attrInt("transB", 0))),
      builder.getNamedAttr("alpha", builder.getF32FloatAttr(attrFloat("alpha", 1.0f))),
      builder.getNamedAttr("beta", builder.getF32FloatAttr(attrFloat("beta", 1.0f)))};
  SmallVector<Value> operands{value(0), value(1)};
  if (hasInput(2))
    operands.push_back(value(2));
  setOutput(0, build<dlc::GemmOp>(operands, attrs));
}

void Importer::importClip() {
  float lo = -std::numeric_limits<float>::infinity(), hi = -lo;
  if (opset < 11) {
    allowOnlyAttrs({"min", "max"});
    lo = attrFloat("min", std::numeric_limits<float>::lowest());
    hi = attrFloat("max", std::numeric_limits<float>::max());
  } else {
    allowOnlyAttrs({});
    // Bounds computed at run time clamp through elementwise Max and Min.
    if ((hasInput(1) && !constInput(1)) || (hasInput(2) && !constInput(2))) {
      Value y = value(0);
      if (hasInput(1))
        y = build<dlc::MaxOp>({y, value(1)});
      if (hasInput(2))
        y = build<dlc::MinOp>({y, value(2)});
      return setOutput(0, y);
    }
    for (int i : {1, 2}) {
      if (!hasInput(i))
        continue;
      const ConstTensor *c = constInput(i);
      if (c->numel() != 1)
        failNode("Clip bounds must be scalars");
      (i == 1 ? lo : hi) = c->isInt() ? (float)c->i[0] : (float)c->f[0];
    }
  }
  setOutput(0, build<dlc::ClipOp>(value(0), {builder.getNamedAttr("min", builder.getF32FloatAttr(lo)),
                                             builder.getNamedAttr("max", builder.getF32FloatAttr(hi))}));
}

void Importer::importSoftmax() {
  allowOnlyAttrs({"axis"});
  Value x = value(0);
  int64_t rank = typeOf(x).getRank();
  bool coerce = opset < 13;
  int64_t axis = normAxis(attrInt("axis", coerce ? 1 : -1), rank);
  Location loc = NameLoc::get(builder.getStringAttr(node->name()));
  auto axisAttr = builder.getI64IntegerAttr(axis);
  auto coerceAttr = builder.getBoolAttr(coerce);
  if (node->op_type() == "LogSoftmax")
    setOutput(0, builder.create<dlc::LogSoftmaxOp>(loc, x.getType(), x, axisAttr, coerceAttr));
  else
    setOutput(0, builder.create<dlc::SoftmaxOp>(loc, x.getType(), x, axisAttr, coerceAttr));
}

/// Reduce*: axes from the attribute (older opsets) or a constant input
/// (ReduceSum 13+, all of them 18+); noop_with_empty_axes honoured.
void Importer::importReduce(const std::string &kind) {
  allowOnlyAttrs({"axes", "keepdims", "noop_with_empty_axes"});
  Value x = value(0);
  int64_t rank = typeOf(x).getRank();
  std::vector<int64_t> axes;
  if (auto a = attrInts("axes"))
    axes = *a;
  else if (auto c = constInts(1, "axes"))
    axes = *c;
  if (axes.empty() && attrInt("noop_with_empty_axes", 0))
    return setOutput(0, x);
  for (int64_t &a : axes)
    a = normAxis(a, rank);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  setOutput(0, build<dlc::ReduceOp>(
                   x, {builder.getNamedAttr("kind", builder.getStringAttr(kind)),
                       builder.getNamedAttr("axes", builder.getDenseI64ArrayAttr(axes)),
                       builder.getNamedAttr("keepdims", builder.getBoolAttr(attrInt("keepdims", 1)))}));
}

void Importer::importBatchNorm() {
  allowOnlyAttrs({"epsilon", "momentum", "spatial", "training_mode", "is_test"});
  if (attrInt("training_mode", 0))
    failNode("training_mode=1 is not supported (inference only)");
  if (attrInt("spatial", 1) != 1)
    failNode("spatial=0 is not supported");
  for (int i = 1; i < node->output_size(); ++i)
    if (!node->output(i).empty())
      failNode("training outputs (running mean/var) are not supported");
  SmallVector<NamedAttribute> attrs{f32Attr("epsilon", 1e-5f)};
  if (opts.trainable) // how dlc-training-mode updates the running statistics
    attrs.push_back(f32Attr("momentum", 0.9f));
  setOutput(0, build<dlc::BatchNormOp>(
                   ValueRange{value(0), value(1), value(2), value(3), value(4)}, attrs));
}

void Importer::importReshape() {
  std::vector<int64_t> shape;
  if (opset < 5) {
    shape = attrInts("shape").value_or(std::vector<int64_t>{});
  } else {
    allowOnlyAttrs({"allowzero"});
    shape = requiredInts(1, "the target shape");
  }
  SmallVector<NamedAttribute> attrs{
      builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape))};
  if (attrInt("allowzero", 0))
    attrs.push_back(builder.getNamedAttr("allowzero", builder.getBoolAttr(true)));
  setOutput(0, build<dlc::ReshapeOp>(value(0), attrs));
}

/// Squeeze/Unsqueeze on data: a reshape to the static result shape. Axes
/// come from the attribute (opset < 13) or a constant input.
void Importer::importSqueeze(bool unsqueeze) {
  allowOnlyAttrs({"axes"});
  Value x = value(0);
  std::vector<int64_t> axes;
  bool haveAxes = false;
  if (auto a = attrInts("axes")) {
    axes = *a;
    haveAxes = true;
  } else if (auto c = constInts(1, "axes")) {
    axes = *c;
    haveAxes = true;
  }
  std::vector<int64_t> in(typeOf(x).getShape().begin(), typeOf(x).getShape().end()), out;
  if (unsqueeze) {
    if (!haveAxes)
      failNode("Unsqueeze needs axes");
    int64_t rank = in.size() + axes.size();
    std::vector<bool> inserted(rank, false);
    for (int64_t a : axes) {
      int64_t n = normAxis(a, rank);
      if (inserted[n])
        failNode("repeated axis " + std::to_string(a));
      inserted[n] = true;
    }
    for (int64_t i = 0, j = 0; i < rank; ++i)
      out.push_back(inserted[i] ? 1 : in[j++]);
  } else {
    std::vector<bool> drop(in.size(), false);
    for (int64_t a : axes) {
      int64_t n = normAxis(a, in.size());
      if (in[n] != 1)
        failNode("cannot squeeze dim " + std::to_string(n) + " of size " + std::to_string(in[n]));
      drop[n] = true;
    }
    for (size_t i = 0; i < in.size(); ++i)
      if (!(haveAxes ? drop[i] : in[i] == 1))
        out.push_back(in[i]);
  }
  setOutput(0, build<dlc::ReshapeOp>(
                   x, {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(out)),
                       builder.getNamedAttr("allowzero", builder.getBoolAttr(true))}));
}

Value Importer::slice(Value x, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                      ArrayRef<int64_t> steps) {
  return build<dlc::SliceOp>(x, {builder.getNamedAttr("offsets", builder.getDenseI64ArrayAttr(offsets)),
                                 builder.getNamedAttr("sizes", builder.getDenseI64ArrayAttr(sizes)),
                                 builder.getNamedAttr("steps", builder.getDenseI64ArrayAttr(steps))});
}

/// Slice on data with constant starts/ends/axes/steps (ONNX's clamping
/// rules); negative steps are not supported yet.
void Importer::importSlice() {
  Value x = value(0);
  auto shape = typeOf(x).getShape();
  int64_t rank = shape.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    allowOnlyAttrs({"starts", "ends", "axes"});
    starts = attrInts("starts").value_or(std::vector<int64_t>{});
    ends = attrInts("ends").value_or(std::vector<int64_t>{});
    axes = attrInts("axes").value_or(std::vector<int64_t>{});
  } else {
    allowOnlyAttrs({});
    auto ints = [&](int i, std::vector<int64_t> &out) {
      out = constInts(i, "input #" + std::to_string(i)).value_or(std::vector<int64_t>{});
    };
    ints(1, starts);
    ints(2, ends);
    ints(3, axes);
    ints(4, steps);
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    failNode("starts, ends, axes and steps differ in length");
  std::vector<int64_t> off(rank, 0), size(shape.begin(), shape.end()), step(rank, 1);
  std::vector<std::pair<int64_t, std::vector<double>>> backwards;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t ax = normAxis(axes[i], rank), dim = shape[ax];
    if (steps[i] == 0)
      failNode("step 0");
    if (steps[i] < 0) {
      // Walking backwards: start in [0, dim-1], end in [-1, dim-1]; the
      // positions become one gather along the axis.
      int64_t b = starts[i] < 0 ? starts[i] + dim : starts[i];
      int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
      b = std::clamp<int64_t>(b, 0, dim - 1), e = std::clamp<int64_t>(e, -1, dim - 1);
      std::vector<double> idx;
      for (int64_t k = b; k > e; k += steps[i])
        idx.push_back((double)k);
      if (idx.empty())
        failNode("the slice is empty (zero-size tensors are not supported)");
      backwards.push_back({ax, idx});
      continue;
    }
    auto clampIdx = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    int64_t b = clampIdx(starts[i]), e = clampIdx(ends[i]);
    off[ax] = std::min(b, std::max<int64_t>(dim - 1, 0));
    size[ax] = e > b ? (e - b + steps[i] - 1) / steps[i] : 0;
    step[ax] = steps[i];
    if (size[ax] == 0)
      off[ax] = 0;
  }
  Value y = slice(x, off, size, step);
  for (auto &[ax, idx] : backwards)
    y = gatherAt(y, ax, idx);
  setOutput(0, y);
}

/// Split along an axis: sizes from the attribute (< 13) or a constant input,
/// else num_outputs (18) or equal parts.
void Importer::importSplit() {
  allowOnlyAttrs({"axis", "split", "num_outputs"});
  Value x = value(0);
  auto shape = typeOf(x).getShape();
  int64_t axis = normAxis(attrInt("axis", 0), shape.size());
  std::vector<int64_t> parts;
  if (auto a = attrInts("split")) {
    parts = *a;
  } else if (auto c = constInts(1, "split sizes")) {
    parts = *c;
  } else {
    int64_t n = attrInt("num_outputs", node->output_size()), dim = shape[axis];
    if (n <= 0)
      failNode("num_outputs must be positive");
    int64_t chunk = (dim + n - 1) / n;
    for (int64_t i = 0; i < n; ++i)
      parts.push_back(std::min(chunk, dim - i * chunk));
  }
  if ((int)parts.size() != node->output_size())
    failNode("split sizes do not match the number of outputs");
  int64_t offset = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::vector<int64_t> off(shape.size(), 0), size(shape.begin(), shape.end()), step(shape.size(), 1);
    if (parts[i] < 0 || offset + parts[i] > shape[axis])
      failNode("split sizes exceed the dim");
    off[axis] = parts[i] ? offset : 0;
    size[axis] = parts[i];
    setOutput(i, slice(x, off, size, step));
    offset += parts[i];
  }
  if (offset != shape[axis])
    failNode("split sizes do not add up to the dim");
}

void Importer::importNode() {
  const std::string &op = node->op_type();
  if (!node->domain().empty() && node->domain() != "ai.onnx")
    failNode("unsupported operator " + op + " (domain '" + node->domain() + "')");
  if (op == "Constant") {
    allowOnlyAttrs({"value", "value_float", "value_floats", "value_int", "value_ints"});
    ConstTensor c;
    if (auto *a = attr("value"))
      c = readTensor(a->t(), "node '" + node->name() + "'");
    else if (auto *a = attr("value_float"))
      c.f = {a->f()};
    else if (auto *a = attr("value_floats"))
      c.f.assign(a->floats().begin(), a->floats().end()), c.shape = {(int64_t)c.f.size()};
    else if (auto *a = attr("value_int"))
      c.dtype = onnx::TensorProto::INT64, c.i = {a->i()};
    else if (auto *a = attr("value_ints"))
      c.dtype = onnx::TensorProto::INT64, c.i.assign(a->ints().begin(), a->ints().end()),
      c.shape = {(int64_t)c.i.size()};
    else
      failNode("Constant without a supported value attribute");
    consts[node->output(0)] = c;
    return;
  }
  if (op == "Identity" || op == "Dropout") {
    if (op == "Dropout") {
      if (hasInput(2) && !constInput(2))
        failNode("training_mode must be a constant " + bindHint(2));
      if (const ConstTensor *t = constInput(2); t && !t->i.empty() && t->i[0])
        failNode("training_mode=1 is not supported (inference only)");
    }
    if (const ConstTensor *c = constInput(0)) {
      consts[node->output(0)] = *c;
    } else if (op == "Dropout" && opts.trainable) {
      // Identity at inference; dlc-training-mode makes the train step drop.
      if (node->output_size() > 1 && !node->output(1).empty())
        failNode("the mask output of Dropout is not supported in training builds");
      double ratio = 0.5;
      if (opset < 12) {
        ratio = attrFloat("ratio", 0.5f);
      } else if (hasInput(1)) {
        const ConstTensor *r = constInput(1);
        if (!r || r->numel() != 1)
          failNode("ratio must be a constant scalar " + bindHint(1));
        ratio = r->isInt() ? (double)r->i[0] : r->f[0];
      }
      if (ratio < 0 || ratio >= 1)
        failNode("ratio must be in [0, 1), not " + std::to_string(ratio));
      // Each Dropout draws its own mask stream: its seed attribute, or its
      // position in the graph.
      int64_t seed = attr("seed") ? attrInt("seed", 0) : nodeIndex;
      setOutput(0, build<dlc::DropoutOp>(
                       value(0), {builder.getNamedAttr("ratio", builder.getF32FloatAttr(ratio)),
                                  builder.getNamedAttr("seed", builder.getI64IntegerAttr(seed))}));
    } else {
      setOutput(0, value(0)); // inference: forward the input
    }
    if (op == "Dropout" && node->output_size() > 1 && !node->output(1).empty()) {
      // Inference drops nothing: the mask is all true.
      ConstTensor mask;
      mask.dtype = dlc::kBool;
      auto shape = constInput(0) ? constInput(0)->shape
                                 : std::vector<int64_t>(typeOf(value(0)).getShape().begin(),
                                                        typeOf(value(0)).getShape().end());
      mask.shape = shape;
      mask.i.assign(mask.numel(), 1);
      consts[node->output(1)] = mask;
    }
    return;
  }
  if (foldIntNode())
    return;

  if (importElementwise())
    return;
  if (op == "Relu" || op == "Sigmoid" || op == "Tanh") {
    allowOnlyAttrs({"consumed_inputs"});
    Value x = value(0);
    Location loc = NameLoc::get(builder.getStringAttr(node->name()));
    Value r = op == "Relu"      ? builder.create<dlc::ReluOp>(loc, x).getResult()
              : op == "Sigmoid" ? builder.create<dlc::SigmoidOp>(loc, x).getResult()
                                : builder.create<dlc::TanhOp>(loc, x).getResult();
    setOutput(0, r);
    return;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    allowOnlyAttrs({"broadcast", "axis", "consumed_inputs"});
    if (attr("axis"))
      failNode("legacy axis broadcasting is not supported");
    Value a = value(0), b = value(1);
    Value r = op == "Add"   ? build<dlc::AddOp>({a, b})
              : op == "Sub" ? build<dlc::SubOp>({a, b})
              : op == "Mul" ? build<dlc::MulOp>({a, b})
                            : build<dlc::DivOp>({a, b});
    setOutput(0, r);
    return;
  }
  if (importLogical())
    return;
  if (importComposite())
    return;
  if (op == "Conv")
    return importConv();
  if (op == "ConvTranspose")
    return importConvTranspose();
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool")
    return importPool(op);
  if (op == "Gemm")
    return importGemm();
  if (op == "MatMul") {
    allowOnlyAttrs({});
    return setOutput(0, build<dlc::MatMulOp>({value(0), value(1)}));
  }
  if (op == "Clip")
    return importClip();
  if (op == "Softmax" || op == "LogSoftmax")
    return importSoftmax();
  static const std::map<std::string, std::string> reductions = {
      {"ReduceSum", "sum"}, {"ReduceMean", "mean"}, {"ReduceMax", "max"},
      {"ReduceMin", "min"}, {"ReduceProd", "prod"}, {"ReduceL1", "l1"},
      {"ReduceL2", "l2"}, {"ReduceLogSum", "log_sum"}, {"ReduceLogSumExp", "log_sum_exp"},
      {"ReduceSumSquare", "sum_square"}};
  if (auto it = reductions.find(op); it != reductions.end())
    return importReduce(it->second);
  if (op == "ConstantOfShape") {
    allowOnlyAttrs({"value"});
    std::vector<int64_t> shape = requiredInts(0, "the shape");
    ConstTensor fill;
    fill.f = {0.0f};
    if (auto *a = attr("value"))
      fill = readTensor(a->t(), "node '" + node->name() + "' value");
    if (fill.numel() != 1)
      failNode("value must hold one element");
    ConstTensor c;
    c.dtype = fill.dtype;
    c.shape = shape;
    if (fill.isInt())
      c.i.assign(c.numel(), fill.i[0]);
    else
      c.f.assign(c.numel(), fill.f[0]);
    consts[node->output(0)] = c;
    return;
  }
  if (op == "Expand") {
    allowOnlyAttrs({});
    std::vector<int64_t> shape = requiredInts(1, "the shape");
    setOutput(0, build<dlc::ExpandOp>(
                     value(0), {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape))}));
    return;
  }
  if (op == "Cast" || op == "CastLike") {
    allowOnlyAttrs({"to", "saturate", "round_mode"});
    // CastLike reads only the element type of its second input, which may
    // be an empty tensor (value() refuses those as data).
    int32_t to = op == "Cast" ? attrInt("to", 0) : inputDtype(1);
    if (!dlc::dtypeName(to))
      failNode("cast to " + dtypeName(to) + " is not supported");
    if (const ConstTensor *c = constInput(0)) {
      consts[node->output(0)] = castConst(*c, to);
      return;
    }
    Value x = value(0);
    if (typeOf(x).getElementType() == elemType(to))
      return setOutput(0, x);
    return setOutput(0, build<dlc::CastOp>(
                            x, {builder.getNamedAttr("to", TypeAttr::get(elemType(to)))}));
  }
  if (op == "GlobalMaxPool") {
    allowOnlyAttrs({});
    Value x = value(0);
    std::vector<int64_t> spatial;
    for (int64_t d = 2; d < typeOf(x).getRank(); ++d)
      spatial.push_back(d);
    return setOutput(0, reduce(x, "max", spatial, true));
  }
  if (op == "GlobalAveragePool") {
    allowOnlyAttrs({});
    return setOutput(0, build<dlc::GlobalAveragePoolOp>(value(0)));
  }
  if (op == "BatchNormalization")
    return importBatchNorm();
  if (op == "Flatten") {
    allowOnlyAttrs({"axis"});
    Value x = value(0);
    int64_t axis = normAxis(attrInt("axis", 1), typeOf(x).getRank(), /*inclusive=*/true);
    return setOutput(0, build<dlc::FlattenOp>(
                            x, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))}));
  }
  if (op == "Reshape")
    return importReshape();
  if (op == "Squeeze" || op == "Unsqueeze")
    return importSqueeze(op == "Unsqueeze");
  if (op == "Slice")
    return importSlice();
  if (op == "Split")
    return importSplit();
  if (op == "Transpose") {
    allowOnlyAttrs({"perm"});
    Value x = value(0);
    std::vector<int64_t> perm;
    if (auto p = attrInts("perm"))
      perm = *p;
    else
      for (int64_t i = typeOf(x).getRank() - 1; i >= 0; --i)
        perm.push_back(i);
    return setOutput(0, build<dlc::TransposeOp>(
                            x, {builder.getNamedAttr("perm", builder.getDenseI64ArrayAttr(perm))}));
  }
  if (op == "Concat") {
    allowOnlyAttrs({"axis"});
    SmallVector<Value> ins;
    for (int i = 0; i < node->input_size(); ++i) {
      // Empty parts (a zero-size Split piece) add nothing.
      auto it = values.find(node->input(i));
      if (it != values.end() && typeOf(it->second).getNumElements() == 0)
        continue;
      ins.push_back(value(i));
    }
    if (ins.empty())
      failNode("Concat needs at least one input");
    int64_t axis = normAxis(attrInt("axis", opset < 4 ? 1 : 0), typeOf(ins[0]).getRank());
    return setOutput(0, build<dlc::ConcatOp>(
                            ins, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))}));
  }
  failNode("unsupported operator " + op + " (ai.onnx, opset " + std::to_string(opset) + ")");
}

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

bool Importer::run(dlc::ImportedModel &out, std::string &error) {
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      fail("cannot open file");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    onnx::ModelProto model;
    if (bytes.empty() || !model.ParseFromString(bytes))
      fail("not a valid ONNX model (truncated or garbled protobuf)");
    if (!model.has_graph() || model.graph().node_size() == 0)
      fail("the model has no graph or an empty graph");
    for (const auto &imp : model.opset_import())
      if (imp.domain().empty() || imp.domain() == "ai.onnx")
        opset = imp.version();
    if (opset == 0)
      fail("the model imports no ai.onnx opset");
    if (opset < kMinOpset || opset > kMaxOpset)
      fail("ai.onnx opset " + std::to_string(opset) + " is not supported (dlc supports " +
           std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")");
    const onnx::GraphProto &graph = model.graph();

    // Initializers: weights and shape constants.
    std::set<std::string> initNames;
    for (const auto &t : graph.initializer()) {
      consts[t.name()] = readTensor(t, "initializer '" + t.name() + "'");
      initNames.insert(t.name());
    }

    for (auto &[name, bound] : opts.bindings) {
      const onnx::ValueInfoProto *vi = nullptr;
      for (const auto &in : graph.input())
        if (in.name() == name && !initNames.count(name))
          vi = &in;
      if (!vi)
        fail("--bind names '" + name + "', which is not a graph input");
      int32_t elem = vi->type().tensor_type().elem_type();
      if (bound.dtype != elem)
        fail("--bind " + name + ": the array is " + dtypeName(bound.dtype) + " but the input is " +
             dtypeName(elem));
      const auto &dims = vi->type().tensor_type().shape();
      bool rankOk = dims.dim_size() == (int)bound.shape.size();
      for (int i = 0; rankOk && i < dims.dim_size(); ++i)
        rankOk = !dims.dim(i).has_dim_value() || dims.dim(i).dim_value() == bound.shape[i];
      if (!rankOk)
        fail("--bind " + name + ": shape " + dimsToString(bound.shape) +
             " does not match the input's");
      ConstTensor c;
      c.shape = bound.shape;
      c.dtype = bound.dtype;
      c.f = bound.floats;
      c.i = bound.ints;
      consts[name] = c;
      initNames.insert(name); // from here on, an initializer
    }
    for (auto &[name, shape] : opts.inputShapes) {
      bool found = false;
      for (const auto &vi : graph.input())
        found |= vi.name() == name && !initNames.count(name);
      if (!found)
        fail("--input-shape names '" + name + "', which is not a graph input");
    }

    // Graph inputs (IR < 4 lists initializers among them too).
    SmallVector<Type> argTypes;
    for (const auto &vi : graph.input()) {
      if (initNames.count(vi.name()))
        continue;
      const auto &tt = vi.type().tensor_type();
      if (!vi.type().has_tensor_type())
        fail("graph input '" + vi.name() + "' is not a tensor");
      if (!dlc::dtypeName(tt.elem_type()))
        fail("graph input '" + vi.name() + "' has element type " + dtypeName(tt.elem_type()) +
             ", which dlc does not support");
      std::vector<int64_t> shape;
      auto bound = opts.inputShapes.find(vi.name());
      if (bound != opts.inputShapes.end()) {
        shape = bound->second;
        if (tt.has_shape() && tt.shape().dim_size() != (int)shape.size())
          fail("--input-shape " + vi.name() + "=" + dimsToString(shape) + " has rank " +
               std::to_string(shape.size()) + " but the model's input has rank " +
               std::to_string(tt.shape().dim_size()));
        for (int i = 0; tt.has_shape() && i < tt.shape().dim_size(); ++i)
          if (tt.shape().dim(i).has_dim_value() && tt.shape().dim(i).dim_value() != shape[i])
            fail("--input-shape " + vi.name() + "=" + dimsToString(shape) +
                 " conflicts with the model's dim " + std::to_string(i) + " = " +
                 std::to_string(tt.shape().dim(i).dim_value()));
      } else {
        if (!tt.has_shape())
          fail("graph input '" + vi.name() + "' has no shape; give one with --input-shape " +
               vi.name() + "=DIMS");
        for (int i = 0; i < tt.shape().dim_size(); ++i) {
          const auto &d = tt.shape().dim(i);
          // A declared 0 is a static zero-size input (CastLike's type
          // operand); value() refuses it wherever it would be read.
          if (!d.has_dim_value() || d.dim_value() < 0)
            fail("graph input '" + vi.name() + "' has dynamic dim " + std::to_string(i) +
                 (d.has_dim_param() ? " ('" + d.dim_param() + "')" : std::string()) +
                 "; bind it with --input-shape " + vi.name() + "=DIMS");
          shape.push_back(d.dim_value());
        }
      }
      if (opts.batch > 0 && !shape.empty())
        shape[0] = opts.batch;
      argTypes.push_back(RankedTensorType::get(shape, elemType(tt.elem_type())));
      out.inputs.push_back({vi.name(), tt.elem_type(), shape});
    }

    // Training: float initializers are parameters, passed in at run time,
    // except those only read as settings that dlc needs at compile time
    // (Clip's bounds, Pad's value, Resize's roi and scales).
    std::set<std::string> settings, dataUses, statistics;
    for (const auto &n : graph.node())
      for (int i = 0; i < n.input_size(); ++i) {
        const std::string &op = n.op_type();
        bool setting = (op == "Clip" && i >= 1) || (op == "Pad" && i == 2) ||
                       (op == "Resize" && (i == 1 || i == 2)) || (op == "Upsample" && i == 1) ||
                       (op == "Dropout" && i >= 1);
        (setting ? settings : dataUses).insert(n.input(i));
        if (op == "BatchNormalization" && (i == 3 || i == 4))
          statistics.insert(n.input(i));
      }
    if (opts.trainable)
      for (const auto &t : graph.initializer()) {
        auto c = consts.find(t.name());
        if (c == consts.end() || !(c->second.dtype == dlc::kFloat32 ||
                                   c->second.dtype == dlc::kFloat64) ||
            c->second.numel() == 0 || (settings.count(t.name()) && !dataUses.count(t.name())))
          continue;
        argTypes.push_back(RankedTensorType::get(c->second.shape, elemType(c->second.dtype)));
        out.parameters.push_back({t.name(), c->second.dtype, c->second.shape});
        out.parameterData.push_back(packConst(c->second, c->second.dtype));
        out.parameterRoles.push_back(statistics.count(t.name()) ? "buffer" : "parameter");
        consts.erase(c);
      }

    auto module = ModuleOp::create(FileLineColLoc::get(&ctx, path, 0, 0));
    builder.setInsertionPointToEnd(module.getBody());
    auto func = builder.create<func::FuncOp>(module.getLoc(), "main",
                                             builder.getFunctionType(argTypes, {}));
    Block *entry = func.addEntryBlock();
    // Training passes find parameters (and name new arguments) by these.
    auto nameArg = [&](unsigned i, const std::string &name, const char *role) {
      values[name] = entry->getArgument(i);
      if (!opts.trainable)
        return;
      func.setArgAttr(i, "dlc.name", builder.getStringAttr(name));
      func.setArgAttr(i, "dlc.role", builder.getStringAttr(role));
    };
    for (size_t i = 0; i < out.inputs.size(); ++i)
      nameArg(i, out.inputs[i].name, "input");
    for (size_t i = 0; i < out.parameters.size(); ++i)
      nameArg(out.inputs.size() + i, out.parameters[i].name, out.parameterRoles[i].c_str());
    builder.setInsertionPointToStart(entry);
    out.module = module;

    for (nodeIndex = 0; nodeIndex < graph.node_size(); ++nodeIndex) {
      node = &graph.node(nodeIndex);
      // A constant the node folds to (ConstantOfShape, a Resize's or Tile's
      // tables) too large for memory: the node, not a bare "std::bad_alloc".
      const char *tooLarge =
          "out of memory building it: its tensors or the constants it folds to are too large";
      try {
        importNode();
      } catch (const std::bad_alloc &) {
        failNode(tooLarge);
      } catch (const std::length_error &) { // a std::vector over max_size()
        failNode(tooLarge);
      }
    }
    node = nullptr;

    // ONNX's own checks, where the linked library knows the opset and IR.
    // They run after dlc's import so that dlc's node-naming messages come
    // first; what only the checker sees still names the node.
    if (opset <= kCheckerMaxOpset && model.ir_version() <= kCheckerMaxIr) {
      try {
        bool external = false;
        for (const auto &t : graph.initializer())
          external |= t.data_location() == onnx::TensorProto::EXTERNAL;
        // External data is looked up relative to the model file.
        if (external)
          onnx::checker::check_model(path);
        else
          onnx::checker::check_model(model);
        onnx::ModelProto copy = model;
        onnx::shape_inference::InferShapes(copy);
      } catch (const std::exception &e) {
        std::string msg = e.what(), where;
        auto name = msg.find("Name: "), type = msg.find(" OpType: ");
        if (name != std::string::npos && type != std::string::npos && type > name) {
          std::string nodeName = msg.substr(name + 6, type - name - 6);
          std::string opType = msg.substr(type + 9);
          opType = opType.substr(0, opType.find_first_of(" \n"));
          for (int i = 0; i < graph.node_size(); ++i)
            if (graph.node(i).name() == nodeName)
              where = "node '" + nodeName + "' (#" + std::to_string(i) + ", " + opType + "): ";
        }
        fail(where + "ONNX checker: " + msg.substr(0, msg.find('\n')));
      }
    }

    SmallVector<Value> results;
    for (const auto &vi : graph.output()) {
      auto it = values.find(vi.name());
      if (it == values.end()) {
        if (consts.count(vi.name()))
          it = values.emplace(vi.name(), makeConstant(vi.name(), consts[vi.name()])).first;
        else
          fail("graph output '" + vi.name() + "' is not computed by any node");
      }
      auto t = typeOf(it->second);
      if (t.getNumElements() == 0)
        fail("graph output '" + vi.name() + "' has zero elements, which dlc does not support");
      // A declared element type the graph does not compute (an f16 input
      // through ops that keep it, beside an f32 output) is an invalid model,
      // as onnxruntime rejects it; ONNX's checker only sees it up to the
      // opsets it knows. Returned as computed, it gave the caller another
      // type than the model promised.
      int32_t declared = vi.type().tensor_type().elem_type();
      if (declared != onnx::TensorProto::UNDEFINED && declared != dtypeOf(t))
        fail("graph output '" + vi.name() + "' is declared " + dtypeName(declared) +
             " but the graph computes " + dtypeName(dtypeOf(t)));
      results.push_back(it->second);
      out.outputs.push_back({vi.name(), dtypeOf(t),
                             std::vector<int64_t>(t.getShape().begin(), t.getShape().end())});
    }
    builder.create<func::ReturnOp>(module.getLoc(), results);
    func.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));

    std::string diag;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      if (diag.empty())
        diag = d.str();
      return success();
    });
    if (failed(verify(module)))
      fail("invalid model: " + diag);
    out.opset = opset;
    out.graphName = graph.name();
    return true;
  } catch (const ImportError &e) {
    error = e.message;
  } catch (const std::exception &e) {
    error = path + ": " + e.what();
  }
  if (out.module)
    out.module = nullptr;
  return false;
}

bool dlc::importOnnxFile(MLIRContext &ctx, const std::string &path,
                         const ImportOptions &options, ImportedModel &out,
                         std::string &error) {
  ctx.loadDialect<dlc::DlcDialect, func::FuncDialect>();
  Importer importer(ctx, path, options);
  return importer.run(out, error);
}
