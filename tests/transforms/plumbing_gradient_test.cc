// The rules of the ops that carry a value or a computation (call, fusion,
// opt-barrier, copy-start/copy-done, an identity custom-call) and of rng's
// parameters against central finite differences in f64, the JIT against
// the interpreter; bitcast-convert's zero cotangent (JAX's choice) by
// hand; and the refusals (asynchronous pairs, a call of a tuple, a
// foreign custom-call) checked by message.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/parsed_computation.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using testing::ExpectGradientMatchesDifferences;
using testing::F64Shape;
using ::testing::HasSubstr;
using testing::OneRandom;
using testing::Parsed;
using testing::RandomArgs;
using testing::RandomLiteral;
using testing::Scalarized;
using testing::SumAll;

// (w, x) -> (sin(w x), w + x), with a call of its own inside.
XlaComputation Callee() {
  XlaBuilder inner("inner");
  const XlaOp v = Parameter(&inner, 0, F64Shape({3}), "v");
  Exp(v * 0.5);
  const XlaComputation exp_half = *inner.Build();
  XlaBuilder b("callee");
  const XlaOp w = Parameter(&b, 0, F64Shape({2, 3}), "w");
  const XlaOp x = Parameter(&b, 1, F64Shape({3}), "x");
  const XlaOp wx = Dot(w, Call(&b, exp_half, {x}));
  Tuple(&b, {Sin(wx), w + BroadcastInDim(x, {2, 3}, {1})});
  return *b.Build();
}

TEST(PlumbingGradientTest, CallIsItsComputationInlined) {
  const XlaComputation callee = Callee();
  XlaComputation f =
      Scalarized("call", {F64Shape({2, 3}), F64Shape({3})},
                 [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
                   const XlaOp t = Call(&b, callee, {p[0], p[1]});
                   return SumAll(Cos(GetTupleElement(t, 0))) +
                          SumAll(GetTupleElement(t, 1) * GetTupleElement(t, 1));
                 });
  ExpectGradientMatchesDifferences(
      f, RandomArgs({F64Shape({2, 3}), F64Shape({3})}, 9500), {0, 1});
}

TEST(PlumbingGradientTest, FusionIsItsFusedComputationInlined) {
  XlaComputation f = Parsed(R"(HloModule fused
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
fused { x = f64[4] parameter(0)
        y = f64[4] parameter(1)
        m = f64[4] multiply(x, y)
        ROOT s = f64[4] sine(m) }
ENTRY e {
  x = f64[4] parameter(0)
  y = f64[4] parameter(1)
  f = f64[4] fusion(x, y), kind=kLoop, calls=fused
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(f, zero), dimensions={0}, to_apply=add
})");
  ExpectGradientMatchesDifferences(
      f, RandomArgs({F64Shape({4}), F64Shape({4})}, 9600), {0, 1});
}

TEST(PlumbingGradientTest, OptBarrierAndCopyStartDonePassTheCotangent) {
  XlaComputation f = Parsed(R"(HloModule plumbing
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
ENTRY e {
  x = f64[2,3] parameter(0)
  y = f64[2,3] parameter(1)
  n = s32[] constant(3)
  t = (f64[2,3], f64[2,3], s32[]) tuple(x, y, n)
  b = (f64[2,3], f64[2,3], s32[]) opt-barrier(t)
  bx = f64[2,3] get-tuple-element(b), index=0
  by = f64[2,3] get-tuple-element(b), index=1
  cs = (f64[2,3], f64[2,3], u32[]) copy-start(bx)
  kept = f64[2,3] get-tuple-element(cs), index=0
  cd = f64[2,3] copy-done(cs)
  s = f64[2,3] sine(cd)
  m = f64[2,3] multiply(s, by)
  k = f64[2,3] multiply(kept, kept)
  sum = f64[2,3] add(m, k)
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(sum, zero), dimensions={0,1}, to_apply=add
})");
  ExpectGradientMatchesDifferences(
      f, RandomArgs({F64Shape({2, 3}), F64Shape({2, 3})}, 9700), {0, 1});
}

TEST(PlumbingGradientTest, AnIdentityCustomCallPassesTheCotangent) {
  XlaComputation f = Scalarized(
      "sharded", {F64Shape({3, 2})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        return Sin(CustomCall(&b, "Sharding", {p[0] * p[0]}, F64Shape({3, 2})));
      });
  ExpectGradientMatchesDifferences(f, OneRandom(F64Shape({3, 2}), 9800), {0});
}

