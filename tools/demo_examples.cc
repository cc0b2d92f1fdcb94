#include "tools/demo_examples.h"

#include <cmath>
#include <numeric>

#include "builder/arithmetic.h"

namespace mxla::tools {
namespace {

Shape F32Shape(std::initializer_list<int64_t> dims) {
  return ShapeUtil::MakeShape(F32, dims);
}

// Values 1, 2, 3, ... in a literal of `dims`.
Literal Counting(std::initializer_list<int64_t> dims) {
  std::vector<float> values(ShapeUtil::ElementsIn(F32Shape(dims)));
  std::iota(values.begin(), values.end(), 1.0f);
  return LiteralUtil::CreateFromFlat<float>(dims, values);
}

// A binary example `op(x, y, broadcast_dimensions)` on two parameters.
DemoExample Binary(std::string name, std::string title, std::string code,
                   Literal x, Literal y, std::vector<int64_t> dims,
                   std::optional<Literal> expected) {
  Shape x_shape = x.shape();
  Shape y_shape = y.shape();
  DemoExample example{std::move(name), std::move(title), std::move(code),
                      nullptr, {}, std::move(expected)};
  std::string builder_name = example.name;
  example.build = [builder_name, x_shape, y_shape, dims] {
    XlaBuilder b(builder_name);
    XlaOp x = Parameter(&b, 0, x_shape, "x");
    XlaOp y = Parameter(&b, 1, y_shape, "y");
    Add(x, y, dims);
    return b.Build();
  };
  example.inputs.push_back(std::move(x));
  example.inputs.push_back(std::move(y));
  return example;
}

// DESIGN.md's user example: max(x + v, 0) with v on dimension 1.
DemoExample BiasRelu() {
  DemoExample example{
      "bias_relu", "max(x + v, 0): a bias row and a scalar zero",
      "Max(Add(x /*f32[2,3]*/, v /*f32[3]*/, {1}), ConstantR0<float>(&b, 0))",
      nullptr, {}, std::nullopt};
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
  DemoExample example{
      "row_max_mask", "mask of row maxima: reduce, compare, select, convert",
      "m = Reduce(x, -inf, max, {1}); "
      "ConvertElementType(Select(Eq(x, m, {0}), 1.0f, 0.0f), S32)",
      nullptr, {}, std::nullopt};
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

std::vector<DemoExample> MakeExamples() {
  std::vector<DemoExample> examples;
  examples.push_back(Binary(
      "matrix_plus_scalar", "|1 2 3; 4 5 6| + 7: a scalar needs no dimensions",
      "Add(x /*f32[2,3]*/, y /*f32[]*/)",
      LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}),
      LiteralUtil::CreateR0<float>(7), {},
      LiteralUtil::CreateR2<float>({{8, 9, 10}, {11, 12, 13}})));
  examples.push_back(Binary(
      "matrix_plus_vector", "X + v: v matched to dimension 1 of X",
      "Add(x /*f32[2,3]*/, y /*f32[3]*/, /*broadcast_dimensions=*/{1})",
      LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}),
      LiteralUtil::CreateR1<float>({7, 8, 9}), {1},
      LiteralUtil::CreateR2<float>({{8, 10, 12}, {11, 13, 15}})));
  examples.push_back(Binary(
      "vector_as_rows", "3x3 + |7 8 9| on dimension 1: v becomes every row",
      "Add(x /*f32[3,3] zeros*/, y /*f32[3]*/, {1})",
      Literal(F32Shape({3, 3})), LiteralUtil::CreateR1<float>({7, 8, 9}), {1},
      LiteralUtil::CreateR2<float>({{7, 8, 9}, {7, 8, 9}, {7, 8, 9}})));
  examples.push_back(Binary(
      "vector_as_columns",
      "3x3 + |7 8 9| on dimension 0: v becomes every column",
      "Add(x /*f32[3,3] zeros*/, y /*f32[3]*/, {0})",
      Literal(F32Shape({3, 3})), LiteralUtil::CreateR1<float>({7, 8, 9}), {0},
      LiteralUtil::CreateR2<float>({{7, 7, 7}, {8, 8, 8}, {9, 9, 9}})));
  examples.push_back(Binary(
      "cuboid_plus_matrix", "2x3x4 cuboid + 3x4 matrix on dimensions (1,2)",
      "Add(x /*f32[2,3,4]*/, y /*f32[3,4]*/, {1, 2})", Counting({2, 3, 4}),
      Counting({3, 4}), {1, 2}, std::nullopt));
  examples.push_back(Binary(
      "degenerate_2x1_2x3", "(2,1) and (2,3) broadcast to (2,3)",
      "Add(x /*f32[2,1]*/, y /*f32[2,3]*/)", Counting({2, 1}),
      Counting({2, 3}), {}, std::nullopt));
  examples.push_back(Binary(
      "degenerate_1x2x5_7x2x5", "(1,2,5) and (7,2,5) broadcast to (7,2,5)",
      "Add(x /*f32[1,2,5]*/, y /*f32[7,2,5]*/)", Counting({1, 2, 5}),
      Counting({7, 2, 5}), {}, std::nullopt));
  examples.push_back(Binary(
      "degenerate_7x2x5_7x1x5", "(7,2,5) and (7,1,5) broadcast to (7,2,5)",
      "Add(x /*f32[7,2,5]*/, y /*f32[7,1,5]*/)", Counting({7, 2, 5}),
      Counting({7, 1, 5}), {}, std::nullopt));
  examples.push_back(Binary(
      "outer_2x1_1x3", "outer operation: (2,1) and (1,3) broadcast to (2,3)",
      "Add(x /*f32[2,1]*/, y /*f32[1,3]*/)",
      LiteralUtil::CreateR2<float>({{1}, {2}}),
      LiteralUtil::CreateR2<float>({{10, 20, 30}}), {},
      LiteralUtil::CreateR2<float>({{11, 21, 31}, {12, 22, 32}})));
  examples.push_back(Binary(
      "composition_4_1x2",
      "|1 2 3 4| + [5 6] (a 1x2 matrix) on dimension 0: rank raise, then "
      "degenerate broadcast",
      "Add(x /*f32[4]*/, y /*f32[1,2]*/, {0})",
      LiteralUtil::CreateR1<float>({1, 2, 3, 4}),
      LiteralUtil::CreateR2<float>({{5, 6}}), {0},
      LiteralUtil::CreateR2<float>({{6, 7}, {7, 8}, {8, 9}, {9, 10}})));
  examples.push_back(Binary(
      "composition_1x2_4x3x1",
      "1x2 matrix + 4x3x1 array on dimensions (1,2): both operands stretch",
      "Add(x /*f32[1,2]*/, y /*f32[4,3,1]*/, {1, 2})", Counting({1, 2}),
      Counting({4, 3, 1}), {1, 2}, std::nullopt));
  examples.push_back(BiasRelu());
  examples.push_back(RowMaxMask());
  return examples;
}

}  // namespace

const std::vector<DemoExample>& DemoExamples() {
  static const auto* const kExamples =
      new std::vector<DemoExample>(MakeExamples());
  return *kExamples;
}

}  // namespace mxla::tools
