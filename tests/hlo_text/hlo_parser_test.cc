// The HLO text parser: round trips of the documented modules, every opcode,
// element type and literal form, XLA dump compatibility, and a table of
// malformed inputs that must fail cleanly with line:column messages.
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/op_spec.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_lexer.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::IsOk;
using ::mxla::testing::StatusIs;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// xla-semantics.md §c.2, module 1.
constexpr char kMatrixPlusVector[] =
    R"(HloModule matrix_plus_vector, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->f32[2,3]{1,0}}

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  v.b = f32[2,3]{1,0} broadcast(v), dimensions={1}
  ROOT sum = f32[2,3]{1,0} add(x, v.b)
}
)";

// §c.2, module 2: shapes without layouts.
constexpr char kDegenerateAndScalar[] = R"(HloModule degenerate_and_scalar

ENTRY main {
  a = f32[2,3] parameter(0)
  col = f32[2,1] parameter(1)
  col.r = f32[2] reshape(col)
  col.b = f32[2,3] broadcast(col.r), dimensions={0}
  two = f32[] constant(2)
  two.b = f32[2,3] broadcast(two), dimensions={}
  prod = f32[2,3] multiply(a, two.b)
  ROOT out = f32[2,3] subtract(prod, col.b)
}
)";

// §c.2, module 3.
constexpr char kReduceCompareSelectConvert[] =
    R"(HloModule reduce_compare_select_convert

max_f32 {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT m = f32[] maximum(lhs, rhs)
}

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  neg_inf = f32[] constant(-inf)
  rowmax = f32[2]{0} reduce(x, neg_inf), dimensions={1}, to_apply=max_f32
  rowmax.b = f32[2,3]{1,0} broadcast(rowmax), dimensions={0}
  is_max = pred[2,3]{1,0} compare(x, rowmax.b), direction=EQ
  one = f32[] constant(1)
  zero = f32[] constant(0)
  one.b = f32[2,3]{1,0} broadcast(one), dimensions={}
  zero.b = f32[2,3]{1,0} broadcast(zero), dimensions={}
  mask = f32[2,3]{1,0} select(is_max, one.b, zero.b)
  ROOT mask.s32 = s32[2,3]{1,0} convert(mask)
}
)";

// §c.2, module 4.
constexpr char kLoopFusion[] = R"(HloModule loop_fusion_iota_constant

fused_bias_scale {
  p0 = f32[2,3]{1,0} parameter(0)
  p1 = f32[3]{0} parameter(1)
  b = f32[2,3]{1,0} broadcast(p1), dimensions={1}
  s = f32[2,3]{1,0} add(p0, b)
  io = s32[2,3]{1,0} iota(), iota_dimension=0
  iof = f32[2,3]{1,0} convert(io)
  ROOT r = f32[2,3]{1,0} multiply(s, iof)
}

ENTRY main {
  c = f32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  bias = f32[3]{0} parameter(0)
  f = f32[2,3]{1,0} fusion(c, bias), kind=kLoop, calls=fused_bias_scale
  n = f32[2,3]{1,0} negate(f)
  ROOT t = (f32[2,3]{1,0}, f32[2,3]{1,0}) tuple(f, n)
}
)";

// docs/design.md "Text format": the builder's implicit broadcast.
constexpr char kBiasRelu[] = R"(HloModule bias_relu

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  sum = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}
  zero = f32[] constant(0)
  ROOT relu = f32[2,3]{1,0} maximum(sum, zero)
}
)";

// Every opcode of the op table (ir/hlo_ops.def) (checked by AllOpcodesParse).
constexpr char kAllOpcodes[] = R"(HloModule all_opcodes

add_f32 {
  ra = f32[] parameter(0)
  rb = f32[] parameter(1)
  ROOT s = f32[] add(ra, rb)
}

callee_scalar {
  sp = f32[] parameter(0)
  ROOT sn = f32[] negate(sp)
}

less_f32 {
  la = f32[] parameter(0)
  lb = f32[] parameter(1)
  ROOT lt = pred[] compare(la, lb), direction=LT
}

scan_step {
  se = f32[] parameter(0)
  sc = f32[] parameter(1)
  ss = f32[] add(se, sc)
  ROOT st = (f32[], f32[]) tuple(ss, ss)
}

fused {
  fp = f32[2]{0} parameter(0)
  ROOT fn = f32[2]{0} negate(fp)
}

callee {
  cp = f32[2]{0} parameter(0)
  ROOT cn = f32[2]{0} negate(cp)
}

never {
  wp = f32[2]{0} parameter(0)
  ROOT wf = pred[] constant(false)
}

