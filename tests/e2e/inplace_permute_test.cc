// XLA's in-place collective-permute(input, output, input_start_indices,
// output_start_indices) with slice_sizes: on 2 and 4 devices (partitions
// with a channel_id, replicas without), jit against the interpreter and
// against values computed here from the definition; the tuple-of-buffers
// form through -start/-done; a ring in a while loop (XLA's pipelined
// use); start indices out of range, clamped as
// dynamic-slice clamps; one device; print/parse round trip; and the
// verifier's messages for what does not fit.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/compile_options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/literal.h"
#include "tests/testlib/replicated_runs.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::DeviceArguments;
using ::mxla::testing::Devices;
using ::testing::HasSubstr;

// d -> d+1 for d < n-1: device 0 is no target and keeps its output.
std::string Chain(int64_t n) {
  std::string pairs = "{";
  for (int64_t d = 0; d + 1 < n; ++d) {
    absl::StrAppend(&pairs, d == 0 ? "" : ",", "{", d, ",", d + 1, "}");
  }
  return pairs + "}";
}

std::string ArrayForm(int64_t n, bool partitions) {
  return absl::StrCat(
      "HloModule m, ", partitions ? "num_partitions=" : "replica_count=", n,
      R"(
ENTRY main {
  input = f32[4,3] parameter(0)
  output = f32[5,3] parameter(1)
  in_row = s32[] parameter(2)
  out_row = s32[] parameter(3)
  one = s32[] constant(1)
  zero = s32[] constant(0)
  in_start = (s32[], s32[]) tuple(in_row, one)
  out_start = (s32[], s32[]) tuple(out_row, zero)
  ROOT cp = f32[5,3] collective-permute(input, output, in_start, out_start), )",
      partitions ? "channel_id=1, " : "", "source_target_pairs=", Chain(n),
      R"(, slice_sizes={{2,2}}
})");
}

Literal Input(int64_t d) {
  std::vector<float> values;
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 3; ++c) values.push_back(100.0f * d + 10 * r + c);
  }
  return LiteralUtil::CreateFromFlat<float>({4, 3}, values);
}

Literal Output(int64_t d) {
  return LiteralUtil::CreateFromFlat<float>(
      {5, 3}, std::vector<float>(15, -1.0f - static_cast<float>(d)));
}

// Device d's result by the definition: the output, and for d > 0 the 2x2
// slice of device d-1's input at (in_row, 1) written at (out_row, 0),
// each start clamped into range.
Literal Expected(int64_t d, int64_t in_row_of_source, int64_t out_row) {
  Literal result = Output(d);
  if (d == 0) return result;
  const Literal source = Input(d - 1);
  const int64_t from = std::clamp<int64_t>(in_row_of_source, 0, 2);
  const int64_t to = std::clamp<int64_t>(out_row, 0, 3);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      result.data<float>()[(to + i) * 3 + j] =
          source.data<float>()[(from + i) * 3 + 1 + j];
    }
  }
  return result;
}

// Runs the array form with device d's rows from `in_row(d)`, `out_row(d)`
// and checks every device.
template <typename InRow, typename OutRow>
void CheckArrayForm(int64_t n, bool partitions, InRow in_row, OutRow out_row) {
  DeviceArguments arguments(n);
  for (int64_t d = 0; d < n; ++d) {
    arguments[d].push_back(Input(d));
    arguments[d].push_back(Output(d));
    arguments[d].push_back(LiteralUtil::CreateR0<int32_t>(in_row(d)));
    arguments[d].push_back(LiteralUtil::CreateR0<int32_t>(out_row(d)));
  }
  const Devices devices = partitions ? Devices{1, n} : Devices{n, 1};
  const std::vector<Literal> results = ::mxla::testing::RunBothBackends(
      ArrayForm(n, partitions), devices, arguments);
  ASSERT_EQ(results.size(), n);
  for (int64_t d = 0; d < n; ++d) {
    EXPECT_EQ(results[d],
              Expected(d, d == 0 ? 0 : in_row(d - 1), out_row(d)))
        << "device " << d;
  }
}

