#include "codegen/gemv_emitter.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "codegen/gemm_emitter.h"
#include "codegen/llvm_pipeline.h"
#include "codegen/llvm_types.h"
#include "codegen/loop_emitter.h"
#include "codegen/prefetch.h"
#include "ir/conv_product.h"
#include "ir/flat_dot.h"
#include "ir/status_macros.h"
#include "llvm/IR/Intrinsics.h"

namespace mxla::codegen {
namespace {

// n contiguous: the accumulators of one lhs row span at most this many
// bytes (half as many beyond 2 rows), in L2; a unit group spans about as
// many columns. Rows this long stream as the hardware prefetchers like
// them: a thread's 64 KiB of a [2304, 32000] rhs took 1.4x the CPU time of
// the same bytes read k-contiguous, 4 KiB blocks 2.2x.
constexpr int64_t kBlockRowBytes = 64 << 10;
// n contiguous: rows of rhs each accumulator load and store takes (2 to 8
// were alike, 1 slower: a row's fma per load and store).
constexpr int64_t kPassRows = 4;
// k contiguous: rows of rhs whose dot products run together.
constexpr int64_t kDotRows = 4;
// The lhs rows of a batch element live on the stack; at most this many
// bytes of them.
constexpr int64_t kMaxLhsBytes = 512 << 10;
// How far ahead of its loads a k-contiguous row is prefetched; and, where
// an n-contiguous run of rhs is shorter than kShortRunBytes (attention's
// heads: rows of 1 KiB, each in another page), about how many bytes of
// rows ahead a block's rows are (longer runs the hardware finds alone).
constexpr int64_t kDotRowPrefetchBytes = 1024;
constexpr int64_t kShortRunBytes = 4096;
constexpr int64_t kBlockPrefetchBytes = 8192;

int64_t CeilDivInt(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * shape.dimensions(d + 1);
  }
  return strides;
}

// Exact float widenings, the only converts read through.
bool Widens(PrimitiveType from, PrimitiveType to) {
  if (from == to) return true;
  if (from == BF16 || from == F16) return to == F32 || to == F64;
  return from == F32 && to == F64;
}

// Where rhs's elements live: element i of the view is element
// sum(i[d] * strides[d]) of parameter `parameter` (of element type
// `type`), widened.
struct RhsView {
  int64_t parameter = -1;
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> strides;  // per dimension of the viewing instruction
};

std::optional<RhsView> ParameterView(const HloInstruction& parameter) {
  const PrimitiveType type = parameter.shape().element_type();
  if (type != F32 && type != F64 && type != BF16 && type != F16) {
    return std::nullopt;
  }
  return RhsView{parameter.parameter_number(), type,
                 RowMajorStrides(parameter.shape())};
}

// The view of a transpose (`permutation`) of `view`.
std::optional<RhsView> Transposed(std::optional<RhsView> view,
                                  const std::vector<int64_t>& permutation) {
  if (!view) return std::nullopt;
  std::vector<int64_t> strides;
  for (int64_t d : permutation) strides.push_back(view->strides[d]);
  view->strides = std::move(strides);
  return view;
}

// The view of a broadcast of `view` into `rank` dimensions, its own at
// `dims`: the new ones repeat (stride 0).
std::optional<RhsView> Broadcast(std::optional<RhsView> view,
                                 const std::vector<int64_t>& dims,
                                 int64_t rank) {
  if (!view) return std::nullopt;
  std::vector<int64_t> strides(rank, 0);
  for (size_t j = 0; j < dims.size(); ++j) strides[dims[j]] = view->strides[j];
  view->strides = std::move(strides);
  return view;
}

// The view of a reshape of `view` (of shape `operand`) into `shape`: a
// contiguous view reshapes row-major; any other only inserts or removes
// size-1 dimensions.
std::optional<RhsView> Reshaped(std::optional<RhsView> view,
                                const Shape& operand, const Shape& shape) {
  if (!view) return std::nullopt;
  if (view->strides == RowMajorStrides(operand)) {
    view->strides = RowMajorStrides(shape);
    return view;
  }
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (operand.dimensions(d) != 1) kept.push_back(d);
  }
  std::vector<int64_t> strides(shape.rank(), 0);
  size_t next = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(d) == 1) continue;
    if (next == kept.size() ||
        operand.dimensions(kept[next]) != shape.dimensions(d)) {
      return std::nullopt;
    }
    strides[d] = view->strides[kept[next++]];
  }
  if (next != kept.size()) return std::nullopt;
  view->strides = std::move(strides);
  return view;
}

