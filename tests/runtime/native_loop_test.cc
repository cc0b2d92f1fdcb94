// Native loops (runtime/native_loop.h): a while loop without infeed or
// outfeed compiles into one native function. Each module runs natively,
// step by step (CompileOptions::native_loops = false) and on the
// interpreter, bit for bit, on 1 and 2 threads: loops over a large
// carried buffer updated in place, nested loops with a conditional and a
// scatter inside, zero trips, an initial state still read after the loop.
// A loop with an infeed stays step by step; a run that limits the trips
// runs step by step and fails naming the loop.
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "driver/compile.h"
#include "driver/native_loop_compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/host_feed.h"
#include "runtime/buffer_assignment.h"
#include "runtime/jit_executable.h"
#include "runtime/native_loop.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::Pointers;
using ::mxla::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<Executable>> CompileText(const std::string& text,
                                                        Backend backend,
                                                        bool native_loops) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  CompileOptions options;
  options.backend = backend;
  options.native_loops = native_loops;
  return Compile(**module, options);
}

// How many of the program's top-level while loops run natively.
int NativeLoops(const Executable& executable) {
  const auto* jit = dynamic_cast<const JitExecutable*>(&executable);
  if (jit == nullptr) return -1;
  int native = 0;
  for (const JitExecutable::Program::Step& step : jit->program()->steps) {
    if (step.subprogram == nullptr) continue;
    const auto* loop =
        std::get_if<JitExecutable::Program::WhileLoop>(step.subprogram.get());
    if (loop != nullptr && loop->native != nullptr) ++native;
  }
  return native;
}

// Runs `text` natively, step by step and on the interpreter, and expects
// the same bits; returns the native executable.
std::unique_ptr<Executable> ExpectSameBits(
    const std::string& text, const std::vector<Literal>& arguments) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<Executable>> interpreter =
      CompileText(text, Backend::kInterpreter, true);
  EXPECT_OK(interpreter.status());
  if (!interpreter.ok()) return nullptr;
  absl::StatusOr<Literal> expected = (*interpreter)->Run(Pointers(arguments));
  EXPECT_OK(expected.status());
  if (!expected.ok()) return nullptr;
  std::unique_ptr<Executable> native;
  for (bool native_loops : {true, false}) {
    absl::StatusOr<std::unique_ptr<Executable>> jit =
        CompileText(text, Backend::kJit, native_loops);
    EXPECT_OK(jit.status());
    if (!jit.ok()) return nullptr;
    if (!native_loops) EXPECT_EQ(NativeLoops(**jit), 0);
    for (int threads : {1, 2}) {
      RunOptions options;
      options.threads = threads;
      absl::StatusOr<Literal> actual = (*jit)->Run(Pointers(arguments), options);
      EXPECT_OK(actual.status());
      if (actual.ok()) {
        EXPECT_TRUE(*actual == *expected)
            << "threads " << threads << " native " << native_loops;
      }
    }
    if (native_loops) native = *std::move(jit);
  }
  return native;
}

Literal Ramp(int64_t n, float start) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = start + 0.5f * i - (i % 7);
  return *LiteralUtil::CreateFromFlatChecked<float>({n}, values);
}

// From `start` to 300, each trip writing a value at a strided position of a
// carried f32[N] and mixing a u32 state like a counter-based RNG; the
// initial buffer is returned as well, so it must survive the loop.
constexpr char kLoop[] = R"(HloModule loop
cond {
  s = (s32[], f32[@N], u32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(300)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[@N], u32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[@N] get-tuple-element(s), index=1
  k = u32[2] get-tuple-element(s), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  stride = s32[] constant(@STRIDE)
  at = s32[] multiply(i, stride)
  c13 = u32[] constant(13)
  b13 = u32[2] broadcast(c13), dimensions={}
  rot = u32[2] shift-left(k, b13)
  iu = u32[] convert(i)
  bi = u32[2] broadcast(iu), dimensions={}
  mixed = u32[2] xor(rot, bi)
  k2 = u32[2] add(mixed, k)
  first = u32[1] slice(k2), slice={[0:1]}
  f = f32[1] convert(first)
  old = f32[1] dynamic-slice(v, at), dynamic_slice_sizes={1}
  new = f32[1] add(f, old)
  w = f32[@N] dynamic-update-slice(v, new, at)
  ROOT r = (s32[], f32[@N], u32[2]) tuple(j, w, k2)
}
ENTRY main {
  x = f32[@N] parameter(0)
  start = s32[] parameter(1)
  seed = u32[2] constant({7, 9})
  init = (s32[], f32[@N], u32[2]) tuple(start, x, seed)
  l = (s32[], f32[@N], u32[2]) while(init), condition=cond, body=body
  out = f32[@N] get-tuple-element(l), index=1
  key = u32[2] get-tuple-element(l), index=2
  ROOT t = (f32[@N], u32[2], f32[@N]) tuple(out, key, x)
})";

