// Emits one LLVM function (a "kernel") per fusion instruction of a fused
// module's entry computation, with the ABI the runtime calls:
//
//   void kernel(void* const* buffers, int64_t begin, int64_t end)
//
// `buffers` holds the fusion's operand buffers in operand order, then its
// output buffers (one per tuple element for a variadic reduce), then a
// scratch buffer if KernelInfo::scratch_bytes > 0. The kernel computes the
// units [begin, end) of its iteration space (KernelInfo::units).
//
// Codegen decides nothing: it dispatches on the fusion's FusionPlan
// (ir/fusion_plan.h, recorded by passes/fusion_planning.h) and maps it,
// reading nothing outside the fusion. Units are output elements for a loop
// plan (or one unit with static bounds), rows for a row plan
// (row_emitter.h), and the ReductionPlan's units for a reduction
// (reduction_emitter.h: blocks of output rows, or chunks of the reduced
// range whose partials a second kernel combines, see
// KernelInfo::combine_symbol). A fusion without a plan is
// FailedPrecondition naming it. Any split of [0, units) gives identical
// bits. Buffers never alias each other.
#ifndef MXLA_CODEGEN_KERNEL_EMITTER_H_
#define MXLA_CODEGEN_KERNEL_EMITTER_H_

#include <string>

#include "absl/status/statusor.h"
#include "codegen/codegen_options.h"
#include "codegen/kernel_info.h"
#include "ir/hlo_instruction.h"
#include "llvm/IR/Module.h"

namespace mxla::codegen {

absl::StatusOr<KernelInfo> EmitFusionKernel(const HloInstruction& fusion,
                                            const std::string& symbol,
                                            const CodegenOptions& options,
                                            llvm::Module& module);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_KERNEL_EMITTER_H_
