// The jit backend on hand-fused modules, against the reference evaluator:
// every elementwise op and element type on edge values (NaN, ±0, ±inf,
// INT_MIN, -1, 0), index maps, constants, both reduction loop orders and
// variadic reductions, tuple results, and argument errors.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "driver/compile_pipeline.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "passes/fusion_planning.h"
#include "runtime/jit_executable.h"
#include "runtime/memory_limit.h"
#include "tests/testlib/hlo_fixtures.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

using ::mxla::testing::Pointers;

absl::StatusOr<std::unique_ptr<JitExecutable>> CompileText(
    const std::string& text, CodegenOptions options = {}) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  // Codegen maps the fusions' plans: plan the hand-fused module first.
  absl::Status planned = FusionPlanningPass(options).Run(**module).status();
  if (!planned.ok()) return planned;
  CompileOptions compile;
  compile.codegen = options;
  absl::StatusOr<CompiledModule> compiled =
      RunJitBackend(std::move(*module), compile, DefaultSubprogramCompilers());
  if (!compiled.ok()) return compiled.status();
  return std::make_unique<JitExecutable>(std::move(compiled->program));
}

// Runs `text` with the jit and the evaluator; the results must be bitwise
// equal.
void ExpectSameAsEvaluator(const std::string& text,
                           const std::vector<Literal>& arguments,
                           CodegenOptions options = {}) {
  SCOPED_TRACE(text);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  ASSERT_OK_AND_ASSIGN(Literal expected,
                       EvaluateModule(*module, Pointers(arguments)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JitExecutable> executable,
                       CompileText(text, options));
  ASSERT_OK_AND_ASSIGN(Literal actual, executable->Run(Pointers(arguments)));
  EXPECT_EQ(actual, expected) << "jit " << actual.ToString() << "\nevaluator "
                              << expected.ToString();
}

TEST(JitExecutableTest, LoopFusionWithIotaConstantAndTupleRoot) {
  // xla-semantics.md §c.2, example 4.
  const std::string text = R"(HloModule loop_fusion_iota_constant
fused_bias_scale {
  p0 = f32[2,3]{1,0} parameter(0)
  p1 = f32[3]{0} parameter(1)
  b = f32[2,3]{1,0} broadcast(p1), dimensions={1}
  s = f32[2,3]{1,0} add(p0, b)
  io = s32[2,3]{1,0} iota(), iota_dimension=0
  iof = f32[2,3]{1,0} convert(io)
  ROOT r = f32[2,3]{1,0} multiply(s, iof)
}
negate_it {
  q = f32[2,3]{1,0} parameter(0)
  ROOT neg = f32[2,3]{1,0} negate(q)
}
ENTRY main {
  c = f32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  bias = f32[3]{0} parameter(0)
  f = f32[2,3]{1,0} fusion(c, bias), kind=kLoop, calls=fused_bias_scale
  n = f32[2,3]{1,0} fusion(f), kind=kLoop, calls=negate_it
  ROOT t = (f32[2,3]{1,0}, f32[2,3]{1,0}, f32[3]{0}) tuple(f, n, bias)
})";
  std::vector<Literal> arguments;
  arguments.push_back(LiteralUtil::CreateR1<float>({10, 20, 30}));
  ExpectSameAsEvaluator(text, arguments);
  ASSERT_OK_AND_ASSIGN(auto executable, CompileText(text));
  ASSERT_OK_AND_ASSIGN(Literal result, executable->Run(Pointers(arguments)));
  EXPECT_EQ(result.tuple_element(0),
            LiteralUtil::CreateR2<float>({{0, 0, 0}, {14, 25, 36}}));
}

