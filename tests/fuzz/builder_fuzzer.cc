// Fuzz target: builder op sequences decoded from bytes: random ops, shapes,
// broadcast_dimensions, permutations and reduce dimensions, valid or not,
// on operands that may themselves be failed ops. Properties:
//   * no crash or sanitizer report, whatever the calls;
//   * a failed Build() is InvalidArgument with a message (never Internal);
//   * a successful Build() verifies, survives the pass pipeline, and when
//     small enough evaluates to the same bits before and after it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "ir/hlo_evaluator.h"
#include "ir/hlo_verifier.h"
#include "runtime/compile.h"
#include "tests/fuzz/byte_reader.h"
#include "tests/fuzz/fuzz_check.h"

namespace mxla::fuzz {
namespace {

using BinaryOp = XlaOp (*)(XlaOp, XlaOp, Dims, SourceLocation);
using UnaryOp = XlaOp (*)(XlaOp, SourceLocation);

const std::vector<BinaryOp> kBinaryOps = {Add, Sub, Mul, Div, Rem, Max,
                                          Min, Pow, And, Or,  Xor, Eq,
                                          Ne,  Lt,  Le,  Gt,  Ge};
const std::vector<UnaryOp> kUnaryOps = {Neg,  Abs,      Exp,   Log,
                                        Sqrt, Rsqrt,    Tanh,  Logistic,
                                        Floor, Ceil,    Sign,  Not};
const std::vector<PrimitiveType> kTypes = {F32, F64, S32, S64, PRED};

// Mostly plausible values, sometimes out of range (-1, or past the rank).
std::vector<int64_t> Numbers(ByteReader& in, int64_t max_count, int64_t low,
                             int64_t high) {
  std::vector<int64_t> numbers(in.Int(0, max_count));
  for (int64_t& number : numbers) number = in.Int(low, high);
  return numbers;
}

Shape RandomShape(ByteReader& in) {
  return ShapeUtil::MakeShape(in.Pick(kTypes), Numbers(in, 4, 0, 5));
}

XlaOp RandomOp(ByteReader& in, XlaBuilder& b, const std::vector<XlaOp>& values,
               int64_t& next_parameter) {
  auto operand = [&] { return values.empty() ? XlaOp() : in.Pick(values); };
  SourceLocation here = SourceLocation::current();
  switch (in.Int(0, 14)) {
    case 0: {
      // Usually the next number; sometimes a repeat or a negative one.
      int64_t number = in.Int(0, 7) == 0 ? in.Int(-1, 3) : next_parameter++;
      return Parameter(&b, number, RandomShape(in), absl::StrCat("p", number));
    }
    case 1:
      return ConstantLiteral(&b, LiteralUtil::One(in.Pick(kTypes)));
    case 2:
      return Iota(&b, RandomShape(in), in.Int(-1, 4));
    case 3: case 4: case 5: {
      XlaOp lhs = operand(), rhs = operand();
      return in.Pick(kBinaryOps)(lhs, rhs, Numbers(in, 3, -1, 5), here);
    }
    case 6:
      return in.Pick(kUnaryOps)(operand(), here);
    case 7: {
      XlaOp pred = operand(), on_true = operand(), on_false = operand();
      return Select(pred, on_true, on_false);
    }
    case 8:
      return ConvertElementType(operand(), in.Pick(kTypes));
    case 9:
      return Broadcast(operand(), Numbers(in, 2, 0, 4));
    case 10: {
      XlaOp op = operand();
      std::vector<int64_t> sizes = Numbers(in, 4, 0, 5);
      return BroadcastInDim(op, sizes, Numbers(in, 4, -1, 4));
    }
    case 11:
      return Reshape(operand(), Numbers(in, 4, 0, 6));
    case 12:
      return Transpose(operand(), Numbers(in, 4, -1, 4));
    case 13: {
      XlaOp op = operand();
      PrimitiveType type = in.Pick(kTypes);
      XlaOp init = ConstantLiteral(&b, LiteralUtil::Zero(type));
      XlaComputation reducer = in.Bool() ? CreateScalarAddComputation(type, &b)
                                         : CreateScalarMaxComputation(type, &b);
      return Reduce(op, init, reducer, Numbers(in, 3, -1, 4));
    }
    default:
      if (in.Bool()) return GetTupleElement(operand(), in.Int(-1, 2));
      XlaOp first = operand(), second = operand();
      return Tuple(&b, {first, second});
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

  // Zero arguments: the point is the pipeline's agreement, not the values.
  std::vector<Literal> arguments;
  for (const Shape& shape : computation->GetProgramShape().parameters) {
    arguments.emplace_back(shape);
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