ENTRY main {
  x = f32[2]{0} parameter(0)
  y = f32[2]{0} parameter(1)
  i = s32[2]{0} parameter(2)
  p = pred[2]{0} parameter(3)
  c = f32[] constant(0)
  io = s32[2]{0} iota(), iota_dimension=0
  add = f32[2]{0} add(x, y)
  sub = f32[2]{0} subtract(add, y)
  mul = f32[2]{0} multiply(sub, y)
  div = f32[2]{0} divide(mul, y)
  rem = f32[2]{0} remainder(div, y)
  max = f32[2]{0} maximum(rem, y)
  min = f32[2]{0} minimum(max, y)
  pow = f32[2]{0} power(min, y)
  and = pred[2]{0} and(p, p)
  or = pred[2]{0} or(and, p)
  xor = pred[2]{0} xor(or, p)
  not = pred[2]{0} not(xor)
  cmp = pred[2]{0} compare(pow, x), direction=LT
  neg = f32[2]{0} negate(pow)
  abs = f32[2]{0} abs(neg)
  exp = f32[2]{0} exponential(abs)
  log = f32[2]{0} log(exp)
  sqrt = f32[2]{0} sqrt(log)
  rsqrt = f32[2]{0} rsqrt(sqrt)
  tanh = f32[2]{0} tanh(rsqrt)
  logistic = f32[2]{0} logistic(tanh)
  floor = f32[2]{0} floor(logistic)
  ceil = f32[2]{0} ceil(floor)
  sign = f32[2]{0} sign(ceil)
  copy = f32[2]{0} copy(sign)
  sin = f32[2]{0} sine(copy)
  cos = f32[2]{0} cosine(sin)
  tan = f32[2]{0} tan(cos)
  expm1 = f32[2]{0} exponential-minus-one(tan)
  log1p = f32[2]{0} log-plus-one(expm1)
  cbrt = f32[2]{0} cbrt(log1p)
  erf = f32[2]{0} erf(cbrt)
  asin = f32[2]{0} asin(erf)
  acos = f32[2]{0} acos(asin)
  sinh = f32[2]{0} sinh(acos)
  cosh = f32[2]{0} cosh(sinh)
  asinh = f32[2]{0} asinh(cosh)
  acosh = f32[2]{0} acosh(asinh)
  atan = f32[2]{0} atan(acosh)
  afz = f32[2]{0} round-nearest-afz(atan)
  even = f32[2]{0} round-nearest-even(afz)
  atan2 = f32[2]{0} atan2(even, y)
  looped = f32[2]{0} while(atan2), condition=never, body=callee
  called = f32[2]{0} call(looped), to_apply=callee
  sliced = f32[2]{0} slice(called), slice={[0:2]}
  cat = f32[4]{0} concatenate(sliced, x), dimensions={0}
  bc = f32[2,2]{1,0} bitcast(cat)
  rows = f32[1,2]{1,0} slice(bc), slice={[1:2], [0:2]}
  one = s32[] constant(1)
  dyn = f32[1,2]{1,0} dynamic-slice(bc, one, one), dynamic_slice_sizes={1,2}
  upd = f32[2,2]{1,0} dynamic-update-slice(bc, dyn, one, one)
  shard = f32[1,2]{1,0} custom-call(dyn), custom_call_target="Sharding"
  zero = f32[] constant(0)
  padded = f32[2,4]{1,0} pad(shard, zero), padding=0_1x0_0_1
  sliced2 = f32[1,2]{1,0} slice(padded), slice={[0:1], [0:4:2]}
  row = f32[2]{0} reshape(sliced2)
  p0 = pred[] constant(true)
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  shl = s32[2]{0} shift-left(i, io)
  sra = s32[2]{0} shift-right-arithmetic(shl, io)
  srl = s32[2]{0} shift-right-logical(sra, io)
  pop = s32[2]{0} popcnt(srl)
  clz = s32[2]{0} count-leading-zeros(pop)
  fin = pred[2]{0} is-finite(x)
  clamp = f32[2]{0} clamp(c, x, y)
  rp = f32[2]{0} reduce-precision(clamp), exponent_bits=5, mantissa_bits=10
  bits = s32[2]{0} bitcast-convert(rp)
  rev = f32[2]{0} reverse(rp), dimensions={0}
  size = s32[] get-dimension-size(rev), dimensions={0}
  fence = (f32[2]{0}, s32[]) tuple(rev, size)
  barrier = (f32[2]{0}, s32[]) opt-barrier(fence)
  bounded = (f32[2]{0}, s32[]) domain(barrier)
  fresh = token[] after-all()
  joined = token[] after-all(fresh, fresh)
  ordered = f32[2]{0} add-dependency(rev, joined)
  sent = (f32[2]{0}, u32[], token[]) send(ordered, joined)
  sent_done = token[] send-done(sent)
  received = (f32[2]{0}, u32[], token[]) recv(joined), is_host_transfer=true
  received_done = (f32[2]{0}, token[]) recv-done(received), is_host_transfer=true
  fed = ((f32[2]{0}), token[]) infeed(joined)
  out_fed = token[] outfeed(ordered, joined)
  scanned = (f32[2]{0}, f32[]) scan(x, c), dimensions={0}, num_carries=1, is_reverse=true, to_apply=scan_step
  top = (f32[1]{0}, s32[1]{0}) topk(x), k=1, largest=false
  random = f32[2,3]{1,0} rng(c, c), distribution=rng_normal
  seed = u64[2]{0} constant({1, 2})
  random_bits = (u64[2]{0}, u32[3]{0}) rng-bit-generator(seed), algorithm=rng_three_fry
  noise = u32[2]{0} bitcast-convert(x)
  rounded = s32[2]{0} stochastic-convert(x, noise)
  trained = (f32[2]{0}, f32[2]{0}, f32[2]{0}) batch-norm-training(x, y, y), epsilon=0.001, feature_index=0
  inferred = f32[2]{0} batch-norm-inference(x, y, y, y, y), epsilon=1e-05, feature_index=0
  graded = (f32[2]{0}, f32[2]{0}, f32[2]{0}) batch-norm-grad(x, y, y, y, x), epsilon=0.5, feature_index=0
  x_by_2 = f32[2,2]{1,0} broadcast(x), dimensions={0}
  groups_of_2 = f32[2,2,2]{2,1,0} broadcast(x), dimensions={0}
  grouped = f32[2,2]{1,0} ragged-dot(x_by_2, groups_of_2, i), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  scaled = f32[2,2]{1,0} scaled-dot(x_by_2, x_by_2, c, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  factor = f32[2,2]{1,0} cholesky(x_by_2), lower=true
  solved = f32[2,2]{1,0} triangular-solve(factor, x_by_2), left_side=true, lower=true, unit_diagonal=true, transpose_a=ADJOINT
  cond = f32[2]{0} conditional(p0, called, x), true_computation=callee, false_computation=callee
  branch = f32[2]{0} conditional(one, called, x, y), branch_computations={callee, callee, callee}
  ar = f32[2]{0} all-reduce(x), replica_groups={}, to_apply=add_f32
  ars = f32[2]{0} all-reduce-start(ar), replica_groups={{0}}, to_apply=add_f32
  ard = f32[2]{0} all-reduce-done(ars)
  ag = f32[2]{0} all-gather(ard), dimensions={0}, replica_groups={}
  ags = (f32[2]{0}, f32[2]{0}) all-gather-start(ag), dimensions={0}, replica_groups={}
  agd = f32[2]{0} all-gather-done(ags)
  rs = f32[2]{0} reduce-scatter(agd), dimensions={0}, replica_groups={}, to_apply=add_f32
  a2a = f32[2]{0} all-to-all(rs), dimensions={0}, replica_groups={}
  ra2a = f32[2]{0} ragged-all-to-all(a2a, a2a, i, i, i, i), replica_groups={}
  cb = f32[2]{0} collective-broadcast(ra2a), replica_groups={{0}}
  perm = f32[2]{0} collective-permute(cb), source_target_pairs={{0,0}}
  cps = (f32[2]{0}, f32[2]{0}) collective-permute-start(perm), source_target_pairs={{0,0}}
  cpd = f32[2]{0} collective-permute-done(cps)
  sorted = f32[2]{0} sort(cpd), dimensions={0}, to_apply=less_f32
  as = ((f32[2]{0}), f32[2]{0}) async-start(sorted), calls=callee
  au = ((f32[2]{0}), f32[2]{0}) async-update(as)
  ad = f32[2]{0} async-done(au)
  cs = ((f32[2]{0}), f32[2]{0}, s32[]) call-start(ad), to_apply=callee
  cd = f32[2]{0} call-done(cs)
  ks = (f32[2]{0}, f32[2]{0}, u32[]) copy-start(cd)
  kd = f32[2]{0} copy-done(ks)
  mapped = f32[2]{0} map(kd), dimensions={0}, to_apply=callee_scalar
  gidx = s32[1,1]{1,0} constant({ {1} })
  gathered = f32[1,2]{1,0} gather(bc, gidx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
  conv = f32[1,2]{1,0} convolution(gathered, bc), dim_labels=bf_io->bf
  pooled = f32[1,1]{1,0} reduce-window(conv, c), window={size=1x2}, to_apply=add_f32
  selected = f32[2,2]{1,0} select-and-scatter(bc, bc, c), window={size=1x1}, select=less_f32, scatter=add_f32
  scattered = f32[2,2]{1,0} scatter(bc, gidx, gathered), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
  dot = f32[2]{0} dot(bc, row), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  cvt = f32[2]{0} convert(io)
  sel = f32[2]{0} select(cmp, dot, cvt)
  b = f32[2,2]{1,0} broadcast(sel), dimensions={1}
  r = f32[4]{0} reshape(b)
  t = f32[2,2]{1,0} transpose(b), dimensions={1,0}
  red = f32[2]{0} reduce(t, c), dimensions={1}, to_apply=add_f32
  f = f32[2]{0} fusion(red), kind=kLoop, calls=fused
  tup = (f32[2]{0}, f32[4]{0}, pred[2]{0}, s32[2]{0}) tuple(f, r, not, i)
  ROOT g = f32[2]{0} get-tuple-element(tup), index=0
}
)";

// Parses, prints, parses the print and prints again; returns the first
// print after checking the two agree.
std::string RoundTrip(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> first = ParseHloModule(text);
  EXPECT_THAT(first, IsOk()) << text;
  if (!first.ok()) return "";
  std::string printed = (*first)->ToString();
  absl::StatusOr<std::unique_ptr<HloModule>> second = ParseHloModule(printed);
  EXPECT_THAT(second, IsOk()) << printed;
  if (!second.ok()) return "";
  EXPECT_EQ((*second)->ToString(), printed);
  return printed;
}

std::unique_ptr<HloModule> MustParse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_THAT(module, IsOk()) << text;
  return module.ok() ? *std::move(module) : nullptr;
}

HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->name() == name) return instruction;
    }
  }
  return nullptr;
}

// A module whose entry holds `body` (lines 4 onward).
std::string EntryModule(absl::string_view body) {
  return absl::StrCat("HloModule m\n\nENTRY main {\n", body, "}\n");
}

TEST(HloParserTest, DocumentedModulesRoundTrip) {
  for (const char* text :
       {kMatrixPlusVector, kDegenerateAndScalar, kReduceCompareSelectConvert,
        kLoopFusion, kBiasRelu, kAllOpcodes}) {
    RoundTrip(text);
  }
  // Modules written in the canonical form print back unchanged.
  EXPECT_EQ(RoundTrip(kReduceCompareSelectConvert),
            kReduceCompareSelectConvert);
  // The printer puts no spaces inside innermost braces.
  std::string loop_fusion = kLoopFusion;
  loop_fusion.replace(loop_fusion.find("{ { 1, 2, 3 }, { 4, 5, 6 } }"), 28,
                      "{ {1, 2, 3}, {4, 5, 6} }");
  EXPECT_EQ(RoundTrip(kLoopFusion), loop_fusion);
  EXPECT_EQ(RoundTrip(kBiasRelu), kBiasRelu);
  EXPECT_EQ(RoundTrip(kAllOpcodes), kAllOpcodes);
}

TEST(HloParserTest, ModuleStructure) {
  std::unique_ptr<HloModule> module = MustParse(kReduceCompareSelectConvert);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "reduce_compare_select_convert");
  EXPECT_EQ(module->entry_computation()->name(), "main");
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(),
            "mask.s32");
  HloInstruction* rowmax = Find(*module, "rowmax");
  ASSERT_NE(rowmax, nullptr);
  EXPECT_EQ(rowmax->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(rowmax->dimensions(), std::vector<int64_t>{1});
  EXPECT_EQ(rowmax->to_apply()->name(), "max_f32");
  EXPECT_EQ(Find(*module, "is_max")->comparison_direction(),
            ComparisonDirection::kEq);
  EXPECT_TRUE(std::isinf(Find(*module, "neg_inf")->literal().data<float>()[0]));
}

TEST(HloParserTest, MissingLayoutsGetTheDefault) {
  std::string printed = RoundTrip(kDegenerateAndScalar);
  EXPECT_THAT(printed, HasSubstr("a = f32[2,3]{1,0} parameter(0)"));
  EXPECT_THAT(printed, HasSubstr("two = f32[] constant(2)"));
  EXPECT_THAT(printed, HasSubstr("col.r = f32[2]{0} reshape(col)"));
}

TEST(HloParserTest, BroadcastDimensionsExtension) {
  std::unique_ptr<HloModule> module = MustParse(kBiasRelu);
  ASSERT_NE(module, nullptr);
  const HloInstruction* sum = Find(*module, "sum");
  ASSERT_TRUE(sum->broadcast_dimensions().has_value());
  EXPECT_EQ(*sum->broadcast_dimensions(), std::vector<int64_t>{1});
  EXPECT_FALSE(Find(*module, "relu")->broadcast_dimensions().has_value());
  RoundTrip(
      EntryModule("  x = f32[2,3] parameter(0)\n  v = f32[3] parameter(1)\n"
                  "  ROOT c = pred[2,3] compare(x, v), direction=GE, "
                  "broadcast_dimensions={1}\n"));
}

TEST(HloParserTest, AllOpcodesParse) {
  std::unique_ptr<HloModule> module = MustParse(kAllOpcodes);
  ASSERT_NE(module, nullptr);
  absl::flat_hash_set<HloOpcode> seen;
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      seen.insert(instruction->opcode());
    }
  }
  for (const OpSpec& spec : AllOpSpecs()) {
    EXPECT_TRUE(seen.contains(spec.opcode)) << spec.text;
  }
}

// An XLA dump: % names, signatures, operand shape prefixes, comments,
// metadata and attributes mxla ignores.
TEST(HloParserTest, XlaDumpSyntax) {
  constexpr char kDump[] =
      R"(HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->(f32[2,3]{1,0})}, frontend_attributes={fingerprint="abc"}

%add.clone (x.1: f32[], y.1: f32[]) -> f32[] {
  %x.1 = f32[] parameter(0)
  %y.1 = f32[] parameter(1)
  ROOT %add.2 = f32[] add(f32[] %x.1, f32[] %y.1), metadata={op_type="add" op_name="jit(f)/add" source_file="/tmp/f.py" source_line=12}
}

ENTRY %main.5 (Arg_0.1: f32[2,3], Arg_1.2: f32[3]) -> (f32[2,3]) {
  %Arg_0.1 = f32[2,3]{1,0} parameter(0), sharding={replicated}
  %Arg_1.2 = f32[3]{0} parameter(1), sharding={devices=[2,1]0,1}
  %broadcast.3 = f32[2,3]{1,0} broadcast(f32[3]{0} %Arg_1.2), dimensions={1}, backend_config="{\"x\": 1}"
  %add.4 = f32[2,3]{1,0} add(f32[2,3]{1,0} %Arg_0.1, f32[2,3]{1,0} %broadcast.3), frontend_attributes={_xla_a="b"}
  ROOT %tuple.5 = (f32[2,3]{1,0}) tuple(/*index=0*/f32[2,3]{1,0} %add.4)
}
)";
  std::unique_ptr<HloModule> module = MustParse(kDump);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "main.5");
  const HloInstruction* add = Find(*module, "add.2");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->metadata().op_name, "jit(f)/add");
  EXPECT_EQ(add->metadata().source_file, "/tmp/f.py");
  EXPECT_EQ(add->metadata().source_line, 12);
  std::string printed = RoundTrip(kDump);
  EXPECT_THAT(printed, HasSubstr("ENTRY main.5 {\n"));
  EXPECT_THAT(printed,
              HasSubstr("add.4 = f32[2,3]{1,0} add(Arg_0.1, broadcast.3)\n"));
}

TEST(HloParserTest, CommentsAnywhere) {
  RoundTrip(
      "/* leading */ HloModule m // line comment\nENTRY main {\n"
      "  x = f32[2] /* in a shape? no, after it */ parameter(0)\n"
      "  ROOT t = (f32[2]) tuple(/*index=0*/ x)\n}\n");
}

// Instruction and computation names are separate, as in XLA: a reducer
// named `add` may hold an instruction named `add`, and names stay exact.
TEST(HloParserTest, NamesArePreservedExactly) {
  std::string printed = RoundTrip(R"(HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT add = f32[] add(x, y)
}

ENTRY main {
  main = f32[4]{0} parameter(0)
  add.1 = f32[] constant(0)
  ROOT r = f32[] reduce(main, add.1), dimensions={0}, to_apply=add
}
)");
  EXPECT_THAT(printed, HasSubstr("\nadd {\n"));
  EXPECT_THAT(printed, HasSubstr("ROOT add = f32[] add(x, y)"));
  EXPECT_THAT(printed, HasSubstr("main = f32[4]{0} parameter(0)"));
  EXPECT_THAT(printed, HasSubstr("add.1 = f32[] constant(0)"));
  EXPECT_THAT(printed, HasSubstr("reduce(main, add.1), dimensions={0}, "
                                 "to_apply=add"));
}

