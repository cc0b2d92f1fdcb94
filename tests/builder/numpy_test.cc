// builder/numpy.h: NumPy's trailing alignment, checked against a reference
// implementation of NumPy's broadcasting rule on values, agreement with the
// strict core ops, and NumPy-incompatible shapes rejected with the core
// op's message.
#include "builder/numpy.h"

#include <memory>
#include <vector>

#include "builder/xla_builder.h"
#include "driver/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Dimensions = std::vector<int64_t>;

// NumPy's rule: align right; sizes must match or one of them be 1.
Dimensions NumpyShape(const Dimensions& a, const Dimensions& b) {
  Dimensions out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = std::max(x, y);
  }
  return out;
}

// The element of `operand` NumPy reads for output index `index`.
float NumpyElement(const Literal& operand, const Dimensions& index) {
  const Dimensions dims(operand.shape().dimensions().begin(),
                        operand.shape().dimensions().end());
  Dimensions at(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t coordinate = index[index.size() - dims.size() + i];
    at[i] = dims[i] == 1 ? 0 : coordinate;
  }
  return operand.Get<float>(at);
}

Literal Counting(const Dimensions& dims, float start) {
  Literal literal(ShapeUtil::MakeShape(F32, dims));
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.data<float>()[i] = start + i;
  }
  return literal;
}

TEST(NumpyTest, TrailingBroadcastDimensions) {
  EXPECT_THAT(numpy::TrailingBroadcastDimensions(2, 1), ElementsAre(1));
  EXPECT_THAT(numpy::TrailingBroadcastDimensions(1, 3), ElementsAre(2));
  EXPECT_THAT(numpy::TrailingBroadcastDimensions(4, 2), ElementsAre(2, 3));
  EXPECT_THAT(numpy::TrailingBroadcastDimensions(3, 3), ElementsAre());
  EXPECT_THAT(numpy::TrailingBroadcastDimensions(0, 3), ElementsAre());
  EXPECT_THAT(numpy::TrailingBroadcastDimensions(2, 0), ElementsAre());
}

TEST(NumpyTest, ValuesFollowNumpysRule) {
  const std::vector<std::pair<Dimensions, Dimensions>> cases = {
      {{2, 3}, {3}},       {{3}, {2, 3}},      {{4, 1, 5}, {3, 1}},
      {{2, 1}, {1, 3}},    {{5, 1, 4}, {4}},   {{2, 3, 4}, {3, 1}},
      {{}, {2, 2}},        {{6}, {}},          {{1, 1, 7}, {2, 1, 1}}};
  for (const auto& [a_dims, b_dims] : cases) {
    SCOPED_TRACE(::testing::PrintToString(a_dims) + " + " +
                 ::testing::PrintToString(b_dims));
    XlaBuilder b("numpy_add");
    XlaOp a = Parameter(&b, 0, ShapeUtil::MakeShape(F32, a_dims), "a");
    XlaOp c = Parameter(&b, 1, ShapeUtil::MakeShape(F32, b_dims), "c");
    ASSERT_OK_AND_ASSIGN(XlaComputation computation,
                         b.Build(numpy::Add(a, c)));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(computation));
    Literal a_values = Counting(a_dims, 1), c_values = Counting(b_dims, 100);
    ASSERT_OK_AND_ASSIGN(Literal out, executable->Run({&a_values, &c_values}));
    const Dimensions expected_dims = NumpyShape(a_dims, b_dims);
    EXPECT_EQ(Dimensions(out.shape().dimensions().begin(),
                         out.shape().dimensions().end()),
              expected_dims);
    Dimensions index(expected_dims.size(), 0);
    for (int64_t n = 0; n < out.element_count(); ++n) {
      EXPECT_EQ(out.Get<float>(index), NumpyElement(a_values, index) +
                                           NumpyElement(c_values, index));
      for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
        if (++index[d] < expected_dims[d]) break;
        index[d] = 0;
      }
    }
  }
}

TEST(NumpyTest, SameHloAsTheCoreOpWithExplicitDimensions) {
  auto build = [](bool numpy_style) {
    XlaBuilder b("bias");
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
    XlaOp v = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3}), "v");
    XlaOp sum = numpy_style ? numpy::Add(x, v) : Add(x, v, {1});
    return b.Build(sum)->ToString();
  };
  EXPECT_EQ(build(true), build(false));
}

TEST(NumpyTest, ShapesNumpyRejectsAreErrors) {
  XlaBuilder b("bad");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  XlaOp v = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {2}), "v");
  // The message names the op, the shapes, the inferred dimensions and this
  // call site.
  EXPECT_THAT(
      b.Build(numpy::Add(x, v)).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               ::testing::AllOf(
                   HasSubstr("Add(f32[2,3], f32[2], broadcast_dimensions={1})"),
                   HasSubstr("numpy_test.cc"),
                   HasSubstr("Broadcast dimension 0 mismatch: 2 != 3"))));
  // The strict core op without dimensions rejects even what NumPy accepts.
  XlaBuilder strict("strict");
  XlaOp y = Parameter(&strict, 0, ShapeUtil::MakeShape(F32, {2, 3}), "y");
  XlaOp w = Parameter(&strict, 1, ShapeUtil::MakeShape(F32, {3}), "w");
  EXPECT_FALSE(strict.Build(Add(y, w)).ok());
}

}  // namespace
}  // namespace mxla
