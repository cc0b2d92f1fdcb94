// select-and-scatter across the layers: the text form, XLA's shape rule and
// messages, the builder, the evaluator on XLA's documented max-pool
// gradient, and the JIT against the interpreter, bit for bit: its own step
// runs a compare-and-add form natively (semantics/select_and_scatter_native.h)
// at any thread count, and calls the compiled select and scatter
// computations for other forms.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "runtime/jit_executable.h"
#include "semantics/scalar_semantics.h"
#include "shape_inference/shape_inference.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::MakeSeededArguments;
using ::mxla::testing::Pointers;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::RunAtThreadCounts;
using ::testing::HasSubstr;

constexpr char kComputations[] = R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(SelectAndScatterTest, MaxPoolGradient) {
  // Windows of 2 at stride 2 over 6 elements, and a padded overlapping
  // form; each source value lands on its window's maximum.
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> module,
      ParseHloModule(absl::StrCat("HloModule m\n", kComputations, R"(
ENTRY e {
  x = f32[6] parameter(0)
  src = f32[3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[6] select-and-scatter(x, src, z), window={size=2 stride=2}, select=ge, scatter=add
})")));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_THAT(module->ToString(),
              HasSubstr("select-and-scatter(x, src, z), window={size=2 "
                        "stride=2}, select=ge, scatter=add\n"));
  Literal x = LiteralUtil::CreateR1<float>({1, 5, 7, 3, 2, 2});
  Literal s = LiteralUtil::CreateR1<float>({10, 20, 30});
  ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x, &s}));
  // Ties keep the first (select(a, b) = a >= b keeps a).
  EXPECT_EQ(result, LiteralUtil::CreateR1<float>({0, 10, 20, 0, 30, 0}));
  EXPECT_TRUE(RunAndCompare(*module, {&x, &s}));

  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> padded,
      ParseHloModule(absl::StrCat("HloModule m\n", kComputations, R"(
ENTRY e {
  x = f32[4] parameter(0)
  src = f32[4] parameter(1)
  z = f32[] constant(1)
  ROOT r = f32[4] select-and-scatter(x, src, z), window={size=3 pad=1_1}, select=ge, scatter=add
})")));
  Literal px = LiteralUtil::CreateR1<float>({4, 1, 3, 9});
  Literal ps = LiteralUtil::CreateR1<float>({1, 2, 3, 4});
  ASSERT_OK_AND_ASSIGN(Literal overlap, EvaluateModule(*padded, {&px, &ps}));
  // Windows {4,1} {4,1,3} {1,3,9} {3,9}: maxima 4, 4, 9, 9.
  EXPECT_EQ(overlap, LiteralUtil::CreateR1<float>({4, 1, 1, 8}));
  EXPECT_TRUE(RunAndCompare(*padded, {&px, &ps}));
}

TEST(SelectAndScatterTest, ShapeRuleAndXlaMessages) {
  const Shape x = ShapeUtil::MakeShape(F32, {6});
  const Shape s = ShapeUtil::MakeShape(F32, {3});
  const Shape scalar = ShapeUtil::MakeShape(F32, {});
  const Shape pred = ShapeUtil::MakeShape(PRED, {});
  const ProgramShape ge{{scalar, scalar}, pred};
  const ProgramShape add{{scalar, scalar}, scalar};
  Window window(1);
  window[0].size = 2;
  window[0].stride = 2;
  EXPECT_EQ(*ShapeInference::InferSelectAndScatterShape(x, ge, window, s,
                                                        scalar, add),
            x);
  auto error = [&](const ProgramShape& select, const Shape& source) {
    return std::string(ShapeInference::InferSelectAndScatterShape(
                           x, select, window, source, scalar, add)
                           .status()
                           .message());
  };
  EXPECT_THAT(error(add, s),
              HasSubstr("select-and-scatter: Select function must have "
                        "rank-0 PRED result, but returns f32[]."));
  EXPECT_THAT(error({{scalar}, pred}, s),
              HasSubstr("Select function must take 2 parameters, but takes "
                        "1 parameter(s)."));
  EXPECT_THAT(error(ge, ShapeUtil::MakeShape(F32, {4})),
              HasSubstr("Source shape does not match the shape of "
                        "window-reduced operand: source(f32[4]), "
                        "window-reduced operand(f32[3])."));
}

TEST(SelectAndScatterTest, BuilderAndJit) {
  XlaBuilder b("pool_grad");
  XlaBuilder ge_builder("ge");
  Ge(Parameter(&ge_builder, 0, ShapeUtil::MakeShape(F32, {}), "a"),
     Parameter(&ge_builder, 1, ShapeUtil::MakeShape(F32, {}), "b"));
  ASSERT_OK_AND_ASSIGN(XlaComputation ge, ge_builder.Build());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {5, 7}), "x");
  XlaOp s = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3, 3}), "s");
  SelectAndScatterWithGeneralPadding(x, ge, {2, 3}, {2, 2}, {{1, 0}, {0, 1}},
                                     s, ConstantR0<float>(&b, 0),
                                     CreateScalarAddComputation(F32, &b));
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  EXPECT_THAT(computation.module().ToString(),
              HasSubstr("window={size=2x3 stride=2x2 pad=1_0x0_1}"));
  EXPECT_TRUE(RunAndCompare(computation.module().ToString()));
}

