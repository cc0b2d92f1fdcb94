// What the random graphs contain, across 2000 seeds: every op, every
// broadcasting case of XLA's rules, values that reach the root, and integer
// values that never come near overflow. Prints the counts for the record.
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/shape_util.h"
#include "tests/testlib/random_graph.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

constexpr uint64_t kSeeds = 2000;

RandomGraphOptions AllTypes() {
  RandomGraphOptions options;
  options.element_types = {PRED, S32, S64, F32, F64};
  return options;
}

const HloComputation& Entry(const RandomGraph& graph) {
  return *graph.computation.module().entry_computation();
}

// Generates `count` graphs and runs `check` on each (named in failures).
void ForSeeds(const RandomGraphOptions& options, uint64_t count,
              const std::function<void(const RandomGraph&)>& check) {
  for (uint64_t seed = 0; seed < count; ++seed) {
    absl::StatusOr<RandomGraph> graph = GenerateRandomGraph(seed, options);
    ASSERT_OK(graph.status());
    SCOPED_TRACE(graph->description);
    check(*graph);
    if (::testing::Test::HasFailure()) {
      std::cerr << Entry(*graph).parent()->ToString() << "\n";
      return;
    }
  }
}

// --- Coverage: every op and every broadcasting case appears. --------------

// Whether `operand` stretches a size-1 dimension to reach `result`; a
// lower-rank operand maps its dimensions through `broadcast_dimensions`.
bool Stretches(const Shape& operand, const Shape& result,
               const std::optional<std::vector<int64_t>>& broadcast_dims) {
  if (operand.IsScalar()) return false;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t d = operand.rank() == result.rank() ? i : broadcast_dims->at(i);
    if (operand.dimensions(i) == 1 && result.dimensions(d) != 1) return true;
  }
  return false;
}

// Counts the broadcasting cases of one implicit-broadcast binary op.
void CountBroadcastCases(const HloInstruction& op,
                         std::map<std::string, int64_t>* counts) {
  const Shape& lhs = op.operand(0)->shape();
  const Shape& rhs = op.operand(1)->shape();
  const Shape& result = op.shape();
  const auto& dims = op.broadcast_dimensions();
  auto count = [&](const char* name, bool condition) {
    if (condition) ++(*counts)[name];
  };
  count("equal shapes", lhs.dimensions() == rhs.dimensions());
  count("scalar lhs", lhs.IsScalar() && !rhs.IsScalar());
  count("scalar rhs", rhs.IsScalar() && !lhs.IsScalar());
  count("in-dim lhs", !lhs.IsScalar() && lhs.rank() < rhs.rank());
  count("in-dim rhs", !rhs.IsScalar() && rhs.rank() < lhs.rank());
  count("identity dims", dims.has_value() && lhs.rank() == rhs.rank());
  const bool l = Stretches(lhs, result, dims);
  const bool r = Stretches(rhs, result, dims);
  count("stretch lhs", l);
  count("stretch rhs", r);
  count("stretch both (outer)", l && r);
  const Shape& high = lhs.rank() > rhs.rank() ? lhs : rhs;
  const Shape& low = lhs.rank() > rhs.rank() ? rhs : lhs;
  const bool ranks_differ = lhs.rank() != rhs.rank() && !low.IsScalar();
  count("stretch higher rank", ranks_differ && Stretches(high, result, dims));
  count("stretch both across ranks", ranks_differ && l && r);
  count("1 against 0", ShapeUtil::ElementsIn(result) == 0 && (l || r));
}

std::string Key(const HloInstruction& instruction) {
  std::string key(HloOpcodeString(instruction.opcode()));
  switch (instruction.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:  // by the builder call that made it
      return absl::StrCat(key, " from ", instruction.metadata().op_name);
    case HloOpcode::kReduce:
      return absl::StrCat(
          key, " with ",
          HloOpcodeString(
              instruction.to_apply()->root_instruction()->opcode()));
    case HloOpcode::kConstant:
      return absl::StrCat(
          key, instruction.shape().IsScalar() ? " scalar" : " array");
    default:
      return key;
  }
}

std::map<std::string, int64_t> Coverage(const RandomGraphOptions& options) {
  std::map<std::string, int64_t> counts;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    absl::StatusOr<RandomGraph> graph = GenerateRandomGraph(seed, options);
    if (!graph.ok()) continue;
    for (const HloInstruction* instruction : Entry(*graph).instructions()) {
      ++counts[Key(*instruction)];
      const HloOpcode opcode = instruction->opcode();
      const bool binary = IsBinaryElementwise(opcode);
      if (binary || GetHloOpcodeCategory(opcode) == HloOpcodeCategory::kUnary) {
        const PrimitiveType type =
            instruction->operand(0)->shape().element_type();
        ++counts[absl::StrCat(HloOpcodeString(opcode), " ",
                              primitive_util::LowercaseName(type))];
      }
      if (binary) CountBroadcastCases(*instruction, &counts);
    }
  }
  return counts;
}