// Instruction names are scoped per computation, as in XLA: a name may
// repeat in another computation and refers within its own. The module keeps
// its instruction names unique by suffixing the later one, also when the
// text itself uses that suffixed name further on.
TEST(HloParserTest, InstructionNamesAreScopedPerComputation) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  x = f32[4] parameter(0)
  x.1 = f32[] constant(0)
  y = f32[] reduce(x, x.1), dimensions={0}, to_apply=add
  ROOT s = f32[] negate(y)
}
)"));
  const HloComputation* entry = module->entry_computation();
  const HloInstruction* root = entry->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kNegate);
  const HloInstruction* reduce = root->operand(0);
  ASSERT_EQ(reduce->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(reduce->operand(0)->shape(), ShapeUtil::MakeShape(F32, {4}));
  EXPECT_EQ(reduce->operand(1)->opcode(), HloOpcode::kConstant);
  absl::flat_hash_set<std::string> names;
  for (const HloComputation* computation : module->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      EXPECT_TRUE(names.insert(instruction->name()).second)
          << "repeated name " << instruction->name();
    }
  }
  // The printed module is unambiguous and parses back to the same text.
  const std::string printed = module->ToString();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                       ParseHloModule(printed));
  EXPECT_EQ(again->ToString(), printed);
}

// As in XLA, the `HloModule` line may be left out; the module is "_" and,
// without an ENTRY, the last computation is the entry.
TEST(HloParserTest, ModuleHeaderIsOptional) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
add {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT add = f32[] add(lhs, rhs)
}

main {
  x = f32[8] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(x, zero), dimensions={0}, to_apply=add
}
)"));
  EXPECT_EQ(module->name(), "_");
  EXPECT_EQ(module->entry_computation()->name(), "main");
  EXPECT_EQ(module->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kReduce);
}

// As in XLA, a result shape that follows from the operands may be left
// out; ops whose result does not (reshape, broadcast, convert, ...) must
// still spell it out. XLA's stack-frame tables after the header are read
// and dropped.
TEST(HloParserTest, InferredResultShapesAndStackFrameTables) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m, entry_computation_layout={(f32[2,3]{1,0})->(f32[2,3]{1,0}, pred[2,3]{1,0})}

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = add(a, b)
}
ENTRY main {
  x = f32[2,3] parameter(0)
  n = negate(x)
  c = compare(n, x), direction=LT
  z = f32[] constant(0)
  r = reduce(n, z), dimensions={1}, to_apply=add
  ROOT t = tuple(n, c)
}
)"));
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(entry.root_instruction()->shape().ToString(),
            "(f32[2,3], pred[2,3])");
  EXPECT_EQ(module->GetComputationWithName("add")
                ->root_instruction()
                ->shape(),
            ShapeUtil::MakeShape(F32, {}));
  bool saw_reduce = false;
  for (const HloInstruction* instruction : entry.instructions()) {
    if (instruction->opcode() != HloOpcode::kReduce) continue;
    saw_reduce = true;
    EXPECT_EQ(instruction->shape(), ShapeUtil::MakeShape(F32, {2}));
  }
  EXPECT_TRUE(saw_reduce);
  EXPECT_THAT(
      ParseHloModule("HloModule m\nENTRY e {\n  x = f32[6] parameter(0)\n"
                     "  ROOT r = reshape(x)\n}\n")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("4:12: 'r' (reshape) needs a result shape")));
  EXPECT_THAT(
      ParseHloModule("HloModule m\nENTRY e {\n  x = f32[6] parameter(0)\n"
                     "  y = s32[6] parameter(1)\n  ROOT a = add(x, y)\n}\n")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("5:12: Binary op add with different element "
                         "types: f32[6] and s32[6].")));
}

// XLA attributes that do not change what one CPU device computes parse
// and are dropped, iota device lists (`<=`) inside sharding included.
TEST(HloParserTest, SingleDeviceIrrelevantAttributesAreDropped) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[4,2] parameter(0), parameter_replication={false}, sharding={devices=[2,1]<=[2]}
  y = f32[4,2] negate(x), origin={{"y"}}, statistics={visualizing_index=1}, execution_thread="main"
  ROOT z = f32[4,2] add(x, y), control-predecessors={y}, result_accuracy={tolerance={atol=0 rtol=0 ulps=1}}, sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
}
)"));
  const std::string printed = module->ToString();
  EXPECT_THAT(printed, HasSubstr("ROOT z = f32[4,2]{1,0} add(x, y)\n"));
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("sharding")));
}

// An operand may be written as an instruction, `shape opcode(operands)`,
// as XLA's parser allows; it gets a generated name.
TEST(HloParserTest, NestedOperandInstructions) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  p = s32[] parameter(0)
  ROOT a = s32[] add(p, s32[] multiply(s32[] constant(3), p))
}
)"));
  const HloInstruction* root = module->entry_computation()->root_instruction();
  ASSERT_EQ(root->operand(1)->opcode(), HloOpcode::kMultiply);
  const HloInstruction* three = root->operand(1)->operand(0);
  ASSERT_EQ(three->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(three->literal().ToString(), "s32[] 3");
  EXPECT_EQ(root->operand(1)->operand(1), root->operand(0));
  // Printed, the nested instructions are ordinary named lines.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                       ParseHloModule(module->ToString()));
  EXPECT_EQ(again->ToString(), module->ToString());
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY e {\n  p = s32[] parameter(0)\n"
                             "  ROOT a = s32[] add(p, s32[] frob(p))\n}\n")
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("4:31: unknown opcode 'frob'")));
}

// Layouts are checked and dropped: mxla's arrays are logical, its buffers
// row-major (see ParseLayout).
TEST(HloParserTest, LayoutsAreCheckedAndDropped) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[2,3]{0,1} parameter(0)
  y = f32[2,3]{1,0:T(8,128)(2,1)S(1)} negate(x)
  ROOT z = f32[2,3]{0,1:E(32)} add(x, y)
}
)"));
  EXPECT_THAT(module->ToString(),
              HasSubstr("ROOT z = f32[2,3]{1,0} add(x, y)"));
}

TEST(HloParserTest, RootAndEntryDefaults) {
  // No ROOT: the last instruction; no ENTRY: the last computation.
  std::unique_ptr<HloModule> module = MustParse(
      "HloModule m\na {\n  x = f32[] parameter(0)\n}\n"
      "b {\n  y = f32[] parameter(0)\n  z = f32[] negate(y)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "b");
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "z");
  // ROOT need not be last; ENTRY need not be last.
  module = MustParse(
      "HloModule m\nENTRY a {\n  ROOT x = f32[] parameter(0)\n"
      "  y = f32[] negate(x)\n}\nb {\n  z = f32[] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "a");
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "x");
}

TEST(HloParserTest, EntryComputationLayout) {
  EXPECT_THAT(ParseHloModule(kMatrixPlusVector), IsOk());
  std::string text = kMatrixPlusVector;
  text.replace(text.find("f32[3]{0})->"), 6, "f32[4]");
  EXPECT_THAT(ParseHloModule(text),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:31: entry_computation_layout parameter 1 "
                                 "is f32[4] but parameter 1 of computation "
                                 "'main' is f32[3]")));
}

TEST(HloParserTest, TuplesAndVariadicReduce) {
  std::string printed = RoundTrip(R"(HloModule m

argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  v = f32[] select(gt, v0, v1)
  i = s32[] select(gt, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}

ENTRY main {
  x = f32[2,3] parameter(0)
  io = s32[2,3] iota(), iota_dimension=1
  init_v = f32[] constant(-inf)
  init_i = s32[] constant(-1)
  r = (f32[2], s32[2]) reduce(x, io, init_v, init_i), dimensions={1}, to_apply=argmax
  e = () tuple()
  nest = ((f32[2], s32[2]), ()) tuple(r, e)
  inner = (f32[2], s32[2]) get-tuple-element(nest), index=0
  ROOT idx = s32[2] get-tuple-element(inner), index=1
}
)");
  EXPECT_THAT(printed, HasSubstr("nest = ((f32[2]{0}, s32[2]{0}), ()) "
                                 "tuple(r, e)"));
  EXPECT_THAT(printed, HasSubstr("get-tuple-element(inner), index=1"));
}

