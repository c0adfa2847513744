//===- LinalgBuilders.h - building linalg on tensors for dlc lowerings ----===//
//
// Shared by dlc-lower-to-linalg's patterns (forward ops in LowerToLinalg.cpp,
// gradient ops in LowerGradientsToLinalg.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_LINALGBUILDERS_H
#define DLC_PASSES_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace dlc {
using namespace mlir;
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;
/// Folds one value into a reduction's accumulator: combine(b, loc, acc, v).
using CombineFn = function_ref<Value(OpBuilder &, Location, Value, Value)>;

RankedTensorType tensorType(Value v);

/// dlc's unsigned element types (ui8...) become signless: arith and linalg
/// take signless integers, and the ops pick unsigned arithmetic themselves.
Type signlessElement(Type t);
RankedTensorType signlessType(Type t);
bool isUnsignedTensor(Value v);
/// Unsigned ints and bool compare and widen as unsigned.
bool isUnsignedLike(Value v);
bool isFloatValue(Value v);
/// 16-bit floats compute in f32 inside elementwise bodies.
bool isNarrowFloat(Type t);

/// A scalar of type `t` (float or signless integer). For integers, +-inf
/// become the signed type's largest and smallest values.
Value scalarConst(OpBuilder &b, Location loc, Type t, double v);

/// A constant of `like`'s type (a scalar element inside bodies).
Value constLike(OpBuilder &b, Location loc, Value like, double v);

Value filled(OpBuilder &b, Location loc, RankedTensorType type, double v);

/// Fast-math `nsz` for the max/min of activations and max pooling: NaN still
/// propagates, but max(-0, +0) may be either zero. Without it LLVM orders
/// the zeros with two extra blends per vector max on x86 (AVX2's maxps
/// does not), as many instructions as the ReLU6 of a depthwise conv's
/// nine taps took for the taps themselves.
arith::FastMathFlagsAttr ignoreZeroSign(OpBuilder &b);

/// One linalg.generic, all loops parallel, with explicit input maps; the
/// output map is the identity.
Value buildParallelGeneric(OpBuilder &b, Location loc, RankedTensorType outType,
                           ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                           BodyFn body);

/// Static reshape as collapse-to-1-D + expand: both are views after
/// bufferization, whatever the two shapes are. Rank 0 (one element) goes
/// through an empty reassociation.
Value reshapeStatic(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape);

/// numpy broadcasting: an operand is aligned to the trailing dims of the
/// result. Its broadcast (size-1) dims are reshaped away first, so that every
/// indexing map stays a projected permutation (which tiling and the
/// vectorizer need).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType outType,
                       ValueRange inputs, BodyFn body);

/// A per-channel vector [C] read at dim `dim` of a rank-`rank` iteration.
AffineMap channelMap(OpBuilder &b, int64_t rank, int64_t dim);

Value padWith(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
              ArrayRef<int64_t> high, double value);

/// `x`'s defining tensor.pad where it pads an [N, C, H, W] tensor with
/// zeros by static widths on H and W alone (a conv's padding, which a conv
/// kernel can read around instead of copying); null otherwise.
tensor::PadOp zeroSpatialPadOf(Value x);

/// Accumulator for conv/gemm: the bias broadcast along `dim`, or zeros.
Value biasInit(OpBuilder &b, Location loc, RankedTensorType outType, Value bias,
               int64_t dim);

/// init + sum over the reduction dims of a * b: the GEMM-shaped generic
/// (mulf, addf) over `maps` (a, b, init) and `iters`.
Value multiplyAccumulate(OpBuilder &b, Location loc, Value lhs, Value rhs, Value init,
                         ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters);

/// out[n, m, p] = init + sum_k w[m, k] * x[n, k, p]: one matrix against a
/// batch (1x1 convs, conv input gradients), as the GEMM-shaped generic that
/// tile-and-vectorize tiles like a matmul.
Value weightTimesBatch(OpBuilder &b, Location loc, Value w, Value x, Value init);