void ExpectAtLeast(const std::map<std::string, int64_t>& counts,
                   const std::vector<std::string>& keys, int64_t minimum) {
  for (const std::string& key : keys) {
    auto it = counts.find(key);
    EXPECT_GE(it == counts.end() ? 0 : it->second, minimum) << key;
  }
}

void Print(const std::map<std::string, int64_t>& counts) {
  std::string text;
  for (const auto& [key, count] : counts) {
    absl::StrAppend(&text, key, ": ", count, "\n");
  }
  std::cout << text;  // the report, for tuning and for the record
}

TEST(RandomGraphCoverageTest, EveryOpAppearsAcrossTwoThousandSeeds) {
  // The index ops are counted on their own below, so that they do not
  // dilute these draws.
  RandomGraphOptions options = AllTypes();
  options.allow_index_ops = false;
  options.allow_element_ops = false;
  std::map<std::string, int64_t> counts = Coverage(options);
  Print(counts);
  const char* kOps =
      "add,subtract,multiply,divide,remainder,maximum,minimum,power,and,or,"
      "xor,compare,negate,abs,exponential,log,sqrt,rsqrt,tanh,logistic,"
      "floor,ceil,sign,not,select,convert,transpose,iota,tuple,"
      "constant scalar,constant array,broadcast from Broadcast,"
      "broadcast from BroadcastInDim,reshape from Reshape,"
      "reshape from BroadcastInDim,reduce with add,reduce with multiply,"
      "reduce with maximum,reduce with minimum,and pred,and s32,or s64,"
      "xor pred,not pred,not s32,power s32,power f32,remainder s64,remainder "
      "f64,"
      "divide s32,divide f32,copy,round-nearest-afz,round-nearest-even,"
      "atan2,sine,cosine,erf,cbrt,exponential-minus-one";
  // Nineteen transcendental unary ops share their draws.
  ExpectAtLeast(counts, absl::StrSplit(kOps, ','), 8);
  ExpectAtLeast(counts, {"tan", "copy pred", "copy s64", "sinh", "cosh",
                         "asinh", "atan"},
                5);
  // NaN outside a domain most operand ranges leave, so rarely accepted.
  ExpectAtLeast(counts, {"log-plus-one", "asin", "acos", "acosh"}, 3);
}

TEST(RandomGraphCoverageTest, EveryIndexOpAppears) {
  std::map<std::string, int64_t> counts = Coverage(AllTypes());
  ExpectAtLeast(counts,
                absl::StrSplit("slice,concatenate,pad,dynamic-slice,"
                               "dynamic-update-slice,dot,gather",
                               ','),
                100);
  // The windowed ops need a numeric value (convolution one of rank 3).
  ExpectAtLeast(counts,
                absl::StrSplit("convolution,reduce-window,scatter,"
                               "select-and-scatter",
                               ','),
                40);
}

TEST(RandomGraphCoverageTest, EveryElementOpAppears) {
  RandomGraphOptions options;
  options.element_types = {PRED, S8,  S16, S32,  S64, U8, U16,
                           U32,  U64, F16, BF16, F32, F64};
  std::map<std::string, int64_t> counts = Coverage(options);
  ExpectAtLeast(counts,
                absl::StrSplit("reverse,clamp,shift-left,shift-right-arithmetic,"
                               "popcnt,count-leading-zeros",
                               ','),
                50);
  // One step draws either, on float values only (4 of the 13 types).
  ExpectAtLeast(counts, {"is-finite", "reduce-precision"}, 30);
  // Taken only where the values' ranges carry over (non-negative).
  ExpectAtLeast(counts, {"bitcast-convert", "shift-right-logical"}, 20);
  ExpectAtLeast(counts, {"map", "sort", "rng", "rng-bit-generator",
                         "stochastic-convert"},
                20);
  ExpectAtLeast(counts, {"cholesky", "triangular-solve", "scaled-dot"}, 20);
}

