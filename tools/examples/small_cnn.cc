// A small image classifier on a batch of 4 NHWC images of 32x32x3: two 3x3
// convolutions with bias and ReLU, a 2x2 max pool between them, a global
// average pool, a dense layer and a softmax. The convolutions run as
// implicit matrix products on the dot kernel with bias and ReLU in their
// epilogues; the max pool folds its four taps in one loop kernel. Checked
// against a double-precision loop.
#include <cmath>
#include <iostream>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "tools/examples/example_util.h"

namespace {

constexpr int64_t kBatch = 4, kSize = 32, kChannels = 3, kFeatures1 = 16,
                  kFeatures2 = 32, kClasses = 10;

// A 3x3, stride-1, size-keeping NHWC convolution with HWIO weights, plus
// bias, then ReLU, in double; `in` is [kBatch, size, size, in_features].
std::vector<double> ConvBiasRelu(const std::vector<double>& in, int64_t size,
                                 absl::Span<const float> w,
                                 absl::Span<const float> bias,
                                 int64_t in_features, int64_t out_features) {
  std::vector<double> out(kBatch * size * size * out_features);
  for (int64_t n = 0; n < kBatch; ++n) {
    for (int64_t y = 0; y < size; ++y) {
      for (int64_t x = 0; x < size; ++x) {
        for (int64_t o = 0; o < out_features; ++o) {
          double sum = bias[o];
          for (int64_t dy = 0; dy < 3; ++dy) {
            for (int64_t dx = 0; dx < 3; ++dx) {
              const int64_t iy = y + dy - 1, ix = x + dx - 1;
              if (iy < 0 || iy >= size || ix < 0 || ix >= size) continue;
              for (int64_t i = 0; i < in_features; ++i) {
                sum += in[((n * size + iy) * size + ix) * in_features + i] *
                       w[((dy * 3 + dx) * in_features + i) * out_features + o];
              }
            }
          }
          out[((n * size + y) * size + x) * out_features + o] =
              std::max(sum, 0.0);
        }
      }
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
  const ConvolutionDimensionNumbers nhwc =
      OrDie(ParseConvolutionDimLabels("b01f_01io->b01f"));
  XlaBuilder b("small_cnn");
  std::vector<Literal> inputs;
  auto input = [&](std::vector<int64_t> dims, const char* name, float scale) {
    const int64_t number = inputs.size();
    inputs.push_back(examples::Values(f32(dims), scale, number + 1));
    return Parameter(&b, number, f32(dims), name);
  };
  XlaOp images = input({kBatch, kSize, kSize, kChannels}, "images", 1.0f);
  XlaOp w1 = input({3, 3, kChannels, kFeatures1}, "w1", 0.3f);
  XlaOp b1 = input({kFeatures1}, "b1", 0.1f);
  XlaOp w2 = input({3, 3, kFeatures1, kFeatures2}, "w2", 0.1f);
  XlaOp b2 = input({kFeatures2}, "b2", 0.1f);
  XlaOp w3 = input({kFeatures2, kClasses}, "w3", 0.3f);
  XlaOp b3 = input({kClasses}, "b3", 0.1f);

  XlaOp zero = ConstantR0<float>(&b, 0.0f);
  auto conv_relu = [&](XlaOp in, XlaOp w, XlaOp bias) {
    XlaOp conv =
        ConvGeneralDilated(in, w, {1, 1}, {{1, 1}, {1, 1}}, {}, {}, nhwc);
    return Max(Add(conv, bias, /*broadcast_dimensions=*/{3}), zero);
  };
  XlaOp h1 = conv_relu(images, w1, b1);
  XlaOp pooled = ReduceWindowWithGeneralPadding(
      h1, ConstantR0<float>(&b, -INFINITY),
      CreateScalarMaxComputation(F32, &b), {1, 2, 2, 1}, {1, 2, 2, 1}, {},
      {}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}});
  XlaOp h2 = conv_relu(pooled, w2, b2);
  constexpr int64_t kPooled = kSize / 2;
  XlaOp mean = Div(Reduce(h2, zero, CreateScalarAddComputation(F32, &b), {1, 2}),
                   ConstantR0<float>(&b, float(kPooled * kPooled)));
  XlaOp logits = Add(Dot(mean, w3), b3, /*broadcast_dimensions=*/{1});
  XlaOp shifted = Sub(logits,
                      Reduce(logits, ConstantR0<float>(&b, -INFINITY),
                             CreateScalarMaxComputation(F32, &b), {1}),
                      /*broadcast_dimensions=*/{0});
  XlaOp exp = Exp(shifted);
  XlaOp probabilities =
      Div(exp, Reduce(exp, zero, CreateScalarAddComputation(F32, &b), {1}),
          /*broadcast_dimensions=*/{0});
  std::unique_ptr<Executable> executable =
      OrDie(Compile(OrDie(b.Build(probabilities))));
  std::cout << "kernels:\n";
  examples::PrintKernels(*executable);

  std::vector<const Literal*> arguments;
  for (const Literal& literal : inputs) arguments.push_back(&literal);
  Literal out = OrDie(executable->Run(arguments));
  std::cout << "probabilities[0] =";
  for (int64_t j = 0; j < kClasses; ++j) std::cout << " " << out.data<float>()[j];
  std::cout << "\n";

  absl::Span<const float> xs = inputs[0].data<float>();
  std::vector<double> r1 =
      ConvBiasRelu(std::vector<double>(xs.begin(), xs.end()), kSize,
                   inputs[1].data<float>(), inputs[2].data<float>(), kChannels,
                   kFeatures1);
  std::vector<double> r_pool(kBatch * kPooled * kPooled * kFeatures1);
  for (int64_t n = 0; n < kBatch; ++n) {
    for (int64_t y = 0; y < kPooled; ++y) {
      for (int64_t x = 0; x < kPooled; ++x) {
        for (int64_t f = 0; f < kFeatures1; ++f) {
          double best = -INFINITY;
          for (int64_t d = 0; d < 4; ++d) {
            const int64_t iy = 2 * y + d / 2, ix = 2 * x + d % 2;
            best = std::max(best,
                            r1[((n * kSize + iy) * kSize + ix) * kFeatures1 + f]);
          }
          r_pool[((n * kPooled + y) * kPooled + x) * kFeatures1 + f] = best;
        }
      }
    }
  }
  std::vector<double> r2 =
      ConvBiasRelu(r_pool, kPooled, inputs[3].data<float>(),
                   inputs[4].data<float>(), kFeatures1, kFeatures2);
  absl::Span<const float> w3s = inputs[5].data<float>();
  absl::Span<const float> b3s = inputs[6].data<float>();
  std::vector<float> expected;
  for (int64_t n = 0; n < kBatch; ++n) {
    std::vector<double> logit(kClasses);
    double max = -INFINITY;
    for (int64_t c = 0; c < kClasses; ++c) {
      double sum = b3s[c];
      for (int64_t f = 0; f < kFeatures2; ++f) {
        double total = 0;
        for (int64_t p = 0; p < kPooled * kPooled; ++p) {
          total += r2[(n * kPooled * kPooled + p) * kFeatures2 + f];
        }
        sum += total / (kPooled * kPooled) * w3s[f * kClasses + c];
      }
      logit[c] = sum;
      max = std::max(max, sum);
    }
    double total = 0;
    for (double& value : logit) total += (value = std::exp(value - max));
    for (double value : logit) expected.push_back(float(value / total));
  }
  return examples::Matches(out, expected, 1e-4f, 1e-6f) ? 0 : 1;
}
