// infeed and outfeed (ir/host_feed.h) in both backends: values read from
// and written to the run's HostFeed in token order, inside while loops,
// kept by every pass when nothing reads them; and every error: no feed, a
// value of another shape, an empty queue, malformed ops.
#include <memory>
#include <string>
#include <vector>

#include "builder/ops.h"
#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/host_feed.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::mxla::testing::VerifyHloText;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

constexpr Backend kBackends[] = {Backend::kInterpreter, Backend::kJit};

std::unique_ptr<Executable> CompileFor(const std::string& text,
                                       Backend backend) {
  std::unique_ptr<HloModule> module = ParseHloModule(text).value();
  CompileOptions options;
  options.backend = backend;
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Compile(*module, options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  return executable.ok() ? std::move(*executable) : nullptr;
}

Literal Pair(Literal a, Literal b) {
  std::vector<Literal> elements;
  elements.push_back(std::move(a));
  elements.push_back(std::move(b));
  return LiteralUtil::MakeTuple(std::move(elements));
}

// The outfeed's token is read by nothing: it still runs.
constexpr char kAddFed[] = R"(HloModule feeds
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  in = ((f32[2], s32[]), token[]) infeed(t), infeed_config="cfg"
  d = (f32[2], s32[]) get-tuple-element(in), index=0
  v = f32[2] get-tuple-element(d), index=0
  n = s32[] get-tuple-element(d), index=1
  t2 = token[] get-tuple-element(in), index=1
  sum = f32[2] add(x, v)
  o = token[] outfeed(sum, t2), outfeed_shape=f32[2]{0}
  ROOT r = (f32[2], s32[]) tuple(sum, n)
})";

TEST(HostFeedTest, InfeedReadsAndOutfeedWritesInBothBackends) {
  const Literal x = LiteralUtil::CreateR1<float>({1, 2});
  for (Backend backend : kBackends) {
    SCOPED_TRACE(BackendName(backend));
    std::unique_ptr<Executable> executable = CompileFor(kAddFed, backend);
    ASSERT_NE(executable, nullptr);
    HostFeedQueue feed;
    feed.PushInfeed(Pair(LiteralUtil::CreateR1<float>({10, 20}),
                         LiteralUtil::CreateR0<int32_t>(7)));
    ASSERT_OK_AND_ASSIGN(Literal result,
                         executable->Run({&x}, {.host_feed = &feed}));
    EXPECT_EQ(result, Pair(LiteralUtil::CreateR1<float>({11, 22}),
                           LiteralUtil::CreateR0<int32_t>(7)));
    EXPECT_THAT(feed.TakeOutfeed(),
                ElementsAre(LiteralUtil::CreateR1<float>({11, 22})));
  }
}

// Each trip reads a value and writes the running sum, in order.
TEST(HostFeedTest, FeedsInsideAWhileLoopRunEveryTrip) {
  const std::string text = R"(HloModule loop
cond {
  s = (s32[], f32[], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
body {
  s = (s32[], f32[], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[] get-tuple-element(s), index=1
  t = token[] get-tuple-element(s), index=2
  in = (f32[], token[]) infeed(t)
  v = f32[] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  next = f32[] add(acc, v)
  t3 = token[] outfeed(next, t2)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT out = (s32[], f32[], token[]) tuple(j, next, t3)
}
ENTRY main {
  zero = s32[] constant(0)
  start = f32[] constant(0.5)
  t = token[] after-all()
  init = (s32[], f32[], token[]) tuple(zero, start, t)
  w = (s32[], f32[], token[]) while(init), condition=cond, body=body
  ROOT total = f32[] get-tuple-element(w), index=1
})";
  for (Backend backend : kBackends) {
    SCOPED_TRACE(BackendName(backend));
    std::unique_ptr<Executable> executable = CompileFor(text, backend);
    ASSERT_NE(executable, nullptr);
    HostFeedQueue feed;
    for (float v : {1.0f, 2.0f, 4.0f}) {
      feed.PushInfeed(LiteralUtil::CreateR0<float>(v));
    }
    ASSERT_OK_AND_ASSIGN(Literal result,
                         executable->Run({}, {.host_feed = &feed}));
    EXPECT_EQ(result, LiteralUtil::CreateR0<float>(7.5f));
    EXPECT_THAT(feed.TakeOutfeed(),
                ElementsAre(LiteralUtil::CreateR0<float>(1.5f),
                            LiteralUtil::CreateR0<float>(3.5f),
                            LiteralUtil::CreateR0<float>(7.5f)));
  }
}

// An outfeed written after the root, of the root's value.
TEST(HostFeedTest, OutfeedAfterTheRootOfItsValue) {
  const std::string text = R"(HloModule after
ENTRY main {
  x = f32[2] parameter(0)
  t = token[] after-all()
  ROOT r = f32[2] multiply(x, x)
  o = token[] outfeed(r, t)
})";
  const Literal x = LiteralUtil::CreateR1<float>({3, -2});
  for (Backend backend : kBackends) {
    SCOPED_TRACE(BackendName(backend));
    std::unique_ptr<Executable> executable = CompileFor(text, backend);
    ASSERT_NE(executable, nullptr);
    HostFeedQueue feed;
    ASSERT_OK_AND_ASSIGN(Literal result,
                         executable->Run({&x}, {.host_feed = &feed}));
    EXPECT_EQ(result, LiteralUtil::CreateR1<float>({9, 4}));
    EXPECT_THAT(feed.TakeOutfeed(),
                ElementsAre(LiteralUtil::CreateR1<float>({9, 4})));
  }
}

// Two infeeds of one token are two reads (CSE keeps both; XLA leaves their
// order to the runtime).
TEST(HostFeedTest, EqualInfeedsAreTwoReads) {
  const std::string text = R"(HloModule twice
ENTRY main {
  t = token[] after-all()
  a = (f32[], token[]) infeed(t)
  b = (f32[], token[]) infeed(t)
  x = f32[] get-tuple-element(a), index=0
  y = f32[] get-tuple-element(b), index=0
  ROOT r = (f32[], f32[]) tuple(x, y)
})";
  for (Backend backend : kBackends) {
    SCOPED_TRACE(BackendName(backend));
    std::unique_ptr<Executable> executable = CompileFor(text, backend);
    ASSERT_NE(executable, nullptr);
    HostFeedQueue feed;
    feed.PushInfeed(LiteralUtil::CreateR0<float>(1));
    feed.PushInfeed(LiteralUtil::CreateR0<float>(2));
    ASSERT_OK_AND_ASSIGN(Literal result,
                         executable->Run({}, {.host_feed = &feed}));
    ASSERT_EQ(result.tuple_size(), 2);
    EXPECT_THAT((std::vector<double>{result.tuple_element(0).GetAsDouble(0),
                                     result.tuple_element(1).GetAsDouble(0)}),
                UnorderedElementsAre(1, 2));
  }
}