// Edge values of each type, as two equal-length vectors so that every pair
// of interesting values meets in a binary op.
template <typename T>
std::pair<std::vector<T>, std::vector<T>> EdgePairs() {
  std::vector<T> values;
  if constexpr (std::is_same_v<T, bool>) {
    values = {false, true};
  } else if constexpr (std::is_floating_point_v<T>) {
    const T inf = std::numeric_limits<T>::infinity();
    values = {T(0),  T(-0.0), T(1),   T(-1),   T(2.5), T(-7.25),
              T(3),  inf,     -inf,   std::numeric_limits<T>::quiet_NaN(),
              T(1e30), T(-3.5e-5)};
  } else if constexpr (kIsNarrowFloat<T>) {
    // Also the largest f16, an f16 subnormal, and values one unit above 1
    // in f16 and bf16, whose products and sums round.
    const float inf = std::numeric_limits<float>::infinity();
    for (float v : {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -7.25f, 3.0f, inf, -inf,
                    std::numeric_limits<float>::quiet_NaN(), 1e30f, -3.5e-5f,
                    65504.0f, 6e-8f, 1.0009765625f, 1.0078125f}) {
      values.push_back(T(v));
    }
  } else {
    for (int64_t v : {0, 1, -1, 2, -7, 13, 31, 64}) {
      values.push_back(static_cast<T>(v));
    }
    values.push_back(std::numeric_limits<T>::min());
    values.push_back(std::numeric_limits<T>::max());
  }
  std::vector<T> lhs, rhs;
  for (T a : values) {
    for (T b : values) {
      lhs.push_back(a);
      rhs.push_back(b);
    }
  }
  return {lhs, rhs};
}

template <typename T>
Literal Vector(const std::vector<T>& values) {
  Literal literal(ShapeUtil::MakeShape(primitive_util::kNativeToPrimitive<T>,
                                       {static_cast<int64_t>(values.size())}));
  std::copy(values.begin(), values.end(), literal.data<T>().begin());
  return literal;
}

// One fused elementwise instruction `op` on parameters of `type`.
std::string ElementwiseModule(const std::string& op, const std::string& type,
                              const std::string& result_type, int64_t n,
                              int arity, const std::string& attributes) {
  std::string shape = absl::StrCat(type, "[", n, "]");
  std::string result = absl::StrCat(result_type, "[", n, "]");
  std::string params, operands, args;
  for (int i = 0; i < arity; ++i) {
    absl::StrAppend(&params, "  p", i, " = ", shape, " parameter(", i, ")\n");
    absl::StrAppend(&operands, i ? ", " : "", "p", i);
    absl::StrAppend(&args, "  a", i, " = ", shape, " parameter(", i, ")\n");
  }
  std::string fusion_operands =
      absl::StrReplaceAll(operands, {{"p", "a"}});
  return absl::StrCat("HloModule m\nbody {\n", params, "  ROOT r = ", result,
                      " ", op, "(", operands, ")", attributes, "\n}\n",
                      "ENTRY main {\n", args, "  ROOT f = ", result,
                      " fusion(", fusion_operands,
                      "), kind=kLoop, calls=body\n}\n");
}

template <typename T>
void CheckEveryOp(const std::string& type) {
  auto [lhs, rhs] = EdgePairs<T>();
  const int64_t n = lhs.size();
  std::vector<Literal> two;
  two.push_back(Vector(lhs));
  two.push_back(Vector(rhs));
  const bool is_float = std::is_floating_point_v<T> || kIsNarrowFloat<T>;
  const bool is_pred = std::is_same_v<T, bool>;
  std::vector<std::string> binary = {"add", "multiply", "maximum", "minimum"};
  if (!is_pred) {
    for (const char* op : {"subtract", "divide", "remainder", "power"}) {
      binary.push_back(op);
    }
  }
  if (!is_float) {
    for (const char* op : {"and", "or", "xor"}) binary.push_back(op);
  }
  if (is_float) binary.push_back("atan2");
  for (const std::string& op : binary) {
    ExpectSameAsEvaluator(ElementwiseModule(op, type, type, n, 2, ""), two);
  }
  for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    ExpectSameAsEvaluator(
        ElementwiseModule("compare", type, "pred", n, 2,
                          absl::StrCat(", direction=", direction)),
        two);
  }
  std::vector<Literal> one;
  one.push_back(Vector(lhs));
  std::vector<std::string> unary;
  if (is_pred || !is_float) unary.push_back("not");
  if (!is_pred) {
    for (const char* op : {"negate", "abs", "sign"}) unary.push_back(op);
  }
  if (is_float) {
    for (const char* op :
         {"exponential", "log", "sqrt", "rsqrt", "tanh", "logistic", "floor",
          "ceil", "sine", "cosine", "tan", "exponential-minus-one",
          "log-plus-one", "cbrt", "erf", "asin", "acos", "sinh", "cosh",
          "asinh", "acosh", "atan", "round-nearest-afz",
          "round-nearest-even"}) {
      unary.push_back(op);
    }
  }
  if (is_pred) unary.erase(unary.begin() + 1, unary.end());
  unary.push_back("copy");
  for (const std::string& op : unary) {
    ExpectSameAsEvaluator(ElementwiseModule(op, type, type, n, 1, ""), one);
  }
  for (const char* to : {"pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32",
                         "u64", "f16", "bf16", "f32", "f64"}) {
    ExpectSameAsEvaluator(ElementwiseModule("convert", type, to, n, 1, ""), one);
  }
}

