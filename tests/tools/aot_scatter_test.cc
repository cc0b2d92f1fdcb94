// Ahead-of-time compilation of scatter and select-and-scatter
// (tests/testlib/aot_harness.h): the driver's loops call the compiled
// combiner, select and scatter computations; the C program's results match
// the interpreter's with duplicate, out-of-bounds (negative and past the
// end) and batched indices, windows that do not fit, several operands,
// index types, combiners whose order matters, and select-and-scatter
// windows that overlap and reach into padding.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/literal.h"
#include "tests/testlib/aot_harness.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::ExpectMatchesInterpreter;
using ::mxla::testing::SeededArguments;

constexpr char kCombiners[] = R"(
addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
halve_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  h = f32[] multiply(a, f32[] constant(0.5))
  ROOT s = f32[] add(h, b)
}
assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
minmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  m = f32[] minimum(a, b)
  n = s32[] maximum(ai, bi)
  ROOT t = (f32[], s32[]) tuple(m, n)
}
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
)";

// `body` as the entry of a module with the combiners, compared on seeded
// arguments (signed indices fall in [-8, 8]: in range, and out of range
// both ways), with `overrides` replacing the leading ones.
void Check(const std::string& name, const std::string& body,
           std::vector<Literal> overrides = {}) {
  const std::string hlo = absl::StrCat("HloModule ", name, "\n", kCombiners,
                                       "ENTRY e {\n  ", body, "\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_OK(module.status()) << hlo;
  std::vector<Literal> arguments =
      SeededArguments(*(*module)->entry_computation(), 3);
  for (size_t i = 0; i < overrides.size(); ++i) {
    arguments[i] = std::move(overrides[i]);
  }
  ExpectMatchesInterpreter(name, hlo, arguments);
}

TEST(AotScatterTest, DuplicateAndOutOfBoundsIndicesInOrder) {
  // Updates to one element apply in update order: halve_add is not
  // commutative in its updates, so (x/2 + u0)/2 + u1 != (x/2 + u1)/2 + u0.
  std::vector<Literal> overrides;
  overrides.push_back(LiteralUtil::CreateR1<float>({1, 2, 3, 4, 5, 6, 7, 8}));
  overrides.push_back(LiteralUtil::CreateR2<int32_t>(
      {{3}, {0}, {3}, {-1}, {8}, {7}, {3}, {100}}));
  Check("duplicates",
        "x = f32[8] parameter(0)\n  i = s32[8,1] parameter(1)\n  u = f32[8] "
        "parameter(2)\n  ROOT s = f32[8] scatter(x, i, u), "
        "update_window_dims={}, inserted_window_dims={0}, "
        "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
        "to_apply=halve_add",
        std::move(overrides));
}

TEST(AotScatterTest, WindowsBatchesOperandsAndIndexTypes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // 2-d windows at 2-d start indices, some not fitting (skipped).
      {"windows",
       "x = f32[6,5] parameter(0)\n  i = s32[4,2] parameter(1)\n  u = "
       "f32[4,2,3] parameter(2)\n  ROOT s = f32[6,5] scatter(x, i, u), "
       "update_window_dims={1,2}, inserted_window_dims={}, "
       "scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, "
       "to_apply=addf"},
      // Assignment with s64 indices, the index vector dimension first: the
      // last update to an element wins.
      {"assign_s64",
       "x = f32[7] parameter(0)\n  i = s64[1,5] parameter(1)\n  u = f32[5] "
       "parameter(2)\n  ROOT s = f32[7] scatter(x, i, u), "
       "update_window_dims={}, inserted_window_dims={0}, "
       "scatter_dims_to_operand_dims={0}, index_vector_dim=0, "
       "to_apply=assign"},
      // Two operands, u8 indices (an implicit index vector dimension).
      {"variadic_u8",
       "x = f32[4,3] parameter(0)\n  y = s32[4,3] parameter(1)\n  i = "
       "u8[3] parameter(2)\n  u = f32[3,3] parameter(3)\n  v = s32[3,3] "
       "parameter(4)\n  ROOT s = (f32[4,3], s32[4,3]) scatter(x, y, i, u, "
       "v), update_window_dims={1}, inserted_window_dims={0}, "
       "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
       "to_apply=minmax"},
      // Batching dimensions: batch b scatters into row b of x.
      {"batched",
       "x = f32[3,5] parameter(0)\n  i = s32[3,2,1] parameter(1)\n  u = "
       "f32[3,2] parameter(2)\n  ROOT s = f32[3,5] scatter(x, i, u), "
       "update_window_dims={}, inserted_window_dims={1}, "
       "scatter_dims_to_operand_dims={1}, input_batching_dims={0}, "
       "scatter_indices_batching_dims={0}, index_vector_dim=2, "
       "to_apply=addf"},
      // No updates.
      {"empty",
       "x = f32[4] parameter(0)\n  i = s32[0,1] parameter(1)\n  u = f32[0] "
       "parameter(2)\n  ROOT s = f32[4] scatter(x, i, u), "
       "update_window_dims={}, inserted_window_dims={0}, "
       "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
       "to_apply=addf"},
  };
  for (const auto& [name, body] : cases) {
    SCOPED_TRACE(name);
    Check(name, body);
  }
}

TEST(AotScatterTest, SelectAndScatterWithOverlapAndPadding) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // Max pooling's gradient: disjoint 2x2 windows.
      {"pool",
       "x = f32[6,6] parameter(0)\n  src = f32[3,3] parameter(1)\n  z = "
       "f32[] constant(0)\n  ROOT r = f32[6,6] select-and-scatter(x, src, "
       "z), window={size=2x2 stride=2x2}, select=ge, scatter=addf"},
      // Overlapping 3x3 windows at stride 1 reaching into padding; the
      // scatter's order matters (halve_add).
      {"overlap",
       "x = f32[5,6] parameter(0)\n  src = f32[5,6] parameter(1)\n  z = "
       "f32[] parameter(2)\n  ROOT r = f32[5,6] select-and-scatter(x, src, "
       "z), window={size=3x3 pad=1_1x1_1}, select=ge, scatter=halve_add"},
      // Stride 2 over padding at one end only, 1-d.
      {"stride",
       "x = f32[9] parameter(0)\n  src = f32[5] parameter(1)\n  z = f32[] "
       "constant(1)\n  ROOT r = f32[9] select-and-scatter(x, src, z), "
       "window={size=3 stride=2 pad=1_1}, select=ge, scatter=addf"},
  };
  for (const auto& [name, body] : cases) {
    SCOPED_TRACE(name);
    Check(name, body);
  }
}

}  // namespace
}  // namespace mxla
