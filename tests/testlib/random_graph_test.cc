// Tests of the random-graph generator: every graph builds, verifies,
// round-trips through the parser and evaluates; generation is
// deterministic; options are respected. What the graphs contain (every op,
// every broadcasting case, live values, integer ranges) is checked in
// random_graph_coverage_test.cc.
#include "tests/testlib/random_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/random_graph_internal.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

constexpr uint64_t kSeeds = 2000;

RandomGraphOptions AllTypes() {
  RandomGraphOptions options;
  options.element_types = {PRED, S32, S64, F32, F64};
  return options;
}

using ::mxla::testing::Pointers;

const HloComputation& Entry(const RandomGraph& graph) {
  return *graph.computation.module().entry_computation();
}

// --- Internals pinned: the PRNG must give these numbers everywhere. -------

TEST(RandomGraphRngTest, SplitMix64Sequence) {
  random_graph_internal::Rng rng(0);
  EXPECT_EQ(rng.Next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.Next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.Next(), 0x06c45d188009454fULL);
}

TEST(RandomGraphRngTest, SubsetsAndPermutations) {
  random_graph_internal::Rng rng(7);
  for (int i = 0; i < 200; ++i) {
    std::vector<int64_t> subset = rng.Subset(5, 3);
    ASSERT_EQ(subset.size(), 3u);
    EXPECT_TRUE(subset[0] < subset[1] && subset[1] < subset[2] &&
                subset[2] < 5);
    std::vector<int64_t> permutation = rng.Permutation(4);
    EXPECT_EQ(std::set<int64_t>(permutation.begin(), permutation.end()).size(),
              4u);
  }
}

TEST(RandomGraphRangeTest, IntegerRangesNeverOverflowUnnoticed) {
  using random_graph_internal::BinaryRange;
  using random_graph_internal::IsTame;
  using random_graph_internal::Range;
  Range big = Range::Of(-40000, 40000);
  EXPECT_FALSE(IsTame(BinaryRange(HloOpcode::kMultiply, S32, big, big), S32));
  EXPECT_TRUE(IsTame(BinaryRange(HloOpcode::kMultiply, S64, big, big), S64));
  // x / 0 == -1 for integers: bounded; for floats a possible 0 is unknown.
  Range small = Range::Of(-8, 7);
  EXPECT_TRUE(IsTame(BinaryRange(HloOpcode::kDivide, S32, small, small), S32));
  EXPECT_FALSE(IsTame(BinaryRange(HloOpcode::kDivide, F32, small, small), F32));
  EXPECT_TRUE(IsTame(
      BinaryRange(HloOpcode::kCompare, F32, Range::Unknown(), small), PRED));
}

// Generates `count` graphs and runs `check` on each (named in failures).
void ForSeeds(const RandomGraphOptions& options, uint64_t count,
              const std::function<void(const RandomGraph&)>& check) {
  for (uint64_t seed = 0; seed < count; ++seed) {
    absl::StatusOr<RandomGraph> graph = GenerateRandomGraph(seed, options);
    ASSERT_OK(graph.status());
    SCOPED_TRACE(graph->description);
    check(*graph);
    if (::testing::Test::HasFailure()) return;
  }
}

// --- Every graph builds, verifies, round-trips and evaluates. -------------

bool HasNonFinite(const Literal& literal) {
  for (int64_t i = 0; i < literal.tuple_size(); ++i) {
    if (HasNonFinite(literal.tuple_element(i))) return true;
  }
  for (int64_t i = 0; literal.shape().IsArray() && i < literal.element_count();
       ++i) {
    if (!std::isfinite(literal.GetAsDouble(i))) return true;
  }
  return false;
}

void CheckSeeds(const RandomGraphOptions& options) {
  int64_t non_finite = 0;
  ForSeeds(options, kSeeds, [&](const RandomGraph& graph) {
    const HloModule& module = graph.computation.module();
    ASSERT_OK(VerifyModule(module, VerifierMode::kBuilder));
    const std::string text = module.ToString();
    absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(text);
    ASSERT_OK(parsed.status()) << text;
    ASSERT_EQ((*parsed)->ToString(), text);
    absl::StatusOr<Literal> result =
        EvaluateModule(module, Pointers(graph.arguments));
    ASSERT_OK(result.status()) << text;
    non_finite += HasNonFinite(*result) ? 1 : 0;
  });
  // inf/NaN may appear, but rarely.
  std::cout << non_finite << " of " << kSeeds << " results hold inf or NaN\n";
  EXPECT_LT(non_finite, static_cast<int64_t>(kSeeds / 20));
}