TEST(JitExecutableTest, EveryElementwiseOpMatchesTheEvaluatorBitForBit) {
  CheckEveryOp<bool>("pred");
  CheckEveryOp<int8_t>("s8");
  CheckEveryOp<int16_t>("s16");
  CheckEveryOp<int32_t>("s32");
  CheckEveryOp<int64_t>("s64");
  CheckEveryOp<uint8_t>("u8");
  CheckEveryOp<uint16_t>("u16");
  CheckEveryOp<uint32_t>("u32");
  CheckEveryOp<uint64_t>("u64");
  CheckEveryOp<Half>("f16");
  CheckEveryOp<BFloat16>("bf16");
  CheckEveryOp<float>("f32");
  CheckEveryOp<double>("f64");
}

TEST(JitExecutableTest, SelectTransposeReshapeAndBroadcastAreIndexMaps) {
  const std::string text = R"(HloModule maps
body {
  x = f32[2,3,4] parameter(0)
  p = pred[4,3] parameter(1)
  t = f32[4,3,2] transpose(x), dimensions={2,1,0}
  r = f32[4,6] reshape(t)
  s = f32[4,3,2] reshape(r)
  pb = pred[4,3,2] broadcast(p), dimensions={0,1}
  zero = f32[] constant(0)
  zb = f32[4,3,2] broadcast(zero), dimensions={}
  ROOT out = f32[4,3,2] select(pb, s, zb)
}
ENTRY main {
  a = f32[2,3,4] parameter(0)
  b = pred[4,3] parameter(1)
  ROOT f = f32[4,3,2] fusion(a, b), kind=kLoop, calls=body
})";
  std::vector<Literal> arguments;
  Literal x(ShapeUtil::MakeShape(F32, {2, 3, 4}));
  for (int64_t i = 0; i < 24; ++i) x.data<float>()[i] = i * 1.5f - 3;
  Literal p(ShapeUtil::MakeShape(PRED, {4, 3}));
  for (int64_t i = 0; i < 12; ++i) p.data<bool>()[i] = (i * 7) % 3 != 0;
  arguments.push_back(std::move(x));
  arguments.push_back(std::move(p));
  ExpectSameAsEvaluator(text, arguments);
}

// Reshapes map coordinates run by run (dimension groups with equal
// products): merges, splits, size-1 insertions on either side, and shapes
// with no common split.
TEST(JitExecutableTest, ReshapesOfEveryGrouping) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2,3,4", "6,4"}, {"6,4", "2,3,4"}, {"4,5", "4,1,5"}, {"1,6", "6,1"},
      {"2,6", "3,4"},   {"24", "2,3,4"},  {"2,3,4", "24"},  {"1,1,24", "4,1,6"},
      {"3,1,8", "1,24,1"}};
  for (const auto& [from, to] : cases) {
    const std::string text = absl::StrCat(
        "HloModule reshape\nbody {\n  x = f32[", from,
        "] parameter(0)\n  r = f32[", to, "] reshape(x)\n  ROOT n = f32[", to,
        "] negate(r)\n}\nENTRY main {\n  a = f32[", from,
        "] parameter(0)\n  ROOT f = f32[", to,
        "] fusion(a), kind=kLoop, calls=body\n}\n");
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> parsed,
                         ParseHloModule(text));
    std::vector<Literal> arguments;
    arguments.emplace_back(
        parsed->entry_computation()->parameter_instruction(0)->shape());
    for (int64_t i = 0; i < arguments[0].element_count(); ++i) {
      arguments[0].data<float>()[i] = i * 1.25f - 7;
    }
    ExpectSameAsEvaluator(text, arguments);
  }
}

