// In-place updates: while loops whose state the body updates in place, a
// dynamic-update-slice (fused with its update's producers) or scatter that
// writes only its slice when its operand is dead afterwards, and donated
// parameters (input_output_alias). Every module runs on the jit and the
// interpreter, bit for bit, including the cases where the operand is still
// live and must be copied (read after the update, returned as well,
// swapped between loop-state elements); the buffer assignment is checked
// to show the in-place path was really taken where it can be.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "runtime/buffer_assignment.h"
#include "runtime/jit_executable.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<Executable>> CompileText(const std::string& text,
                                                        Backend backend) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  CompileOptions options;
  options.backend = backend;
  return Compile(**module, options);
}

// Runs `text` on both backends and expects the same bits; returns the
// jit's executable.
std::unique_ptr<Executable> ExpectSameBits(
    const std::string& text, const std::vector<Literal>& arguments) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<Executable>> jit =
      CompileText(text, Backend::kJit);
  absl::StatusOr<std::unique_ptr<Executable>> interpreter =
      CompileText(text, Backend::kInterpreter);
  EXPECT_OK(jit.status());
  EXPECT_OK(interpreter.status());
  if (!jit.ok() || !interpreter.ok()) return nullptr;
  absl::StatusOr<Literal> expected = (*interpreter)->Run(Pointers(arguments));
  EXPECT_OK(expected.status());
  for (int threads : {1, 2}) {
    RunOptions options;
    options.threads = threads;
    absl::StatusOr<Literal> actual = (*jit)->Run(Pointers(arguments), options);
    EXPECT_OK(actual.status());
    if (expected.ok() && actual.ok()) {
      EXPECT_TRUE(*actual == *expected) << "threads " << threads;
    }
  }
  return *std::move(jit);
}

// XLA's module `name` from ../shared/real-hlo/modules (beside the checkout
// or a parent of it; MXLA_REAL_HLO overrides), or "" when there is none.
std::string RealHloModule(const std::string& name) {
  std::string dir;
  if (const char* env = std::getenv("MXLA_REAL_HLO")) dir = env;
  for (std::filesystem::path at = MXLA_SOURCE_DIR; dir.empty();
       at = at.parent_path()) {
    const std::filesystem::path modules = at / "shared" / "real-hlo" / "modules";
    if (std::filesystem::is_directory(modules)) dir = modules.string();
    if (at == at.parent_path()) break;
  }
  std::ifstream in(dir + "/" + name + ".hlo");
  if (dir.empty() || !in.good()) return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Literal Ramp(int64_t n, float start) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = start + 0.5f * i - (i % 7);
  return *LiteralUtil::CreateFromFlatChecked<float>({n}, values);
}

// The body of the first while loop the jit's program runs.
const BufferAssignment* LoopBodyBuffers(const Executable& executable) {
  const auto* jit = dynamic_cast<const JitExecutable*>(&executable);
  if (jit == nullptr) return nullptr;
  for (const JitExecutable::Program::Step& step : jit->program()->steps) {
    if (step.subprogram == nullptr) continue;
    const auto* loop =
        std::get_if<JitExecutable::Program::WhileLoop>(step.subprogram.get());
    if (loop == nullptr) continue;
    const auto* body = dynamic_cast<const JitExecutable*>(loop->body.get());
    return body == nullptr ? nullptr : &body->buffers();
  }
  return nullptr;
}

// The slot the body writes its dynamic-update-slice (or scatter) result to.
std::vector<BufferSlot> UpdateSlots(const BufferAssignment& plan) {
  std::vector<BufferSlot> slots;
  for (const FusionStep& step : plan.steps) {
    const HloInstruction& op = *step.fusion;
    const bool updates = op.opcode() == HloOpcode::kScatter ||
                         (op.opcode() == HloOpcode::kFusion &&
                          op.to_apply()->root_instruction()->opcode() ==
                              HloOpcode::kDynamicUpdateSlice);
    if (updates) slots.push_back(step.buffers.back());
  }
  return slots;
}

