// CheckFusionPlan (ir/fusion_plan.h): a plan must fit its fusion, because
// codegen trusts it (units index the buffers it writes).
#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/conv_product.h"
#include "ir/flat_dot.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_computation.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

absl::Status PlanError(const FusionPlan& plan, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(plan.kind_name(), " plan ", plan.ToString(), ": ", why));
}

std::string Dims(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t product = 1;
  for (int64_t size : dims) product *= size;
  return product;
}

// For a >= 0, b >= 1, without overflow.
int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

absl::Status CheckLoop(const FusionPlan& plan, const LoopPlan& loop,
                       const HloInstruction& root,
                       const std::vector<const HloInstruction*>& reduces) {
  if (!reduces.empty()) {
    return PlanError(plan, absl::StrCat("the fused computation has reduce '",
                                        reduces[0]->name(), "'"));
  }
  const Shape& shape = root.shape();
  if (shape.IsTuple()) return PlanError(plan, "the fusion returns a tuple");
  if (shape.rank() == 0 && !loop.one_unit) {
    return PlanError(plan, "a scalar result is one unit (one_unit=true)");
  }
  if (loop.store == StoreKind::kStreaming &&
      (loop.one_unit || shape.element_type() == PRED)) {
    return PlanError(plan,
                     "streaming stores need a split (not one unit) non-pred "
                     "array result");
  }
  return absl::OkStatus();
}

// The numbers the reduce's shapes imply (see PlanReduction in
// passes/fusion_planning.h for how they are chosen).
absl::Status CheckReduction(const FusionPlan& plan, const ReductionPlan& r,
                            const HloInstruction& reduce) {
  absl::Span<const int64_t> dims = reduce.operand(0)->shape().dimensions();
  const int64_t rank = dims.size();
  std::vector<int64_t> kept;
  int64_t reduced = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const std::vector<int64_t>& rd = reduce.dimensions();
    if (std::find(rd.begin(), rd.end(), d) == rd.end()) {
      kept.push_back(dims[d]);
    } else {
      reduced *= dims[d];
    }
  }
  const int64_t outputs = Product(kept);
  const bool keeps_last = rank > 0 && !kept.empty() &&
                          std::find(reduce.dimensions().begin(),
                                    reduce.dimensions().end(),
                                    rank - 1) == reduce.dimensions().end();
  if (outputs == 0) {
    if (r == ReductionPlan{}) return absl::OkStatus();
    return PlanError(plan, "an empty result has no units");
  }
  if (keeps_last) {
    const int64_t inner = kept.back();
    if (r.column_block < 1 || r.chunks != 0 ||
        r.column_blocks != CeilDiv(inner, r.column_block) ||
        r.units != outputs / inner * r.column_blocks) {
      return PlanError(
          plan, absl::StrCat("a reduce keeping its last dimension (",
                             inner, " columns, ", outputs / inner,
                             " rows) needs column_block >= 1, column_blocks ="
                             " ceil(columns / column_block), units = rows * "
                             "column_blocks and no chunks"));
    }
    return absl::OkStatus();
  }
  if (r.column_block != 0 || r.column_blocks != 1) {
    return PlanError(plan, "only a reduce keeping its last dimension has "
                           "column blocks");
  }
  if (r.chunks == 0) {
    if (r.units == outputs && r.scratch_bytes == 0 && r.chunk_elements == 0) {
      return absl::OkStatus();
    }
    return PlanError(plan, absl::StrCat("units must be the ", outputs,
                                        " outputs, without scratch"));
  }
  const int64_t width = primitive_util::ByteWidth(reduce.shape().element_type());
  if (reduce.operand_count() != 2 || r.chunk_elements < 1 ||
      r.chunks != CeilDiv(reduced, r.chunk_elements) ||
      r.units != outputs * r.chunks || r.scratch_bytes != r.units * width) {
    return PlanError(
        plan, absl::StrCat("partial results need one input, chunks = "
                           "ceil(reduced elements (", reduced,
                           ") / chunk_elements), units = outputs (", outputs,
                           ") * chunks and scratch_bytes = units * ", width));
  }
  return absl::OkStatus();
}

