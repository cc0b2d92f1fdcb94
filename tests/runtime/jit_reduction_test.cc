// Reductions in the JIT against the evaluator: which reducers may be
// reassociated (only a plain add, never a product; a compensated Kahan reducer keeps
// its exact order and bits), column reductions split into blocks of output
// columns (exact), and reductions to few outputs split into partial results
// over fixed chunks (exact for integer and max/min reducers, within
// rounding for reassociated float sums, never for other reducers).
#include <bit>
#include <cmath>
#include <limits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "codegen/compiler.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
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

TEST(JitReductionTest, OnlyPlainAddReducersGetReassoc) {
  EXPECT_THAT(LlvmIr(Instantiate(kKahan, kRows)), Not(HasSubstr("reassoc")));
  EXPECT_THAT(LlvmIr(Instantiate(kCorrectedSum, kRows)),
              Not(HasSubstr("reassoc")));
  EXPECT_THAT(LlvmIr(Instantiate(kPlain, kRows)), HasSubstr("fadd reassoc"));
  EXPECT_THAT(LlvmIr(Instantiate(kPlain, kRows, "f32", "multiply", "1")),
              Not(HasSubstr("reassoc")));
}

// A float product keeps the sequential order even with reassociation on:
// [1e30, 1e-30] repeated is 1 in order, while vector lanes or chunks would
// multiply the 1e30s into inf and the 1e-30s into 0, and inf * 0 is NaN.
TEST(JitReductionTest, FloatProductsKeepTheSequentialOrder) {
  for (const Reduce& reduce : {Reduce{"4,128", "4", "1"},
                               Reduce{"40000", "", "0"}}) {
    SCOPED_TRACE(reduce.dims);
    const std::string text =
        Instantiate(kPlain, reduce, "f32", "multiply", "1");
    std::unique_ptr<HloModule> module = ParseHloModule(text).value();
    Literal x(module->entry_computation()->parameter_instruction(0)->shape());
    absl::Span<float> data = x.data<float>();
    for (size_t i = 0; i < data.size(); ++i) data[i] = i % 2 ? 1e-30f : 1e30f;
    ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*module, {&x}));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                         Compile(*module, {}));
    ASSERT_OK_AND_ASSIGN(Literal actual, executable->Run({&x}));
    EXPECT_OK(LiteralUtil::SameValues(expected, actual));
    EXPECT_FALSE(std::isnan(actual.data<float>()[0]));
  }
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

// Float max/min reductions run as integer max/min of order keys
// (codegen/reduction_accumulator.h); row by row they must give the
// evaluator's bits: ±0 ordered, infinities, denormals, and a NaN operand
// passed through with its sign and payload. With NaNs of both signs in one
// row, either may be the result. Rows of 3001 reach the vector loop and its
// tail; the scalar case splits into partial results.
template <typename T, typename Bits>
void ExpectMaxMinOfSpecialRows(const char* type) {
  const T nan_a = std::bit_cast<T>(static_cast<Bits>(~Bits{0} >> 1));
  const T nan_b = std::bit_cast<T>(static_cast<Bits>(~Bits{0} - 5));
  const T inf = std::numeric_limits<T>::infinity();
  const T tiny = std::numeric_limits<T>::denorm_min();
  constexpr int64_t kRowsCount = 8, kLength = 3001;
  auto row_value = [&](int64_t row, int64_t i) -> T {
    const T finite = static_cast<T>(std::sin(0.37 * i));
    switch (row) {
      case 0: return T(-0.0);
      case 1: return i % 2 ? T(-0.0) : T(0.0);
      case 2: return i == 1777 ? nan_a : finite;
      case 3: return i == 2999 ? nan_b : finite;
      case 4: return -inf;
      case 5: return i == 5 ? inf : finite;
      case 6: return i % 3 ? -tiny : tiny;
      default: return i == 100 ? nan_a : i == 3000 ? nan_b : finite;
    }
  };
  for (const char* op : {"maximum", "minimum"}) {
    SCOPED_TRACE(absl::StrCat(type, " ", op));
    const bool max = std::string(op) == "maximum";
    std::unique_ptr<HloModule> module =
        ParseHloModule(Instantiate(kPlain, Reduce{"8,3001", "8", "1"}, type,
                                   op, max ? "-inf" : "inf"))
            .value();
    Literal x(ShapeUtil::MakeShape(
        std::is_same_v<T, float> ? F32 : F64, {kRowsCount, kLength}));
    for (int64_t row = 0; row < kRowsCount; ++row) {
      for (int64_t i = 0; i < kLength; ++i) {
        x.data<T>()[row * kLength + i] = row_value(row, i);
      }
    }
    const Literal* arguments[] = {&x};
    ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateModule(*module, arguments));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit, Compile(*module));
    ASSERT_OK_AND_ASSIGN(Literal actual, jit->Run(arguments));
    for (int64_t row = 0; row < kRowsCount; ++row) {
      const Bits got = std::bit_cast<Bits>(actual.data<T>()[row]);
      if (row == 7) {
        EXPECT_TRUE(got == std::bit_cast<Bits>(nan_a) ||
                    got == std::bit_cast<Bits>(nan_b))
            << "row 7 gave " << actual.data<T>()[row];
      } else {
        EXPECT_EQ(got, std::bit_cast<Bits>(expected.data<T>()[row]))
            << "row " << row << ": " << actual.data<T>()[row] << ", expected "
            << expected.data<T>()[row];
      }
    }
  }
}

TEST(JitReductionTest, MaxMinReductionsKeepSignedZerosInfinitiesAndNaNs) {
  ExpectMaxMinOfSpecialRows<float, uint32_t>("f32");
  ExpectMaxMinOfSpecialRows<double, uint64_t>("f64");
}

// A max/min to a scalar is split into chunks; the NaN wins from any chunk,
// and without one the order of ±0 holds across the combine.
TEST(JitReductionTest, SplitMaxMinReductionsKeepNaNAndSignedZeros) {
  const float nan = std::bit_cast<float>(0x7fc01234u);
  for (const char* op : {"maximum", "minimum"}) {
    SCOPED_TRACE(op);
    const bool max = std::string(op) == "maximum";
    std::unique_ptr<HloModule> module =
        ParseHloModule(Instantiate(kPlain, Reduce{"5,70001", "", "0,1"}, "f32",
                                   op, max ? "-inf" : "inf"))
            .value();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit, Compile(*module));
    for (int64_t nan_at : {int64_t{-1}, int64_t{0}, int64_t{123456},
                           int64_t{5 * 70001 - 1}}) {
      Literal x(ShapeUtil::MakeShape(F32, {5, 70001}));
      absl::Span<float> values = x.data<float>();
      for (size_t i = 0; i < values.size(); ++i) {
        values[i] = i % 2 ? -0.0f : 0.0f;
      }
      if (nan_at >= 0) values[nan_at] = nan;
      const Literal* arguments[] = {&x};
      ASSERT_OK_AND_ASSIGN(Literal actual, jit->Run(arguments));
      const uint32_t want = nan_at >= 0 ? 0x7fc01234u
                            : max      ? 0x00000000u
                                       : 0x80000000u;
      EXPECT_EQ(std::bit_cast<uint32_t>(actual.data<float>()[0]), want)
          << "NaN at " << nan_at;
      EXPECT_GT(ScratchBytes(Results{{}, {}, dynamic_cast<const JitExecutable*>(
                                                 jit.get()),
                                     nullptr}),
                0);
    }
  }
}

}  // namespace
}  // namespace mxla
