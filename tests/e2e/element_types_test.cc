// The element types beyond pred/s32/s64/f32/f64 on hand-computed values:
// s8 and s16 wrap, s2..u4 wrap at their own width, u8..u64 divide, compare and convert as unsigned, f16 and
// bf16 compute in f32 and round after every op (reductions step by step,
// dots once). Each module runs on the evaluator and on the JIT; both must
// give exactly the expected bytes.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "ir/narrow_float.h"
#include "ir/small_float.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

template <typename T>
Literal R1(std::initializer_list<T> values) {
  return LiteralUtil::CreateR1<T>(values);
}

template <typename T>
Literal R1Of(std::initializer_list<float> values) {
  std::vector<T> narrow;
  for (float v : values) narrow.push_back(T(v));
  return LiteralUtil::CreateR1<T>(narrow);
}

template <typename T>
Literal R1Bits(std::initializer_list<uint16_t> bits) {
  std::vector<T> narrow;
  for (uint16_t b : bits) narrow.push_back(T::FromBits(b));
  return LiteralUtil::CreateR1<T>(narrow);
}

// Runs `text` on `arguments` with both backends; each must give exactly
// `expected`. Values come in as parameters, so the JIT computes them
// (constants would be folded at compile time by the evaluator's rules).
void ExpectModule(const std::string& text,
                  const std::vector<Literal>& arguments,
                  const Literal& expected) {
  SCOPED_TRACE(text);
  std::vector<const Literal*> pointers;
  for (const Literal& argument : arguments) pointers.push_back(&argument);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  ASSERT_OK(VerifyModule(*module, VerifierMode::kBuilder));
  ASSERT_OK_AND_ASSIGN(Literal evaluated, EvaluateModule(*module, pointers));
  EXPECT_EQ(evaluated, expected) << "evaluator: " << evaluated.ToString()
                                 << "\nexpected:  " << expected.ToString();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit, Compile(*module));
  ASSERT_OK_AND_ASSIGN(Literal compiled, jit->Run(pointers));
  EXPECT_EQ(compiled, expected) << "jit:      " << compiled.ToString()
                                << "\nexpected: " << expected.ToString();
}