// Its numbers are fixed by its name, so f is arithmetic of (a, b) or
// (mu, sigma) on one draw, which the differences see.
TEST(PlumbingGradientTest, RngParametersGetTheArithmeticsCotangent) {
  for (bool normal : {false, true}) {
    SCOPED_TRACE(normal ? "normal" : "uniform");
    XlaComputation f =
        Scalarized("rng", {F64Shape({}), F64Shape({})},
                   [&](XlaBuilder&, const std::vector<XlaOp>& p) {
                     const Shape shape = F64Shape({3, 4});
                     return Sin(normal ? RngNormal(p[0], p[1], shape)
                                       : RngUniform(p[0], p[1], shape));
                   });
    std::vector<Literal> args;
    args.push_back(LiteralUtil::CreateR0<double>(-0.4));
    args.push_back(LiteralUtil::CreateR0<double>(normal ? 0.7 : 1.3));
    ExpectGradientMatchesDifferences(f, std::move(args), {0, 1});
  }
}

// JAX's defjvp_zero: the round trip through s64 is x again, but the bits
// carry no cotangent, so only the direct term counts (d/dx of x * x).
TEST(PlumbingGradientTest, BitcastConvertCarriesNoCotangent) {
  XlaComputation f = Scalarized(
      "bits", {F64Shape({3})}, [](XlaBuilder&, const std::vector<XlaOp>& p) {
        const XlaOp round_trip =
            BitcastConvertType(BitcastConvertType(p[0], S64), F64);
        return p[0] * round_trip + p[0];
      });
  absl::StatusOr<Literal> gradient =
      testing::GradientAt(f, OneRandom(F64Shape({3}), 9900));
  ASSERT_TRUE(gradient.ok()) << gradient.status();
  const Literal x = RandomLiteral(F64Shape({3}), 9900);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(gradient->data<double>()[i], x.data<double>()[i] + 1);
  }
}

// A foreign target never reaches the rule: the verifier that runs as the
// function is lowered refuses it first, naming the target (the rule's own
// refusal guards modules built around the verifier).
TEST(PlumbingGradientTest, AForeignCustomCallIsRefusedByName) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule foreign
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
ENTRY e {
  x = f64[4] parameter(0)
  k = f64[4] custom-call(x), custom_call_target="my_kernel"
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(k, zero), dimensions={0}, to_apply=add
})");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_THAT(
      std::string(
          Gradient(XlaComputation(*std::move(module)), {0}).status().message()),
      HasSubstr("instruction 'k' (custom-call): custom-call: "
                "custom_call_target \"my_kernel\" is not supported by mxla"));
}

// EmitVjp takes arrays: a tuple operand of a call is refused by name
// rather than left without its cotangent.
TEST(PlumbingGradientTest, ACallOfATupleIsRefusedByName) {
  XlaComputation f = Parsed(R"(HloModule tuple_call
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
first { t = (f64[2], f64[2]) parameter(0)
        ROOT x = f64[2] get-tuple-element(t), index=0 }
ENTRY e {
  x = f64[2] parameter(0)
  t = (f64[2], f64[2]) tuple(x, x)
  c = f64[2] call(t), to_apply=first
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(c, zero), dimensions={0}, to_apply=add
})");
  EXPECT_THAT(Gradient(f, {0}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("gradient: no rule for 'call' with a tuple "
                                 "operand (0, (f64[2], f64[2])) yet "
                                 "(instruction 'c'")));
}

TEST(PlumbingGradientTest, AnAsynchronousPairIsRefusedByName) {
  XlaComputation f = Parsed(R"(HloModule async
add { a = f64[] parameter(0)
      b = f64[] parameter(1)
      ROOT s = f64[] add(a, b) }
wrapped { p = f64[4] parameter(0)
          ROOT n = f64[4] negate(p) }
ENTRY e {
  x = f64[4] parameter(0)
  s = ((f64[4]), f64[4], s32[]) async-start(x), calls=wrapped
  d = f64[4] async-done(s), calls=wrapped
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(d, zero), dimensions={0}, to_apply=add
})");
  EXPECT_THAT(
      Gradient(f, {0}).status(),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("gradient: no rule for 'async-done' (an "
                         "asynchronous pair is a schedule of its wrapped "
                         "computation")));
  EXPECT_THAT(
      Gradient(f, {0}).status(),
      StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("instruction 'd'")));
}

}  // namespace
}  // namespace mxla
