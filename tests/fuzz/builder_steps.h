// The byte layout of builder_fuzzer's steps, shared with the dictionary
// generator (fuzz_dictionaries.cc) so that a dictionary record decodes to
// the op or element type it names. Each step reads its kind byte (modulo
// kBuilderStepKinds), then, for the kinds that take an op or an element
// type from a table, that table index as the very next byte (ByteReader
// picks from n <= 256 choices with one byte, modulo n), and only then its
// operands and sizes.
#ifndef MXLA_TESTS_FUZZ_BUILDER_STEPS_H_
#define MXLA_TESTS_FUZZ_BUILDER_STEPS_H_

#include <cstdint>

#include "ir/primitive_type.h"

namespace mxla::fuzz {

enum BuilderStep : uint8_t {
  kParameterStep,  // + type index
  kConstantStep,   // + type index
  kIotaStep,       // + type index
  kBinaryStep,     // + binary op index (three kinds, so binary ops are
  kBinaryStep2,    //   the most frequent step)
  kBinaryStep3,
  kUnaryStep,  // + unary op index
  kSelectStep,
  kConvertStep,  // + type index (the new element type)
  kBroadcastStep,
  kBroadcastInDimStep,
  kReshapeStep,
  kTransposeStep,
  kReduceStep,  // + type index (the init and reducer type)
  kTupleStep,
  kTokenStep,  // CreateToken or AfterAll of two operands
  kBuilderStepKinds,
};

// Every element type of ir/primitive_types.def, in its order.
inline constexpr PrimitiveType kBuilderTypes[] = {
#define MXLA_PRIMITIVE_TYPE(e, text, native) e,
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
};

// Every binary op of ir/hlo_ops.def in its order, then compare in each
// direction: builder_fuzzer's kBinaryOps holds their builder functions.
inline constexpr const char* kBuilderBinaryOpNames[] = {
#define MXLA_HLO_OP(...)
#define MXLA_UNARY_OP(...)
#define MXLA_BINARY_OP(e, text, builder, type_rule, cost) text,
#include "ir/hlo_ops.def"
    "compare-EQ", "compare-NE", "compare-LT",
    "compare-LE", "compare-GT", "compare-GE"};

// Every unary op of ir/hlo_ops.def in its order (kUnaryOps).
inline constexpr const char* kBuilderUnaryOpNames[] = {
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(...)
#define MXLA_UNARY_OP(e, text, builder, type_rule, cost) text,
#include "ir/hlo_ops.def"
};

}  // namespace mxla::fuzz

#endif  // MXLA_TESTS_FUZZ_BUILDER_STEPS_H_
