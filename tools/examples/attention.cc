// One attention block, out = softmax(Q K^T / sqrt(d)) V, for 4 heads of 128
// positions and 32 features: the scores' softmax runs inside the Q K^T
// kernel on each block of rows while it is in cache (a row dot; K is read
// transposed by packing), then a second dot kernel applies V. Checked
// against a double-precision loop.
#include <cmath>
#include <iostream>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "tools/examples/example_util.h"

namespace {

constexpr int64_t kHeads = 4, kLength = 128, kDepth = 32;

// The same block per head and row, in double.
std::vector<float> Reference(absl::Span<const float> q,
                             absl::Span<const float> k,
                             absl::Span<const float> v) {
  std::vector<float> out(kHeads * kLength * kDepth);
  std::vector<double> p(kLength);
  for (int64_t h = 0; h < kHeads; ++h) {
    const int64_t base = h * kLength * kDepth;
    for (int64_t i = 0; i < kLength; ++i) {
      double max = -INFINITY, sum = 0;
      for (int64_t j = 0; j < kLength; ++j) {
        double s = 0;
        for (int64_t c = 0; c < kDepth; ++c) {
          s += double(q[base + i * kDepth + c]) * k[base + j * kDepth + c];
        }
        p[j] = s / std::sqrt(double(kDepth));
        max = std::max(max, p[j]);
      }
      for (double& s : p) sum += (s = std::exp(s - max));
      for (int64_t c = 0; c < kDepth; ++c) {
        double o = 0;
        for (int64_t j = 0; j < kLength; ++j) o += p[j] / sum * v[base + j * kDepth + c];
        out[base + i * kDepth + c] = static_cast<float>(o);
      }
    }
  }
  return out;
}

}  // namespace

int main() {
  using namespace mxla;
  using examples::OrDie;
  const Shape shape = ShapeUtil::MakeShape(F32, {kHeads, kLength, kDepth});
  XlaBuilder b("attention");
  XlaOp q = Parameter(&b, 0, shape, "Q");
  XlaOp k = Parameter(&b, 1, shape, "K");
  XlaOp v = Parameter(&b, 2, shape, "V");
  // Per head (batch dimension 0): contract Q's features with K's.
  DotDimensionNumbers scores_dims;
  scores_dims.lhs_batch = {0};
  scores_dims.rhs_batch = {0};
  scores_dims.lhs_contracting = {2};
  scores_dims.rhs_contracting = {2};
  XlaOp scores = Mul(DotGeneral(q, k, scores_dims),
                     ConstantR0<float>(&b, 1.0f / std::sqrt(float(kDepth))));
  XlaOp max = Reduce(scores, ConstantR0<float>(&b, -INFINITY),
                     CreateScalarMaxComputation(F32, &b), {2});
  XlaOp e = Exp(Sub(scores, max, /*broadcast_dimensions=*/{0, 1}));
  XlaOp sum = Reduce(e, ConstantR0<float>(&b, 0.0f),
                     CreateScalarAddComputation(F32, &b), {2});
  XlaOp p = Div(e, sum, /*broadcast_dimensions=*/{0, 1});
  // Per head: contract the probabilities' positions with V's.
  DotDimensionNumbers values_dims;
  values_dims.lhs_batch = {0};
  values_dims.rhs_batch = {0};
  values_dims.lhs_contracting = {2};
  values_dims.rhs_contracting = {1};
  XlaOp out = DotGeneral(p, v, values_dims);
  std::unique_ptr<Executable> executable =
      OrDie(Compile(OrDie(b.Build(out))));
  std::cout << "kernels:\n";
  examples::PrintKernels(*executable);

  Literal qs = examples::Values(shape, 2.0f, 1);
  Literal ks = examples::Values(shape, 2.0f, 2);
  Literal vs = examples::Values(shape, 1.0f, 3);
  Literal result = OrDie(executable->Run({&qs, &ks, &vs}));
  std::cout << "out[0,0,:4] =";
  for (int64_t c = 0; c < 4; ++c) std::cout << " " << result.data<float>()[c];
  std::cout << "\n";
  return examples::Matches(result,
                           Reference(qs.data<float>(), ks.data<float>(),
                                     vs.data<float>()),
                           1e-4f, 1e-5f)
             ? 0
             : 1;
}
