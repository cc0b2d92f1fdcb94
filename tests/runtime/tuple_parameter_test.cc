// Tuple-typed entry parameters through Compile, on both backends: the jit
// against the reference evaluator bit for bit (small leaves and leaves of
// more than 8 MiB, which the runtime splits into chunks), every
// get-tuple-element index, a tuple passed through to the result, the flat
// RunBuffers order, nested tuples in parameters and results, and the
// errors (leaf count, shape).
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

// Distinct, non-trivial values: a permuted or zeroed leaf cannot pass.
Literal Ramp(int64_t n, float start) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = start + 0.25f * (i % 1000) - i;
  return *LiteralUtil::CreateFromFlatChecked<float>({n}, values);
}

// `text` with @N replaced by `n`, compiled for `backend`.
absl::StatusOr<std::unique_ptr<Executable>> CompileWithSize(
    const std::string& text, int64_t n, Backend backend = Backend::kJit) {
  std::string sized = absl::StrReplaceAll(text, {{"@N", absl::StrCat(n)}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(sized);
  if (!module.ok()) return module.status();
  CompileOptions options;
  options.backend = backend;
  return Compile(**module, options);
}

// The jit and the interpreter agree bit for bit on `arguments`; returns
// the jit's result.
Literal ExpectSameOnBothBackends(const std::string& text, int64_t n,
                                 const std::vector<Literal>& arguments) {
  SCOPED_TRACE(absl::StrCat(text, "\nN = ", n));
  absl::StatusOr<std::unique_ptr<Executable>> jit = CompileWithSize(text, n);
  absl::StatusOr<std::unique_ptr<Executable>> interpreter =
      CompileWithSize(text, n, Backend::kInterpreter);
  EXPECT_OK(jit.status());
  EXPECT_OK(interpreter.status());
  if (!jit.ok() || !interpreter.ok()) return Literal();
  absl::StatusOr<Literal> expected = (*interpreter)->Run(Pointers(arguments));
  absl::StatusOr<Literal> actual = (*jit)->Run(Pointers(arguments));
  EXPECT_OK(expected.status());
  EXPECT_OK(actual.status());
  if (!expected.ok() || !actual.ok()) return Literal();
  EXPECT_TRUE(*actual == *expected);
  return *std::move(actual);
}

constexpr char kGteSum[] = R"(HloModule tuple_sum
ENTRY main {
  a = (f32[@N], f32[@N]) parameter(0)
  x = f32[@N] get-tuple-element(a), index=0
  y = f32[@N] get-tuple-element(a), index=1
  ROOT s = f32[@N] subtract(y, x)
})";

// 3M floats: 12 MB per leaf, above the 8 MiB streaming threshold.
constexpr int64_t kLarge = 3'000'000;

TEST(TupleParameterTest, EachElementReadsItsOwnLeaf) {
  for (int64_t n : {int64_t{2}, int64_t{1000}, kLarge}) {
    for (int64_t index : {0, 1}) {
      std::string text = absl::StrReplaceAll(R"(HloModule tuple_gte
ENTRY main {
  a = (f32[@N], f32[@N]) parameter(0)
  x = f32[@N] get-tuple-element(a), index=@I
  ROOT e = f32[@N] exponential(x)
})", {{"@I", absl::StrCat(index)}});
      std::vector<Literal> elements;
      elements.push_back(Ramp(n, 1));
      elements.push_back(Ramp(n, -3));
      std::vector<Literal> arguments;
      arguments.push_back(LiteralUtil::MakeTuple(std::move(elements)));
      Literal result = ExpectSameOnBothBackends(text, n, arguments);
      ASSERT_EQ(result.shape().ToString(), absl::StrCat("f32[", n, "]"));
      EXPECT_EQ(result.data<float>()[1],
                std::exp(arguments[0].tuple_element(index).data<float>()[1]));
    }
  }
}

TEST(TupleParameterTest, BothElementsAndMixedParameters) {
  const std::string text = R"(HloModule tuple_mixed
ENTRY main {
  p = f32[@N] parameter(0)
  a = (f32[@N], s32[3], f32[@N]) parameter(1)
  q = f32[@N] parameter(2)
  x = f32[@N] get-tuple-element(a), index=0
  y = f32[@N] get-tuple-element(a), index=2
  i = s32[3] get-tuple-element(a), index=1
  d = f32[@N] subtract(y, x)
  m = f32[@N] multiply(d, p)
  s = f32[@N] add(m, q)
  ROOT t = (f32[@N], s32[3]) tuple(s, i)
})";
  for (int64_t n : {int64_t{5}, kLarge}) {
    std::vector<Literal> elements;
    elements.push_back(Ramp(n, 2));
    elements.push_back(LiteralUtil::CreateR1<int32_t>({7, -8, 9}));
    elements.push_back(Ramp(n, -5));
    std::vector<Literal> arguments;
    arguments.push_back(Ramp(n, 0.5f));
    arguments.push_back(LiteralUtil::MakeTuple(std::move(elements)));
    arguments.push_back(Ramp(n, 11));
    ExpectSameOnBothBackends(text, n, arguments);
  }
}

TEST(TupleParameterTest, TupleParameterPassedThroughToTheResult) {
  const std::string text = R"(HloModule tuple_identity
ENTRY main {
  ROOT a = (f32[@N], s32[2]) parameter(0)
})";
  for (int64_t n : {int64_t{3}, kLarge}) {
    std::vector<Literal> elements;
    elements.push_back(Ramp(n, 4));
    elements.push_back(LiteralUtil::CreateR1<int32_t>({1, -1}));
    std::vector<Literal> arguments;
    arguments.push_back(LiteralUtil::MakeTuple(std::move(elements)));
    Literal result = ExpectSameOnBothBackends(text, n, arguments);
    EXPECT_TRUE(result == arguments[0]);
  }
}

