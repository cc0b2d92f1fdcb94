// rng-bit-generator (semantics/bit_generators.h): the published known-answer
// vectors of ThreeFry-2x32-20 and Philox-4x32-10 (Random123), the numbers
// XLA:CPU's expansion gives for a state, how each algorithm lays its words
// over the result and advances its state (128-bit carry included), narrow
// and 64-bit results, both state shapes of Philox, scalars and empty
// results, a generator threaded through a loop, the shape rule's errors and
// the builder; the JIT's expansion (expand-rng-bit-generators) against the
// interpreter everywhere.
#include <cstdint>
#include <string>
#include <vector>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/shape_util.h"
#include "semantics/bit_generators.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

namespace bits = semantics::bit_generators;
using ::mxla::testing::EvaluateAndCompare;
using ::mxla::testing::RunAndCompare;
using ::mxla::testing::StatusIs;
using ::mxla::testing::VerifyHloText;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

TEST(RngBitGeneratorTest, KnownAnswerVectors) {
  EXPECT_THAT(bits::ThreeFry2x32({0, 0}, {0, 0}),
              ElementsAre(0x6b200159u, 0x99ba4efeu));
  EXPECT_THAT(bits::ThreeFry2x32({0xffffffff, 0xffffffff},
                                 {0xffffffff, 0xffffffff}),
              ElementsAre(0x1cb996fcu, 0xbb002be7u));
  EXPECT_THAT(bits::ThreeFry2x32({0x243f6a88, 0x85a308d3},
                                 {0x13198a2e, 0x03707344}),
              ElementsAre(0xc4923a9cu, 0x483df7a0u));
  EXPECT_THAT(bits::Philox4x32({0, 0, 0, 0}, {0, 0}),
              ElementsAre(0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u));
  EXPECT_THAT(bits::Philox4x32({0xffffffff, 0xffffffff, 0xffffffff,
                                0xffffffff},
                               {0xffffffff, 0xffffffff}),
              ElementsAre(0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu));
  EXPECT_THAT(bits::Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e,
                                0x03707344},
                               {0xa4093822, 0x299f31d0}),
              ElementsAre(0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u));
}

// ROOT r = (state, bits) rng-bit-generator(s) of a constant state.
std::string Module(const std::string& state, const std::string& state_shape,
                   const std::string& bits, const std::string& algorithm) {
  return "HloModule m\nENTRY e {\n  s = " + state_shape + " constant(" +
         state + ")\n  ROOT r = (" + state_shape + ", " + bits +
         ") rng-bit-generator(s), algorithm=" + algorithm + "\n}\n";
}

template <typename T>
std::vector<T> Values(const Literal& literal) {
  absl::Span<const T> data = literal.data<T>();
  return std::vector<T>(data.begin(), data.end());
}

// XLA's ThreeFry pairs neighbours along the first even dimension: counter
// j gives elements 2j and 2j + 1 of each row of u32[3,2]. The first row
// is the known answer for key 0, counter 0; the state advances by the
// three counters.
TEST(RngBitGeneratorTest, ThreeFryPairsWordsAlongTheSplitDimension) {
  const Literal result = EvaluateAndCompare(
      Module("{0, 0}", "u64[2]", "u32[3,2]", "rng_three_fry"));
  EXPECT_THAT(Values<uint64_t>(result.tuple_element(0)), ElementsAre(0, 3));
  std::vector<uint32_t> expected;
  for (uint64_t j = 0; j < 3; ++j) {
    const bits::Words2 w = bits::ThreeFry2x32(bits::Split(j), {0, 0});
    expected.insert(expected.end(), {w[0], w[1]});
  }
  EXPECT_THAT(Values<uint32_t>(result.tuple_element(1)),
              ElementsAreArray(expected));
  EXPECT_EQ(expected[0], 0x6b200159u);

  // No even dimension: the first largest (1 here) pairs up, rounded up.
  const Literal odd = EvaluateAndCompare(
      Module("{7, 100}", "u64[2]", "u32[3,5]", "rng_three_fry"));
  EXPECT_THAT(Values<uint64_t>(odd.tuple_element(0)), ElementsAre(7, 109));
  const std::vector<uint32_t> values = Values<uint32_t>(odd.tuple_element(1));
  for (uint64_t row = 0; row < 3; ++row) {
    for (uint64_t column = 0; column < 5; ++column) {
      const bits::Words2 w = bits::ThreeFry2x32(
          bits::Split(100 + row * 3 + column / 2), bits::Split(7));
      EXPECT_EQ(values[row * 5 + column], w[column % 2])
          << row << ", " << column;
    }
  }
}