// A literal written in HLO text, e.g. ("u8[2]", "{1, 2}"), parsed as a
// constant (so the text's rounding rules apply).
Literal Parse(const std::string& type, const std::string& values) {
  std::string text =
      absl::StrCat("HloModule c\nENTRY main {\n  ROOT c = ", type, " constant(",
                   values, ")\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return Literal();
  return (*module)->entry_computation()->root_instruction()->literal();
}

// `root` applied to parameters a (and b) of the given values.
void Expect(const std::string& type_a, const std::string& a,
            const std::string& type_b, const std::string& b,
            const std::string& root, const Literal& expected) {
  std::string text = absl::StrCat("HloModule m\nENTRY main {\n  a = ", type_a,
                                  " parameter(0)\n");
  std::vector<Literal> arguments;
  arguments.push_back(Parse(type_a, a));
  if (!b.empty()) {
    absl::StrAppend(&text, "  b = ", type_b, " parameter(1)\n");
    arguments.push_back(Parse(type_b, b));
  }
  absl::StrAppend(&text, "  ROOT r = ", expected.shape().ToString(), " ", root,
                  "\n}\n");
  ExpectModule(text, arguments, expected);
}

void Binary(const std::string& type, const std::string& a, const std::string& b,
            const std::string& op, const Literal& expected) {
  Expect(type, a, type, b, absl::StrCat(op, "(a, b)"), expected);
}

void Unary(const std::string& type, const std::string& a, const std::string& op,
           const Literal& expected) {
  Expect(type, a, "", "", absl::StrCat(op, "(a)"), expected);
}

TEST(ElementTypesTest, UnsignedArithmeticWrapsAndDividesAsUnsigned) {
  const std::string a = "{0, 200, 7, 255, 3, 100}";
  const std::string b = "{1, 100, 0, 255, 2, 200}";
  Binary("u8[6]", a, b, "add", R1<uint8_t>({1, 44, 7, 254, 5, 44}));
  Binary("u8[6]", a, b, "subtract", R1<uint8_t>({255, 100, 7, 0, 1, 156}));
  Binary("u8[6]", a, b, "multiply", R1<uint8_t>({0, 32, 0, 1, 6, 32}));
  // x / 0 is all ones, x % 0 is x.
  Binary("u8[6]", a, b, "divide", R1<uint8_t>({0, 2, 255, 1, 1, 0}));
  Binary("u8[6]", a, b, "remainder", R1<uint8_t>({0, 0, 7, 0, 1, 100}));
  Binary("u8[6]", a, b, "maximum", R1<uint8_t>({1, 200, 7, 255, 3, 200}));
  Binary("u8[6]", a, b, "minimum", R1<uint8_t>({0, 100, 0, 255, 2, 100}));
  Expect("u8[6]", a, "u8[6]", b, "compare(a, b), direction=LT",
         R1<bool>({true, false, false, false, false, true}));
  Binary("u8[4]", "{2, 3, 0, 255}", "{7, 5, 0, 2}", "power",
         R1<uint8_t>({128, 243, 1, 1}));
  Unary("u8[6]", a, "negate", R1<uint8_t>({0, 56, 249, 1, 253, 156}));
  Unary("u8[6]", a, "abs", R1<uint8_t>({0, 200, 7, 255, 3, 100}));
  Unary("u8[6]", a, "sign", R1<uint8_t>({0, 1, 1, 1, 1, 1}));
  Unary("u8[6]", a, "not", R1<uint8_t>({255, 55, 248, 0, 252, 155}));
  Binary("u32[2]", "{4294967295, 2147483648}", "{1, 2147483648}", "add",
         R1<uint32_t>({0, 0}));
  Binary("u32[2]", "{4294967295, 3000000000}", "{2, 0}", "divide",
         R1<uint32_t>({2147483647, 4294967295}));
  Expect("u64[2]", "{18446744073709551615, 1}", "u64[2]", "{1, 2}",
         "compare(a, b), direction=GT", R1<bool>({true, false}));
  Binary("u64[2]", "{18446744073709551615, 1}", "{1, 2}", "maximum",
         R1<uint64_t>({std::numeric_limits<uint64_t>::max(), 2}));
}

TEST(ElementTypesTest, NarrowSignedIntegersWrap) {
  const std::string a = "{127, -128, -128, 100, -7}";
  const std::string b = "{1, -1, 1, 2, 2}";
  Binary("s8[5]", a, b, "add", R1<int8_t>({-128, 127, -127, 102, -5}));
  Binary("s8[5]", a, b, "multiply", R1<int8_t>({127, -128, -128, -56, -14}));
  Binary("s8[5]", a, b, "divide", R1<int8_t>({127, -128, -128, 50, -3}));
  Binary("s8[5]", a, b, "remainder", R1<int8_t>({0, 0, 0, 0, -1}));
  Unary("s8[5]", a, "negate", R1<int8_t>({-127, -128, -128, -100, 7}));
  Unary("s8[5]", a, "abs", R1<int8_t>({127, -128, -128, 100, 7}));
  Binary("s16[2]", "{32767, 300}", "{1, 300}", "multiply",
         R1<int16_t>({32767, 24464}));  // 90000 - 65536
}

template <typename T>
Literal SubByte(std::initializer_list<int64_t> values) {
  std::vector<T> narrow;
  for (int64_t v : values) narrow.push_back(T(v));
  return LiteralUtil::CreateR1<T>(narrow);
}

TEST(ElementTypesTest, SubByteIntegersWrapAtTheirOwnWidth) {
  const std::string a = "{7, -8, -8, -1, 5, 1}";
  const std::string b = "{1, -1, 1, 3, 2, 0}";
  Binary("s4[6]", a, b, "add", SubByte<Int4>({-8, 7, -7, 2, 7, 1}));
  Binary("s4[6]", a, b, "multiply", SubByte<Int4>({7, -8, -8, -3, -6, 0}));
  // INT_MIN / -1 is INT_MIN; x / 0 is -1 and x % 0 is x, as for s32.
  Binary("s4[6]", a, b, "divide", SubByte<Int4>({7, -8, -8, 0, 2, -1}));
  Binary("s4[6]", a, b, "remainder", SubByte<Int4>({0, 0, 0, -1, 1, 1}));
  Unary("s4[6]", a, "negate", SubByte<Int4>({-7, -8, -8, 1, -5, -1}));
  Expect("s4[6]", a, "s4[6]", b, "compare(a, b), direction=LT",
         R1<bool>({false, true, true, true, false, false}));
  // The ops that see the bits above the narrow width see none: a logical
  // shift brings in zeros at bit 3, popcnt counts 4 bits, clz from bit 3.
  Binary("s4[6]", a, b, "shift-right-logical",
         SubByte<Int4>({3, 0, 4, 1, 1, 1}));
  Binary("s4[6]", a, b, "shift-right-arithmetic",
         SubByte<Int4>({3, -1, -4, -1, 1, 1}));
  Binary("s4[6]", a, "{1, 4, 3, 7, -1, 0}", "shift-left",
         SubByte<Int4>({-2, 0, 0, 0, 0, 1}));
  Unary("s4[6]", a, "popcnt", SubByte<Int4>({3, 1, 1, 4, 2, 1}));
  Unary("s4[6]", a, "count-leading-zeros", SubByte<Int4>({1, 0, 0, 0, 1, 3}));
  Unary("u4[4]", "{15, 1, 0, 8}", "count-leading-zeros",
        SubByte<UInt4>({0, 3, 4, 0}));
  Binary("u4[4]", "{15, 9, 8, 3}", "{2, 9, 1, 0}", "multiply",
         SubByte<UInt4>({14, 1, 8, 0}));
  Binary("u4[4]", "{15, 9, 8, 3}", "{2, 9, 1, 0}", "subtract",
         SubByte<UInt4>({13, 0, 7, 3}));
  // An arithmetic shift reads an unsigned operand as its two's complement
  // bits, at its own width (XLA's HandleShiftRightArithmetic).
  Binary("u4[4]", "{15, 8, 8, 7}", "{1, 1, 9, 1}", "shift-right-arithmetic",
         SubByte<UInt4>({15, 12, 15, 3}));
  Binary("u2[4]", "{3, 2, 2, 1}", "{1, 1, 3, 1}", "shift-right-arithmetic",
         SubByte<UInt2>({3, 3, 3, 0}));
  Binary("u2[4]", "{3, 2, 1, 0}", "{1, 2, 3, 1}", "add",
         SubByte<UInt2>({0, 0, 0, 1}));
  Binary("s2[4]", "{1, -2, -1, 0}", "{1, -1, -1, -2}", "add",
         SubByte<Int2>({-2, 1, -2, -2}));
  // Into a sub-byte type: floats saturate at its bounds (not at s32's,
  // then wrapped), NaN is 0; integers wrap.
  Unary("f32[6]", "{100, -100, nan, 7.9, -8.5, -0.5}", "convert",
        SubByte<Int4>({7, -8, 0, 7, -8, 0}));
  Unary("f32[3]", "{-1, 20, 3.5}", "convert", SubByte<UInt4>({0, 15, 3}));
  Unary("s32[4]", "{9, -9, 16, 255}", "convert", SubByte<Int4>({-7, 7, 0, -1}));
  Unary("s4[3]", "{-8, -1, 7}", "convert", R1<float>({-8, -1, 7}));
  Unary("u4[2]", "{15, 8}", "convert", R1<int8_t>({15, 8}));
  Unary("s4[3]", "{-8, -1, 7}", "bitcast-convert", SubByte<UInt4>({8, 15, 7}));
  Unary("u2[3]", "{3, 2, 1}", "bitcast-convert", SubByte<Int2>({-1, -2, 1}));
}

// Products of sub-byte integers wrap at their own width too, in dots and
// convolutions (the interpreter computes them 32 bits wide and converts:
// it gave zeros before).
TEST(ElementTypesTest, SubByteDotsAndConvolutionsWrapAtTheirOwnWidth) {
  const std::string dot = R"(HloModule d
ENTRY main {
  a = T[2,2] parameter(0)
  b = T[2,2] parameter(1)
  ROOT d = T[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  auto with_type = [](std::string text, const std::string& type) {
    for (size_t at = text.find("T["); at != std::string::npos;
         at = text.find("T[", at)) {
      text.replace(at, 1, type);
    }
    return text;
  };
  std::vector<Literal> s4;
  s4.push_back(Parse("s4[2,2]", "{{7, 5}, {-3, 2}}"));
  s4.push_back(Parse("s4[2,2]", "{{3, 1}, {2, -8}}"));
  ExpectModule(with_type(dot, "s4"), s4, Parse("s4[2,2]", "{{-1, -1}, {-5, -3}}"));
  std::vector<Literal> u4;
  u4.push_back(Parse("u4[2,2]", "{{15, 9}, {3, 2}}"));
  u4.push_back(Parse("u4[2,2]", "{{3, 1}, {2, 8}}"));
  ExpectModule(with_type(dot, "u4"), u4, Parse("u4[2,2]", "{{15, 7}, {13, 3}}"));
  std::vector<Literal> s2;
  s2.push_back(Parse("s2[2,2]", "{{1, -2}, {-1, 1}}"));
  s2.push_back(Parse("s2[2,2]", "{{1, 1}, {-2, 1}}"));
  ExpectModule(with_type(dot, "s2"), s2, Parse("s2[2,2]", "{{1, -1}, {1, 0}}"));
  std::vector<Literal> conv;
  conv.push_back(Parse("s4[1,3,1]", "{{{7}, {7}, {-8}}}"));
  conv.push_back(Parse("s4[2,1,1]", "{{{3}}, {{1}}}"));
  ExpectModule(R"(HloModule c
ENTRY main {
  x = s4[1,3,1] parameter(0)
  k = s4[2,1,1] parameter(1)
  ROOT c = s4[1,2,1] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f
})",
               conv, Parse("s4[1,2,1]", "{{{-4}, {-3}}}"));
}

TEST(ElementTypesTest, SubByteLiteralsAndBitcastsStayInRange) {
  EXPECT_THAT(ParseHloModule("HloModule c\nENTRY main {\n"
                             "  ROOT c = s4[2] constant({7, 8})\n}\n")
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("value 8 is out of range for s4")));
  EXPECT_THAT(ParseHloModule("HloModule c\nENTRY main {\n"
                             "  ROOT c = u2[1] constant({-1})\n}\n")
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("value -1 is out of range for u2")));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> packed,
                       ParseHloModule(R"(HloModule p
ENTRY main {
  a = s4[4,2] parameter(0)
  ROOT b = s8[4] bitcast-convert(a)
})"));
  EXPECT_THAT(
      VerifyModule(*packed, VerifierMode::kBuilder),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("bitcast-convert between a sub-byte type and a type "
                         "of another width or kind is not supported by mxla: "
                         "s4[4,2] => s8")));
  EXPECT_EQ(Parse("s4[3]", "{-8, 0, 7}").ToString(), "s4[3] {-8, 0, 7}");
}