TEST(RandomGraphTest, DefaultOptionsBuildVerifyRoundTripAndEvaluate) {
  CheckSeeds(RandomGraphOptions());
}

TEST(RandomGraphTest, AllTypesBuildVerifyRoundTripAndEvaluate) {
  CheckSeeds(AllTypes());
}

// --- Determinism. -----------------------------------------------------------

TEST(RandomGraphTest, SameSeedSameGraphAndArguments) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    ASSERT_OK_AND_ASSIGN(RandomGraph a, GenerateRandomGraph(seed, AllTypes()));
    ASSERT_OK_AND_ASSIGN(RandomGraph b, GenerateRandomGraph(seed, AllTypes()));
    EXPECT_EQ(a.computation.ToString(), b.computation.ToString());
    EXPECT_EQ(a.description, b.description);
    ASSERT_EQ(a.arguments.size(), b.arguments.size());
    for (size_t i = 0; i < a.arguments.size(); ++i) {
      EXPECT_EQ(a.arguments[i], b.arguments[i]);  // bitwise
    }
    EXPECT_THAT(a.description, HasSubstr(absl::StrCat("seed ", seed, ":")));
  }
}

TEST(RandomGraphTest, DifferentSeedsDiffer) {
  std::set<std::string> texts;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    ASSERT_OK_AND_ASSIGN(RandomGraph graph,
                         GenerateRandomGraph(seed, RandomGraphOptions()));
    // The module name carries the seed; compare the bodies.
    std::string text = graph.computation.ToString();
    texts.insert(text.substr(text.find('\n')));
  }
  EXPECT_GE(texts.size(), 190u);
}

TEST(RandomGraphTest, ArgumentsMatchParametersAndRanges) {
  ForSeeds(AllTypes(), 300, [](const RandomGraph& graph) {
    const HloComputation& entry = Entry(graph);
    ASSERT_EQ(graph.arguments.size(), entry.parameter_instructions().size());
    for (const HloInstruction* parameter : entry.parameter_instructions()) {
      const Literal& argument = graph.arguments[parameter->parameter_number()];
      EXPECT_EQ(argument.shape(), parameter->shape());
      for (int64_t i = 0; i < argument.element_count(); ++i) {
        double x = argument.GetAsDouble(i);
        EXPECT_TRUE(x >= -8 && x < 8) << x;
      }
    }
  });
}

// tuple_parameter packs parameters 1.. into the tuple parameter "t1" whose
// elements are the unpacked graph's parameters and arguments, and the
// graph still builds, verifies, round-trips and evaluates.
TEST(RandomGraphTest, TupleParameterPacksTheSameShapesAndValues) {
  RandomGraphOptions packed = AllTypes();
  packed.tuple_parameter = true;
  CheckSeeds(packed);
  int64_t tuples = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    ASSERT_OK_AND_ASSIGN(RandomGraph plain, GenerateRandomGraph(seed, AllTypes()));
    ASSERT_OK_AND_ASSIGN(RandomGraph graph, GenerateRandomGraph(seed, packed));
    const HloComputation& entry = Entry(graph);
    if (plain.arguments.size() < 2) {
      EXPECT_EQ(graph.computation.ToString(), plain.computation.ToString());
      continue;
    }
    ++tuples;
    ASSERT_EQ(entry.num_parameters(), 2);
    const HloInstruction* tuple = entry.parameter_instruction(1);
    EXPECT_EQ(tuple->name(), "t1");
    ASSERT_EQ(graph.arguments.size(), 2u);
    EXPECT_EQ(graph.arguments[0], plain.arguments[0]);
    const Literal& elements = graph.arguments[1];
    ASSERT_EQ(elements.shape(), tuple->shape());
    ASSERT_EQ(elements.tuple_size() + 1,
              static_cast<int64_t>(plain.arguments.size()));
    for (int64_t i = 0; i < elements.tuple_size(); ++i) {
      EXPECT_EQ(elements.tuple_element(i), plain.arguments[i + 1]);  // bitwise
    }
  }
  EXPECT_GE(tuples, 50);
}

// --- Options are respected. ------------------------------------------------

int64_t OpCount(const RandomGraph& graph) {
  return Entry(graph).instruction_count() - Entry(graph).num_parameters();
}

