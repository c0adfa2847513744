//===- DlcOps.td - the dlc dialect: ONNX-level ops on tensors -------------===//
//
// Each ONNX node the importer accepts becomes one op here. Ops have value
// semantics on ranked tensors; attributes are normalised at import (explicit
// pads, opset differences resolved), so later passes see one form per op.
// Every op infers its result type (InferTypeOpAdaptor) and verifies operands.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_OPS
#define DLC_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Dlc_Dialect : Dialect {
  let name = "dlc";
  let cppNamespace = "::dlc";
  let summary = "ONNX-level tensor ops of the dlc compiler";
}

class Dlc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dlc_Dialect, mnemonic, !listconcat(traits, [Pure])>;

// Element types follow ONNX's: floats (f16, bf16, f32, f64), signless
// integers for ONNX's signed ones, `ui8`..`ui64` for unsigned (lowering makes
// them signless and picks unsigned arithmetic), and i1 for bool.
def Dlc_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Dlc_NumericTensor : RankedTensorOf<[AnyFloat, AnyInteger]>;
def Dlc_IntOrBoolTensor : RankedTensorOf<[AnyInteger]>;
def Dlc_BoolTensor : RankedTensorOf<[I1]>;
def Dlc_AnyTensor : RankedTensorOf<[AnyType]>;

//===----------------------------------------------------------------------===//
// Constants and weights
//===----------------------------------------------------------------------===//

