// Reductions in the JIT against the evaluator: which reducers may be
// reassociated (only a plain add/multiply; a compensated Kahan reducer keeps
// its exact order and bits), column reductions split into blocks of output
// columns (exact), and reductions to few outputs split into partial results
// over fixed chunks (exact for integer and max/min reducers, within
// rounding for reassociated float sums, never for other reducers).
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "codegen/compiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "runtime/compile.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::testing::HasSubstr;
using ::testing::Not;

// Kahan (compensated) summation as a variadic reduce: the reducer carries
// (sum, compensation) and folds in (x, 0).
constexpr char kKahan[] = R"(HloModule kahan
kahan {
  s = f32[] parameter(0)
  c = f32[] parameter(1)
  v = f32[] parameter(2)
  xc = f32[] parameter(3)
  y = f32[] subtract(v, c)
  t = f32[] add(s, y)
  ts = f32[] subtract(t, s)
  nc = f32[] subtract(ts, y)
  ROOT r = (f32[], f32[]) tuple(t, nc)
}
ENTRY main {
  x = f32[$D] parameter(0)
  zero = f32[] constant(0)
  zeros = f32[$D] broadcast(zero), dimensions={}
  ROOT k = (f32[$R], f32[$R]) reduce(x, zeros, zero, zero), dimensions={$A}, to_apply=kahan
})";

// Fast2Sum-corrected addition: one output, but not a plain add.
constexpr char kCorrectedSum[] = R"(HloModule corrected_sum
corrected {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  e = f32[] subtract(s, a)
  d = f32[] subtract(b, e)
  ROOT r = f32[] add(s, d)
}
ENTRY main {
  x = f32[$D] parameter(0)
  zero = f32[] constant(0)
  ROOT k = f32[$R] reduce(x, zero), dimensions={$A}, to_apply=corrected
})";

// A plain reducer `OP` over TYPE with init INIT.
constexpr char kPlain[] = R"(HloModule plain
reducer {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT r = $T[] $OP(a, b)
}
ENTRY main {
  x = $T[$D] parameter(0)
  init = $T[] constant($I)
  ROOT k = $T[$R] reduce(x, init), dimensions={$A}, to_apply=reducer
})";

struct Reduce {
  const char* dims;     // the operand's
  const char* kept;     // the result's
  const char* reduced;  // the reduce's dimensions
};

std::string Instantiate(const char* text, const Reduce& reduce,
                        const char* type = "f32", const char* op = "add",
                        const char* init = "0") {
  return absl::StrReplaceAll(text, {{"$D", reduce.dims},
                                    {"$R", reduce.kept},
                                    {"$A", reduce.reduced},
                                    {"$T", type},
                                    {"$OP", op},
                                    {"$I", init}});
}

// Values over many magnitudes, so that any change of summation order
// changes the rounded result; or, `positive`, in [0, 1] (a sum that a
// change of order changes by rounding only, not by cancellation).
Literal Values(const Shape& shape, bool positive) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const double sine = std::sin(0.7 * static_cast<double>(i));
    const double wave = positive ? 0.5 + 0.5 * sine
                                 : sine * std::pow(10.0, (i * 7919) % 9 - 3);
    switch (shape.element_type()) {
      case F32: literal.data<float>()[i] = static_cast<float>(wave); break;
      case F64: literal.data<double>()[i] = wave; break;
      case S32:
        literal.data<int32_t>()[i] = static_cast<int32_t>(i * 2654435761u);
        break;
      default: break;
    }
  }
  return literal;
}

struct Results {
  Literal expected;
  Literal actual;
  const JitExecutable* jit = nullptr;
  std::unique_ptr<Executable> executable;
};

Results CompileAndRun(const std::string& text,
                      const CompileOptions& options = {},
                      bool positive = false) {
  Results results;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_OK(module.status());
  if (!module.ok()) return results;
  std::vector<Literal> arguments;
  arguments.push_back(Values(
      (*module)->entry_computation()->parameter_instruction(0)->shape(),
      positive));
  absl::StatusOr<Literal> expected =
      EvaluateModule(**module, Pointers(arguments));
  EXPECT_OK(expected.status());
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(**module, options);
  EXPECT_OK(executable.status());
  if (!expected.ok() || !executable.ok()) return results;
  results.executable = std::move(*executable);
  results.jit = dynamic_cast<const JitExecutable*>(results.executable.get());
  absl::StatusOr<Literal> actual = results.executable->Run(Pointers(arguments));
  EXPECT_OK(actual.status());
  results.expected = std::move(*expected);
  if (actual.ok()) results.actual = std::move(*actual);
  return results;
}

// The reduce kernel's scratch size (> 0: split into partial results).
int64_t ScratchBytes(const Results& results) {
  if (results.jit == nullptr) return -1;
  int64_t bytes = 0;
  for (const KernelInfo& kernel : results.jit->kernels().kernels()) {
    bytes += kernel.scratch_bytes;
  }
  return bytes;
}

std::string LlvmIr(const std::string& text) {
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  CompileOptions options;
  std::unique_ptr<HloModule> fused =
      OptimizeForBackend(*module, options).value();
  return EmitIr(*fused, options.codegen, IrStage::kLlvm).value();
}

const Reduce kRows = {"64,3001", "64", "1"};
const Reduce kColumns = {"3001,64", "64", "0"};
const Reduce kToScalar = {"5,70001", "", "0,1"};