// `count` trips, each writing f(i) at position i * stride (clamped) of a
// carried f32[N].
constexpr char kDusLoop[] = R"(HloModule dus_loop
cond {
  s = (s32[], f32[@N]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(@COUNT)), direction=LT
}
body {
  s = (s32[], f32[@N]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  buf = f32[@N] get-tuple-element(s), index=1
  at = s32[] multiply(i, s32[] constant(@STRIDE))
  old = f32[1] dynamic-slice(buf, at), dynamic_slice_sizes={1}
  f = f32[] convert(i)
  fb = f32[1] broadcast(f), dimensions={}
  new = f32[1] add(old, fb)
  upd = f32[@N] dynamic-update-slice(buf, new, at)
  next = s32[] add(i, s32[] constant(1))
  ROOT t = (s32[], f32[@N]) tuple(next, upd)
}
ENTRY main {
  x = f32[@N] parameter(0)
  init = (s32[], f32[@N]) tuple(s32[] constant(0), x)
  w = (s32[], f32[@N]) while(init), condition=cond, body=body
  ROOT out = f32[@N] get-tuple-element(w), index=1
})";

std::string Sized(const std::string& text, int64_t n, int64_t count,
                  int64_t stride) {
  return absl::StrReplaceAll(text, {{"@N", absl::StrCat(n)},
                                    {"@COUNT", absl::StrCat(count)},
                                    {"@STRIDE", absl::StrCat(stride)}});
}

TEST(InPlaceTest, LoopUpdatesItsCarriedBufferInPlace) {
  // Stride 3 runs past the end: clamped starts rewrite the last element.
  for (int64_t n : {int64_t{1}, int64_t{100}, int64_t{1000}}) {
    const std::string text = Sized(kDusLoop, n, 2 * n, 3);
    std::vector<Literal> arguments;
    arguments.push_back(Ramp(n, 1.5f));
    std::unique_ptr<Executable> jit = ExpectSameBits(text, arguments);
    ASSERT_NE(jit, nullptr);
    const BufferAssignment* body = LoopBodyBuffers(*jit);
    ASSERT_NE(body, nullptr);
    const std::vector<BufferSlot> updates = UpdateSlots(*body);
    ASSERT_EQ(updates.size(), 1u);
    // Written into the state buffer it replaces: no copy.
    EXPECT_EQ(updates[0].kind, BufferSlot::kParameter);
    EXPECT_EQ(updates[0].index, 1);
    EXPECT_EQ(body->arena_bytes % 64, 0);
  }
}

// The carried buffer is read after the update (by `twice`, which the
// body returns too): the update must not overwrite it in place.
constexpr char kLiveAfterUpdate[] = R"(HloModule live_after
cond {
  s = (s32[], f32[64], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(40)), direction=LT
}
body {
  s = (s32[], f32[64], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  buf = f32[64] get-tuple-element(s), index=1
  acc = f32[64] get-tuple-element(s), index=2
  f = f32[1] broadcast(f32[] convert(i)), dimensions={}
  upd = f32[64] dynamic-update-slice(buf, f, i)
  e = f32[64] exponential(buf)
  sum = f32[64] add(acc, e)
  twice = f32[64] add(sum, buf)
  next = s32[] add(i, s32[] constant(1))
  ROOT t = (s32[], f32[64], f32[64]) tuple(next, upd, twice)
}
ENTRY main {
  x = f32[64] parameter(0)
  y = f32[64] parameter(1)
  init = (s32[], f32[64], f32[64]) tuple(s32[] constant(0), x, y)
  w = (s32[], f32[64], f32[64]) while(init), condition=cond, body=body
  a = f32[64] get-tuple-element(w), index=1
  b = f32[64] get-tuple-element(w), index=2
  ROOT out = (f32[64], f32[64], f32[64]) tuple(a, b, x)
})";

TEST(InPlaceTest, UpdateOfABufferReadAfterwardsCopiesIt) {
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(64, -3.0f));
  arguments.push_back(Ramp(64, 0.125f));
  std::unique_ptr<Executable> jit = ExpectSameBits(kLiveAfterUpdate, arguments);
  ASSERT_NE(jit, nullptr);
  // The entry's x is returned as is: the loop must not have written it.
  absl::StatusOr<Literal> result = jit->Run(Pointers(arguments));
  ASSERT_OK(result.status());
  EXPECT_TRUE(result->tuple_element(2) == arguments[0]);
}