// The select-and-scatter steps of `module` compiled for the JIT, and
// whether each runs natively (semantics/select_and_scatter_native.h).
std::vector<bool> NativeSteps(const HloModule& module) {
  std::unique_ptr<Executable> executable = Compile(module).value();
  const auto* jit = dynamic_cast<const JitExecutable*>(executable.get());
  std::vector<bool> native;
  if (jit == nullptr) return native;
  for (const JitExecutable::Program::Step& step : jit->program()->steps) {
    if (step.subprogram == nullptr) continue;
    if (const auto* program =
            std::get_if<JitExecutable::Program::SelectAndScatter>(
                step.subprogram.get())) {
      native.push_back(program->native != nullptr);
    }
  }
  return native;
}

// select-and-scatter of x (operand) and s (source) with init 0 over
// `window`, select = compare(`select_operands`) with `direction` (and
// `compare_type`), scatter = `scatter_root` of parameters a and b.
std::string PoolGradient(const std::string& type, const std::string& x,
                         const std::string& s, const std::string& window,
                         const std::string& direction,
                         const std::string& select_operands = "a, b",
                         const std::string& scatter_root = "add(a, b)",
                         const std::string& compare_type = "") {
  return absl::StrCat(
      "HloModule m\nselect {\n  a = ", type, "[] parameter(0)\n  b = ", type,
      "[] parameter(1)\n  ROOT c = pred[] compare(", select_operands,
      "), direction=", direction, compare_type, "\n}\nscatter {\n  a = ", type,
      "[] parameter(0)\n  b = ", type, "[] parameter(1)\n  ROOT s = ", type,
      "[] ", scatter_root, "\n}\nENTRY e {\n  x = ", type, x,
      " parameter(0)\n  src = ", type, s, " parameter(1)\n  z = ", type,
      "[] constant(0)\n  ROOT r = ", type, x,
      " select-and-scatter(x, src, z), window={", window,
      "}, select=select, scatter=scatter\n}\n");
}

// Ties: GE keeps the first of equal elements, GT the last; LE and LT pick
// minima the same ways.
TEST(SelectAndScatterTest, NativeTiesFollowTheComparison) {
  Literal x = LiteralUtil::CreateR1<float>({2, 1, 2, 2, 1, 1});
  Literal s = LiteralUtil::CreateR1<float>({10, 20, 30, 40});
  // Windows of 3 at stride 1: {2,1,2} {1,2,2} {2,2,1} {2,1,1}.
  const struct {
    const char* direction;
    std::vector<float> expected;
  } cases[] = {
      {"GE", {10, 0, 50, 40, 0, 0}},
      {"GT", {0, 0, 10, 90, 0, 0}},
      {"LE", {0, 30, 0, 0, 70, 0}},
      {"LT", {0, 30, 0, 0, 30, 40}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.direction);
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<HloModule> module,
        ParseHloModule(PoolGradient("f32", "[6]", "[4]", "size=3",
                                    c.direction)));
    EXPECT_EQ(NativeSteps(*module), std::vector<bool>{true});
    ASSERT_OK_AND_ASSIGN(Literal result, EvaluateModule(*module, {&x, &s}));
    EXPECT_EQ(result, LiteralUtil::CreateR1<float>(c.expected));
    EXPECT_TRUE(RunAndCompare(*module, {&x, &s}));
  }
}

// A window dimension: size, stride, padding, dilations.
WindowDimension Dim(int64_t size, int64_t stride = 1, int64_t low = 0,
                    int64_t high = 0, int64_t base_dilation = 1,
                    int64_t window_dilation = 1) {
  WindowDimension d;
  d.size = size;
  d.stride = stride;
  d.padding_low = low;
  d.padding_high = high;
  d.base_dilation = base_dilation;
  d.window_dilation = window_dilation;
  return d;
}

// "[d0,d1,...]"
std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// Operand values drawn from a few levels (many ties) with some NaNs and
// signed zeros, source values from the seeded arguments.
std::vector<Literal> TiedArguments(const HloModule& module, uint64_t seed) {
  std::vector<Literal> arguments = MakeSeededArguments(module, seed);
  std::mt19937 rng(seed);
  Literal& x = arguments[0];
  const PrimitiveType type = x.shape().element_type();
  const int64_t count = x.element_count();
  Literal levels = LiteralUtil::CreateR1<float>(
      {1, 2, 3, -0.0f, 0.0f, std::numeric_limits<float>::quiet_NaN()});
  for (int64_t i = 0; i < count; ++i) {
    const int64_t level = std::uniform_int_distribution<int>(0, 40)(rng);
    const float value =
        level < 3 ? levels.data<float>()[level]
        : level < 5 ? levels.data<float>()[3 + level % 2]
        : level == 5 ? levels.data<float>()[5]
                     : std::uniform_int_distribution<int>(-4, 4)(rng);
    if (type == S32) {
      x.data<int32_t>()[i] = std::isnan(value) ? 7 : int32_t(value);
      continue;
    }
    Literal scalar = LiteralUtil::CreateR0<float>(value);
    Literal converted = semantics::ApplyConvert(scalar, type).value();
    std::memcpy(static_cast<char*>(x.untyped_data()) +
                    i * primitive_util::ByteWidth(type),
                converted.untyped_data(), primitive_util::ByteWidth(type));
  }
  return arguments;
}