/// weightTimesBatch's indexing maps over (n, m, p, k): w (m, k), x (n, k,
/// p), out (n, m, p).
SmallVector<AffineMap> weightTimesBatchMaps(MLIRContext *ctx);

/// The values of a constant f32 tensor (an inference build's weights), or
/// nothing (a parameter, a computed value).
std::optional<SmallVector<float>> constantF32Values(Value v);

/// An f32 constant of `shape` holding `data`, in a resource blob named after
/// `name` (weights re-laid out at compile time).
Value f32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ArrayRef<float> data,
                  StringRef name);

/// Marks an op that recomputes a value on purpose (a weight gradient's
/// im2col columns): dlc-tile-and-vectorize keeps the mark on its loops, so
/// that CSE does not merge them with the equal forward loops (which would
/// keep the forward's result alive until the backward pass).
constexpr llvm::StringLiteral kRecomputedAttr = "dlc.recomputed";

/// Inside a linalg body over (n, ...): x[n, c, h, w], c the body's loop
/// `channelDim`, where (h, w) lies inside x's last two dims, else
/// `outside`. The read is at a clamped address, so it never leaves x (a
/// padded conv or pool reading its input in place, without a padded copy).
Value readInsideOr(OpBuilder &b, Location loc, Value x, Value h, Value w, Value outside,
                   int64_t channelDim = 1);

/// The scalar a `linalg.fill` puts in `init`, or null.
Value fillValue(Value init);

/// The window taps of an NCHW input `x` for an output of shape `outShape`
/// [N, C, OH, OW], in (kh, kw) order: tap (i, j) is x[n, c, oh*sh + i*dh,
/// ow*sw + j*dw] over the output's positions, one strided
/// `tensor.extract_slice` of x. Ops over windows (depthwise convs, pooling)
/// become elementwise ops over their taps, whose maps are identities and
/// thus vectorize along output rows.
SmallVector<Value> windowTaps(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> outShape,
                              int64_t kh, int64_t kw, ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations);

/// A window op over the taps of one constant pad: dlc-depthwise-conv-to-
/// taps' or -pooling-to-taps' generic, with whatever elementwise fusion put
/// in it. One result over a static [N, C, H, W], all loops parallel, its
/// init a tensor.empty, a body that does not read its indices; each tap a
/// slice of the output's shape of one constant `tensor.pad` of the spatial
/// dims, all at the same strides; every other input the output's own
/// element, per channel or a scalar.
struct PaddedTaps {
  enum class Kind { Tap, Element, Channel, Scalar };
  /// What one input of the generic reads; a tap's window position (row,
  /// col) in padded coordinates.
  struct Input {
    Kind kind;
    int64_t row = 0, col = 0;
  };
  SmallVector<Input> inputs; // one per DPS input, in order
  tensor::PadOp pad;
  TypedAttr padValue;
  int64_t strideH = 0, strideW = 0;
  int64_t numTaps() const {
    return llvm::count_if(inputs, [](const Input &i) { return i.kind == Kind::Tap; });
  }
};
/// Output rows dlc-slide-taps-in-registers computes in one loop step where
/// a plane's rows are wider than a vector (at stride 1 they share their
/// input rows' pieces), each row a vector per `lanes` of its width.
inline int64_t slidRowsPerStep(int64_t strideH) { return strideH == 1 ? 4 : 1; }
/// `op` as a window op over padded taps, or nullopt.
std::optional<PaddedTaps> matchPaddedTaps(linalg::GenericOp op);
/// Replaces the window op `op` by `result` and erases what only it read:
/// its tap slices, its init and the pad.
void replacePaddedTaps(linalg::GenericOp op, const PaddedTaps &taps, Value result);

