// The driver's loops for sort, scatter and select-and-scatter (see
// aot_driver.h).
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "codegen/aot_driver.h"
#include "ir/primitive_type.h"
#include "llvm/IR/LLVMContext.h"
#include "semantics/index_walk.h"
#include "semantics/scatter_elements.h"

namespace mxla::codegen {

// A sort's operands and the scratch its rows share: the two permutation
// buffers the merge passes alternate between, the comparator's flag and
// argument tables, and the merge's cursors.
struct AotDriverEmitter::SortRows {
  SortRows(const AotControl& control, llvm::Function* comparator,
           const Frame& frame)
      : control(control), comparator(comparator), frame(frame) {}

  const AotControl& control;
  llvm::Function* comparator;
  const Frame& frame;
  std::vector<llvm::Value*> inputs, outputs;
  int64_t inner = 1;              // elements between a row's neighbours
  llvm::Value* length = nullptr;  // a row's, as an i64
  llvm::Value* first_buffer = nullptr;
  llvm::Value* second_buffer = nullptr;
  llvm::Value* flag = nullptr;
  llvm::Value* flag_table = nullptr;
  llvm::Value* pair_table = nullptr;
  llvm::Value* source = nullptr;  // the permutation a pass reads
  llvm::Value* target = nullptr;  // the one it writes
  llvm::Value* width = nullptr;   // of the runs a pass merges
  llvm::Value* left = nullptr;    // the merge's next entries in its runs
  llvm::Value* right = nullptr;

