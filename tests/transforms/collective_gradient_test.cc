// Gradients through the collectives, on several in-process devices: each
// device's loss is its own scalar, and the gradient a device gets is that
// of the sum of every device's loss (as JAX's pmap(grad) transposes its
// collectives). Checked against central differences of that sum, taken by
// the interpreter on every device, and the gradient computation run by the
// JIT against the interpreter (tests/testlib/replicated_runs.h).
#include <cmath>
#include <memory>
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
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/collective_fixtures.h"
#include "tests/testlib/parsed_computation.h"
#include "tests/testlib/replicated_runs.h"
#include "tests/testlib/status_matchers.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

using ::mxla::testing::DeviceArguments;
using ::mxla::testing::Devices;
using ::mxla::testing::F64Shape;
using ::mxla::testing::Parsed;
using ::mxla::testing::RandomLiteral;
using ::mxla::testing::StatusIs;
using ::mxla::testing::SumAll;
using ::testing::HasSubstr;

constexpr Devices kTwo = {2, 1};

// sum(sin(k * body(x...))) with k = 1 + replica id + 2 * partition id, so
// that every device's loss is its own function of what it received.
XlaComputation DeviceLoss(
    const std::string& name, const std::vector<Shape>& shapes,
    const std::function<XlaOp(XlaBuilder&, const std::vector<XlaOp>&)>& body) {
  XlaBuilder b(name);
  std::vector<XlaOp> p;
  for (size_t i = 0; i < shapes.size(); ++i) {
    p.push_back(Parameter(&b, i, shapes[i], absl::StrCat("p", i)));
  }
  const XlaOp id = Add(
      ConvertElementType(ReplicaId(&b), F64),
      Mul(ConvertElementType(PartitionId(&b), F64), ConstantR0<double>(&b, 2)));
  const XlaOp k = Add(id, ConstantR0<double>(&b, 1));
  SumAll(Sin(Mul(body(b, p), k)));
  absl::StatusOr<XlaComputation> f = b.Build();
  EXPECT_TRUE(f.ok()) << f.status();
  return *std::move(f);
}

// The sum over devices of each device's loss, by the interpreter.
double TotalLoss(const std::string& text, const Devices& devices,
                 const DeviceArguments& args) {
  absl::StatusOr<std::vector<Literal>> losses =
      ::mxla::testing::RunOnDevices(Backend::kInterpreter, text, devices, args);
  EXPECT_TRUE(losses.ok()) << losses.status();
  if (!losses.ok()) return NAN;
  double total = 0;
  for (const Literal& loss : *losses) total += loss.data<double>()[0];
  return total;
}

// Each element of `dfdx` (device d's cotangent of its parameter p)
// against central differences of the total loss.
void ExpectElementsMatch(const Literal& dfdx, const std::string& loss,
                         const Devices& devices, DeviceArguments& args,
                         int64_t d, int64_t p) {
  ASSERT_EQ(dfdx.shape(), args[d][p].shape());
  constexpr double kH = 1e-6;
  for (int64_t i = 0; i < dfdx.element_count(); ++i) {
    double& x = args[d][p].data<double>()[i];
    const double saved = x;
    x = saved + kH;
    const double up = TotalLoss(loss, devices, args);
    x = saved - kH;
    const double down = TotalLoss(loss, devices, args);
    x = saved;
    const double numeric = (up - down) / (2 * kH);
    EXPECT_NEAR(dfdx.data<double>()[i], numeric, 1e-6 * (1 + std::abs(numeric)))
        << "device " << d << ", parameter " << p << ", element " << i;
  }
}

// d(sum of the devices' losses)/d(parameter p of device d), for p in
// `wrt`, element by element, against the gradient each device computes.
void ExpectDeviceGradientsMatchDifferences(const XlaComputation& f,
                                           const Devices& devices,
                                           std::vector<int64_t> wrt = {0}) {
  SCOPED_TRACE(f.name());
  const HloComputation& entry = *f.module().entry_computation();
  DeviceArguments args(devices.count());
  for (int64_t d = 0; d < devices.count(); ++d) {
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      args[d].push_back(RandomLiteral(entry.parameter_instruction(i)->shape(),
                                      10 * d + i + 1));
    }
  }
  absl::StatusOr<XlaComputation> gradient = Gradient(f, wrt);
  ASSERT_TRUE(gradient.ok()) << gradient.status();
  const std::vector<Literal> grads = ::mxla::testing::RunBothBackends(
      HloPrinter::ModuleToString(gradient->module()), devices, args);
  ASSERT_EQ(grads.size(), devices.count());
  const std::string loss = HloPrinter::ModuleToString(f.module());
  for (size_t k = 0; k < wrt.size(); ++k) {
    for (int64_t d = 0; d < devices.count(); ++d) {
      ExpectElementsMatch(grads[d].tuple_element(k), loss, devices, args, d,
                          wrt[k]);
    }
  }
}