// Elements that trade places, and one returned both updated and as it was.
constexpr char kSwap[] = R"(HloModule swap
cond {
  s = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(5)), direction=LT
}
body {
  s = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[8] get-tuple-element(s), index=1
  b = f32[8] get-tuple-element(s), index=2
  f = f32[1] broadcast(f32[] convert(i)), dimensions={}
  @UPDATE
  next = s32[] add(i, s32[] constant(1))
  ROOT t = (s32[], f32[8], f32[8]) tuple(next, @FIRST, @SECOND)
}
ENTRY main {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  init = (s32[], f32[8], f32[8]) tuple(s32[] constant(0), x, y)
  ROOT w = (s32[], f32[8], f32[8]) while(init), condition=cond, body=body
})";

TEST(InPlaceTest, SwappedAndDuplicatedStateElementsAreCopiedAside) {
  struct Case {
    const char* update;
    const char* first;
    const char* second;
  };
  for (const Case& c : std::vector<Case>{
           {"u = f32[8] dynamic-update-slice(b, f, i)", "u", "a"},  // swap
           {"u = f32[8] dynamic-update-slice(a, f, i)", "u", "a"},  // both
           {"u = f32[8] dynamic-update-slice(a, f, i)", "b", "u"},
           {"u = f32[8] negate(b)", "b", "u"}}) {
    const std::string text = absl::StrReplaceAll(
        kSwap,
        {{"@UPDATE", c.update}, {"@FIRST", c.first}, {"@SECOND", c.second}});
    std::vector<Literal> arguments;
    arguments.push_back(Ramp(8, 10.0f));
    arguments.push_back(Ramp(8, -20.0f));
    ExpectSameBits(text, arguments);
  }
}

// Nested loops over a tuple-shaped state ((s32[], f32[N]), s32[]): the
// inner loop writes row j of a [R, C] buffer element by element.
constexpr char kNested[] = R"(HloModule nested
inner_cond {
  s = (s32[], f32[6,5], s32[]) parameter(0)
  k = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(k, s32[] constant(5)), direction=LT
}
inner_body {
  s = (s32[], f32[6,5], s32[]) parameter(0)
  k = s32[] get-tuple-element(s), index=0
  m = f32[6,5] get-tuple-element(s), index=1
  j = s32[] get-tuple-element(s), index=2
  old = f32[1,1] dynamic-slice(m, j, k), dynamic_slice_sizes={1,1}
  v = f32[1,1] broadcast(f32[] convert(s32[] add(s32[] multiply(j, s32[] constant(10)), k))), dimensions={}
  new = f32[1,1] multiply(old, v)
  u = f32[6,5] dynamic-update-slice(m, new, j, k)
  ROOT t = (s32[], f32[6,5], s32[]) tuple(s32[] add(k, s32[] constant(1)), u, j)
}
outer_cond {
  s = ((s32[], f32[6,5]), s32[]) parameter(0)
  inner = (s32[], f32[6,5]) get-tuple-element(s), index=0
  j = s32[] get-tuple-element(inner), index=0
  ROOT lt = pred[] compare(j, s32[] constant(6)), direction=LT
}
outer_body {
  s = ((s32[], f32[6,5]), s32[]) parameter(0)
  inner = (s32[], f32[6,5]) get-tuple-element(s), index=0
  j = s32[] get-tuple-element(inner), index=0
  m = f32[6,5] get-tuple-element(inner), index=1
  trips = s32[] get-tuple-element(s), index=1
  init = (s32[], f32[6,5], s32[]) tuple(s32[] constant(0), m, j)
  w = (s32[], f32[6,5], s32[]) while(init), condition=inner_cond, body=inner_body
  m2 = f32[6,5] get-tuple-element(w), index=1
  k = s32[] get-tuple-element(w), index=0
  state = (s32[], f32[6,5]) tuple(s32[] add(j, s32[] constant(1)), m2)
  ROOT t = ((s32[], f32[6,5]), s32[]) tuple(state, s32[] add(trips, k))
}
ENTRY main {
  x = f32[6,5] parameter(0)
  init = ((s32[], f32[6,5]), s32[]) tuple((s32[], f32[6,5]) tuple(s32[] constant(0), x), s32[] constant(0))
  ROOT w = ((s32[], f32[6,5]), s32[]) while(init), condition=outer_cond, body=outer_body
})";