TEST(InPlacePermuteTest, ASliceOfEachSourceLandsInItsTargetsOutput) {
  for (const int64_t n : {2, 4}) {
    for (const bool partitions : {true, false}) {
      SCOPED_TRACE(absl::StrCat(n, partitions ? " partitions" : " replicas"));
      CheckArrayForm(
          n, partitions, [](int64_t d) { return static_cast<int32_t>(d % 3); },
          [](int64_t d) { return static_cast<int32_t>((d + 1) % 4); });
    }
  }
}

// Starts past either end move into range, as dynamic-slice's do.
TEST(InPlacePermuteTest, OutOfRangeStartsAreClamped) {
  for (const int64_t n : {2, 4}) {
    SCOPED_TRACE(absl::StrCat(n, " devices"));
    CheckArrayForm(
        n, true, [](int64_t d) { return static_cast<int32_t>(7 + d); },
        [](int64_t d) { return static_cast<int32_t>(-3 - d); });
  }
}

// XLA's form over tuples of buffers, one slice size list each, through
// -start and -done.
TEST(InPlacePermuteTest, TuplesOfBuffersThroughStartAndDone) {
  const std::string text = R"(HloModule m, num_partitions=4
ENTRY main {
  input = f32[4,3] parameter(0)
  output = f32[5,3] parameter(1)
  a = f32[2] parameter(2)
  b = f32[3] parameter(3)
  in_row = s32[] parameter(4)
  out_row = s32[] parameter(5)
  one = s32[] constant(1)
  zero = s32[] constant(0)
  ins = (f32[4,3], f32[2]) tuple(input, a)
  outs = (f32[5,3], f32[3]) tuple(output, b)
  in0 = (s32[], s32[]) tuple(in_row, one)
  in1 = (s32[]) tuple(one)
  out0 = (s32[], s32[]) tuple(out_row, zero)
  out1 = (s32[]) tuple(out_row)
  in_starts = ((s32[], s32[]), (s32[])) tuple(in0, in1)
  out_starts = ((s32[], s32[]), (s32[])) tuple(out0, out1)
  cps = ((f32[4,3], f32[2]), (f32[5,3], f32[3])) collective-permute-start(ins, outs, in_starts, out_starts), channel_id=1, source_target_pairs={{0,1},{1,2},{2,3}}, slice_sizes={{2,2},{1}}
  ROOT cpd = (f32[5,3], f32[3]) collective-permute-done(cps)
})";
  DeviceArguments arguments(4);
  for (int64_t d = 0; d < 4; ++d) {
    const float f = static_cast<float>(d);
    arguments[d].push_back(Input(d));
    arguments[d].push_back(Output(d));
    arguments[d].push_back(LiteralUtil::CreateR1<float>({f, 10 + f}));
    arguments[d].push_back(LiteralUtil::CreateR1<float>({-f, -f, -f}));
    arguments[d].push_back(LiteralUtil::CreateR0<int32_t>(d % 3));
    arguments[d].push_back(LiteralUtil::CreateR0<int32_t>(d));
  }
  const std::vector<Literal> results =
      ::mxla::testing::RunBothBackends(text, {1, 4}, arguments);
  ASSERT_EQ(results.size(), 4);
  for (int64_t d = 0; d < 4; ++d) {
    const float f = static_cast<float>(d);
    // b's slice of 1 at out_row clamped into [0, 2]: the source's a[1].
    std::vector<float> b = {-f, -f, -f};
    if (d > 0) b[std::min<int64_t>(d, 2)] = 10 + (f - 1);
    std::vector<Literal> elements;
    elements.push_back(Expected(d, (d + 2) % 3, d));
    elements.push_back(LiteralUtil::CreateR1<float>(b));
    EXPECT_EQ(results[d], LiteralUtil::MakeTuple(std::move(elements)))
        << "device " << d;
  }
}

