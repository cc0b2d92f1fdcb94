#include "tools/bench_workloads.h"

#include <algorithm>
#include <cmath>

#include "builder/arithmetic.h"
#include "runtime/host_buffer.h"
#include "tools/bench_reference.h"

namespace mxla::bench {
namespace {

Shape F32(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(mxla::F32, dims);
}

// Deterministic values in [low, low + span): a cheap integer hash per index.
Literal Values(const Shape& shape, uint32_t seed, float low, float span) {
  Literal literal(shape, PooledHostAllocator());  // as Run's results
  absl::Span<float> data = literal.data<float>();
  uint32_t state = seed * 2654435761u + 1;
  for (float& value : data) {
    state = state * 1664525u + 1013904223u;
    value = low + span * static_cast<float>(state >> 8) / 16777216.0f;
  }
  return literal;
}

int64_t Bytes(const std::vector<Literal>& inputs, const Shape& output) {
  int64_t bytes = ShapeUtil::ByteSizeOf(output);
  for (const Literal& input : inputs) bytes += input.size_bytes();
  return bytes;
}

const float* Data(const Literal& literal) {
  return literal.data<float>().data();
}

Workload MakeBiasReluScale() {
  constexpr int64_t n = 4096;
  XlaBuilder b("bias_relu_scale");
  XlaOp x = Parameter(&b, 0, F32({n, n}), "x");
  XlaOp s = Parameter(&b, 1, F32({n}), "s");
  XlaOp bias = Parameter(&b, 2, F32({n}), "b");
  Max(Add(Mul(x, s, {1}), bias, {1}), ConstantR0<float>(&b, 0));
  Workload w{"W2", "bias_relu_scale", *b.Build(), {}, 0, n, {}};
  w.inputs.push_back(Values(F32({n, n}), 1, -1, 2));
  w.inputs.push_back(Values(F32({n}), 2, -1, 2));
  w.inputs.push_back(Values(F32({n}), 3, -1, 2));
  w.bytes = Bytes(w.inputs, F32({n, n}));
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      BiasReluScale(Data(in[0]), Data(in[1]), Data(in[2]), out, n, begin, end);
    };
  };
  return w;
}

Workload MakeOuter() {
  constexpr int64_t n = 4096;
  XlaBuilder b("outer");
  Add(Parameter(&b, 0, F32({n, 1}), "a"), Parameter(&b, 1, F32({1, n}), "c"));
  Workload w{"W3", "outer", *b.Build(), {}, 0, n, {}};
  w.inputs.push_back(Values(F32({n, 1}), 4, -1, 2));
  w.inputs.push_back(Values(F32({1, n}), 5, -1, 2));
  w.bytes = Bytes(w.inputs, F32({n, n}));
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      Outer(Data(in[0]), Data(in[1]), out, n, begin, end);
    };
  };
  return w;
}

Workload MakeCompose3d() {
  XlaBuilder b("compose3d");
  Add(Parameter(&b, 0, F32({512, 512, 1}), "A"),
      Parameter(&b, 1, F32({1, 64}), "B"), {1, 2});
  Workload w{"W4", "compose3d", *b.Build(), {}, 0, 512 * 512, {}};
  w.inputs.push_back(Values(F32({512, 512, 1}), 6, -1, 2));
  w.inputs.push_back(Values(F32({1, 64}), 7, -1, 2));
  w.bytes = Bytes(w.inputs, F32({512, 512, 64}));
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      Compose3d(Data(in[0]), Data(in[1]), out, 64, begin, end);
    };
  };
  return w;
}

Workload MakeSoftmax() {
  constexpr int64_t rows = 4096, cols = 1024;
  XlaBuilder b("softmax_rows");
  XlaOp x = Parameter(&b, 0, F32({rows, cols}), "x");
  XlaOp m = Reduce(x, ConstantR0<float>(&b, -INFINITY),
                   CreateScalarMaxComputation(mxla::F32, &b), {1});
  XlaOp e = Exp(Sub(x, m, {0}));
  XlaOp s = Reduce(e, ConstantR0<float>(&b, 0),
                   CreateScalarAddComputation(mxla::F32, &b), {1});
  Div(e, s, {0});
  Workload w{"W5", "softmax_rows", *b.Build(), {}, 0, rows, {}};
  w.inputs.push_back(Values(F32({rows, cols}), 8, -4, 8));
  w.bytes = Bytes(w.inputs, F32({rows, cols}));
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      SoftmaxRows(Data(in[0]), out, cols, begin, end);
    };
  };
  return w;
}