def Dlc_ConstantOp : Dlc_Op<"constant", [ConstantLike, InferTypeOpAdaptor]> {
  let summary = "constant tensor or weight";
  let description = [{
    Weights imported from ONNX initializers hold a `dense_resource` blob so a
    large model is not copied into an inline attribute.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Dlc_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Dlc_UnaryOp<string mnemonic, Type T = Dlc_FloatTensor>
    : Dlc_Op<mnemonic, [SameOperandsAndResultType]> {
  let arguments = (ins T:$input);
  let results = (outs T:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}
def Dlc_ReluOp : Dlc_UnaryOp<"relu"> { let summary = "max(x, 0)"; }
def Dlc_SigmoidOp : Dlc_UnaryOp<"sigmoid"> { let summary = "1 / (1 + exp(-x))"; }
def Dlc_TanhOp : Dlc_UnaryOp<"tanh"> { let summary = "hyperbolic tangent"; }
def Dlc_AbsOp : Dlc_UnaryOp<"abs", Dlc_NumericTensor> { let summary = "|x|"; }
def Dlc_NegOp : Dlc_UnaryOp<"neg", Dlc_NumericTensor> { let summary = "-x"; }
def Dlc_ExpOp : Dlc_UnaryOp<"exp"> { let summary = "e^x"; }
def Dlc_LogOp : Dlc_UnaryOp<"log"> { let summary = "natural logarithm"; }
def Dlc_SqrtOp : Dlc_UnaryOp<"sqrt"> { let summary = "square root"; }
def Dlc_ReciprocalOp : Dlc_UnaryOp<"reciprocal"> { let summary = "1 / x"; }
def Dlc_FloorOp : Dlc_UnaryOp<"floor"> { let summary = "round down"; }
def Dlc_CeilOp : Dlc_UnaryOp<"ceil"> { let summary = "round up"; }
def Dlc_RoundOp : Dlc_UnaryOp<"round"> { let summary = "round half to even"; }
def Dlc_SignOp : Dlc_UnaryOp<"sign", Dlc_NumericTensor> { let summary = "-1, 0 or 1 (NaN stays NaN)"; }
def Dlc_SinOp : Dlc_UnaryOp<"sin"> { let summary = "sine"; }
def Dlc_CosOp : Dlc_UnaryOp<"cos"> { let summary = "cosine"; }
def Dlc_TanOp : Dlc_UnaryOp<"tan"> { let summary = "tangent"; }
def Dlc_AsinOp : Dlc_UnaryOp<"asin"> { let summary = "arcsine"; }
def Dlc_AcosOp : Dlc_UnaryOp<"acos"> { let summary = "arccosine"; }
def Dlc_AtanOp : Dlc_UnaryOp<"atan"> { let summary = "arctangent"; }
def Dlc_SinhOp : Dlc_UnaryOp<"sinh"> { let summary = "hyperbolic sine"; }
def Dlc_CoshOp : Dlc_UnaryOp<"cosh"> { let summary = "hyperbolic cosine"; }
def Dlc_AsinhOp : Dlc_UnaryOp<"asinh"> { let summary = "inverse hyperbolic sine"; }
def Dlc_AcoshOp : Dlc_UnaryOp<"acosh"> { let summary = "inverse hyperbolic cosine"; }
def Dlc_AtanhOp : Dlc_UnaryOp<"atanh"> { let summary = "inverse hyperbolic tangent"; }
def Dlc_ErfOp : Dlc_UnaryOp<"erf"> { let summary = "error function"; }
def Dlc_SoftplusOp : Dlc_UnaryOp<"softplus"> { let summary = "log(1 + e^x)"; }
def Dlc_SoftsignOp : Dlc_UnaryOp<"softsign"> { let summary = "x / (1 + |x|)"; }
def Dlc_MishOp : Dlc_UnaryOp<"mish"> { let summary = "x * tanh(softplus(x))"; }

/// Activations with float parameters (ONNX's defaults filled in at import).
class Dlc_ParamActivationOp<string mnemonic, dag params>
    : Dlc_Op<mnemonic, [SameOperandsAndResultType]> {
  let arguments = !con((ins Dlc_FloatTensor:$input), params);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}
def Dlc_LeakyReluOp : Dlc_ParamActivationOp<"leaky_relu", (ins F32Attr:$alpha)> {
  let summary = "x >= 0 ? x : alpha * x";
}
def Dlc_EluOp : Dlc_ParamActivationOp<"elu", (ins F32Attr:$alpha)> {
  let summary = "x >= 0 ? x : alpha * (e^x - 1)";
}
def Dlc_CeluOp : Dlc_ParamActivationOp<"celu", (ins F32Attr:$alpha)> {
  let summary = "max(0, x) + min(0, alpha * (e^(x / alpha) - 1))";
}
def Dlc_SeluOp : Dlc_ParamActivationOp<"selu", (ins F32Attr:$alpha, F32Attr:$gamma)> {
  let summary = "gamma * (x > 0 ? x : alpha * (e^x - 1))";
}
def Dlc_HardSigmoidOp : Dlc_ParamActivationOp<"hard_sigmoid", (ins F32Attr:$alpha, F32Attr:$beta)> {
  let summary = "max(0, min(1, alpha * x + beta))";
}
def Dlc_HardSwishOp : Dlc_UnaryOp<"hard_swish"> {
  let summary = "x * max(0, min(1, x / 6 + 1 / 2))";
}
def Dlc_ThresholdedReluOp : Dlc_ParamActivationOp<"thresholded_relu", (ins F32Attr:$alpha)> {
  let summary = "x > alpha ? x : 0";
}
def Dlc_GeluOp : Dlc_ParamActivationOp<"gelu", (ins BoolAttr:$tanh_approximation)> {
  let summary = "x * Phi(x), exact (erf) or with the tanh approximation";
}

def Dlc_IdentityOp : Dlc_UnaryOp<"identity", Dlc_AnyTensor> {
  let summary = "identity (also inference-mode Dropout)";
  let hasFolder = 1;
}

def Dlc_ClipOp : Dlc_Op<"clip", [SameOperandsAndResultType]> {
  let summary = "min(max(x, min), max); bounds resolved to attributes at import";
  let arguments = (ins Dlc_NumericTensor:$input, F32Attr:$min, F32Attr:$max);
  let results = (outs Dlc_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

/// Elementwise with numpy (multidirectional) broadcasting; the result has
/// the lhs element type (Pow's exponent may differ).
class Dlc_BinaryOp<string mnemonic, Type T = Dlc_NumericTensor, Type R = T,
                   dag extra = (ins)>
    : Dlc_Op<mnemonic, [InferTypeOpAdaptor]> {
  let arguments = !con((ins T:$lhs, T:$rhs), extra);
  let results = (outs R:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
}
def Dlc_AddOp : Dlc_BinaryOp<"add">;
def Dlc_SubOp : Dlc_BinaryOp<"sub">;
def Dlc_MulOp : Dlc_BinaryOp<"mul">;
def Dlc_DivOp : Dlc_BinaryOp<"div"> { let summary = "x / y (integers truncate toward zero)"; }
def Dlc_PowOp : Dlc_BinaryOp<"pow">;
def Dlc_MaxOp : Dlc_BinaryOp<"max">;
def Dlc_MinOp : Dlc_BinaryOp<"min">;
def Dlc_PReluOp : Dlc_BinaryOp<"prelu", Dlc_FloatTensor>;
def Dlc_ModOp : Dlc_BinaryOp<"mod", Dlc_NumericTensor, Dlc_NumericTensor,
                             (ins BoolAttr:$fmod)> {
  let summary = "remainder: the divisor's sign (fmod = false) or the dividend's (fmod = true)";
}
def Dlc_AndOp : Dlc_BinaryOp<"and", Dlc_IntOrBoolTensor> { let summary = "logical/bitwise and"; }
def Dlc_OrOp : Dlc_BinaryOp<"or", Dlc_IntOrBoolTensor> { let summary = "logical/bitwise or"; }
def Dlc_XorOp : Dlc_BinaryOp<"xor", Dlc_IntOrBoolTensor> { let summary = "logical/bitwise xor"; }
def Dlc_BitShiftOp : Dlc_BinaryOp<"bit_shift", Dlc_IntOrBoolTensor, Dlc_IntOrBoolTensor,
                                  (ins BoolAttr:$left)> {
  let summary = "x << y (left) or x >> y; shifts past the width give 0";
}
def Dlc_CompareOp : Dlc_BinaryOp<"compare", Dlc_NumericTensor, Dlc_BoolTensor,
                                 (ins StrAttr:$predicate)> {
  let summary = "eq, lt, le, gt or ge, elementwise, as bool";
  let hasVerifier = 1;
}

def Dlc_NotOp : Dlc_UnaryOp<"not", Dlc_IntOrBoolTensor> { let summary = "logical/bitwise not"; }

def Dlc_IsNaNOp : Dlc_Op<"is_nan", [InferTypeOpAdaptor]> {
  let summary = "x != x, as bool";
  let arguments = (ins Dlc_FloatTensor:$input);
  let results = (outs Dlc_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_IsInfOp : Dlc_Op<"is_inf", [InferTypeOpAdaptor]> {
  let summary = "x is +inf (detect_positive) or -inf (detect_negative), as bool";
  let arguments = (ins Dlc_FloatTensor:$input, BoolAttr:$detect_positive,
                       BoolAttr:$detect_negative);
  let results = (outs Dlc_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_CastOp : Dlc_Op<"cast", [InferTypeOpAdaptor]> {
  let summary = "element type conversion (ONNX Cast without saturate modes)";
  let description = [{
    Floats to integers truncate toward zero; to bool, nonzero is true; from
    unsigned integers, values are zero-extended.
  }];
  let arguments = (ins Dlc_NumericTensor:$input, TypeAttr:$to);
  let results = (outs Dlc_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_WhereOp : Dlc_Op<"where", [InferTypeOpAdaptor]> {
  let summary = "cond ? x : y, the three broadcast together";
  let arguments = (ins Dlc_BoolTensor:$condition, Dlc_AnyTensor:$x, Dlc_AnyTensor:$y);
  let results = (outs Dlc_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def Dlc_MatMulOp : Dlc_Op<"matmul", [InferTypeOpAdaptor]> {
  let summary = "numpy matmul: batched, with broadcasting of batch dims";
  let arguments = (ins Dlc_FloatTensor:$lhs, Dlc_FloatTensor:$rhs);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
}

def Dlc_GemmOp : Dlc_Op<"gemm", [InferTypeOpAdaptor]> {
  let summary = "alpha * op(A) * op(B) + beta * C, C unidirectionally broadcast";
  let arguments = (ins Dlc_FloatTensor:$a, Dlc_FloatTensor:$b,
                       Optional<Dlc_FloatTensor>:$c,
                       DefaultValuedAttr<BoolAttr, "false">:$transA,
                       DefaultValuedAttr<BoolAttr, "false">:$transB,
                       DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0f">:$beta);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)";
}

def Dlc_ConvOp : Dlc_Op<"conv", [InferTypeOpAdaptor]> {
  let summary = "2-D convolution, NCHW x FCHW, explicit pads [top, left, bottom, right]";
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$weight,
                       Optional<Dlc_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Pooling and normalisation
//===----------------------------------------------------------------------===//

class Dlc_PoolOp<string mnemonic, dag extra> : Dlc_Op<mnemonic, [InferTypeOpAdaptor]> {
  let arguments = !con((ins Dlc_FloatTensor:$input,
                            DenseI64ArrayAttr:$kernel_shape,
                            DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                            DenseI64ArrayAttr:$dilations,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode), extra);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}
def Dlc_MaxPoolOp : Dlc_PoolOp<"max_pool", (ins)> {
  let summary = "2-D max pooling, explicit pads (padding never wins the max)";
}
def Dlc_AveragePoolOp : Dlc_PoolOp<"average_pool",
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)> {
  let summary = "2-D average pooling, explicit pads";
}

//===----------------------------------------------------------------------===//
// Gradients (emitted by dlc-autodiff; ONNX has no such nodes)
//===----------------------------------------------------------------------===//

def Dlc_ConvGradInputOp : Dlc_Op<"conv_grad_input", []> {
  let summary = "d(loss)/d(conv input): a transposed convolution of the output gradient";
  let description = [{
    The conv's attributes, unchanged; the result has the conv input's shape
    (it cannot be inferred: strided convs drop trailing input rows).
  }];
  let arguments = (ins Dlc_FloatTensor:$grad_output, Dlc_FloatTensor:$weight,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group);
  let results = (outs Dlc_FloatTensor:$grad_input);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Dlc_ConvGradWeightOp : Dlc_Op<"conv_grad_weight", []> {
  let summary = "d(loss)/d(conv weight): the correlation of the input with the output gradient";
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$grad_output,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group);
  let results = (outs Dlc_FloatTensor:$grad_weight);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Dlc_MaxPoolGradOp : Dlc_Op<"max_pool_grad", [AllTypesMatch<["input", "grad_input"]>]> {
  let summary = "d(loss)/d(max_pool input): each window's gradient to its first maximum";
  let description = [{
    As PyTorch's max_pool2d backward: the window's first (row-major) maximum
    receives the gradient; overlapping windows add up.
  }];
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$grad_output,
                       DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations);
  let results = (outs Dlc_FloatTensor:$grad_input);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Dlc_AveragePoolGradOp : Dlc_Op<"average_pool_grad", []> {
  let summary = "d(loss)/d(average_pool input): each window's gradient shared by its cells";
  let description = [{
    The forward average_pool's attributes; every input cell receives, from
    each window that covers it, that window's gradient divided by the
    window's divisor (as the forward counts it). The result has the pool
    input's shape.
  }];
  let arguments = (ins Dlc_FloatTensor:$grad_output,
                       DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs Dlc_FloatTensor:$grad_input);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Dlc_GlobalAveragePoolOp : Dlc_Op<"global_average_pool", [InferTypeOpAdaptor]> {
  let summary = "mean over all spatial dims, keeping them as size 1";
  let arguments = (ins Dlc_FloatTensor:$input);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_BatchNormOp : Dlc_Op<"batch_norm", [InferTypeOpAdaptor]> {
  let summary = "inference-mode BatchNormalization over channel dim 1";
  let description = [{
    `momentum` (training builds only) is ONNX's: dlc-training-mode rewrites
    the op to normalize with batch statistics and updates the running ones
    as running * momentum + batch * (1 - momentum).
  }];
  let arguments = (ins Dlc_FloatTensor:$input, Dlc_FloatTensor:$scale,
                       Dlc_FloatTensor:$bias, Dlc_FloatTensor:$mean,
                       Dlc_FloatTensor:$variance, F32Attr:$epsilon,
                       OptionalAttr<F32Attr>:$momentum);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Dlc_DropoutOp : Dlc_Op<"dropout", [SameOperandsAndResultType]> {
  let summary = "ONNX Dropout of a training build: the identity at inference";
  let description = [{
    dlc-training-mode turns it, in the train step, into x * mask / (1 - ratio)
    with a fresh mask per step (see dropout_mask); `seed` tells the mask
    streams of different Dropout nodes apart.
  }];
  let arguments = (ins Dlc_FloatTensor:$input, F32Attr:$ratio, I64Attr:$seed);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Dlc_DropoutMaskOp : Dlc_Op<"dropout_mask", []> {
  let summary = "0 or 1 / (1 - ratio) per element, from a counter-based hash";
  let description = [{
    Element i keeps (1 / (1 - ratio)) when the top 24 bits of
    hash(seed, step, i) are at least ratio * 2^24, else 0. `step` (a 0-D
    int64, the train step's counter) makes every step draw a new mask; the
    same (seed, step) always gives the same mask, so runs are reproducible.
  }];
  let arguments = (ins RankedTensorOf<[I64]>:$step, F32Attr:$ratio, I64Attr:$seed);
  let results = (outs Dlc_FloatTensor:$mask);
  let assemblyFormat = "$step attr-dict `:` type($step) `->` type($mask)";
}

def Dlc_SoftmaxOp : Dlc_Op<"softmax", [SameOperandsAndResultType]> {
  let summary = "softmax";
  let description = [{
    With `coerce_2d` (ONNX opset < 13) the input is seen as 2-D, flattened at
    `axis`, and normalised over all dims from `axis` on. Without it (opset >= 13)
    the softmax runs over the single dim `axis`. `axis` is non-negative.
  }];
  let arguments = (ins Dlc_FloatTensor:$input, I64Attr:$axis, BoolAttr:$coerce_2d);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Dlc_LogSoftmaxOp : Dlc_Op<"log_softmax", [SameOperandsAndResultType]> {
  let summary = "log of softmax, with softmax's axis and coerce_2d semantics";
  let arguments = (ins Dlc_FloatTensor:$input, I64Attr:$axis, BoolAttr:$coerce_2d);
  let results = (outs Dlc_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Dlc_ReduceOp : Dlc_Op<"reduce", [InferTypeOpAdaptor]> {
  let summary = "ONNX Reduce*: sum, mean, max, min, prod, l1, l2, log_sum, log_sum_exp, sum_square";
  let description = [{
    `axes` are non-negative, sorted and unique (empty: every dim); with
    `keepdims` the reduced dims stay as size 1.
  }];
  let arguments = (ins Dlc_NumericTensor:$input, StrAttr:$kind,
                       DenseI64ArrayAttr:$axes, BoolAttr:$keepdims);
  let results = (outs Dlc_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Dlc_FlattenOp : Dlc_Op<"flatten", [InferTypeOpAdaptor]> {
  let summary = "reshape to 2-D at a non-negative axis";
  let arguments = (ins Dlc_AnyTensor:$input, I64Attr:$axis);
  let results = (outs Dlc_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_ReshapeOp : Dlc_Op<"reshape", [InferTypeOpAdaptor]> {
  let summary = "ONNX Reshape with its target shape folded to an attribute";
  let description = [{
    `shape` keeps ONNX's encoding: 0 copies the input dim (unless `allowzero`),
    -1 is inferred from the element count.
  }];
  let arguments = (ins Dlc_AnyTensor:$input, DenseI64ArrayAttr:$shape,
                       DefaultValuedAttr<BoolAttr, "false">:$allowzero);
  let results = (outs Dlc_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_ExpandOp : Dlc_Op<"expand", [InferTypeOpAdaptor]> {
  let summary = "ONNX Expand: numpy broadcast of the input and `shape`";
  let arguments = (ins Dlc_AnyTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Dlc_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_SliceOp : Dlc_Op<"slice", [InferTypeOpAdaptor]> {
  let summary = "static strided slice: per dim start, size and a positive step";
  let description = [{
    ONNX Slice and Split after their starts/ends/axes/steps are resolved at
    import: `offsets`, `sizes` and `steps` cover every dim.
  }];
  let arguments = (ins Dlc_AnyTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$steps);
  let results = (outs Dlc_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_GatherOp : Dlc_Op<"gather", [InferTypeOpAdaptor]> {
  let summary = "ONNX Gather (elements = false) or GatherElements (elements = true)";
  let description = [{
    Gather: out[pre, j..., post] = data[pre, indices[j...], post] along
    `axis`. GatherElements: out has the indices' shape and
    out[i] = data[i with dim `axis` replaced by indices[i]]. Negative indices
    count from the end; `axis` is non-negative.
  }];
  let arguments = (ins Dlc_AnyTensor:$data, Dlc_IntOrBoolTensor:$indices, I64Attr:$axis,
                       BoolAttr:$elements);
  let results = (outs Dlc_AnyTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Dlc_TransposeOp : Dlc_Op<"transpose", [InferTypeOpAdaptor]> {
  let summary = "permute dims";
  let arguments = (ins Dlc_AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Dlc_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Dlc_ConcatOp : Dlc_Op<"concat", [InferTypeOpAdaptor]> {
  let summary = "concatenate along a non-negative axis";
  let arguments = (ins Variadic<Dlc_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Dlc_AnyTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
}

//===----------------------------------------------------------------------===//
// Back-end ops on buffers (after bufferization)
//===----------------------------------------------------------------------===//

def Dlc_ConvGemmOp : Op<Dlc_Dialect, "conv_gemm", []> {
  let summary = "NCHW convolution as an implicit GEMM: the CUDA conv kernels' work";
  let description = [{
    output[n, f, p] = (overwrite ? 0 : output[n, f, p]) +
      sum over k of filter[f, k] * columns[n, k, p], where the columns are
    the im2col of `input` [N, C, H, W] with the taps outermost, k = (kh KW +
    kw) C + c, and p = oh OW + ow runs over the output pixels
    (`output_size` = [OH, OW]); a tap outside the input (the conv's zero
    padding, top and left `padding`) reads zero. dlc-implicit-gemm makes it
    from an im2col gather and the GEMM that reads it, so that the column
    buffer is never written: the compiler launches runtime/kernels/gemm_tc.cu's
    dlc_conv_* kernels, which gather the columns as they stage the tiles.
  }];
  let arguments = (ins Arg<MemRefRankOf<[F32], [4]>, "", [MemRead]>:$input,
                       Arg<MemRefRankOf<[F32], [2]>, "", [MemRead]>:$filter,
                       Arg<MemRefRankOf<[F32], [3]>, "", [MemRead, MemWrite]>:$output,
                       DenseI64ArrayAttr:$kernel_size, DenseI64ArrayAttr:$output_size,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$padding, UnitAttr:$overwrite);
  let assemblyFormat = [{
    $input `,` $filter `into` $output attr-dict `:` type($input) `,` type($filter) `into`
    type($output)
  }];
  let hasVerifier = 1;
}

#endif // DLC_OPS