std::optional<RhsView> ViewOf(const HloInstruction& instruction) {
  const Shape& shape = instruction.shape();
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
      return ParameterView(instruction);
    case HloOpcode::kConvert:
    case HloOpcode::kCopy:
      if (!Widens(instruction.operand(0)->shape().element_type(),
                  shape.element_type())) {
        return std::nullopt;
      }
      return ViewOf(*instruction.operand(0));
    case HloOpcode::kTranspose:
      return Transposed(ViewOf(*instruction.operand(0)),
                        instruction.dimensions());
    case HloOpcode::kBroadcast:
      return Broadcast(ViewOf(*instruction.operand(0)),
                       instruction.dimensions(), shape.rank());
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      const Shape& operand = instruction.operand(0)->shape();
      if (operand.element_type() != shape.element_type()) return std::nullopt;
      return Reshaped(ViewOf(*instruction.operand(0)), operand, shape);
    }
    default:
      return std::nullopt;
  }
}

// A dimension group (flattened row-major) as runs of equal stride: size-1
// dimensions dropped, neighbours merged where the outer one's stride is
// the inner one's run.
struct Run {
  int64_t size;
  int64_t stride;
};
std::vector<Run> Collapse(const Shape& shape, const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& strides) {
  std::vector<Run> runs;
  for (int64_t d : dims) {
    const int64_t size = shape.dimensions(d);
    if (size == 1) continue;
    if (!runs.empty() && runs.back().stride == strides[d] * size) {
      runs.back() = Run{runs.back().size * size, strides[d]};
    } else {
      runs.push_back(Run{size, strides[d]});
    }
  }
  return runs;
}

enum class Layout { kKContiguous, kNContiguous };

// What the kernel needs of a dot it takes.
struct GemvForm {
  FlatDot flat;
  RhsView view;
  std::vector<Run> batch, free, contracting;
  Layout layout;
};

std::optional<GemvForm> FormOf(const HloInstruction& dot,
                               const DotPlan& plan) {
  if (plan.rows || AsConvProduct(dot)) return std::nullopt;
  const PrimitiveType type = dot.shape().element_type();
  if (type != F32 && type != F64) return std::nullopt;
  GemvForm form{FlattenProduct(dot)};
  const FlatDot& flat = form.flat;
  // A tiny product in one k slice of more than 4 rows keeps the dot
  // kernel's small path (kSmallDotWork): [8,8] @ [8,8] took 35 ns there
  // and 65 ns here. (Up to 4 rows, as before 8 rows could stream, tiny
  // products stay here.)
  const bool tiny = flat.m > 4 && flat.m * flat.n * flat.k <= kSmallDotWork &&
                    plan.k_block >= flat.k;
  if (tiny || flat.m < 1 || flat.m > kGemvMaxRows || plan.m_block < flat.m ||
      flat.n < 1 || flat.k < 1 || flat.batch < 1 ||
      flat.m * CeilDivInt(flat.k, 16) * 16 * primitive_util::ByteWidth(type) >
          kMaxLhsBytes) {
    return std::nullopt;
  }
  std::optional<RhsView> view = ViewOf(*dot.operand(1));
  if (!view || !Widens(view->type, type)) return std::nullopt;
  form.view = *std::move(view);
  const Shape& rhs = dot.operand(1)->shape();
  form.batch = Collapse(rhs, flat.dnums.rhs_batch, form.view.strides);
  form.free = Collapse(rhs, flat.rhs_free, form.view.strides);
  form.contracting =
      Collapse(rhs, flat.dnums.rhs_contracting, form.view.strides);
  if (form.contracting.size() == 1 && form.contracting[0].stride == 1) {
    form.layout = Layout::kKContiguous;
  } else if (!form.free.empty() && form.free.back().stride == 1) {
    form.layout = Layout::kNContiguous;
  } else if (form.contracting.empty()) {  // k = 1
    form.layout = Layout::kKContiguous;
  } else {
    return std::nullopt;
  }
  return form;
}

class GemvEmitter {
 public:
  GemvEmitter(llvm::IRBuilder<>& b, const HloComputation& fused,
              const HloInstruction& dot, const DotPlan& plan,
              ElementalEmitter& elements, llvm::Value* result, GemvForm form)
      : b_(b),
        root_(*fused.root_instruction()),
        dot_(dot),
        plan_(plan),
        elements_(elements),
        result_(result),
        form_(std::move(form)),
        flat_(form_.flat),
        type_(dot.shape().element_type()),
        bytes_(primitive_util::ByteWidth(type_)),
        lanes_(HostVectorBytes() / bytes_),
        k_padded_(CeilDivInt(flat_.k, lanes_) * lanes_),
        element_type_(RegisterType(type_, b.getContext())),
        vector_type_(llvm::FixedVectorType::get(element_type_, lanes_)),
        weight_bytes_(primitive_util::ByteWidth(form_.view.type)),
        weight_type_(llvm::FixedVectorType::get(
            MemoryType(form_.view.type, b.getContext()), lanes_)) {}