absl::Status CheckRowReduces(const FusionPlan& plan, const RowPlan& row,
                             const std::vector<const HloInstruction*>& reduces,
                             const std::vector<int64_t>& full) {
  const int64_t row_rank = row.row_dimensions.size();
  for (const HloInstruction* reduce : reduces) {
    std::vector<int64_t> reduced = reduce->dimensions();
    std::sort(reduced.begin(), reduced.end());
    std::vector<int64_t> trailing(row.column_dimensions.size());
    for (size_t i = 0; i < trailing.size(); ++i) trailing[i] = row_rank + i;
    absl::Span<const int64_t> operand = reduce->operand(0)->shape().dimensions();
    if (reduce->operand_count() != 2 || reduced != trailing ||
        !std::equal(operand.begin(), operand.end(), full.begin(),
                    full.end())) {
      return PlanError(plan, absl::StrCat("reduce '", reduce->name(),
                                          "' does not reduce the columns of "
                                          "one operand of dimensions ",
                                          Dims(full)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRow(const FusionPlan& plan, const RowPlan& row,
                      const HloComputation& fused,
                      const std::vector<const HloInstruction*>& reduces) {
  if (row.row_dimensions.empty() || row.column_dimensions.empty() ||
      reduces.empty()) {
    return PlanError(plan, "a row fusion needs rows, columns and a reduce");
  }
  std::vector<int64_t> full = row.row_dimensions;
  full.insert(full.end(), row.column_dimensions.begin(),
              row.column_dimensions.end());
  RETURN_IF_ERROR(CheckRowReduces(plan, row, reduces, full));
  const Shape& root = fused.root_instruction()->shape();
  const bool full_root = !root.IsTuple() && root.dimensions() == full;
  if (root.IsTuple() || (!full_root && root.dimensions() != row.row_dimensions)) {
    return PlanError(plan, absl::StrCat("the root has shape ", root.ToString(),
                                        ", neither rows nor rows of columns"));
  }
  if (row.store == StoreKind::kStreaming &&
      (!full_root || root.element_type() == PRED)) {
    return PlanError(plan, "streaming stores need a full-row non-pred root");
  }
  absl::flat_hash_set<std::string> seen;
  for (const BufferedValue& value : row.buffered) {
    const HloInstruction* found = nullptr;
    for (const HloInstruction* instruction : fused.instructions()) {
      if (instruction->name() == value.name) found = instruction;
    }
    if (found == nullptr) {
      return PlanError(plan, absl::StrCat("buffered value '", value.name,
                                          "' is not in ", fused.name()));
    }
    if (!seen.insert(value.name).second ||
        found->shape().IsTuple() || found->shape().dimensions() != full ||
        value.writer > static_cast<int64_t>(reduces.size())) {
      return PlanError(
          plan, absl::StrCat("buffered value '", value.name,
                             "' must be listed once, have dimensions ",
                             Dims(full), " and a writer phase 0..",
                             reduces.size()));
    }
  }
  return absl::OkStatus();
}

// A depthwise kernel reads its input in place and takes all taps and all
// features of its rows in each unit; a convolution's kernel reads its input
// rows in place, a tap's features at a time, through an input pad if there
// is one.
absl::Status CheckConvolutionInput(const FusionPlan& plan, const DotPlan& dot,
                                   const HloInstruction& root,
                                   const FlatDot& flat) {
  if (IsDepthwiseProduct(root)) {
    if (root.operand(0)->opcode() != HloOpcode::kParameter) {
      return PlanError(plan, "a depthwise convolution's input must be a "
                             "parameter of the fused computation");
    }
    if (dot.k_block != flat.k || dot.n_block != flat.n || dot.rows) {
      return PlanError(plan, absl::StrCat("a depthwise convolution's unit "
                                          "takes all its ",
                                          flat.k, " taps and ", flat.n,
                                          " features: k_block and n_block "
                                          "must be those"));
    }
  }
  if (std::optional<ConvProduct> conv = AsConvProduct(root)) {
    const HloInstruction& input = IsConvolutionInputPad(*root.operand(0), root)
                                      ? *root.operand(0)->operand(0)
                                      : *root.operand(0);
    if (input.opcode() != HloOpcode::kParameter ||
        conv->dnums.input_feature != input.shape().rank() - 1) {
      return PlanError(plan, "a convolution's input must be a parameter of "
                             "the fused computation (or a zero pad of one) "
                             "with its features minor");
    }
    if (dot.k_block % conv->features != 0) {
      return PlanError(plan, absl::StrCat("a convolution's k_block must hold "
                                          "whole taps: a multiple of its ",
                                          conv->features, " input features"));
    }
  }
  return absl::OkStatus();
}

// A row dot: its row plan, its columns the dot's rhs-free dimensions, and
// units of whole rows whose block fits a unit's budget.
absl::Status CheckRowDot(const FusionPlan& plan, const DotPlan& dot,
                         const HloInstruction& root, const FlatDot& flat,
                         const HloComputation& fused,
                         const std::vector<const HloInstruction*>& reduces) {
  RETURN_IF_ERROR(CheckRow(plan, *dot.rows, fused, reduces));
  absl::Span<const int64_t> dims = root.shape().dimensions();
  const size_t columns = flat.rhs_free.size();
  if (dot.rows->column_dimensions.size() != columns ||
      !std::equal(dot.rows->column_dimensions.begin(),
                  dot.rows->column_dimensions.end(), dims.end() - columns)) {
    return PlanError(plan, absl::StrCat("the columns must be the dot's "
                                        "rhs-free dimensions ",
                                        Dims(dims.subspan(dims.size() -
                                                          columns))));
  }
  // Rows without columns have nothing to accumulate; their reductions
  // are left to kernels of their own.
  if (flat.n == 0) {
    return PlanError(plan, "a row dot needs columns: the dot's n is 0");
  }
  if (dot.n_block != std::max<int64_t>(1, flat.n)) {
    return PlanError(plan, absl::StrCat("a row dot's unit has whole rows: "
                                        "n_block must be ",
                                        std::max<int64_t>(1, flat.n)));
  }
  if (dot.row_block < 1 || dot.row_block > dot.m_block) {
    return PlanError(plan, "row_block must be 1 to m_block");
  }
  const int64_t block_bytes =
      dot.row_block * flat.n *
      primitive_util::ByteWidth(root.shape().element_type());
  if (block_bytes > kMaxRowDotBlockBytes) {
    return PlanError(plan, absl::StrCat("row_block x n is ", block_bytes,
                                        " bytes, over the ",
                                        kMaxRowDotBlockBytes,
                                        " of a unit's block"));
  }
  return absl::OkStatus();
}

// A dot with an epilogue (a root after it) needs all of k in one slice; a
// dot alone cannot stream its stores.
absl::Status CheckEpilogue(const FusionPlan& plan, const DotPlan& dot,
                           const HloInstruction& root, const FlatDot& flat,
                           const HloComputation& fused) {
  if (&root != fused.root_instruction() && dot.k_block < flat.k) {
    return PlanError(plan, absl::StrCat("an epilogue needs all of k in one "
                                        "slice: k_block at least ",
                                        flat.k));
  }
  if (&root == fused.root_instruction() &&
      dot.store == StoreKind::kStreaming) {
    return PlanError(plan, "store=streaming needs an epilogue (a root after "
                           "the dot): a dot alone keeps its tiles in place "
                           "across k slices");
  }
  return absl::OkStatus();
}

// A dot of f32 or f64 operands and result (alone, or with an epilogue up
// to the root, which then needs all of k in one slice; or a row dot, whose
// units are whole rows of the dot within the stack budget), and the units
// its blocks imply.
absl::Status CheckDot(const FusionPlan& plan, const DotPlan& dot,
                      const HloComputation& fused,
                      const std::vector<const HloInstruction*>& reduces) {
  const HloInstruction* found =
      dot.rows ? RowDot(fused) : FusedDot(fused);
  if (found == nullptr) {
    return PlanError(
        plan, dot.rows ? "a row dot needs one f32 or f64 dot, with no reduce "
                         "among its producers, read only through elementwise "
                         "ops of its dimensions by reduces or the root"
                       : "the root must be a dot, or a chain of elementwise "
                         "ops of its dimensions over one");
  }
  const HloInstruction& root = *found;
  const PrimitiveType type = root.shape().element_type();
  if ((type != F32 && type != F64) ||
      root.operand(0)->shape().element_type() != type ||
      root.operand(1)->shape().element_type() != type) {
    return PlanError(plan, "the dot's operands and result must all be f32 or "
                           "all f64");
  }
  if (dot.m_block < 1 || dot.n_block < 1 || dot.k_block < 1) {
    return PlanError(plan, "blocks must be at least 1");
  }
  const FlatDot flat = FlattenProduct(root);
  RETURN_IF_ERROR(CheckConvolutionInput(plan, dot, root, flat));
  // Packing buffers live on the kernel's stack: rhs k_block x n_block, lhs
  // k_block x at most 144 rows (codegen/gemm_emitter.h).
  const int64_t bytes = primitive_util::ByteWidth(type);
  if (dot.k_block * (dot.n_block + 144) * bytes > kMaxDotPackedBytes) {
    return PlanError(plan, absl::StrCat("k_block x (n_block + 144) elements "
                                        "of packed operands pass the ",
                                        kMaxDotPackedBytes,
                                        " bytes of a kernel's stack"));
  }
  RETURN_IF_ERROR(dot.rows
                      ? CheckRowDot(plan, dot, root, flat, fused, reduces)
                      : CheckEpilogue(plan, dot, root, flat, fused));
  const int64_t units = flat.batch * CeilDiv(flat.m, dot.m_block) *
                        CeilDiv(flat.n, dot.n_block);
  if (dot.units != units) {
    return PlanError(plan, absl::StrCat("units must be ", units, " (batch ",
                                        flat.batch, " x m blocks x n blocks)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckFusionPlan(const FusionPlan& plan,
                             const HloInstruction& fusion) {
  RET_CHECK(fusion.opcode() == HloOpcode::kFusion && fusion.to_apply());
  const HloComputation& fused = *fusion.to_apply();
  const HloInstruction& root = *fused.root_instruction();
  std::vector<const HloInstruction*> reduces = ReducesInPostOrder(fused);
  for (const HloInstruction* reduce : reduces) {
    if (reduce->operand_count() < 2) {  // the verifier reports it
      return PlanError(plan, absl::StrCat("reduce '", reduce->name(),
                                          "' has no operands"));
    }
  }
  if (const auto* loop = std::get_if<LoopPlan>(&plan.config)) {
    return CheckLoop(plan, *loop, root, reduces);
  }
  if (const auto* dot = std::get_if<DotPlan>(&plan.config)) {
    return CheckDot(plan, *dot, fused, reduces);
  }
  if (const auto* reduction = std::get_if<ReductionPlan>(&plan.config)) {
    if (root.opcode() != HloOpcode::kReduce || reduces.size() != 1) {
      return PlanError(plan, "the root must be the only reduce");
    }
    return CheckReduction(plan, *reduction, root);
  }
  return CheckRow(plan, std::get<RowPlan>(plan.config), fused, reduces);
}

}  // namespace mxla