  // The address of operand q's element at permutation entry p of the row
  // starting at `base`.
  llvm::Value* Element(llvm::IRBuilder<>& b, llvm::Value* base, size_t q,
                       llvm::Value* p) const {
    llvm::Value* linear = b.CreateAdd(base, b.CreateMul(p, b.getInt64(inner)));
    return b.CreateInBoundsGEP(
        b.getInt8Ty(), inputs[q],
        b.CreateMul(linear, b.getInt64(control.element_bytes[q])));
  }
};

// One merge of the sorted runs [lo, mid) and [mid, hi) of permutation
// `from` into `to`, in the row starting at `base`.
struct AotDriverEmitter::SortMerge {
  llvm::Value* base;
  llvm::Value* from;
  llvm::Value* to;
  llvm::Value* mid;
  llvm::Value* hi;
};

void AotDriverEmitter::EmitSort(llvm::IRBuilder<>& b, const AotStep& step,
                                llvm::Function* comparator,
                                const Frame& frame) {
  const AotControl& sort = *step.control;
  const size_t n = sort.element_bytes.size();
  SortRows rows(sort, comparator, frame);
  rows.inputs = Addresses(b, step, 0, n, frame);
  rows.outputs = Addresses(b, step, n, 2 * n, frame);
  int64_t outer = 1;
  for (int64_t d = 0; d < int64_t(sort.dims.size()); ++d) {
    if (d < sort.dimension) outer *= sort.dims[d];
    if (d > sort.dimension) rows.inner *= sort.dims[d];
  }
  const int64_t m = (sort.dims.empty() ? 1 : sort.dims[sort.dimension]);
  if (outer * m * rows.inner == 0) return;
  rows.first_buffer = TempAt(b, frame, sort.temp_offset);
  rows.second_buffer = TempAt(b, frame, sort.temp_offset + AotAlign64(m * 8));
  rows.flag = TempAt(b, frame, sort.temp_offset + 2 * AotAlign64(m * 8));
  rows.flag_table = Table(b, frame, {rows.flag});
  rows.pair_table = Alloca(frame, ptr_, 2 * n, "pair");
  rows.source = Alloca(frame, ptr_, 1, "source");
  rows.target = Alloca(frame, ptr_, 1, "target");
  rows.width = Alloca(frame, i64_, 1, "width");
  rows.left = Alloca(frame, i64_, 1, "left");
  rows.right = Alloca(frame, i64_, 1, "right");
  rows.length = b.getInt64(m);
  llvm::Value* one = b.getInt64(1);
  For(b, frame, b.getInt64(0), b.getInt64(outer), one, [&](llvm::Value* o) {
    For(b, frame, b.getInt64(0), b.getInt64(rows.inner), one,
        [&](llvm::Value* i) {
          EmitSortRow(
              b, rows,
              b.CreateAdd(b.CreateMul(o, b.getInt64(m * rows.inner)), i));
        });
  });
}

void AotDriverEmitter::EmitSortRow(llvm::IRBuilder<>& b, const SortRows& rows,
                                   llvm::Value* base) {
  const Frame& frame = rows.frame;
  llvm::Value* one = b.getInt64(1);
  For(b, frame, b.getInt64(0), rows.length, one, [&](llvm::Value* j) {
    b.CreateStore(j, b.CreateInBoundsGEP(i64_, rows.first_buffer, j));
  });
  b.CreateStore(rows.first_buffer, rows.source);
  b.CreateStore(rows.second_buffer, rows.target);
  b.CreateStore(one, rows.width);
  auto* pass = llvm::BasicBlock::Create(context_, "sort.pass", frame.function);
  auto* pass_body =
      llvm::BasicBlock::Create(context_, "sort.merge", frame.function);
  auto* sorted =
      llvm::BasicBlock::Create(context_, "sort.sorted", frame.function);
  b.CreateBr(pass);
  b.SetInsertPoint(pass);
  llvm::Value* w = b.CreateLoad(i64_, rows.width);
  b.CreateCondBr(b.CreateICmpSLT(w, rows.length), pass_body, sorted);
  b.SetInsertPoint(pass_body);
  llvm::Value* from = b.CreateLoad(ptr_, rows.source);
  llvm::Value* to = b.CreateLoad(ptr_, rows.target);
  llvm::Value* two_w = b.CreateShl(w, 1);
  For(b, frame, b.getInt64(0), rows.length, two_w, [&](llvm::Value* lo) {
    auto min = [&](llvm::Value* x) {
      return b.CreateSelect(b.CreateICmpSLT(x, rows.length), x, rows.length);
    };
    llvm::Value* mid = min(b.CreateAdd(lo, w));
    llvm::Value* hi = min(b.CreateAdd(lo, two_w));
    b.CreateStore(lo, rows.left);
    b.CreateStore(mid, rows.right);
    For(b, frame, lo, hi, one, [&](llvm::Value* k) {
      EmitMergeStep(b, rows, SortMerge{base, from, to, mid, hi}, k);
    });
  });
  b.CreateStore(to, rows.source);
  b.CreateStore(from, rows.target);
  b.CreateStore(two_w, rows.width);
  b.CreateBr(pass);
  b.SetInsertPoint(sorted);
  EmitSortGather(b, rows, base);
}

void AotDriverEmitter::EmitMergeStep(llvm::IRBuilder<>& b, const SortRows& rows,
                                     const SortMerge& merge, llvm::Value* k) {
  const Frame& frame = rows.frame;
  llvm::Value* l = b.CreateLoad(i64_, rows.left);
  llvm::Value* r = b.CreateLoad(i64_, rows.right);
  llvm::Value* left_ok = b.CreateICmpSLT(l, merge.mid);
  llvm::Value* right_ok = b.CreateICmpSLT(r, merge.hi);
  // Without both runs: the right one only when the left is done.
  llvm::Value* only_right = b.CreateNot(left_ok);
  llvm::BasicBlock* decide = b.GetInsertBlock();
  auto* compare =
      llvm::BasicBlock::Create(context_, "sort.compare", frame.function);
  auto* pick = llvm::BasicBlock::Create(context_, "sort.pick", frame.function);
  b.CreateCondBr(b.CreateAnd(left_ok, right_ok), compare, pick);
  b.SetInsertPoint(compare);
  llvm::Value* rp =
      b.CreateLoad(i64_, b.CreateInBoundsGEP(i64_, merge.from, r));
  llvm::Value* lp =
      b.CreateLoad(i64_, b.CreateInBoundsGEP(i64_, merge.from, l));
  for (size_t q = 0; q < rows.inputs.size(); ++q) {  // less(right, left)
    b.CreateStore(rows.Element(b, merge.base, q, rp),
                  b.CreateConstInBoundsGEP1_64(ptr_, rows.pair_table, 2 * q));
    b.CreateStore(
        rows.Element(b, merge.base, q, lp),
        b.CreateConstInBoundsGEP1_64(ptr_, rows.pair_table, 2 * q + 1));
  }
  CallComputation(b, rows.comparator, rows.pair_table, rows.flag_table,
                  rows.control, frame);
  llvm::Value* less =
      b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), rows.flag), b.getInt8(0));
  llvm::BasicBlock* compared = b.GetInsertBlock();
  b.CreateBr(pick);
  b.SetInsertPoint(pick);
  llvm::PHINode* take_right = b.CreatePHI(b.getInt1Ty(), 2);
  take_right->addIncoming(less, compared);
  take_right->addIncoming(only_right, decide);
  llvm::Value* taken = b.CreateSelect(take_right, r, l);
  b.CreateStore(
      b.CreateLoad(i64_, b.CreateInBoundsGEP(i64_, merge.from, taken)),
      b.CreateInBoundsGEP(i64_, merge.to, k));
  b.CreateStore(b.CreateAdd(r, b.CreateZExt(take_right, i64_)), rows.right);
  b.CreateStore(b.CreateAdd(l, b.CreateZExt(b.CreateNot(take_right), i64_)),
                rows.left);
}

