// Options of the LLVM backend that change the generated code: the planning
// options the fusion plans were made with (ir/fusion_plan_options.h), and
// LLVM's optimization level. They are part of the compile-cache key.
#ifndef MXLA_CODEGEN_CODEGEN_OPTIONS_H_
#define MXLA_CODEGEN_CODEGEN_OPTIONS_H_

#include "ir/fusion_plan_options.h"

namespace mxla {

struct CodegenOptions : FusionPlanningOptions {
  // LLVM optimization level, 0 to 3, of both the IR pipeline and the
  // machine code generator; other values are InvalidArgument.
  int optimization_level = 3;

  bool operator==(const CodegenOptions&) const = default;
};

}  // namespace mxla

#endif  // MXLA_CODEGEN_CODEGEN_OPTIONS_H_