// The Kahan (variadic) and the corrected-sum reducers: with reassociation
// on (the default), neither is reordered nor split.
TEST(JitReductionTest, CompensatedReducersKeepTheirExactOrderAndBits) {
  for (const auto& reducer : {kKahan, kCorrectedSum}) {
    for (const Reduce& reduce : {kRows, kColumns, kToScalar}) {
      SCOPED_TRACE(reduce.dims);
      Results results = CompileAndRun(Instantiate(reducer, reduce));
      EXPECT_OK(LiteralUtil::SameValues(results.expected, results.actual));
      EXPECT_EQ(ScratchBytes(results), 0);
    }
  }
}

TEST(JitReductionTest, OnlyPlainAddAndMultiplyReducersGetReassoc) {
  EXPECT_THAT(LlvmIr(Instantiate(kKahan, kRows)), Not(HasSubstr("reassoc")));
  EXPECT_THAT(LlvmIr(Instantiate(kCorrectedSum, kRows)),
              Not(HasSubstr("reassoc")));
  EXPECT_THAT(LlvmIr(Instantiate(kPlain, kRows)), HasSubstr("fadd reassoc"));
  EXPECT_THAT(LlvmIr(Instantiate(kPlain, kRows, "f32", "multiply", "1")),
              HasSubstr("fmul reassoc"));
}

// Blocks of output columns: every element keeps its order.
TEST(JitReductionTest, ColumnReductionsSplitIntoExactBlocks) {
  for (const Reduce& reduce :
       {Reduce{"2048,1537", "1537", "0"}, Reduce{"3,700,1100", "3,1100", "1"},
        Reduce{"300,4,513", "4,513", "0"}, Reduce{"4096,64", "64", "0"}}) {
    SCOPED_TRACE(reduce.dims);
    Results results = CompileAndRun(Instantiate(kPlain, reduce));
    EXPECT_OK(LiteralUtil::SameValues(results.expected, results.actual));
    ASSERT_NE(results.jit, nullptr);
    EXPECT_EQ(ScratchBytes(results), 0);
  }
  Results wide =
      CompileAndRun(Instantiate(kPlain, Reduce{"2048,1537", "1537", "0"}));
  ASSERT_NE(wide.jit, nullptr);
  EXPECT_EQ(wide.jit->kernels().kernels().at(0).units, 4);  // 512 f32 each
}

// A float sum to a scalar: partial sums over fixed chunks, within rounding
// of the sequential sum (itself only good to about 1e-4 relative for 4M
// f32 elements); with reassociation off, the exact sequential order.
TEST(JitReductionTest, FloatSumToFewOutputsSplitsIntoPartials) {
  for (const Reduce& reduce :
       {Reduce{"4194304", "", "0"}, Reduce{"7,5000,13", "", "0,1,2"},
        Reduce{"5,100003", "5", "1"}, Reduce{"32769", "", "0"}}) {
    SCOPED_TRACE(reduce.dims);
    const std::string text = Instantiate(kPlain, reduce, "f32", "add", "5");
    Results reassociated = CompileAndRun(text, {}, /*positive=*/true);
    EXPECT_OK(LiteralUtil::Near(reassociated.expected, reassociated.actual,
                                1e-3, 1e-3));
    EXPECT_GT(ScratchBytes(reassociated), 0);
    CompileOptions exact;
    exact.codegen.reassociate_reductions = false;
    Results sequential = CompileAndRun(text, exact);
    EXPECT_OK(LiteralUtil::SameValues(sequential.expected, sequential.actual));
    EXPECT_EQ(ScratchBytes(sequential), 0);
  }
}

// Integer sums wrap (associative) and max is order-free: split and exact.
TEST(JitReductionTest, ExactReducersSplitAndKeepTheirBits) {
  const Reduce reduce = {"3,700001", "3", "1"};
  for (const char* op : {"add", "maximum", "minimum", "multiply"}) {
    SCOPED_TRACE(op);
    Results ints = CompileAndRun(Instantiate(kPlain, reduce, "s32", op, "7"));
    EXPECT_OK(LiteralUtil::SameValues(ints.expected, ints.actual));
    EXPECT_GT(ScratchBytes(ints), 0);
  }
  for (const char* op : {"maximum", "minimum"}) {
    SCOPED_TRACE(op);
    Results floats =
        CompileAndRun(Instantiate(kPlain, reduce, "f32", op, "-inf"));
    EXPECT_OK(LiteralUtil::SameValues(floats.expected, floats.actual));
    EXPECT_GT(ScratchBytes(floats), 0);
  }
}

// Below two chunks, or with many outputs, the plain per-output loop runs.
TEST(JitReductionTest, SmallOrManyOutputReductionsAreNotSplit) {
  Results small =
      CompileAndRun(Instantiate(kPlain, Reduce{"32767", "", "0"}), {}, true);
  EXPECT_EQ(ScratchBytes(small), 0);
  EXPECT_OK(LiteralUtil::Near(small.expected, small.actual, 1e-3, 1e-4));
  Results many =
      CompileAndRun(Instantiate(kPlain, Reduce{"64,40000", "64", "1"}), {}, true);
  EXPECT_EQ(ScratchBytes(many), 0);
  EXPECT_OK(LiteralUtil::Near(many.expected, many.actual, 1e-3, 1e-4));
}

}  // namespace
}  // namespace mxla