// With allow_host_feed, infeeds and outfeeds appear, one infeed value per
// infeed of its data shape, in the order their token chain runs them
// (post order); never without it.
TEST(RandomGraphCoverageTest, HostFeedsAppearWithTheirValues) {
  RandomGraphOptions options;
  options.element_types = {F32, S32, BF16};
  options.allow_host_feed = true;
  std::map<std::string, int64_t> counts = Coverage(options);
  ExpectAtLeast(counts, {"infeed", "outfeed"}, 20);
  ForSeeds(options, 200, [](const RandomGraph& graph) {
    std::vector<Shape> read;
    for (const HloInstruction* op : Entry(graph).MakeInstructionPostOrder()) {
      if (op->opcode() == HloOpcode::kInfeed) {
        read.push_back(op->shape().tuple_shapes(0));
      }
    }
    ASSERT_EQ(read.size(), graph.infeed.size());
    for (size_t i = 0; i < read.size(); ++i) {
      EXPECT_EQ(graph.infeed[i].shape(), read[i]) << i;
    }
  });
  options.allow_host_feed = false;
  counts = Coverage(options);
  EXPECT_EQ(counts.count("infeed") + counts.count("outfeed"), 0);
}

TEST(RandomGraphCoverageTest, EveryBroadcastingCaseAppears) {
  std::map<std::string, int64_t> counts = Coverage(RandomGraphOptions());
  Print(counts);
  ExpectAtLeast(counts,
                absl::StrSplit("equal shapes,scalar lhs,scalar rhs,in-dim lhs,"
                               "in-dim rhs,stretch lhs,stretch rhs,"
                               "stretch both (outer),stretch higher rank,"
                               "stretch both across ranks",
                               ','),
                100);
  ExpectAtLeast(counts, {"identity dims", "1 against 0"}, 20);
}

// Most values and parameters must reach the root, or the differential tests
// would compare little.
void MarkLive(const HloInstruction* instruction,
              std::set<const HloInstruction*>* live) {
  if (!live->insert(instruction).second) return;
  for (const HloInstruction* operand : instruction->operands()) {
    MarkLive(operand, live);
  }
}

TEST(RandomGraphCoverageTest, MostValuesReachTheRoot) {
  for (const RandomGraphOptions& options : {RandomGraphOptions(), AllTypes()}) {
    int64_t ops = 0, live_ops = 0, parameters = 0, live_parameters = 0;
    ForSeeds(options, kSeeds, [&](const RandomGraph& graph) {
      std::set<const HloInstruction*> live;
      MarkLive(Entry(graph).root_instruction(), &live);
      for (const HloInstruction* instruction : Entry(graph).instructions()) {
        const bool is_parameter =
            instruction->opcode() == HloOpcode::kParameter;
        (is_parameter ? parameters : ops) += 1;
        (is_parameter ? live_parameters : live_ops) += live.count(instruction);
      }
    });
    std::cout << live_ops << " of " << ops << " ops and " << live_parameters
              << " of " << parameters << " parameters reach the root\n";
    EXPECT_GT(live_ops, ops * 8 / 10);
    EXPECT_GT(live_parameters, parameters * 3 / 4);
  }
}

// Integers never come near overflow and no float is converted to an
// integer out of range, on the actual values of every instruction.
TEST(RandomGraphCoverageTest, IntegerValuesStayInRange) {
  ForSeeds(AllTypes(), 500, [](const RandomGraph& graph) {
    std::map<const HloInstruction*, Literal> values;
    for (const HloInstruction* op : Entry(graph).instructions()) {
      std::vector<const Literal*> operands;
      for (const HloInstruction* operand : op->operands()) {
        operands.push_back(&values.at(operand));
      }
      absl::StatusOr<Literal> value =
          op->opcode() == HloOpcode::kParameter
              ? graph.arguments[op->parameter_number()]
              : EvaluateInstruction(*op, operands);
      ASSERT_OK(value.status()) << op->ToString();
      const PrimitiveType type = op->shape().element_type();
      const double limit = type == S32 ? 0x1p30 : (type == S64 ? 0x1p50 : 0);
      for (int64_t i = 0; limit > 0 && i < value->element_count(); ++i) {
        ASSERT_LE(std::fabs(value->GetAsDouble(i)), limit) << op->ToString();
      }
      const Literal* from = operands.empty() ? nullptr : operands[0];
      for (int64_t i = 0; op->opcode() == HloOpcode::kConvert && limit > 0 &&
                          i < from->element_count();
           ++i) {
        ASSERT_LE(std::fabs(from->GetAsDouble(i)), limit) << op->ToString();
      }
      values.emplace(op, *std::move(value));
    }
  });
}

}  // namespace
}  // namespace mxla