TEST(InPlaceTest, NestedLoopsOverATupleShapedState) {
  std::vector<float> values(30);
  for (int i = 0; i < 30; ++i) values[i] = 0.75f * i - 4.0f;
  std::vector<Literal> arguments;
  arguments.push_back(
      *LiteralUtil::CreateFromFlatChecked<float>({6, 5}, values));
  std::unique_ptr<Executable> jit = ExpectSameBits(kNested, arguments);
  ASSERT_NE(jit, nullptr);
}

// A scatter into the carried buffer (how JAX writes x.at[i].set(v)), as in
// XLA's in_place_dynamic_update_slice_fusion benchmark.
constexpr char kScatterLoop[] = R"(HloModule scatter_loop
keep_update {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
cond {
  s = (s32[], f32[300]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(310)), direction=LT
}
body {
  s = (s32[], f32[300]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  buf = f32[300] get-tuple-element(s), index=1
  at = s32[] remainder(s32[] multiply(i, s32[] constant(7)), s32[] constant(301))
  idx = s32[1] reshape(at)
  old = f32[1] dynamic-slice(buf, s32[] subtract(s32[] constant(299), at)), dynamic_slice_sizes={1}
  v = f32[] add(f32[] reshape(old), f32[] convert(i))
  sc = f32[300] scatter(buf, idx, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, indices_are_sorted=true, unique_indices=true, to_apply=keep_update
  ROOT t = (s32[], f32[300]) tuple(s32[] add(i, s32[] constant(1)), sc)
}
ENTRY main {
  x = f32[300] parameter(0)
  init = (s32[], f32[300]) tuple(s32[] constant(0), x)
  ROOT w = (s32[], f32[300]) while(init), condition=cond, body=body
})";

TEST(InPlaceTest, ScatterIntoTheCarriedBufferIsInPlace) {
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(300, 2.0f));
  std::unique_ptr<Executable> jit = ExpectSameBits(kScatterLoop, arguments);
  ASSERT_NE(jit, nullptr);
  const BufferAssignment* body = LoopBodyBuffers(*jit);
  ASSERT_NE(body, nullptr);
  const std::vector<BufferSlot> updates = UpdateSlots(*body);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].kind, BufferSlot::kParameter);
}

