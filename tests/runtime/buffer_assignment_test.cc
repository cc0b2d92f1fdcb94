// Buffer assignment: nothing is allocated for a fully fused graph, results
// are written in place, temporaries are reused once their last reader has
// run (never by that reader), and values returned twice are copied.
#include "runtime/buffer_assignment.h"

#include <string>

#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

constexpr char kChain[] = R"(HloModule chain
e1 {
  a = f32[1000] parameter(0)
  ROOT ea = f32[1000] exponential(a)
}
e2 {
  b = f32[1000] parameter(0)
  ROOT eb = f32[1000] exponential(b)
}
e3 {
  c = f32[1000] parameter(0)
  ROOT ec = f32[1000] exponential(c)
}
e4 {
  d = f32[1000] parameter(0)
  ROOT ed = f32[1000] exponential(d)
}
ENTRY main {
  x = f32[1000] parameter(0)
  t1 = f32[1000] fusion(x), kind=kLoop, calls=e1
  t2 = f32[1000] fusion(t1), kind=kLoop, calls=e2
  t3 = f32[1000] fusion(t2), kind=kLoop, calls=e3
  ROOT t4 = f32[1000] fusion(t3), kind=kLoop, calls=e4
})";

TEST(BufferAssignmentTest, TemporariesAreReusedOnceDead) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kChain));
  ASSERT_OK_AND_ASSIGN(BufferAssignment assignment,
                       AssignBuffers(*module->entry_computation()));
  ASSERT_EQ(assignment.steps.size(), 4u);
  // t1 and t2 are both live while t2 is computed; t3 takes t1's place.
  EXPECT_EQ(assignment.arena_bytes, 2 * 4000 + 2 * 32);  // 64-byte aligned
  const BufferSlot& t1 = assignment.steps[0].buffers[1];
  const BufferSlot& t2 = assignment.steps[1].buffers[1];
  const BufferSlot& t3 = assignment.steps[2].buffers[1];
  EXPECT_EQ(t1.kind, BufferSlot::kArena);
  EXPECT_NE(t1.offset, t2.offset);
  EXPECT_EQ(t3.offset, t1.offset);
  // The root is written straight into the result.
  EXPECT_EQ(assignment.steps[3].buffers[1].kind, BufferSlot::kResult);
  EXPECT_EQ(assignment.steps[0].buffers[0].kind, BufferSlot::kParameter);
}

TEST(BufferAssignmentTest, FullyFusedGraphsNeedNoArenaAndAliasesCopy) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(R"(HloModule fused
neg {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
ENTRY main {
  x = f32[8] parameter(0)
  f = f32[8] fusion(x), kind=kLoop, calls=neg
  ROOT t = (f32[8], f32[8], f32[8]) tuple(f, f, x)
})"));
  ASSERT_OK_AND_ASSIGN(BufferAssignment assignment,
                       AssignBuffers(*module->entry_computation()));
  EXPECT_EQ(assignment.arena_bytes, 0);
  ASSERT_EQ(assignment.results.size(), 3u);
  EXPECT_EQ(assignment.results[0].kind, BufferSlot::kResult);
  EXPECT_EQ(assignment.results[0].index, 0);
  // The second f is copied from result 0; x from the parameter.
  EXPECT_EQ(assignment.results[1].kind, BufferSlot::kResult);
  EXPECT_EQ(assignment.results[1].index, 0);
  EXPECT_EQ(assignment.results[2].kind, BufferSlot::kParameter);
}

// exp, then an in-place dynamic-update-slice of it, then a reader: @READ
// names what `last` reads besides the update.
constexpr char kUpdateChain[] = R"(HloModule update_chain
ex {
  a = f32[256] parameter(0)
  ROOT e = f32[256] exponential(a)
}
dus {
  b = f32[256] parameter(0)
  v = f32[4] parameter(1)
  i = s32[] parameter(2)
  ROOT u = f32[256] dynamic-update-slice(b, v, i)
}
sum {
  c = f32[256] parameter(0)
  d = f32[256] parameter(1)
  ROOT s = f32[256] add(c, d)
}
ENTRY main {
  x = f32[256] parameter(0)
  y = f32[4] parameter(1)
  j = s32[] parameter(2)
  t = f32[256] fusion(x), kind=kLoop, calls=ex, plan={kind=loop, store=plain}
  u = f32[256] fusion(t, y, j), kind=kLoop, calls=dus, plan={kind=loop, store=plain}
  ROOT last = f32[256] fusion(u, @READ), kind=kLoop, calls=sum, plan={kind=loop, store=plain}
})";

TEST(BufferAssignmentTest, AnUpdateTakesOverItsDeadOperandOnly) {
  for (const bool live : {false, true}) {
    std::string text = kUpdateChain;
    text.replace(text.find("@READ"), 5, live ? "t" : "x");
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    ASSERT_OK_AND_ASSIGN(BufferAssignment assignment,
                         AssignBuffers(*module->entry_computation()));
    ASSERT_EQ(assignment.steps.size(), 3u);
    const BufferSlot& t = assignment.steps[0].buffers[1];
    const BufferSlot& u = assignment.steps[1].buffers[3];
    ASSERT_EQ(t.kind, BufferSlot::kArena);
    ASSERT_EQ(u.kind, BufferSlot::kArena);
    // Dead after the update: one buffer. Read afterwards: two.
    EXPECT_EQ(u.offset == t.offset, !live) << (live ? "live" : "dead");
    EXPECT_EQ(assignment.arena_bytes, live ? 2 * 1024 : 1024);
  }
}