void AotDriverEmitter::EmitSortGather(llvm::IRBuilder<>& b,
                                      const SortRows& rows, llvm::Value* base) {
  llvm::Value* order = b.CreateLoad(ptr_, rows.source);
  For(b, rows.frame, b.getInt64(0), rows.length, b.getInt64(1),
      [&](llvm::Value* j) {
        llvm::Value* p =
            b.CreateLoad(i64_, b.CreateInBoundsGEP(i64_, order, j));
        llvm::Value* linear =
            b.CreateAdd(base, b.CreateMul(j, b.getInt64(rows.inner)));
        for (size_t q = 0; q < rows.outputs.size(); ++q) {
          const int64_t bytes = rows.control.element_bytes[q];
          llvm::Value* out =
              b.CreateInBoundsGEP(b.getInt8Ty(), rows.outputs[q],
                                  b.CreateMul(linear, b.getInt64(bytes)));
          b.CreateMemCpy(out, llvm::MaybeAlign(1), rows.Element(b, base, q, p),
                         llvm::MaybeAlign(1), bytes);
        }
      });
}

std::vector<llvm::Value*> AotDriverEmitter::Unflatten(
    llvm::IRBuilder<>& b, llvm::Value* flat,
    const std::vector<int64_t>& sizes) {
  std::vector<llvm::Value*> index(sizes.size());
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = b.CreateURem(flat, b.getInt64(sizes[d]));
    flat = b.CreateUDiv(flat, b.getInt64(sizes[d]));
  }
  return index;
}

namespace {

int64_t Product(const std::vector<int64_t>& sizes) {
  int64_t product = 1;
  for (int64_t size : sizes) product *= size;
  return product;
}

// Element `position` of integer indices of `type`, as an i64 (a u64 past
// int64's range reads as its maximum: out of bounds anyway), as
// semantics/scatter_elements.cc reads it.
llvm::Value* LoadIndex(llvm::IRBuilder<>& b, llvm::Value* indices,
                       PrimitiveType type, llvm::Value* position) {
  const int bits = 8 * primitive_util::ByteWidth(type);
  llvm::Type* element = b.getIntNTy(bits);
  llvm::Value* raw =
      b.CreateLoad(element, b.CreateInBoundsGEP(element, indices, position));
  const bool is_unsigned = primitive_util::IsUnsignedIntegralType(type);
  if (bits == 64) {
    if (!is_unsigned) return raw;
    return b.CreateSelect(b.CreateICmpSLT(raw, b.getInt64(0)),
                          b.getInt64(std::numeric_limits<int64_t>::max()), raw);
  }
  return is_unsigned ? b.CreateZExt(raw, b.getInt64Ty())
                     : b.CreateSExt(raw, b.getInt64Ty());
}

}  // namespace

// What a scatter's update positions share: the walk of
// semantics/scatter_elements.cc, known at compile time, the buffers, and
// the combiner's argument and result tables.
struct AotDriverEmitter::ScatterLoop {
  ScatterLoop(const AotControl& control, llvm::Function* combiner,
              const Frame& frame, semantics::ScatterWalk walk)
      : control(control),
        combiner(combiner),
        frame(frame),
        walk(std::move(walk)) {}