TEST(CollectiveGradientTest, AllGatherTransposesToReduceScatter) {
  for (int64_t dimension : {0, 1}) {
    ExpectDeviceGradientsMatchDifferences(
        DeviceLoss("all_gather", {F64Shape({2, 3})},
                   [&](XlaBuilder&, const std::vector<XlaOp>& p) {
                     return AllGather(p[0], dimension, 2, {{1, 0}});
                   }),
        kTwo);
  }
  // Two groups of two on four devices.
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("all_gather_groups", {F64Shape({3})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return AllGather(p[0], 0, 2, {{0, 2}, {3, 1}});
                 }),
      Devices{4, 1});
}

TEST(CollectiveGradientTest, ReduceScatterTransposesToAllGather) {
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("reduce_scatter", {F64Shape({2, 4})},
                 [](XlaBuilder& b, const std::vector<XlaOp>& p) {
                   return ReduceScatter(p[0],
                                        CreateScalarAddComputation(F64, &b), 1,
                                        2, {{1, 0}});
                 }),
      kTwo);
}

TEST(CollectiveGradientTest, AllToAllIsItsOwnTranspose) {
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("all_to_all", {F64Shape({4, 3})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return AllToAll(p[0], 0, 0, 2, {{1, 0}});
                 }),
      kTwo);
  // The tuple form, one operand per member; the second result's
  // cotangent alone flows back (the first is unused).
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("all_to_all_tuple", {F64Shape({3}), F64Shape({3})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   const XlaOp exchanged =
                       AllToAllTuple({p[0] * 2.0, Sin(p[0]) + p[1]}, {{0, 1}});
                   return GetTupleElement(exchanged, 1) *
                          GetTupleElement(exchanged, 0);
                 }),
      kTwo);
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("all_to_all_tuple_unused", {F64Shape({3})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   const XlaOp exchanged =
                       AllToAllTuple({p[0] * 2.0, Cos(p[0])}, {{0, 1}});
                   return GetTupleElement(exchanged, 1);
                 }),
      kTwo);
}

// On three devices: 0 -> 2 -> 1, so device 0 receives zeros (its loss
// does not depend on anyone) and device 1 sends to no one (it gets no
// cotangent).
TEST(CollectiveGradientTest, CollectivePermuteTransposesToTheInverse) {
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("permute", {F64Shape({2, 2})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return CollectivePermute(p[0], {{0, 2}, {2, 1}}) + p[0];
                 }),
      Devices{3, 1});
}

// The source is each group's first member: replica 1 of {1,0}, and 2 and
// 1 of {2,3},{1,0} on four devices.
TEST(CollectiveGradientTest, CollectiveBroadcastSumsOntoTheSource) {
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("broadcast", {F64Shape({3})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return CollectiveBroadcast(p[0], {{1, 0}}) * p[0];
                 }),
      kTwo);
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("broadcast_groups", {F64Shape({2})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return CollectiveBroadcast(p[0], {{2, 3}, {1, 0}});
                 }),
      Devices{4, 1});
}