TEST(HloParserTest, FusionKindsAndIota) {
  for (const char* kind : {"kLoop", "kInput", "kOutput"}) {
    std::string printed = RoundTrip(absl::StrCat(
        "HloModule m\nf {\n  p = s32[3,2] parameter(0)\n}\nENTRY e {\n"
        "  io = s32[3,2] iota(), iota_dimension=1\n"
        "  ROOT r = s32[3,2] fusion(io), kind=",
        kind, ", calls=f\n}\n"));
    EXPECT_THAT(printed, HasSubstr(absl::StrCat("kind=", kind, ", calls=f")));
  }
}

// The default comparison type of the operands (dropped), or TOTALORDER for
// floats (kept).
TEST(HloParserTest, ComparisonTypeIsTheDefaultOrTotalOrder) {
  for (const char* ok :
       {"f32[] parameter(0)|FLOAT", "f64[] parameter(0)|FLOAT",
        "s32[] parameter(0)|SIGNED", "s64[] parameter(0)|SIGNED",
        "pred[] parameter(0)|UNSIGNED", "f32[] parameter(0)|TOTALORDER",
        "bf16[] parameter(0)|TOTALORDER"}) {
    std::string spec = ok;
    std::string type = spec.substr(spec.find('|') + 1);
    std::string shape = spec.substr(0, spec.find('|'));
    EXPECT_THAT(ParseHloModule(EntryModule(
                    absl::StrCat("  a = ", shape,
                                 "\n  ROOT c = pred[] compare(a, a), "
                                 "direction=NE, type=",
                                 type, "\n"))),
                IsOk())
        << spec;
  }
  EXPECT_THAT(
      ParseHloModule(EntryModule("  a = u8[] parameter(0)\n  ROOT c = pred[] "
                                 "compare(a, a), direction=NE, "
                                 "type=TOTALORDER\n")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("5:53: unsupported comparison type 'TOTALORDER' for "
                         "u8 operands (only UNSIGNED is supported)")));
  EXPECT_THAT(
      ParseHloModule(EntryModule("  a = f32[] parameter(0)\n  ROOT c = pred[] "
                                 "compare(a, a), direction=NE, "
                                 "type=SIGNED\n")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("5:53: unsupported comparison type 'SIGNED' for "
                         "f32 operands (only FLOAT or TOTALORDER is "
                         "supported)")));
}

// XLA's parser accepts both: a scalar broadcast without dimensions= and a
// composite call (is_composite=true, a call like any other).
TEST(HloParserTest, ScalarBroadcastWithoutDimensionsAndCompositeCall) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
add {
  a = f32[] parameter(0)
  ROOT s = f32[] add(a, a)
}
ENTRY main {
  x = f32[] parameter(0)
  c = f32[] call(x), to_apply=add, is_composite=true
  ROOT b = f32[2,3] broadcast(c)
})"));
  EXPECT_THAT(module->ToString(),
              HasSubstr("b = f32[2,3]{1,0} broadcast(c), dimensions={}"));
  EXPECT_THAT(module->ToString(), HasSubstr("call(x), to_apply=add\n"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
}

TEST(HloParserTest, ParseShape) {
  ASSERT_OK_AND_ASSIGN(Shape shape, ParseShape("f32[2,3]{1,0}"));
  EXPECT_EQ(shape, ShapeUtil::MakeShape(F32, {2, 3}));
  ASSERT_OK_AND_ASSIGN(shape, ParseShape("(pred[], (s64[0]), ())"));
  EXPECT_EQ(shape.ToString(), "(pred[], (s64[0]), ())");
  ASSERT_OK_AND_ASSIGN(shape, ParseShape("f64[]{}"));
  EXPECT_TRUE(shape.IsScalar());
  for (const char* type : {"pred", "s32", "s64", "f32", "f64"}) {
    ASSERT_OK_AND_ASSIGN(shape, ParseShape(absl::StrCat(type, "[1,2]")));
    EXPECT_EQ(shape.ToString(), absl::StrCat(type, "[1,2]"));
  }
  EXPECT_THAT(ParseShape("f32[2] x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:8: expected end of input but found 'x'")));
}

template <typename T>
std::vector<T> Values(const Literal& literal) {
  absl::Span<const T> data = literal.data<T>();
  return std::vector<T>(data.begin(), data.end());
}

absl::StatusOr<Literal> Lit(absl::string_view text, absl::string_view shape) {
  absl::StatusOr<Shape> parsed = ParseShape(shape);
  if (!parsed.ok()) return parsed.status();
  return ParseLiteral(text, *parsed);
}