// Reductions over [5,7,9] for every dimension set, both loop orders; with
// reassociation off they are bitwise equal to the evaluator.
TEST(JitExecutableTest, ReductionsInEveryLoopOrderMatchTheEvaluator) {
  Literal x(ShapeUtil::MakeShape(F32, {5, 7, 9}));
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.data<float>()[i] = std::sin(i * 0.37f) * 100;
  }
  std::vector<Literal> arguments;
  arguments.push_back(std::move(x));
  const std::vector<std::string> dim_sets = {"", "0", "1", "2", "0,1",
                                              "0,2", "1,2", "0,1,2"};
  for (const std::string& dims : dim_sets) {
    std::vector<int64_t> kept;
    for (int64_t d : {0, 1, 2}) {
      if (dims.find(std::to_string(d)) == std::string::npos) {
        kept.push_back(std::vector<int64_t>{5, 7, 9}[d]);
      }
    }
    std::string out = absl::StrCat("f32[", absl::StrJoin(kept, ","), "]");
    for (const char* reducer : {"add", "maximum", "multiply"}) {
      std::string text = absl::StrCat(
          "HloModule r\nred {\n  a = f32[] parameter(0)\n  b = f32[] "
          "parameter(1)\n  ROOT c = f32[] ", reducer, "(a, b)\n}\n",
          "body {\n  x = f32[5,7,9] parameter(0)\n  one = f32[] "
          "constant(0.5)\n  ROOT r = ", out,
          " reduce(x, one), dimensions={", dims, "}, to_apply=red\n}\n",
          "ENTRY main {\n  p = f32[5,7,9] parameter(0)\n  ROOT f = ", out,
          " fusion(p), kind=kInput, calls=body\n}\n");
      CodegenOptions exact;
      exact.reassociate_reductions = false;
      ExpectSameAsEvaluator(text, arguments, exact);
    }
  }
}

TEST(JitExecutableTest, ReassociatedSumsStayWithinTolerance) {
  Literal x(ShapeUtil::MakeShape(F32, {3, 1000}));
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.data<float>()[i] = std::cos(i * 0.11f);
  }
  const std::string text = R"(HloModule sum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
body {
  x = f32[3,1000] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[3] reduce(x, zero), dimensions={1}, to_apply=add
}
ENTRY main {
  p = f32[3,1000] parameter(0)
  ROOT f = f32[3] fusion(p), kind=kInput, calls=body
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*module, {&x}));
  ASSERT_OK_AND_ASSIGN(auto executable, CompileText(text));
  ASSERT_OK_AND_ASSIGN(Literal actual, executable->Run({&x}));
  EXPECT_OK(LiteralUtil::Near(expected, actual, 1e-4, 1e-5));
}

TEST(JitExecutableTest, VariadicReduceIsArgmax) {
  const std::string text = R"(HloModule argmax
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
body {
  x = f32[4,6] parameter(0)
  io = s32[4,6] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[4], s32[4]) reduce(x, io, ninf, zero), dimensions={1}, to_apply=argmax
}
ENTRY main {
  p = f32[4,6] parameter(0)
  f = (f32[4], s32[4]) fusion(p), kind=kInput, calls=body
  ROOT idx = s32[4] get-tuple-element(f), index=1
})";
  std::vector<Literal> arguments;
  arguments.push_back(LiteralUtil::CreateR2<float>({{1, 5, 2, 5, 0, -1},
                                                    {-3, -2, -9, -1, -8, -4},
                                                    {0, 0, 0, 0, 0, 0},
                                                    {7, 1, 8, 2, 9, 3}}));
  ExpectSameAsEvaluator(text, arguments);
  ASSERT_OK_AND_ASSIGN(auto executable, CompileText(text));
  ASSERT_OK_AND_ASSIGN(Literal result, executable->Run(Pointers(arguments)));
  EXPECT_EQ(result, LiteralUtil::CreateR1<int32_t>({1, 3, 0, 4}));
}

