#include "tools/model_stack.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "builder/operators.h"
#include "builder/reductions.h"

namespace mxla::examples {
namespace {

Shape F32(std::vector<int64_t> dimensions) {
  return ShapeUtil::MakeShape(PrimitiveType::F32, dimensions);
}

// The shapes of one layer's weights, in parameter order.
std::vector<Shape> LayerWeightShapes(const StackShape& shape) {
  const int64_t hidden = 4 * shape.width;
  return {F32({shape.width}),         F32({shape.width}),
          F32({shape.width, hidden}), F32({hidden}),
          F32({hidden, shape.width}), F32({shape.width})};
}

XlaOp LayerNorm(XlaOp x, XlaOp gamma, XlaOp beta) {
  XlaOp centered = x - ReduceMean(x, {1}, /*keepdims=*/true);
  XlaOp variance = ReduceMean(centered * centered, {1}, /*keepdims=*/true);
  XlaOp normalized = centered * Rsqrt(variance + 1e-5f);
  return Add(Mul(normalized, gamma, {1}), beta, {1});
}

XlaOp Gelu(XlaOp h) {
  XlaOp inner = 0.7978845608f * (h + 0.044715f * h * h * h);
  return 0.5f * h * (1.0f + Tanh(inner));
}

}  // namespace

absl::StatusOr<XlaComputation> BuildModelStack(const StackShape& shape) {
  XlaBuilder b(absl::StrCat("stack_", shape.layers));
  XlaOp x = Parameter(&b, 0, F32({shape.rows, shape.width}), "x");
  int64_t next_parameter = 1;
  for (int64_t layer = 0; layer < shape.layers; ++layer) {
    std::vector<XlaOp> w;
    for (const Shape& weight : LayerWeightShapes(shape)) {
      w.push_back(Parameter(&b, next_parameter, weight,
                            absl::StrCat("p", next_parameter)));
      ++next_parameter;
    }
    XlaOp y = LayerNorm(x, w[0], w[1]);
    XlaOp h = Gelu(Add(Dot(y, w[2]), w[3], {1}));
    x = x + Add(Dot(h, w[4]), w[5], {1});
  }
  return b.Build(x);
}

std::vector<Literal> ModelStackArguments(const StackShape& shape) {
  std::vector<Shape> shapes = {F32({shape.rows, shape.width})};
  for (int64_t layer = 0; layer < shape.layers; ++layer) {
    for (const Shape& weight : LayerWeightShapes(shape)) {
      shapes.push_back(weight);
    }
  }
  std::vector<Literal> arguments;
  for (size_t p = 0; p < shapes.size(); ++p) {
    Literal literal(shapes[p]);
    auto data = literal.data<float>();
    // A wave scaled to keep activations O(1): weights ~ 1/sqrt(fan-in).
    const float scale =
        shapes[p].rank() == 2 && p > 0
            ? 1.0f / std::sqrt(static_cast<float>(shapes[p].dimensions(0)))
            : 1.0f;
    for (size_t i = 0; i < data.size(); ++i) {
      data[i] = scale * std::sin(0.37f * static_cast<float>(i) +
                                 1.3f * static_cast<float>(p));
    }
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

}  // namespace mxla::examples