// Every encoding of each 8-bit float, the midpoints between neighbours
// (ties), values past the largest, infinities, NaN and signed zeros,
// converted from f32 by both backends, byte for byte as
// ir/small_float.h's rounding; then ops on the narrow values, which compute
// in f32 and round back (an fnuz type's ceil(-0.5) is +0, not -0).
TEST(ElementTypesTest, SmallFloatsConvertAndComputeAlikeInBothBackends) {
  const PrimitiveType types[] = {F8E5M2,     F8E4M3,     F8E3M4,
                                 F8E4M3FN,   F8E4M3FNUZ, F8E5M2FNUZ,
                                 F8E4M3B11FNUZ, F4E2M1FN, F8E8M0FNU};
  for (PrimitiveType type : types) {
    const SmallFloatFormat& format = *primitive_util::SmallFloatFormatOf(type);
    std::vector<float> inputs = {0.0f, -0.0f, 1e30f, -1e30f, 1e-30f, -0.5f,
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN()};
    for (uint32_t bits = 0; bits < (1u << format.bits()); ++bits) {
      const float value = small_float_internal::BitsToFloat(format, bits);
      const float next = small_float_internal::BitsToFloat(format, bits + 1);
      inputs.push_back(value);
      if (std::isfinite(value) && std::isfinite(next) &&
          bits + 1 < (1u << format.bits())) {
        inputs.push_back((value + next) / 2);
        inputs.push_back(std::nextafter((value + next) / 2, value));
      }
    }
    const std::string name(primitive_util::LowercaseName(type));
    SCOPED_TRACE(name);
    std::vector<Literal> arguments;
    arguments.push_back(LiteralUtil::CreateR1<float>(inputs));
    Literal expected(ShapeUtil::MakeShape(type, {static_cast<int64_t>(inputs.size())}));
    for (size_t i = 0; i < inputs.size(); ++i) {
      static_cast<uint8_t*>(expected.untyped_data())[i] =
          small_float_internal::FloatToBits(format, inputs[i]);
    }
    ExpectModule(absl::StrCat("HloModule m\nENTRY main {\n  a = f32[",
                              inputs.size(), "] parameter(0)\n  ROOT r = ",
                              expected.shape().ToString(), " convert(a)\n}\n"),
                 arguments, expected);
    // The ops: both backends alike (the evaluator's bytes are the truth).
    const std::string shape = expected.shape().ToString();
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY main {\n  a = ", shape, " parameter(0)\n",
        "  r = ", shape, " reverse(a), dimensions={0}\n",
        "  s = ", shape, " add(a, r)\n  p = ", shape, " multiply(s, a)\n",
        "  c = ", shape, " ceil(p)\n  n = ", shape, " negate(c)\n",
        "  d = ", shape, " divide(a, n)\n",
        "  ROOT t = (", shape, ", ", shape, ") tuple(n, d)\n}\n");
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
    std::vector<const Literal*> pointers = {&expected};
    ASSERT_OK_AND_ASSIGN(Literal evaluated, EvaluateModule(*module, pointers));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit, Compile(*module));
    ASSERT_OK_AND_ASSIGN(Literal compiled, jit->Run(pointers));
    EXPECT_EQ(compiled, evaluated);
  }
}