/// The loop dim (an integer) whose tiles dlc-tile-and-vectorize puts first
/// in a data-movement op's scf.forall, so that the thread pool's contiguous
/// shares split that dim: the channels, which the op's producer (a GEMM's
/// filter panels, a transform's channel loop) shared out the same way, so
/// that each thread reads mostly what it wrote itself. Shared out by output
/// row or Winograd point instead, each thread read half its input from the
/// other core's cache: ResNet-18's Winograd column stages ran 1.3x faster
/// at two threads channel first (Zen 5, the pool's per-loop clock).
constexpr llvm::StringLiteral kShareByDimAttr = "dlc.share_by_dim";

/// The loop dims (an array) whose indices dlc-tile-and-vectorize shares out
/// one per forall iteration, each iteration taking the other dims whole:
/// the stages of a Winograd input transform, each a channel at a time.
/// dlc-fuse-parallel-loops then runs the row and column stages as one loop,
/// a channel's row sums read back from L1 (ResNet-18 0.937 of its time at
/// one thread, Zen 5). The phase split stays a loop of its own (its
/// stride-m read is a vector.gather whose channel the fusion cannot see),
/// shared out by channel as the pad before it and the stages after it.
constexpr llvm::StringLiteral kForallDimsAttr = "dlc.forall_dims";

/// Marks im2col columns in the RowsOuter order (see ColumnOrder):
/// dlc-tile-and-vectorize shares them out by output row and channel block.
constexpr llvm::StringLiteral kRowTileColumnsAttr = "dlc.row_tile_columns";

/// The order of im2col's column dims (see im2colColumns).
enum class ColumnOrder {
  /// [N, C, KH, KW, OH, OW]: read as [N, C*KH*KW, OH*OW].
  ChannelsOuter,
  /// [N, KH, KW, C, OH, OW]: the CUDA implicit-GEMM kernels' (dlc-implicit-gemm).
  TapsOuter,
  /// [N, OH, C, KH, KW, OW]: read as [N, OH, C*KH*KW, OW], a pixelRows
  /// GEMM's row tiles of OW pixels, packed as the GEMM reads them.
  RowsOuter,
};

/// The im2col columns of a padded NCHW input `xp` for a KHxKW window with
/// strides `s` and dilations `d`, in `order`. The innermost loop walks `ow`,
/// so with stride 1 each row is a contiguous read of xp (plain vector
/// loads). With `into` (of the columns' shape, possibly a view of a larger
/// buffer), the columns are written there. With `pad` ({top, left}), `xp`
/// is the unpadded input and the columns read zeros outside it (no padded
/// copy: the GPU's choice; the CPU's vectorized gather wants the padded
/// rows).
Value im2colColumns(OpBuilder &b, Location loc, Value xp, int64_t kh, int64_t kw,
                    int64_t oh, int64_t ow, ArrayRef<int64_t> s, ArrayRef<int64_t> d,
                    Value into = nullptr, ArrayRef<int64_t> pad = {},
                    ColumnOrder order = ColumnOrder::ChannelsOuter);

/// `init` + the sum, over the reduction dims of `iters`, of `term(inputs)`,
/// for a reduction whose innermost loop dim (a reduction, the last index of
/// every input map) has a size divisible by `lanes`: that dim is split into
/// steps of `lanes` lanes, partial sums [init's shape..., lanes] are kept per
/// lane (vectors: dlc-tile-and-vectorize's lane tiling), and one sum over the
/// lanes ends it. Reductions over a contiguous innermost dim thus vectorize
/// instead of staying scalar. With `combine` (and `identity`, its neutral
/// value, which starts each lane) another reduction runs in lanes the same
/// way: Softmax's max.
Value sumInLanes(OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                 AffineMap outMap, ArrayRef<utils::IteratorType> iters, Value init,
                 int64_t lanes, BodyFn term, CombineFn combine = nullptr, double identity = 0.0);
/// sumInLanes in parts, for sums accumulated over several ops (chunks):
/// zeros (or `identity`) [init's shape..., lanes]; `partialInit` + one op's lane sums;
/// `init` + the sum over the lanes. With `combine`, the partials and the
/// final fold use it instead of a float add (a max in lanes: Softmax).
Value lanePartialInit(OpBuilder &b, Location loc, Value init, int64_t lanes,
                      double identity = 0.0);
