#include "codegen/gemm_emitter.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "codegen/gemv_emitter.h"
#include "codegen/llvm_pipeline.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "codegen/prefetch.h"
#include "codegen/row_emitter.h"
#include "codegen/streaming_store_emitter.h"
#include "codegen/transposed_pack.h"
#include "ir/conv_product.h"
#include "ir/flat_dot.h"
#include "ir/status_macros.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Support/MathExtras.h"

namespace mxla::codegen {
namespace {

int64_t CeilDivInt(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

GemmTile HostGemmTile(PrimitiveType type, int64_t n) {
  GemmTile tile;
  const int64_t register_bytes = HostVectorBytes();
  const int64_t element_bytes = primitive_util::ByteWidth(type);
  const int64_t register_lanes = register_bytes / element_bytes;
  // 4 x mr accumulators, 4 rhs vectors and a broadcast: 6 rows fill 29 of
  // AVX-512's 32 registers; AVX's 16 take 2 vectors of 6 rows (15).
  const int64_t vectors = register_bytes >= 64 ? 4 : 2;
  const int64_t needed = std::max<int64_t>(1, CeilDivInt(n, register_lanes));
  if (needed >= vectors) {
    tile.lanes = register_lanes;
    tile.vector_bytes = register_bytes;
    tile.nr = vectors * tile.lanes;
    tile.mr = 6;
    return tile;
  }
  // Fewer columns than the full tile: as many vectors as they need (one
  // vector as narrow as a power of two that holds them, down to 16 bytes,
  // where they fit one register), and 12 rows, so that each rhs vector
  // loaded serves twice the multiply-adds: at most 2 x 12 accumulators
  // with their rhs vectors and a broadcast fit AVX-512's registers, and
  // 1 x 12 fit AVX's 16.
  if (needed == 1) {
    tile.lanes = std::clamp<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(n, 1)),
                                     16 / element_bytes, register_lanes);
  } else {
    tile.lanes = register_lanes;
  }
  tile.vector_bytes = tile.lanes * element_bytes;
  tile.nr = needed * tile.lanes;
  tile.mr = needed <= 2 ? 12 : 8;
  return tile;
}

namespace {

// Whether the dimension groups, one after another, are dimensions 0, 1,
// 2, ...: an operand stored row-major in that order.
bool InOrder(std::initializer_list<const std::vector<int64_t>*> groups) {
  int64_t next = 0;
  for (const std::vector<int64_t>* group : groups) {
    for (int64_t d : *group) {
      if (d != next++) return false;
    }
  }
  return true;
}

// Rows of a small product (kSmallDotWork; an [8,8] @ [8,8] is 512) up to this many vectors wide keep their
// accumulators in vector registers.
constexpr int64_t kSmallVectors = 4;
// Dots whose packed rhs block is at most this large keep two on the stack
// and pack the next slice while the current one's tiles run (the planner's
// blocks are this size where k allows).
constexpr int64_t kPipelinedRhsBlockBytes = 256 << 10;


// Everything the kernel's loops share.
class GemmEmitter {
 public:
  GemmEmitter(llvm::IRBuilder<>& b, const HloComputation& fused,
              const HloInstruction& dot, const DotPlan& plan,
              ElementalEmitter& elements, llvm::Value* result,
              const CodegenOptions& options)
      : b_(b),
        fused_(fused),
        root_(*fused.root_instruction()),
        dot_(dot),
        conv_(AsConvProduct(dot)),
        conv_input_(conv_ && IsConvolutionInputPad(*dot.operand(0), dot)
                        ? dot.operand(0)->operand(0)
                        : dot.operand(0)),
        epilogue_(!plan.rows && &root_ != &dot),
        plan_(plan),
        options_(options),
        elements_(elements),
        result_(result),
        out_(result),
        type_(dot.shape().element_type()),
        flat_(FlattenProduct(dot)),
        tile_(HostGemmTile(type_, flat_.n)),
        element_type_(RegisterType(type_, b.getContext())),
        vector_type_(llvm::FixedVectorType::get(element_type_, tile_.lanes)) {}

  absl::Status Emit(llvm::Value* begin, llvm::Value* end);

 private:
  llvm::Value* I64(int64_t value) { return b_.getInt64(value); }
  llvm::Value* Min(llvm::Value* x, llvm::Value* y) {
    return b_.CreateSelect(b_.CreateICmpSLT(x, y), x, y);
  }
  llvm::Value* CeilDiv(llvm::Value* x, int64_t d) {
    return b_.CreateUDiv(b_.CreateAdd(x, I64(d - 1)), I64(d));
  }
  llvm::Value* At(llvm::Value* buffer, llvm::Value* index) {
    return b_.CreateInBoundsGEP(element_type_, buffer, index);
  }
  // An alloca in the function's entry block, 64-byte aligned.
  llvm::Value* EntryArray(llvm::Type* type, int64_t count, const char* name);
  // An i64 in the function's entry block, `initial` on each call.
  llvm::Value* EntryVariable(int64_t initial, const char* name);
  // Which rhs slice unit `unit`'s k slice kb packs: the same number for
  // units that share their batch element and n block (they differ in m
  // only, and consecutive units do), so a call packs such a slice once.
  llvm::Value* SliceKey(llvm::Value* unit, llvm::Value* kb);