std::string Loop(int64_t n, int64_t stride) {
  return absl::StrReplaceAll(kLoop, {{"@N", std::to_string(n)},
                                     {"@STRIDE", std::to_string(stride)}});
}

TEST(NativeLoopTest, LoopOverALargeCarriedBufferMatchesBitForBit) {
  for (int64_t n : {1000, 100000}) {
    for (int32_t start : {0, 299, 300, 1000}) {  // 300, 1, 0, 0 trips
      std::vector<Literal> arguments;
      arguments.push_back(Ramp(n, 1.0f));
      arguments.push_back(LiteralUtil::CreateR0<int32_t>(start));
      std::unique_ptr<Executable> jit =
          ExpectSameBits(Loop(n, n / 300), arguments);
      ASSERT_NE(jit, nullptr);
      EXPECT_EQ(NativeLoops(*jit), 1);
    }
  }
}

// An outer loop whose body runs an inner loop, a conditional on the trip's
// parity and a scatter that adds into the carried buffer.
constexpr char kNested[] = R"(HloModule nested
inner_cond {
  s = (s32[], f32[8]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(j, n), direction=LT
}
inner_body {
  s = (s32[], f32[8]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  a = f32[8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  h = f32[] constant(1.5)
  hb = f32[8] broadcast(h), dimensions={}
  a2 = f32[8] multiply(a, hb)
  ROOT r = (s32[], f32[8]) tuple(j2, a2)
}
even {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
odd {
  p = f32[8] parameter(0)
  ROOT e = f32[8] exponential(p)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  s = (s32[], f32[4096], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(40)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4096], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4096] get-tuple-element(s), index=1
  a = f32[8] get-tuple-element(s), index=2
  zero = s32[] constant(0)
  small = f32[] constant(0.01)
  sb = f32[8] broadcast(small), dimensions={}
  a0 = f32[8] multiply(a, sb)
  init = (s32[], f32[8]) tuple(zero, a0)
  inner = (s32[], f32[8]) while(init), condition=inner_cond, body=inner_body
  ia = f32[8] get-tuple-element(inner), index=1
  two = s32[] constant(2)
  r = s32[] remainder(i, two)
  c = f32[8] conditional(r, ia, ia), branch_computations={even, odd}
  hundred = s32[] constant(100)
  at = s32[] multiply(i, hundred)
  idx = s32[1] reshape(at)
  sv = f32[4096] scatter(v, idx, c), update_window_dims={0}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=add
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[4096], f32[8]) tuple(i2, sv, c)
}
ENTRY main {
  x = f32[4096] parameter(0)
  a = f32[8] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4096], f32[8]) tuple(zero, x, a)
  l = (s32[], f32[4096], f32[8]) while(init), condition=cond, body=body
  v = f32[4096] get-tuple-element(l), index=1
  c = f32[8] get-tuple-element(l), index=2
  ROOT t = (f32[4096], f32[8]) tuple(v, c)
})";

TEST(NativeLoopTest, NestedLoopConditionalAndScatterInsideMatch) {
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(4096, -3.0f));
  arguments.push_back(Ramp(8, 0.25f));
  std::unique_ptr<Executable> jit = ExpectSameBits(kNested, arguments);
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(NativeLoops(*jit), 1);
}

