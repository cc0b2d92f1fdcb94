// Fuzz target: builder op sequences decoded from bytes: random ops of every
// element type of the table, tokens, shapes, broadcast_dimensions,
// permutations and reduce dimensions, valid or not, on operands that may
// themselves be failed ops or tokens. The steps' byte layout is in
// builder_steps.h; the dictionary (fuzz_dictionaries.cc) holds a record per
// op and type. Properties:
//   * no crash or sanitizer report, whatever the calls;
//   * a failed Build() is InvalidArgument with a message (never Internal);
//   * a successful Build() verifies, survives the pass pipeline, and when
//     small enough evaluates to the same bits before and after it, on
//     arguments whose elements are distinct (seeded from the bytes) so that
//     a pass that moves elements changes the result. Constants take
//     distinct values too.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/compile.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "tests/fuzz/builder_steps.h"
#include "tests/fuzz/byte_reader.h"
#include "tests/fuzz/fuzz_check.h"

namespace mxla::fuzz {
namespace {

using BinaryOp = XlaOp (*)(XlaOp, XlaOp, Dims, SourceLocation);
using UnaryOp = XlaOp (*)(XlaOp, SourceLocation);

// Every binary and unary builder function of the op table, in the order of
// builder_steps.h's names (its dictionary records pick them by index).
const std::vector<BinaryOp> kBinaryOps = {
#define MXLA_HLO_OP(...)
#define MXLA_UNARY_OP(...)
#define MXLA_BINARY_OP(e, text, Name, type_rule, cost) Name,
#include "ir/hlo_ops.def"
    Eq, Ne, Lt, Le, Gt, Ge};
const std::vector<UnaryOp> kUnaryOps = {
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(...)
#define MXLA_UNARY_OP(e, text, Name, type_rule, cost) Name,
#include "ir/hlo_ops.def"
};
// Every element type of the table, so that one byte swaps any for any.
const std::vector<PrimitiveType> kTypes(std::begin(kBuilderTypes),
                                        std::end(kBuilderTypes));

// Mostly plausible values, sometimes out of range (-1, or past the rank).
std::vector<int64_t> Numbers(ByteReader& in, int64_t max_count, int64_t low,
                             int64_t high) {
  std::vector<int64_t> numbers(in.Int(0, max_count));
  for (int64_t& number : numbers) number = in.Int(low, high);
  return numbers;
}

// splitmix64: the argument values' own PRNG (the bytes stay for the graph).
uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

// An array of `shape` whose elements are pairwise distinct (pred: random
// bits; the narrow types as far as they can hold them) and in a random
// order: base + k * step for k = 0..n-1, shuffled, with a nonzero
// fractional base for floats so no element is 0.
Literal DistinctValues(const Shape& shape, uint64_t& state) {
  Literal literal(shape);
  const bool floating = primitive_util::IsFloatingPointType(shape.element_type());
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto data = literal.data<T>();
    std::vector<int64_t> order(data.size());
    std::iota(order.begin(), order.end(), -static_cast<int64_t>(data.size() / 2));
    for (size_t i = order.size(); i > 1; --i) {
      std::swap(order[i - 1], order[NextRandom(state) % i]);
    }
    const int64_t base = static_cast<int64_t>(NextRandom(state) % 7) - 3;
    for (size_t i = 0; i < data.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        data[i] = NextRandom(state) & 1;
      } else {
        if (floating) {
          data[i] = static_cast<T>(
              static_cast<float>(static_cast<double>(base + order[i]) * 0.75 +
                                 0.125));
        } else {
          data[i] = static_cast<T>(base + 3 * order[i]);
        }
      }
    }
  });
  return literal;
}

Shape RandomShape(ByteReader& in, PrimitiveType type) {
  return ShapeUtil::MakeShape(type, Numbers(in, 4, 0, 5));
}