  // The operand index of `operand` (0: lhs, 1: rhs) at batch `batch`,
  // free position `free` (an m or n) and contracting position `k`; for a
  // convolution, of its kernel only (operand 1).
  IrIndex OperandIndex(int operand, llvm::Value* batch, llvm::Value* free,
                       llvm::Value* k);
  // Element (batch, free, k) of an operand, generated through the fused
  // producers (never a convolution's input: its rows are read in place).
  absl::StatusOr<llvm::Value*> OperandElement(int operand, llvm::Value* batch,
                                              llvm::Value* free,
                                              llvm::Value* k);
  // A convolution's output position (batch, position...) of `row`.
  IrIndex ConvRowIndex(llvm::Value* row);
  // Where a row's window tap starts reading the input: per spatial
  // dimension its position in conv_input_; whether it lands on an element
  // of the convolution's operand (not in the window's padding or a
  // base-dilation hole), and whether that element is one of conv_input_'s
  // (not in an input pad's zeros).
  struct TapPosition {
    std::vector<llvm::Value*> positions;
    llvm::Value* valid;
    llvm::Value* on_input;
    // valid, but along the window's dimensions other than the last.
    llvm::Value* valid_before_last;
  };
  TapPosition ConvTap(const IrIndex& row_index, const IrIndex& tap);
  // One step of the micro-kernel: the nr rhs elements at `rhs_row` times
  // each row's lhs element, lhs(i), added into the accumulators of rows
  // [0, rows); with `keep`, row i's only where keep[i] holds.
  void MultiplyAddStep(llvm::Value* rhs_row, int64_t rows,
                       absl::FunctionRef<llvm::Value*(int64_t)> lhs,
                       const std::vector<llvm::Value*>* keep = nullptr);
  // The k loop of a tile whose lhs is a convolution's input, read in
  // place: per tap, per row, a pointer to its run of input features. Taps
  // in padding or holes are skipped, not multiplied by zeros (so an
  // infinite weight there adds nothing, as in the interpreter), in a
  // masked copy of the loop only taps on the border take.
  absl::Status ConvKLoop(llvm::Value* rhs_panel, llvm::Value* row,
                         llvm::Value* k0, llvm::Value* kc);
  // What ConvKLoop's taps read: per tile row its output index (rows past
  // m clamped to the last) and whether it is in the matrix, the input's
  // buffer and element strides, the window's sizes, and the rhs panel
  // with its slice's first step k0.
  struct ConvTile {
    std::vector<IrIndex> rows;
    // Whether the tile's rows are mr consecutive positions of one output
    // row, all in the matrix (ContiguousRowsOk): row i's taps then read
    // at row 0's plus i * row_step, in bounds where row 0's are shifted
    // by i * stride along the last dimension.
    llvm::Value* contiguous = nullptr;
    int64_t row_step = 0;
    std::vector<llvm::Value*> in_matrix;
    std::vector<int64_t> strides;
    std::vector<int64_t> tap_sizes;
    llvm::Value* input;
    llvm::Value* rhs_panel;
    llvm::Value* k0;
  };
  ConvTile ConvTileAt(llvm::Value* rhs_panel, llvm::Value* row,
                      llvm::Value* k0);
  // Whether tiles may take the contiguous rows' path: a window with a last
  // dimension undilated in the base, and no input pad (whose zeros would
  // need their own bounds per row).
  bool ContiguousRowsOk() const;
  // Per tile row, where tap `tap` reads (its run of input features, or
  // the zero row) and whether its products count (in the window, or a
  // row past m), and whether every row's tap is on the input: through
  // row 0's position alone where the rows are contiguous, else row by row.
  struct TapRows {
    std::vector<llvm::Value*> pointers;
    std::vector<llvm::Value*> keep;
    llvm::Value* all_on_input;
  };
  TapRows ConvTapRows(const ConvTile& tile, const IrIndex& tap);
  TapRows GeneralTapRows(const ConvTile& tile, const IrIndex& tap);
  TapRows ContiguousTapRows(const ConvTile& tile, const IrIndex& tap);
  // One of two ways of finding a tile's tap rows, chosen at run time.
  TapRows StoredTapRows(llvm::Value* condition,
                        absl::FunctionRef<TapRows()> then,
                        absl::FunctionRef<TapRows()> otherwise);
  // The input offset of row i's tap `at`.
  llvm::Value* ConvTapOffset(const ConvTile& tile, int64_t i,
                             const TapPosition& at);
  // The rhs panel at tap t's first step.
  llvm::Value* ConvRhsAt(const ConvTile& tile, llvm::Value* t);
  // The steps [0, steps) from per-row pointers, the rhs from `rhs_steps`
  // on; with `keep`, a row's products only where it holds.
  absl::Status ConvStepLoop(llvm::Value* rhs_steps,
                            const std::vector<llvm::Value*>& pointers,
                            int64_t steps,
                            const std::vector<llvm::Value*>* keep);
  // Emits `then` where `condition` holds, else `otherwise`.
  absl::Status EmitBranch(llvm::Value* condition, const char* name,
                          absl::FunctionRef<absl::Status()> then,
                          absl::FunctionRef<absl::Status()> otherwise);
  // One tap t: per row a pointer to its run of input features.
  absl::Status ConvTapSteps(const ConvTile& tile, llvm::Value* t);
  // The taps of a run along the last window dimension read as one (or 0
  // where taps are read one by one).
  int64_t ConvRunTaps() const;
  // Run r of run_taps taps: one loop where every row's taps are on the
  // input, else its taps one by one.
  absl::Status ConvRunSteps(const ConvTile& tile, int64_t run_taps,
                            llvm::Value* r);
  // Element (batch, row or column `free`, k) of an operand, or 0 past
  // `free_size` (the padding of the last panel).
  absl::StatusOr<llvm::Value*> PackedElement(int operand, llvm::Value* batch,
                                             llvm::Value* free,
                                             int64_t free_size,
                                             llvm::Value* k);
  // Packs `width`-wide panels of `operand` (rows of lhs, columns of rhs):
  // panel p, step k, lane l at packed[(p * kc + k) * width + l], for the
  // steps k in [k_from, k_to) of the slice (all of them by default).
  absl::Status Pack(int operand, llvm::Value* packed, int64_t width,
                    llvm::Value* batch, llvm::Value* free_start,
                    llvm::Value* free_count, int64_t free_size,
                    llvm::Value* k_start, llvm::Value* kc,
                    llvm::Value* k_from = nullptr,
                    llvm::Value* k_to = nullptr);
  // Pack for an rhs parameter stored with k contiguous
  // (RhsTransposedInPlace): codegen/transposed_pack.h.
  absl::Status PackTransposedRhs(llvm::Value* packed, int64_t width,
                                 llvm::Value* batch, llvm::Value* free_start,
                                 llvm::Value* free_count, int64_t free_size,
                                 llvm::Value* k_start, llvm::Value* kc,
                                 llvm::Value* k_from, llvm::Value* k_to);
  // Updates the tile at (row, column) of `batch`'s output with panels
  // `lhs_panel` and `rhs_panel` over kc steps; `first`: the k slice is the
  // first, the tile starts from 0.
  // The lhs panel: packed (element (row i, step k) at packed + k * mr +
  // i), or where `use_in_place` holds, lhs itself (at in_place + k + i *
  // k, LhsInPlace).
  // The last, partial panel of rows is read in place too where
  // `remainder_in_place` holds: its m % mr rows, no more.
  // A convolution's input, read in place (ConvKLoop), gives conv_k0,
  // the slice's first step, instead.
  struct LhsPanel {
    llvm::Value* packed;
    llvm::Value* in_place = nullptr;
    llvm::Value* use_in_place = nullptr;
    llvm::Value* remainder_in_place = nullptr;
    llvm::Value* conv_k0 = nullptr;
  };
  absl::Status MicroKernel(const LhsPanel& lhs, llvm::Value* rhs_panel,
                           llvm::Value* kc, llvm::Value* batch,
                           llvm::Value* row, llvm::Value* column,
                           llvm::Value* first);
  // The micro-kernel's tile where it is updated: the output itself when
  // whole (`full`), else the tile buffer; its valid rows and columns, its
  // position `offset` in the output, and its row stride there.
  struct MicroTile {
    llvm::Value* rows;
    llvm::Value* columns;
    llvm::Value* full;
    llvm::Value* offset;
    llvm::Value* pointer;
    llvm::Value* stride;
  };
  MicroTile MicroTileAt(llvm::Value* batch, llvm::Value* row,
                        llvm::Value* column);
  // The tile's vector v of row i.
  llvm::Value* TileVectorAt(const MicroTile& tile, int64_t i, int64_t v);
  // Copies an edge tile into the buffer unless the slice is the first,
  // then starts the accumulators from 0 (first) or the tile so far.
  absl::Status StartTile(const MicroTile& tile, llvm::Value* first);
  // The k loop over the lhs layout LhsPanel says (ConvKLoop, packed, or
  // in place with its partial panel).
  absl::Status MicroKLoop(const LhsPanel& lhs, llvm::Value* rhs_panel,
                          llvm::Value* kc, llvm::Value* row);
  // kc steps of `rows` rows from an lhs panel whose element (row i, step
  // k) is at lhs_panel + k * lhs_k_stride + i * lhs_row_stride.
  absl::Status PanelKLoop(llvm::Value* rhs_panel, llvm::Value* kc,
                          llvm::Value* lhs_panel, int64_t lhs_k_stride,
                          int64_t lhs_row_stride, int64_t rows);
  // Stores the accumulators into the tile and an edge tile out of the
  // buffer (through the epilogue if there is one).
  absl::Status FinishTile(const MicroTile& tile, llvm::Value* batch,
                          llvm::Value* row, llvm::Value* column);
  // Whether lhs is read in place instead of packed: a parameter of the
  // dot's type laid out as [batch, m, k] (row-major, each group in order),
  // so a panel's rows are rows of it.
  bool LhsInPlace() const;
  // The position of the product's element (batch, row, column) in out_:
  // the output's, or with a row dot the unit's block's.
  llvm::Value* OutOffset(llvm::Value* batch, llvm::Value* row,
                         llvm::Value* column);
  // A row dot's row phases over the unit's rows, reading the dot from its
  // block.
  absl::Status EmitRows(llvm::Value* batch, llvm::Value* m0, llvm::Value* mc);
  // Packs rows [r0, r0 + rows) of lhs for k slice [k0, k0 + kc) and
  // updates their tiles in columns [n0, n0 + nc) from the packed rhs.
  absl::Status MultiplyRows(llvm::Value* batch, llvm::Value* r0,
                            llvm::Value* rows, llvm::Value* n0,
                            llvm::Value* nc, llvm::Value* k0, llvm::Value* kc,
                            llvm::Value* first);
  // Updates every tile of rows [r0, r0 + rows) x columns [n0, n0 + nc),
  // n panels outermost, with the lhs panel lhs_of gives for m panel ip
  // (first row `row`), packing the next rhs slice's share before each.
  absl::Status MultiplyPanels(
      llvm::Value* batch, llvm::Value* r0, llvm::Value* rows, llvm::Value* n0,
      llvm::Value* nc, llvm::Value* kc, llvm::Value* first,
      absl::FunctionRef<LhsPanel(llvm::Value* ip, llvm::Value* row)> lhs_of);
  // The packing buffers (lhs for `lhs_rows` rows, `rhs_blocks` rhs blocks
  // of k_block x n_block), the tile buffer and the accumulators.
  void AllocatePacking(int64_t lhs_rows, int64_t rhs_blocks);
  // The small path's row of accumulators, as scalars and as vectors.
  void AllocateSmall();
  // Whether the product skips packing (kSmallDotWork, one k slice).
  bool IsSmall() const;
  int64_t KBlocks() const;
  // A row dot's kernel: per unit, per row_block rows, the product into the
  // block, then the rows' phases (EmitRows).
  absl::Status EmitRowDot(llvm::Value* begin, llvm::Value* end);
  // A unit's block: its batch element, first row and rows, first column
  // and columns.
  struct UnitBlock {
    llvm::Value* batch;
    llvm::Value* m0;
    llvm::Value* mc;
    llvm::Value* n0;
    llvm::Value* nc;
  };
  UnitBlock Unit(llvm::Value* unit);
  // One k slice of one unit's rhs block: what a pack fills.
  struct RhsSlice {
    llvm::Value* batch;
    llvm::Value* n0;
    llvm::Value* nc;
    llvm::Value* k0;
    llvm::Value* kc;
  };
  RhsSlice SliceOf(const UnitBlock& unit, llvm::Value* kb);
  // The slice after (unit, kb) in the order this kernel call takes them,
  // whether it is still in [unit, end), and its SliceKey.
  RhsSlice NextSlice(llvm::Value* unit, llvm::Value* kb, llvm::Value* end,
                     llvm::Value** exists, llvm::Value** key);
  absl::Status PackRhs(const RhsSlice& slice, llvm::Value* packed,
                       llvm::Value* k_from = nullptr,
                       llvm::Value* k_to = nullptr);
  // Packs the next slice's steps that are the current tile's share (its
  // rows_per_tile, counted by tile_counter_) into next_rhs_->packed, and
  // asks the cache for the share of the tile after it.
  absl::Status PackNextRhsSlice();
  // Before slice (unit, kb)'s tiles: selects its rhs block and sets up
  // the packing of the next slice (next_rhs_), packing this one first if
  // it is the call's first.
  absl::Status StartPipelinedSlice(llvm::Value* unit, llvm::Value* kb,
                                   llvm::Value* begin, llvm::Value* end,
                                   const UnitBlock& u, const RhsSlice& slice);
  // Prefetches rhs steps [k_from, k_to) of `slice` into L2 where rhs is a
  // parameter read row by row (steps outermost after batch).
  void PrefetchRhs(const RhsSlice& slice, llvm::Value* k_from,
                   llvm::Value* k_to);
  // Whether rhs is a parameter laid out [batch, contracting, free].
  bool RhsRowsInPlace() const;
  // Whether rhs is a parameter of the product's type stored [batch, n, k]
  // row-major (k contiguous), packed by PackTransposedRhs.
  bool RhsTransposedInPlace() const;
  // A product too small for packing to pay (kSmallDotWork): per row of
  // the unit, a row of accumulators updated over k in order, the loop over
  // the row vectorized; the same fused multiply-adds in the same order as
  // the micro-kernel's.
  absl::Status EmitSmallUnit(llvm::Value* batch, llvm::Value* m0,
                             llvm::Value* mc, llvm::Value* n0,
                             llvm::Value* nc);
  // The small paths' lhs element at (batch, row, k), generated afresh.
  absl::StatusOr<llvm::Value*> LhsElement(llvm::Value* batch, llvm::Value* row,
                                          llvm::Value* k);
  // EmitSmallUnit for a constant number of columns, at most kSmallVectors
  // vectors: each row's accumulators are vectors, each step one vector
  // fma per vector (the same operations in the same order).
  absl::Status EmitSmallVectorRows(llvm::Value* batch, llvm::Value* m0,
                                   llvm::Value* mc, llvm::Value* n0,
                                   int64_t columns);
  // Stores element (row, column) of the output from `sum`, through the
  // epilogue if there is one.
  absl::Status StoreOutput(llvm::Value* batch, llvm::Value* row,
                           llvm::Value* column, llvm::Value* sum);
  // The root's index at (batch, m, n) of the flattened output.
  IrIndex OutputIndex(llvm::Value* batch, llvm::Value* m, llvm::Value* n);
  // Writes the valid rows x columns of the tile buffer through the
  // epilogue into the output at `offset`, streaming where StreamsEpilogue.
  absl::Status EmitEpilogue(llvm::Value* offset, llvm::Value* rows,
                            llvm::Value* columns, llvm::Value* batch,
                            llvm::Value* row, llvm::Value* column);
  // A tile the epilogue writes: its valid rows x columns at `offset` in
  // the output, from element (batch, row, column) of the product.
  struct EpilogueTile {
    llvm::Value* offset;
    llvm::Value* rows;
    llvm::Value* columns;
    llvm::Value* batch;
    llvm::Value* row;
    llvm::Value* column;
  };
  // Element (i, j) of the tile buffer (row stride nr).
  llvm::Value* TileBufferAt(llvm::Value* i, llvm::Value* j);
  // The output position of the tile's element (i, j).
  llvm::Value* EpilogueOutOffset(const EpilogueTile& t, llvm::Value* i,
                                 llvm::Value* j);
  // The epilogue's value at the tile's element (i, j), the dot's read from
  // the tile buffer.
  absl::StatusOr<llvm::Value*> EpilogueElement(const EpilogueTile& t,
                                               llvm::Value* i, llvm::Value* j);
  // Each element through the epilogue, stored on its own.
  absl::Status EmitPlainEpilogue(const EpilogueTile& t);
  // Whole, aligned tiles computed into the tile buffer and streamed out
  // (StreamTileBuffer); the rest plainly.
  absl::Status EmitStreamedEpilogue(const EpilogueTile& t);
  // The tile buffer's rows to the output in aligned non-temporal vector
  // stores.
  absl::Status StreamTileBuffer(const EpilogueTile& t);
  // Copies the valid rows x columns of a tile between the output (at
  // `offset`, row stride n) and the tile buffer (row stride nr).
  // Whether the epilogue streams its whole, aligned tiles (the plan's
  // store=streaming, a result of the dot's type whose rows are whole
  // vectors).
  bool StreamsEpilogue() const;
  absl::Status CopyTile(llvm::Value* offset, llvm::Value* rows,
                        llvm::Value* columns, bool into_buffer);

