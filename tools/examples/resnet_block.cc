// A ResNet-50 bottleneck block as Keras writes it, on NHWC images with HWIO
// weights: 1x1 conv 256->64, batch norm, ReLU; 3x3 conv 64->64, batch
// norm, ReLU; 1x1 conv 64->256, batch norm; plus the block's input; ReLU.
// Each convolution is an implicit matrix product on the dot kernel, with its
// batch norm (as scale and shift), the residual add and the ReLU applied as
// its tiles are stored: three dot kernels, each writing its output once (small
// kernels fold each norm's vectors into a scale and shift first). The
// program checks that, and the result against a double-precision loop.
#include <cmath>
#include <iostream>
#include <vector>

#include "builder/xla_builder.h"
#include "driver/client.h"
#include "tools/examples/example_util.h"

namespace {

using namespace mxla;

constexpr int64_t kSize = 28, kWide = 256, kNarrow = 64;
constexpr float kEpsilon = 1e-3f;

// Per feature of a convolution: batch norm's scale, offset, mean, variance.
struct Norm {
  std::vector<float> scale, offset, mean, variance;
};

std::vector<float> Floats(const Literal& literal) {
  absl::Span<const float> values = literal.data<float>();
  return std::vector<float>(values.begin(), values.end());
}

// The block's parameters, as they are made: each with the deterministic
// values it is run on, and each batch norm's four vectors.
struct Parameters {
  XlaBuilder& b;
  std::vector<Literal> inputs;
  std::vector<Norm> norms;