// XLA's pipelined use: in a loop, each step passes one row of a ring's
// buffer on, writing it at the row the step counter names; after n-1
// steps every device holds every device's row.
TEST(InPlacePermuteTest, ARingInALoopGathersEveryRow) {
  for (const int64_t n : {2, 4}) {
    SCOPED_TRACE(absl::StrCat(n, " devices"));
    std::string ring = "{";
    for (int64_t d = 0; d < n; ++d) {
      absl::StrAppend(&ring, d == 0 ? "" : ",", "{", d, ",", (d + 1) % n,
                      "}");
    }
    ring += "}";
    const std::string rows = absl::StrCat("f32[", n, ",2]");
    const std::string state = absl::StrCat("(s32[], ", rows, ")");
    const std::string text = absl::StrCat(
        "HloModule m, num_partitions=", n, "\ncond {\n  p = ", state,
        " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
        "  last = s32[] constant(", n - 1, ")\n"
        "  ROOT lt = pred[] compare(i, last), direction=LT\n}\n"
        "body {\n  p = ", state, " parameter(0)\n"
        "  i = s32[] get-tuple-element(p), index=0\n"
        "  buffer = ", rows, " get-tuple-element(p), index=1\n"
        "  id = u32[] partition-id()\n  me = s32[] convert(id)\n"
        "  count = s32[] constant(", n, ")\n"
        "  shifted = s32[] subtract(me, i)\n  wrapped = s32[] add(shifted, count)\n"
        "  from = s32[] remainder(wrapped, count)\n"
        "  one = s32[] constant(1)\n  to0 = s32[] subtract(wrapped, one)\n"
        "  to = s32[] remainder(to0, count)\n  zero = s32[] constant(0)\n"
        "  in_start = (s32[], s32[]) tuple(from, zero)\n"
        "  out_start = (s32[], s32[]) tuple(to, zero)\n"
        "  moved = ", rows, " collective-permute(buffer, buffer, in_start, "
        "out_start), channel_id=1, source_target_pairs=", ring,
        ", slice_sizes={{1,2}}\n"
        "  next = s32[] add(i, one)\n"
        "  ROOT r = ", state, " tuple(next, moved)\n}\n"
        "ENTRY main {\n  x = ", rows, " parameter(0)\n"
        "  zero = s32[] constant(0)\n  init = ", state,
        " tuple(zero, x)\n  w = ", state,
        " while(init), condition=cond, body=body\n"
        "  ROOT out = ", rows, " get-tuple-element(w), index=1\n}\n");
    // Device d starts with only its own row d = {d, -d}, -1 elsewhere.
    DeviceArguments arguments(n);
    std::vector<float> all;
    for (int64_t d = 0; d < n; ++d) {
      std::vector<float> mine(2 * n, -1.0f);
      mine[2 * d] = static_cast<float>(d);
      mine[2 * d + 1] = -static_cast<float>(d);
      all.push_back(static_cast<float>(d));
      all.push_back(-static_cast<float>(d));
      arguments[d].push_back(LiteralUtil::CreateFromFlat<float>({n, 2}, mine));
    }
    const std::vector<Literal> results =
        ::mxla::testing::RunBothBackends(text, {1, n}, arguments);
    ASSERT_EQ(results.size(), n);
    for (int64_t d = 0; d < n; ++d) {
      EXPECT_EQ(results[d], LiteralUtil::CreateFromFlat<float>({n, 2}, all))
          << "device " << d;
    }
  }
}