  const AotControl& control;
  llvm::Function* combiner;
  const Frame& frame;
  const semantics::ScatterWalk walk;
  llvm::Value* indices = nullptr;
  std::vector<llvm::Value*> updates, results;
  std::vector<llvm::Value*> combined;  // the combiner's results, in temp
  llvm::Value* combined_table = nullptr;
  llvm::Value* arguments = nullptr;
};

namespace {

// offset + the sum of index[j] * strides[dims[j]] over the entries of
// `dims`.
llvm::Value* AddOffsets(llvm::IRBuilder<>& b, llvm::Value* offset,
                        const std::vector<llvm::Value*>& index,
                        const std::vector<int64_t>& dims,
                        const std::vector<int64_t>& strides) {
  for (size_t j = 0; j < dims.size(); ++j) {
    offset = b.CreateAdd(offset,
                         b.CreateMul(index[j], b.getInt64(strides[dims[j]])));
  }
  return offset;
}

}  // namespace

void AotDriverEmitter::EmitScatter(llvm::IRBuilder<>& b, const AotStep& step,
                                   llvm::Function* combiner,
                                   const Frame& frame) {
  const AotControl& scatter = *step.control;
  const size_t n = scatter.element_bytes.size() / 2;
  std::vector<llvm::Value*> operands = Addresses(b, step, 0, n, frame);
  llvm::Value* indices = Address(b, step.buffers[n], frame);
  std::vector<llvm::Value*> updates =
      Addresses(b, step, n + 1, 2 * n + 1, frame);
  std::vector<llvm::Value*> results =
      Addresses(b, step, 2 * n + 1, 3 * n + 1, frame);
  for (size_t i = 0; i < n; ++i) {
    if (scatter.leaf_bytes[i] > 0) {  // memmove: the same buffer is a no-op
      b.CreateMemMove(results[i], llvm::MaybeAlign(1), operands[i],
                      llvm::MaybeAlign(1), scatter.leaf_bytes[i]);
    }
  }
  if (Product(scatter.update_dims) == 0) return;
  ScatterLoop loop(
      scatter, combiner, frame,
      semantics::ScatterWalkOf({scatter.dims, scatter.indices_dims,
                                scatter.indices_type, scatter.update_dims,
                                scatter.scatter_dnums}));
  loop.indices = indices;
  loop.updates = std::move(updates);
  loop.results = std::move(results);
  for (size_t i = 0; i < n; ++i) {
    loop.combined.push_back(TempAt(b, frame, scatter.temp_offset + 16 * i));
  }
  loop.combined_table = Table(b, frame, loop.combined);
  loop.arguments = Alloca(frame, ptr_, 2 * n, "combine");
  For(b, frame, b.getInt64(0), b.getInt64(Product(loop.walk.scatter_sizes)),
      b.getInt64(1),
      [&](llvm::Value* flat) { EmitScatterPosition(b, loop, flat); });
}

std::vector<llvm::Value*> AotDriverEmitter::ScatterStart(
    llvm::IRBuilder<>& b, const ScatterLoop& loop,
    const std::vector<llvm::Value*>& position) {
  const semantics::ScatterWalk& walk = loop.walk;
  const ScatterDimensionNumbers& dn = loop.control.scatter_dnums;
  llvm::Value* vector_base =
      AddOffsets(b, b.getInt64(0), position, walk.indices_batch_dims,
                 walk.indices_strides);
  std::vector<llvm::Value*> start(loop.control.dims.size(), b.getInt64(0));
  for (size_t v = 0; v < dn.scatter_dims_to_operand_dims.size(); ++v) {
    start[dn.scatter_dims_to_operand_dims[v]] =
        LoadIndex(b, loop.indices, loop.control.indices_type,
                  b.CreateAdd(vector_base, b.getInt64(v * walk.vector_stride)));
  }
  for (size_t k = 0; k < dn.input_batching_dims.size(); ++k) {
    start[dn.input_batching_dims[k]] = position[walk.batching_position[k]];
  }
  return start;
}