// Issue 36's micro case (1,000 one-element updates of a carried f32[1M]
// cost what they do on f32[1K] when the caller donates the buffer), here
// on f32[100000] to keep the interpreter quick: the loop's initial state,
// its state and the result are the parameter's one buffer, so neither the
// run nor the loop copies it.
TEST(NativeLoopTest, DonatedCarriedBufferIsNeverCopied) {
  const std::string text =
      R"(HloModule micro, input_output_alias={ {}: (0, {}) }
cond {
  s = (s32[], f32[100000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[100000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[100000] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  f = f32[] convert(i)
  u = f32[1] reshape(f)
  at = s32[] multiply(i, i)
  w = f32[100000] dynamic-update-slice(v, u, at)
  ROOT r = (s32[], f32[100000]) tuple(j, w)
}
ENTRY main {
  x = f32[100000] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[100000]) tuple(zero, x)
  l = (s32[], f32[100000]) while(init), condition=cond, body=body
  ROOT out = f32[100000] get-tuple-element(l), index=1
})";
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(100000, 2.0f));
  std::unique_ptr<Executable> jit = ExpectSameBits(text, arguments);
  ASSERT_NE(jit, nullptr);
  ASSERT_EQ(NativeLoops(*jit), 1);
  const BufferAssignment& plan =
      dynamic_cast<const JitExecutable&>(*jit).buffers();
  const JitExecutable::Program::Step* loop = nullptr;
  for (const auto& step : dynamic_cast<const JitExecutable&>(*jit)
                              .program()
                              ->steps) {
    if (step.subprogram != nullptr) loop = &step;
  }
  ASSERT_NE(loop, nullptr);
  // Operand leaves (i, v), then result leaves (i, v): v's are parameter 0.
  ASSERT_EQ(loop->buffers.size(), 4u);
  for (size_t leaf : {1u, 3u}) {
    EXPECT_EQ(loop->buffers[leaf].kind, BufferSlot::kParameter) << leaf;
    EXPECT_EQ(loop->buffers[leaf].index, 0) << leaf;
  }
  EXPECT_EQ(plan.results[0].kind, BufferSlot::kParameter);
  EXPECT_TRUE(plan.copies_before.empty());

  // Donated through RunBuffers: the buffer ends up holding the result.
  absl::StatusOr<Literal> expected = jit->Run(Pointers(arguments));
  ASSERT_OK(expected.status());
  Literal buffer(arguments[0]);
  void* data = buffer.untyped_data();
  ASSERT_OK(jit->RunBuffers({data}, {400000}, {data}, {400000}));
  EXPECT_TRUE(buffer == *expected);
}

// Weights a loop carries unchanged stay in the caller's buffer and are
// never written, not even with their own bytes: the argument here is
// read-only memory, natively and step by step (a write would fault).
TEST(NativeLoopTest, UnchangedStateIsReadWhereTheCallerKeepsIt) {
  const std::string text = R"(HloModule weights
cond {
  s = (s32[], f32[4096], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4096], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[4096] get-tuple-element(s), index=1
  x = f32[4096] get-tuple-element(s), index=2
  p = f32[4096] multiply(x, w)
  t = f32[4096] add(p, w)
  ROOT r = (s32[], f32[4096], f32[4096]) tuple(j, w, t)
}
ENTRY main {
  w = f32[4096] parameter(0)
  x = f32[4096] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4096], f32[4096]) tuple(zero, w, x)
  l = (s32[], f32[4096], f32[4096]) while(init), condition=cond, body=body
  ROOT out = f32[4096] get-tuple-element(l), index=2
})";
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(4096, -1.0f));
  arguments.push_back(Ramp(4096, 0.25f));
  for (int64_t i = 0; i < 4096; ++i) {
    arguments[0].data<float>()[i] *= 1e-3f;
    arguments[1].data<float>()[i] *= 1e-3f;
  }
  std::unique_ptr<Executable> native = ExpectSameBits(text, arguments);
  ASSERT_NE(native, nullptr);
  ASSERT_EQ(NativeLoops(*native), 1);
  absl::StatusOr<Literal> expected = native->Run(Pointers(arguments));
  ASSERT_OK(expected.status());
  // The weights on pages nobody may write.
  const size_t bytes = 4096 * sizeof(float);
  void* pages = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  std::memcpy(pages, arguments[0].untyped_data(), bytes);
  ASSERT_EQ(mprotect(pages, bytes, PROT_READ), 0);
  for (bool native_loops : {true, false}) {
    absl::StatusOr<std::unique_ptr<Executable>> jit =
        CompileText(text, Backend::kJit, native_loops);
    ASSERT_OK(jit.status());
    Literal out(expected->shape());
    ASSERT_OK((*jit)->RunBuffers({pages, arguments[1].untyped_data()},
                                 {bytes, bytes}, {out.untyped_data()},
                                 {bytes}));
    EXPECT_TRUE(out == *expected) << "native " << native_loops;
  }
  munmap(pages, bytes);
}