TEST(HloParserTest, LiteralsOfEveryType) {
  ASSERT_OK_AND_ASSIGN(Literal f,
                       Lit("{-0, inf, -inf, nan, 1.5e3, 2}", "f32[6]"));
  std::vector<float> fv = Values<float>(f);
  EXPECT_TRUE(fv[0] == 0 && std::signbit(fv[0]));
  EXPECT_TRUE(std::isinf(fv[1]) && fv[1] > 0);
  EXPECT_TRUE(std::isinf(fv[2]) && fv[2] < 0);
  EXPECT_TRUE(std::isnan(fv[3]));
  EXPECT_EQ(fv[4], 1500.0f);
  ASSERT_OK_AND_ASSIGN(Literal d, Lit("{1e300, -2.5e-300, 1e-400}", "f64[3]"));
  EXPECT_EQ(Values<double>(d), (std::vector<double>{1e300, -2.5e-300, 0}));
  ASSERT_OK_AND_ASSIGN(Literal s, Lit("{-2147483648, 2147483647}", "s32[2]"));
  EXPECT_EQ(Values<int32_t>(s), (std::vector<int32_t>{INT32_MIN, INT32_MAX}));
  ASSERT_OK_AND_ASSIGN(
      Literal l, Lit("{-9223372036854775808, 9223372036854775807}", "s64[2]"));
  EXPECT_EQ(Values<int64_t>(l), (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
  ASSERT_OK_AND_ASSIGN(Literal p, Lit("{true, false, 1, 0}", "pred[4]"));
  EXPECT_EQ(Values<bool>(p), (std::vector<bool>{true, false, true, false}));
  ASSERT_OK_AND_ASSIGN(Literal t, Lit("true", "pred[]"));
  EXPECT_TRUE(t.data<bool>()[0]);
  ASSERT_OK_AND_ASSIGN(
      Literal r3,
      Lit("{ { {1, 2}, {3, 4} }, { {5, 6}, {7, 8} } }", "s32[2,2,2]"));
  EXPECT_EQ(r3.Get<int32_t>({1, 0, 1}), 6);
  ASSERT_OK_AND_ASSIGN(Literal tuple,
                       Lit("( {1, 2}, (true) )", "(s32[2], (pred[]))"));
  EXPECT_EQ(tuple.tuple_size(), 2);
  for (const char* empty :
       {"f32[0]|{}", "f32[2,0]|{ {}, {} }", "f32[0,3]|{}"}) {
    std::string spec = empty;
    EXPECT_THAT(
        Lit(spec.substr(spec.find('|') + 1), spec.substr(0, spec.find('|'))),
        IsOk())
        << spec;
  }
}

// The new element types, splat constants (one value for every element) and
// elided ones (`{...}`: zeros, the values not being in the text).
TEST(HloParserTest, NewTypesSplatAndElidedConstants) {
  ASSERT_OK_AND_ASSIGN(Literal u, Lit("{255, 0}", "u8[2]"));
  EXPECT_EQ(Values<uint8_t>(u), (std::vector<uint8_t>{255, 0}));
  EXPECT_THAT(Lit("{256}", "u8[1]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("value 256 is out of range for u8")));
  EXPECT_THAT(Lit("{-1}", "u32[1]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("value -1 is out of range for u32")));
  ASSERT_OK_AND_ASSIGN(Literal h, Lit("{65504, 1e-8, nan}", "f16[3]"));
  EXPECT_EQ(h.data<Half>()[0].bits(), 0x7bff);
  EXPECT_EQ(h.data<Half>()[1].bits(), 0x0000);
  EXPECT_THAT(Lit("{70000}", "f16[1]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("value 70000 is out of range for f16")));
  ASSERT_OK_AND_ASSIGN(Literal b, Lit("3.14159", "bf16[]"));
  EXPECT_EQ(b.data<BFloat16>()[0].bits(), 0x4049);
  EXPECT_EQ(b.ToString(), "bf16[] 3.140625");
  ASSERT_OK_AND_ASSIGN(Literal splat, Lit("1.5", "f32[2,3]"));
  EXPECT_EQ(Values<float>(splat), std::vector<float>(6, 1.5f));
  ASSERT_OK_AND_ASSIGN(Literal elided, Lit("{...}", "s32[4]"));
  EXPECT_EQ(Values<int32_t>(elided), std::vector<int32_t>(4, 0));
  EXPECT_THAT(Lit("0", "f32[65536,65536]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a splat or elided constant of shape "
                                 "f32[65536,65536] needs 17179869184 bytes")));
  EXPECT_THAT(Lit("{...", "f32[2]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected '}'")));
}

// `}, execution_thread="..."` after a computation is accepted and dropped.
TEST(HloParserTest, ComputationExecutionThreadIsDropped) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
sparse {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}, execution_thread="sparse"
ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = f32[2] call(x), to_apply=sparse
})"));
  EXPECT_EQ(module->computations().size(), 2u);
}

// A called computation may be written in place, `to_apply={ ... }`, as
// XLA's parser allows; it is named and printed like any other.
TEST(HloParserTest, InlineCalledComputations) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[3] parameter(0)
  c = f32[3] call(x, x), to_apply={
    a = f32[3] parameter(0)
    b = f32[3] parameter(1)
    ROOT f = f32[3] fusion(a, b), kind=kLoop, calls={
      p = f32[3] parameter(0)
      q = f32[3] parameter(1)
      ROOT s = f32[3] add(p, q)
    }
  }
  ROOT n = f32[3] negate(c)
})"));
  EXPECT_OK(VerifyModule(*module, VerifierMode::kLowered));
  EXPECT_EQ(module->computations().size(), 3u);
  const std::string printed = module->ToString();
  EXPECT_THAT(printed, HasSubstr("call(x, x), to_apply=inline_computation\n"));
  EXPECT_THAT(printed, HasSubstr("kind=kLoop, calls=inline_computation.1\n"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                       ParseHloModule(printed));
  EXPECT_EQ(again->ToString(), printed);
  // Attributes that do not change one CPU's results parse and drop.
  EXPECT_OK(ParseHloModule(R"(
HloModule m
comp {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY main {
  x = f32[4] parameter(0)
  d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, operand_precision={highest,highest}
  f = f32[] fusion(d), kind=kLoop, calls=comp, output_to_operand_aliasing={{}: (0, {})}, frontend_attributes={composite.attributes={n = 1 : i32, tensor = dense<1> : tensor<i32>}}
  ROOT c = f32[] custom-call(f), custom_call_target="Sharding", called_computations={comp}
})").status());
}

TEST(HloParserTest, ConstantsRoundTrip) {
  std::string printed = RoundTrip(EntryModule(
      "  a = f32[5] constant({-0, inf, -inf, nan, 0.1})\n"
      "  b = f64[2] constant({1e300, -2.5})\n"
      "  c = s32[3] constant({-2147483648, 0, 2147483647})\n"
      "  d = s64[1] constant({-9223372036854775808})\n"
      "  e = pred[4] constant({true, false, 1, 0})\n"
      "  f = pred[] constant(false)\n"
      "  g = f32[0] constant({})\n"
      "  h = f32[2,0] constant({ {}, {} })\n"
      "  i = s32[2,2,2] constant({ { {1, 2}, {3, 4} }, { {5, 6}, {7, 8} } })\n"
      "  ROOT t = (f32[5], f64[2], s32[3], s64[1], pred[4], pred[], f32[0], "
      "f32[2,0], s32[2,2,2]) tuple(a, b, c, d, e, f, g, h, i)\n"));
  EXPECT_THAT(printed, HasSubstr("constant({-0, inf, -inf, nan, 0.1})"));
  EXPECT_THAT(printed, HasSubstr("pred[4]{0} constant({1, 0, 1, 0})"));
  EXPECT_THAT(printed, HasSubstr("pred[] constant(false)"));
  EXPECT_THAT(printed, HasSubstr("f32[2,0]{1,0} constant({ {}, {} })"));
}

TEST(HloParserTest, TupleConstantsRoundTrip) {
  std::string printed = RoundTrip(EntryModule(
      "  ROOT c = (f32[2], (s32[], pred[]), ()) constant(({2, 1}, (7, true), "
      "()))\n"));
  EXPECT_THAT(printed,
              HasSubstr("(f32[2]{0}, (s32[], pred[]), ()) constant(({2, 1}, "
                        "(7, true), ()))"));
}

struct BadInput {
  const char* label;
  std::string text;
  const char* error;  // Expected substring, starting with "line:column: ".
};

std::vector<BadInput> BadInputs() {
  const std::string x = "  x = f32[2,3] parameter(0)\n";
  std::string dims33 = "1";
  for (int i = 1; i < 33; ++i) dims33 += ",1";
  return {
      {"empty", "", "1:1: expected 'HloModule' or a computation but found end of "
                    "input"},
      {"no name", "HloModule", "1:10: expected a module name but found end"},
      {"no computation", "HloModule m\n", "2:1: expected a computation name"},
      {"unclosed", "HloModule m\nENTRY e {\n" + x,
       "4:1: expected an instruction or '}'"},
      {"empty body", EntryModule(""),
       "4:1: computation 'main' has no instructions"},
      {"bad shape", EntryModule("  x = f32[2, parameter(0)\n"),
       "4:14: expected a dimension size but found 'parameter'"},
      {"negative dim", EntryModule("  x = f32[-1] parameter(0)\n"),
       "4:11: invalid dimension size -1"},
      {"bad type", EntryModule("  x = f33[2] parameter(0)\n"),
       "4:7: unknown element type 'f33'"},
      {"huge dims",
       EntryModule("  x = f32[99999999999,99999999999] parameter(0)\n"),
       "4:7: element count of [99999999999,99999999999] overflows"},
      {"dim overflow",
       EntryModule("  x = f32[99999999999999999999] parameter(0)\n"),
       "4:11: invalid dimension size 99999999999999999999"},
      {"rank 33", EntryModule("  x = f32[" + dims33 + "] parameter(0)\n"),
       "4:75: rank exceeds the maximum rank 32"},
      {"short layout", EntryModule("  x = f32[2,3]{1} parameter(0)\n"),
       "4:15: invalid layout {1} for f32[2,3]: not a permutation of its "
       "dimensions (row-major is {1,0})"},
      {"repeated layout dimension",
       EntryModule("  x = f32[2,3]{1,1:T(8,128)} parameter(0)\n"),
       "4:15: invalid layout {1,1}"},
      {"unknown opcode", EntryModule(x + "  y = f32[2,3] frobnicate(x)\n"),
       "5:16: unknown opcode 'frobnicate'"},
      {"undefined operand", EntryModule(x + "  y = f32[2,3] negate(z)\n"),
       "5:23: undefined instruction 'z'"},
      {"operand elsewhere",
       "HloModule m\nc {\n  a = f32[] parameter(0)\n}\nENTRY e {\n  ROOT b = "
       "f32[] negate(a)\n}\n",
       "6:25: undefined instruction 'a' (it is in computation 'c')"},
      {"undefined computation",
       EntryModule(x + "  c = f32[] constant(0)\n  r = f32[2] reduce(x, c), "
                       "dimensions={1}, to_apply=nope\n"),
       "6:53: computation does not exist: nope"},
      {"computation defined later",
       "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  c = f32[] "
       "constant(0)\n  r = f32[] reduce(x, c), dimensions={0}, "
       "to_apply=add\n}\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
       "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n",
       "5:52: computation does not exist: add"},
      {"operand count", EntryModule(x + "  y = f32[2,3] add(x)\n"),
       "5:16: add expects 2 operands but has 1"},
      {"reduce operands",
       EntryModule(x + "  y = f32[2] reduce(x), dimensions={1}, to_apply=x\n"),
       "5:14: reduce expects inputs then as many init values"},
      {"missing attribute", EntryModule(x + "  y = f32[2,3,4] broadcast(x)\n"),
       "5:18: missing attribute 'dimensions' for broadcast (only a "
       "broadcast of a scalar may leave it out)"},
      {"missing direction", EntryModule(x + "  y = pred[2,3] compare(x, x)\n"),
       "5:17: missing attribute 'direction' for compare"},
      {"unknown attribute",
       EntryModule(x + "  y = f32[2,3] add(x, x), frob=1\n"),
       "5:27: unknown attribute 'frob' for add"},
      {"misplaced attribute",
       EntryModule(x + "  y = f32[2,3] negate(x), dimensions={0}\n"),
       "5:27: unknown attribute 'dimensions' for negate"},
      {"duplicate attribute",
       EntryModule(x + "  y = f32[2,3,4] broadcast(x), dimensions={0,1}, "
                       "dimensions={0,1}\n"),
       "5:50: duplicate attribute 'dimensions'"},
      {"bad direction",
       EntryModule(x + "  y = pred[2,3] compare(x, x), direction=XX\n"),
       "5:42: unknown comparison direction 'XX'"},
      {"bad fusion kind",
       "HloModule m\nf {\n  p = f32[] parameter(0)\n}\nENTRY e {\n  x = f32[] "
       "parameter(0)\n  ROOT y = f32[] fusion(x), kind=kTriton, calls=f\n}\n",
       "7:34: unknown fusion kind 'kTriton'"},
      {"two roots",
       EntryModule(
           "  ROOT x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n"),
       "5:3: computation 'main' has more than one ROOT"},
      {"two entries",
       "HloModule m\nENTRY a {\n  x = f32[] parameter(0)\n}\nENTRY b {\n  y = "
       "f32[] parameter(0)\n}\n",
       "5:1: more than one ENTRY computation (the first is 'a')"},
      {"duplicate name", EntryModule(x + "  x = f32[2,3] negate(x)\n"),
       "5:3: duplicate instruction name 'x' in computation 'main'"},
      {"duplicate computation",
       "HloModule m\nc {\n  x = f32[] parameter(0)\n}\nc {\n  y = f32[] "
       "parameter(0)\n}\n",
       "5:1: duplicate computation name 'c'"},
      {"duplicate parameter", EntryModule(x + "  y = f32[2,3] parameter(0)\n"),
       "5:26: duplicate parameter number 0"},
      {"gapped parameters", EntryModule(x + "  y = f32[2,3] parameter(2)\n"),
       "5:26: parameter number 2 is out of range: computation 'main' has 2 "
       "parameters"},
      {"parameter list", EntryModule("  x = f32[] parameter(0, 1)\n"),
       "4:24: expected ')' but found ','"},
      {"too many elements", EntryModule("  c = f32[2] constant({1, 2, 3})\n"),
       "4:30: too many elements in dimension 0 of f32[2]: expected 2"},
      {"too few elements",
       EntryModule("  c = f32[2,2] constant({ {1, 2}, {3} })\n"),
       "4:37: too few elements in dimension 1 of f32[2,2]: expected 2 but "
       "found 1"},
      {"too deep constant",
       EntryModule("  c = f32[2] constant({ {1}, {2} })\n"),
       "4:25: expected an f32 value but found '{'"},
      {"too shallow constant", EntryModule("  c = f32[2,1] constant({1, 2})\n"),
       "4:26: expected '{' but found '1'"},
      {"s32 overflow", EntryModule("  c = s32[] constant(3000000000)\n"),
       "4:22: value 3000000000 is out of range for s32"},
      {"s64 overflow",
       EntryModule("  c = s64[] constant(-9223372036854775809)\n"),
       "4:22: value -9223372036854775809 is out of range for s64"},
      {"f32 overflow", EntryModule("  c = f32[] constant(1e39)\n"),
       "4:22: value 1e39 is out of range for f32"},
      {"float for int", EntryModule("  c = s32[] constant(1.5)\n"),
       "4:22: expected an s32 value but found '1.5'"},
      {"bad pred", EntryModule("  c = pred[] constant(2)\n"),
       "4:23: expected a pred value (true, false, 0 or 1) but found '2'"},
      {"malformed number", EntryModule("  c = f32[] constant(1e)\n"),
       "4:22: malformed number '1e'"},
      {"dotted number", EntryModule("  c = f32[] constant(1.2.3)\n"),
       "4:22: malformed number '1.2.3'"},
      {"tuple constant arity", EntryModule("  c = (f32[], f32[]) constant((1))\n"),
       "4:33: expected ',' but found ')'"},
      {"tuple index",
       EntryModule("  a = f32[] parameter(0)\n  t = (f32[]) tuple(a)\n  g = "
                   "f32[] get-tuple-element(t), index=1\n"),
       "6:41: tuple index 1 is out of range for operand shape (f32[])"},
      {"gte of array",
       EntryModule("  a = f32[] parameter(0)\n  g = f32[] "
                   "get-tuple-element(a), index=0\n"),
       "5:41: tuple index 0 is out of range for operand shape f32[]"},
      {"iota dimension", EntryModule("  i = s32[2] iota(), iota_dimension=1\n"),
       "4:37: iota_dimension 1 is out of range for shape s32[2]"},
      {"negative index",
       EntryModule(
           "  t = () tuple()\n  g = f32[] get-tuple-element(t), index=-1\n"),
       "5:41: index must be a non-negative int64 but is '-1'"},
      {"operand prefix", EntryModule(x + "  y = f32[2,3] negate(f32[3,2] x)\n"),
       "5:23: operand shape f32[3,2] of 'x' does not match its shape f32[2,3]"},
      {"signature",
       "HloModule m\nENTRY e (a: f32[2]) -> f32[2] {\n  a = f32[3] "
       "parameter(0)\n}\n",
       "2:9: signature parameter 0 is f32[2] but parameter 0 of computation "
       "'e' is f32[3]"},
      {"signature result",
       "HloModule m\nENTRY e () -> s32[] {\n  a = f32[] constant(1)\n}\n",
       "2:9: signature result is s32[] but the root of computation 'e' is "
       "f32[]"},
      {"layout count",
       "HloModule m, entry_computation_layout={()->f32[]}\nENTRY e {\n  a = "
       "f32[] parameter(0)\n}\n",
       "1:14: entry_computation_layout has 0 parameters but computation 'e' "
       "has 1"},
      {"trailing junk", EntryModule("  a = f32[] parameter(0)\n") + "}\n",
       "6:1: expected a computation name but found '}'"},
      {"lone percent", EntryModule("  % = f32[] parameter(0)\n"),
       "4:3: expected a name after '%'"},
      {"garbage byte", EntryModule("  a = f32[] parameter(0)\x01\n"),
       "4:25: unexpected character '\\x01'"},
      {"nul byte", EntryModule(std::string("  a = f32[] parameter(0)\0\n", 26)),
       "4:25: unexpected character '\\x00'"},
      {"unterminated comment", EntryModule("  a = f32[] /* parameter(0)\n"),
       "4:13: unterminated comment"},
      {"unterminated string",
       EntryModule("  a = f32[] parameter(0), metadata={op_name=\"x}\n"),
       "4:45: unterminated string"},
      {"deep tuple shape",
       EntryModule("  a = " + std::string(100, '(') + " parameter(0)\n"),
       "4:71: nesting deeper than 64 levels"},
      {"deep skipped value",
       EntryModule("  a = f32[] parameter(0), sharding=" +
                   std::string(100, '{') + "\n"),
       "4:100: nesting deeper than 64 levels"},
      {"deep constant",
       EntryModule("  c = f32[1] constant(" + std::string(100000, '{') + ")\n"),
       "4:24: expected an f32 value but found '{'"},
  };
}

TEST(HloParserTest, MalformedInputsFailCleanly) {
  for (const BadInput& bad : BadInputs()) {
    EXPECT_THAT(
        ParseHloModule(bad.text),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad.error)))
        << bad.label;
  }
}

// Every message starts with "line:column: ".
void ExpectCleanFailureOrSuccess(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (module.ok()) return;
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(module.status().message()),
              ContainsRegex("^[0-9]+:[0-9]+: "))
      << text;
}