// With a channel_id, an all-reduce, all-gather or reduce-scatter groups
// replica ids across partitions (use_global_device_ids absent or false)
// or flattened ids (true), and the other collectives group partition ids:
// the transposes keep the mode. A cross-partition broadcast's transpose
// sums by an all-to-all, since no all-reduce is cross-partition.
TEST(CollectiveGradientTest, ChannelModesAreKept) {
  const Devices two_by_two = {2, 2};
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("psum_every_partition", {F64Shape({2})},
                 [](XlaBuilder& b, const std::vector<XlaOp>& p) {
                   return AllReduce(p[0], CreateScalarAddComputation(F64, &b),
                                    {}, /*channel_id=*/1);
                 }),
      Devices{1, 2});
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("gather_flattened", {F64Shape({2})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return AllGather(p[0], 0, 2, {{0, 3}, {2, 1}},
                                    /*channel_id=*/1,
                                    /*use_global_device_ids=*/true);
                 }),
      two_by_two);
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("psum_replicas_and_partitions", {F64Shape({2})},
                 [](XlaBuilder& b, const std::vector<XlaOp>& p) {
                   return AllReduce(p[0], CreateScalarAddComputation(F64, &b),
                                    {{1, 0}}, /*channel_id=*/1,
                                    /*use_global_device_ids=*/false);
                 }),
      two_by_two);
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("scatter_flattened", {F64Shape({4})},
                 [](XlaBuilder& b, const std::vector<XlaOp>& p) {
                   return ReduceScatter(p[0],
                                        CreateScalarAddComputation(F64, &b), 0,
                                        2, {{3, 0}, {1, 2}}, /*channel_id=*/1,
                                        /*use_global_device_ids=*/true);
                 }),
      two_by_two);
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("permute_partitions", {F64Shape({2})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return CollectivePermute(p[0], {{1, 0}}, /*channel_id=*/1);
                 }),
      two_by_two);
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("psum_replicas_across_partitions", {F64Shape({2})},
                 [](XlaBuilder& b, const std::vector<XlaOp>& p) {
                   return AllReduce(p[0], CreateScalarAddComputation(F64, &b),
                                    {{1}, {0}}, /*channel_id=*/1);
                 }),
      two_by_two);
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("broadcast_partitions", {F64Shape({2})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return CollectiveBroadcast(p[0], {{1, 0}}, /*channel_id=*/1);
                 }),
      two_by_two);
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("broadcast_partitions_of_four", {F64Shape({2, 2})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return CollectiveBroadcast(p[0], {{2, 0}, {3, 1}},
                                              /*channel_id=*/1);
                 }),
      Devices{1, 4});
  ExpectDeviceGradientsMatchDifferences(
      DeviceLoss("all_to_all_partitions", {F64Shape({2})},
                 [](XlaBuilder&, const std::vector<XlaOp>& p) {
                   return AllToAll(p[0], 0, 0, 2, {}, /*channel_id=*/1);
                 }),
      two_by_two);
}

// The asynchronous pairs, through their synchronous meaning.
TEST(CollectiveGradientTest, AsynchronousPairs) {
  ExpectDeviceGradientsMatchDifferences(Parsed(R"(
HloModule async
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY main {
  x = f64[2,2] parameter(0)
  sx = f64[2,2] sine(x)
  cps = (f64[2,2], f64[2,2], u32[], u32[]) collective-permute-start(sx), source_target_pairs={{0,1}}
  cpd = f64[2,2] collective-permute-done(cps)
  passed = f64[2,2] get-tuple-element(cps), index=0
  prod = f64[2,2] multiply(cpd, passed)
  both = f64[2,2] add(prod, passed)
  ags = (f64[2,2], f64[2,4]) all-gather-start(both), dimensions={1}, replica_groups={{1,0}}
  agd = f64[2,4] all-gather-done(ags)
  id = u32[] replica-id()
  fid = f64[] convert(id)
  one = f64[] constant(1)
  k = f64[] add(fid, one)
  ks = f64[2,4] broadcast(k), dimensions={}
  scaled = f64[2,4] multiply(agd, ks)
  ars = f64[2,4] all-reduce-start(scaled), replica_groups={}, to_apply=add
  ard = f64[2,4] all-reduce-done(ars)
  e = f64[2,4] multiply(ard, scaled)
  c = f64[] constant(0)
  ROOT sum = f64[] reduce(e, c), dimensions={0,1}, to_apply=add
})"),
                                        kTwo);
}

// Two devices, one update per peer, input rows 4 and output rows 5.
// Device 0 sends row 0 to itself (at row 2) and rows 1..3 to device 1 (at
// rows 0..2); device 1 sends rows 2..3 to device 0 (at rows 3..4) and
// rows 1..2 to itself (at rows 3..4), so its row 2 goes to both and its
// cotangent sums both. Rows 0..1 of device 0's output show through.
// With groups and without (the run's devices then make the group).
TEST(CollectiveGradientTest, RaggedAllToAllSendsTheRowsBack) {
  for (const IdGroups& groups : {IdGroups{{0, 1}}, IdGroups{}}) {
    ExpectDeviceGradientsMatchDifferences(
        DeviceLoss("ragged", {F64Shape({4, 2}), F64Shape({5, 2})},
                   [&](XlaBuilder& b, const std::vector<XlaOp>& p) {
                     const XlaOp first = Broadcast(
                         Eq(ReplicaId(&b), ConstantR0<uint32_t>(&b, 0)), {2});
                     auto per_device = [&](std::initializer_list<int32_t> zero,
                                           std::initializer_list<int32_t> one) {
                       return Select(first, ConstantR1<int32_t>(&b, zero),
                                     ConstantR1<int32_t>(&b, one));
                     };
                     return RaggedAllToAll(p[0], per_device({0, 1}, {2, 1}),
                                           per_device({1, 3}, {2, 2}), p[1],
                                           per_device({2, 0}, {3, 3}),
                                           per_device({1, 2}, {3, 2}), groups);
                   }),
        kTwo, {0, 1});
  }
}

