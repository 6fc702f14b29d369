//===- strata.td - strata's high-level ML operators --------*- tablegen -*-===//
//
// The `strata` dialect keeps whole operators (attention, normalization,
// activations, linear layers) intact so that fusion and target choices happen
// at their semantic granularity. This file is the single source of truth for
// the dialect: op names, operands, results, attributes, traits and docs.
// strata loads it at run time (`strata.dialects`), enforces every type and
// attribute constraint below, and runs the verifier each op's description
// announces (`python/strata/dialects/verifiers.py`).
//
//===----------------------------------------------------------------------===//

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Strata_Dialect : Dialect {
  let name = "strata";
  let summary = "High-level ML operators kept whole for fusion and lowering";
  let description = [{
    Operators as a model author thinks of them. `strata-raise-torch` produces
    them from the torch dialect (both from direct aten calls and from the
    decomposed forms hand-written models produce); `strata-lower-to-linalg`
    lowers each of them to linalg on tensors.
  }];
  let cppNamespace = "::strata";
}

class Strata_Op<string mnemonic, list<Trait> traits = []>
    : Op<Strata_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Constraints
//===----------------------------------------------------------------------===//

// Floating-point element types every strata op accepts.
def Strata_Float : AnyTypeOf<[F16, BF16, F32, F64]>;

def Strata_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Strata_Float4DTensor : TensorRankOf<[F16, BF16, F32, F64], [4]>;

def Strata_FloatPositive : AttrConstraint<
    CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getValueAsDouble() > 0.0">,
    "whose value is positive">;

def Strata_EpsAttr : ConfinedAttr<F64Attr, [Strata_FloatPositive]>;
def Strata_ScaleAttr : ConfinedAttr<F64Attr, [Strata_FloatPositive]>;

def Strata_ShapeAttr : ConfinedAttr<DenseI64ArrayAttr,
    [DenseArrayMinCt<1>, DenseArrayStrictlyPositive<DenseI64ArrayAttr>]>;

def Strata_GeluApproximation_None : I32EnumAttrCase<"None", 0, "none">;
def Strata_GeluApproximation_Tanh : I32EnumAttrCase<"Tanh", 1, "tanh">;
def Strata_GeluApproximationAttr : I32EnumAttr<"GeluApproximation",
    "approximation of gelu: 0 = none (erf), 1 = tanh",
    [Strata_GeluApproximation_None, Strata_GeluApproximation_Tanh]> {
  let cppNamespace = "::strata";
}

def Strata_Activation_None : I32EnumAttrCase<"None", 0, "none">;
def Strata_Activation_Relu : I32EnumAttrCase<"Relu", 1, "relu">;
def Strata_Activation_Gelu : I32EnumAttrCase<"Gelu", 2, "gelu">;
def Strata_Activation_GeluTanh : I32EnumAttrCase<"GeluTanh", 3, "gelu_tanh">;
def Strata_Activation_Silu : I32EnumAttrCase<"Silu", 4, "silu">;
def Strata_ActivationAttr : I32EnumAttr<"Activation",
    "activation fused into a linear layer: 0 = none, 1 = relu, 2 = gelu, "
    "3 = gelu_tanh, 4 = silu",
    [Strata_Activation_None, Strata_Activation_Relu, Strata_Activation_Gelu,
     Strata_Activation_GeluTanh, Strata_Activation_Silu]> {
  let cppNamespace = "::strata";
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

def Strata_SoftmaxOp : Strata_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "Softmax along one dimension";
  let description = [{
    `result = exp(x - max(x, dim)) / sum(exp(x - max(x, dim)), dim)`, computed
    along dimension `dim` of `input` (negative values count from the end).

    Verifier: `dim` lies in `[-rank, rank)`.
  }];
  let arguments = (ins Strata_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Strata_FloatTensor:$result);
  let hasVerifier = 1;
}

def Strata_GeluOp : Strata_Op<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    Elementwise `x * Phi(x)`. With `approximation = 0` (none) `Phi` is the
    exact normal CDF `0.5 * (1 + erf(x / sqrt(2)))`; with `approximation = 1`
    (tanh) it is `0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`, as in
    `torch.nn.functional.gelu(x, approximate="tanh")`.
  }];
  let arguments = (ins Strata_FloatTensor:$input,
                       Strata_GeluApproximationAttr:$approximation);
  let results = (outs Strata_FloatTensor:$result);
}

