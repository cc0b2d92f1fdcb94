#include "passes/fusion_planning.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/conv_product.h"
#include "ir/flat_dot.h"
#include "ir/hlo_computation.h"
#include "ir/memory_budget.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/fusion_cost_model.h"
#include "passes/row_fusion_analysis.h"

namespace mxla {
namespace {

// Whether the fusion's result is written with streaming stores: a large
// array that is an entry result, so nothing reads it back soon, computed by
// a body short enough to be memory-bound (kMaxStreamingBodyInstructions).
bool Streams(const HloInstruction& fusion,
             const FusionPlanningOptions& options) {
  if (options.streaming_store_min_bytes <= 0 || fusion.shape().IsTuple() ||
      fusion.shape().element_type() == PRED ||
      TotalArrayBytes(fusion.shape()) < options.streaming_store_min_bytes ||
      fusion.parent() == nullptr) {
    return false;
  }
  for (const HloComputation* body : fusion.called_computations()) {
    if (body->instruction_count() > kMaxStreamingBodyInstructions) {
      return false;
    }
  }
  const HloInstruction* root = fusion.parent()->root_instruction();
  if (root == &fusion) return true;
  if (root->opcode() != HloOpcode::kTuple) return false;
  for (const HloInstruction* user : fusion.users()) {
    if (user != root) return false;
  }
  return true;
}

bool ReduceKeepsLastDimension(const HloInstruction& reduce) {
  const int64_t rank = reduce.operand(0)->shape().rank();
  if (rank == 0) return false;
  const std::vector<int64_t>& dims = reduce.dimensions();
  return std::find(dims.begin(), dims.end(), rank - 1) == dims.end();
}

RowPlan MakeRowPlan(const HloInstruction& fusion, const RowFusion& rows,
                    const FusionPlanningOptions& options) {
  RowPlan plan{rows.row_dimensions, rows.column_dimensions, StoreKind::kPlain,
               {}};
  const Shape& root = fusion.to_apply()->root_instruction()->shape();
  if (root.rank() != static_cast<int64_t>(rows.row_dimensions.size()) &&
      Streams(fusion, options)) {
    plan.store = StoreKind::kStreaming;
  }
  // Post order keeps the printed plan independent of pointer values.
  for (const HloInstruction* instruction :
       fusion.to_apply()->MakeInstructionPostOrder()) {
    auto it = rows.buffered.find(instruction);
    if (it != rows.buffered.end()) {
      plan.buffered.push_back({instruction->name(), it->second});
    }
  }
  return plan;
}

LoopPlan MakeLoopPlan(const HloInstruction& fusion,
                      const FusionPlanningOptions& options) {
  if (fusion.shape().rank() == 0) return {StoreKind::kPlain, true};
  if (Streams(fusion, options)) return {StoreKind::kStreaming, false};
  // Too small to split: one unit, static loop bounds (no clipping to a
  // range), which also spares the loop vectorizer its run-time checks.
  return {StoreKind::kPlain,
          FusionTrafficBytes(fusion) < 2 * kMinBytesPerChunk};
}

absl::Status Unplannable(const HloInstruction& fusion, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("fusion-planning: fusion '", fusion.name(), "' ", why));
}

// An existing plan (e.g. from a parsed fused.hlo) must also be one this
// pass could have chosen structurally: codegen relies on it.
absl::Status CheckExistingPlan(const HloInstruction& fusion,
                               const FusionPlan& plan,
                               const FusionPlanningOptions& options) {
  RETURN_IF_ERROR(CheckFusionPlan(plan, fusion));
  const HloComputation& fused = *fusion.to_apply();
  if (const auto* reduction = std::get_if<ReductionPlan>(&plan.config)) {
    if (reduction->chunks > 0 &&
        !MaySplitReducedRange(*fused.root_instruction(), options)) {
      return absl::InvalidArgumentError(
          "its reducer may not be split into partial results (float "
          "reducers need reassociate_reductions)");
    }
    return absl::OkStatus();
  }
  const RowPlan* row = std::get_if<RowPlan>(&plan.config);
  if (const auto* dot = std::get_if<DotPlan>(&plan.config); dot && dot->rows) {
    row = &*dot->rows;
  }
  if (row == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(RowFusion rows, AnalyzeRowFusion(fused));
  if (rows.row_dimensions != row->row_dimensions) {
    return absl::InvalidArgumentError("its rows are not the analysis' rows");
  }
  for (const BufferedValue& value : row->buffered) {
    bool found = false;
    for (const auto& [instruction, writer] : rows.bufferable) {
      found = found || (instruction->name() == value.name &&
                        writer == value.writer);
    }
    if (!found) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", value.name, "' is not an expensive value first computed by "
          "phase ", value.writer, " and read by a later one"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool MaySplitReducedRange(const HloInstruction& reduce,
                          const FusionPlanningOptions& options) {
  if (reduce.operand_count() != 2) return false;
  const HloComputation& reducer = *reduce.to_apply();
  const bool is_float =
      primitive_util::IsFloatingPointType(reduce.shape().element_type());
  for (HloOpcode opcode : {HloOpcode::kAdd, HloOpcode::kMultiply,
                           HloOpcode::kMaximum, HloOpcode::kMinimum,
                           HloOpcode::kAnd, HloOpcode::kOr}) {
    if (!IsPlainBinaryReducer(reducer, opcode)) continue;
    // Integer (wrapping) and boolean ops are associative and commutative;
    // float max/min give the same value in any order (but for NaN
    // payloads); float add only rounds differently, which is what
    // reassociate_reductions allows. A float product's partial products
    // overflow or underflow where the sequential ones do not, and f16 and
    // bf16 round after every step, where another order can change the sum
    // entirely: never split.
    if (is_float && opcode == HloOpcode::kMultiply) return false;
    if (primitive_util::IsNarrowFloatType(reduce.shape().element_type()) &&
        opcode == HloOpcode::kAdd) {
      return false;
    }
    return !is_float || options.reassociate_reductions;
  }
  return false;
}

ReductionPlan PlanReduction(const HloInstruction& reduce,
                            const FusionPlanningOptions& options) {
  absl::Span<const int64_t> dims = reduce.operand(0)->shape().dimensions();
  std::vector<int64_t> reduced_dims = reduce.dimensions();
  std::sort(reduced_dims.begin(), reduced_dims.end());
  int64_t outputs = 1, reduced = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (std::binary_search(reduced_dims.begin(), reduced_dims.end(), d)) {
      reduced *= dims[d];
    } else {
      outputs *= dims[d];
      inner = dims[d];
    }
  }
  ReductionPlan plan;
  if (outputs == 0) return plan;
  if (ReduceKeepsLastDimension(reduce)) {
    int64_t widest = 1;
    for (int64_t i = 0; i < reduce.operand_count() / 2; ++i) {
      widest = std::max<int64_t>(
          widest,
          primitive_util::ByteWidth(reduce.operand(i)->shape().element_type()));
    }
    plan.column_block = std::max<int64_t>(1, kColumnBlockBytes / widest);
    plan.column_blocks = (inner + plan.column_block - 1) / plan.column_block;
    plan.units = outputs / inner * plan.column_blocks;
    return plan;
  }
  plan.units = outputs;
  if (outputs < kMinOutputsToSplit && reduced >= 2 * kPartialChunkElements &&
      MaySplitReducedRange(reduce, options)) {
    plan.chunks = (reduced + kPartialChunkElements - 1) / kPartialChunkElements;
    plan.chunk_elements = kPartialChunkElements;
    plan.units = outputs * plan.chunks;
    plan.scratch_bytes = plan.units * primitive_util::ByteWidth(
                                          reduce.operand(0)->shape().element_type());
  }
  return plan;
}

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

FlatDot Flatten(const HloInstruction& dot) {
  return FlattenProduct(dot);
}

// The rows of a row dot's unit: about kRowDotBlockBytes of the product,
// whole micro-kernel panels (6 rows) where that leaves kMinRowDotRows.
int64_t RowDotRows(const FlatDot& flat, int64_t bytes) {
  const int64_t row_bytes = std::max<int64_t>(1, flat.n) * bytes;
  int64_t rows = std::max(kMinRowDotRows, kRowDotBlockBytes / row_bytes);
  rows = rows / 6 * 6;
  return std::max<int64_t>(1, std::min(flat.m, rows));
}

// k slices of 256, fewer where the packed rhs block (k_block x n_block)
// would pass 512 KiB of stack.
int64_t KBlock(const FlatDot& flat, int64_t n_block, int64_t bytes) {
  const int64_t n_padded = CeilDiv(n_block, 64) * 64;
  return std::max<int64_t>(
      1, std::min({flat.k, int64_t{256}, (512 << 10) / (n_padded * bytes)}));
}

// Units of whole rows split so that there are about 8 of them: enough for
// the threads, few enough that each unit's rhs block is packed few times.
// A unit takes at least kMinUnitRows rows, and a multiple of 12 (whole
// panels of the 6- and 12-row tiles) rather than of 48, so that the last
// unit is not much shorter than the others: 3,136 rows in 8 units of 432
// left 2 threads 1,728 and 1,408 rows (ResNet's 56x56 convolutions, 8%
// slower at 2 threads than units of 396).
int64_t RowsPerUnit(const FlatDot& flat, int64_t n_block) {
  const int64_t others =  // (an empty batch or n leaves no units at all)
      std::max<int64_t>(1, flat.batch * CeilDiv(flat.n, n_block));
  const int64_t row_units = std::max<int64_t>(1, CeilDiv(8, others));
  constexpr int64_t kRowQuantum = 12;
  constexpr int64_t kMinUnitRows = 48;
  const int64_t rows =
      std::max(kMinUnitRows,
               CeilDiv(CeilDiv(flat.m, row_units), kRowQuantum) * kRowQuantum);
  return std::max<int64_t>(1, std::min<int64_t>(flat.m, rows));
}

// A row dot's blocks: whole rows (n_block = n) split into units as any
// dot's, each taken RowDotRows (at most 144, the packed lhs block) at a
// time.
DotPlan PlanRowDot(const HloInstruction& dot, RowPlan rows) {
  const FlatDot flat = Flatten(dot);
  const int64_t bytes = primitive_util::ByteWidth(dot.shape().element_type());
  DotPlan plan;
  plan.n_block = std::max<int64_t>(1, flat.n);
  plan.k_block = KBlock(flat, plan.n_block, bytes);
  plan.m_block = RowsPerUnit(flat, plan.n_block);
  plan.row_block = std::min<int64_t>(
      {RowDotRows(flat, bytes), plan.m_block, 144});
  plan.units = flat.batch * CeilDiv(flat.m, plan.m_block);
  plan.rows = std::move(rows);
  return plan;
}

}  // namespace

bool RowDotFits(const HloComputation& fused) {
  const HloInstruction* dot = RowDot(fused);
  if (dot == nullptr) return false;
  const FlatDot flat = Flatten(*dot);
  if (flat.n == 0) return false;  // no columns to accumulate (CheckFusionPlan)
  // The rows' columns are the dot's n: all of its rhs-free dimensions.
  absl::StatusOr<RowFusion> rows = AnalyzeRowFusion(fused);
  if (!rows.ok() || rows->column_dimensions.size() != flat.rhs_free.size()) {
    return false;
  }
  const int64_t bytes = primitive_util::ByteWidth(dot->shape().element_type());
  if (std::min(flat.m, kMinRowDotRows) * flat.n * bytes >
      kMaxRowDotBlockBytes) {
    return false;
  }
  // A row dot's units are whole rows, so one of few rows (a transformer's
  // prompt: 31 rows through a 9216 x 2304 projection and its RMS norm) is
  // one unit on one thread. Large, it runs faster as a dot split over its
  // columns and a row kernel after it, which rereads only the m x n product.
  const bool lone_unit =
      flat.batch * CeilDiv(flat.m, RowsPerUnit(flat, flat.n)) < 2;
  return !lone_unit || flat.m * flat.n * flat.k < kMinLoneRowDotWork;
}

// The narrowest n block a dot kernel takes where n allows: whole
// micro-kernel panels (64 columns).
constexpr int64_t kColumnQuantum = 64;

// A convolution product of at most this many rows (batch x output
// positions) takes all of them in each unit and splits its features.
constexpr int64_t kFewConvRows = 512;

// A dot of at most this many rows whose rows would be split into units
// takes them all in each unit and splits its columns finer instead.
constexpr int64_t kFewDotRows = 256;

// Too few n blocks for the units, and few rows (a transformer's
// sequence): narrower n blocks instead of splitting the rows, so that each
// unit takes all the rows and rhs is packed once in all rather than once
// per row block (GPT-2's [128,3072] x [3072,768] packed its 9.4 MB of
// weights three times).
void SplitColumnsForFewRows(const FlatDot& flat, DotPlan& plan) {
  if (plan.m_block >= flat.m || flat.m > kFewDotRows) return;
  const int64_t wanted = CeilDiv(8, std::max<int64_t>(1, flat.batch));
  const int64_t narrower = std::max<int64_t>(
      kColumnQuantum,
      CeilDiv(CeilDiv(flat.n, wanted), kColumnQuantum) * kColumnQuantum);
  if (narrower < plan.n_block) {
    plan.n_block = narrower;
    plan.m_block = flat.m;
  }
}

// A dot kernel's blocks: k slices of 256 (whole taps for a convolution),
// or all of k under an epilogue,
// n blocks of at most 256 KiB of packed rhs (the kernel keeps two on its
// stack, packing one while the tiles read the other), and RowsPerUnit. Any
// split gives the same bits. An epilogue's stores stream where the
// fusion's result does (Streams).
DotPlan PlanDot(const HloInstruction& dot, bool epilogue, bool streams) {
  const FlatDot flat = Flatten(dot);
  const int64_t bytes = primitive_util::ByteWidth(dot.shape().element_type());
  DotPlan plan;
  if (IsDepthwiseProduct(dot)) {
    // The depthwise kernel: units of output positions, all taps and
    // features each, about kDepthwiseUnits of them, so that 2, 3, 4 or 6
    // threads get near-equal shares (a thread's units are contiguous, and
    // the kernel blocks positions across unit boundaries). Its stores
    // stream where the fusion's result does.
    constexpr int64_t kDepthwiseUnits = 24;
    plan.k_block = flat.k;
    plan.n_block = flat.n;
    plan.m_block = std::max<int64_t>(1, CeilDiv(flat.m, kDepthwiseUnits));
    plan.units = CeilDiv(flat.m, plan.m_block);
    if (streams) plan.store = StoreKind::kStreaming;
    return plan;
  }
  // An epilogue applies as each tile is stored: one slice for all of k.
  plan.k_block =
      std::max<int64_t>(1, epilogue ? flat.k : std::min<int64_t>(flat.k, 256));
  // A convolution's slices are whole taps, so that its kernel can read
  // each tap's run of input features in place (codegen/gemm_emitter.cc).
  if (std::optional<ConvProduct> conv = AsConvProduct(dot);
      conv && !epilogue && flat.k > 0) {
    const int64_t c = conv->features;
    plan.k_block = c * std::min(conv->taps, std::max<int64_t>(1, 256 / c));
  }
  const int64_t fitting = (256 << 10) / (plan.k_block * bytes);
  plan.n_block = std::max<int64_t>(
      1, std::min<int64_t>(flat.n, std::max<int64_t>(kColumnQuantum,
                                                      fitting / kColumnQuantum *
                                                          kColumnQuantum)));
  plan.m_block = RowsPerUnit(flat, plan.n_block);
  if (!AsConvProduct(dot)) SplitColumnsForFewRows(flat, plan);
  if (std::optional<ConvProduct> conv = AsConvProduct(dot);
      conv && flat.m <= kFewConvRows && flat.n >= 2 * kColumnQuantum &&
      flat.k > 0) {
    // Few rows, many features (ResNet's 14x14 and 7x7 stages): a unit
    // takes all the rows and 64 features, so the weights are packed once
    // in all, and the units split the features. k is one slice where its
    // packed block fits kMaxConvSliceBytes, else the fewest slices of whole
    // taps. (An epilogue's slice is all of k already.)
    const int64_t c = conv->features;
    plan.m_block = flat.m;
    plan.n_block = kColumnQuantum;
    if (!epilogue) {
      const int64_t slices =
          CeilDiv(flat.k * kColumnQuantum * bytes, kMaxConvSliceBytes);
      plan.k_block = c * CeilDiv(conv->taps, std::min(slices, conv->taps));
    }
  }
  plan.units = flat.batch * CeilDiv(flat.m, plan.m_block) *
               CeilDiv(flat.n, plan.n_block);
  // An epilogue writes each element once, as its tile is done.
  if (epilogue && streams) plan.store = StoreKind::kStreaming;
  return plan;
}

absl::StatusOr<FusionPlan> PlanFusion(const HloInstruction& fusion,
                                      const FusionPlanningOptions& options) {
  RET_CHECK(fusion.opcode() == HloOpcode::kFusion && fusion.to_apply());
  const HloComputation& fused = *fusion.to_apply();
  const HloInstruction& root = *fused.root_instruction();
  if (const HloInstruction* dot = FusedDot(fused)) {
    return FusionPlan{PlanDot(*dot, dot != &root, Streams(fusion, options))};
  }
  absl::StatusOr<RowFusion> rows = AnalyzeRowFusion(fused);
  if (const HloInstruction* dot = RowDot(fused)) {
    if (!RowDotFits(fused)) {
      return Unplannable(fusion, "has a dot read by reduces but no row dot "
                                 "plan fits (rows over the dot's columns "
                                 "within a unit's block)");
    }
    return FusionPlan{PlanRowDot(*dot, MakeRowPlan(fusion, *rows, options))};
  }
  if (rows.ok()) return FusionPlan{MakeRowPlan(fusion, *rows, options)};
  const std::vector<const HloInstruction*> reduces = ReducesInPostOrder(fused);
  if (root.opcode() == HloOpcode::kReduce && reduces.size() == 1) {
    return FusionPlan{PlanReduction(root, options)};
  }
  if (!reduces.empty()) {
    return Unplannable(fusion, absl::StrCat("has reduces but no plan fits: ",
                                            rows.status().message()));
  }
  if (fusion.shape().IsTuple()) {
    return Unplannable(fusion, "is a loop fusion with a tuple result; only a "
                               "variadic reduce may return several");
  }
  return FusionPlan{MakeLoopPlan(fusion, options)};
}

absl::StatusOr<bool> FusionPlanningPass::Run(HloModule& module) {
  HloComputation* entry = module.entry_computation();
  RET_CHECK(entry != nullptr);
  bool changed = false;
  for (HloInstruction* instruction : entry->MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    if (instruction->fusion_plan() != nullptr) {
      absl::Status kept = CheckExistingPlan(
          *instruction, *instruction->fusion_plan(), options_);
      if (!kept.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "fusion-planning: the plan of fusion '", instruction->name(),
            "' does not fit it: ", kept.message()));
      }
      continue;
    }
    ASSIGN_OR_RETURN(FusionPlan plan, PlanFusion(*instruction, options_));
    instruction->set_fusion_plan(std::move(plan));
    changed = true;
  }
  return changed;
}

}  // namespace mxla