TEST(HloParserTest, EveryPrefixFailsCleanlyOrParses) {
  for (const char* text : {kAllOpcodes, kLoopFusion, kMatrixPlusVector}) {
    std::string full = text;
    for (size_t n = 0; n <= full.size(); ++n) {
      ExpectCleanFailureOrSuccess(full.substr(0, n));
    }
  }
}

// Every position gets one mutation, the characters taking turns: trying each
// character at each position made the cost quadratic in the op list (5 min
// under ASan); the hlo_parser fuzzer searches mutations exhaustively.
TEST(HloParserTest, MutatedInputsFailCleanlyOrParse) {
  constexpr char kMutations[] = {'{', '}', '(', ')',  ',',   '=',
                                 '-', '9', 'x', '\0', '\xff'};
  std::string base = kAllOpcodes;
  for (size_t i = 0; i < base.size(); ++i) {
    std::string mutated = base;
    mutated[i] = kMutations[i % sizeof(kMutations)];
    ExpectCleanFailureOrSuccess(mutated);
  }
}

TEST(HloLexerTest, TokensLinesAndColumns) {
  HloLexer lexer("%a.b-c = f32[2]{0}\n /* x\n */ -> -inf 1e-3 -7 \"q\\\"t\"");
  struct Expected {
    TokenKind kind;
    const char* text;
    int line, column;
  };
  for (const Expected& e :
       std::vector<Expected>{{TokenKind::kName, "a.b-c", 1, 1},
                             {TokenKind::kEqual, "=", 1, 8},
                             {TokenKind::kName, "f32", 1, 10},
                             {TokenKind::kLSquare, "[", 1, 13},
                             {TokenKind::kInt, "2", 1, 14},
                             {TokenKind::kRSquare, "]", 1, 15},
                             {TokenKind::kLBrace, "{", 1, 16},
                             {TokenKind::kInt, "0", 1, 17},
                             {TokenKind::kRBrace, "}", 1, 18},
                             {TokenKind::kArrow, "->", 3, 5},
                             {TokenKind::kFloat, "-inf", 3, 8},
                             {TokenKind::kFloat, "1e-3", 3, 13},
                             {TokenKind::kInt, "-7", 3, 18},
                             {TokenKind::kString, "q\"t", 3, 21},
                             {TokenKind::kEof, "", 3, 27},
                             {TokenKind::kEof, "", 3, 27}}) {
    Token token = lexer.NextToken();
    EXPECT_EQ(token.kind, e.kind) << e.text;
    EXPECT_EQ(token.text, e.text);
    EXPECT_EQ(token.line, e.line) << e.text;
    EXPECT_EQ(token.column, e.column) << e.text;
  }
}