void AotDriverEmitter::EmitScatterPosition(llvm::IRBuilder<>& b,
                                           const ScatterLoop& loop,
                                           llvm::Value* flat) {
  const semantics::ScatterWalk& walk = loop.walk;
  const std::vector<int64_t>& operand_dims = loop.control.dims;
  std::vector<llvm::Value*> position = Unflatten(b, flat, walk.scatter_sizes);
  std::vector<llvm::Value*> start = ScatterStart(b, loop, position);
  // A window that does not fit is skipped.
  llvm::Value* fits = b.getTrue();
  for (size_t d = 0; d < operand_dims.size(); ++d) {
    fits = b.CreateAnd(fits, b.CreateICmpSGE(start[d], b.getInt64(0)));
    fits = b.CreateAnd(
        fits, b.CreateICmpSLE(start[d], b.getInt64(operand_dims[d] -
                                                   walk.window_extent[d])));
  }
  auto* apply =
      llvm::BasicBlock::Create(context_, "scatter.apply", loop.frame.function);
  auto* skip =
      llvm::BasicBlock::Create(context_, "scatter.next", loop.frame.function);
  b.CreateCondBr(fits, apply, skip);
  b.SetInsertPoint(apply);
  llvm::Value* operand_base = b.getInt64(0);
  for (size_t d = 0; d < operand_dims.size(); ++d) {
    operand_base =
        b.CreateAdd(operand_base,
                    b.CreateMul(start[d], b.getInt64(walk.operand_strides[d])));
  }
  llvm::Value* update_base = AddOffsets(b, b.getInt64(0), position,
                                        walk.scatter_dims, walk.update_strides);
  For(b, loop.frame, b.getInt64(0), b.getInt64(Product(walk.window_sizes)),
      b.getInt64(1), [&](llvm::Value* window_flat) {
        std::vector<llvm::Value*> window =
            Unflatten(b, window_flat, walk.window_sizes);
        EmitScatterElement(b, loop, window, operand_base, update_base);
      });
  b.CreateBr(skip);
  b.SetInsertPoint(skip);
}

void AotDriverEmitter::EmitScatterElement(
    llvm::IRBuilder<>& b, const ScatterLoop& loop,
    const std::vector<llvm::Value*>& window, llvm::Value* operand_offset,
    llvm::Value* update_offset) {
  const semantics::ScatterWalk& walk = loop.walk;
  const AotControl& scatter = loop.control;
  const std::vector<int64_t>& update_window_dims =
      scatter.scatter_dnums.update_window_dims;
  for (size_t k = 0; k < window.size(); ++k) {
    operand_offset = b.CreateAdd(
        operand_offset,
        b.CreateMul(
            window[k],
            b.getInt64(walk.operand_strides[walk.window_operand_dims[k]])));
    update_offset = b.CreateAdd(
        update_offset,
        b.CreateMul(window[k],
                    b.getInt64(walk.update_strides[update_window_dims[k]])));
  }
  const size_t n = loop.results.size();
  std::vector<llvm::Value*> elements;
  for (size_t i = 0; i < n; ++i) {
    const int64_t bytes = scatter.element_bytes[i];
    elements.push_back(
        b.CreateInBoundsGEP(b.getInt8Ty(), loop.results[i],
                            b.CreateMul(operand_offset, b.getInt64(bytes))));
    b.CreateStore(elements[i],
                  b.CreateConstInBoundsGEP1_64(ptr_, loop.arguments, i));
    b.CreateStore(b.CreateInBoundsGEP(
                      b.getInt8Ty(), loop.updates[i],
                      b.CreateMul(update_offset,
                                  b.getInt64(scatter.element_bytes[n + i]))),
                  b.CreateConstInBoundsGEP1_64(ptr_, loop.arguments, n + i));
  }
  CallComputation(b, loop.combiner, loop.arguments, loop.combined_table,
                  scatter, loop.frame);
  for (size_t i = 0; i < n; ++i) {
    b.CreateMemCpy(elements[i], llvm::MaybeAlign(1), loop.combined[i],
                   llvm::MaybeAlign(1), scatter.element_bytes[i]);
  }
}

// What a select-and-scatter's source positions share: the buffers, the
// operand's row-major strides, select's flag and scatter's scalar in temp
// with their tables, the computations' argument pair, and the element a
// window has selected so far (-1: none yet).
struct AotDriverEmitter::SelectAndScatterLoop {
  SelectAndScatterLoop(const AotControl& control, llvm::Function* select,
                       llvm::Function* scatter, const Frame& frame)
      : control(control), select(select), scatter(scatter), frame(frame) {}

