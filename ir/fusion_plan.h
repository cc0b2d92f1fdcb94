// FusionPlan: how codegen is to emit one fusion, decided by the
// fusion-planning pass (passes/fusion_planning.h) and recorded on the fusion
// instruction (HloInstruction::fusion_plan), so that codegen only maps it.
//
// Four kinds, one typed config each:
//   loop       the root is not a reduce. One unit per output element, or
//              with `one_unit` a single unit with static loop bounds (small
//              kernels; every scalar result). `store` says whether results
//              are written with streaming (non-temporal) stores.
//   reduction  the root is a reduce (and the only one). The units are the
//              ReductionPlan's: with column_block > 0 (the last dimension is
//              kept) blocks of output rows; with chunks > 0 chunks of the
//              reduced range whose partial results go to a scratch buffer;
//              else one output element per unit.
//   row        a row fusion: reduces over the trailing (column) dimensions
//              inside the body. One unit per row; loop (phase) p computes
//              the p-th reduce of the fused computation in post order, and
//              a last phase writes the output. Buffered values are kept in a
//              row buffer written by phase `writer` and read by later ones.
//   dot        a dot of f32 or f64 (FusedDot): a blocked matrix product
//              (codegen/gemm_emitter.h), the root itself or followed by an
//              epilogue of elementwise ops up to the root, applied as each
//              tile is stored (k_block then covers all of k). Its output is
//              batch x m x n (ir/flat_dot.h); a unit is one m_block x
//              n_block block of one batch element, computed over k in
//              slices of k_block.
//              With `rows` (a "row dot", RowDot): the dot's readers form a
//              row fusion (softmax of attention scores) whose columns are
//              the dot's n. A unit is m_block whole rows (n_block = n) of
//              one batch element, taken row_block rows at a time: their
//              product is accumulated in a stack block, then the row
//              plan's phases run over them reading the dot from it, while
//              it is in cache. (With one k slice the unit packs rhs once.)
// Values are named by instruction name (unique in a module, kept by
// cloning), never by pointer.
//
// Text form (printed as `plan=...` after a fusion's `calls=`; parsed by the
// text front end, hlo_text/fusion_plan_parser.h):
//   {kind=loop, store=plain|streaming[, one_unit=true]}
//   {kind=reduction, units=N[, column_block=B, column_blocks=K]
//                             [, chunks=C, chunk_elements=E, scratch_bytes=S]}
//   {kind=row, rows={R...}, columns={C...}, store=plain|streaming,
//              buffered={name:writer, ...}}
//   {kind=dot, units=N, m_block=M, n_block=N, k_block=K
//              [, row_block=B, rows={R...}, columns={C...}, store=...,
//              buffered={...}]}
#ifndef MXLA_IR_FUSION_PLAN_H_
#define MXLA_IR_FUSION_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_opcode.h"

namespace mxla {

class HloComputation;
class HloInstruction;

enum class StoreKind { kPlain, kStreaming };

struct LoopPlan {
  StoreKind store = StoreKind::kPlain;
  bool one_unit = false;  // one unit, static bounds
  bool operator==(const LoopPlan&) const = default;
};

// How a reduce kernel's work is cut into units.
struct ReductionPlan {
  int64_t units = 0;           // the iteration space [0, units)
  int64_t column_block = 0;    // kept last dimension: elements per block
  int64_t column_blocks = 1;   //   and blocks per output row
  int64_t chunks = 0;          // > 0: partial results, chunks per output
  int64_t chunk_elements = 0;  //   of this many reduced elements each
  int64_t scratch_bytes = 0;   //   in a scratch buffer of this size
  bool operator==(const ReductionPlan&) const = default;
};

struct BufferedValue {
  std::string name;    // a full-row value of the fused computation
  int64_t writer = 0;  // the phase that stores it; later phases load it
  bool operator==(const BufferedValue&) const = default;
};

struct RowPlan {
  std::vector<int64_t> row_dimensions;     // R
  std::vector<int64_t> column_dimensions;  // C
  StoreKind store = StoreKind::kPlain;     // streaming: full-row roots only
  std::vector<BufferedValue> buffered;     // in post order
  bool operator==(const RowPlan&) const = default;
};

struct DotPlan {
  int64_t units = 0;  // batch x m blocks x n blocks
  int64_t m_block = 1;
  int64_t n_block = 1;
  int64_t k_block = 1;
  // A row dot: its rows' phases, run after each block of row_block rows.
  int64_t row_block = 0;
  std::optional<RowPlan> rows;
  // How a dot with an epilogue stores its tiles (a row dot's stores are its
  // row plan's); printed only when streaming.
  StoreKind store = StoreKind::kPlain;
  bool operator==(const DotPlan&) const = default;
};

struct FusionPlan {
  std::variant<LoopPlan, ReductionPlan, RowPlan, DotPlan> config;