  absl::Status Emit(llvm::Value* begin, llvm::Value* end);

 private:
  llvm::Value* I64(int64_t value) { return b_.getInt64(value); }
  llvm::Value* Min(llvm::Value* x, llvm::Value* y) {
    return b_.CreateSelect(b_.CreateICmpSLT(x, y), x, y);
  }
  llvm::Value* Max(llvm::Value* x, llvm::Value* y) {
    return b_.CreateSelect(b_.CreateICmpSLT(x, y), y, x);
  }
  llvm::Value* At(llvm::Value* buffer, llvm::Value* index) {
    return b_.CreateInBoundsGEP(element_type_, buffer, index);
  }
  llvm::Value* EntryArray(llvm::Type* type, int64_t count, const char* name);
  // sum(index[i] * stride[i]) of `linear` delinearized over the runs.
  llvm::Value* Offset(const std::vector<Run>& runs, llvm::Value* linear);
  // Generates the lhs rows of `batch` into lhs_ unless they are there.
  absl::Status EnsureLhs(llvm::Value* batch);
  // The vector of rhs at element `offset` of its parameter, widened to the
  // dot's type; lanes off `mask` read as 0.
  llvm::Value* LoadWeights(llvm::Value* offset, llvm::Value* mask = nullptr);
  // The lanes below `count` (a runtime value).
  llvm::Value* LaneMask(llvm::Value* count);
  void Prefetch(llvm::Value* offset);
  // k contiguous: the outputs of columns [n0, n1), `rows` columns at a time.
  absl::Status EmitDotRows(llvm::Value* batch, llvm::Value* n0,
                           llvm::Value* n1);
  absl::Status EmitDotRowGroup(llvm::Value* batch, llvm::Value* n,
                               int64_t rows);
  // n contiguous: columns [n0, n1) in blocks within one contiguous run.
  absl::Status EmitBlocks(llvm::Value* batch, llvm::Value* n0,
                          llvm::Value* n1);
  absl::Status EmitBlock(llvm::Value* batch, llvm::Value* c0,
                         llvm::Value* width);
  // How EmitBlock walks a block of `width` columns: whole vectors, then a
  // tail of columns; rhs's offset of the block's first column at k = 0;
  // and, for short rows, how many rows ahead and how many lines of each
  // it prefetches.
  struct BlockWalk {
    llvm::Value* vectors;
    llvm::Value* tail;
    llvm::Value* base;
    llvm::Value* lines;
    bool prefetch;
    int64_t ahead;
  };
  // The accumulator of lhs row i at `column` of the block.
  llvm::Value* BlockAt(int64_t i, llvm::Value* column);
  llvm::Align BlockAlign() const { return llvm::Align(lanes_ * bytes_); }
  // Rows [k, k + rows) of rhs at a time: each accumulator vector is
  // loaded once, takes their fmas in ascending k, and is stored once.
  absl::Status EmitBlockPass(const BlockWalk& walk, llvm::Value* k,
                             int64_t rows);
  // Asks for rhs row k + r's lines walk.ahead rows ahead (the last row
  // at most).
  absl::Status PrefetchRowAhead(const BlockWalk& walk, llvm::Value* k,
                                int64_t r);
  // One vector of columns from `column` (lanes under `mask` only) of the
  // pass's rows (their rhs offsets `row`, the lhs broadcasts x[i][r]).
  void BlockStep(const std::vector<llvm::Value*>& row,
                 const std::vector<std::vector<llvm::Value*>>& x,
                 llvm::Value* column, llvm::Value* mask);
  // Adds the lanes of `vector` in a fixed halving tree.
  llvm::Value* ReduceLanes(llvm::Value* vector);
  absl::Status StoreOutput(llvm::Value* batch, llvm::Value* row,
                           llvm::Value* column, llvm::Value* sum);

