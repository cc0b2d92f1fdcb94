// vmap of collectives, run on 2 in-process devices and checked against
// the definition of vmap: on every device, slice b of the batched
// program's result is what the per-example program gives when every
// device runs it on its slice b, with the batch at every dimension; both
// backends agree on the batched program (tests/testlib/replicated_runs.h).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "builder/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/hlo_printer.h"
#include "tests/testlib/batching_check.h"
#include "tests/testlib/collective_fixtures.h"
#include "tests/testlib/parsed_computation.h"
#include "tests/testlib/replicated_runs.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/batching.h"

namespace mxla {
namespace {

using ::mxla::testing::BatchDims;
using ::mxla::testing::Build;
using ::mxla::testing::DeviceArguments;
using ::mxla::testing::Devices;
using ::mxla::testing::Parsed;
using ::mxla::testing::RandomBytesLiteral;
using ::mxla::testing::SliceAt;
using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

constexpr Devices kTwo = {2, 1};
constexpr int64_t kBatch = 3;

Shape F64Array(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(F64, dims);
}

// The elements of a device's result (itself for an array).
std::vector<Literal> Elements(const Literal& result) {
  if (!result.shape().IsTuple()) return {result};
  std::vector<Literal> elements;
  for (int64_t e = 0; e < result.tuple_size(); ++e) {
    elements.push_back(result.tuple_element(e));
  }
  return elements;
}

// On 2 devices, each with its own random arguments batched at in_dims.
void ExpectBatchMatchesLoopOnDevices(const XlaComputation& f,
                                     const BatchDims& in_dims) {
  SCOPED_TRACE(f.name());
  const HloComputation& entry = *f.module().entry_computation();
  DeviceArguments batched_args(kTwo.count());
  for (int64_t d = 0; d < kTwo.count(); ++d) {
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      const Shape& shape = entry.parameter_instruction(i)->shape();
      std::vector<int64_t> dims(shape.dimensions().begin(),
                                shape.dimensions().end());
      if (in_dims[i]) dims.insert(dims.begin() + *in_dims[i], kBatch);
      batched_args[d].push_back(RandomBytesLiteral(
          ShapeUtil::MakeShape(shape.element_type(), dims), 10 * d + i + 1));
    }
  }
  absl::StatusOr<XlaComputation> batched = Batch(f, in_dims, kBatch);
  ASSERT_TRUE(batched.ok()) << batched.status();
  const std::vector<Literal> all = ::mxla::testing::RunBothBackends(
      HloPrinter::ModuleToString(batched->module()), kTwo, batched_args);
  ASSERT_EQ(all.size(), kTwo.count());
  const std::string per_example = HloPrinter::ModuleToString(f.module());
  for (int64_t b = 0; b < kBatch; ++b) {
    DeviceArguments args(kTwo.count());
    for (int64_t d = 0; d < kTwo.count(); ++d) {
      for (size_t i = 0; i < in_dims.size(); ++i) {
        args[d].push_back(in_dims[i]
                              ? SliceAt(batched_args[d][i], *in_dims[i], b)
                              : Literal(batched_args[d][i]));
      }
    }
    absl::StatusOr<std::vector<Literal>> want = ::mxla::testing::RunOnDevices(
        Backend::kInterpreter, per_example, kTwo, args);
    ASSERT_TRUE(want.ok()) << want.status();
    for (int64_t d = 0; d < kTwo.count(); ++d) {
      const std::vector<Literal> got = Elements(all[d]);
      const std::vector<Literal> expected = Elements((*want)[d]);
      ASSERT_EQ(got.size(), expected.size());
      for (size_t e = 0; e < got.size(); ++e) {
        EXPECT_EQ(SliceAt(got[e], 0, b), expected[e])
            << "device " << d << ", element " << e << " of batch " << b;
      }
    }
  }
}

TEST(CollectiveBatchingTest, EachCollectiveOnTwoDevices) {
  XlaComputation f = Build(
      "collectives", {F64Array({2, 4})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        const XlaComputation add = CreateScalarAddComputation(F64, &b);
        Tuple(&b, {AllReduce(p[0], add), AllGather(p[0], 1, 2),
                   ReduceScatter(p[0], add, 1, 2), AllToAll(p[0], 1, 1, 2),
                   CollectivePermute(p[0], {{0, 1}, {1, 0}}),
                   CollectiveBroadcast(p[0], {{1, 0}})});
      });
  for (const BatchDims& dims : {BatchDims{0}, BatchDims{1}, BatchDims{2}}) {
    ExpectBatchMatchesLoopOnDevices(f, dims);
  }
}

// The tuple form of all-to-all, with one operand batched and one not
// (broadcast along the batch), and collectives along dimension 0.
TEST(CollectiveBatchingTest, TupleAllToAllAndLeadingDimensions) {
  XlaComputation f = Build(
      "tuple_all_to_all", {F64Array({3}), F64Array({3})},
      [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        XlaOp exchanged = AllToAllTuple({p[0] * 2.0, p[1]}, {{0, 1}});
        Tuple(&b, {GetTupleElement(exchanged, 0), GetTupleElement(exchanged, 1),
                   AllGather(p[0], 0, 2),
                   ReduceScatter(ConcatInDim(&b, {p[0], p[1]}, 0),
                                 CreateScalarMaxComputation(F64, &b), 0, 2)});
      });
  for (const BatchDims& dims : {BatchDims{0, std::nullopt},
                                BatchDims{std::nullopt, 1}, BatchDims{1, 0}}) {
    ExpectBatchMatchesLoopOnDevices(f, dims);
  }
}

TEST(CollectiveBatchingTest, ReplicaIdIsNeverBatched) {
  XlaComputation f = Build(
      "ids", {F64Array({2})}, [](XlaBuilder& b, const std::vector<XlaOp>& p) {
        Add(p[0], ConvertElementType(ReplicaId(&b), F64), {});
      });
  ExpectBatchMatchesLoopOnDevices(f, BatchDims{0});
}

constexpr char kAdd[] = R"(
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
)";