// Forms the native path takes (swapped parameters, TOTALORDER, 16-bit and
// f64) and those it leaves to the compiled computations (an equality
// select, a multiplying scatter, an integer type), over padding, base and
// window dilation and overlapping windows: all bit for bit the
// interpreter's. 5 features take the scalar rows; 8 the f32 rows of four
// lanes (SelectFloatRow), windows inside the operand their shared taps.
class SelectAndScatterForms
    : public ::testing::TestWithParam<std::vector<int64_t>> {};

INSTANTIATE_TEST_SUITE_P(Features, SelectAndScatterForms,
                         ::testing::Values(std::vector<int64_t>{3, 9, 11, 5},
                                           std::vector<int64_t>{2, 9, 11, 8}));

TEST_P(SelectAndScatterForms, NativeAndCompiledFormsMatchTheInterpreter) {
  const std::vector<int64_t> dims = GetParam();  // NHWC
  const Window windows[] = {
      {Dim(1), Dim(3, 2, 1, 1), Dim(3, 2, 1, 1), Dim(1)},
      {Dim(1), Dim(2, 1, 0, 1), Dim(3, 2, 2, 0), Dim(1)},
      {Dim(1), Dim(3, 2, 1, 0, 2), Dim(2, 1, 0, 0, 1, 2), Dim(1)},
      {Dim(2, 1), Dim(1, 1, 1, 1), Dim(1, 1, 1, 1), Dim(2, 2)},
  };
  struct Form {
    const char* type;
    const char* direction;
    const char* select_operands;
    const char* scatter_root;
    const char* compare_type;
    bool native;
  };
  const Form forms[] = {
      {"f32", "GE", "a, b", "add(a, b)", "", true},
      {"f32", "GT", "a, b", "add(a, b)", "", true},
      {"f32", "LE", "b, a", "add(b, a)", "", true},
      {"f32", "GE", "a, b", "add(a, b)", ", type=TOTALORDER", true},
      {"bf16", "GE", "a, b", "add(a, b)", "", true},
      {"f16", "LT", "a, b", "add(a, b)", "", true},
      {"f64", "GE", "a, b", "add(a, b)", "", true},
      {"f32", "EQ", "a, b", "add(a, b)", "", false},
      {"f32", "GE", "a, b", "multiply(a, b)", "", false},
      {"s32", "GE", "a, b", "add(a, b)", "", false},
  };
  uint64_t seed = 0;
  for (const Window& window : windows) {
    std::vector<int64_t> positions;
    for (size_t d = 0; d < dims.size(); ++d) {
      positions.push_back(WindowOutputSize(dims[d], window[d]));
    }
    for (const Form& form : forms) {
      const std::string text = PoolGradient(
          form.type, Dims(dims), Dims(positions), WindowToString(window),
          form.direction, form.select_operands, form.scatter_root,
          form.compare_type);
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                           ParseHloModule(text));
      EXPECT_EQ(NativeSteps(*module), std::vector<bool>{form.native});
      std::vector<Literal> arguments = TiedArguments(*module, ++seed);
      EXPECT_TRUE(RunAndCompare(*module, Pointers(arguments)));
    }
  }
}

// A max pool's gradient (3x3 windows at stride 2 over NHWC) large enough
// to split across threads over the batch, and one with windows over the
// batch too, split over the features (the rows it selects over): the same
// bits at 1, 2 and 3 threads, the interpreter's.
TEST(SelectAndScatterTest, NativeThreadCountsGiveTheInterpretersBits) {
  const struct {
    const char* type;
    const char* source;
    const char* window;
  } cases[] = {
      {"f32", "[6,16,16,64]",
       "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_0x1_0x0_0"},
      {"bf16", "[6,16,16,64]",
       "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_0x1_0x0_0"},
      {"f32", "[5,16,16,64]",
       "size=2x3x3x1 stride=1x2x2x1 pad=0_0x1_0x1_0x0_0"},
  };
  for (const auto& c : cases) {
    const std::string text =
        PoolGradient(c.type, "[6,32,32,64]", c.source, c.window, "GE");
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    std::vector<Literal> arguments = TiedArguments(*module, 9);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(*module));
    ASSERT_OK_AND_ASSIGN(
        std::vector<Literal> results,
        RunAtThreadCounts(*executable, Pointers(arguments), {1, 2, 3}));
    ASSERT_OK_AND_ASSIGN(Literal expected,
                         EvaluateModule(*module, Pointers(arguments)));
    EXPECT_TRUE(results[0] == expected);
    EXPECT_TRUE(results[1] == expected);
    EXPECT_TRUE(results[2] == expected);
  }
}

}  // namespace
}  // namespace mxla
