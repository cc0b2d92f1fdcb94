// HloOpcode and the properties passes ask about, generated from the op
// table (ir/hlo_ops.def; the whole entry is ir/op_spec.h).
#ifndef MXLA_IR_HLO_OPCODE_H_
#define MXLA_IR_HLO_OPCODE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mxla {

enum class HloOpcode : int {
#define MXLA_HLO_OP(e, ...) e,
#include "ir/hlo_ops.def"
};

enum class HloOpcodeCategory { kLeaf, kUnary, kBinary, kCompare, kOther };

// "add", "get-tuple-element": the HLO text spelling.
absl::string_view HloOpcodeString(HloOpcode opcode);
absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view text);
HloOpcodeCategory GetHloOpcodeCategory(HloOpcode opcode);
// Operand count, or -1 for variadic opcodes.
int64_t HloOpcodeArity(HloOpcode opcode);

// Binary elementwise ops, compare included: the ops that take
// broadcast_dimensions in the builder and may broadcast implicitly.
bool IsBinaryElementwise(HloOpcode opcode);
// Unary, binary, compare, select and convert: same index in, same index out.
bool IsElementwise(HloOpcode opcode);
// while, conditional, sort, scatter, select-and-scatter, infeed and
// outfeed: ops the JIT runs as steps of their own outside any fusion, most
// calling their compiled computations (a loop's condition and body, the
// branches, the comparator); infeed and outfeed call the run's host feed;
// and the device steps below.
bool IsSubprogramOp(HloOpcode opcode);
// What a program compiled for several devices runs as steps that reach the
// run's other devices (its communicator) or ask which device it is: the
// synchronous collectives, replica-id and partition-id. Subprogram ops; a
// one-device compile lowers them all (passes/lower_collectives.h).
bool IsDeviceStepOp(HloOpcode opcode);
// Ops whose value depends on which device runs them or on the other
// devices: the device steps, the asynchronous collectives and the async
// wrappers (which may call a collective). Constant folding, which
// evaluates on no device, leaves them alone.
bool DependsOnDevice(HloOpcode opcode);
// Ops whose effect is not only their result (infeed, outfeed): every pass
// keeps them, and both backends run them even when nothing reads them.
bool HasSideEffect(HloOpcode opcode);
// Ops a fused entry computation keeps outside fusions that need no code:
// parameters, constants, tuples and their elements, and tokens (after-all).
bool IsCodelessEntryOp(HloOpcode opcode);
// Elementwise ops that cost much more than a load or store (transcendentals,
// division, roots): worth writing to memory rather than recomputing.
bool IsExpensiveElementwise(HloOpcode opcode);

// Comparison directions of `compare`.
enum class ComparisonDirection { kEq, kNe, kLt, kLe, kGt, kGe };
absl::string_view ComparisonDirectionString(ComparisonDirection direction);
absl::StatusOr<ComparisonDirection> StringToComparisonDirection(
    absl::string_view text);

// rng's distributions, printed as `distribution=rng_uniform`: uniform in
// [a, b), or normal with mean mu and standard deviation sigma.
enum class RandomDistribution { kUniform, kNormal };
absl::string_view RandomDistributionString(RandomDistribution distribution);
absl::StatusOr<RandomDistribution> StringToRandomDistribution(
    absl::string_view text);

// rng-bit-generator's algorithms, printed as `algorithm=rng_philox`.
// kDefault is the backend's choice; XLA:CPU's, and mxla's, is Philox.
enum class RandomAlgorithm { kDefault, kThreeFry, kPhilox };
absl::string_view RandomAlgorithmString(RandomAlgorithm algorithm);
absl::StatusOr<RandomAlgorithm> StringToRandomAlgorithm(absl::string_view text);

// Kinds of fusion computation, printed as `kind=kLoop`. kCustom is another
// backend's fusion (XLA:GPU's Triton and library calls): its value is its
// computation's, which the JIT inlines and fuses its own way.
enum class FusionKind { kLoop, kInput, kOutput, kCustom };
absl::string_view FusionKindString(FusionKind kind);
absl::StatusOr<FusionKind> StringToFusionKind(absl::string_view text);

}  // namespace mxla

#endif  // MXLA_IR_HLO_OPCODE_H_
