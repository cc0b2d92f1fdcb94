// A two-layer MLP, y = relu(x W1 + b1) W2 + b2, on a batch of 64 inputs of
// 256 features: two dot kernels, each with its bias (and the ReLU) applied
// as its tiles are stored, so the hidden layer is written to memory once
// and read once. Checked against a double-precision loop.
#include <cmath>
#include <iostream>
#include <vector>

#include "builder/xla_builder.h"
#include "driver/client.h"
#include "tools/examples/example_util.h"

namespace {

constexpr int64_t kBatch = 64, kInputs = 256, kHidden = 512, kOutputs = 10;

// out[i,j] = sum_k a[i,k] w[k,j] + b[j], in double.
std::vector<double> Linear(const std::vector<double>& a,
                           absl::Span<const float> w, absl::Span<const float> b,
                           int64_t rows, int64_t inner, int64_t columns) {
  std::vector<double> out(rows * columns);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < columns; ++j) {
      double sum = b[j];
      for (int64_t k = 0; k < inner; ++k) sum += a[i * inner + k] * w[k * columns + j];
      out[i * columns + j] = sum;
    }
  }
  return out;
}

}  // namespace

int main() {
  using namespace mxla;
  using examples::OrDie;
  auto f32 = [](std::vector<int64_t> dims) {
    return ShapeUtil::MakeShape(F32, dims);
  };
  XlaBuilder b("mlp");
  XlaOp x = Parameter(&b, 0, f32({kBatch, kInputs}), "x");
  XlaOp w1 = Parameter(&b, 1, f32({kInputs, kHidden}), "W1");
  XlaOp b1 = Parameter(&b, 2, f32({kHidden}), "b1");
  XlaOp w2 = Parameter(&b, 3, f32({kHidden, kOutputs}), "W2");
  XlaOp b2 = Parameter(&b, 4, f32({kOutputs}), "b2");
  XlaOp hidden = Max(Add(Dot(x, w1), b1, /*broadcast_dimensions=*/{1}),
                     ConstantR0<float>(&b, 0.0f));
  XlaOp y = Add(Dot(hidden, w2), b2, /*broadcast_dimensions=*/{1});
  std::unique_ptr<Executable> executable = OrDie(Compile(OrDie(b.Build(y))));
  std::cout << "kernels:\n";
  examples::PrintKernels(*executable);

  std::vector<Literal> inputs;
  inputs.push_back(examples::Values(f32({kBatch, kInputs}), 1.0f, 1));
  inputs.push_back(examples::Values(f32({kInputs, kHidden}), 0.1f, 2));
  inputs.push_back(examples::Values(f32({kHidden}), 0.1f, 3));
  inputs.push_back(examples::Values(f32({kHidden, kOutputs}), 0.1f, 4));
  inputs.push_back(examples::Values(f32({kOutputs}), 0.1f, 5));
  Literal out = OrDie(executable->Run(
      {&inputs[0], &inputs[1], &inputs[2], &inputs[3], &inputs[4]}));
  std::cout << "y[0] =";
  for (int64_t j = 0; j < kOutputs; ++j) std::cout << " " << out.data<float>()[j];
  std::cout << "\n";

  absl::Span<const float> xs = inputs[0].data<float>();
  std::vector<double> h = Linear(std::vector<double>(xs.begin(), xs.end()),
                                 inputs[1].data<float>(),
                                 inputs[2].data<float>(), kBatch, kInputs,
                                 kHidden);
  for (double& value : h) value = std::max(value, 0.0);
  std::vector<double> expected =
      Linear(h, inputs[3].data<float>(), inputs[4].data<float>(), kBatch,
             kHidden, kOutputs);
  return examples::Matches(out, std::vector<float>(expected.begin(),
                                                   expected.end()),
                           1e-4f, 1e-5f)
             ? 0
             : 1;
}