TEST(HostFeedTest, RunErrorsNameTheOp) {
  const Literal x = LiteralUtil::CreateR1<float>({1, 2});
  for (Backend backend : kBackends) {
    SCOPED_TRACE(BackendName(backend));
    std::unique_ptr<Executable> executable = CompileFor(kAddFed, backend);
    ASSERT_NE(executable, nullptr);
    EXPECT_THAT(executable->Run({&x}),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         HasSubstr("infeed 'in': the run has no host feed "
                                   "(RunOptions::host_feed)")));
    HostFeedQueue empty;
    EXPECT_THAT(executable->Run({&x}, {.host_feed = &empty}),
                StatusIs(absl::StatusCode::kResourceExhausted,
                         HasSubstr("infeed of (f32[2], s32[]): the host feed "
                                   "has no value left")));
    HostFeedQueue wrong;
    wrong.PushInfeed(LiteralUtil::CreateR1<float>({1, 2}));
    EXPECT_THAT(executable->Run({&x}, {.host_feed = &wrong}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("infeed 'in': the host feed gave f32[2] "
                                   "for data of shape (f32[2], s32[])")));
  }
}

TEST(HostFeedTest, BuilderFunctions) {
  XlaBuilder builder("feeds");
  XlaOp x = Parameter(&builder, 0, ShapeUtil::MakeShape(F32, {2}), "x");
  XlaOp in = InfeedWithToken(CreateToken(&builder),
                             ShapeUtil::MakeShape(F32, {2}));
  XlaOp sum = Add(x, GetTupleElement(in, 0));
  XlaOp done = OutfeedWithToken(sum, GetTupleElement(in, 1));
  Tuple(&builder, {sum, done});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, builder.Build());
  const std::string text = computation.module().ToString();
  EXPECT_THAT(text, HasSubstr("(f32[2]{0}, token[]) infeed("));
  EXPECT_THAT(text, HasSubstr("token[] outfeed("));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> jit,
                       Compile(computation.module()));
  HostFeedQueue feed;
  feed.PushInfeed(LiteralUtil::CreateR1<float>({1, 1}));
  const Literal arg = LiteralUtil::CreateR1<float>({1, 2});
  ASSERT_OK_AND_ASSIGN(Literal result, jit->Run({&arg}, {.host_feed = &feed}));
  EXPECT_THAT(feed.TakeOutfeed(),
              ElementsAre(LiteralUtil::CreateR1<float>({2, 3})));

  XlaBuilder bad("feeds");
  XlaOp y = Parameter(&bad, 0, ShapeUtil::MakeShape(F32, {2}), "y");
  OutfeedWithToken(y, y);
  EXPECT_THAT(bad.Build().status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("outfeed: operand 1 must be a token; got "
                                 "f32[2].")));
}

TEST(HostFeedTest, ShapeRuleErrors) {
  EXPECT_THAT(VerifyHloText(R"(HloModule m
ENTRY main {
  t = token[] after-all()
  ROOT in = f32[2] infeed(t)
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("infeed: the result must be a pair of the "
                                 "data (arrays, no token) and a token, like "
                                 "(f32[4], token[]); got f32[2].")));
  EXPECT_THAT(VerifyHloText(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  ROOT in = (f32[2], token[]) infeed(x)
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("infeed: operand 0 must be a token; got "
                                 "f32[2].")));
  EXPECT_THAT(VerifyHloText(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  ROOT o = token[] outfeed(x, x)
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("outfeed: operand 1 must be a token; got "
                                 "f32[2].")));
  EXPECT_THAT(VerifyHloText(R"(HloModule m
ENTRY main {
  t = token[] after-all()
  ROOT o = token[] outfeed(t, t)
})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("outfeed: the data must hold no token; got "
                                 "token[].")));
}

}  // namespace
}  // namespace mxla
