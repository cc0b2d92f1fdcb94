// HLO text that several tests share, defined once: scalar reducers for
// `to_apply=` and whole modules (bias + relu, softmax, layer norm,
// logsumexp).
//
// Names are part of the contract, since tests look instructions and
// computations up by name: a reducer is the computation `<op>_<type>`
// ("add_f32", "max_s32") whose instructions are `<op>_<type>.lhs`, `.rhs`
// and `.root`, so any set of distinct reducers can share one module. The
// modules' entry instructions keep the names listed with each one.
#ifndef MXLA_TESTS_TESTLIB_HLO_FIXTURES_H_
#define MXLA_TESTS_TESTLIB_HLO_FIXTURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "builder/xla_builder.h"

namespace mxla::fixtures {

// The builder-form bias + relu: `relu = max(x + v, 0)` with x f32[2,3],
// v f32[3] added along dimension 1 (an implicit broadcast) and a scalar 0:
// entry `main` with x, v, sum, zero, relu.
inline constexpr char kBiasRelu[] = R"(HloModule bias_relu
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  sum = f32[2,3] add(x, v), broadcast_dimensions={1}
  zero = f32[] constant(0)
  ROOT relu = f32[2,3] maximum(sum, zero)
}
)";

// `<name>_<type> { lhs, rhs: <type>[]; ROOT <opcode>(lhs, rhs) }`.
std::string ScalarReducer(absl::string_view name, absl::string_view opcode,
                          absl::string_view type);
inline std::string AddReducer(absl::string_view type = "f32") {
  return ScalarReducer("add", "add", type);
}
inline std::string MaxReducer(absl::string_view type = "f32") {
  return ScalarReducer("max", "maximum", type);
}
// MaxReducer() + AddReducer(), in that order: what softmax-like modules use.
std::string MaxAndAddReducers(absl::string_view type = "f32");

// "HloModule <name>" followed by the f32 max and add reducers: a header for
// tests whose entry computation reduces with to_apply=max_f32 / add_f32.
std::string ModuleWithReducers(absl::string_view name);

// A module whose entry applies one op to parameters p0, p1, ... of
// `operand_shapes`: `ROOT n = <result_shape> <op>(p0, ...), <attributes>`
// (no attributes when empty).
std::string OneOpModule(absl::string_view op,
                        const std::vector<std::string>& operand_shapes,
                        absl::string_view result_shape,
                        absl::string_view attributes);

// Softmax over the last dimension of f32[rows,cols], in lowered HLO:
// x, ninf, m (row max), mb, sub, e (exp), zero, s (row sum), sb, ROOT out.
std::string Softmax(int64_t rows, int64_t cols);

// Layer norm of x = f32[rows,cols] with gamma, beta = f32[cols] (parameters
// 0, 1, 2), eps 1e-5: sum, mean, centered, sq, sqsum, var, scale, normed,
// ROOT out.
std::string LayerNorm(int64_t rows, int64_t cols);

// log(sum(exp(x - max))) + max over the two trailing dimensions of
// f32[2,3,4,5]: one value per [2,3] row; m, e, s, ROOT lse.
std::string LogSumExpOverTwoTrailingDimensions();

// The softmax above as the builder records it (implicit broadcasts on {0}),
// for tests that start from an XlaComputation.
absl::StatusOr<XlaComputation> BuildSoftmax(int64_t rows, int64_t cols);

}  // namespace mxla::fixtures

#endif  // MXLA_TESTS_TESTLIB_HLO_FIXTURES_H_