// Several operands in one all-reduce, reduce-scatter or all-gather: each
// is transposed on its own; the second scatter result is unused.
TEST(CollectiveGradientTest, VariadicCollectives) {
  ExpectDeviceGradientsMatchDifferences(Parsed(R"(
HloModule variadic
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY main {
  x = f64[4] parameter(0)
  sx = f64[4] sine(x)
  cx = f64[4] cosine(x)
  r = (f64[4], f64[4]) all-reduce(sx, cx), replica_groups={}, to_apply=add
  r0 = f64[4] get-tuple-element(r), index=0
  r1 = f64[4] get-tuple-element(r), index=1
  s = (f64[2], f64[2]) reduce-scatter(r0, x), dimensions={0}, replica_groups={{1,0}}, to_apply=add
  s0 = f64[2] get-tuple-element(s), index=0
  g = (f64[4], f64[4]) all-gather(s0, s0), dimensions={0}, replica_groups={{0,1}}
  g0 = f64[4] get-tuple-element(g), index=0
  g1 = f64[4] get-tuple-element(g), index=1
  id = u32[] replica-id()
  fid = f64[] convert(id)
  one = f64[] constant(1)
  k = f64[] add(fid, one)
  ks = f64[4] broadcast(k), dimensions={}
  m = f64[4] multiply(g0, ks)
  e = f64[4] multiply(m, r1)
  sg = f64[4] sine(g1)
  total = f64[4] add(e, sg)
  c = f64[] constant(0)
  ROOT sum = f64[] reduce(total, c), dimensions={0}, to_apply=add
})"),
                                        kTwo);
}

TEST(CollectiveGradientTest, InPlacePermuteIsRefusedByName) {
  const XlaComputation f = Parsed(testing::kInPlacePermuteSum);
  EXPECT_THAT(Gradient(f, {0}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("gradient: no rule for 'collective-permute' "
                                 "in its in-place four-operand form")));
}

// Across partitions the broadcast's group size comes from its groups.
TEST(CollectiveGradientTest, UngroupedPartitionBroadcastIsRefusedByName) {
  XlaBuilder b("broadcast");
  const XlaOp x = Parameter(&b, 0, F64Shape({2}), "x");
  SumAll(CollectiveBroadcast(x, {}, /*channel_id=*/1));
  absl::StatusOr<XlaComputation> f = b.Build();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(Gradient(*f, {0}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("gradient: no rule for "
                                 "'collective-broadcast' with a channel_id "
                                 "and no replica_groups")));
}

TEST(CollectiveGradientTest, MaxAndMinReducersAreRefusedByName) {
  for (bool max : {true, false}) {
    XlaBuilder b("pmax");
    const XlaOp x = Parameter(&b, 0, F64Shape({2}), "x");
    SumAll(AllReduce(x, max ? CreateScalarMaxComputation(F64, &b)
                            : CreateScalarMinComputation(F64, &b)));
    absl::StatusOr<XlaComputation> f = b.Build();
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_THAT(Gradient(*f, {0}).status(),
                StatusIs(absl::StatusCode::kUnimplemented,
                         HasSubstr("gradient: no rule for 'all-reduce' with a "
                                   "reducer other than add (JAX defines no "
                                   "derivative of pmax or pmin either)")));
  }
  XlaBuilder b("scatter_max");
  const XlaOp x = Parameter(&b, 0, F64Shape({4}), "x");
  SumAll(ReduceScatter(x, CreateScalarMaxComputation(F64, &b), 0, 2));
  absl::StatusOr<XlaComputation> f = b.Build();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(Gradient(*f, {0}).status(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("gradient: no rule for 'reduce-scatter' with "
                                 "a reducer other than add")));
}

}  // namespace
}  // namespace mxla