// Fusion gives an expensive value read through a growing broadcast its own
// kernel (passes/fusion.h); the compiled program still gives the
// interpreter's bits, for a loop fusion and for a row-fused softmax.
TEST(JitExecutableTest, MaterializedExpensiveProducersMatchTheInterpreter) {
  const std::string texts[] = {
      R"(HloModule scale_by_exp
ENTRY main {
  x = f32[512,1024] parameter(0)
  v = f32[1024] parameter(1)
  e = f32[1024] exponential(v)
  eb = f32[512,1024] broadcast(e), dimensions={1}
  ROOT m = f32[512,1024] multiply(x, eb)
})",
      fixtures::ModuleWithReducers("scaled_softmax") + R"(
ENTRY main {
  x = f32[64,1024] parameter(0)
  v = f32[1024] parameter(1)
  ev = f32[1024] exponential(v)
  evb = f32[64,1024] broadcast(ev), dimensions={1}
  xs = f32[64,1024] multiply(x, evb)
  ninf = f32[] constant(-inf)
  m = f32[64] reduce(xs, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[64,1024] broadcast(m), dimensions={0}
  sub = f32[64,1024] subtract(xs, mb)
  e = f32[64,1024] exponential(sub)
  zero = f32[] constant(0)
  s = f32[64] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[64,1024] broadcast(s), dimensions={0}
  ROOT out = f32[64,1024] divide(e, sb)
})"};
  for (const std::string& text : texts) {
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    std::vector<Literal> arguments;
    for (const HloInstruction* parameter :
         module->entry_computation()->parameter_instructions()) {
      Literal literal(parameter->shape());
      for (int64_t i = 0; i < literal.element_count(); ++i) {
        literal.data<float>()[i] = 0.01f * ((i * 37) % 401) - 2;
      }
      arguments.push_back(std::move(literal));
    }
    CompileOptions jit, interpreter;
    jit.codegen.reassociate_reductions = false;
    interpreter.backend = Backend::kInterpreter;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> compiled,
                         Compile(*module, jit));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> oracle,
                         Compile(*module, interpreter));
    // The exp of v is a kernel of its own, over v's 1,024 elements.
    int64_t vector_exp_kernels = 0;
    for (const HloInstruction* instruction :
         compiled->module().entry_computation()->instructions()) {
      vector_exp_kernels +=
          instruction->opcode() == HloOpcode::kFusion &&
          instruction->shape() == ShapeUtil::MakeShape(F32, {1024}) &&
          instruction->to_apply()->root_instruction()->opcode() ==
              HloOpcode::kExp;
    }
    EXPECT_EQ(vector_exp_kernels, 1) << compiled->module().ToString();
    ASSERT_OK_AND_ASSIGN(Literal actual, compiled->Run(Pointers(arguments)));
    ASSERT_OK_AND_ASSIGN(Literal expected, oracle->Run(Pointers(arguments)));
    EXPECT_OK(LiteralUtil::SameValues(expected, actual));
  }
}

TEST(JitExecutableTest, ArgumentErrorsNameTheParameter) {
  ASSERT_OK_AND_ASSIGN(
      auto executable,
      CompileText(ElementwiseModule("add", "f32", "f32", 3, 2, "")));
  Literal good = LiteralUtil::CreateR1<float>({1, 2, 3});
  Literal wrong = LiteralUtil::CreateR1<float>({1, 2});
  EXPECT_THAT(executable->Run({&good}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expects 2 arguments, got 1")));
  EXPECT_THAT(executable->Run({&good, &wrong}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("argument 1 (parameter 'a1') has shape "
                                 "f32[2] but the computation expects f32[3]")));
  float out[3];
  const void* args[] = {good.untyped_data()};
  void* results[] = {out};
  EXPECT_THAT(executable->RunBuffers(args, results),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected 2 argument buffers (one per array "
                                 "leaf of the parameters), got 1")));
}

// A result the host cannot allocate is ResourceExhausted from Run, not a
// trap (the memory limit is lifted so that compilation accepts it).
TEST(JitExecutableTest, UnallocatableResultIsResourceExhausted) {
  SetMemoryLimitBytes(std::numeric_limits<int64_t>::max());
  absl::StatusOr<std::unique_ptr<JitExecutable>> executable =
      CompileText(R"(HloModule huge
fused {
  p = f32[] parameter(0)
  ROOT b = f32[70368744177664] broadcast(p), dimensions={}
}
ENTRY main {
  x = f32[] parameter(0)
  ROOT f = f32[70368744177664] fusion(x), kind=kLoop, calls=fused
})");
  SetMemoryLimitBytes(0);
  ASSERT_OK(executable.status());
  Literal x = LiteralUtil::CreateR0<float>(1);
  EXPECT_THAT((*executable)->Run({&x}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("cannot allocate 281474976710656 bytes")));
}

TEST(JitExecutableTest, UnfusedModulesAreRejected) {
  EXPECT_THAT(CompileText("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                          "  ROOT n = f32[2] negate(x)\n}\n"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("'n' (negate) is outside any fusion")));
}

}  // namespace
}  // namespace mxla