Value partialSumsInLanes(OpBuilder &b, Location loc, ValueRange inputs,
                         ArrayRef<AffineMap> inputMaps, AffineMap outMap,
                         ArrayRef<utils::IteratorType> iters, Value partialInit, BodyFn term,
                         CombineFn combine = nullptr);
Value addLaneSums(OpBuilder &b, Location loc, Value partial, Value init,
                  CombineFn combine = nullptr);

/// The lane count for sumInLanes over an innermost reduction of `size`
/// elements: a full vector of the target (`vectorWidth`) or half of one,
/// whichever divides it; with `partialVectors`, else the most lanes between
/// the two that divide it (a 7x7 map's 49 pixels in 7); 0 when none does or
/// the dim is short.
int64_t reductionLanes(int64_t size, int64_t vectorWidth = 8, bool partialVectors = false);

/// 1 / divisor of each average-pool output position [OH, OW] (of `outType`'s
/// element type), counted at compile time: window cells inside the input, or
/// inside input + explicit pads with count_include_pad (never the extra
/// ceil_mode cells).
Value poolInverseDivisors(OpBuilder &b, Location loc, RankedTensorType outType,
                          ArrayRef<int64_t> inShape, ArrayRef<int64_t> k, ArrayRef<int64_t> s,
                          ArrayRef<int64_t> p, ArrayRef<int64_t> d, bool countIncludePad);

/// Workspace chunking (--mem-budget): the largest divisor of `dim` whose
/// chunk, at `perUnit` bytes per unit, is at most `limit` bytes (1 if none).
int64_t chunkThatFits(int64_t dim, int64_t perUnit, int64_t limit);
/// `v`'s slice [offset, offset + size) along `dim`, other dims whole.
Value sliceAlong(OpBuilder &b, Location loc, Value v, int64_t dim, OpFoldResult offset,
                 int64_t size);
/// An scf.for over chunks of `chunk` along dim 0 of `init`'s shape: each
/// iteration's `part(offset, whole so far)` is inserted at `offset`;
/// returns the whole.
Value forEachBatchChunk(OpBuilder &b, Location loc, Value init, int64_t chunk,
                        function_ref<Value(OpBuilder &, Location, Value, Value)> part);

/// Patterns for the gradient ops (conv_grad_input, conv_grad_weight,
/// max_pool_grad, average_pool_grad), added to dlc-lower-to-linalg.
void populateGradientLoweringPatterns(RewritePatternSet &patterns,
                                      TypeConverter &converter,
                                      int64_t maxWorkspaceBytes = 0);

/// The bias a conv's accumulator starts from: a 1-D [F] tensor broadcast
/// over the output (LowerToLinalg's bias; `scalar` false), or a scalar fill
/// (`scalar` true); null if neither.
Value biasOf(Value init, bool &scalar);

/// True if every op of `g`'s body is a scalar elementwise op (int or float
/// operands and one result, no regions): the body can run on vectors.
bool hasScalarElementwiseBody(linalg::GenericOp g);
/// The one user of `v` (an NCHW conv's output) when it is an all-parallel
/// elementwise generic of `v` (identity map) and of per-channel [C]
/// vectors indexed by dim 1 (a BatchNorm's scale and shift), with an
/// identity init of `v`'s type that its body does not read, and a body of
/// scalar elementwise ops: an activation or a BatchNorm and activation that
/// can run on a register tile before the store. Null otherwise.
linalg::GenericOp epilogueOf(Value v);
/// The body of the elementwise generic `g` on vectors: `inputs` are its
/// input block arguments' values in order, at least one a vector (the
/// shape), scalars among them and values from outside broadcast to it.
Value applyElementwise(OpBuilder &b, Location loc, linalg::GenericOp g, ArrayRef<Value> inputs);

} // namespace dlc

#endif