  llvm::IRBuilder<>& b_;
  const HloInstruction& root_;
  const HloInstruction& dot_;
  const DotPlan& plan_;
  ElementalEmitter& elements_;
  llvm::Value* result_;
  const GemvForm form_;
  const FlatDot& flat_;
  const PrimitiveType type_;
  const int64_t bytes_;
  const int64_t lanes_;
  const int64_t k_padded_;  // a lhs row in lhs_: k, zero-padded to vectors
  llvm::Type* element_type_;
  llvm::FixedVectorType* vector_type_;
  const int64_t weight_bytes_;
  llvm::FixedVectorType* weight_type_;  // a vector of rhs in memory
  llvm::Value* lhs_ = nullptr;
  llvm::Value* lhs_batch_ = nullptr;  // whose rows lhs_ holds (-1: none)
  llvm::Value* weights_ = nullptr;    // rhs's parameter
  std::vector<llvm::Value*> dot_accumulators_;
  llvm::Value* block_ = nullptr;  // n contiguous: the accumulators
  int64_t block_columns_ = 0;
};

llvm::Value* GemvEmitter::EntryArray(llvm::Type* type, int64_t count,
                                     const char* name) {
  llvm::IRBuilder<>::InsertPointGuard guard(b_);
  llvm::BasicBlock& entry = b_.GetInsertBlock()->getParent()->getEntryBlock();
  b_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* array = b_.CreateAlloca(type, I64(count), name);
  array->setAlignment(llvm::Align(64));
  return array;
}

llvm::Value* GemvEmitter::Offset(const std::vector<Run>& runs,
                                 llvm::Value* linear) {
  if (runs.empty()) return I64(0);
  std::vector<int64_t> sizes;
  for (const Run& run : runs) sizes.push_back(run.size);
  IrIndex index = ElementalEmitter::Delinearize(b_, sizes, linear);
  llvm::Value* offset = I64(0);
  for (size_t i = 0; i < runs.size(); ++i) {
    offset = b_.CreateAdd(offset, b_.CreateMul(index[i], I64(runs[i].stride)));
  }
  return offset;
}

absl::Status GemvEmitter::EnsureLhs(llvm::Value* batch) {
  llvm::Value* held = b_.CreateLoad(b_.getInt64Ty(), lhs_batch_);
  return EmitIf(b_, b_.CreateICmpNE(held, batch), [&]() -> absl::Status {
    b_.CreateStore(batch, lhs_batch_);
    const Shape& lhs = dot_.operand(0)->shape();
    auto sizes = [&](const std::vector<int64_t>& dims) {
      std::vector<int64_t> result;
      for (int64_t d : dims) result.push_back(lhs.dimensions(d));
      return result;
    };
    IrIndex index(lhs.rank(), nullptr);
    auto scatter = [&](const std::vector<int64_t>& dims, llvm::Value* linear) {
      IrIndex parts = ElementalEmitter::Delinearize(b_, sizes(dims), linear);
      for (size_t i = 0; i < dims.size(); ++i) index[dims[i]] = parts[i];
    };
    scatter(flat_.dnums.lhs_batch, batch);
    return EmitForLoop(b_, I64(0), I64(flat_.m), "gemv_lhs_row",
                       [&](llvm::Value* row) -> absl::Status {
      scatter(flat_.lhs_free, row);
      llvm::Value* first = b_.CreateMul(row, I64(k_padded_));
      RETURN_IF_ERROR(EmitForLoop(b_, I64(0), I64(flat_.k), "gemv_lhs_k",
                                  [&](llvm::Value* k) -> absl::Status {
        scatter(flat_.dnums.lhs_contracting, k);
        elements_.ClearCache();
        ASSIGN_OR_RETURN(llvm::Value * x,
                         elements_.Generate(*dot_.operand(0), index));
        b_.CreateStore(x, At(lhs_, b_.CreateAdd(first, k)));
        return absl::OkStatus();
      }));
      elements_.ClearCache();
      // The padding multiplies masked-off weights (zeros).
      return EmitForLoop(b_, I64(flat_.k), I64(k_padded_), "gemv_lhs_pad",
                         [&](llvm::Value* k) {
        b_.CreateStore(llvm::ConstantFP::get(element_type_, 0.0),
                       At(lhs_, b_.CreateAdd(first, k)));
        return absl::OkStatus();
      }, LoopHints::kKeepAsWritten);
    });
  });
}