TEST(ElementTypesTest, ConvertSaturatesSignExtendsAndRoundsOnce) {
  auto convert = [](const std::string& type, const std::string& values,
                    const Literal& expected) {
    Unary(type, values, "convert", expected);
  };
  // Float -> unsigned saturates at 0 and the maximum; NaN is 0.
  convert("f32[6]", "{-1, 300, nan, 255.9, 0.5, -0}",
          R1<uint8_t>({0, 255, 0, 255, 0, 0}));
  convert("f32[3]", "{1.8e19, 2e19, -5}",
          R1<uint64_t>({18000000404716257280u,
                        std::numeric_limits<uint64_t>::max(), 0}));
  // Integer -> integer: sign- or zero-extended by the source, then wrapped.
  convert("s8[3]", "{-1, 127, -128}", R1<uint16_t>({65535, 127, 65408}));
  convert("u8[3]", "{200, 127, 128}", R1<int8_t>({-56, 127, -128}));
  convert("u32[2]", "{4294967295, 16777217}",
          R1<float>({4294967296.0f, 16777216.0f}));
  convert("u64[1]", "{18446744073709551615}",
          R1<double>({18446744073709551616.0}));
  // Into bf16 to nearest even: ties (1 + 2^-8, 1 + 3 * 2^-8), overflow of
  // the largest f32, NaN, -0 and an f32 subnormal.
  convert("f32[6]", "{1.00390625, 1.01171875, 3.4028235e38, -0, 1e-40, 1.5}",
          R1Bits<BFloat16>({0x3f80, 0x3f82, 0x7f80, 0x8000, 0x0001, 0x3fc0}));
  // Into f16: the largest finite, the tie past it (infinity), subnormals
  // and their ties (2^-25 -> 0, 3 * 2^-25 -> 2 * 2^-24).
  convert(
      "f32[7]",
      "{65519, 65520, 1e-8, 6e-8, 2.98023224e-8, 8.94069672e-8, -2.5}",
      R1Bits<Half>({0x7bff, 0x7c00, 0x0000, 0x0001, 0x0000, 0x0002, 0xc100}));
  // s32 -> bf16 goes through f32: 257 is a tie in bf16 and rounds to 256.
  convert("s32[2]", "{257, -259}", R1Of<BFloat16>({256, -260}));
  // Out of f16/bf16 into integers: widened exactly, then the f32 rule.
  convert("bf16[3]", "{3.5, -1e10, nan}",
          R1<int32_t>({3, std::numeric_limits<int32_t>::min(), 0}));
  convert("f16[2]", "{300, -3}", R1<uint8_t>({255, 0}));
  convert("f16[2]", "{65504, -0.000061035156}",
          R1<double>({65504.0, -0.000061035156250}));
}