TEST(RandomGraphOptionsTest, MaxInstructions) {
  for (int64_t max : {0, 1, 2, 3, 5, 30}) {
    RandomGraphOptions options = AllTypes();
    options.max_instructions = max;
    int64_t largest = 0;
    ForSeeds(options, 300, [&](const RandomGraph& graph) {
      EXPECT_LE(OpCount(graph), max);
      EXPECT_GE(OpCount(graph), std::min<int64_t>(max, 1));
      largest = std::max(largest, OpCount(graph));
    });
    EXPECT_EQ(largest, max);  // the budget is used
  }
}

// A constant a scalar operand must be: a reduce's init value, pad's
// padding value, a dynamic slice's start index.
bool IsScalarOperandConstant(const HloInstruction& op) {
  if (op.opcode() != HloOpcode::kConstant || op.user_count() == 0) return false;
  for (const HloInstruction* user : op.users()) {
    const bool first = user->operand(0) == &op;
    switch (user->opcode()) {
      case HloOpcode::kReduce:
      case HloOpcode::kReduceWindow:
      case HloOpcode::kPad:
      case HloOpcode::kDynamicSlice:
        if (first) return false;
        break;
      case HloOpcode::kDynamicUpdateSlice:
        if (first || user->operand(1) == &op) return false;
        break;
      case HloOpcode::kSelectAndScatter:  // the init value
        if (user->operand(2) != &op) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

// A scalar other than a scalar operand constant.
bool IsLooseScalar(const HloInstruction& op) {
  return op.shape().IsScalar() && !IsScalarOperandConstant(op);
}

TEST(RandomGraphOptionsTest, ElementTypes) {
  const std::vector<std::vector<PrimitiveType>> type_sets = {
      {S32}, {PRED}, {F64}, {S64, F32}};
  for (const std::vector<PrimitiveType>& types : type_sets) {
    RandomGraphOptions options;
    options.element_types = types;
    auto allowed = [&](PrimitiveType type) {
      return std::find(types.begin(), types.end(), type) != types.end();
    };
    ForSeeds(options, 500, [&](const RandomGraph& graph) {
      for (const HloInstruction* op : Entry(graph).instructions()) {
        const HloOpcode opcode = op->opcode();
        if (!op->shape().IsArray()) continue;
        const PrimitiveType type = op->shape().element_type();
        // pred also comes from compares, start indices (of dynamic slices,
        // gathers and scatters) are any integer type; everything else is
        // chosen.
        const bool gather_indices =
            op->opcode() == HloOpcode::kConstant && op->user_count() > 0 &&
            absl::c_all_of(op->users(), [&](const HloInstruction* user) {
              return (user->opcode() == HloOpcode::kGather &&
                      user->operand(1) == op) ||
                     (user->opcode() == HloOpcode::kScatter &&
                      user->operand(1) == op);
            });
        const bool start_index = primitive_util::IsIntegralType(type) &&
                                 ((op->shape().IsScalar() &&
                                   IsScalarOperandConstant(*op)) ||
                                  gather_indices);
        EXPECT_TRUE(allowed(type) || type == PRED || start_index)
            << op->ToString();
        if (opcode == HloOpcode::kParameter || opcode == HloOpcode::kIota ||
            opcode == HloOpcode::kConvert) {
          EXPECT_TRUE(allowed(type)) << op->ToString();
        }
      }
    });
  }
}

// Whether a graph made with a flag off has an op the flag forbids.
struct FlagCase {
  const char* name;
  bool RandomGraphOptions::*flag;
  std::function<bool(const HloInstruction&)> forbidden;
};

std::function<bool(const HloInstruction&)> Opcodes(
    std::set<HloOpcode> opcodes) {
  return [opcodes](const HloInstruction& op) {
    return opcodes.count(op.opcode()) > 0;
  };
}

bool HasZeroSize(const HloInstruction& op) {
  if (!op.shape().IsArray()) return false;
  for (int64_t size : op.shape().dimensions()) {
    if (size == 0) return true;
  }
  return false;
}

TEST(RandomGraphOptionsTest, FlagsOffMeanOpsAbsent) {
  using O = HloOpcode;
  const std::vector<FlagCase> cases = {
      {"reduce", &RandomGraphOptions::allow_reduce,
       Opcodes({O::kReduce, O::kReduceWindow, O::kConvolution})},
      {"transpose", &RandomGraphOptions::allow_transpose,
       Opcodes({O::kTranspose})},
      {"reshape", &RandomGraphOptions::allow_reshape, Opcodes({O::kReshape})},
      {"select", &RandomGraphOptions::allow_select, Opcodes({O::kSelect})},
      {"convert", &RandomGraphOptions::allow_convert, Opcodes({O::kConvert})},
      {"transcendental", &RandomGraphOptions::allow_transcendental,
       [](const HloInstruction& op) {
         return Opcodes({O::kExp, O::kLog, O::kRsqrt, O::kTanh, O::kLogistic,
                         O::kSin, O::kCos, O::kTan, O::kExpm1, O::kLog1p,
                         O::kCbrt, O::kErf, O::kAtan2, O::kAsin, O::kAcos,
                         O::kSinh, O::kCosh, O::kAsinh, O::kAcosh,
                         O::kAtan})(op) ||
                (op.opcode() == O::kPower &&
                 primitive_util::IsFloatingPointType(
                     op.shape().element_type()));
       }},
      {"scalars", &RandomGraphOptions::allow_scalars, &IsLooseScalar},
      {"zero sizes", &RandomGraphOptions::allow_zero_sizes, &HasZeroSize},
      {"index ops", &RandomGraphOptions::allow_index_ops,
       Opcodes({O::kSlice, O::kConcatenate, O::kPad, O::kDynamicSlice,
                O::kDynamicUpdateSlice, O::kDot, O::kReverse, O::kGather,
                O::kConvolution, O::kReduceWindow, O::kScatter,
                O::kSelectAndScatter, O::kCholesky, O::kTriangularSolve,
                O::kScaledDot})},
      {"element ops", &RandomGraphOptions::allow_element_ops,
       Opcodes({O::kClamp, O::kIsFinite, O::kReducePrecision,
                O::kBitcastConvert, O::kMap, O::kSort, O::kRng,
                O::kRngBitGenerator, O::kStochasticConvert})},
  };
  for (const FlagCase& flag_case : cases) {
    SCOPED_TRACE(flag_case.name);
    RandomGraphOptions options = AllTypes();
    options.*flag_case.flag = false;
    ForSeeds(options, 500, [&](const RandomGraph& graph) {
      for (const HloInstruction* op : Entry(graph).instructions()) {
        EXPECT_FALSE(flag_case.forbidden(*op)) << op->ToString();
      }
    });
  }
}

TEST(RandomGraphOptionsTest, EverythingOffStillBuilds) {
  RandomGraphOptions options;
  options.allow_reduce = options.allow_transpose = options.allow_reshape =
      options.allow_select = options.allow_convert = options.allow_scalars =
          options.allow_zero_sizes = options.allow_transcendental = false;
  ForSeeds(options, 300, [](const RandomGraph& graph) {
    EXPECT_OK(VerifyModule(graph.computation.module(), VerifierMode::kBuilder));
  });
}

TEST(RandomGraphOptionsTest, RanksSizesAndParameters) {
  RandomGraphOptions options = AllTypes();
  options.max_rank = 2;
  options.max_dimension_size = 3;
  options.max_parameters = 1;
  ForSeeds(options, 500, [](const RandomGraph& graph) {
    EXPECT_LE(Entry(graph).num_parameters(), 1);
    for (const HloInstruction* op : Entry(graph).instructions()) {
      if (op->shape().IsArray()) {
        EXPECT_LE(op->shape().rank(), 2);
      }
      if (op->opcode() != HloOpcode::kParameter) continue;
      for (int64_t size : op->shape().dimensions()) EXPECT_LE(size, 3);
    }
  });
  options.max_rank = 0;  // scalars only
  options.max_parameters = 0;
  ForSeeds(options, 200, [](const RandomGraph& graph) {
    EXPECT_EQ(Entry(graph).num_parameters(), 0);
    EXPECT_TRUE(graph.arguments.empty());
  });
}

TEST(RandomGraphOptionsTest, InvalidOptions) {
  using Change = std::function<void(RandomGraphOptions&)>;
  for (const Change& change : std::vector<Change>{
           [](RandomGraphOptions& o) { o.element_types = {}; },
           [](RandomGraphOptions& o) { o.element_types = {TUPLE}; },
           [](RandomGraphOptions& o) { o.max_dimension_size = 0; },
           [](RandomGraphOptions& o) {
             o.max_rank = 0, o.allow_scalars = false;
           },
           [](RandomGraphOptions& o) {
             o.max_instructions = 0, o.max_parameters = 0;
           },
       }) {
    RandomGraphOptions options;
    change(options);
    EXPECT_THAT(GenerateRandomGraph(1, options),
                StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  }
}

}  // namespace
}  // namespace mxla
