// Streaming (non-temporal) stores for large outputs. A plain store first
// reads its cache line from memory (read-for-ownership), so an elementwise
// kernel moves 1.5x the bytes it must; a non-temporal store writes the line
// without reading it. x86 only allows them aligned, which LLVM's loop
// vectorizer cannot promise for a scalar loop, so mxla emits the vectors
// itself: each run of output positions goes in blocks, a block's whole
// aligned vectors are computed lane by lane (the SLP vectorizer packs the
// lanes into vector code) and written with one aligned vector non-temporal
// store each, as wide as the host's vector registers (HostVectorBytes: 64
// bytes with AVX-512). The unaligned head up to that alignment and the part
// of the last vector before a row's end take plain stores, so rows of any
// length stream. An earlier version computed each block into an L1 buffer
// and copied it out; that extra store and load per vector cost most of
// what streaming saves (W1: 20% slower than direct streaming).
// A fence follows so the stores are visible to whoever waits for the
// kernel.
#ifndef MXLA_CODEGEN_STREAMING_STORE_EMITTER_H_
#define MXLA_CODEGEN_STREAMING_STORE_EMITTER_H_

#include <functional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/elemental_emitter.h"
#include "ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

// Like EmitLinearRangeLoops (loop_emitter.h) over the positions [begin,
// end) of `dimensions`, storing value(index) to `output` (row-major, element
// type `type`, not pred) with streaming stores. Without `fence`, the
// caller must emit EmitStreamingFence before the kernel returns.
// `per_vector`, when set, is called once per streamed vector with the
// linear position of its first element (after the vector's store).
absl::Status EmitStreamingRangeLoops(
    llvm::IRBuilder<>& b, absl::Span<const int64_t> dimensions,
    llvm::Value* begin, llvm::Value* end, PrimitiveType type,
    llvm::Value* output,
    const std::function<absl::StatusOr<llvm::Value*>(const IrIndex&)>& value,
    bool fence = true,
    const std::function<void(llvm::Value*)>& per_vector = nullptr);

// Orders earlier streaming stores before anything after it.
void EmitStreamingFence(llvm::IRBuilder<>& b);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_STREAMING_STORE_EMITTER_H_