TEST(TupleParameterTest, RunBuffersTakesTheLeavesInXlaOrder) {
  const std::string text = R"(HloModule tuple_buffers
ENTRY main {
  p = f32[@N] parameter(0)
  a = (f32[@N], f32[@N]) parameter(1)
  x = f32[@N] get-tuple-element(a), index=0
  y = f32[@N] get-tuple-element(a), index=1
  d = f32[@N] subtract(x, y)
  ROOT m = f32[@N] multiply(d, p)
})";
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    SCOPED_TRACE(BackendName(backend));
    ASSERT_OK_AND_ASSIGN(auto executable, CompileWithSize(text, 3, backend));
    std::vector<float> p = {1, 2, 3}, x = {10, 20, 30}, y = {1, 1, 1};
    std::vector<float> out(3);
    const void* arguments[] = {p.data(), x.data(), y.data()};
    void* results[] = {out.data()};
    ASSERT_OK(executable->RunBuffers(arguments, results));
    EXPECT_EQ(out, (std::vector<float>{9, 38, 87}));
    // One buffer per parameter is the old, wrong count.
    EXPECT_THAT(
        executable->RunBuffers(absl::MakeSpan(arguments, 2), results),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 HasSubstr("expected 3 argument buffers (one per array leaf "
                           "of the parameters), got 2")));
  }
}

TEST(TupleParameterTest, ArgumentErrorsNameTheParameter) {
  ASSERT_OK_AND_ASSIGN(auto executable, CompileWithSize(kGteSum, 2));
  std::vector<Literal> flat;
  flat.push_back(Ramp(2, 0));
  EXPECT_THAT(executable->Run(Pointers(flat)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("argument 0 (parameter 'a') has shape f32[2] "
                                 "but the computation expects (f32[2], "
                                 "f32[2])")));
  std::vector<Literal> elements;
  elements.push_back(Ramp(2, 0));
  elements.push_back(Ramp(3, 0));
  std::vector<Literal> wrong;
  wrong.push_back(LiteralUtil::MakeTuple(std::move(elements)));
  EXPECT_THAT(executable->Run(Pointers(wrong)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has shape (f32[2], f32[3])")));
}

// ((a, b), c): XLA flattens it depth-first into the leaves a, b, c.
constexpr char kNested[] = R"(HloModule nested
ENTRY main {
  t = ((f32[@N], f32[@N]), f32[@N]) parameter(0)
  inner = (f32[@N], f32[@N]) get-tuple-element(t), index=0
  a = f32[@N] get-tuple-element(inner), index=0
  b = f32[@N] get-tuple-element(inner), index=1
  c = f32[@N] get-tuple-element(t), index=1
  d = f32[@N] subtract(c, a)
  e = f32[@N] multiply(b, d)
  cs = (f32[@N]) tuple(c)
  ecs = (f32[@N], (f32[@N])) tuple(e, cs)
  ROOT r = ((f32[@N], f32[@N]), (f32[@N], (f32[@N]))) tuple(inner, ecs)
})";

Literal NestedArgument(int64_t n) {
  std::vector<Literal> inner;
  inner.push_back(Ramp(n, 1));
  inner.push_back(Ramp(n, 2));
  std::vector<Literal> outer;
  outer.push_back(LiteralUtil::MakeTuple(std::move(inner)));
  outer.push_back(Ramp(n, 3));
  return LiteralUtil::MakeTuple(std::move(outer));
}

TEST(TupleParameterTest, NestedTuplesInParametersAndResultsMatch) {
  for (int64_t n : {int64_t{2}, int64_t{1000}, kLarge}) {
    std::vector<Literal> arguments;
    arguments.push_back(NestedArgument(n));
    Literal result = ExpectSameOnBothBackends(kNested, n, arguments);
    if (HasFailure()) return;
    // Passed through unchanged, and computed from the right leaves.
    EXPECT_TRUE(result.tuple_element(0) ==
                arguments[0].tuple_element(0));
    EXPECT_TRUE(result.tuple_element(1).tuple_element(1).tuple_element(0) ==
                arguments[0].tuple_element(1));
  }
}

TEST(TupleParameterTest, NestedTuplesFlattenDepthFirstInRunBuffers) {
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    SCOPED_TRACE(BackendName(backend));
    ASSERT_OK_AND_ASSIGN(auto executable, CompileWithSize(kNested, 2, backend));
    std::vector<float> a = {1, 2}, b = {3, 4}, c = {5, 7};
    std::vector<float> r0(2), r1(2), r2(2), r3(2);
    const void* arguments[] = {a.data(), b.data(), c.data()};
    void* results[] = {r0.data(), r1.data(), r2.data(), r3.data()};
    ASSERT_OK(executable->RunBuffers(arguments, results));
    EXPECT_EQ(r0, a);
    EXPECT_EQ(r1, b);
    EXPECT_EQ(r2, (std::vector<float>{3 * (5 - 1), 4 * (7 - 2)}));
    EXPECT_EQ(r3, c);
    void* too_few[] = {r0.data(), r1.data(), r2.data()};
    EXPECT_THAT(executable->RunBuffers(arguments, too_few),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("expected 4 result buffers, got 3")));
  }
}

}  // namespace
}  // namespace mxla