// On one device the pair {0,0} writes its own slice; no pair keeps the
// output. The form prints and parses back the same.
TEST(InPlacePermuteTest, OneDeviceAndRoundTrip) {
  std::string own = ArrayForm(1, true);
  own.replace(own.find("source_target_pairs={}"), 22,
              "source_target_pairs={{0,0}}");
  for (const std::string& text : {own, ArrayForm(1, true)}) {
    DeviceArguments arguments(1);
    arguments[0].push_back(Input(0));
    arguments[0].push_back(Output(0));
    arguments[0].push_back(LiteralUtil::CreateR0<int32_t>(1));
    arguments[0].push_back(LiteralUtil::CreateR0<int32_t>(2));
    const std::vector<Literal> results =
        ::mxla::testing::RunBothBackends(text, {1, 1}, arguments);
    ASSERT_EQ(results.size(), 1);
    Literal expected = Output(0);
    if (text == own) {
      for (int64_t i = 0; i < 2; ++i) {
        for (int64_t j = 0; j < 2; ++j) {
          expected.data<float>()[(2 + i) * 3 + j] =
              Input(0).data<float>()[(1 + i) * 3 + 1 + j];
        }
      }
    }
    EXPECT_EQ(results[0], expected);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(text));
    const std::string printed = module->ToString();
    EXPECT_THAT(printed, HasSubstr("slice_sizes={{2,2}}"));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> reread,
                         ParseHloModule(printed));
    EXPECT_EQ(reread->ToString(), printed);
  }
}

// The verifier's message for `text` with `from` replaced by `to` in the
// array form on 2 partitions.
std::string Refusal(const std::string& from, const std::string& to) {
  std::string text = ArrayForm(2, true);
  const size_t at = text.find(from);
  if (at == std::string::npos) return "'" + from + "' not in the text";
  text.replace(at, from.size(), to);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return std::string(module.status().message());
  return std::string(VerifyModule(**module).message());
}

TEST(InPlacePermuteTest, WhatDoesNotFitIsRefusedByMessage) {
  EXPECT_THAT(Refusal("slice_sizes={{2,2}}", "slice_sizes={{2,4}}"),
              HasSubstr("collective-permute: buffer 0: slice size 4 in "
                        "dimension 1 exceeds the input f32[4,3] or the "
                        "output f32[5,3]."));
  EXPECT_THAT(Refusal("slice_sizes={{2,2}}", "slice_sizes={{2}}"),
              HasSubstr("buffer 0: slice_sizes {2} has 1 sizes but the "
                        "buffer f32[4,3] has rank 2."));
  EXPECT_THAT(Refusal("slice_sizes={{2,2}}", "slice_sizes={{2,2},{1,1}}"),
              HasSubstr("slice_sizes has 2 lists but there are 1 buffers."));
  EXPECT_THAT(Refusal(", slice_sizes={{2,2}}", ""),
              HasSubstr("the in-place form (input, output, "
                        "input_start_indices, output_start_indices) needs "
                        "slice_sizes"));
  // XLA's own words for the start indices.
  EXPECT_THAT(Refusal("in_start = (s32[], s32[]) tuple(in_row, one)",
                      "in_start = (s32[]) tuple(in_row)"),
              HasSubstr("Buffer offset index should have the same number "
                        "of elements as the buffer's rank."));
  EXPECT_THAT(Refusal("in_start = (s32[], s32[]) tuple(in_row, one)",
                      "in_start = s32[] add(in_row, one)"),
              HasSubstr("Buffer offset is not tuple."));
  EXPECT_THAT(
      Refusal("in_start = (s32[], s32[]) tuple(in_row, one)",
              "p = (s32[], s32[]) tuple(in_row, one)\n  in_start = "
              "((s32[], s32[]), (s32[], s32[])) tuple(p, p)"),
      HasSubstr("several slices of one buffer (a tuple of tuples of start "
                "indices) are not supported by mxla"));
  EXPECT_THAT(Refusal("in_start = (s32[], s32[]) tuple(in_row, one)",
                      "f = f32[] constant(1)\n  in_start = (s32[], f32[]) "
                      "tuple(in_row, f)"),
              HasSubstr("must hold integer scalars"));
  EXPECT_THAT(Refusal("collective-permute(input, output, in_start, "
                      "out_start)",
                      "collective-permute(input, output, in_start)"),
              HasSubstr("Unexpected number of operands: 3."));
  EXPECT_THAT(Refusal("f32[5,3] collective-permute(input, output, "
                      "in_start, out_start)",
                      "f32[4,3] collective-permute(input)"),
              HasSubstr("slice_sizes is only for the in-place form"));
}

}  // namespace
}  // namespace mxla