// Random update windows of a 2-D buffer (starts drawn past both ends, so
// they clamp), fixed seed; the updates read the slice they replace.
TEST(InPlaceTest, RandomWindowsMatchTheInterpreter) {
  std::mt19937 random(36);
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t rows = 1 + random() % 9, cols = 1 + random() % 17;
    const int64_t wr = 1 + random() % rows, wc = 1 + random() % cols;
    const int64_t trips = 1 + random() % 20;
    std::vector<int32_t> starts(2 * trips);
    for (int32_t& s : starts) s = static_cast<int32_t>(random() % 40) - 12;
    const std::string text = absl::StrReplaceAll(
        R"(HloModule random_windows
cond {
  s = (s32[], f32[@R,@C], s32[@T,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, s32[] constant(@T)), direction=LT
}
body {
  s = (s32[], f32[@R,@C], s32[@T,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  m = f32[@R,@C] get-tuple-element(s), index=1
  at = s32[@T,2] get-tuple-element(s), index=2
  row = s32[1,2] dynamic-slice(at, i, s32[] constant(0)), dynamic_slice_sizes={1,2}
  r1 = s32[1,1] slice(row), slice={[0:1], [0:1]}
  c1 = s32[1,1] slice(row), slice={[0:1], [1:2]}
  r = s32[] reshape(r1)
  c = s32[] reshape(c1)
  old = f32[@WR,@WC] dynamic-slice(m, r, c), dynamic_slice_sizes={@WR,@WC}
  scale = f32[@WR,@WC] broadcast(f32[] convert(s32[] add(i, s32[] constant(2)))), dimensions={}
  io = f32[@WR,@WC] iota(), iota_dimension=1
  new = f32[@WR,@WC] subtract(f32[@WR,@WC] multiply(old, scale), io)
  u = f32[@R,@C] dynamic-update-slice(m, new, r, c)
  ROOT t = (s32[], f32[@R,@C], s32[@T,2]) tuple(s32[] add(i, s32[] constant(1)), u, at)
}
ENTRY main {
  x = f32[@R,@C] parameter(0)
  at = s32[@T,2] parameter(1)
  init = (s32[], f32[@R,@C], s32[@T,2]) tuple(s32[] constant(0), x, at)
  w = (s32[], f32[@R,@C], s32[@T,2]) while(init), condition=cond, body=body
  ROOT out = f32[@R,@C] get-tuple-element(w), index=1
})",
        {{"@WR", absl::StrCat(wr)},
         {"@WC", absl::StrCat(wc)},
         {"@R", absl::StrCat(rows)},
         {"@C", absl::StrCat(cols)},
         {"@T", absl::StrCat(trips)}});
    std::vector<float> values(rows * cols);
    for (float& v : values) v = static_cast<float>(random() % 1000) / 64.0f;
    std::vector<Literal> arguments;
    arguments.push_back(
        *LiteralUtil::CreateFromFlatChecked<float>({rows, cols}, values));
    arguments.push_back(
        *LiteralUtil::CreateFromFlatChecked<int32_t>({trips, 2}, starts));
    ExpectSameBits(text, arguments);
  }
}

// input_output_alias: the update is written into the donated parameter.
constexpr char kDonated[] =
    R"(HloModule donated, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }
ENTRY main {
  x = f32[1000] parameter(0)
  y = f32[4] parameter(1)
  i = s32[] parameter(2)
  u = f32[1000] dynamic-update-slice(x, y, i)
  ROOT t = (f32[1000], f32[4]) tuple(u, y)
})";

// A generate loop carries its weights through unchanged: the loop reads
// them in the argument's buffer (no copy in), and the results are the
// interpreter's, also when the weights are donated to a result that
// overwrites them.
constexpr char kWeightsLoop[] = R"(HloModule weights_loop$ALIAS
cond {
  s = (s32[], f32[64,64], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[64,64], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[64,64] get-tuple-element(s), index=1
  x = f32[64,64] get-tuple-element(s), index=2
  p = f32[64,64] multiply(x, w)
  t = f32[64,64] add(p, w)
  ROOT next = (s32[], f32[64,64], f32[64,64]) tuple(j, w, t)
}
ENTRY main {
  w = f32[64,64] parameter(0)
  x = f32[64,64] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[64,64], f32[64,64]) tuple(zero, w, x)
  loop = (s32[], f32[64,64], f32[64,64]) while(init), condition=cond, body=body
  lw = f32[64,64] get-tuple-element(loop), index=1
  lx = f32[64,64] get-tuple-element(loop), index=2
  scaled = f32[64,64] multiply(lw, lx)
  ROOT r = (f32[64,64], f32[64,64]) tuple(scaled, lx)
})";

TEST(InPlaceTest, LoopsReadTheirUnchangedStateInTheArgument) {
  std::vector<Literal> arguments;
  std::vector<float> w(64 * 64), x(64 * 64);
  for (int64_t i = 0; i < 64 * 64; ++i) {
    w[i] = 0.01f * ((i * 37) % 23 - 11);
    x[i] = 0.1f * (i % 5) - 0.2f;
  }
  arguments.push_back(*LiteralUtil::CreateFromFlatChecked<float>({64, 64}, w));
  arguments.push_back(*LiteralUtil::CreateFromFlatChecked<float>({64, 64}, x));
  std::unique_ptr<Executable> jit =
      ExpectSameBits(absl::StrReplaceAll(kWeightsLoop, {{"$ALIAS", ""}}), arguments);
  ASSERT_NE(jit, nullptr);
  const auto* program = dynamic_cast<const JitExecutable*>(jit.get());
  ASSERT_NE(program, nullptr);
  const BufferAssignment& plan = program->buffers();
  int64_t loops = 0;
  for (const FusionStep& step : plan.steps) {
    if (step.fusion->opcode() != HloOpcode::kWhile) continue;
    ++loops;
    ASSERT_EQ(step.buffers.size(), 6u);
    EXPECT_EQ(step.buffers[4].kind, BufferSlot::kParameter);  // w, in place
    EXPECT_EQ(step.buffers[4].index, 0);
  }
  EXPECT_EQ(loops, 1);
  // Donated to result 0, which overwrites it: still the interpreter's.
  ExpectSameBits(
      absl::StrReplaceAll(kWeightsLoop,
                          {{"$ALIAS", ", input_output_alias={ {0}: (0, {}) }"}}),
      arguments);
}