// One step (builder_steps.h): its kind, then the op or type index, then
// operands and sizes.
XlaOp RandomOp(ByteReader& in, XlaBuilder& b, const std::vector<XlaOp>& values,
               int64_t& next_parameter) {
  auto operand = [&] { return values.empty() ? XlaOp() : in.Pick(values); };
  SourceLocation here = SourceLocation::current();
  switch (static_cast<BuilderStep>(in.Int(0, kBuilderStepKinds - 1))) {
    case kParameterStep: {
      PrimitiveType type = in.Pick(kTypes);
      // Usually the next number; sometimes a repeat or a negative one.
      int64_t number = in.Int(0, 7) == 0 ? in.Int(-1, 3) : next_parameter++;
      return Parameter(&b, number, RandomShape(in, type),
                       absl::StrCat("p", number));
    }
    case kConstantStep: {
      // A scalar or a short vector of distinct values.
      PrimitiveType type = in.Pick(kTypes);
      int64_t count = in.Int(0, 4);
      Shape shape = count == 0 ? ShapeUtil::MakeScalarShape(type)
                               : ShapeUtil::MakeShape(type, {count});
      uint64_t state = in.U64();
      return ConstantLiteral(&b, DistinctValues(shape, state));
    }
    case kIotaStep: {
      PrimitiveType type = in.Pick(kTypes);
      Shape shape = RandomShape(in, type);
      return Iota(&b, shape, in.Int(-1, 4));
    }
    case kBinaryStep: case kBinaryStep2: case kBinaryStep3: {
      BinaryOp op = in.Pick(kBinaryOps);
      XlaOp lhs = operand(), rhs = operand();
      return op(lhs, rhs, Numbers(in, 3, -1, 5), here);
    }
    case kUnaryStep: {
      UnaryOp op = in.Pick(kUnaryOps);
      return op(operand(), here);
    }
    case kSelectStep: {
      XlaOp pred = operand(), on_true = operand(), on_false = operand();
      return Select(pred, on_true, on_false);
    }
    case kConvertStep: {
      PrimitiveType type = in.Pick(kTypes);
      return ConvertElementType(operand(), type);
    }
    case kBroadcastStep:
      return Broadcast(operand(), Numbers(in, 2, 0, 4));
    case kBroadcastInDimStep: {
      XlaOp op = operand();
      std::vector<int64_t> sizes = Numbers(in, 4, 0, 5);
      return BroadcastInDim(op, sizes, Numbers(in, 4, -1, 4));
    }
    case kReshapeStep:
      return Reshape(operand(), Numbers(in, 4, 0, 6));
    case kTransposeStep:
      return Transpose(operand(), Numbers(in, 4, -1, 4));
    case kReduceStep: {
      PrimitiveType type = in.Pick(kTypes);
      XlaOp op = operand();
      XlaOp init = ConstantLiteral(&b, LiteralUtil::Zero(type));
      XlaComputation reducer = in.Bool() ? CreateScalarAddComputation(type, &b)
                                         : CreateScalarMaxComputation(type, &b);
      return Reduce(op, init, reducer, Numbers(in, 3, -1, 4));
    }
    case kTupleStep: {
      if (in.Bool()) return GetTupleElement(operand(), in.Int(-1, 2));
      XlaOp first = operand(), second = operand();
      return Tuple(&b, {first, second});
    }
    default: {
      // A token, to reach every op with an operand that has no elements.
      if (in.Bool()) return CreateToken(&b);
      XlaOp first = operand(), second = operand();
      return AfterAll(&b, {first, second});
    }
  }
}

bool SmallEnoughToEvaluate(const HloModule& module) {
  for (const HloInstruction* instruction :
       module.entry_computation()->instructions()) {
    const Shape& shape = instruction->shape();
    if (shape.IsArray() && ShapeUtil::ElementsIn(shape) > 4096) return false;
  }
  return true;
}

}  // namespace
}  // namespace mxla::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mxla;
  FUZZ_CHECK(fuzz::kBinaryOps.size() == std::size(fuzz::kBuilderBinaryOpNames) &&
                 fuzz::kUnaryOps.size() == std::size(fuzz::kBuilderUnaryOpNames),
             "builder_steps.h's op names are not kBinaryOps and kUnaryOps");
  fuzz::ByteReader in(data, size);
  XlaBuilder b("fuzz");
  std::vector<XlaOp> values;
  int64_t next_parameter = 0;
  for (int64_t step = in.Int(1, 24); step > 0 && !in.empty(); --step) {
    values.push_back(fuzz::RandomOp(in, b, values, next_parameter));
  }
  absl::StatusOr<XlaComputation> computation = b.Build();
  if (!computation.ok()) {
    FUZZ_CHECK(
        computation.status().code() == absl::StatusCode::kInvalidArgument &&
            !computation.status().message().empty(),
        computation.status().ToString());
    return 0;
  }
  const HloModule& module = computation->module();
  absl::Status verified = VerifyModule(module, VerifierMode::kBuilder);
  FUZZ_CHECK(verified.ok(), absl::StrCat(verified.ToString(), "\n",
                                         module.ToString()));
  CompileOptions options;
  options.backend = Backend::kInterpreter;
  absl::StatusOr<std::unique_ptr<HloModule>> optimized =
      OptimizeForBackend(module, options);
  FUZZ_CHECK(optimized.ok(), absl::StrCat(optimized.status().ToString(), "\n",
                                          module.ToString()));
  if (!fuzz::SmallEnoughToEvaluate(module)) return 0;

  // Distinct values, so a transposed, reversed or shifted read shows.
  uint64_t state = in.U64();
  std::vector<Literal> arguments;
  for (const Shape& shape : computation->GetProgramShape().parameters) {
    arguments.push_back(fuzz::DistinctValues(shape, state));
  }
  std::vector<const Literal*> pointers;
  for (const Literal& argument : arguments) pointers.push_back(&argument);
  absl::StatusOr<Literal> before = EvaluateModule(module, pointers);
  absl::StatusOr<Literal> after = EvaluateModule(**optimized, pointers);
  FUZZ_CHECK(before.ok() == after.ok(),
             absl::StrCat(before.status().ToString(), " vs ",
                          after.status().ToString(), "\n", module.ToString()));
  if (before.ok()) {
    FUZZ_CHECK(*before == *after,
               absl::StrCat("the pipeline changed the result of\n",
                            module.ToString(), "\nfrom ", before->ToString(),
                            "\nto ", after->ToString()));
  }
  return 0;
}
