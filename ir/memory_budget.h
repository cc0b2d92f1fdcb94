// Memory budgets: the most bytes one computation may allocate. A request
// past its budget is InvalidArgument before anything is allocated, so an
// f32[100000,100000,100] value is a clear message rather than an
// out-of-memory abort.
//
// Stateless: ir holds no limit of its own. Whoever allocates is handed its
// budget (the builder's constants, the interpreter's EvaluatorOptions, the
// runtime's CompileOptions and RunOptions, whose default is the process-wide
// limit in runtime/memory_limit.h).
#ifndef MXLA_IR_MEMORY_BUDGET_H_
#define MXLA_IR_MEMORY_BUDGET_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ir/shape.h"

namespace mxla {

// The machine's physical memory (INT64_MAX if unknown): the default budget.
int64_t PhysicalMemoryBytes();

// InvalidArgument if `bytes` exceeds `budget`: "<what> needs N bytes, over
// the memory limit of L bytes (see SetMemoryLimitBytes)".
absl::Status CheckMemoryBudget(int64_t bytes, int64_t budget,
                               absl::string_view what);

// Whether `status` is CheckMemoryBudget's refusal (so a tool can tell "too
// large for this machine" from a real error).
bool IsOverMemoryBudget(const absl::Status& status);

// The bytes of every array in a valid shape (a tuple's elements summed),
// saturating at INT64_MAX.
int64_t TotalArrayBytes(const Shape& shape);

}  // namespace mxla

#endif  // MXLA_IR_MEMORY_BUDGET_H_