Workload MakeChain10() {
  constexpr int64_t n = 16777216;
  XlaBuilder b("chain10");
  XlaOp a = Parameter(&b, 0, F32({n}), "a");
  XlaOp bv = Parameter(&b, 1, F32({n}), "b");
  XlaOp c = Parameter(&b, 2, F32({n}), "c");
  XlaOp numerator = Sub(Mul(Add(Mul(a, bv), c), a), bv);
  XlaOp denominator = Add(Mul(c, c), ConstantR0<float>(&b, 1));
  Min(Max(Div(numerator, denominator), Mul(ConstantR0<float>(&b, 0.5f), bv)),
      a);
  Workload w{"W6", "chain10", *b.Build(), {}, 0, n, {}};
  for (uint32_t seed : {9u, 10u, 11u}) {
    w.inputs.push_back(Values(F32({n}), seed, -1, 2));
  }
  w.bytes = Bytes(w.inputs, F32({n}));
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      Chain10(Data(in[0]), Data(in[1]), Data(in[2]), out, begin, end);
    };
  };
  return w;
}

// W8: exp of a vector broadcast across rows. Fusion computes the
// 1,024 exps once (passes/fusion.h), not once per row.
Workload MakeScaleByExp() {
  constexpr int64_t rows = 4096, cols = 1024;
  XlaBuilder b("scale_by_exp");
  XlaOp x = Parameter(&b, 0, F32({rows, cols}), "x");
  XlaOp v = Parameter(&b, 1, F32({cols}), "v");
  Mul(x, Exp(v), {1});
  Workload w{"W8", "scale_by_exp", *b.Build(), {}, 0, rows, {}};
  w.inputs.push_back(Values(F32({rows, cols}), 14, -1, 2));
  w.inputs.push_back(Values(F32({cols}), 15, -4, 8));
  w.bytes = Bytes(w.inputs, F32({rows, cols}));
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      ScaleByExp(Data(in[0]), Data(in[1]), out, cols, begin, end);
    };
  };
  return w;
}

// W9: the column sum of X[4096,4096] (a reduction that keeps the last
// dimension: the JIT splits it into blocks of output columns).
Workload MakeColumnSum() {
  constexpr int64_t n = 4096;
  XlaBuilder b("column_sum");
  Reduce(Parameter(&b, 0, F32({n, n}), "X"), ConstantR0<float>(&b, 0),
         CreateScalarAddComputation(mxla::F32, &b), {0});
  Workload w{"W9", "column_sum", *b.Build(), {}, 0, n, {}};
  w.inputs.push_back(Values(F32({n, n}), 14, -1, 2));
  w.bytes = Bytes(w.inputs, F32({n}));
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      ColumnSum(Data(in[0]), out, n, n, begin, end);
    };
  };
  return w;
}

// W10: the sum of X[4096,4096] to a scalar (the JIT sums fixed chunks in
// parallel and combines them in order; the hand loop is one thread).
Workload MakeSum() {
  constexpr int64_t n = 4096;
  XlaBuilder b("sum");
  Reduce(Parameter(&b, 0, F32({n, n}), "X"), ConstantR0<float>(&b, 0),
         CreateScalarAddComputation(mxla::F32, &b), {0, 1});
  Workload w{"W10", "sum", *b.Build(), {}, 0, 1, {}};
  w.inputs.push_back(Values(F32({n, n}), 15, 0, 1));
  w.bytes = Bytes(w.inputs, F32({}));
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t, int64_t) { Sum(Data(in[0]), out, n * n); };
  };
  return w;
}

// G1: C = A @ B at 1024 x 1024 x 1024 (the anchors' sgemm).
Workload MakeSgemm() {
  constexpr int64_t n = 1024;
  XlaBuilder b("sgemm");
  Dot(Parameter(&b, 0, F32({n, n}), "A"), Parameter(&b, 1, F32({n, n}), "B"));
  Workload w{"G1", "sgemm", *b.Build(), {}, 0, n, {}};
  w.inputs.push_back(Values(F32({n, n}), 101, -1, 2));
  w.inputs.push_back(Values(F32({n, n}), 102, -1, 2));
  w.bytes = Bytes(w.inputs, F32({n, n}));
  w.flops = 2 * n * n * n;
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      Matmul(Data(in[0]), Data(in[1]), out, n, n, begin, end);
    };
  };
  return w;
}

// G2: relu(X[512,1024] @ W[1024,4096] + b) (the anchors' mlp_layer): the
// JIT applies the bias and the ReLU as each tile is stored.
Workload MakeMlpLayer() {
  constexpr int64_t m = 512, k = 1024, n = 4096;
  XlaBuilder b("mlp_layer");
  XlaOp product = Dot(Parameter(&b, 0, F32({m, k}), "X"),
                      Parameter(&b, 1, F32({k, n}), "W"));
  Max(Add(product, Parameter(&b, 2, F32({n}), "b"), {1}),
      ConstantR0<float>(&b, 0));
  Workload w{"G2", "mlp_layer", *b.Build(), {}, 0, m, {}};
  w.inputs.push_back(Values(F32({m, k}), 201, -1, 2));
  w.inputs.push_back(Values(F32({k, n}), 202, -1, 2));
  w.inputs.push_back(Values(F32({n}), 203, -1, 2));
  w.bytes = Bytes(w.inputs, F32({m, n}));
  w.flops = 2 * m * n * k;
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      Matmul(Data(in[0]), Data(in[1]), out, k, n, begin, end);
      for (int64_t i = begin; i < end; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          out[i * n + j] = std::max(out[i * n + j] + Data(in[2])[j], 0.0f);
        }
      }
    };
  };
  return w;
}