llvm::Value* GemvEmitter::LoadWeights(llvm::Value* offset, llvm::Value* mask) {
  llvm::Value* address =
      b_.CreateInBoundsGEP(weight_type_->getElementType(), weights_, offset);
  const llvm::Align align(weight_bytes_);
  llvm::Value* memory;
  if (mask == nullptr) {
    memory = b_.CreateAlignedLoad(weight_type_, address, align);
  } else {
    memory = b_.CreateMaskedLoad(weight_type_, address, align, mask,
                                 llvm::Constant::getNullValue(weight_type_));
  }
  llvm::Value* value = FromMemory(b_, form_.view.type, memory);
  if (value->getType() != vector_type_) {
    value = b_.CreateFPExt(value, vector_type_);  // exact
  }
  return value;
}

llvm::Value* GemvEmitter::LaneMask(llvm::Value* count) {
  std::vector<llvm::Constant*> lanes;
  for (int64_t l = 0; l < lanes_; ++l) lanes.push_back(b_.getInt64(l));
  return b_.CreateICmpULT(llvm::ConstantVector::get(lanes),
                          b_.CreateVectorSplat(lanes_, count));
}

void GemvEmitter::Prefetch(llvm::Value* offset) {
  EmitPrefetch(b_,
               b_.CreateGEP(weight_type_->getElementType(), weights_, offset),
               /*locality=*/0);
}

llvm::Value* GemvEmitter::ReduceLanes(llvm::Value* vector) {
  for (int64_t width = lanes_; width > 1; width /= 2) {
    std::vector<int> low, high;
    for (int i = 0; i < width / 2; ++i) {
      low.push_back(i);
      high.push_back(i + width / 2);
    }
    vector = b_.CreateFAdd(b_.CreateShuffleVector(vector, low),
                           b_.CreateShuffleVector(vector, high));
  }
  return b_.CreateExtractElement(vector, uint64_t{0});
}

absl::Status GemvEmitter::StoreOutput(llvm::Value* batch, llvm::Value* row,
                                      llvm::Value* column, llvm::Value* sum) {
  llvm::Value* linear = b_.CreateAdd(
      b_.CreateMul(b_.CreateAdd(b_.CreateMul(batch, I64(flat_.m)), row),
                   I64(flat_.n)),
      column);
  if (&root_ == &dot_) {
    b_.CreateStore(sum, At(result_, linear));
    return absl::OkStatus();
  }
  // The epilogue at the output's index: batch, lhs-free, rhs-free groups.
  const Shape& lhs = dot_.operand(0)->shape();
  const Shape& rhs = dot_.operand(1)->shape();
  IrIndex index;
  auto append = [&](const Shape& shape, const std::vector<int64_t>& dims,
                    llvm::Value* part) {
    std::vector<int64_t> sizes;
    for (int64_t d : dims) sizes.push_back(shape.dimensions(d));
    for (llvm::Value* i : ElementalEmitter::Delinearize(b_, sizes, part)) {
      index.push_back(i);
    }
  };
  append(lhs, flat_.dnums.lhs_batch, batch);
  append(lhs, flat_.lhs_free, row);
  append(rhs, flat_.rhs_free, column);
  elements_.ClearCache();
  elements_.Bind(dot_, [&](const IrIndex&) { return sum; });
  absl::StatusOr<llvm::Value*> value = elements_.Generate(root_, index);
  elements_.Unbind(dot_);
  elements_.ClearCache();
  if (!value.ok()) return value.status();
  StoreElement(b_, root_.shape().element_type(), result_, linear, *value);
  return absl::OkStatus();
}