TEST(RngBitGeneratorTest, ThreeFryWideNarrowAndScalarResults) {
  const std::string state = "{42, 1000}";
  const Literal wide = EvaluateAndCompare(
      Module(state, "u64[2]", "u64[3]", "rng_three_fry"));
  EXPECT_THAT(Values<uint64_t>(wide.tuple_element(0)), ElementsAre(42, 1003));
  const Literal words = EvaluateAndCompare(
      Module(state, "u64[2]", "u32[6]", "rng_three_fry"));
  const std::vector<uint32_t> w = Values<uint32_t>(words.tuple_element(1));
  // Counter c + e's two words, low first, make 64-bit element e.
  EXPECT_THAT(Values<uint64_t>(wide.tuple_element(1)),
              ElementsAre(bits::Join(w[0], w[1]), bits::Join(w[2], w[3]),
                          bits::Join(w[4], w[5])));
  // Narrow results keep the low bits of the 32-bit words.
  const Literal bytes = EvaluateAndCompare(
      Module(state, "u64[2]", "u8[6]", "rng_three_fry"));
  const Literal nibbles = EvaluateAndCompare(
      Module(state, "u64[2]", "u4[6]", "rng_three_fry"));
  const std::vector<uint8_t> b = Values<uint8_t>(bytes.tuple_element(1));
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(b[i], w[i] & 0xff);
    EXPECT_EQ(static_cast<uint32_t>(
                  nibbles.tuple_element(1).data<UInt4>()[i].value()),
              w[i] & 0xf);
  }
  // A scalar takes the first word of the state's counter.
  const Literal scalar = EvaluateAndCompare(
      Module(state, "u64[2]", "u16[]", "rng_three_fry"));
  EXPECT_THAT(Values<uint64_t>(scalar.tuple_element(0)), ElementsAre(42, 1001));
  EXPECT_EQ(scalar.tuple_element(1).data<uint16_t>()[0], w[0] & 0xffff);
}

// Philox: four words per counter, in turn; a u64[3] state is (key, low,
// high); the counter carries into its high half.
TEST(RngBitGeneratorTest, PhiloxTakesFourWordsPerCounterWithCarry) {
  const Literal zero = EvaluateAndCompare(
      Module("{0, 0, 0}", "u64[3]", "u32[5]", "rng_philox"));
  EXPECT_THAT(Values<uint64_t>(zero.tuple_element(0)), ElementsAre(0, 2, 0));
  EXPECT_THAT(Values<uint32_t>(zero.tuple_element(1)),
              ElementsAre(0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u,
                          bits::Philox4x32({1, 0, 0, 0}, {0, 0})[0]));

  const Literal carried = EvaluateAndCompare(Module(
      "{9, 18446744073709551615, 5}", "u64[3]", "u32[2,4]", "rng_philox"));
  EXPECT_THAT(Values<uint64_t>(carried.tuple_element(0)),
              ElementsAre(9, 1, 6));
  const Literal after = EvaluateAndCompare(
      Module("{9, 0, 6}", "u64[3]", "u32[4]", "rng_philox"));
  const std::vector<uint32_t> c = Values<uint32_t>(carried.tuple_element(1));
  EXPECT_THAT(std::vector<uint32_t>(c.begin() + 4, c.end()),
              ElementsAreArray(Values<uint32_t>(after.tuple_element(1))));

  // 64-bit results take the words in pairs, two per counter.
  const Literal wide = EvaluateAndCompare(
      Module("{0, 0, 0}", "u64[3]", "u64[3]", "rng_philox"));
  EXPECT_THAT(Values<uint64_t>(wide.tuple_element(0)), ElementsAre(0, 2, 0));
  const bits::Words4 second = bits::Philox4x32({1, 0, 0, 0}, {0, 0});
  EXPECT_THAT(Values<uint64_t>(wide.tuple_element(1)),
              ElementsAre(bits::Join(0x6627e8d5u, 0xe169c58du),
                          bits::Join(0xbc57ac4cu, 0x9b00dbd8u),
                          bits::Join(second[0], second[1])));
}