// G3: softmax_rows(Q[h] @ K[h]^T / 8) for 8 heads of 512 x 64 (the
// anchors' attention_scores): one kernel, each block of score rows
// normalized while it is in cache.
Workload MakeAttentionScores() {
  constexpr int64_t heads = 8, s = 512, d = 64;
  XlaBuilder b("attention_scores");
  XlaOp q = Parameter(&b, 0, F32({heads, s, d}), "Q");
  XlaOp k = Parameter(&b, 1, F32({heads, s, d}), "K");
  DotDimensionNumbers dimension_numbers;
  dimension_numbers.lhs_batch = {0};
  dimension_numbers.rhs_batch = {0};
  dimension_numbers.lhs_contracting = {2};
  dimension_numbers.rhs_contracting = {2};
  XlaOp x = Mul(DotGeneral(q, k, dimension_numbers),
                ConstantR0<float>(&b, 0.125f));
  XlaOp m = Reduce(x, ConstantR0<float>(&b, -INFINITY),
                   CreateScalarMaxComputation(mxla::F32, &b), {2});
  XlaOp e = Exp(Sub(x, m, {0, 1}));
  XlaOp sum = Reduce(e, ConstantR0<float>(&b, 0),
                     CreateScalarAddComputation(mxla::F32, &b), {2});
  Div(e, sum, {0, 1});
  Workload w{"G3", "attention_scores", *b.Build(), {}, 0, heads * s, {}};
  w.inputs.push_back(Values(F32({heads, s, d}), 301, -2, 4));
  w.inputs.push_back(Values(F32({heads, s, d}), 302, -2, 4));
  w.bytes = Bytes(w.inputs, F32({heads, s, s}));
  w.flops = 2 * heads * s * s * d;
  w.reference = [](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out](int64_t begin, int64_t end) {
      AttentionRows(Data(in[0]), Data(in[1]), out, s, d, 0.125f, begin, end);
    };
  };
  return w;
}

}  // namespace

Workload MakeBiasAdd(int64_t rows, int64_t cols) {
  XlaBuilder b("bias_add");
  Add(Parameter(&b, 0, F32({rows, cols}), "X"),
      Parameter(&b, 1, F32({cols}), "b"), {1});
  Workload w{"W1", "bias_add", *b.Build(), {}, 0, rows, {}};
  w.inputs.push_back(Values(F32({rows, cols}), 12, -1, 2));
  w.inputs.push_back(Values(F32({cols}), 13, -1, 2));
  w.bytes = Bytes(w.inputs, F32({rows, cols}));
  w.reference = [cols](const std::vector<Literal>& in, float* out) -> RowRange {
    return [&in, out, cols](int64_t begin, int64_t end) {
      BiasAdd(Data(in[0]), Data(in[1]), out, cols, begin, end);
    };
  };
  return w;
}

Workload MakeSmallDot() {
  XlaBuilder b("small_dot");
  Dot(Parameter(&b, 0, F32({8, 8}), "A"), Parameter(&b, 1, F32({8, 8}), "B"));
  Workload w{"G4", "small_dot", *b.Build(), {}, 0, 8, {}};
  w.inputs.push_back(Values(F32({8, 8}), 401, -1, 2));
  w.inputs.push_back(Values(F32({8, 8}), 402, -1, 2));
  w.bytes = Bytes(w.inputs, F32({8, 8}));
  w.flops = 2 * 8 * 8 * 8;
  return w;
}

const std::vector<WorkloadFactory>& Workloads() {
  static const auto* workloads = new std::vector<WorkloadFactory>{
      {"W1", "bias_add", [] { return MakeBiasAdd(4096, 4096); }},
      {"W2", "bias_relu_scale", MakeBiasReluScale},
      {"W3", "outer", MakeOuter},
      {"W4", "compose3d", MakeCompose3d},
      {"W5", "softmax_rows", MakeSoftmax},
      {"W6", "chain10", MakeChain10},
      {"W8", "scale_by_exp", MakeScaleByExp},
      {"W9", "column_sum", MakeColumnSum},
      {"W10", "sum", MakeSum},
      {"G1", "sgemm", MakeSgemm},
      {"G2", "mlp_layer", MakeMlpLayer},
      {"G3", "attention_scores", MakeAttentionScores},
  };
  return *workloads;
}

}  // namespace mxla::bench