TEST(ElementTypesTest, NarrowFloatsRoundAfterEveryOp) {
  Binary("bf16[3]", "{1, 256, 1}", "{0.00390625, 1, 0.0078125}", "add",
         R1Of<BFloat16>({1, 256, 1.0078125f}));
  Binary("f16[3]", "{65504, 2048, 0.00006103515625}", "{16, 1, 0.5}", "add",
         R1Bits<Half>({0x7c00, 0x6800, 0x3800}));
  Binary("f16[1]", "{0.00006103515625}", "{0.5}", "multiply",
         R1Bits<Half>({0x0200}));
  Binary("bf16[2]", "{1, -2}", "{3, 0}", "divide",
         R1Bits<BFloat16>({0x3eab, 0xff80}));
  Unary("bf16[2]", "{1, -inf}", "exponential", R1Bits<BFloat16>({0x402e, 0}));
  Unary("f16[2]", "{2, -0}", "sqrt", R1Bits<Half>({0x3da8, 0x8000}));
  Expect("bf16[2]", "{1, nan}", "bf16[2]", "{1.0078125, 1}",
         "compare(a, b), direction=LT", R1<bool>({true, false}));
}

TEST(ElementTypesTest, NarrowFloatReductionsRoundEachStepAndDotsOnce) {
  // 2048 + 1 is a tie in f16 that rounds back to 2048, at every step; a
  // bf16 dot accumulates in f32, so 256 + 1 + 1 is 258 (representable).
  std::vector<Literal> sums;
  sums.push_back(Parse("f16[2,5]", "{{2048, 1, 1, 1, 1}, {1, 1, 1, 1, 2048}}"));
  ExpectModule(R"(HloModule m
add_f16 {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  ROOT s = f16[] add(x, y)
}
ENTRY main {
  a = f16[2,5] parameter(0)
  zero = f16[] constant(0)
  ROOT r = f16[2] reduce(a, zero), dimensions={1}, to_apply=add_f16
})",
               sums, R1Of<Half>({2048, 2052}));
  std::vector<Literal> dot;
  dot.push_back(Parse("bf16[1,3]", "{{256, 1, 1}}"));
  dot.push_back(Parse("bf16[3]", "{1, 1, 1}"));
  ExpectModule(R"(HloModule m
ENTRY main {
  a = bf16[1,3] parameter(0)
  b = bf16[3] parameter(1)
  ROOT r = bf16[1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
               dot, R1Of<BFloat16>({258}));
}

}  // namespace
}  // namespace mxla