  const AotControl& control;
  llvm::Function* select;
  llvm::Function* scatter;
  const Frame& frame;
  llvm::Value* operand = nullptr;
  llvm::Value* source = nullptr;
  llvm::Value* result = nullptr;
  std::vector<int64_t> strides;
  llvm::Value* flag = nullptr;
  llvm::Value* combined = nullptr;
  llvm::Value* flag_table = nullptr;
  llvm::Value* combined_table = nullptr;
  llvm::Value* pair = nullptr;
  llvm::Value* selected = nullptr;
};

namespace {

// The address of element `element` of `base`, elements `bytes` wide.
llvm::Value* ByteAt(llvm::IRBuilder<>& b, llvm::Value* base,
                    llvm::Value* element, int64_t bytes) {
  return b.CreateInBoundsGEP(b.getInt8Ty(), base,
                             b.CreateMul(element, b.getInt64(bytes)));
}

// The operand element window position `position`'s tap `tap` reads, and
// whether it reads one (semantics::WindowTapOffset: padding and base
// holes are skipped).
std::pair<llvm::Value*, llvm::Value*> WindowTapElement(
    llvm::IRBuilder<>& b, const AotControl& control,
    const std::vector<int64_t>& strides,
    const std::vector<llvm::Value*>& position,
    const std::vector<llvm::Value*>& tap) {
  llvm::Value* valid = b.getTrue();
  llvm::Value* element = b.getInt64(0);
  for (size_t d = 0; d < control.dims.size(); ++d) {
    const WindowDimension& w = control.window[d];
    llvm::Value* dilated =
        b.CreateAdd(b.CreateSub(b.CreateMul(position[d], b.getInt64(w.stride)),
                                b.getInt64(w.padding_low)),
                    b.CreateMul(tap[d], b.getInt64(w.window_dilation)));
    valid = b.CreateAnd(valid, b.CreateICmpSGE(dilated, b.getInt64(0)));
    llvm::Value* base_index = dilated;
    if (w.base_dilation != 1) {
      valid = b.CreateAnd(
          valid,
          b.CreateICmpEQ(b.CreateSRem(dilated, b.getInt64(w.base_dilation)),
                         b.getInt64(0)));
      base_index = b.CreateSDiv(dilated, b.getInt64(w.base_dilation));
    }
    valid = b.CreateAnd(
        valid, b.CreateICmpSLT(base_index, b.getInt64(control.dims[d])));
    element =
        b.CreateAdd(element, b.CreateMul(base_index, b.getInt64(strides[d])));
  }
  return {valid, element};
}

}  // namespace

void AotDriverEmitter::EmitSelectAndScatter(llvm::IRBuilder<>& b,
                                            const AotStep& step,
                                            llvm::Function* select,
                                            llvm::Function* scatter,
                                            const Frame& frame) {
  const AotControl& control = *step.control;
  SelectAndScatterLoop loop(control, select, scatter, frame);
  loop.operand = Address(b, step.buffers[0], frame);
  loop.source = Address(b, step.buffers[1], frame);
  llvm::Value* init = Address(b, step.buffers[2], frame);
  loop.result = Address(b, step.buffers[3], frame);
  const int64_t result_bytes = control.element_bytes[2];
  llvm::Value* one = b.getInt64(1);
  For(b, frame, b.getInt64(0),
      b.getInt64(control.leaf_bytes[0] / std::max<int64_t>(result_bytes, 1)),
      one, [&](llvm::Value* k) {
        b.CreateMemCpy(
            b.CreateInBoundsGEP(b.getInt8Ty(), loop.result,
                                b.CreateMul(k, b.getInt64(result_bytes))),
            llvm::MaybeAlign(1), init, llvm::MaybeAlign(1), result_bytes);
      });
  const int64_t rank = control.dims.size();
  std::vector<int64_t> positions, taps;
  for (int64_t d = 0; d < rank; ++d) {
    positions.push_back(WindowOutputSize(control.dims[d], control.window[d]));
    taps.push_back(control.window[d].size);
  }
  if (Product(positions) == 0) return;
  loop.strides = semantics::RowMajorStrides(control.dims);
  loop.flag = TempAt(b, frame, control.temp_offset);
  loop.combined = TempAt(b, frame, control.temp_offset + 64);
  loop.flag_table = Table(b, frame, {loop.flag});
  loop.combined_table = Table(b, frame, {loop.combined});
  loop.pair = Alloca(frame, ptr_, 2, "pair");
  loop.selected = Alloca(frame, i64_, 1, "selected");
  // The source element's index is the window position's, row-major.
  For(b, frame, b.getInt64(0), b.getInt64(Product(positions)), one,
      [&](llvm::Value* source_index) {
        std::vector<llvm::Value*> position =
            Unflatten(b, source_index, positions);
        b.CreateStore(b.getInt64(-1), loop.selected);
        For(b, frame, b.getInt64(0), b.getInt64(Product(taps)), one,
            [&](llvm::Value* tap_flat) {
              EmitSelectTap(b, loop, position, Unflatten(b, tap_flat, taps));
            });
        EmitScatterSelected(b, loop, source_index);
      });
}