// A body of more than kMaxNativeLoopInstructions instructions runs step
// by step: its trips are spent in kernels, and a native copy would double
// its compile.
TEST(NativeLoopTest, LargeBodiesRunStepByStep) {
  std::string chain;
  std::string last = "x";
  for (int64_t i = 0; i <= kMaxNativeLoopInstructions; ++i) {
    const std::string next = absl::StrCat("a", i);
    absl::StrAppend(&chain, "  ", next, " = f32[8] negate(", last, ")\n");
    last = next;
  }
  const std::string text = absl::StrCat(R"(HloModule large
cond {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[8] get-tuple-element(s), index=1
)", chain, "  ROOT r = (s32[], f32[8]) tuple(j, ", last, R"()
}
ENTRY main {
  x = f32[8] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, x)
  l = (s32[], f32[8]) while(init), condition=cond, body=body
  ROOT out = f32[8] get-tuple-element(l), index=1
})");
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(8, 1.0f));
  std::unique_ptr<Executable> jit = ExpectSameBits(text, arguments);
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(NativeLoops(*jit), 0);
}

// A loop body with an infeed: the host feed is the runtime's, so the loop
// runs step by step, reading one value per trip.
TEST(NativeLoopTest, ALoopWithAnInfeedRunsStepByStep) {
  constexpr char kFeed[] = R"(HloModule feed
cond {
  s = (s32[], f32[4], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[4] get-tuple-element(s), index=1
  t = token[] get-tuple-element(s), index=2
  in = (f32[4], token[]) infeed(t)
  x = f32[4] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  a2 = f32[4] add(a, x)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[4], token[]) tuple(i2, a2, t2)
}
ENTRY main {
  zero = s32[] constant(0)
  z = f32[] constant(0)
  a = f32[4] broadcast(z), dimensions={}
  t = token[] after-all()
  init = (s32[], f32[4], token[]) tuple(zero, a, t)
  l = (s32[], f32[4], token[]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(l), index=1
})";
  absl::StatusOr<std::unique_ptr<Executable>> jit =
      CompileText(kFeed, Backend::kJit, true);
  ASSERT_OK(jit.status());
  EXPECT_EQ(NativeLoops(**jit), 0);
  HostFeedQueue feed;
  for (float value : {1.0f, 2.0f, 4.0f}) {
    feed.PushInfeed(*LiteralUtil::CreateFromFlatChecked<float>(
        {4}, {value, value, value, value}));
  }
  RunOptions options;
  options.host_feed = &feed;
  absl::StatusOr<Literal> result = (*jit)->Run({}, options);
  ASSERT_OK(result.status());
  EXPECT_EQ(result->data<float>()[0], 7.0f);
}

TEST(NativeLoopTest, ALimitOnTheTripsRunsStepByStepAndNamesTheLoop) {
  std::vector<Literal> arguments;
  arguments.push_back(Ramp(1000, 1.0f));
  arguments.push_back(LiteralUtil::CreateR0<int32_t>(0));
  absl::StatusOr<std::unique_ptr<Executable>> jit =
      CompileText(Loop(1000, 3), Backend::kJit, true);
  ASSERT_OK(jit.status());
  ASSERT_EQ(NativeLoops(**jit), 1);
  RunOptions options;
  options.max_loop_trips = 299;
  EXPECT_THAT((*jit)->Run(Pointers(arguments), options).status(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("went through its body more than 299 times")));
  options.max_loop_trips = 300;
  absl::StatusOr<Literal> limited = (*jit)->Run(Pointers(arguments), options);
  ASSERT_OK(limited.status());
  absl::StatusOr<Literal> native = (*jit)->Run(Pointers(arguments));
  ASSERT_OK(native.status());
  EXPECT_TRUE(*limited == *native);
}

}  // namespace
}  // namespace mxla