// The asynchronous all-reduce and all-gather pairs, one inside a loop
// whose state is batched.
TEST(CollectiveBatchingTest, AsynchronousAllReduceAndAllGather) {
  const XlaComputation f = Parsed(absl::StrCat("HloModule async\n", kAdd, R"(
cond {
  s = (s32[], f64[2,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
body {
  s = (s32[], f64[2,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f64[2,2] get-tuple-element(s), index=1
  ars = f64[2,2] all-reduce-start(v), replica_groups={}, to_apply=add
  ard = f64[2,2] all-reduce-done(ars)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f64[2,2]) tuple(next, ard)
}
ENTRY main {
  x = f64[2,2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f64[2,2]) tuple(zero, x)
  w = (s32[], f64[2,2]) while(init), condition=cond, body=body
  v = f64[2,2] get-tuple-element(w), index=1
  ags = (f64[2,2], f64[2,4]) all-gather-start(v), dimensions={1}, replica_groups={}
  ROOT agd = f64[2,4] all-gather-done(ags)
})"));
  for (const BatchDims& dims : {BatchDims{0}, BatchDims{1}, BatchDims{2}}) {
    ExpectBatchMatchesLoopOnDevices(f, dims);
  }
}

// The start's u32[] context scalars keep no batch; its arrays do.
TEST(CollectiveBatchingTest, AsynchronousCollectivePermute) {
  const XlaComputation f = Parsed(R"(
HloModule permute
ENTRY main {
  x = f64[2,3] parameter(0)
  cps = (f64[2,3], f64[2,3], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1}}
  cpd = f64[2,3] collective-permute-done(cps)
  passed = f64[2,3] get-tuple-element(cps), index=0
  ROOT sum = f64[2,3] add(cpd, passed)
})");
  for (const BatchDims& dims : {BatchDims{0}, BatchDims{1}, BatchDims{2}}) {
    ExpectBatchMatchesLoopOnDevices(f, dims);
  }
}

TEST(CollectiveBatchingTest, ReadingPermuteContextIsRefusedByName) {
  const XlaComputation f = Parsed(R"(
HloModule permute
ENTRY main {
  x = f64[2] parameter(0)
  cps = (f64[2], f64[2], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1},{1,0}}
  cpd = f64[2] collective-permute-done(cps)
  context = u32[] get-tuple-element(cps), index=2
  ROOT t = (f64[2], u32[]) tuple(cpd, context)
})");
  EXPECT_THAT(Batch(f, {0}, 2).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("vmap: no batching rule for "
                                 "'collective-permute-start' whose u32[] "
                                 "context scalars 'context' reads (they must "
                                 "not get the batch)")));
}

TEST(CollectiveBatchingTest, InPlacePermuteIsRefusedByName) {
  const XlaComputation f = Parsed(testing::kInPlacePermuteSum);
  EXPECT_THAT(Batch(f, {0, std::nullopt}, 2).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("vmap: no batching rule for "
                                 "'collective-permute' in its in-place "
                                 "four-operand form")));
}

// Two devices, one update per peer. t (0 or 1 per example, the same on
// both devices: a max over them) sets how many rows each device sends
// rank 0 and from which row, so the sizes and an offset differ by
// example; device r writes at rows 2r of each receiver.
XlaComputation RaggedExchange(const IdGroups& groups) {
  return Build(
      "ragged",
      {F64Array({4, 2}), F64Array({5, 2}), ShapeUtil::MakeShape(S32, {})},
      [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
        const XlaOp r = ConvertElementType(ReplicaId(&b), S32);
        const XlaOp t = AllReduce(And(p[2], ConstantR0<int32_t>(&b, 1)),
                                  CreateScalarMaxComputation(S32, &b));
        const XlaOp input_offsets =
            ConcatInDim(&b, {Reshape(t, {1}), ConstantR1<int32_t>(&b, {2})}, 0);
        const XlaOp send_sizes = ConcatInDim(
            &b, {Reshape(t + 1, {1}), ConstantR1<int32_t>(&b, {1})}, 0);
        const XlaOp output_offsets = Broadcast(r * 2, {2});
        const XlaOp recv_sizes =
            Select(Broadcast(Eq(r, ConstantR0<int32_t>(&b, 0)), {2}),
                   Broadcast(t + 1, {2}), ConstantR1<int32_t>(&b, {1, 1}));
        RaggedAllToAll(p[0], input_offsets, send_sizes, p[1], output_offsets,
                       recv_sizes, groups);
      });
}

TEST(CollectiveBatchingTest, RaggedAllToAllFoldsTheBatchIntoItsUpdates) {
  const XlaComputation f = RaggedExchange({{0, 1}});
  for (const BatchDims& dims :
       {BatchDims{0, 0, 0}, BatchDims{1, std::nullopt, 0},
        BatchDims{std::nullopt, 1, 0}, BatchDims{2, 0, std::nullopt}}) {
    ExpectBatchMatchesLoopOnDevices(f, dims);
  }
}

TEST(CollectiveBatchingTest, RaggedAllToAllWithoutGroupsIsRefusedByName) {
  EXPECT_THAT(
      Batch(RaggedExchange({}), {0, std::nullopt, std::nullopt}, 2).status(),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("vmap: no batching rule for 'ragged-all-to-all' "
                         "without replica_groups (its offsets and sizes are "
                         "laid out by the group size, known only when it "
                         "runs)")));
}

}  // namespace
}  // namespace mxla