TEST(InPlaceTest, DonatedParameterIsWrittenInPlace) {
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(1000, 1.0f));
  arguments.push_back(Ramp(4, -100.0f));
  arguments.push_back(LiteralUtil::CreateR0<int32_t>(998));  // clamps to 996
  std::unique_ptr<Executable> jit = ExpectSameBits(kDonated, arguments);
  ASSERT_NE(jit, nullptr);
  const auto& plan = dynamic_cast<const JitExecutable&>(*jit).buffers();
  const std::vector<BufferSlot> updates = UpdateSlots(plan);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].kind, BufferSlot::kParameter);
  absl::StatusOr<Literal> expected = jit->Run(Pointers(arguments));
  ASSERT_OK(expected.status());

  // Donated: the result buffers are the argument buffers.
  std::vector<float> x(1000), y(4);
  std::memcpy(x.data(), arguments[0].untyped_data(), 4000);
  std::memcpy(y.data(), arguments[1].untyped_data(), 16);
  int32_t i = 998;
  const std::vector<int64_t> sizes = {4000, 16, 4};
  ASSERT_OK(jit->RunBuffers({x.data(), y.data(), &i}, sizes,
                            {x.data(), y.data()}, {4000, 16}));
  EXPECT_EQ(
      std::memcmp(x.data(), expected->tuple_element(0).untyped_data(), 4000),
      0);
  EXPECT_EQ(
      std::memcmp(y.data(), expected->tuple_element(1).untyped_data(), 16), 0);

  // Not donated: the arguments are left as they were.
  std::vector<float> x2(1000), y2(4), out0(1000), out1(4);
  std::memcpy(x2.data(), arguments[0].untyped_data(), 4000);
  std::memcpy(y2.data(), arguments[1].untyped_data(), 16);
  ASSERT_OK(jit->RunBuffers({x2.data(), y2.data(), &i}, sizes,
                            {out0.data(), out1.data()}, {4000, 16}));
  EXPECT_EQ(
      std::memcmp(out0.data(), expected->tuple_element(0).untyped_data(), 4000),
      0);
  EXPECT_EQ(std::memcmp(x2.data(), arguments[0].untyped_data(), 4000), 0);

  // A donated buffer may not also be passed as another argument.
  EXPECT_THAT(jit->RunBuffers({x.data(), x.data() + 10, &i}, sizes,
                              {x.data(), y.data()}, {4000, 16}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("donated argument buffer 0")));
}

// Parameters swapped into each other's donated buffers.
TEST(InPlaceTest, DonatedParametersThatTradePlaces) {
  const std::string text =
      R"(HloModule trade, input_output_alias={ {0}: (0, {}), {1}: (1, {}) }
ENTRY main {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  ROOT t = (f32[16], f32[16]) tuple(y, x)
})";
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(16, 1.0f));
  arguments.push_back(Ramp(16, 50.0f));
  std::unique_ptr<Executable> jit = ExpectSameBits(text, arguments);
  ASSERT_NE(jit, nullptr);
  std::vector<float> x(16), y(16);
  std::memcpy(x.data(), arguments[0].untyped_data(), 64);
  std::memcpy(y.data(), arguments[1].untyped_data(), 64);
  ASSERT_OK(jit->RunBuffers({x.data(), y.data()}, {64, 64},
                            {x.data(), y.data()}, {64, 64}));
  EXPECT_EQ(std::memcmp(x.data(), arguments[1].untyped_data(), 64), 0);
  EXPECT_EQ(std::memcmp(y.data(), arguments[0].untyped_data(), 64), 0);
}