  bool is_loop() const { return std::holds_alternative<LoopPlan>(config); }
  bool is_reduction() const {
    return std::holds_alternative<ReductionPlan>(config);
  }
  bool is_row() const { return std::holds_alternative<RowPlan>(config); }
  bool is_dot() const { return std::holds_alternative<DotPlan>(config); }
  // The kind's text name: "loop", "reduction", "row" or "dot".
  absl::string_view kind_name() const;
  // The text form above, braces included.
  std::string ToString() const;
  bool operator==(const FusionPlan&) const = default;
};

// Whether `plan` fits `fusion` (a fusion instruction with its computation):
// the kind matches the root, the dimensions the shapes, every buffered name
// is a full-row value of the fused computation and every number is the one
// the shapes imply. InvalidArgument says which; the verifier prefixes the
// instruction.
absl::Status CheckFusionPlan(const FusionPlan& plan,
                             const HloInstruction& fusion);

// Bytes a fusion must move: its operands read once, its result written
// once (tuples summed). Planning's size thresholds and the runtime's cost
// per unit both start from it.
int64_t FusionTrafficBytes(const HloInstruction& fusion);

// The reduces of `computation` in post order: the row phases.
std::vector<const HloInstruction*> ReducesInPostOrder(
    const HloComputation& computation);

// Whether `user` can apply to `value`'s elements as an epilogue, at the
// same index: an elementwise op of `value`'s dimensions.
bool IsEpilogueOp(const HloInstruction& value, const HloInstruction& user);

// What the dot kernel computes: a dot, or a convolution in the product
// form (ir/conv_product.h), which it computes as an implicit matrix product,
// or a depthwise convolution in its product form, which its depthwise
// kernel computes (codegen/depthwise_emitter.h).
bool IsMatrixProductOp(const HloInstruction& instruction);

// The product (IsMatrixProductOp) a dot fusion computes: the root, or the
// one product whose every reader, directly or through others, is an
// epilogue op (IsEpilogueOp); null for any other fused computation.
const HloInstruction* FusedDot(const HloComputation& computation);

// The dot of a row dot fusion: the one dot, f32 or f64, with neither a dot
// nor a reduce among its operands' producers and at least one rhs-free
// dimension, whose every reader, directly or through others, is an
// epilogue op, a reduce reading it as its data operand, or the root; null
// for any other computation. (The row structure itself is the row-fusion
// analysis' to check: passes/row_fusion_analysis.h.)
const HloInstruction* RowDot(const HloComputation& computation);

// Bytes of a dot kernel's packed operand blocks, on its stack: at most
// k_block x (n_block + 144) elements (the packed lhs takes up to 144 rows;
// a second rhs block, for pipelined packing, only where it fits too).
inline constexpr int64_t kMaxDotPackedBytes = 4 << 20;

// Bytes of the stack block a row dot's unit accumulates in: row_block
// rows of the dot's n elements. At most kMaxRowDotBlockBytes.
inline constexpr int64_t kMaxRowDotBlockBytes = 256 << 10;

// Whether `reducer` is `opcode` applied to its two (distinct) parameters
// (planning decides splits with it, codegen reassociation).
bool IsPlainBinaryReducer(const HloComputation& reducer, HloOpcode opcode);

// The operand whose buffer a fusion may update in place (XLA's in-place
// dynamic-update-slice), or -1: a loop fusion whose root is a
// dynamic-update-slice of one of its parameters P, of an element type of
// at least a byte, where P has no other readers than dynamic-slices at the
// same start operands with the update's sizes, whose values reach the
// update only through elementwise ops of the update's dimensions (so
// update element i reads only P's element under it). Its kernel
// (codegen/kernel_emitter.h) copies that operand into the output when
// their buffers differ, then writes the update's elements alone; buffer
// assignment (runtime/buffer_assignment.h) gives the output the operand's
// buffer when the operand is dead afterwards.
int64_t InPlaceFusionOperand(const HloInstruction& fusion);

}  // namespace mxla

#endif  // MXLA_IR_FUSION_PLAN_H_