  // A parameter with deterministic values in [low, low + 2 * scale).
  XlaOp Input(std::vector<int64_t> dims, const char* name, float scale,
              float low) {
    const Shape shape = ShapeUtil::MakeShape(F32, dims);
    const int64_t number = inputs.size();
    Literal values = examples::Values(shape, scale, number + 1);
    for (float& value : values.data<float>()) value += scale + low;
    inputs.push_back(std::move(values));
    return Parameter(&b, number, shape, name);
  }
};

// A stride-1 NHWC convolution with HWIO weights `name` of a square
// `window`, padded to keep the size, then batch norm; the weights and the
// norm's vectors are new parameters.
XlaOp ConvNorm(Parameters& parameters, XlaOp in, int64_t window,
               int64_t in_features, int64_t out_features, const char* name) {
  const ConvolutionDimensionNumbers nhwc =
      examples::OrDie(ParseConvolutionDimLabels("b01f_01io->b01f"));
  const float weight_scale =
      1.0f / std::sqrt(float(window * window * in_features));
  XlaOp w = parameters.Input({window, window, in_features, out_features}, name,
                             weight_scale, -weight_scale);
  const int64_t pad = window / 2;
  XlaOp conv =
      ConvGeneralDilated(in, w, {1, 1}, {{pad, pad}, {pad, pad}}, {}, {}, nhwc);
  XlaOp scale = parameters.Input({out_features}, "gamma", 0.25f, 0.75f);
  XlaOp offset = parameters.Input({out_features}, "beta", 0.1f, -0.1f);
  XlaOp mean = parameters.Input({out_features}, "mean", 0.1f, -0.1f);
  XlaOp variance = parameters.Input({out_features}, "variance", 0.5f, 0.5f);
  const std::vector<Literal>& inputs = parameters.inputs;
  const int64_t first = inputs.size() - 4;
  parameters.norms.push_back({Floats(inputs[first]), Floats(inputs[first + 1]),
                              Floats(inputs[first + 2]),
                              Floats(inputs[first + 3])});
  return BatchNormInference(conv, scale, offset, mean, variance, kEpsilon,
                            /*feature_index=*/3);
}

// The bottleneck block on `x` [1, kSize, kSize, kWide]: narrowed, a 3x3
// convolution, widened again, plus `x`.
XlaOp Bottleneck(Parameters& parameters, XlaOp x) {
  XlaOp zero = ConstantR0<float>(x.builder(), 0.0f);
  XlaOp h1 = Max(ConvNorm(parameters, x, 1, kWide, kNarrow, "w1"), zero);
  XlaOp h2 = Max(ConvNorm(parameters, h1, 3, kNarrow, kNarrow, "w2"), zero);
  return Max(Add(ConvNorm(parameters, h2, 1, kNarrow, kWide, "w3"), x), zero);
}

// One dot kernel per convolution; the other kernels only fold each batch
// norm's four vectors into a per-feature scale and shift. Says what is
// wrong otherwise.
bool HasThreeDotKernels(const Executable& executable) {
  int64_t dot_kernels = 0;
  for (const HloInstruction* instruction :
       executable.module().entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    if (instruction->fusion_plan()->is_dot()) {
      ++dot_kernels;
    } else if (ShapeUtil::ElementsIn(instruction->shape()) > kWide) {
      std::cerr << "kernel " << instruction->name()
                << " writes a full-size output outside the convolutions\n";
      return false;
    }
  }
  if (dot_kernels != 3) {
    std::cerr << "expected one dot kernel per convolution, got " << dot_kernels
              << "\n";
    return false;
  }
  return true;
}

// The same block in double, as plain loops.
namespace reference {

// A stride-1 NHWC convolution of `in` [kSize, kSize, in_features] with HWIO
// weights of a square `window`, padded to keep the size, then batch norm and
// (with `relu`) ReLU.
std::vector<double> ConvNorm(const std::vector<double>& in,
                             absl::Span<const float> w, int64_t window,
                             int64_t in_features, int64_t out_features,
                             const Norm& norm, bool relu) {
  const int64_t pad = window / 2;
  std::vector<double> out(kSize * kSize * out_features);
  for (int64_t y = 0; y < kSize; ++y) {
    for (int64_t x = 0; x < kSize; ++x) {
      for (int64_t o = 0; o < out_features; ++o) {
        double sum = 0;
        for (int64_t dy = 0; dy < window; ++dy) {
          for (int64_t dx = 0; dx < window; ++dx) {
            const int64_t iy = y + dy - pad, ix = x + dx - pad;
            if (iy < 0 || iy >= kSize || ix < 0 || ix >= kSize) continue;
            for (int64_t i = 0; i < in_features; ++i) {
              sum += in[(iy * kSize + ix) * in_features + i] *
                     w[((dy * window + dx) * in_features + i) * out_features + o];
            }
          }
        }
        double value = (sum - norm.mean[o]) /
                           std::sqrt(double{norm.variance[o]} + kEpsilon) *
                           norm.scale[o] +
                       norm.offset[o];
        out[(y * kSize + x) * out_features + o] =
            relu ? std::max(value, 0.0) : value;
      }
    }
  }
  return out;
}

// The block on `parameters`: x, then per conv its weights and four norm
// vectors.
std::vector<float> Block(const Parameters& parameters) {
  const std::vector<Literal>& inputs = parameters.inputs;
  const std::vector<Norm>& norms = parameters.norms;
  const std::vector<float> xs = Floats(inputs[0]);
  const std::vector<double> x(xs.begin(), xs.end());
  std::vector<double> r1 =
      ConvNorm(x, inputs[1].data<float>(), 1, kWide, kNarrow, norms[0], true);
  std::vector<double> r2 = ConvNorm(r1, inputs[6].data<float>(), 3, kNarrow,
                                    kNarrow, norms[1], true);
  std::vector<double> r3 = ConvNorm(r2, inputs[11].data<float>(), 1, kNarrow,
                                    kWide, norms[2], false);
  std::vector<float> expected(r3.size());
  for (size_t i = 0; i < r3.size(); ++i) {
    expected[i] = static_cast<float>(std::max(r3[i] + x[i], 0.0));
  }
  return expected;
}

}  // namespace reference

}  // namespace

int main() {
  using examples::OrDie;
  XlaBuilder b("resnet_block");
  Parameters parameters{b};
  XlaOp image = parameters.Input({1, kSize, kSize, kWide}, "x", 1.0f, -1.0f);
  XlaOp y = Bottleneck(parameters, image);
  std::unique_ptr<Executable> executable = OrDie(Compile(OrDie(b.Build(y))));
  std::cout << "kernels:\n";
  examples::PrintKernels(*executable);
  if (!HasThreeDotKernels(*executable)) return 1;

  std::vector<const Literal*> arguments;
  for (const Literal& literal : parameters.inputs) {
    arguments.push_back(&literal);
  }
  Literal out = OrDie(executable->Run(arguments));
  std::cout << "y[0, 0, 0, :4] =";
  for (int64_t j = 0; j < 4; ++j) std::cout << " " << out.data<float>()[j];
  std::cout << "\n";
  const std::vector<float> expected = reference::Block(parameters);
  return examples::Matches(out, expected, 1e-4f, 1e-4f) ? 0 : 1;
}