// XLA's ResNet-50 step aliases its 320 state arrays to their parameters:
// each result is written into its parameter's buffer (donated, nothing is
// copied in or out), none kept aside or copied at the end.
TEST(InPlaceTest, XlaResNetStateIsWrittenIntoItsDonatedParameters) {
  const std::string text = RealHloModule("resnet50_keras_jax_f32__1");
  if (text.empty()) GTEST_SKIP() << "no ../shared/real-hlo/modules";
  absl::StatusOr<std::unique_ptr<Executable>> jit =
      CompileText(text, Backend::kJit);
  ASSERT_OK(jit.status());
  const BufferAssignment& plan =
      dynamic_cast<const JitExecutable&>(**jit).buffers();
  ASSERT_EQ(plan.aliases.size(), 320u);
  EXPECT_TRUE(plan.copies_before.empty());
  int in_place = 0;
  for (const AliasedLeaf& alias : plan.aliases) {
    const BufferSlot& slot = plan.results[alias.result_leaf];
    if (slot.kind == BufferSlot::kParameter &&
        slot.index == alias.argument_leaf) {
      ++in_place;
    }
  }
  EXPECT_EQ(in_place, 320);
}

TEST(InPlaceTest, BadAliasesAreRejectedNamingBothSides) {
  EXPECT_THAT(
      CompileText(
          R"(HloModule twice, input_output_alias={ {0}: (0, {}), {1}: (0, {}) }
ENTRY main {
  x = f32[4] parameter(0)
  ROOT t = (f32[4], f32[4]) tuple(x, x)
})",
          Backend::kJit)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("parameter 0 {} is donated twice"),
                     HasSubstr("{0}: (0, {})"), HasSubstr("{1}: (0, {})"))));
  EXPECT_THAT(
      CompileText(R"(HloModule mismatch, input_output_alias={ {1}: (0, {}) }
ENTRY main {
  x = f32[4] parameter(0)
  ROOT t = (f32[4], f16[4]) tuple(x, f16[4] convert(x))
})",
                  Backend::kInterpreter)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("output {1} is f16[4] (8 bytes)"),
                     HasSubstr("parameter 0 {} it aliases is f32[4] (16 "
                               "bytes)"))));
  EXPECT_THAT(
      CompileText(R"(HloModule nowhere, input_output_alias={ {2}: (0, {}) }
ENTRY main {
  x = f32[4] parameter(0)
  ROOT t = (f32[4], f32[4]) tuple(x, x)
})",
                  Backend::kJit)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("output index {2} does not lead to an element")));
  EXPECT_THAT(
      ParseHloModule(
          R"(HloModule bad, input_output_alias={ {0}: (0, {}, sometimes) }
ENTRY main {
  ROOT x = f32[4] parameter(0)
})")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("'may-alias' or 'must-alias'")));
}

TEST(InPlaceTest, AliasesSurviveTheTextRoundTrip) {
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<HloModule> module,
      ParseHloModule(
          R"(HloModule m, input_output_alias={ {1, 0}: (1, {0}, must-alias), {0}: (0, {}, may-alias) }
ENTRY main {
  x = f32[4] parameter(0)
  p = (f32[2], s32[]) parameter(1)
  e = f32[2] get-tuple-element(p), index=0
  ROOT t = (f32[4], (f32[2])) tuple(x, (f32[2]) tuple(e))
})"));
  ASSERT_EQ(module->input_output_aliases().size(), 2u);
  EXPECT_TRUE(module->input_output_aliases()[0].must_alias);
  ASSERT_OK_AND_ASSIGN(std::vector<AliasedLeaf> leaves,
                       ResolveInputOutputAliases(*module));
  EXPECT_EQ(leaves, (std::vector<AliasedLeaf>{{1, 1}, {0, 0}}));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> again,
                       ParseHloModule(module->ToString()));
  EXPECT_EQ(again->input_output_aliases(), module->input_output_aliases());
  EXPECT_EQ(again->ToString(), module->ToString());
}

}  // namespace
}  // namespace mxla