// XLA's tests spell math-library functions as custom calls; those mxla has
// as ops parse as the op, and the rest stay custom calls.
TEST(HloParserTest, MathLibraryCustomCallsParseAsTheirOps) {
  for (const auto& [target, op] : std::vector<std::pair<std::string, std::string>>{
           {"Acos", "acos"}, {"Acosh", "acosh"}, {"Asin", "asin"},
           {"Asinh", "asinh"}, {"Atan", "atan"}, {"Cosh", "cosh"}, {"Sinh", "sinh"},
           {"Polygamma", "custom-call"}}) {
    SCOPED_TRACE(target);
    const std::string text =
        "HloModule t\nENTRY main {\n  x = f32[3] parameter(0)\n"
        "  ROOT m = f32[3] custom-call(x), custom_call_target=\"xla_builder."
        "math." + target + "\"\n}\n";
    std::unique_ptr<HloModule> module = ParseHloModule(text).value();
    EXPECT_EQ(HloOpcodeString(module->entry_computation()->root_instruction()
                                  ->opcode()),
              op);
  }
}

TEST(HloParserTest, LongChainsParse) {
  std::string body = "  x0 = f32[2] parameter(0)\n";
  for (int i = 1; i < 20000; ++i) {
    absl::StrAppend(&body, "  x", i, " = f32[2] negate(x", i - 1, ")\n");
  }
  std::unique_ptr<HloModule> module = MustParse(EntryModule(body));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->instruction_count(), 20000);
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "x19999");
}

TEST(HloParserTest, MalformedShapesAndLiterals) {
  EXPECT_THAT(ParseShape(""), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("1:1: expected a shape but "
                                                 "found end of input")));
  EXPECT_THAT(ParseShape(std::string(100000, '(')),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:65: nesting deeper than 64 levels")));
  EXPECT_THAT(Lit("{1, 2", "s32[2]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:6: expected ',' or '}' but found end")));
  EXPECT_THAT(ParseLiteral("1", Shape()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:1: shape has an invalid element type")));
  EXPECT_THAT(Lit("1e-50", "f32[]"), IsOk());  // Underflow rounds to 0.
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY e {\n  x = f32[16] "
                             "parameter(0)\n  ROOT p = b(f32[16]) "
                             "custom-call(x), custom_call_target=\"Pin\"\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("4:12: buffer shapes (b(f32[16])) are not "
                                 "supported by mxla")));
  EXPECT_THAT(ParseShape("(f32[2], b(f32[16]))"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:10: buffer shapes")));
  EXPECT_THAT(ParseHloModule("HloModule m\nENTRY e {\n  x = u64[2] "
                             "parameter(0)\n  ROOT r = u64[2] "
                             "rng-get-and-update-state(), delta=8\n}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("4:19: unsupported XLA op "
                                 "'rng-get-and-update-state': mxla's rng "
                                 "keeps no generator state")));
  EXPECT_THAT(ParseShape("f32[2,<=8]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1:7: bounded dynamic dimensions ('<=N') are "
                                 "not supported by mxla: its shapes are "
                                 "static")));
}

TEST(HloParserTest, MetadataRoundTripsWhenPrinted) {
  const std::string text = R"(HloModule m

ENTRY main {
  x = f32[2]{0} parameter(0), metadata={op_name="Parameter" source_file="a \"b\".cc" source_line=3}
  ROOT n = f32[2]{0} negate(x), metadata={op_name="Neg" source_file="main.cc" source_line=12}
}
)";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  EXPECT_EQ(module->ToString({.metadata = true}), text);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->metadata().op_name, "Neg");
  EXPECT_EQ(root->metadata().source_line, 12);
  EXPECT_EQ(module->entry_computation()->parameter_instruction(0)
                ->metadata().source_file,
            "a \"b\".cc");
  // Without the option the text is XLA's plain form.
  EXPECT_EQ(module->ToString().find("metadata"), std::string::npos);
}

}  // namespace
}  // namespace mxla
