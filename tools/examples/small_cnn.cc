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

using namespace mxla;

constexpr int64_t kBatch = 4, kSize = 32, kChannels = 3, kFeatures1 = 16,
                  kFeatures2 = 32, kClasses = 10;
constexpr int64_t kPooled = kSize / 2;

// The model's layers, as builder calls.

// A 3x3, stride-1, size-keeping NHWC convolution with HWIO weights, plus
// bias, then ReLU: one dot kernel, bias and ReLU in its epilogue.
XlaOp ConvBiasRelu(XlaOp in, XlaOp w, XlaOp bias) {
  const ConvolutionDimensionNumbers nhwc =
      examples::OrDie(ParseConvolutionDimLabels("b01f_01io->b01f"));
  XlaOp conv =
      ConvGeneralDilated(in, w, {1, 1}, {{1, 1}, {1, 1}}, {}, {}, nhwc);
  return Max(Add(conv, bias, /*broadcast_dimensions=*/{3}),
             ConstantR0<float>(in.builder(), 0.0f));
}

// The largest of each 2x2 block: the image halves in size.
XlaOp MaxPool2x2(XlaOp in) {
  XlaBuilder* b = in.builder();
  return ReduceWindowWithGeneralPadding(
      in, ConstantR0<float>(b, -INFINITY), CreateScalarMaxComputation(F32, b),
      {1, 2, 2, 1}, {1, 2, 2, 1}, {}, {}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}});
}

// The mean over the image of each feature: [batch, size, size, features]
// -> [batch, features].
XlaOp GlobalAveragePool(XlaOp in, int64_t size) {
  XlaBuilder* b = in.builder();
  XlaOp sum = Reduce(in, ConstantR0<float>(b, 0.0f),
                     CreateScalarAddComputation(F32, b), {1, 2});
  return Div(sum, ConstantR0<float>(b, float(size * size)));
}

XlaOp Dense(XlaOp in, XlaOp w, XlaOp bias) {
  return Add(Dot(in, w), bias, /*broadcast_dimensions=*/{1});
}

// Softmax over the classes, shifted by the largest logit.
XlaOp Softmax(XlaOp logits) {
  XlaBuilder* b = logits.builder();
  XlaOp shifted = Sub(logits,
                      Reduce(logits, ConstantR0<float>(b, -INFINITY),
                             CreateScalarMaxComputation(F32, b), {1}),
                      /*broadcast_dimensions=*/{0});
  XlaOp exp = Exp(shifted);
  return Div(exp,
             Reduce(exp, ConstantR0<float>(b, 0.0f),
                    CreateScalarAddComputation(F32, b), {1}),
             /*broadcast_dimensions=*/{0});
}

// The same layers in double, as plain loops.
namespace reference {

// `in` is [kBatch, size, size, in_features].
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

// `in` is [kBatch, kSize, kSize, kFeatures1].
std::vector<double> MaxPool2x2(const std::vector<double>& in) {
  std::vector<double> out(kBatch * kPooled * kPooled * kFeatures1);
  for (int64_t n = 0; n < kBatch; ++n) {
    for (int64_t y = 0; y < kPooled; ++y) {
      for (int64_t x = 0; x < kPooled; ++x) {
        for (int64_t f = 0; f < kFeatures1; ++f) {
          double best = -INFINITY;
          for (int64_t d = 0; d < 4; ++d) {
            const int64_t iy = 2 * y + d / 2, ix = 2 * x + d % 2;
            best = std::max(
                best, in[((n * kSize + iy) * kSize + ix) * kFeatures1 + f]);
          }
          out[((n * kPooled + y) * kPooled + x) * kFeatures1 + f] = best;
        }
      }
    }
  }
  return out;
}

// Global average pool, dense layer and softmax of `in` ([kBatch, kPooled,
// kPooled, kFeatures2]): the probabilities, [kBatch, kClasses].
std::vector<float> Classify(const std::vector<double>& in,
                            absl::Span<const float> w,
                            absl::Span<const float> bias) {
  std::vector<float> probabilities;
  for (int64_t n = 0; n < kBatch; ++n) {
    std::vector<double> logit(kClasses);
    double max = -INFINITY;
    for (int64_t c = 0; c < kClasses; ++c) {
      double sum = bias[c];
      for (int64_t f = 0; f < kFeatures2; ++f) {
        double total = 0;
        for (int64_t p = 0; p < kPooled * kPooled; ++p) {
          total += in[(n * kPooled * kPooled + p) * kFeatures2 + f];
        }
        sum += total / (kPooled * kPooled) * w[f * kClasses + c];
      }
      logit[c] = sum;
      max = std::max(max, sum);
    }
    double total = 0;
    for (double& value : logit) total += (value = std::exp(value - max));
    for (double value : logit) probabilities.push_back(float(value / total));
  }
  return probabilities;
}

// The whole model on `inputs` (images, w1, b1, w2, b2, w3, b3).
std::vector<float> SmallCnn(const std::vector<Literal>& inputs) {
  absl::Span<const float> images = inputs[0].data<float>();
  std::vector<double> h1 = ConvBiasRelu(
      std::vector<double>(images.begin(), images.end()), kSize,
      inputs[1].data<float>(), inputs[2].data<float>(), kChannels, kFeatures1);
  std::vector<double> h2 =
      ConvBiasRelu(MaxPool2x2(h1), kPooled, inputs[3].data<float>(),
                   inputs[4].data<float>(), kFeatures1, kFeatures2);
  return Classify(h2, inputs[5].data<float>(), inputs[6].data<float>());
}

}  // namespace reference

}  // namespace

int main() {
  using examples::OrDie;
  XlaBuilder b("small_cnn");
  std::vector<Literal> inputs;
  auto input = [&](std::vector<int64_t> dims, const char* name, float scale) {
    const Shape shape = ShapeUtil::MakeShape(F32, dims);
    const int64_t number = inputs.size();
    inputs.push_back(examples::Values(shape, scale, number + 1));
    return Parameter(&b, number, shape, name);
  };
  XlaOp images = input({kBatch, kSize, kSize, kChannels}, "images", 1.0f);
  XlaOp w1 = input({3, 3, kChannels, kFeatures1}, "w1", 0.3f);
  XlaOp b1 = input({kFeatures1}, "b1", 0.1f);
  XlaOp w2 = input({3, 3, kFeatures1, kFeatures2}, "w2", 0.1f);
  XlaOp b2 = input({kFeatures2}, "b2", 0.1f);
  XlaOp w3 = input({kFeatures2, kClasses}, "w3", 0.3f);
  XlaOp b3 = input({kClasses}, "b3", 0.1f);

  XlaOp h1 = ConvBiasRelu(images, w1, b1);
  XlaOp h2 = ConvBiasRelu(MaxPool2x2(h1), w2, b2);
  XlaOp probabilities = Softmax(Dense(GlobalAveragePool(h2, kPooled), w3, b3));
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
  const std::vector<float> expected = reference::SmallCnn(inputs);
  return examples::Matches(out, expected, 1e-4f, 1e-6f) ? 0 : 1;
}