// input_output_alias: the update goes into its donated operand, a value
// the parameter's readers still need goes to the arena and is copied in at
// the end, and an overwritten parameter that is also returned is copied
// aside first.
TEST(BufferAssignmentTest, AliasedResultsGoIntoTheirParameter) {
  constexpr char kText[] = R"(HloModule aliased
dus {
  b = f32[256] parameter(0)
  v = f32[4] parameter(1)
  i = s32[] parameter(2)
  ROOT u = f32[256] dynamic-update-slice(b, v, i)
}
neg {
  c = f32[4] parameter(0)
  ROOT n = f32[4] negate(c)
}
ENTRY main {
  x = f32[256] parameter(0)
  y = f32[4] parameter(1)
  j = s32[] parameter(2)
  u = f32[256] fusion(x, y, j), kind=kLoop, calls=dus, plan={kind=loop, store=plain}
  n = f32[4] fusion(y), kind=kLoop, calls=neg, plan={kind=loop, store=plain}
  ROOT t = (f32[256], f32[4], f32[4]) tuple(u, n, y)
})";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kText));
  // u into x; n into y, which n itself reads (not in place: the arena);
  // y is returned too, so it is set aside before it is overwritten.
  ASSERT_OK_AND_ASSIGN(
      BufferAssignment assignment,
      AssignBuffers(*module->entry_computation(), {{0, 0}, {1, 1}}));
  const BufferSlot& u = assignment.steps[0].buffers[3];
  const BufferSlot& n = assignment.steps[1].buffers[1];
  EXPECT_EQ(u.kind, BufferSlot::kParameter);
  EXPECT_EQ(u.index, 0);
  EXPECT_EQ(n.kind, BufferSlot::kArena);
  ASSERT_EQ(assignment.copies_before.size(), 1u);
  EXPECT_EQ(assignment.copies_before[0].first.kind, BufferSlot::kParameter);
  EXPECT_EQ(assignment.copies_before[0].first.index, 1);
  EXPECT_EQ(assignment.results[2].kind, BufferSlot::kArena);
  EXPECT_EQ(assignment.results[2].offset,
            assignment.copies_before[0].second.offset);
  EXPECT_NE(n.offset, assignment.results[2].offset);
}

// A loop state leaf the body passes through unchanged stays in its
// argument's buffer (no copy in); one the body updates gets a buffer of its
// own, and so does the pass-through leaf when that argument is donated and
// overwritten.
constexpr char kLoopWithWeights[] = R"(HloModule loop
cond {
  s = (s32[], f32[1000], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[1000], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[1000] get-tuple-element(s), index=1
  v = f32[8] get-tuple-element(s), index=2
  v2 = f32[8] add(v, v)
  ROOT t = (s32[], f32[1000], f32[8]) tuple(j, w, v2)
}
ex {
  a = f32[1000] parameter(0)
  ROOT e = f32[1000] exponential(a)
}
ENTRY main {
  w = f32[1000] parameter(0)
  v = f32[8] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[1000], f32[8]) tuple(zero, w, v)
  loop = (s32[], f32[1000], f32[8]) while(init), condition=cond, body=body
  lw = f32[1000] get-tuple-element(loop), index=1
  lv = f32[8] get-tuple-element(loop), index=2
  e = f32[1000] fusion(lw), kind=kLoop, calls=ex, plan={kind=loop, store=plain}
  ROOT r = (f32[1000], f32[8]) tuple(e, lv)
})";

TEST(BufferAssignmentTest, LoopStateThatNeverChangesStaysInItsArgument) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule(kLoopWithWeights));
  ASSERT_OK_AND_ASSIGN(BufferAssignment assignment,
                       AssignBuffers(*module->entry_computation()));
  ASSERT_EQ(assignment.steps.size(), 2u);
  // The loop step: 3 initial leaves, then 3 state leaves.
  const std::vector<BufferSlot>& loop = assignment.steps[0].buffers;
  ASSERT_EQ(loop.size(), 6u);
  EXPECT_EQ(loop[1].kind, BufferSlot::kParameter);
  EXPECT_EQ(loop[4].kind, BufferSlot::kParameter);  // w, read in place
  EXPECT_EQ(loop[4].index, 0);
  EXPECT_EQ(loop[3].kind, BufferSlot::kArena);      // the counter changes
  EXPECT_EQ(loop[5].kind, BufferSlot::kResult);     // v changes, returned
  // The exponential reads w where it is.
  EXPECT_EQ(assignment.steps[1].buffers[0].kind, BufferSlot::kParameter);

  // w donated to result 0, which overwrites it: the loop copies w in.
  ASSERT_OK_AND_ASSIGN(
      BufferAssignment donated,
      AssignBuffers(*module->entry_computation(), {{0, 0}}));
  const std::vector<BufferSlot>& donated_loop = donated.steps[0].buffers;
  EXPECT_EQ(donated_loop[4].kind, BufferSlot::kArena);
}

TEST(BufferAssignmentTest, UnfusedInstructionsAreRejected) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                       ParseHloModule("HloModule m\nENTRY e {\n  x = f32[2] "
                                      "parameter(0)\n  ROOT n = f32[2] "
                                      "negate(x)\n}\n"));
  EXPECT_THAT(AssignBuffers(*module->entry_computation()),
              ::mxla::testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                        ::testing::HasSubstr("outside any fusion")));
}

}  // namespace
}  // namespace mxla