// A u64[2] state is (key, low) with the key as the counter's high half
// (XLA reverses the pair); rng_default is Philox, as on XLA:CPU.
TEST(RngBitGeneratorTest, PhiloxShortStateAndDefaultAlgorithm) {
  const Literal short_state = EvaluateAndCompare(
      Module("{3, 10}", "u64[2]", "u32[7]", "rng_philox"));
  const Literal long_state = EvaluateAndCompare(
      Module("{3, 10, 3}", "u64[3]", "u32[7]", "rng_philox"));
  const Literal by_default = EvaluateAndCompare(
      Module("{3, 10}", "u64[2]", "u32[7]", "rng_default"));
  EXPECT_THAT(Values<uint64_t>(short_state.tuple_element(0)),
              ElementsAre(3, 12));
  EXPECT_EQ(short_state.tuple_element(1), long_state.tuple_element(1));
  EXPECT_EQ(short_state, by_default);
}

// Every algorithm, result type and shape (scalars, odd and even
// dimensions, empty results) from a state passed in: the JIT against the
// interpreter, bit for bit.
TEST(RngBitGeneratorTest, JitMatchesTheInterpreterOnEveryLayout) {
  const std::vector<std::string> shapes = {"[]",      "[1]",     "[0]",
                                           "[7]",     "[2,0,3]", "[5,3]",
                                           "[3,4,5]", "[1,9,1]", "[33]"};
  int checked = 0;
  for (const char* algorithm : {"rng_three_fry", "rng_philox"}) {
    for (const char* state : {"u64[2]", "u64[3]"}) {
      if (std::string(algorithm) == "rng_three_fry" &&
          std::string(state) == "u64[3]") {
        continue;
      }
      for (const char* type : {"u8", "u16", "u32", "u64", "u2"}) {
        for (const std::string& dims : shapes) {
          const std::string text =
              std::string("HloModule m\nENTRY e {\n  s = ") + state +
              " parameter(0)\n  ROOT r = (" + state + ", " + type + dims +
              ") rng-bit-generator(s), algorithm=" + algorithm + "\n}\n";
          const Literal seed = std::string(state) == "u64[2]"
                                   ? LiteralUtil::CreateR1<uint64_t>(
                                         {0x123456789abcdefu, ~uint64_t{3}})
                                   : LiteralUtil::CreateR1<uint64_t>(
                                         {5, ~uint64_t{1}, 77});
          EXPECT_TRUE(RunAndCompare(text, {&seed})) << text;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 3 * 5 * 9);
}

// The state threads through a loop: each iteration draws new bits.
TEST(RngBitGeneratorTest, StateThreadsThroughALoop) {
  const char* text = R"(HloModule m
body {
  p = (u64[2], u32[4], s32[]) parameter(0)
  state = u64[2] get-tuple-element(p), index=0
  sum = u32[4] get-tuple-element(p), index=1
  i = s32[] get-tuple-element(p), index=2
  drawn = (u64[2], u32[4]) rng-bit-generator(state), algorithm=rng_three_fry
  next = u64[2] get-tuple-element(drawn), index=0
  words = u32[4] get-tuple-element(drawn), index=1
  mixed = u32[4] xor(sum, words)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (u64[2], u32[4], s32[]) tuple(next, mixed, j)
}
cond {
  p = (u64[2], u32[4], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=2
  n = s32[] constant(3)
  ROOT more = pred[] compare(i, n), direction=LT
}
ENTRY e {
  s = u64[2] constant({1, 2})
  z = u32[4] constant({0, 0, 0, 0})
  zero = s32[] constant(0)
  init = (u64[2], u32[4], s32[]) tuple(s, z, zero)
  ROOT loop = (u64[2], u32[4], s32[]) while(init), condition=cond, body=body
}
)";
  const Literal result = EvaluateAndCompare(text);
  EXPECT_THAT(Values<uint64_t>(result.tuple_element(0)), ElementsAre(1, 8));
  std::vector<uint32_t> expected(4, 0);
  for (uint64_t counter = 2; counter < 8; ++counter) {
    const bits::Words2 w = bits::ThreeFry2x32(bits::Split(counter), {1, 0});
    const uint64_t pair = (counter - 2) % 2;
    expected[2 * pair] ^= w[0];
    expected[2 * pair + 1] ^= w[1];
  }
  EXPECT_THAT(Values<uint32_t>(result.tuple_element(1)),
              ElementsAreArray(expected));
}

TEST(RngBitGeneratorTest, ShapeRuleErrors) {
  auto error = [](const std::string& state_shape, const std::string& result,
                  const std::string& algorithm) {
    return VerifyHloText("HloModule m\nENTRY e {\n  s = " + state_shape +
                         " parameter(0)\n  ROOT r = " + result +
                         " rng-bit-generator(s), algorithm=" + algorithm +
                         "\n}\n");
  };
  EXPECT_THAT(error("s64[2]", "(s64[2], u32[3])", "rng_philox"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng-bit-generator: the state must be "
                                 "u64[n]; got s64[2]")));
  EXPECT_THAT(error("u64[3]", "(u64[3], u32[3])", "rng_three_fry"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng-bit-generator: rng_three_fry keeps its "
                                 "state in u64[2] (key, counter); got "
                                 "u64[3]")));
  EXPECT_THAT(error("u64[6]", "(u64[6], u8[])", "rng_default"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng-bit-generator: rng_default keeps its "
                                 "state in u64[2] or u64[3] (key, 128-bit "
                                 "counter); got u64[6]")));
  EXPECT_THAT(error("u64[2]", "u32[3]", "rng_philox"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng-bit-generator: the result is a tuple "
                                 "(new state, bits) of two arrays; got "
                                 "u32[3]")));
  EXPECT_THAT(error("u64[2]", "(u64[3], u32[3])", "rng_philox"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng-bit-generator: the new state u64[3] "
                                 "must have the shape of the state u64[2]")));
  EXPECT_THAT(error("u64[2]", "(u64[2], f32[3])", "rng_philox"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("rng-bit-generator: XLA's bit generators "
                                 "make unsigned integers (u2, u4, u8, u16, "
                                 "u32 or u64); got f32[3]")));
  EXPECT_THAT(error("u64[2]", "(u64[2], u32[3])", "rng_mersenne"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown algorithm 'rng_mersenne' (expected "
                                 "rng_default, rng_three_fry or "
                                 "rng_philox)")));
  EXPECT_THAT(VerifyHloText("HloModule m\nENTRY e {\n  s = u64[2] "
                            "parameter(0)\n  ROOT r = (u64[2], u32[3]) "
                            "rng-bit-generator(s)\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("missing attribute 'algorithm' for "
                                 "rng-bit-generator")));
}

TEST(RngBitGeneratorTest, BuilderFunction) {
  XlaBuilder builder("bits");
  XlaOp state = Parameter(&builder, 0, ShapeUtil::MakeShape(U64, {2}), "s");
  RngBitGenerator(RandomAlgorithm::kThreeFry, state,
                  ShapeUtil::MakeShape(U32, {3, 2}));
  absl::StatusOr<XlaComputation> computation = builder.Build();
  ASSERT_OK(computation.status());
  const std::string text = computation->module().ToString();
  EXPECT_THAT(text, HasSubstr("(u64[2]{0}, u32[3,2]{1,0}) "
                              "rng-bit-generator(s), "
                              "algorithm=rng_three_fry"));
  EXPECT_EQ(ParseHloModule(text).value()->ToString(), text);

  XlaBuilder bad("bits");
  XlaOp short_state = Parameter(&bad, 0, ShapeUtil::MakeShape(U64, {1}), "s");
  RngBitGenerator(RandomAlgorithm::kPhilox, short_state,
                  ShapeUtil::MakeShape(U32, {3}));
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("RngBitGenerator(u64[1], rng_philox, "
                                 "shape=u32[3])")));
}

}  // namespace
}  // namespace mxla