absl::Status GemvEmitter::EmitDotRowGroup(llvm::Value* batch, llvm::Value* n,
                                          int64_t rows) {
  const int64_t m = flat_.m;
  std::vector<llvm::Value*> row_start;
  llvm::Value* base = Offset(form_.batch, batch);
  for (int64_t j = 0; j < rows; ++j) {
    row_start.push_back(b_.CreateAdd(
        base, Offset(form_.free, b_.CreateAdd(n, I64(j)))));
  }
  auto acc = [&](int64_t i, int64_t j) {
    return dot_accumulators_[i * kDotRows + j];
  };
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < rows; ++j) {
      b_.CreateStore(llvm::Constant::getNullValue(vector_type_), acc(i, j));
    }
  }
  // One step: lanes [k, k + lanes) of each row, masked past k's end.
  auto step = [&](llvm::Value* k, llvm::Value* mask) {
    std::vector<llvm::Value*> x;
    for (int64_t i = 0; i < m; ++i) {
      x.push_back(b_.CreateAlignedLoad(
          vector_type_, At(lhs_, b_.CreateAdd(I64(i * k_padded_), k)),
          llvm::Align(lanes_ * bytes_)));
    }
    for (int64_t j = 0; j < rows; ++j) {
      llvm::Value* at = b_.CreateAdd(row_start[j], k);
      if (mask == nullptr) {
        Prefetch(b_.CreateAdd(at, I64(kDotRowPrefetchBytes / weight_bytes_)));
      }
      llvm::Value* w = LoadWeights(at, mask);
      for (int64_t i = 0; i < m; ++i) {
        b_.CreateStore(
            b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {vector_type_},
                               {x[i], w, b_.CreateLoad(vector_type_, acc(i, j))}),
            acc(i, j));
      }
    }
  };
  const int64_t whole = flat_.k / lanes_;
  RETURN_IF_ERROR(EmitForLoop(b_, I64(0), I64(whole), "gemv_k",
                              [&](llvm::Value* v) {
    step(b_.CreateMul(v, I64(lanes_)), nullptr);
    return absl::OkStatus();
  }, LoopHints::kKeepAsWritten));
  if (flat_.k % lanes_ != 0) {
    step(I64(whole * lanes_), LaneMask(I64(flat_.k % lanes_)));
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < rows; ++j) {
      llvm::Value* sum =
          ReduceLanes(b_.CreateLoad(vector_type_, acc(i, j)));
      RETURN_IF_ERROR(
          StoreOutput(batch, I64(i), b_.CreateAdd(n, I64(j)), sum));
    }
  }
  return absl::OkStatus();
}

absl::Status GemvEmitter::EmitDotRows(llvm::Value* batch, llvm::Value* n0,
                                      llvm::Value* n1) {
  llvm::Value* groups = b_.CreateUDiv(b_.CreateSub(n1, n0), I64(kDotRows));
  RETURN_IF_ERROR(EmitForLoop(b_, I64(0), groups, "gemv_rows",
                              [&](llvm::Value* g) {
    return EmitDotRowGroup(batch, b_.CreateAdd(n0, b_.CreateMul(g, I64(kDotRows))),
                           kDotRows);
  }, LoopHints::kKeepAsWritten));
  return EmitForLoop(b_, b_.CreateAdd(n0, b_.CreateMul(groups, I64(kDotRows))),
                     n1, "gemv_row", [&](llvm::Value* n) {
    return EmitDotRowGroup(batch, n, 1);
  }, LoopHints::kKeepAsWritten);
}