void AotDriverEmitter::CallOnPair(llvm::IRBuilder<>& b,
                                  const SelectAndScatterLoop& loop,
                                  llvm::Function* callee, llvm::Value* lhs,
                                  llvm::Value* rhs, llvm::Value* results) {
  b.CreateStore(lhs, b.CreateConstInBoundsGEP1_64(ptr_, loop.pair, 0));
  b.CreateStore(rhs, b.CreateConstInBoundsGEP1_64(ptr_, loop.pair, 1));
  CallComputation(b, callee, loop.pair, results, loop.control, loop.frame);
}

void AotDriverEmitter::EmitSelectTap(llvm::IRBuilder<>& b,
                                     const SelectAndScatterLoop& loop,
                                     const std::vector<llvm::Value*>& position,
                                     const std::vector<llvm::Value*>& tap) {
  const auto [valid, element] =
      WindowTapElement(b, loop.control, loop.strides, position, tap);
  const int64_t operand_bytes = loop.control.element_bytes[0];
  llvm::Function* function = loop.frame.function;
  auto* consider = llvm::BasicBlock::Create(context_, "select.tap", function);
  auto* compare =
      llvm::BasicBlock::Create(context_, "select.compare", function);
  auto* take = llvm::BasicBlock::Create(context_, "select.take", function);
  auto* next = llvm::BasicBlock::Create(context_, "select.next", function);
  b.CreateCondBr(valid, consider, next);
  b.SetInsertPoint(consider);
  llvm::Value* current = b.CreateLoad(i64_, loop.selected);
  b.CreateCondBr(b.CreateICmpSLT(current, b.getInt64(0)), take, compare);
  b.SetInsertPoint(compare);
  // The selected element stays unless select(selected, tap) is false.
  CallOnPair(b, loop, loop.select,
             ByteAt(b, loop.operand, current, operand_bytes),
             ByteAt(b, loop.operand, element, operand_bytes), loop.flag_table);
  b.CreateCondBr(
      b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), loop.flag), b.getInt8(0)),
      next, take);
  b.SetInsertPoint(take);
  b.CreateStore(element, loop.selected);
  b.CreateBr(next);
  b.SetInsertPoint(next);
}

void AotDriverEmitter::EmitScatterSelected(llvm::IRBuilder<>& b,
                                           const SelectAndScatterLoop& loop,
                                           llvm::Value* source_index) {
  const int64_t source_bytes = loop.control.element_bytes[1];
  const int64_t result_bytes = loop.control.element_bytes[2];
  llvm::Value* chosen = b.CreateLoad(i64_, loop.selected);
  auto* apply =
      llvm::BasicBlock::Create(context_, "scatter.apply", loop.frame.function);
  auto* done =
      llvm::BasicBlock::Create(context_, "scatter.next", loop.frame.function);
  b.CreateCondBr(b.CreateICmpSGE(chosen, b.getInt64(0)), apply, done);
  b.SetInsertPoint(apply);
  llvm::Value* slot = ByteAt(b, loop.result, chosen, result_bytes);
  CallOnPair(b, loop, loop.scatter, slot,
             ByteAt(b, loop.source, source_index, source_bytes),
             loop.combined_table);
  b.CreateMemCpy(slot, llvm::MaybeAlign(1), loop.combined, llvm::MaybeAlign(1),
                 result_bytes);
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

}  // namespace mxla::codegen
