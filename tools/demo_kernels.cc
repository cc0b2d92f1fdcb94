// The demo's kernels: small programs a model would run, each exercising
// broadcasts between a reduction's result and its operand, and the matrix
// products of a model layer. bias_relu and row_max_mask are small enough to
// print whole; softmax, layer_norm, mlp_layer and attention_scores run at a
// realistic size so their vector loops and run times mean something.
#include <cmath>

#include "builder/arithmetic.h"
#include "tools/demo_examples.h"

namespace mxla::tools {
namespace {

constexpr int64_t kRows = 128;
constexpr int64_t kColumns = 1024;

Shape F32Shape(std::initializer_list<int64_t> dims) {
  return ShapeUtil::MakeShape(F32, dims);
}

// Deterministic values in (-amplitude, amplitude) that vary along both
// dimensions, so every row has a different maximum and mean.
Literal Wave(std::initializer_list<int64_t> dims, float amplitude, float phase) {
  Literal literal(F32Shape(dims));
  absl::Span<float> values = literal.data<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = amplitude * std::sin(0.37f * i + phase * (i / 97));
  }
  return literal;
}

// docs/design.md's user example: max(x + v, 0) with v on dimension 1.
DemoExample BiasRelu() {
  DemoExample example = NamedExample(
      "bias_relu", "max(x + v, 0): a bias row and a scalar zero",
      "Max(Add(x /*f32[2,3]*/, v /*f32[3]*/, {1}), ConstantR0<float>(&b, 0))");
  example.build = [] {
    XlaBuilder b("bias_relu");
    XlaOp x = Parameter(&b, 0, F32Shape({2, 3}), "x");
    XlaOp v = Parameter(&b, 1, F32Shape({3}), "v");
    Max(Add(x, v, {1}), ConstantR0<float>(&b, 0.0f));
    return b.Build();
  };
  example.inputs.push_back(
      LiteralUtil::CreateR2<float>({{1, -2, 3}, {-4, 5, -6}}));
  example.inputs.push_back(LiteralUtil::CreateR1<float>({-1, 1, 0.5f}));
  example.expected =
      LiteralUtil::CreateR2<float>({{0, 0, 3.5f}, {0, 6, 0}});
  return example;
}

// A 1.0/0.0 mask of each row's maximum: reduce, compare against the
// broadcast row maximum, select between scalars, convert.
DemoExample RowMaxMask() {
  DemoExample example = NamedExample(
      "row_max_mask", "mask of row maxima: reduce, compare, select, convert",
      "m = Reduce(x, -inf, max, {1}); "
      "ConvertElementType(Select(Eq(x, m, {0}), 1.0f, 0.0f), S32)");
  example.build = [] {
    XlaBuilder b("row_max_mask");
    XlaOp x = Parameter(&b, 0, F32Shape({2, 3}), "x");
    XlaOp rowmax = Reduce(x, ConstantR0<float>(&b, -INFINITY),
                          CreateScalarMaxComputation(F32, &b), {1});
    XlaOp mask = Select(Eq(x, rowmax, {0}), ConstantR0<float>(&b, 1.0f),
                        ConstantR0<float>(&b, 0.0f));
    ConvertElementType(mask, S32);
    return b.Build();
  };
  example.inputs.push_back(
      LiteralUtil::CreateR2<float>({{1, 5, 3}, {9, 2, 9}}));
  example.expected = LiteralUtil::CreateR2<int32_t>({{0, 1, 0}, {1, 0, 1}});
  return example;
}

// Row softmax, stabilized by the row maximum: two reductions whose results
// broadcast back along dimension 0.
DemoExample Softmax() {
  DemoExample example = NamedExample(
      "softmax", "softmax over each row of f32[128,1024]",
      "m = Reduce(x, -inf, max, {1});\n"
      "    e = Exp(Sub(x, m, /*broadcast_dimensions=*/{0}));\n"
      "    Div(e, Reduce(e, 0, add, {1}), {0})");
  example.build = [] {
    XlaBuilder b("softmax");
    XlaOp x = Parameter(&b, 0, F32Shape({kRows, kColumns}), "x");
    XlaOp rowmax = Reduce(x, ConstantR0<float>(&b, -INFINITY),
                          CreateScalarMaxComputation(F32, &b), {1});
    XlaOp e = Exp(Sub(x, rowmax, {0}));
    XlaOp sum = Reduce(e, ConstantR0<float>(&b, 0.0f),
                       CreateScalarAddComputation(F32, &b), {1});
    Div(e, sum, {0});
    return b.Build();
  };
  example.inputs.push_back(Wave({kRows, kColumns}, 4.0f, 0.5f));
  example.tolerance = 1e-6;
  return example;
}

// Layer normalization: each row to mean 0 and variance 1, then scaled and
// shifted per column: row statistics broadcast on {0}, gamma/beta on {1}.
DemoExample LayerNorm() {
  DemoExample example = NamedExample(
      "layer_norm", "layer normalization of f32[128,1024] with gamma and beta",
      "c = Sub(x, Div(Reduce(x, 0, add, {1}), n), {0});\n"
      "    r = Rsqrt(Add(Div(Reduce(Mul(c, c), 0, add, {1}), n), 1e-5));\n"
      "    Add(Mul(Mul(c, r, {0}), gamma, {1}), beta, {1})");
  example.build = [] {
    XlaBuilder b("layer_norm");
    XlaOp x = Parameter(&b, 0, F32Shape({kRows, kColumns}), "x");
    XlaOp gamma = Parameter(&b, 1, F32Shape({kColumns}), "gamma");
    XlaOp beta = Parameter(&b, 2, F32Shape({kColumns}), "beta");
    XlaOp n = ConstantR0<float>(&b, static_cast<float>(kColumns));
    XlaComputation add = CreateScalarAddComputation(F32, &b);
    XlaOp zero = ConstantR0<float>(&b, 0.0f);
    XlaOp mean = Div(Reduce(x, zero, add, {1}), n);
    XlaOp centered = Sub(x, mean, {0});
    XlaOp variance = Div(Reduce(Mul(centered, centered), zero, add, {1}), n);
    XlaOp inverse = Rsqrt(Add(variance, ConstantR0<float>(&b, 1e-5f)));
    Add(Mul(Mul(centered, inverse, {0}), gamma, {1}), beta, {1});
    return b.Build();
  };
  example.inputs.push_back(Wave({kRows, kColumns}, 3.0f, 0.25f));
  example.inputs.push_back(Wave({kColumns}, 1.0f, 0.0f));
  example.inputs.push_back(Wave({kColumns}, 0.5f, 1.0f));
  // Two reassociated sums feed a rsqrt, so allow a little more than softmax.
  example.tolerance = 1e-5;
  return example;
}

// An MLP layer: a matrix product whose bias and ReLU are applied as the
// product's tiles are stored, one kernel writing its output once.
DemoExample MlpLayer() {
  DemoExample example = NamedExample(
      "mlp_layer", "relu(x W + b): f32[64,256] @ f32[256,128], bias and ReLU "
                   "fused into the dot",
      "Max(Add(Dot(x, W), b, /*broadcast_dimensions=*/{1}), 0.0f)");
  example.build = [] {
    XlaBuilder b("mlp_layer");
    XlaOp x = Parameter(&b, 0, F32Shape({64, 256}), "x");
    XlaOp w = Parameter(&b, 1, F32Shape({256, 128}), "W");
    XlaOp bias = Parameter(&b, 2, F32Shape({128}), "b");
    Max(Add(Dot(x, w), bias, {1}), ConstantR0<float>(&b, 0.0f));
    return b.Build();
  };
  example.inputs.push_back(Wave({64, 256}, 1.0f, 0.5f));
  example.inputs.push_back(Wave({256, 128}, 0.25f, 0.75f));
  example.inputs.push_back(Wave({128}, 0.5f, 0.0f));
  // Fused multiply-adds round once per step (docs/numerics.md).
  example.tolerance = 1e-5;
  return example;
}

// Attention scores: softmax over each row of Q K^T / sqrt(d) per head. K
// is read transposed by packing, and the softmax runs on each block of
// rows while it is in cache (a row dot): one kernel, no scores in memory.
DemoExample AttentionScores() {
  DemoExample example = NamedExample(
      "attention_scores", "softmax(Q K^T / 8) for 4 heads of f32[128,64]",
      "s = Mul(DotGeneral(Q, K, {batch 0, contract 2 with 2}), 0.125f);\n"
      "    e = Exp(Sub(s, Reduce(s, -inf, max, {2}), {0, 1}));\n"
      "    Div(e, Reduce(e, 0, add, {2}), {0, 1})");
  example.build = [] {
    XlaBuilder b("attention_scores");
    XlaOp q = Parameter(&b, 0, F32Shape({4, 128, 64}), "Q");
    XlaOp k = Parameter(&b, 1, F32Shape({4, 128, 64}), "K");
    DotDimensionNumbers dims;
    dims.lhs_batch = {0};
    dims.rhs_batch = {0};
    dims.lhs_contracting = {2};
    dims.rhs_contracting = {2};
    XlaOp s = Mul(DotGeneral(q, k, dims), ConstantR0<float>(&b, 0.125f));
    XlaOp max = Reduce(s, ConstantR0<float>(&b, -INFINITY),
                       CreateScalarMaxComputation(F32, &b), {2});
    XlaOp e = Exp(Sub(s, max, {0, 1}));
    XlaOp sum = Reduce(e, ConstantR0<float>(&b, 0.0f),
                       CreateScalarAddComputation(F32, &b), {2});
    Div(e, sum, {0, 1});
    return b.Build();
  };
  example.inputs.push_back(Wave({4, 128, 64}, 2.0f, 0.5f));
  example.inputs.push_back(Wave({4, 128, 64}, 1.5f, 1.5f));
  example.tolerance = 1e-5;
  return example;
}

}  // namespace

std::vector<DemoExample> MakeKernelExamples() {
  std::vector<DemoExample> examples;
  examples.push_back(BiasRelu());
  examples.push_back(RowMaxMask());
  examples.push_back(Softmax());
  examples.push_back(LayerNorm());
  examples.push_back(MlpLayer());
  examples.push_back(AttentionScores());
  return examples;
}

}  // namespace mxla::tools
