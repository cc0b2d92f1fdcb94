// The verifier in builder and lowered mode, on modules written as HLO text.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

absl::Status Verify(const std::string& text, VerifierMode mode) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return VerifyModule(**module, mode);
}

constexpr char kImplicit[] = R"(
HloModule bias_relu

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  sum = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}
  zero = f32[] constant(0)
  ROOT relu = f32[2,3]{1,0} maximum(sum, zero)
}
)";

constexpr char kLowered[] = R"(
HloModule bias_relu

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  v.b = f32[2,3]{1,0} broadcast(v), dimensions={1}
  sum = f32[2,3]{1,0} add(x, v.b)
  zero = f32[] constant(0)
  zero.b = f32[2,3]{1,0} broadcast(zero), dimensions={}
  ROOT relu = f32[2,3]{1,0} maximum(sum, zero.b)
}
)";

TEST(HloVerifierTest, BuilderModeAcceptsImplicitBroadcasts) {
  EXPECT_OK(Verify(kImplicit, VerifierMode::kBuilder));
  EXPECT_OK(Verify(kLowered, VerifierMode::kBuilder));
}

TEST(HloVerifierTest, LoweredModeRejectsImplicitBroadcasts) {
  EXPECT_OK(Verify(kLowered, VerifierMode::kLowered));
  EXPECT_THAT(Verify(kImplicit, VerifierMode::kLowered),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("instruction 'sum' (add)"),
                             HasSubstr("broadcast_dimensions"))));
  // A scalar operand without broadcast_dimensions is implicit too.
  EXPECT_THAT(Verify(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  zero = f32[] constant(0)
  ROOT relu = f32[2,3] maximum(x, zero)
})",
                     VerifierMode::kLowered),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Implicit broadcast is not allowed in HLO")));
}

// An error names where the bad instruction came from when its metadata says.
TEST(HloVerifierTest, ErrorsNameTheInstructionsSourceLine) {
  EXPECT_THAT(Verify(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  ROOT sum = f32[2,3] add(x, v), metadata={op_name="Add" source_file="model.cc" source_line=42}
})",
                     VerifierMode::kLowered),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("instruction 'sum' (add), made by Add at "
                                 "model.cc:42: ")));
}

TEST(HloVerifierTest, DeclaredShapeMustMatchInference) {
  EXPECT_THAT(Verify(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  ROOT sum = f32[3,2] add(x, v), broadcast_dimensions={1}
})",
                     VerifierMode::kBuilder),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("declared shape f32[3,2] differs from the "
                                 "inferred shape f32[2,3]")));
  EXPECT_THAT(Verify(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  ROOT sum = f32[2,3] add(x, v), broadcast_dimensions={0}
})",
                     VerifierMode::kBuilder),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Broadcast dimension 0 mismatch: 3 != 2")));
}

TEST(HloVerifierTest, BroadcastMustNotStretchInEitherMode) {
  const char* stretch = R"(
HloModule m
ENTRY main {
  x = f32[2,1] parameter(0)
  ROOT b = f32[2,3] broadcast(x), dimensions={0,1}
})";
  EXPECT_FALSE(Verify(stretch, VerifierMode::kBuilder).ok());
  EXPECT_FALSE(Verify(stretch, VerifierMode::kLowered).ok());
  // Unsorted dimensions are legal HLO (a transposing broadcast).
  EXPECT_OK(Verify(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT b = f32[3,2] broadcast(x), dimensions={1,0}
})",
                   VerifierMode::kLowered));
}

TEST(HloVerifierTest, SelectScalarsOnlyInBuilderMode) {
  const char* select = R"(
HloModule m
ENTRY main {
  p = pred[] parameter(0)
  x = f32[2] parameter(1)
  zero = f32[] constant(0)
  ROOT s = f32[2] select(p, x, zero)
})";
  EXPECT_OK(Verify(select, VerifierMode::kBuilder));
  EXPECT_FALSE(Verify(select, VerifierMode::kLowered).ok());
}

TEST(HloVerifierTest, ReduceAndFusionSignatures) {
  EXPECT_OK(Verify(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  p = f32[2,3] parameter(0)
  ROOT n = f32[2,3] negate(p)
}
ENTRY main {
  x = f32[2,3] parameter(0)
  f = f32[2,3] fusion(x), kind=kLoop, calls=fused
  zero = f32[] constant(0)
  ROOT r = f32[2] reduce(f, zero), dimensions={1}, to_apply=add
})",
                   VerifierMode::kLowered));
  EXPECT_THAT(Verify(R"(
HloModule m
fused {
  p = f32[2,3] parameter(0)
  ROOT n = f32[2,3] negate(p)
}
ENTRY main {
  x = f32[3,2] parameter(0)
  ROOT f = f32[2,3] fusion(x), kind=kLoop, calls=fused
})",
                     VerifierMode::kLowered),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("fusion operand 0 has shape f32[3,2]")));
}

TEST(HloVerifierTest, ConvertAndConstantShapes) {
  EXPECT_OK(Verify(R"(
HloModule m
ENTRY main {
  x = f32[2] constant({1, 2})
  ROOT c = s32[2] convert(x)
})",
                   VerifierMode::kLowered));
  EXPECT_FALSE(Verify(R"(
HloModule m
ENTRY main {
  x = f32[2] constant({1, 2})
  ROOT c = s32[3] convert(x)
})",
                      VerifierMode::kLowered)
                   .ok());
}

}  // namespace
}  // namespace mxla
