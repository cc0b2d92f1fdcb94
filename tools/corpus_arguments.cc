#include "tools/corpus_arguments.h"

#include <type_traits>

#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/shape_util.h"

namespace mxla::tools {
namespace {

// Deterministic arguments: floats in [-1, 1), small integers, alternating
// booleans, so that every module runs the same way on every machine.
void FillArray(Literal& literal, uint64_t& state) {
  primitive_util::ArrayTypeSwitch(
      literal.shape().element_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* data = static_cast<T*>(literal.untyped_data());
        for (int64_t i = 0; i < literal.element_count(); ++i) {
          state = state * 6364136223846793005u + 1442695040888963407u;
          const uint32_t bits = static_cast<uint32_t>(state >> 33);
          if constexpr (std::is_same_v<T, bool>) {
            data[i] = (bits & 1) != 0;
          } else if constexpr (std::is_floating_point_v<T> ||
                               kIsNarrowFloat<T>) {
            data[i] = static_cast<T>(static_cast<float>(bits / 2147483648.0 - 1.0));
          } else if constexpr (std::is_unsigned_v<T>) {
            data[i] = static_cast<T>(bits % 17);
          } else {
            data[i] = static_cast<T>(static_cast<int>(bits % 17) - 8);
          }
        }
      });
}

// Element steps an instruction takes: per result element, the window taps
// (times the input features of a convolution) or the contracted products
// of a dot; a reduce's or sort's inputs; else its result's elements.
int64_t WorkOf(const HloInstruction& instruction) {
  const int64_t results = ElementsOf(instruction.shape());
  int64_t per_result = 1;
  switch (instruction.opcode()) {
    case HloOpcode::kReduceWindow:
    case HloOpcode::kConvolution:
      for (const WindowDimension& d : instruction.window()) {
        per_result *= d.size;
      }
      if (instruction.opcode() == HloOpcode::kConvolution) {
        absl::StatusOr<ConvolutionDimensionNumbers> dnums =
            instruction.convolution_dimension_numbers();
        if (dnums.ok()) {
          per_result *= instruction.operand(1)->shape().dimensions(
              dnums->kernel_input_feature);
        }
      }
      return results * per_result;
    case HloOpcode::kDot:
      for (int64_t d : instruction.dot_dimension_numbers().lhs_contracting) {
        per_result *= instruction.operand(0)->shape().dimensions(d);
      }
      return results * per_result;
    case HloOpcode::kReduce:
    case HloOpcode::kSort: {
      int64_t inputs = 0;
      for (const HloInstruction* operand : instruction.operands()) {
        inputs += ElementsOf(operand->shape());
      }
      return inputs;
    }
    default:
      return results;
  }
}

}  // namespace

void FillDeterministic(Literal& literal, uint64_t& state) {
  if (literal.shape().IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_size(); ++i) {
      FillDeterministic(literal.tuple_element(i), state);
    }
    return;
  }
  if (literal.shape().IsToken()) return;  // no data
  FillArray(literal, state);
}

void RedrawFloats(Literal& literal, uint64_t& state) {
  if (literal.shape().IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_size(); ++i) {
      RedrawFloats(literal.tuple_element(i), state);
    }
    return;
  }
  if (literal.shape().IsArray() &&
      primitive_util::IsFloatingPointType(literal.shape().element_type())) {
    FillArray(literal, state);
  }
}

int64_t ElementsOf(const Shape& shape) {
  if (!shape.IsTuple()) return ShapeUtil::ElementsIn(shape);
  int64_t total = 0;
  for (const Shape& element : shape.tuple_shapes()) total += ElementsOf(element);
  return total;
}

int64_t EstimatedWork(const HloModule& module) {
  int64_t total = 0;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      total += WorkOf(*instruction);
    }
  }
  return total;
}

std::vector<Literal> ArgumentsWithin(const HloComputation& entry,
                                     int64_t max_elements, int64_t& elements,
                                     uint64_t state) {
  std::vector<Literal> arguments;
  for (int64_t number = 0; number < entry.num_parameters(); ++number) {
    const HloInstruction* parameter = entry.parameter_instruction(number);
    elements += ElementsOf(parameter->shape());
    if (elements > max_elements) break;
    arguments.emplace_back(parameter->shape());
    FillDeterministic(arguments.back(), state);
  }
  return arguments;
}

}  // namespace mxla::tools