def Strata_SiluOp : Strata_Op<"silu", [Pure, SameOperandsAndResultType]> {
  let summary = "Sigmoid linear unit";
  let description = [{
    Elementwise `x * sigmoid(x)` (also called swish).
  }];
  let arguments = (ins Strata_FloatTensor:$input);
  let results = (outs Strata_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Strata_LayerNormOp : Strata_Op<"layer_norm",
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>]> {
  let summary = "Layer normalization over the trailing dimensions";
  let description = [{
    Normalizes `input` over its trailing dimensions, whose sizes are
    `normalized_shape`: `(x - mean) / sqrt(var + eps)` with the biased
    variance, then multiplies by `weight` and adds `bias` when present, as in
    `torch.nn.functional.layer_norm`.

    Verifier: `normalized_shape` equals the trailing dimensions of `input`;
    `weight` and `bias`, when present, have shape `normalized_shape` and the
    element type of `input`.
  }];
  let arguments = (ins Strata_FloatTensor:$input,
                       Optional<Strata_FloatTensor>:$weight,
                       Optional<Strata_FloatTensor>:$bias,
                       Strata_ShapeAttr:$normalized_shape,
                       Strata_EpsAttr:$eps);
  let results = (outs Strata_FloatTensor:$result);
  let hasVerifier = 1;
}

def Strata_RmsNormOp : Strata_Op<"rms_norm",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Root-mean-square normalization over the trailing dimensions";
  let description = [{
    `x * rsqrt(mean(x^2) + eps)` with the mean taken over the trailing
    dimensions of sizes `normalized_shape`, then multiplied by `weight` when
    present, as in `torch.nn.functional.rms_norm`.

    Verifier: `normalized_shape` equals the trailing dimensions of `input`;
    `weight`, when present, has shape `normalized_shape` and the element type
    of `input`.
  }];
  let arguments = (ins Strata_FloatTensor:$input,
                       Optional<Strata_FloatTensor>:$weight,
                       Strata_ShapeAttr:$normalized_shape,
                       Strata_EpsAttr:$eps);
  let results = (outs Strata_FloatTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention and linear layers
//===----------------------------------------------------------------------===//

def Strata_AttentionOp : Strata_Op<"attention",
    [Pure, AllElementTypesMatch<["query", "key", "value", "result"]>]> {
  let summary = "Batched multi-head scaled dot-product attention";
  let description = [{
    `softmax(query @ key^T * scale + mask) @ value` with
    `query: [batch, heads, Lq, E]`, `key: [batch, heads, Lk, E]`,
    `value: [batch, heads, Lk, Ev]` and `result: [batch, heads, Lq, Ev]`.
    `mask`, when present, is added to the scores; it has shape `[Lq, Lk]` or
    `[batch|1, heads|1, Lq, Lk]` and the element type of `query`. With
    `is_causal`, scores above the diagonal (key position > query position)
    are masked out, as in `torch.nn.functional.scaled_dot_product_attention`.
    A query whose every score is `-inf` (all keys masked) gets a NaN row, as
    softmax itself gives, unless `fully_masked_rows_zero` is set: then its row
    is 0, as `scaled_dot_product_attention` gives.

    Verifier: batch and head dims of query, key, value and result agree; the
    head dims (`E`) of query and key agree; key and value have the same
    sequence length; the result has shape `[batch, heads, Lq, Ev]`; `mask`
    broadcasts to the scores; `mask` and `is_causal` are not both given.
  }];
  let arguments = (ins Strata_Float4DTensor:$query,
                       Strata_Float4DTensor:$key,
                       Strata_Float4DTensor:$value,
                       Optional<Strata_FloatTensor>:$mask,
                       Strata_ScaleAttr:$scale,
                       BoolAttr:$is_causal,
                       DefaultValuedAttr<BoolAttr, "false">:$fully_masked_rows_zero);
  let results = (outs Strata_Float4DTensor:$result);
  let hasVerifier = 1;
}

def Strata_LinearOp : Strata_Op<"linear",
    [Pure, AllElementTypesMatch<["input", "weight", "result"]>]> {
  let summary = "Linear layer with an optional bias and fused activation";
  let description = [{
    `activation(input @ weight^T + bias)` with `input: [..., K]`,
    `weight: [N, K]`, `bias: [N]` and `result: [..., N]`, as in
    `torch.nn.functional.linear` followed by the activation.

    Verifier: `weight` is 2-D and its `K` equals the last dimension of
    `input`; `bias`, when present, has shape `[N]` and the element type of
    `input`; `result` has the leading dims of `input` and last dim `N`.
  }];
  let arguments = (ins Strata_FloatTensor:$input,
                       Strata_FloatTensor:$weight,
                       Optional<Strata_FloatTensor>:$bias,
                       Strata_ActivationAttr:$activation);
  let results = (outs Strata_FloatTensor:$result);
  let hasVerifier = 1;
}
