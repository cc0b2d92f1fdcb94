// The cost model behind fusion, row fusion and fusion planning, in one
// place: the thresholds that decide how kernels are cut into units and the
// rule that keeps expensive work from being recomputed. The planning pass
// (passes/fusion_planning.h) turns them into each fusion's FusionPlan;
// codegen never reads them.
#ifndef MXLA_PASSES_FUSION_COST_MODEL_H_
#define MXLA_PASSES_FUSION_COST_MODEL_H_

#include <cstdint>

#include "ir/hlo_instruction.h"

namespace mxla {

// Below this much memory traffic per chunk, handing work to another thread
// costs more than it saves (a wake-up costs a few microseconds; 256 KiB
// streams in about that): the runtime's split granularity, and the size
// under which a loop fusion is planned as one unit with static loop bounds
// (2 * kMinBytesPerChunk of traffic).
inline constexpr int64_t kMinBytesPerChunk = 256 << 10;

// Streaming stores (codegen/streaming_store_emitter.h) emit a fusion's body
// once per vector lane, which the SLP vectorizer then packs: compile time
// grows with the body times the lanes (a 300-op body: 1 s instead of
// 0.1 s). Past this many instructions a body is compute-bound anyway, so
// streaming saves nothing and the result is stored plainly.
inline constexpr int64_t kMaxStreamingBodyInstructions = 64;

// Row fusions: row-dependent full-row values that are expensive and read
// in several loops are kept in a row buffer up to this many bytes in total;
// beyond it they are recomputed.
inline constexpr int64_t kRowBufferBudgetBytes = 64 << 10;

// A dot fuses its elementwise consumers as an epilogue (applied as each
// tile is stored, so the kernel takes all of k in one slice) up to this k:
// its packed rhs block, k x 64 columns, stays within 512 KiB of stack (one
// block past 256 KiB, two below).
inline constexpr int64_t kMaxEpilogueDotK = 2048;

// A convolution product's packed weights slice (k_block x 64 features) is
// at most this large: a product of few rows takes all of k in one slice up
// to 4,096 f32 steps (ResNet's 3x3 over 256 features is 2,304), and so
// does one with an epilogue (which needs one slice), past kMaxEpilogueDotK.
inline constexpr int64_t kMaxConvSliceBytes = 1 << 20;

// A row dot (ir/fusion_plan.h) accumulates each unit's rows of the
// product in a stack block of about this many bytes (L2-resident, so the
// row phases read it from cache), and of at least kMinRowDotRows rows
// (each unit packs all of the dot's rhs: fewer rows would repack it for
// little work) within kMaxRowDotBlockBytes; a dot whose rows are too long
// for that keeps its own kernel.
inline constexpr int64_t kRowDotBlockBytes = 128 << 10;
inline constexpr int64_t kMinRowDotRows = 12;
// A row dot that would be a single unit (too few rows to split) stays one
// kernel only below this many multiply-adds (about 0.1 ms on one core).
inline constexpr int64_t kMinLoneRowDotWork = int64_t{1} << 24;

// Reductions that keep the last dimension: one unit per block of this many
// bytes of an output row.
inline constexpr int64_t kColumnBlockBytes = 2048;
// Reductions to fewer outputs than this may split each output's reduced
// range into chunks of kPartialChunkElements (at least two chunks).
inline constexpr int64_t kMinOutputsToSplit = 64;
inline constexpr int64_t kPartialChunkElements = 16384;

// The expensive-producer rule: a value computed by an expensive op
// (IsExpensiveElementwise: exp, log, divide, ...) is never recomputed per
// read. Fusion materializes it rather than fuse it into a consumer that
// reuses its elements (passes/operand_reuse.h), row fusion does not merge
// a producer whose expensive work the row kernel would redo, and a row
// fusion buffers such values that several of its loops read.
inline bool IsExpensiveProducer(const HloInstruction& instruction) {
  return IsExpensiveElementwise(instruction.opcode());
}

}  // namespace mxla

#endif  // MXLA_PASSES_FUSION_COST_MODEL_H_
