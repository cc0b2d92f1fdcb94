#include "tests/testlib/hlo_fixtures.h"

#include <charconv>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "builder/arithmetic.h"

namespace mxla::fixtures {
namespace {

// The shortest text that parses back to the f32 nearest 1/n.
std::string Reciprocal(int64_t n) {
  char text[32];
  const float value = 1.0f / static_cast<float>(n);
  return std::string(text, std::to_chars(text, text + sizeof(text), value).ptr);
}

}  // namespace

std::string ScalarReducer(absl::string_view name, absl::string_view opcode,
                          absl::string_view type) {
  return absl::StrReplaceAll(
      R"(
$N {
  $N.lhs = $T[] parameter(0)
  $N.rhs = $T[] parameter(1)
  ROOT $N.root = $T[] $OP($N.lhs, $N.rhs)
}
)",
      {{"$N", absl::StrCat(name, "_", type)}, {"$T", type}, {"$OP", opcode}});
}

std::string MaxAndAddReducers(absl::string_view type) {
  return MaxReducer(type) + AddReducer(type);
}

std::string ModuleWithReducers(absl::string_view name) {
  return absl::StrCat("HloModule ", name, "\n", MaxAndAddReducers());
}

std::string OneOpModule(absl::string_view op,
                        const std::vector<std::string>& operand_shapes,
                        absl::string_view result_shape,
                        absl::string_view attributes) {
  std::string text = "HloModule t\nENTRY main {\n";
  std::vector<std::string> operands;
  for (size_t i = 0; i < operand_shapes.size(); ++i) {
    operands.push_back(absl::StrCat("p", i));
    absl::StrAppend(&text, "  p", i, " = ", operand_shapes[i], " parameter(",
                    i, ")\n");
  }
  absl::StrAppend(&text, "  ROOT n = ", result_shape, " ", op, "(",
                  absl::StrJoin(operands, ", "), ")",
                  attributes.empty() ? "" : ", ", attributes, "\n}\n");
  return text;
}

std::string Softmax(int64_t rows, int64_t cols) {
  return ModuleWithReducers("softmax") +
         absl::StrReplaceAll(
             R"(
ENTRY main {
  x = f32[$R,$C] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[$R] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[$R,$C] broadcast(m), dimensions={0}
  sub = f32[$R,$C] subtract(x, mb)
  e = f32[$R,$C] exponential(sub)
  zero = f32[] constant(0)
  s = f32[$R] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[$R,$C] broadcast(s), dimensions={0}
  ROOT out = f32[$R,$C] divide(e, sb)
})",
             {{"$R", absl::StrCat(rows)}, {"$C", absl::StrCat(cols)}});
}

std::string LayerNorm(int64_t rows, int64_t cols) {
  return ModuleWithReducers("layer_norm") +
         absl::StrReplaceAll(R"(
ENTRY main {
  x = f32[$R,$C] parameter(0)
  gamma = f32[$C] parameter(1)
  beta = f32[$C] parameter(2)
  zero = f32[] constant(0)
  inv_n = f32[] constant($INV)
  inv_nb = f32[$R] broadcast(inv_n), dimensions={}
  sum = f32[$R] reduce(x, zero), dimensions={1}, to_apply=add_f32
  mean = f32[$R] multiply(sum, inv_nb)
  meanb = f32[$R,$C] broadcast(mean), dimensions={0}
  centered = f32[$R,$C] subtract(x, meanb)
  sq = f32[$R,$C] multiply(centered, centered)
  sqsum = f32[$R] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  var = f32[$R] multiply(sqsum, inv_nb)
  eps = f32[] constant(1e-5)
  epsb = f32[$R] broadcast(eps), dimensions={}
  var_eps = f32[$R] add(var, epsb)
  scale = f32[$R] rsqrt(var_eps)
  scaleb = f32[$R,$C] broadcast(scale), dimensions={0}
  normed = f32[$R,$C] multiply(centered, scaleb)
  gb = f32[$R,$C] broadcast(gamma), dimensions={1}
  bb = f32[$R,$C] broadcast(beta), dimensions={1}
  scaled = f32[$R,$C] multiply(normed, gb)
  ROOT out = f32[$R,$C] add(scaled, bb)
})",
                             {{"$R", absl::StrCat(rows)},
                              {"$C", absl::StrCat(cols)},
                              {"$INV", Reciprocal(cols)}});
}

std::string LogSumExpOverTwoTrailingDimensions() {
  return ModuleWithReducers("logsumexp") + R"(
ENTRY main {
  x = f32[2,3,4,5] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[2,3] reduce(x, ninf), dimensions={2,3}, to_apply=max_f32
  mb = f32[2,3,4,5] broadcast(m), dimensions={0,1}
  d = f32[2,3,4,5] subtract(x, mb)
  e = f32[2,3,4,5] exponential(d)
  zero = f32[] constant(0)
  s = f32[2,3] reduce(e, zero), dimensions={2,3}, to_apply=add_f32
  l = f32[2,3] log(s)
  ROOT lse = f32[2,3] add(l, m)
})";
}

absl::StatusOr<XlaComputation> BuildSoftmax(int64_t rows, int64_t cols) {
  XlaBuilder b("softmax");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {rows, cols}), "x");
  // One statement per builder call: the order of function arguments is
  // unspecified, and it would decide the instruction names.
  XlaOp ninf = ConstantR0<float>(&b, -INFINITY);
  XlaComputation max = CreateScalarMaxComputation(F32, &b);
  XlaOp m = Reduce(x, ninf, max, {1});
  XlaOp e = Exp(Sub(x, m, {0}));
  XlaOp zero = ConstantR0<float>(&b, 0.0f);
  XlaComputation add = CreateScalarAddComputation(F32, &b);
  XlaOp s = Reduce(e, zero, add, {1});
  Div(e, s, {0});
  return b.Build();
}

}  // namespace mxla::fixtures
