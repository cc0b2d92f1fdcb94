// Passes of the LLVM release mxla builds against (Debian's 19.1) that
// miscompile IR mxla emits, and how the optimization pipeline avoids them.
// Each guard names the upstream report and the mxla test that catches it.
#ifndef MXLA_CODEGEN_LLVM_MISCOMPILE_GUARDS_H_
#define MXLA_CODEGEN_LLVM_MISCOMPILE_GUARDS_H_

#include "llvm/IR/PassInstrumentation.h"

namespace mxla::codegen {

// Makes the pipeline that `callbacks` instruments skip the transforms below.
// The callbacks (and so the state they keep) must outlive the pipeline run.
//
// * VectorCombine after vectorization: its foldShuffleToIdentity (LLVM 19)
//   tracks visited values by the use of their first lane only, so one value
//   that is both a splat source and an identity source (a fused dot whose
//   lhs and rhs are the same producer: the scalar splatted for the rhs row
//   and the row itself) is rebuilt as the identity, and a splat becomes the
//   whole row (llvm/llvm-project#180338, fixed upstream in 2026). The early
//   VectorCombine (loads and inserts only) still runs. Test:
//   LlvmMiscompileGuardsTest.SplatAndRowOfOneValueStayApart.
void GuardAgainstLlvmMiscompiles(llvm::PassInstrumentationCallbacks& callbacks);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_LLVM_MISCOMPILE_GUARDS_H_