  llvm::IRBuilder<>& b_;
  const HloComputation& fused_;
  const HloInstruction& root_;
  const HloInstruction& dot_;
  const std::optional<ConvProduct> conv_;  // a convolution's product form
  // The buffer a convolution reads in place: its operand, or the operand of
  // its input pad (IsConvolutionInputPad).
  const HloInstruction* conv_input_;
  const bool epilogue_;  // the root applies ops to the dot's elements
  const DotPlan& plan_;
  const CodegenOptions& options_;
  ElementalEmitter& elements_;
  llvm::Value* result_;
  // Where tiles go: result_, or a row dot's block (block_first_row_ is then
  // the unit's first row).
  llvm::Value* out_;
  llvm::Value* block_first_row_ = nullptr;
  const PrimitiveType type_;
  const FlatDot flat_;
  const GemmTile tile_;
  llvm::Type* element_type_;
  llvm::FixedVectorType* vector_type_;
  llvm::Value* packed_lhs_ = nullptr;
  llvm::Value* packed_rhs_ = nullptr;
  llvm::Value* tile_buffer_ = nullptr;
  llvm::Value* small_row_ = nullptr;
  std::vector<llvm::Value*> small_vectors_;
  std::vector<llvm::Value*> accumulators_;
  // The rhs block the tiles read: packed_rhs_, or with two blocks the
  // current one.
  llvm::Value* rhs_block_ = nullptr;
  int64_t rhs_block_elements_ = 0;
  // While the tiles of one slice run, the next slice is packed into the
  // other block, rows_per_tile steps before each tile.
  struct NextRhs {
    RhsSlice slice;
    llvm::Value* packed;
    llvm::Value* rows_per_tile;
  };
  std::optional<NextRhs> next_rhs_;
  llvm::Value* tile_counter_ = nullptr;
  // The SliceKey of the rhs slice last packed in this call, and (with two
  // blocks) the block it is in.
  llvm::Value* packed_key_ = nullptr;
  llvm::Value* packed_block_ = nullptr;
  // A convolution's zero row, read by taps in padding.
  llvm::Value* zero_row_ = nullptr;
  // The dot's element the epilogue is generating from (EpilogueElement).
  llvm::Value* epilogue_sum_ = nullptr;
};

llvm::Value* GemmEmitter::EntryVariable(int64_t initial, const char* name) {
  llvm::Value* variable = EntryArray(b_.getInt64Ty(), 1, name);
  llvm::IRBuilder<>::InsertPointGuard guard(b_);
  b_.SetInsertPoint(llvm::cast<llvm::Instruction>(variable)->getNextNode());
  b_.CreateStore(I64(initial), variable);
  return variable;
}

llvm::Value* GemmEmitter::EntryArray(llvm::Type* type, int64_t count,
                                     const char* name) {
  llvm::IRBuilder<>::InsertPointGuard guard(b_);
  llvm::BasicBlock& entry =
      b_.GetInsertBlock()->getParent()->getEntryBlock();
  b_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* array = b_.CreateAlloca(type, I64(count), name);
  array->setAlignment(llvm::Align(64));
  return array;
}

IrIndex GemmEmitter::OperandIndex(int operand, llvm::Value* batch,
                                  llvm::Value* free, llvm::Value* k) {
  const Shape& shape = dot_.operand(operand)->shape();
  const DotDimensionNumbers& d = flat_.dnums;
  const std::vector<int64_t>& batch_dims = operand == 0 ? d.lhs_batch
                                                        : d.rhs_batch;
  const std::vector<int64_t>& free_dims =
      operand == 0 ? flat_.lhs_free : flat_.rhs_free;
  const std::vector<int64_t>& contracting_dims =
      operand == 0 ? d.lhs_contracting : d.rhs_contracting;
  IrIndex index(shape.rank(), nullptr);
  auto scatter = [&](const std::vector<int64_t>& dims, llvm::Value* linear) {
    std::vector<int64_t> sizes;
    for (int64_t dim : dims) sizes.push_back(shape.dimensions(dim));
    IrIndex parts = ElementalEmitter::Delinearize(b_, sizes, linear);
    for (size_t i = 0; i < dims.size(); ++i) index[dims[i]] = parts[i];
  };
  scatter(batch_dims, batch);
  scatter(free_dims, free);
  scatter(contracting_dims, k);
  if (conv_ && operand == 1) {
    // The kernel's spatial index runs backwards where the window reverses.
    for (size_t i = 0; i < conv_->window.size(); ++i) {
      if (!conv_->window[i].reversal) continue;
      llvm::Value*& t = index[conv_->dnums.kernel_spatial[i]];
      t = b_.CreateSub(I64(conv_->window[i].size - 1), t);
    }
  }
  return index;
}

absl::StatusOr<llvm::Value*> GemmEmitter::OperandElement(int operand,
                                                         llvm::Value* batch,
                                                         llvm::Value* free,
                                                         llvm::Value* k) {
  RET_CHECK(!conv_ || operand == 1, "a convolution's input is not packed");
  return elements_.Generate(*dot_.operand(operand),
                            OperandIndex(operand, batch, free, k));
}

IrIndex GemmEmitter::ConvRowIndex(llvm::Value* row) {
  std::vector<int64_t> sizes = {conv_->batch};
  sizes.insert(sizes.end(), conv_->positions.begin(), conv_->positions.end());
  return ElementalEmitter::Delinearize(b_, sizes, row);
}

GemmEmitter::TapPosition GemmEmitter::ConvTap(const IrIndex& row_index,
                                              const IrIndex& tap) {
  TapPosition at{{}, b_.getTrue(), b_.getTrue(), b_.getTrue()};
  const bool padded = conv_input_ != dot_.operand(0);
  const PaddingConfig input_pad =
      padded ? dot_.operand(0)->padding_config() : PaddingConfig{};
  for (size_t i = 0; i < conv_->window.size(); ++i) {
    const WindowDimension& d = conv_->window[i];
    // The tap's place in the padded, dilated base.
    llvm::Value* p = b_.CreateSub(
        b_.CreateAdd(b_.CreateMul(row_index[1 + i], I64(d.stride)),
                     b_.CreateMul(tap[i], I64(d.window_dilation))),
        I64(d.padding_low));
    llvm::Value* valid = b_.CreateICmpSGE(p, I64(0));
    if (d.base_dilation > 1) {
      valid = b_.CreateAnd(
          valid, b_.CreateICmpEQ(b_.CreateSRem(p, I64(d.base_dilation)),
                                 I64(0)));
      p = b_.CreateSDiv(p, I64(d.base_dilation));
    }
    const int64_t dimension = conv_->dnums.input_spatial[i];
    const int64_t size = conv_->input_dims[dimension];
    valid = b_.CreateAnd(valid, b_.CreateICmpSLT(p, I64(size)));
    if (i + 1 == conv_->window.size()) at.valid_before_last = at.valid;
    at.valid = b_.CreateAnd(at.valid, valid);
    if (padded && (input_pad[dimension].low != 0 ||
                   input_pad[dimension].high != 0)) {
      // The input pad's zeros surround conv_input_'s elements.
      p = b_.CreateSub(p, I64(input_pad[dimension].low));
      const int64_t inside = conv_input_->shape().dimensions(dimension);
      at.on_input = b_.CreateAnd(
          at.on_input, b_.CreateAnd(b_.CreateICmpSGE(p, I64(0)),
                                    b_.CreateICmpSLT(p, I64(inside))));
    }
    at.positions.push_back(p);
  }
  at.on_input = b_.CreateAnd(at.on_input, at.valid);
  return at;
}

absl::StatusOr<llvm::Value*> GemmEmitter::PackedElement(
    int operand, llvm::Value* batch, llvm::Value* free, int64_t free_size,
    llvm::Value* k) {
  // Padding reads a valid element (the last) and keeps 0 instead.
  llvm::Value* valid = b_.CreateICmpSLT(free, I64(free_size));
  llvm::Value* clamped = b_.CreateSelect(valid, free, I64(free_size - 1));
  elements_.ClearCache();
  ASSIGN_OR_RETURN(llvm::Value * value,
                   OperandElement(operand, batch, clamped, k));
  return b_.CreateSelect(valid, value,
                         llvm::ConstantFP::get(element_type_, 0.0));
}

absl::Status GemmEmitter::Pack(int operand, llvm::Value* packed,
                               int64_t width, llvm::Value* batch,
                               llvm::Value* free_start,
                               llvm::Value* free_count, int64_t free_size,
                               llvm::Value* k_start, llvm::Value* kc,
                               llvm::Value* k_from, llvm::Value* k_to) {
  if (k_from == nullptr) k_from = I64(0);
  if (k_to == nullptr) k_to = kc;
  if (operand == 1 && RhsTransposedInPlace()) {
    return PackTransposedRhs(packed, width, batch, free_start, free_count,
                             free_size, k_start, kc, k_from, k_to);
  }
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  llvm::Value* panels = CeilDiv(free_count, width);
  return EmitForLoop(b_, I64(0), panels, "panel", [&](llvm::Value* p) {
    llvm::Value* first_lane =
        b_.CreateAdd(free_start, b_.CreateMul(p, I64(width)));
    // A whole panel reads every lane as it is, in a loop over the lanes
    // the loop vectorizer turns into vector loads and stores where the
    // lanes are contiguous (row-major rhs); the last panel may pad, in a
    // scalar loop (it runs once per block edge). Both are loops rather
    // than unrolled lanes: 64 lanes of clamped reads were most of a dot
    // kernel's IR and of its compile time.
    llvm::Value* whole = b_.CreateICmpSLE(b_.CreateAdd(first_lane, I64(width)),
                                          I64(free_size));
    auto* whole_block = llvm::BasicBlock::Create(context, "pack_whole", function);
    auto* padded_block = llvm::BasicBlock::Create(context, "pack_padded", function);
    auto* done = llvm::BasicBlock::Create(context, "pack_done", function);
    b_.CreateCondBr(whole, whole_block, padded_block);
    for (bool pad : {false, true}) {
      b_.SetInsertPoint(pad ? padded_block : whole_block);
      RETURN_IF_ERROR(EmitForLoop(b_, k_from, k_to, "pack_k", [&](llvm::Value* k) {
        llvm::Value* row = b_.CreateMul(b_.CreateAdd(b_.CreateMul(p, kc), k),
                                        I64(width));
        llvm::Value* k_index = b_.CreateAdd(k_start, k);
        return EmitForLoop(b_, I64(0), I64(width), "pack_lane",
                           [&](llvm::Value* lane) -> absl::Status {
          elements_.ClearCache();
          llvm::Value* free = b_.CreateAdd(first_lane, lane);
          llvm::Value* value;
          if (pad) {
            ASSIGN_OR_RETURN(value, PackedElement(operand, batch, free,
                                                  free_size, k_index));
          } else {
            ASSIGN_OR_RETURN(value,
                             OperandElement(operand, batch, free, k_index));
          }
          b_.CreateStore(value, At(packed, b_.CreateAdd(row, lane)));
          return absl::OkStatus();
        }, pad ? LoopHints::kKeepAsWritten : LoopHints::kDefault);
      }, LoopHints::kKeepAsWritten));
      b_.CreateBr(done);
    }
    b_.SetInsertPoint(done);
    elements_.ClearCache();
    return absl::OkStatus();
  });
}

absl::Status GemmEmitter::PackTransposedRhs(
    llvm::Value* packed, int64_t width, llvm::Value* batch,
    llvm::Value* free_start, llvm::Value* free_count, int64_t free_size,
    llvm::Value* k_start, llvm::Value* kc, llvm::Value* k_from,
    llvm::Value* k_to) {
  llvm::Value* panels = CeilDiv(free_count, width);
  // Panels wholly inside rhs go by transposes; a last one that pads, as
  // any operand's does, element by element.
  llvm::Value* whole = Min(
      panels, b_.CreateUDiv(b_.CreateSub(I64(free_size), free_start),
                            I64(width)));
  TransposedPanels where;
  where.element = element_type_;
  where.lanes = tile_.lanes;
  where.width = width;
  where.source =
      elements_.parameter_buffer(dot_.operand(1)->parameter_number());
  where.row_stride = flat_.k;
  where.first_row = b_.CreateAdd(b_.CreateMul(batch, I64(flat_.n)), free_start);
  where.k_start = k_start;
  where.kc = kc;
  where.packed = packed;
  RETURN_IF_ERROR(EmitTransposedPack(b_, where, whole, k_from, k_to));
  return EmitForLoop(b_, whole, panels, "pack_padded_panel",
                     [&](llvm::Value* p) {
    llvm::Value* first_lane =
        b_.CreateAdd(free_start, b_.CreateMul(p, I64(width)));
    return EmitForLoop(b_, k_from, k_to, "pack_k", [&](llvm::Value* k) {
      llvm::Value* row = b_.CreateMul(b_.CreateAdd(b_.CreateMul(p, kc), k),
                                      I64(width));
      return EmitForLoop(b_, I64(0), I64(width), "pack_lane",
                         [&](llvm::Value* lane) -> absl::Status {
        elements_.ClearCache();
        ASSIGN_OR_RETURN(
            llvm::Value * value,
            PackedElement(1, batch, b_.CreateAdd(first_lane, lane), free_size,
                          b_.CreateAdd(k_start, k)));
        b_.CreateStore(value, At(packed, b_.CreateAdd(row, lane)));
        return absl::OkStatus();
      }, LoopHints::kKeepAsWritten);
    }, LoopHints::kKeepAsWritten);
  });
}

absl::Status GemmEmitter::CopyTile(llvm::Value* offset, llvm::Value* rows,
                                   llvm::Value* columns, bool into_buffer) {
  // Edge tiles only: kept out of the vectorizers, whose work on these
  // loops cost more compile time than they save at run time.
  return EmitForLoop(b_, I64(0), rows, "tile_row", [&](llvm::Value* i) {
    return EmitForLoop(b_, I64(0), columns, "tile_column", [&](llvm::Value* j) {
      llvm::Value* out = At(
          out_, b_.CreateAdd(offset, b_.CreateAdd(
                                         b_.CreateMul(i, I64(flat_.n)), j)));
      llvm::Value* buffer = At(
          tile_buffer_, b_.CreateAdd(b_.CreateMul(i, I64(tile_.nr)), j));
      llvm::Value* from = into_buffer ? out : buffer;
      llvm::Value* to = into_buffer ? buffer : out;
      b_.CreateStore(b_.CreateLoad(element_type_, from), to);
      return absl::OkStatus();
    }, LoopHints::kKeepAsWritten);
  }, LoopHints::kKeepAsWritten);
}

IrIndex GemmEmitter::OutputIndex(llvm::Value* batch, llvm::Value* m,
                                 llvm::Value* n) {
  if (conv_) {
    // (batch, position..., feature): rows, then the column.
    IrIndex index = ConvRowIndex(m);
    index.push_back(n);
    return index;
  }
  const Shape& lhs = dot_.operand(0)->shape();
  const Shape& rhs = dot_.operand(1)->shape();
  IrIndex index;
  auto append = [&](const Shape& shape, const std::vector<int64_t>& dims,
                    llvm::Value* linear) {
    std::vector<int64_t> sizes;
    for (int64_t d : dims) sizes.push_back(shape.dimensions(d));
    for (llvm::Value* part : ElementalEmitter::Delinearize(b_, sizes, linear)) {
      index.push_back(part);
    }
  };
  append(lhs, flat_.dnums.lhs_batch, batch);
  append(lhs, flat_.lhs_free, m);
  append(rhs, flat_.rhs_free, n);
  return index;
}

llvm::Value* GemmEmitter::OutOffset(llvm::Value* batch, llvm::Value* row,
                                    llvm::Value* column) {
  llvm::Value* block_row =
      block_first_row_ != nullptr
          ? b_.CreateSub(row, block_first_row_)
          : b_.CreateAdd(b_.CreateMul(batch, I64(flat_.m)), row);
  return b_.CreateAdd(b_.CreateMul(block_row, I64(flat_.n)), column);
}

absl::Status GemmEmitter::EmitRows(llvm::Value* batch, llvm::Value* m0,
                                   llvm::Value* mc) {
  llvm::Value* first =
      b_.CreateAdd(b_.CreateMul(batch, I64(flat_.m)), m0);
  llvm::Value* first_element = b_.CreateMul(first, I64(flat_.n));
  const std::vector<int64_t> dims(dot_.shape().dimensions().begin(),
                                  dot_.shape().dimensions().end());
  elements_.ClearCache();
  elements_.Bind(dot_, [&](const IrIndex& index) -> llvm::Value* {
    llvm::Value* linear = ElementalEmitter::Linearize(b_, dims, index);
    return b_.CreateLoad(element_type_,
                         At(out_, b_.CreateSub(linear, first_element)));
  });
  absl::Status status =
      EmitRowFusion(b_, fused_, *plan_.rows, elements_, result_, first,
                    b_.CreateAdd(first, mc), options_);
  elements_.Unbind(dot_);
  elements_.ClearCache();
  return status;
}

absl::Status GemmEmitter::StoreOutput(llvm::Value* batch, llvm::Value* row,
                                      llvm::Value* column, llvm::Value* sum) {
  llvm::Value* linear = OutOffset(batch, row, column);
  if (!epilogue_) {
    b_.CreateStore(sum, At(out_, linear));
    return absl::OkStatus();
  }
  elements_.ClearCache();
  elements_.Bind(dot_, [&](const IrIndex&) { return sum; });
  absl::StatusOr<llvm::Value*> value =
      elements_.Generate(root_, OutputIndex(batch, row, column));
  elements_.Unbind(dot_);
  elements_.ClearCache();
  if (!value.ok()) return value.status();
  StoreElement(b_, root_.shape().element_type(), result_, linear, *value);
  return absl::OkStatus();
}

absl::StatusOr<llvm::Value*> GemmEmitter::LhsElement(llvm::Value* batch,
                                                     llvm::Value* row,
                                                     llvm::Value* k) {
  elements_.ClearCache();
  return OperandElement(0, batch, row, k);
}

absl::Status GemmEmitter::EmitSmallVectorRows(llvm::Value* batch,
                                              llvm::Value* m0, llvm::Value* mc,
                                              llvm::Value* n0,
                                              int64_t columns) {
  // Fewer columns than a vector has lanes: the narrowest vector that holds
  // them, rather than relying on LLVM to narrow the full-width code.
  const int64_t lanes =
      std::min<int64_t>(tile_.lanes, llvm::PowerOf2Ceil(columns));
  llvm::Type* vector_type = llvm::FixedVectorType::get(element_type_, lanes);
  const int64_t vectors = (columns + lanes - 1) / lanes;
  return EmitForLoop(b_, I64(0), mc, "small_row", [&](llvm::Value* i) {
    llvm::Value* row = b_.CreateAdd(m0, i);
    for (int64_t v = 0; v < vectors; ++v) {
      b_.CreateStore(llvm::Constant::getNullValue(vector_type),
                     small_vectors_[v]);
    }
    RETURN_IF_ERROR(EmitForLoop(b_, I64(0), I64(flat_.k), "small_k",
                                [&](llvm::Value* k) -> absl::Status {
      ASSIGN_OR_RETURN(llvm::Value * a, LhsElement(batch, row, k));
      llvm::Value* splat = b_.CreateVectorSplat(lanes, a);
      for (int64_t v = 0; v < vectors; ++v) {
        // Lanes past the row multiply zeros; they are never stored.
        llvm::Value* w = llvm::Constant::getNullValue(vector_type);
        for (int64_t lane = 0; lane < lanes; ++lane) {
          const int64_t column = v * lanes + lane;
          if (column >= columns) break;
          elements_.ClearCache();
          ASSIGN_OR_RETURN(
              llvm::Value * element,
              elements_.Generate(*dot_.operand(1),
                                 OperandIndex(1, batch,
                                              b_.CreateAdd(n0, I64(column)),
                                              k)));
          w = b_.CreateInsertElement(w, element, lane);
        }
        b_.CreateStore(
            b_.CreateIntrinsic(
                llvm::Intrinsic::fmuladd, {vector_type},
                {splat, w, b_.CreateLoad(vector_type, small_vectors_[v])}),
            small_vectors_[v]);
      }
      return absl::OkStatus();
    }));
    elements_.ClearCache();
    for (int64_t column = 0; column < columns; ++column) {
      llvm::Value* sum = b_.CreateExtractElement(
          b_.CreateLoad(vector_type, small_vectors_[column / lanes]),
          column % lanes);
      RETURN_IF_ERROR(
          StoreOutput(batch, row, b_.CreateAdd(n0, I64(column)), sum));
    }
    return absl::OkStatus();
  });
}

absl::Status GemmEmitter::EmitSmallUnit(llvm::Value* batch, llvm::Value* m0,
                                        llvm::Value* mc, llvm::Value* n0,
                                        llvm::Value* nc) {
  if (auto* columns = llvm::dyn_cast<llvm::ConstantInt>(nc);
      columns != nullptr &&
      columns->getSExtValue() <= kSmallVectors * tile_.lanes) {
    return EmitSmallVectorRows(batch, m0, mc, n0, columns->getSExtValue());
  }
  return EmitForLoop(b_, I64(0), mc, "small_row", [&](llvm::Value* i) {
    llvm::Value* row = b_.CreateAdd(m0, i);
    RETURN_IF_ERROR(EmitForLoop(b_, I64(0), nc, "small_zero", [&](llvm::Value* j) {
      b_.CreateStore(llvm::ConstantFP::get(element_type_, 0.0),
                     At(small_row_, j));
      return absl::OkStatus();
    }));
    RETURN_IF_ERROR(EmitForLoop(b_, I64(0), I64(flat_.k), "small_k",
                                [&](llvm::Value* k) -> absl::Status {
      ASSIGN_OR_RETURN(llvm::Value * a, LhsElement(batch, row, k));
      return EmitForLoop(b_, I64(0), nc, "small_column",
                         [&](llvm::Value* j) -> absl::Status {
        elements_.ClearCache();
        ASSIGN_OR_RETURN(
            llvm::Value * w,
            elements_.Generate(*dot_.operand(1),
                               OperandIndex(1, batch, b_.CreateAdd(n0, j), k)));
        llvm::Value* acc = At(small_row_, j);
        b_.CreateStore(
            b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {element_type_},
                               {a, w, b_.CreateLoad(element_type_, acc)}),
            acc);
        return absl::OkStatus();
      });
    }));
    elements_.ClearCache();
    return EmitForLoop(b_, I64(0), nc, "small_store", [&](llvm::Value* j) {
      return StoreOutput(batch, row, b_.CreateAdd(n0, j),
                         b_.CreateLoad(element_type_, At(small_row_, j)));
    });
  });
}

absl::Status GemmEmitter::EmitEpilogue(llvm::Value* offset, llvm::Value* rows,
                                       llvm::Value* columns,
                                       llvm::Value* batch, llvm::Value* row,
                                       llvm::Value* column) {
  // The dot's element at the index being generated: the tile buffer's.
  elements_.Bind(dot_, [&](const IrIndex&) { return epilogue_sum_; });
  const EpilogueTile tile{offset, rows, columns, batch, row, column};
  absl::Status status =
      StreamsEpilogue() ? EmitStreamedEpilogue(tile) : EmitPlainEpilogue(tile);
  elements_.Unbind(dot_);
  elements_.ClearCache();
  return status;
}

llvm::Value* GemmEmitter::TileBufferAt(llvm::Value* i, llvm::Value* j) {
  return At(tile_buffer_, b_.CreateAdd(b_.CreateMul(i, I64(tile_.nr)), j));
}

llvm::Value* GemmEmitter::EpilogueOutOffset(const EpilogueTile& t,
                                            llvm::Value* i, llvm::Value* j) {
  return b_.CreateAdd(t.offset, b_.CreateAdd(b_.CreateMul(i, I64(flat_.n)), j));
}

absl::StatusOr<llvm::Value*> GemmEmitter::EpilogueElement(const EpilogueTile& t,
                                                          llvm::Value* i,
                                                          llvm::Value* j) {
  elements_.ClearCache();
  epilogue_sum_ = b_.CreateLoad(element_type_, TileBufferAt(i, j));
  return elements_.Generate(root_, OutputIndex(t.batch, b_.CreateAdd(t.row, i),
                                               b_.CreateAdd(t.column, j)));
}

absl::Status GemmEmitter::EmitPlainEpilogue(const EpilogueTile& t) {
  return EmitForLoop(b_, I64(0), t.rows, "epilogue_row", [&](llvm::Value* i) {
    return EmitForLoop(b_, I64(0), t.columns, "epilogue_column",
                       [&](llvm::Value* j) -> absl::Status {
                         ASSIGN_OR_RETURN(llvm::Value * value,
                                          EpilogueElement(t, i, j));
                         StoreElement(b_, root_.shape().element_type(), result_,
                                      EpilogueOutOffset(t, i, j), value);
                         return absl::OkStatus();
                       });
  });
}

absl::Status GemmEmitter::EmitStreamedEpilogue(const EpilogueTile& t) {
  // A whole-width tile whose first row starts on a vector boundary (its
  // rows, n apart, then all do) is computed in place in the tile buffer
  // (a loop the loop vectorizer takes, as the plain one) and streamed
  // from it with aligned non-temporal vector stores: 2 x 24 more L1
  // accesses per tile of thousands of multiply-adds, and a fraction of
  // the compile time of assembling each vector lane by lane. An edge
  // tile or an unaligned output stores plainly.
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  auto* streamed =
      llvm::BasicBlock::Create(context, "epilogue_stream", function);
  auto* stored = llvm::BasicBlock::Create(context, "epilogue_plain", function);
  auto* done = llvm::BasicBlock::Create(context, "epilogue_done", function);
  const int64_t vector_bytes = tile_.vector_bytes;
  llvm::Value* address =
      b_.CreatePtrToInt(At(result_, t.offset), b_.getInt64Ty());
  b_.CreateCondBr(
      b_.CreateAnd(b_.CreateICmpEQ(t.columns, I64(tile_.nr)),
                   b_.CreateICmpEQ(b_.CreateAnd(address, I64(vector_bytes - 1)),
                                   I64(0))),
      streamed, stored);
  b_.SetInsertPoint(streamed);
  absl::Status status =
      EmitForLoop(b_, I64(0), t.rows, "epilogue_row", [&](llvm::Value* i) {
        return EmitForLoop(b_, I64(0), I64(tile_.nr), "epilogue_column",
                           [&](llvm::Value* j) -> absl::Status {
                             ASSIGN_OR_RETURN(llvm::Value * value,
                                              EpilogueElement(t, i, j));
                             b_.CreateStore(value, TileBufferAt(i, j));
                             return absl::OkStatus();
                           });
      });
  if (status.ok()) status = StreamTileBuffer(t);
  b_.CreateBr(done);
  b_.SetInsertPoint(stored);
  if (status.ok()) status = EmitPlainEpilogue(t);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return status;
}

absl::Status GemmEmitter::StreamTileBuffer(const EpilogueTile& t) {
  const int64_t vector_bytes = tile_.vector_bytes;
  llvm::MDNode* nontemporal = llvm::MDNode::get(
      b_.getContext(), llvm::ConstantAsMetadata::get(b_.getInt32(1)));
  return EmitForLoop(
      b_, I64(0), t.rows, "epilogue_stream_row",
      [&](llvm::Value* i) -> absl::Status {
        for (int64_t v = 0; v < tile_.nr / tile_.lanes; ++v) {
          llvm::Value* vector = b_.CreateAlignedLoad(
              vector_type_, TileBufferAt(i, I64(v * tile_.lanes)),
              llvm::Align(vector_bytes));
          llvm::StoreInst* store = b_.CreateAlignedStore(
              vector,
              At(result_, EpilogueOutOffset(t, i, I64(v * tile_.lanes))),
              llvm::Align(vector_bytes));
          store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
        }
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten);
}

bool GemmEmitter::StreamsEpilogue() const {
  // Vectors of the result's own type, and rows a whole number of vectors
  // long.
  return epilogue_ && plan_.store == StoreKind::kStreaming &&
         root_.shape().element_type() == type_ &&
         flat_.n * primitive_util::ByteWidth(type_) % tile_.vector_bytes == 0;
}

bool GemmEmitter::LhsInPlace() const {
  const HloInstruction& lhs = *dot_.operand(0);
  if (conv_) return false;  // its rows are windows: ConvKLoop
  if (lhs.opcode() != HloOpcode::kParameter ||
      lhs.shape().element_type() != type_) {
    return false;
  }
  return InOrder({&flat_.dnums.lhs_batch, &flat_.lhs_free,
                  &flat_.dnums.lhs_contracting});
}

absl::Status GemmEmitter::MicroKernel(const LhsPanel& lhs,
                                      llvm::Value* rhs_panel, llvm::Value* kc,
                                      llvm::Value* batch, llvm::Value* row,
                                      llvm::Value* column, llvm::Value* first) {
  const MicroTile tile = MicroTileAt(batch, row, column);
  RETURN_IF_ERROR(StartTile(tile, first));
  RETURN_IF_ERROR(MicroKLoop(lhs, rhs_panel, kc, row));
  return FinishTile(tile, batch, row, column);
}

GemmEmitter::MicroTile GemmEmitter::MicroTileAt(llvm::Value* batch,
                                                llvm::Value* row,
                                                llvm::Value* column) {
  MicroTile tile;
  tile.rows = Min(I64(tile_.mr), b_.CreateSub(I64(flat_.m), row));
  tile.columns = Min(I64(tile_.nr), b_.CreateSub(I64(flat_.n), column));
  // With an epilogue every tile goes through the buffer (its k is one
  // slice: nothing to continue from) and out through the epilogue.
  tile.full = epilogue_
                  ? b_.getFalse()
                  : b_.CreateAnd(b_.CreateICmpEQ(tile.rows, I64(tile_.mr)),
                                 b_.CreateICmpEQ(tile.columns, I64(tile_.nr)));
  tile.offset = OutOffset(batch, row, column);
  tile.pointer =
      b_.CreateSelect(tile.full, At(out_, tile.offset), tile_buffer_);
  tile.stride = b_.CreateSelect(tile.full, I64(flat_.n), I64(tile_.nr));
  return tile;
}

llvm::Value* GemmEmitter::TileVectorAt(const MicroTile& tile, int64_t i,
                                       int64_t v) {
  return At(tile.pointer, b_.CreateAdd(b_.CreateMul(I64(i), tile.stride),
                                       I64(v * tile_.lanes)));
}

absl::Status GemmEmitter::StartTile(const MicroTile& tile, llvm::Value* first) {
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  const int64_t vectors = tile_.nr / tile_.lanes;
  // Edge tiles continue from the buffer.
  auto* copy_in = llvm::BasicBlock::Create(context, "tile_in", function);
  auto* start = llvm::BasicBlock::Create(context, "tile_start", function);
  b_.CreateCondBr(b_.CreateOr(tile.full, first), start, copy_in);
  b_.SetInsertPoint(copy_in);
  RETURN_IF_ERROR(
      CopyTile(tile.offset, tile.rows, tile.columns, /*into_buffer=*/true));
  b_.CreateBr(start);

  // The accumulators: 0 on the first k slice, else the tile so far.
  b_.SetInsertPoint(start);
  auto* zero_block = llvm::BasicBlock::Create(context, "acc_zero", function);
  auto* load_block = llvm::BasicBlock::Create(context, "acc_load", function);
  auto* loop_block = llvm::BasicBlock::Create(context, "acc_ready", function);
  b_.CreateCondBr(first, zero_block, load_block);
  b_.SetInsertPoint(zero_block);
  for (llvm::Value* acc : accumulators_) {
    b_.CreateStore(llvm::Constant::getNullValue(vector_type_), acc);
  }
  b_.CreateBr(loop_block);
  b_.SetInsertPoint(load_block);
  for (int64_t i = 0; i < tile_.mr; ++i) {
    for (int64_t v = 0; v < vectors; ++v) {
      b_.CreateStore(
          b_.CreateAlignedLoad(vector_type_, TileVectorAt(tile, i, v),
                               llvm::Align(primitive_util::ByteWidth(type_))),
          accumulators_[i * vectors + v]);
    }
  }
  b_.CreateBr(loop_block);
  b_.SetInsertPoint(loop_block);
  return absl::OkStatus();
}

absl::Status GemmEmitter::PanelKLoop(llvm::Value* rhs_panel, llvm::Value* kc,
                                     llvm::Value* lhs_panel,
                                     int64_t lhs_k_stride,
                                     int64_t lhs_row_stride, int64_t rows) {
  return EmitForLoop(
      b_, I64(0), kc, "micro_k",
      [&](llvm::Value* k) {
        llvm::Value* lhs_column = b_.CreateMul(k, I64(lhs_k_stride));
        MultiplyAddStep(
            At(rhs_panel, b_.CreateMul(k, I64(tile_.nr))), rows,
            [&](int64_t i) {
              return b_.CreateLoad(
                  element_type_,
                  At(lhs_panel,
                     b_.CreateAdd(lhs_column, I64(i * lhs_row_stride))));
            });
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten);
}

absl::Status GemmEmitter::MicroKLoop(const LhsPanel& lhs,
                                     llvm::Value* rhs_panel, llvm::Value* kc,
                                     llvm::Value* row) {
  if (lhs.conv_k0 != nullptr) {
    return ConvKLoop(rhs_panel, row, lhs.conv_k0, kc);
  }
  if (lhs.use_in_place == nullptr) {
    return PanelKLoop(rhs_panel, kc, lhs.packed, tile_.mr, 1, tile_.mr);
  }
  // The k loop is the only part emitted more than once for an lhs read in
  // place (the tile's setup and stores are shared). Rows a partial panel
  // lacks keep their accumulators' start values and are never stored.
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  const int64_t remainder = flat_.m % tile_.mr;
  auto* in_place = llvm::BasicBlock::Create(context, "lhs_in_place", function);
  auto* not_whole = llvm::BasicBlock::Create(context, "lhs_partial", function);
  auto* partial = llvm::BasicBlock::Create(context, "lhs_remainder", function);
  auto* packed = llvm::BasicBlock::Create(context, "lhs_packed", function);
  auto* joined = llvm::BasicBlock::Create(context, "lhs_done", function);
  b_.CreateCondBr(lhs.use_in_place, in_place, not_whole);
  b_.SetInsertPoint(in_place);
  RETURN_IF_ERROR(
      PanelKLoop(rhs_panel, kc, lhs.in_place, 1, flat_.k, tile_.mr));
  b_.CreateBr(joined);
  b_.SetInsertPoint(not_whole);
  b_.CreateCondBr(lhs.remainder_in_place, partial, packed);
  b_.SetInsertPoint(partial);
  RETURN_IF_ERROR(
      PanelKLoop(rhs_panel, kc, lhs.in_place, 1, flat_.k, remainder));
  b_.CreateBr(joined);
  b_.SetInsertPoint(packed);
  RETURN_IF_ERROR(PanelKLoop(rhs_panel, kc, lhs.packed, tile_.mr, 1, tile_.mr));
  b_.CreateBr(joined);
  b_.SetInsertPoint(joined);
  return absl::OkStatus();
}

absl::Status GemmEmitter::FinishTile(const MicroTile& tile, llvm::Value* batch,
                                     llvm::Value* row, llvm::Value* column) {
  const int64_t vectors = tile_.nr / tile_.lanes;
  for (int64_t i = 0; i < tile_.mr; ++i) {
    for (int64_t v = 0; v < vectors; ++v) {
      b_.CreateAlignedStore(
          b_.CreateLoad(vector_type_, accumulators_[i * vectors + v]),
          TileVectorAt(tile, i, v),
          llvm::Align(primitive_util::ByteWidth(type_)));
    }
  }
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  auto* copy_out = llvm::BasicBlock::Create(context, "tile_out", function);
  auto* done = llvm::BasicBlock::Create(context, "tile_done", function);
  b_.CreateCondBr(tile.full, done, copy_out);
  b_.SetInsertPoint(copy_out);
  if (epilogue_) {
    RETURN_IF_ERROR(
        EmitEpilogue(tile.offset, tile.rows, tile.columns, batch, row, column));
  } else {
    RETURN_IF_ERROR(CopyTile(tile.offset, tile.rows, tile.columns,
                             /*into_buffer=*/false));
  }
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return absl::OkStatus();
}

void GemmEmitter::MultiplyAddStep(
    llvm::Value* rhs_row, int64_t rows,
    absl::FunctionRef<llvm::Value*(int64_t)> lhs,
    const std::vector<llvm::Value*>* keep) {
  const int64_t vectors = tile_.nr / tile_.lanes;
  std::vector<llvm::Value*> rhs;
  for (int64_t v = 0; v < vectors; ++v) {
    rhs.push_back(b_.CreateAlignedLoad(vector_type_,
                                       At(rhs_row, I64(v * tile_.lanes)),
                                       llvm::Align(tile_.vector_bytes)));
  }
  for (int64_t i = 0; i < rows; ++i) {
    llvm::Value* splat = b_.CreateVectorSplat(tile_.lanes, lhs(i));
    // A row's keep as a vector of lanes: a masked multiply-add (AVX-512)
    // or a blend, where a scalar condition became a branch per product.
    llvm::Value* kept = keep == nullptr
                            ? nullptr
                            : b_.CreateVectorSplat(tile_.lanes, (*keep)[i]);
    for (int64_t v = 0; v < vectors; ++v) {
      llvm::Value* acc = accumulators_[i * vectors + v];
      llvm::Value* before = b_.CreateLoad(vector_type_, acc);
      llvm::Value* after = b_.CreateIntrinsic(
          llvm::Intrinsic::fmuladd, {vector_type_}, {splat, rhs[v], before});
      if (kept != nullptr) after = b_.CreateSelect(kept, after, before);
      b_.CreateStore(after, acc);
    }
  }
}

absl::Status GemmEmitter::ConvKLoop(llvm::Value* rhs_panel, llvm::Value* row,
                                    llvm::Value* k0, llvm::Value* kc) {
  const ConvTile tile = ConvTileAt(rhs_panel, row, k0);
  // Slices are whole taps (CheckFusionPlan): taps [k0 / c, (k0 + kc) / c).
  const int64_t c = conv_->features;
  llvm::Value* first_tap = b_.CreateUDiv(k0, I64(c));
  llvm::Value* end_tap = b_.CreateUDiv(b_.CreateAdd(k0, kc), I64(c));
  auto tap_steps = [&](llvm::Value* t) { return ConvTapSteps(tile, t); };
  const int64_t run_taps = ConvRunTaps();
  if (run_taps == 0) {
    return EmitForLoop(b_, first_tap, end_tap, "micro_tap", tap_steps,
                       LoopHints::kKeepAsWritten);
  }
  return EmitForLoop(
      b_, b_.CreateUDiv(first_tap, I64(run_taps)),
      b_.CreateUDiv(end_tap, I64(run_taps)), "micro_run",
      [&](llvm::Value* r) { return ConvRunSteps(tile, run_taps, r); },
      LoopHints::kKeepAsWritten);
}

GemmEmitter::ConvTile GemmEmitter::ConvTileAt(llvm::Value* rhs_panel,
                                              llvm::Value* row,
                                              llvm::Value* k0) {
  ConvTile tile;
  tile.rhs_panel = rhs_panel;
  tile.k0 = k0;
  const Shape& input_shape = conv_input_->shape();
  const int64_t rank = input_shape.rank();
  // Element strides of the input's (row-major) dimensions; features are
  // minor, so a tap's features are a contiguous run.
  tile.strides.assign(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) {
    tile.strides[d] = tile.strides[d + 1] * input_shape.dimensions(d + 1);
  }
  tile.input = elements_.parameter_buffer(conv_input_->parameter_number());
  // The tile's rows; rows past m read zeros and are never stored.
  for (int64_t i = 0; i < tile_.mr; ++i) {
    llvm::Value* r = b_.CreateAdd(row, I64(i));
    tile.in_matrix.push_back(b_.CreateICmpSLT(r, I64(flat_.m)));
    tile.rows.push_back(ConvRowIndex(Min(r, I64(flat_.m - 1))));
  }
  for (const WindowDimension& d : conv_->window) {
    tile.tap_sizes.push_back(d.size);
  }
  if (ContiguousRowsOk()) {
    const size_t last = conv_->window.size() - 1;
    tile.row_step = conv_->window[last].stride *
                    tile.strides[conv_->dnums.input_spatial[last]];
    tile.contiguous = b_.CreateAnd(
        b_.CreateICmpSLE(b_.CreateAdd(row, I64(tile_.mr)), I64(flat_.m)),
        b_.CreateICmpSLT(b_.CreateAdd(tile.rows[0][1 + last],
                                      I64(tile_.mr - 1)),
                         I64(conv_->positions[last])));
  }
  return tile;
}

bool GemmEmitter::ContiguousRowsOk() const {
  return !conv_->window.empty() &&
         conv_->window.back().base_dilation == 1 &&
         conv_input_ == dot_.operand(0) && tile_.mr > 1;
}

GemmEmitter::TapRows GemmEmitter::GeneralTapRows(const ConvTile& tile,
                                                 const IrIndex& tap) {
  TapRows rows{{}, {}, b_.getTrue()};
  for (int64_t i = 0; i < tile_.mr; ++i) {
    const TapPosition at = ConvTap(tile.rows[i], tap);
    llvm::Value* offset = ConvTapOffset(tile, i, at);
    // Rows past m read zeros (never stored); taps off the input too: in
    // an input pad they are multiplied, in the window's padding their
    // products are then skipped.
    llvm::Value* valid = b_.CreateAnd(at.on_input, tile.in_matrix[i]);
    rows.keep.push_back(b_.CreateOr(at.valid, b_.CreateNot(tile.in_matrix[i])));
    rows.all_on_input = b_.CreateAnd(rows.all_on_input, rows.keep.back());
    rows.pointers.push_back(b_.CreateSelect(
        valid, b_.CreateGEP(element_type_, tile.input, offset), zero_row_));
  }
  return rows;
}

GemmEmitter::TapRows GemmEmitter::ContiguousTapRows(const ConvTile& tile,
                                                    const IrIndex& tap) {
  // Every row is in the matrix and shares row 0's position but the last;
  // with no input pad, on the input means in the window.
  const TapPosition at = ConvTap(tile.rows[0], tap);
  const size_t last = conv_->window.size() - 1;
  const int64_t stride = conv_->window[last].stride;
  const int64_t size = conv_->input_dims[conv_->dnums.input_spatial[last]];
  llvm::Value* first = b_.CreateGEP(element_type_, tile.input,
                                    ConvTapOffset(tile, 0, at));
  TapRows rows{{}, {}, b_.getTrue()};
  for (int64_t i = 0; i < tile_.mr; ++i) {
    llvm::Value* p = b_.CreateAdd(at.positions[last], I64(i * stride));
    llvm::Value* valid = b_.CreateAnd(
        at.valid_before_last, b_.CreateAnd(b_.CreateICmpSGE(p, I64(0)),
                                           b_.CreateICmpSLT(p, I64(size))));
    rows.keep.push_back(valid);
    rows.pointers.push_back(b_.CreateSelect(
        valid, b_.CreateGEP(element_type_, first, I64(i * tile.row_step)),
        zero_row_));
  }
  // The rows' positions along the last dimension increase with i.
  llvm::Value* final_p =
      b_.CreateAdd(at.positions[last], I64((tile_.mr - 1) * stride));
  rows.all_on_input = b_.CreateAnd(
      at.valid_before_last,
      b_.CreateAnd(b_.CreateICmpSGE(at.positions[last], I64(0)),
                   b_.CreateICmpSLT(final_p, I64(size))));
  return rows;
}

GemmEmitter::TapRows GemmEmitter::ConvTapRows(const ConvTile& tile,
                                              const IrIndex& tap) {
  if (tile.contiguous == nullptr) return GeneralTapRows(tile, tap);
  return StoredTapRows(
      tile.contiguous, [&] { return ContiguousTapRows(tile, tap); },
      [&] { return GeneralTapRows(tile, tap); });
}

GemmEmitter::TapRows GemmEmitter::StoredTapRows(
    llvm::Value* condition, absl::FunctionRef<TapRows()> then,
    absl::FunctionRef<TapRows()> otherwise) {
  // Both ways store into the same slots, so that the multiply-adds after
  // them are emitted once (LLVM turns the slots back into values).
  llvm::Value* pointers = EntryArray(b_.getPtrTy(), tile_.mr, "tap_pointers");
  llvm::Value* keeps = EntryArray(b_.getInt1Ty(), tile_.mr, "tap_keeps");
  llvm::Value* all = EntryArray(b_.getInt1Ty(), 1, "tap_all_on_input");
  auto store = [&](const TapRows& rows) {
    for (int64_t i = 0; i < tile_.mr; ++i) {
      b_.CreateStore(rows.pointers[i],
                     b_.CreateConstGEP1_64(b_.getPtrTy(), pointers, i));
      b_.CreateStore(rows.keep[i],
                     b_.CreateConstGEP1_64(b_.getInt1Ty(), keeps, i));
    }
    b_.CreateStore(rows.all_on_input, all);
    return absl::OkStatus();
  };
  // Neither way fails: they only emit arithmetic and stores.
  absl::Status stored = EmitBranch(
      condition, "rows_contiguous", [&] { return store(then()); },
      [&] { return store(otherwise()); });
  stored.IgnoreError();
  TapRows rows;
  for (int64_t i = 0; i < tile_.mr; ++i) {
    rows.pointers.push_back(b_.CreateLoad(
        b_.getPtrTy(), b_.CreateConstGEP1_64(b_.getPtrTy(), pointers, i)));
    rows.keep.push_back(b_.CreateLoad(
        b_.getInt1Ty(), b_.CreateConstGEP1_64(b_.getInt1Ty(), keeps, i)));
  }
  rows.all_on_input = b_.CreateLoad(b_.getInt1Ty(), all);
  return rows;
}

llvm::Value* GemmEmitter::ConvTapOffset(const ConvTile& tile, int64_t i,
                                        const TapPosition& at) {
  llvm::Value* offset = b_.CreateMul(
      tile.rows[i][0], I64(tile.strides[conv_->dnums.input_batch]));
  for (size_t d = 0; d < at.positions.size(); ++d) {
    offset = b_.CreateAdd(
        offset, b_.CreateMul(at.positions[d],
                             I64(tile.strides[conv_->dnums.input_spatial[d]])));
  }
  return offset;
}

llvm::Value* GemmEmitter::ConvRhsAt(const ConvTile& tile, llvm::Value* t) {
  return At(
      tile.rhs_panel,
      b_.CreateMul(b_.CreateSub(b_.CreateMul(t, I64(conv_->features)), tile.k0),
                   I64(tile_.nr)));
}

absl::Status GemmEmitter::ConvStepLoop(
    llvm::Value* rhs_steps, const std::vector<llvm::Value*>& pointers,
    int64_t steps, const std::vector<llvm::Value*>* keep) {
  return EmitForLoop(
      b_, I64(0), I64(steps), "micro_c",
      [&](llvm::Value* f) {
        MultiplyAddStep(
            At(rhs_steps, b_.CreateMul(f, I64(tile_.nr))), tile_.mr,
            [&](int64_t i) {
              return b_.CreateLoad(element_type_, At(pointers[i], f));
            },
            keep);
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten);
}

absl::Status GemmEmitter::EmitBranch(
    llvm::Value* condition, const char* name,
    absl::FunctionRef<absl::Status()> then,
    absl::FunctionRef<absl::Status()> otherwise) {
  llvm::LLVMContext& context = b_.getContext();
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  auto* yes = llvm::BasicBlock::Create(context, name, function);
  auto* no = llvm::BasicBlock::Create(context, "else", function);
  auto* done = llvm::BasicBlock::Create(context, "joined", function);
  b_.CreateCondBr(condition, yes, no);
  b_.SetInsertPoint(yes);
  RETURN_IF_ERROR(then());
  b_.CreateBr(done);
  b_.SetInsertPoint(no);
  RETURN_IF_ERROR(otherwise());
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return absl::OkStatus();
}

absl::Status GemmEmitter::ConvTapSteps(const ConvTile& tile, llvm::Value* t) {
  const IrIndex tap = ElementalEmitter::Delinearize(b_, tile.tap_sizes, t);
  const TapRows rows = ConvTapRows(tile, tap);
  llvm::Value* rhs_tap = ConvRhsAt(tile, t);
  const int64_t c = conv_->features;
  return EmitBranch(
      rows.all_on_input, "tap_inside",
      [&] { return ConvStepLoop(rhs_tap, rows.pointers, c, nullptr); },
      [&] { return ConvStepLoop(rhs_tap, rows.pointers, c, &rows.keep); });
}

int64_t GemmEmitter::ConvRunTaps() const {
  // Taps along the last window dimension read one contiguous run of the
  // input (kw x c elements) where that dimension is the input's second
  // most minor, undilated, and slices hold whole rows of such taps.
  const int64_t rank = conv_input_->shape().rank();
  const int64_t last = static_cast<int64_t>(conv_->window.size()) - 1;
  const int64_t run_taps = last >= 0 ? conv_->window[last].size : 1;
  const bool runs = last >= 0 && run_taps > 1 &&
                    conv_->dnums.input_feature == rank - 1 &&
                    conv_->dnums.input_spatial[last] == rank - 2 &&
                    conv_->window[last].window_dilation == 1 &&
                    conv_->window[last].base_dilation == 1 &&
                    plan_.k_block % (run_taps * conv_->features) == 0;
  return runs ? run_taps : 0;
}

absl::Status GemmEmitter::ConvRunSteps(const ConvTile& tile, int64_t run_taps,
                                       llvm::Value* r) {
  // The run is one loop of kw x c steps from one pointer per row (a 7x7
  // window over 3 features: 21 steps instead of 7 loops of 3), where all
  // its taps are on the input for every row (rows past m read their last
  // row's, never stored); elsewhere the run's taps one by one. The same
  // products in the same order either way.
  llvm::Value* t0 = b_.CreateMul(r, I64(run_taps));
  const IrIndex first = ElementalEmitter::Delinearize(b_, tile.tap_sizes, t0);
  const IrIndex final_tap = ElementalEmitter::Delinearize(
      b_, tile.tap_sizes, b_.CreateAdd(t0, I64(run_taps - 1)));
  auto general = [&] {
    TapRows rows{{}, {}, b_.getTrue()};
    for (int64_t i = 0; i < tile_.mr; ++i) {
      const TapPosition at = ConvTap(tile.rows[i], first);
      const TapPosition end = ConvTap(tile.rows[i], final_tap);
      rows.all_on_input = b_.CreateAnd(rows.all_on_input,
                                       b_.CreateAnd(at.on_input, end.on_input));
      rows.pointers.push_back(
          b_.CreateGEP(element_type_, tile.input, ConvTapOffset(tile, i, at)));
      rows.keep.push_back(b_.getTrue());
    }
    return rows;
  };
  auto contiguous = [&] {
    TapRows rows = ContiguousTapRows(tile, first);
    rows.all_on_input = b_.CreateAnd(
        rows.all_on_input, ContiguousTapRows(tile, final_tap).all_on_input);
    return rows;
  };
  const TapRows rows = tile.contiguous == nullptr
                           ? general()
                           : StoredTapRows(tile.contiguous, contiguous, general);
  const std::vector<llvm::Value*>& pointers = rows.pointers;
  llvm::Value* all_on_input = rows.all_on_input;
  llvm::Value* rhs_run = ConvRhsAt(tile, t0);
  return EmitBranch(
      all_on_input, "run_inside",
      [&] {
        return ConvStepLoop(rhs_run, pointers, run_taps * conv_->features,
                            nullptr);
      },
      [&] {
        return EmitForLoop(
            b_, t0, b_.CreateAdd(t0, I64(run_taps)), "micro_tap",
            [&](llvm::Value* t) { return ConvTapSteps(tile, t); },
            LoopHints::kKeepAsWritten);
      });
}

GemmEmitter::UnitBlock GemmEmitter::Unit(llvm::Value* unit) {
  // unit = (batch * n_blocks + n block) * m_blocks + m block.
  const int64_t m_blocks = (flat_.m + plan_.m_block - 1) / plan_.m_block;
  const int64_t n_blocks = (flat_.n + plan_.n_block - 1) / plan_.n_block;
  llvm::Value* rest = b_.CreateUDiv(unit, I64(m_blocks));
  UnitBlock u;
  u.batch = b_.CreateUDiv(rest, I64(n_blocks));
  u.m0 = b_.CreateMul(b_.CreateURem(unit, I64(m_blocks)), I64(plan_.m_block));
  u.n0 = b_.CreateMul(b_.CreateURem(rest, I64(n_blocks)), I64(plan_.n_block));
  u.mc = Min(I64(plan_.m_block), b_.CreateSub(I64(flat_.m), u.m0));
  u.nc = Min(I64(plan_.n_block), b_.CreateSub(I64(flat_.n), u.n0));
  // A block spanning a whole dimension has constant bounds, which lets
  // LLVM unroll and vectorize small products' loops exactly.
  if (m_blocks == 1) {
    u.m0 = I64(0);
    u.mc = I64(flat_.m);
  }
  if (n_blocks == 1) {
    u.n0 = I64(0);
    u.nc = I64(flat_.n);
  }
  return u;
}

absl::Status GemmEmitter::MultiplyRows(llvm::Value* batch, llvm::Value* r0,
                                       llvm::Value* rows, llvm::Value* n0,
                                       llvm::Value* nc, llvm::Value* k0,
                                       llvm::Value* kc, llvm::Value* first) {
  if (conv_) {
    // Nothing to pack: each tile reads its rows' windows in place
    // (CheckFusionPlan: the input is a feature-minor parameter, the k
    // slices whole taps).
    return MultiplyPanels(batch, r0, rows, n0, nc, kc, first,
                          [&](llvm::Value*, llvm::Value*) {
                            LhsPanel lhs;
                            lhs.packed = packed_lhs_;
                            lhs.conv_k0 = k0;
                            return lhs;
                          });
  }
  // In place, a last partial panel is read in place when it holds the
  // matrix's last m % mr rows (it always does: units and chunks are whole
  // panels), else packed (its missing rows read as zeros, never past the
  // operand).
  const bool in_place = LhsInPlace();
  llvm::Value* whole_panels =
      in_place ? b_.CreateUDiv(rows, I64(tile_.mr)) : I64(0);
  llvm::Value* packed_first = b_.CreateMul(whole_panels, I64(tile_.mr));
  llvm::Value* partial_rows = b_.CreateSub(rows, packed_first);
  const int64_t remainder = flat_.m % tile_.mr;
  llvm::Value* remainder_in_place =
      in_place && remainder > 0 ? b_.CreateICmpEQ(partial_rows, I64(remainder))
                                : b_.getFalse();
  RETURN_IF_ERROR(EmitIf(b_, b_.CreateNot(remainder_in_place), [&] {
    return Pack(0, packed_lhs_, tile_.mr, batch,
                b_.CreateAdd(r0, packed_first), partial_rows, flat_.m, k0, kc);
  }));
  return MultiplyPanels(
      batch, r0, rows, n0, nc, kc, first,
      [&](llvm::Value* ip, llvm::Value* row) {
        // Panels before whole_panels are read in place, the rest packed.
        LhsPanel lhs;
        llvm::Value* packed_panel = b_.CreateSub(ip, whole_panels);
        lhs.packed =
            At(packed_lhs_,
               b_.CreateMul(b_.CreateMul(packed_panel, kc), I64(tile_.mr)));
        if (in_place) {
          lhs.use_in_place = b_.CreateICmpULT(ip, whole_panels);
          lhs.remainder_in_place = b_.CreateAnd(
              remainder_in_place, b_.CreateICmpEQ(ip, whole_panels));
          llvm::Value* start = b_.CreateAdd(
              b_.CreateMul(b_.CreateAdd(b_.CreateMul(batch, I64(flat_.m)), row),
                           I64(flat_.k)),
              k0);
          lhs.in_place = At(
              elements_.parameter_buffer(dot_.operand(0)->parameter_number()),
              start);
        }
        return lhs;
      });
}

absl::Status GemmEmitter::MultiplyPanels(
    llvm::Value* batch, llvm::Value* r0, llvm::Value* rows, llvm::Value* n0,
    llvm::Value* nc, llvm::Value* kc, llvm::Value* first,
    absl::FunctionRef<LhsPanel(llvm::Value* ip, llvm::Value* row)> lhs_of) {
  return EmitForLoop(b_, I64(0), CeilDiv(nc, tile_.nr), "n_panel",
                     [&](llvm::Value* jp) {
    return EmitForLoop(b_, I64(0), CeilDiv(rows, tile_.mr), "m_panel",
                       [&](llvm::Value* ip) -> absl::Status {
      llvm::Value* rhs_panel = At(
          rhs_block_, b_.CreateMul(b_.CreateMul(jp, kc), I64(tile_.nr)));
      llvm::Value* row = b_.CreateAdd(r0, b_.CreateMul(ip, I64(tile_.mr)));
      llvm::Value* column = b_.CreateAdd(n0, b_.CreateMul(jp, I64(tile_.nr)));
      const LhsPanel lhs = lhs_of(ip, row);
      if (next_rhs_) RETURN_IF_ERROR(PackNextRhsSlice());
      return MicroKernel(lhs, rhs_panel, kc, batch, row, column, first);
    });
  });
}

void GemmEmitter::AllocateSmall() {
  small_row_ = EntryArray(element_type_, plan_.n_block, "small_row");
  for (int64_t v = 0; v < kSmallVectors; ++v) {
    small_vectors_.push_back(EntryArray(vector_type_, 1, "small_acc"));
  }
}

void GemmEmitter::AllocatePacking(int64_t lhs_rows, int64_t rhs_blocks) {
  const int64_t n_padded = (plan_.n_block + tile_.nr - 1) / tile_.nr * tile_.nr;
  const int64_t lhs_padded = (lhs_rows + tile_.mr - 1) / tile_.mr * tile_.mr;
  packed_lhs_ =
      EntryArray(element_type_, lhs_padded * plan_.k_block, "packed_lhs");
  rhs_block_elements_ = plan_.k_block * n_padded;
  packed_rhs_ =
      EntryArray(element_type_, rhs_blocks * rhs_block_elements_, "packed_rhs");
  rhs_block_ = packed_rhs_;
  tile_buffer_ = EntryArray(element_type_, tile_.mr * tile_.nr, "tile_buffer");
  if (conv_) {
    zero_row_ = EntryArray(element_type_, conv_->features, "zero_row");
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(
        llvm::cast<llvm::Instruction>(zero_row_)->getNextNode());
    b_.CreateMemSet(zero_row_, b_.getInt8(0),
                    conv_->features * primitive_util::ByteWidth(type_),
                    llvm::MaybeAlign(64));
  }
  for (int64_t i = 0; i < tile_.mr * (tile_.nr / tile_.lanes); ++i) {
    accumulators_.push_back(EntryArray(vector_type_, 1, "acc"));
  }
}

// Whether the product `flat` of `dot` skips packing: small, in one k
// slice, and not a convolution (whose input is read in place, never
// generated).
bool SkipsPacking(const HloInstruction& dot, const FlatDot& flat,
                  const DotPlan& plan) {
  if (AsConvProduct(dot)) return false;
  return flat.m * flat.n * flat.k <= kSmallDotWork && plan.k_block >= flat.k;
}

bool GemmEmitter::IsSmall() const {
  return SkipsPacking(dot_, flat_, plan_);
}

int64_t GemmEmitter::KBlocks() const {
  return std::max<int64_t>(1, (flat_.k + plan_.k_block - 1) / plan_.k_block);
}

absl::Status GemmEmitter::EmitRowDot(llvm::Value* begin, llvm::Value* end) {
  out_ = EntryArray(element_type_, plan_.row_block * plan_.n_block,
                    "row_block");
  if (IsSmall()) {
    AllocateSmall();
  } else {
    AllocatePacking(plan_.row_block, /*rhs_blocks=*/1);
  }
  // With one k slice the unit packs rhs once, for all its row blocks.
  const bool one_slice = KBlocks() == 1;
  return EmitForLoop(b_, begin, end, "unit", [&](llvm::Value* unit) {
    const auto [batch, m0, mc, n0, nc] = Unit(unit);
    if (one_slice && !IsSmall()) {
      RETURN_IF_ERROR(Pack(1, packed_rhs_, tile_.nr, batch, n0, nc, flat_.n,
                           I64(0), I64(flat_.k)));
    }
    return EmitForLoop(b_, I64(0), CeilDiv(mc, plan_.row_block), "row_block",
                       [&](llvm::Value* c) -> absl::Status {
      llvm::Value* r0 = b_.CreateAdd(m0, b_.CreateMul(c, I64(plan_.row_block)));
      llvm::Value* rows =
          Min(I64(plan_.row_block), b_.CreateSub(b_.CreateAdd(m0, mc), r0));
      block_first_row_ = r0;
      if (IsSmall()) {
        RETURN_IF_ERROR(EmitSmallUnit(batch, r0, rows, n0, nc));
      } else {
        RETURN_IF_ERROR(EmitForLoop(b_, I64(0), I64(KBlocks()), "k_block",
                                    [&](llvm::Value* kb) {
          llvm::Value* k0 = b_.CreateMul(kb, I64(plan_.k_block));
          llvm::Value* kc =
              Min(I64(plan_.k_block), b_.CreateSub(I64(flat_.k), k0));
          if (!one_slice) {
            RETURN_IF_ERROR(Pack(1, packed_rhs_, tile_.nr, batch, n0, nc,
                                 flat_.n, k0, kc));
          }
          return MultiplyRows(batch, r0, rows, n0, nc, k0, kc,
                              b_.CreateICmpEQ(kb, I64(0)));
        }));
      }
      return EmitRows(batch, r0, rows);
    });
  });
}

absl::Status GemmEmitter::Emit(llvm::Value* begin, llvm::Value* end) {
  if (plan_.rows) return EmitRowDot(begin, end);
  if (IsSmall()) {
    AllocateSmall();
    return EmitForLoop(b_, begin, end, "unit", [&](llvm::Value* unit) {
      const UnitBlock u = Unit(unit);
      return EmitSmallUnit(u.batch, u.m0, u.mc, u.n0, u.nc);
    });
  }
  // The lhs rows packed at a time: an L2-sized block (144 x k_block) of
  // whole panels.
  const int64_t chunk = std::min<int64_t>(plan_.m_block, 144);
  // Two rhs blocks where they fit kPipelinedRhsBlockBytes: the tiles of one
  // slice read one while the next slice is packed into the other.
  // (The plan's check bounds one block and the lhs by kMaxDotPackedBytes;
  // a second block must stay within it too.)
  const int64_t n_padded = CeilDivInt(plan_.n_block, tile_.nr) * tile_.nr;
  const int64_t bytes = primitive_util::ByteWidth(type_);
  const int64_t block_bytes = plan_.k_block * n_padded * bytes;
  const bool pipelined =
      block_bytes <= kPipelinedRhsBlockBytes &&
      2 * block_bytes + plan_.k_block * 144 * bytes <= kMaxDotPackedBytes;
  AllocatePacking(chunk, pipelined ? 2 : 1);
  if (pipelined) tile_counter_ = EntryArray(b_.getInt64Ty(), 1, "tile_counter");
  packed_key_ = EntryVariable(-1, "packed_key");
  packed_block_ = EntryVariable(0, "packed_block");
  absl::Status status = EmitForLoop(b_, begin, end, "unit", [&](llvm::Value* unit) {
    const UnitBlock u = Unit(unit);
    return EmitForLoop(b_, I64(0), I64(KBlocks()), "k_block",
                       [&](llvm::Value* kb) -> absl::Status {
      const RhsSlice slice = SliceOf(u, kb);
      if (pipelined) {
        RETURN_IF_ERROR(StartPipelinedSlice(unit, kb, begin, end, u, slice));
      } else {
        llvm::Value* key = SliceKey(unit, kb);
        RETURN_IF_ERROR(EmitIf(
            b_, b_.CreateICmpNE(key, b_.CreateLoad(b_.getInt64Ty(), packed_key_)),
            [&] {
              b_.CreateStore(key, packed_key_);
              return PackRhs(slice, rhs_block_);
            }));
      }
      llvm::Value* first = b_.CreateICmpEQ(kb, I64(0));
      RETURN_IF_ERROR(EmitForLoop(b_, I64(0), CeilDiv(u.mc, chunk), "m_chunk",
                                  [&](llvm::Value* c) {
        llvm::Value* r0 = b_.CreateAdd(u.m0, b_.CreateMul(c, I64(chunk)));
        llvm::Value* rows =
            Min(I64(chunk), b_.CreateSub(b_.CreateAdd(u.m0, u.mc), r0));
        return MultiplyRows(u.batch, r0, rows, u.n0, u.nc, slice.k0, slice.kc,
                            first);
      }));
      next_rhs_.reset();
      return absl::OkStatus();
    });
  });
  if (status.ok() && StreamsEpilogue()) EmitStreamingFence(b_);
  return status;
}

absl::Status GemmEmitter::StartPipelinedSlice(llvm::Value* unit,
                                              llvm::Value* kb,
                                              llvm::Value* begin,
                                              llvm::Value* end,
                                              const UnitBlock& u,
                                              const RhsSlice& slice) {
  // Each slice of this call reads one block and packs the next slice
  // into the other, which the next slice then reads; only the call's
  // first slice is packed before its tiles. A next slice equal to this
  // one (SliceKey) is not packed again, and reads this block.
  llvm::Value* first = b_.CreateAnd(b_.CreateICmpEQ(unit, begin),
                                    b_.CreateICmpEQ(kb, I64(0)));
  llvm::Value* key = SliceKey(unit, kb);
  llvm::Value* changed = b_.CreateICmpNE(
      key, b_.CreateLoad(b_.getInt64Ty(), packed_key_));
  llvm::Value* previous = b_.CreateLoad(b_.getInt64Ty(), packed_block_);
  llvm::Value* block = b_.CreateSelect(
      first, I64(0),
      b_.CreateSelect(changed, b_.CreateXor(previous, I64(1)), previous));
  b_.CreateStore(block, packed_block_);
  b_.CreateStore(key, packed_key_);
  rhs_block_ = At(packed_rhs_, b_.CreateMul(block, I64(rhs_block_elements_)));
  llvm::Value* other = At(
      packed_rhs_,
      b_.CreateMul(b_.CreateXor(block, I64(1)), I64(rhs_block_elements_)));
  RETURN_IF_ERROR(
      EmitIf(b_, first, [&] { return PackRhs(slice, rhs_block_); }));
  llvm::Value* exists;
  llvm::Value* next_key;
  const RhsSlice next = NextSlice(unit, kb, end, &exists, &next_key);
  exists = b_.CreateAnd(exists, b_.CreateICmpNE(next_key, key));
  // Each tile's share of the next slice's steps; the shares of all the
  // slice's tiles cover them.
  llvm::Value* tiles =
      b_.CreateMul(CeilDiv(u.mc, tile_.mr), CeilDiv(u.nc, tile_.nr));
  llvm::Value* share = b_.CreateUDiv(
      b_.CreateAdd(next.kc, b_.CreateSub(tiles, I64(1))), tiles);
  // A transposed rhs packs whole blocks of steps (codegen/transposed_pack.h).
  if (RhsTransposedInPlace()) share = CeilDiv(share, tile_.lanes);
  if (RhsTransposedInPlace()) share = b_.CreateMul(share, I64(tile_.lanes));
  next_rhs_ = NextRhs{next, other, b_.CreateSelect(exists, share, I64(0))};
  b_.CreateStore(I64(0), tile_counter_);
  PrefetchRhs(next, I64(0), next_rhs_->rows_per_tile);
  return absl::OkStatus();
}

GemmEmitter::RhsSlice GemmEmitter::SliceOf(const UnitBlock& unit,
                                           llvm::Value* kb) {
  llvm::Value* k0 = b_.CreateMul(kb, I64(plan_.k_block));
  return RhsSlice{unit.batch, unit.n0, unit.nc, k0,
                  Min(I64(plan_.k_block), b_.CreateSub(I64(flat_.k), k0))};
}

llvm::Value* GemmEmitter::SliceKey(llvm::Value* unit, llvm::Value* kb) {
  const int64_t m_blocks = CeilDivInt(flat_.m, plan_.m_block);
  return b_.CreateAdd(
      b_.CreateMul(b_.CreateUDiv(unit, I64(m_blocks)), I64(KBlocks())), kb);
}

GemmEmitter::RhsSlice GemmEmitter::NextSlice(llvm::Value* unit,
                                             llvm::Value* kb, llvm::Value* end,
                                             llvm::Value** exists,
                                             llvm::Value** key) {
  llvm::Value* last = b_.CreateICmpEQ(kb, I64(KBlocks() - 1));
  llvm::Value* next_unit =
      b_.CreateSelect(last, b_.CreateAdd(unit, I64(1)), unit);
  llvm::Value* next_kb =
      b_.CreateSelect(last, I64(0), b_.CreateAdd(kb, I64(1)));
  *exists = b_.CreateICmpULT(next_unit, end);
  *key = SliceKey(next_unit, next_kb);
  // Past the call's last slice, a valid one (its share of steps is empty).
  return SliceOf(Unit(b_.CreateSelect(*exists, next_unit, unit)), next_kb);
}

absl::Status GemmEmitter::PackRhs(const RhsSlice& slice, llvm::Value* packed,
                                  llvm::Value* k_from, llvm::Value* k_to) {
  return Pack(1, packed, tile_.nr, slice.batch, slice.n0, slice.nc, flat_.n,
              slice.k0, slice.kc, k_from, k_to);
}

absl::Status GemmEmitter::PackNextRhsSlice() {
  llvm::Value* tile = b_.CreateLoad(b_.getInt64Ty(), tile_counter_);
  b_.CreateStore(b_.CreateAdd(tile, I64(1)), tile_counter_);
  llvm::Value* share = next_rhs_->rows_per_tile;
  llvm::Value* kc = next_rhs_->slice.kc;
  llvm::Value* from = Min(b_.CreateMul(tile, share), kc);
  llvm::Value* to = Min(b_.CreateAdd(from, share), kc);
  PrefetchRhs(next_rhs_->slice, to, Min(b_.CreateAdd(to, share), kc));
  return EmitIf(b_, b_.CreateICmpSLT(from, to), [&] {
    return PackRhs(next_rhs_->slice, next_rhs_->packed, from, to);
  });
}

bool GemmEmitter::RhsRowsInPlace() const {
  const HloInstruction& rhs = *dot_.operand(1);
  if (rhs.opcode() != HloOpcode::kParameter) return false;
  if (conv_) {
    for (const WindowDimension& d : conv_->window) {
      if (d.reversal) return false;
    }
  }
  return InOrder({&flat_.dnums.rhs_batch, &flat_.dnums.rhs_contracting,
                  &flat_.rhs_free});
}

bool GemmEmitter::RhsTransposedInPlace() const {
  const HloInstruction& rhs = *dot_.operand(1);
  if (conv_ || rhs.opcode() != HloOpcode::kParameter ||
      rhs.shape().element_type() != type_) {
    return false;
  }
  return InOrder({&flat_.dnums.rhs_batch, &flat_.rhs_free,
                  &flat_.dnums.rhs_contracting});
}

void GemmEmitter::PrefetchRhs(const RhsSlice& slice, llvm::Value* k_from,
                              llvm::Value* k_to) {
  if (!RhsRowsInPlace()) return;
  const int64_t bytes = primitive_util::ByteWidth(type_);
  llvm::Value* base =
      elements_.parameter_buffer(dot_.operand(1)->parameter_number());
  // The block's rows are n apart: at a power-of-two n they share a few
  // cache sets, so a slice's share is fetched into L2 (locality 2) only a
  // tile ahead rather than all at once.
  (void)EmitForLoop(b_, k_from, k_to, "prefetch_k", [&](llvm::Value* k) {
    llvm::Value* row = b_.CreateAdd(b_.CreateMul(slice.batch, I64(flat_.k)),
                                    b_.CreateAdd(slice.k0, k));
    llvm::Value* first = b_.CreateMul(
        b_.CreateAdd(b_.CreateMul(row, I64(flat_.n)), slice.n0), I64(bytes));
    for (int64_t line = 0; line < plan_.n_block * bytes; line += 64) {
      EmitPrefetch(b_, b_.CreateGEP(b_.getInt8Ty(), base,
                                    b_.CreateAdd(first, I64(line))),
                   /*locality=*/2);
    }
    return absl::OkStatus();
  }, LoopHints::kKeepAsWritten);
}

}  // namespace

KernelCode DotKernelCode(const HloComputation& fused, const DotPlan& plan) {
  const HloInstruction* dot = plan.rows ? RowDot(fused) : FusedDot(fused);
  if (dot == nullptr || IsDepthwiseProduct(*dot) || TakesGemv(*dot, plan) ||
      !SkipsPacking(*dot, FlattenProduct(*dot), plan)) {
    return KernelCode::kWrittenVectors;
  }
  return KernelCode::kGeneral;
}

absl::Status EmitDotKernel(llvm::IRBuilder<>& b, const HloComputation& fused,
                           const DotPlan& plan, ElementalEmitter& elements,
                           llvm::Value* result, llvm::Value* begin,
                           llvm::Value* end, const CodegenOptions& options) {
  const HloInstruction* dot = plan.rows ? RowDot(fused) : FusedDot(fused);
  RET_CHECK(dot != nullptr, fused.ToString());
  RET_CHECK(dot->shape().element_type() == F32 ||
                dot->shape().element_type() == F64,
            dot->ToString());
  if (TakesGemv(*dot, plan)) {  // a skinny dot streams rhs instead of packing
    return EmitGemvKernel(b, fused, *dot, plan, elements, result, begin, end);
  }
  GemmEmitter emitter(b, fused, *dot, plan, elements, result, options);
  return emitter.Emit(begin, end);
}

}  // namespace mxla::codegen
