// Loop nests in LLVM IR. A kernel covers a half-open range [begin, end) of
// "units" so the runtime can split the work across threads; the functions
// here turn such a range into loops whose innermost loop runs over a
// contiguous row-major dimension with a unit stride, the form LLVM's loop
// vectorizer turns into full-width vector code.
#ifndef MXLA_CODEGEN_LOOP_EMITTER_H_
#define MXLA_CODEGEN_LOOP_EMITTER_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "codegen/elemental_emitter.h"
#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

// What LLVM may do to a loop: a loop that is already vector code, or too
// short to gain, is kept as written (less code, faster compiles).
enum class LoopHints { kDefault, kKeepAsWritten };

// for (i = start; i < end; ++i) body(i). The builder is left after the loop.
// `body` may emit further loops; it must leave the builder in a block that
// falls through to the latch (any block it ends in).
absl::Status EmitForLoop(llvm::IRBuilder<>& b, llvm::Value* start,
                         llvm::Value* end, const char* name,
                         const std::function<absl::Status(llvm::Value*)>& body,
                         LoopHints hints = LoopHints::kDefault);

// if (condition) body(). The builder is left after it.
absl::Status EmitIf(llvm::IRBuilder<>& b, llvm::Value* condition,
                    const std::function<absl::Status()>& body);

// The rows of `dimensions` (rank >= 1, no zero size) that meet the
// row-major positions [begin, end): `row` gets the row's index (all
// dimensions but the last), its first linear position, and the columns
// [from, to) of it inside the range.
absl::Status EmitRowSegments(
    llvm::IRBuilder<>& b, absl::Span<const int64_t> dimensions,
    llvm::Value* begin, llvm::Value* end,
    const std::function<absl::Status(const IrIndex& row_index,
                                     llvm::Value* row_start, llvm::Value* from,
                                     llvm::Value* to)>& row);

// Visits the row-major positions [begin, end) of `dimensions` (rank >= 1,
// no zero size): an outer loop over rows (all dimensions but the last) and
// an inner unit-stride loop over the last dimension clipped to the range.
// `body` receives the full index and the linear position.
absl::Status EmitLinearRangeLoops(
    llvm::IRBuilder<>& b, absl::Span<const int64_t> dimensions,
    llvm::Value* begin, llvm::Value* end,
    const std::function<absl::Status(const IrIndex&, llvm::Value*)>& body);

// Visits every index of `dimensions` in row-major order with one loop per
// dimension (a size-1 dimension gets the constant 0 and no loop).
absl::Status EmitLoopNest(
    llvm::IRBuilder<>& b, absl::Span<const int64_t> dimensions,
    const std::function<absl::Status(const IrIndex&)>& body);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_LOOP_EMITTER_H_