absl::Status GemvEmitter::EmitBlock(llvm::Value* batch, llvm::Value* c0,
                                    llvm::Value* width) {
  BlockWalk walk;
  walk.vectors = b_.CreateUDiv(width, I64(lanes_));
  walk.tail = b_.CreateURem(width, I64(lanes_));
  llvm::Value* all_vectors =
      b_.CreateUDiv(b_.CreateAdd(width, I64(lanes_ - 1)), I64(lanes_));
  RETURN_IF_ERROR(EmitForLoop(
      b_, I64(0), all_vectors, "gemv_zero",
      [&](llvm::Value* v) {
        for (int64_t i = 0; i < flat_.m; ++i) {
          b_.CreateAlignedStore(llvm::Constant::getNullValue(vector_type_),
                                BlockAt(i, b_.CreateMul(v, I64(lanes_))),
                                BlockAlign());
        }
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten));
  walk.base = b_.CreateAdd(Offset(form_.batch, batch), Offset(form_.free, c0));
  // Short rows this far ahead are prefetched, a line at a time.
  const int64_t run_bytes = std::min(form_.free.back().size, block_columns_) *
                            weight_bytes_;
  walk.prefetch = run_bytes < kShortRunBytes;
  walk.ahead = std::max<int64_t>(kPassRows, kBlockPrefetchBytes / run_bytes);
  walk.lines = b_.CreateUDiv(
      b_.CreateAdd(b_.CreateMul(width, I64(weight_bytes_)), I64(63)), I64(64));
  const int64_t passes = flat_.k / kPassRows;
  RETURN_IF_ERROR(EmitForLoop(
      b_, I64(0), I64(passes), "gemv_k",
      [&](llvm::Value* p) {
        return EmitBlockPass(walk, b_.CreateMul(p, I64(kPassRows)), kPassRows);
      },
      LoopHints::kKeepAsWritten));
  RETURN_IF_ERROR(EmitForLoop(
      b_, I64(passes * kPassRows), I64(flat_.k), "gemv_k_rest",
      [&](llvm::Value* k) { return EmitBlockPass(walk, k, 1); },
      LoopHints::kKeepAsWritten));
  for (int64_t i = 0; i < flat_.m; ++i) {
    RETURN_IF_ERROR(
        EmitForLoop(b_, I64(0), width, "gemv_store", [&](llvm::Value* j) {
          return StoreOutput(batch, I64(i), b_.CreateAdd(c0, j),
                             b_.CreateLoad(element_type_, BlockAt(i, j)));
        }));
  }
  return absl::OkStatus();
}

llvm::Value* GemvEmitter::BlockAt(int64_t i, llvm::Value* column) {
  return At(block_, b_.CreateAdd(I64(i * block_columns_), column));
}

absl::Status GemvEmitter::EmitBlockPass(const BlockWalk& walk, llvm::Value* k,
                                        int64_t rows) {
  std::vector<llvm::Value*> row;
  for (int64_t r = 0; r < rows; ++r) {
    row.push_back(b_.CreateAdd(
        walk.base, Offset(form_.contracting, b_.CreateAdd(k, I64(r)))));
  }
  for (int64_t r = 0; walk.prefetch && r < rows; ++r) {
    RETURN_IF_ERROR(PrefetchRowAhead(walk, k, r));
  }
  std::vector<std::vector<llvm::Value*>> x(flat_.m);
  for (int64_t i = 0; i < flat_.m; ++i) {
    for (int64_t r = 0; r < rows; ++r) {
      x[i].push_back(b_.CreateVectorSplat(
          lanes_,
          b_.CreateLoad(element_type_,
                        At(lhs_, b_.CreateAdd(I64(i * k_padded_),
                                              b_.CreateAdd(k, I64(r)))))));
    }
  }
  RETURN_IF_ERROR(EmitForLoop(
      b_, I64(0), walk.vectors, "gemv_vector",
      [&](llvm::Value* v) {
        BlockStep(row, x, b_.CreateMul(v, I64(lanes_)), nullptr);
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten));
  return EmitIf(b_, b_.CreateICmpNE(walk.tail, I64(0)), [&] {
    BlockStep(row, x, b_.CreateMul(walk.vectors, I64(lanes_)),
              LaneMask(walk.tail));
    return absl::OkStatus();
  });
}

absl::Status GemvEmitter::PrefetchRowAhead(const BlockWalk& walk,
                                           llvm::Value* k, int64_t r) {
  llvm::Value* next = b_.CreateAdd(
      walk.base,
      Offset(form_.contracting,
             Min(b_.CreateAdd(k, I64(walk.ahead + r)), I64(flat_.k - 1))));
  return EmitForLoop(
      b_, I64(0), walk.lines, "gemv_prefetch",
      [&](llvm::Value* line) {
        Prefetch(
            b_.CreateAdd(next, b_.CreateMul(line, I64(64 / weight_bytes_))));
        return absl::OkStatus();
      },
      LoopHints::kKeepAsWritten);
}

void GemvEmitter::BlockStep(const std::vector<llvm::Value*>& row,
                            const std::vector<std::vector<llvm::Value*>>& x,
                            llvm::Value* column, llvm::Value* mask) {
  std::vector<llvm::Value*> w;
  for (llvm::Value* start : row) {
    w.push_back(LoadWeights(b_.CreateAdd(start, column), mask));
  }
  for (int64_t i = 0; i < flat_.m; ++i) {
    llvm::Value* a = BlockAt(i, column);
    llvm::Value* sum = b_.CreateAlignedLoad(vector_type_, a, BlockAlign());
    for (size_t r = 0; r < row.size(); ++r) {
      sum = b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {vector_type_},
                               {x[i][r], w[r], sum});
    }
    b_.CreateAlignedStore(sum, a, BlockAlign());
  }
}

absl::Status GemvEmitter::EmitBlocks(llvm::Value* batch, llvm::Value* n0,
                                     llvm::Value* n1) {
  // Columns are contiguous within a run of the innermost free dimensions.
  const int64_t run = form_.free.back().size;
  llvm::Value* first_run = b_.CreateUDiv(n0, I64(run));
  llvm::Value* end_run =
      b_.CreateAdd(b_.CreateUDiv(b_.CreateSub(n1, I64(1)), I64(run)), I64(1));
  return EmitForLoop(b_, first_run, end_run, "gemv_run", [&](llvm::Value* r) {
    llvm::Value* s0 = Max(n0, b_.CreateMul(r, I64(run)));
    llvm::Value* s1 = Min(n1, b_.CreateMul(b_.CreateAdd(r, I64(1)), I64(run)));
    llvm::Value* blocks = b_.CreateUDiv(
        b_.CreateAdd(b_.CreateSub(s1, s0), I64(block_columns_ - 1)),
        I64(block_columns_));
    return EmitForLoop(b_, I64(0), blocks, "gemv_block", [&](llvm::Value* p) {
      llvm::Value* c0 = b_.CreateAdd(s0, b_.CreateMul(p, I64(block_columns_)));
      return EmitBlock(batch, c0, Min(I64(block_columns_), b_.CreateSub(s1, c0)));
    }, LoopHints::kKeepAsWritten);
  }, LoopHints::kKeepAsWritten);
}

absl::Status GemvEmitter::Emit(llvm::Value* begin, llvm::Value* end) {
  lhs_ = EntryArray(element_type_, flat_.m * k_padded_, "gemv_lhs");
  lhs_batch_ = EntryArray(b_.getInt64Ty(), 1, "gemv_lhs_batch");
  {
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(llvm::cast<llvm::Instruction>(lhs_batch_)->getNextNode());
    b_.CreateStore(I64(-1), lhs_batch_);
  }
  weights_ = elements_.parameter_buffer(form_.view.parameter);
  if (form_.layout == Layout::kKContiguous) {
    for (int64_t i = 0; i < flat_.m * kDotRows; ++i) {
      dot_accumulators_.push_back(EntryArray(vector_type_, 1, "gemv_acc"));
    }
  } else {
    const int64_t row_bytes =
        flat_.m > 2 ? kBlockRowBytes / 2 : kBlockRowBytes;
    block_columns_ = std::max<int64_t>(lanes_, row_bytes / bytes_);
    block_ = EntryArray(element_type_, flat_.m * block_columns_, "gemv_block");
  }
  // Units are n blocks (m_block >= m); a call takes up to `group`
  // consecutive ones of a batch element at a time: columns [n0, n1).
  const int64_t n_blocks = CeilDivInt(flat_.n, plan_.n_block);
  const int64_t group = std::max<int64_t>(
      1, kBlockRowBytes / bytes_ / plan_.n_block);
  const int64_t groups = CeilDivInt(n_blocks, group);  // per batch element
  auto group_of = [&](llvm::Value* unit) {
    return b_.CreateAdd(
        b_.CreateMul(b_.CreateUDiv(unit, I64(n_blocks)), I64(groups)),
        b_.CreateUDiv(b_.CreateURem(unit, I64(n_blocks)), I64(group)));
  };
  llvm::Value* any = b_.CreateICmpULT(begin, end);
  llvm::Value* first = group_of(begin);
  llvm::Value* last = b_.CreateSelect(
      any, b_.CreateAdd(group_of(b_.CreateSub(end, I64(1))), I64(1)), first);
  return EmitForLoop(b_, first, last, "gemv_group",
                     [&](llvm::Value* g) -> absl::Status {
    llvm::Value* batch = b_.CreateUDiv(g, I64(groups));
    llvm::Value* batch_first = b_.CreateMul(batch, I64(n_blocks));
    llvm::Value* from = b_.CreateAdd(
        batch_first, b_.CreateMul(b_.CreateURem(g, I64(groups)), I64(group)));
    llvm::Value* to = Min(Min(b_.CreateAdd(from, I64(group)),
                              b_.CreateAdd(batch_first, I64(n_blocks))),
                          end);
    from = Max(from, begin);
    llvm::Value* n0 =
        b_.CreateMul(b_.CreateSub(from, batch_first), I64(plan_.n_block));
    llvm::Value* n1 = Min(
        I64(flat_.n),
        b_.CreateMul(b_.CreateSub(to, batch_first), I64(plan_.n_block)));
    RETURN_IF_ERROR(EnsureLhs(batch));
    return form_.layout == Layout::kKContiguous ? EmitDotRows(batch, n0, n1)
                                                : EmitBlocks(batch, n0, n1);
  }, LoopHints::kKeepAsWritten);
}

}  // namespace

bool TakesGemv(const HloInstruction& dot, const DotPlan& plan) {
  return FormOf(dot, plan).has_value();
}

absl::Status EmitGemvKernel(llvm::IRBuilder<>& b, const HloComputation& fused,
                            const HloInstruction& dot, const DotPlan& plan,
                            ElementalEmitter& elements, llvm::Value* result,
                            llvm::Value* begin, llvm::Value* end) {
  std::optional<GemvForm> form = FormOf(dot, plan);
  RET_CHECK(form.has_value(), dot.ToString());
  GemvEmitter emitter(b, fused, dot, plan, elements, result, *std::move(form));
  return emitter.Emit(begin, end);
}

}  // namespace mxla::codegen
