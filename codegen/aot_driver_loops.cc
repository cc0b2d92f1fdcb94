// The driver's loops for sort, scatter and select-and-scatter (see
// aot_driver.h).
#include <algorithm>
#include <limits>

#include "codegen/aot_driver.h"
#include "ir/primitive_type.h"
#include "llvm/IR/LLVMContext.h"
#include "semantics/index_walk.h"
#include "semantics/scatter_elements.h"

namespace mxla::codegen {

void AotDriverEmitter::EmitSort(llvm::IRBuilder<>& b, const AotStep& step,
                                llvm::Function* comparator,
                                const Frame& frame) {
  const AotControl& sort = *step.control;
  const size_t n = sort.element_bytes.size();
  std::vector<llvm::Value*> inputs = Addresses(b, step, 0, n, frame);
  std::vector<llvm::Value*> outputs = Addresses(b, step, n, 2 * n, frame);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < int64_t(sort.dims.size()); ++d) {
    if (d < sort.dimension) outer *= sort.dims[d];
    if (d > sort.dimension) inner *= sort.dims[d];
  }
  const int64_t m = (sort.dims.empty() ? 1 : sort.dims[sort.dimension]);
  if (outer * m * inner == 0) return;
  llvm::Value* first_buffer = TempAt(b, frame, sort.temp_offset);
  llvm::Value* second_buffer =
      TempAt(b, frame, sort.temp_offset + AotAlign64(m * 8));
  llvm::Value* flag =
      TempAt(b, frame, sort.temp_offset + 2 * AotAlign64(m * 8));
  llvm::Value* flag_table = Table(b, frame, {flag});
  llvm::Value* pair_table = Alloca(frame, ptr_, 2 * n, "pair");
  llvm::Value* source = Alloca(frame, ptr_, 1, "source");
  llvm::Value* target = Alloca(frame, ptr_, 1, "target");
  llvm::Value* width = Alloca(frame, i64_, 1, "width");
  llvm::Value* left = Alloca(frame, i64_, 1, "left");
  llvm::Value* right = Alloca(frame, i64_, 1, "right");
  llvm::Value* rows_m = b.getInt64(m);
  llvm::Value* one = b.getInt64(1);
  // The address of operand q's element at permutation entry p.
  auto element = [&](llvm::Value* base, size_t q, llvm::Value* p) {
    llvm::Value* linear = b.CreateAdd(base, b.CreateMul(p, b.getInt64(inner)));
    return b.CreateInBoundsGEP(
        b.getInt8Ty(), inputs[q],
        b.CreateMul(linear, b.getInt64(sort.element_bytes[q])));
  };
  For(b, frame, b.getInt64(0), b.getInt64(outer), one, [&](llvm::Value* o) {
    For(b, frame, b.getInt64(0), b.getInt64(inner), one, [&](llvm::Value* i) {
      llvm::Value* base = b.CreateAdd(b.CreateMul(o, b.getInt64(m * inner)), i);
      For(b, frame, b.getInt64(0), rows_m, one, [&](llvm::Value* j) {
        b.CreateStore(j, b.CreateInBoundsGEP(i64_, first_buffer, j));
      });
      b.CreateStore(first_buffer, source);
      b.CreateStore(second_buffer, target);
      b.CreateStore(one, width);
      auto* pass =
          llvm::BasicBlock::Create(context_, "sort.pass", frame.function);
      auto* pass_body =
          llvm::BasicBlock::Create(context_, "sort.merge", frame.function);
      auto* sorted =
          llvm::BasicBlock::Create(context_, "sort.sorted", frame.function);
      b.CreateBr(pass);
      b.SetInsertPoint(pass);
      llvm::Value* w = b.CreateLoad(i64_, width);
      b.CreateCondBr(b.CreateICmpSLT(w, rows_m), pass_body, sorted);
      b.SetInsertPoint(pass_body);
      llvm::Value* from = b.CreateLoad(ptr_, source);
      llvm::Value* to = b.CreateLoad(ptr_, target);
      llvm::Value* two_w = b.CreateShl(w, 1);
      For(b, frame, b.getInt64(0), rows_m, two_w, [&](llvm::Value* lo) {
        auto min = [&](llvm::Value* x) {
          return b.CreateSelect(b.CreateICmpSLT(x, rows_m), x, rows_m);
        };
        llvm::Value* mid = min(b.CreateAdd(lo, w));
        llvm::Value* hi = min(b.CreateAdd(lo, two_w));
        b.CreateStore(lo, left);
        b.CreateStore(mid, right);
        For(b, frame, lo, hi, one, [&](llvm::Value* k) {
          llvm::Value* l = b.CreateLoad(i64_, left);
          llvm::Value* r = b.CreateLoad(i64_, right);
          llvm::Value* left_ok = b.CreateICmpSLT(l, mid);
          llvm::Value* right_ok = b.CreateICmpSLT(r, hi);
          // Without both runs: the right one only when the left is done.
          llvm::Value* only_right = b.CreateNot(left_ok);
          llvm::BasicBlock* decide = b.GetInsertBlock();
          auto* compare = llvm::BasicBlock::Create(context_, "sort.compare",
                                                   frame.function);
          auto* pick =
              llvm::BasicBlock::Create(context_, "sort.pick", frame.function);
          b.CreateCondBr(b.CreateAnd(left_ok, right_ok), compare, pick);
          b.SetInsertPoint(compare);
          llvm::Value* rp =
              b.CreateLoad(i64_, b.CreateInBoundsGEP(i64_, from, r));
          llvm::Value* lp =
              b.CreateLoad(i64_, b.CreateInBoundsGEP(i64_, from, l));
          for (size_t q = 0; q < n; ++q) {  // less(right, left)
            b.CreateStore(element(base, q, rp), b.CreateConstInBoundsGEP1_64(
                                                    ptr_, pair_table, 2 * q));
            b.CreateStore(
                element(base, q, lp),
                b.CreateConstInBoundsGEP1_64(ptr_, pair_table, 2 * q + 1));
          }
          CallComputation(b, comparator, pair_table, flag_table, sort, frame);
          llvm::Value* less =
              b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), flag), b.getInt8(0));
          llvm::BasicBlock* compared = b.GetInsertBlock();
          b.CreateBr(pick);
          b.SetInsertPoint(pick);
          llvm::PHINode* take_right = b.CreatePHI(b.getInt1Ty(), 2);
          take_right->addIncoming(less, compared);
          take_right->addIncoming(only_right, decide);
          llvm::Value* taken = b.CreateSelect(take_right, r, l);
          b.CreateStore(
              b.CreateLoad(i64_, b.CreateInBoundsGEP(i64_, from, taken)),
              b.CreateInBoundsGEP(i64_, to, k));
          b.CreateStore(b.CreateAdd(r, b.CreateZExt(take_right, i64_)), right);
          b.CreateStore(
              b.CreateAdd(l, b.CreateZExt(b.CreateNot(take_right), i64_)),
              left);
        });
      });
      b.CreateStore(to, source);
      b.CreateStore(from, target);
      b.CreateStore(two_w, width);
      b.CreateBr(pass);
      b.SetInsertPoint(sorted);
      llvm::Value* order = b.CreateLoad(ptr_, source);
      For(b, frame, b.getInt64(0), rows_m, one, [&](llvm::Value* j) {
        llvm::Value* p =
            b.CreateLoad(i64_, b.CreateInBoundsGEP(i64_, order, j));
        llvm::Value* linear =
            b.CreateAdd(base, b.CreateMul(j, b.getInt64(inner)));
        for (size_t q = 0; q < n; ++q) {
          const int64_t bytes = sort.element_bytes[q];
          llvm::Value* out =
              b.CreateInBoundsGEP(b.getInt8Ty(), outputs[q],
                                  b.CreateMul(linear, b.getInt64(bytes)));
          b.CreateMemCpy(out, llvm::MaybeAlign(1), element(base, q, p),
                         llvm::MaybeAlign(1), bytes);
        }
      });
    });
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

void AotDriverEmitter::EmitScatter(llvm::IRBuilder<>& b, const AotStep& step,
                                   llvm::Function* combiner,
                                   const Frame& frame) {
  const AotControl& scatter = *step.control;
  const ScatterDimensionNumbers& dn = scatter.scatter_dnums;
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
  // The walk of semantics/scatter_elements.cc, known at compile time.
  const std::vector<int64_t>& operand_dims = scatter.dims;
  const int64_t operand_rank = operand_dims.size();
  const semantics::ScatterWalk walk = semantics::ScatterWalkOf(
      {operand_dims, scatter.indices_dims, scatter.indices_type,
       scatter.update_dims, dn});
  const std::vector<int64_t>& scatter_dims = walk.scatter_dims;
  const std::vector<int64_t>& scatter_sizes = walk.scatter_sizes;
  const std::vector<int64_t>& window_sizes = walk.window_sizes;
  const std::vector<int64_t>& window_operand_dims = walk.window_operand_dims;
  const std::vector<int64_t>& window_extent = walk.window_extent;
  const std::vector<int64_t>& indices_batch_dims = walk.indices_batch_dims;
  const std::vector<int64_t>& batching_position = walk.batching_position;
  const std::vector<int64_t>& operand_strides = walk.operand_strides;
  const std::vector<int64_t>& update_strides = walk.update_strides;
  const std::vector<int64_t>& indices_strides = walk.indices_strides;
  const int64_t vector_stride = walk.vector_stride;
  std::vector<llvm::Value*> combined;
  for (size_t i = 0; i < n; ++i) {
    combined.push_back(TempAt(b, frame, scatter.temp_offset + 16 * i));
  }
  llvm::Value* combined_table = Table(b, frame, combined);
  llvm::Value* arguments = Alloca(frame, ptr_, 2 * n, "combine");
  llvm::Value* one = b.getInt64(1);
  For(b, frame, b.getInt64(0), b.getInt64(Product(scatter_sizes)), one,
      [&](llvm::Value* flat) {
        std::vector<llvm::Value*> position = Unflatten(b, flat, scatter_sizes);
        llvm::Value* vector_base = b.getInt64(0);
        for (size_t j = 0; j < indices_batch_dims.size(); ++j) {
          vector_base = b.CreateAdd(
              vector_base,
              b.CreateMul(position[j],
                          b.getInt64(indices_strides[indices_batch_dims[j]])));
        }
        std::vector<llvm::Value*> start(operand_rank, b.getInt64(0));
        for (size_t v = 0; v < dn.scatter_dims_to_operand_dims.size(); ++v) {
          start[dn.scatter_dims_to_operand_dims[v]] = LoadIndex(
              b, indices, scatter.indices_type,
              b.CreateAdd(vector_base, b.getInt64(v * vector_stride)));
        }
        for (size_t k = 0; k < dn.input_batching_dims.size(); ++k) {
          start[dn.input_batching_dims[k]] = position[batching_position[k]];
        }
        // A window that does not fit is skipped.
        llvm::Value* fits = b.getTrue();
        for (int64_t d = 0; d < operand_rank; ++d) {
          fits = b.CreateAnd(fits, b.CreateICmpSGE(start[d], b.getInt64(0)));
          fits = b.CreateAnd(
              fits, b.CreateICmpSLE(start[d], b.getInt64(operand_dims[d] -
                                                         window_extent[d])));
        }
        auto* apply =
            llvm::BasicBlock::Create(context_, "scatter.apply", frame.function);
        auto* skip =
            llvm::BasicBlock::Create(context_, "scatter.next", frame.function);
        b.CreateCondBr(fits, apply, skip);
        b.SetInsertPoint(apply);
        llvm::Value* operand_base = b.getInt64(0);
        for (int64_t d = 0; d < operand_rank; ++d) {
          operand_base = b.CreateAdd(
              operand_base,
              b.CreateMul(start[d], b.getInt64(operand_strides[d])));
        }
        llvm::Value* update_base = b.getInt64(0);
        for (size_t j = 0; j < scatter_dims.size(); ++j) {
          update_base = b.CreateAdd(
              update_base,
              b.CreateMul(position[j],
                          b.getInt64(update_strides[scatter_dims[j]])));
        }
        For(b, frame, b.getInt64(0), b.getInt64(Product(window_sizes)), one,
            [&](llvm::Value* window_flat) {
              std::vector<llvm::Value*> window =
                  Unflatten(b, window_flat, window_sizes);
              llvm::Value* operand_offset = operand_base;
              llvm::Value* update_offset = update_base;
              for (size_t k = 0; k < window.size(); ++k) {
                operand_offset = b.CreateAdd(
                    operand_offset,
                    b.CreateMul(
                        window[k],
                        b.getInt64(operand_strides[window_operand_dims[k]])));
                update_offset = b.CreateAdd(
                    update_offset,
                    b.CreateMul(
                        window[k],
                        b.getInt64(update_strides[dn.update_window_dims[k]])));
              }
              std::vector<llvm::Value*> elements;
              for (size_t i = 0; i < n; ++i) {
                const int64_t bytes = scatter.element_bytes[i];
                elements.push_back(b.CreateInBoundsGEP(
                    b.getInt8Ty(), results[i],
                    b.CreateMul(operand_offset, b.getInt64(bytes))));
                b.CreateStore(elements[i],
                              b.CreateConstInBoundsGEP1_64(ptr_, arguments, i));
                b.CreateStore(
                    b.CreateInBoundsGEP(
                        b.getInt8Ty(), updates[i],
                        b.CreateMul(update_offset,
                                    b.getInt64(scatter.element_bytes[n + i]))),
                    b.CreateConstInBoundsGEP1_64(ptr_, arguments, n + i));
              }
              CallComputation(b, combiner, arguments, combined_table, scatter,
                              frame);
              for (size_t i = 0; i < n; ++i) {
                b.CreateMemCpy(elements[i], llvm::MaybeAlign(1), combined[i],
                               llvm::MaybeAlign(1), scatter.element_bytes[i]);
              }
            });
        b.CreateBr(skip);
        b.SetInsertPoint(skip);
      });
}

void AotDriverEmitter::EmitSelectAndScatter(llvm::IRBuilder<>& b,
                                            const AotStep& step,
                                            llvm::Function* select,
                                            llvm::Function* scatter,
                                            const Frame& frame) {
  const AotControl& control = *step.control;
  llvm::Value* operand = Address(b, step.buffers[0], frame);
  llvm::Value* source = Address(b, step.buffers[1], frame);
  llvm::Value* init = Address(b, step.buffers[2], frame);
  llvm::Value* result = Address(b, step.buffers[3], frame);
  const int64_t operand_bytes = control.element_bytes[0];
  const int64_t source_bytes = control.element_bytes[1];
  const int64_t result_bytes = control.element_bytes[2];
  llvm::Value* one = b.getInt64(1);
  For(b, frame, b.getInt64(0),
      b.getInt64(control.leaf_bytes[0] / std::max<int64_t>(result_bytes, 1)),
      one, [&](llvm::Value* k) {
        b.CreateMemCpy(
            b.CreateInBoundsGEP(b.getInt8Ty(), result,
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
  const std::vector<int64_t> strides = semantics::RowMajorStrides(control.dims);
  llvm::Value* flag = TempAt(b, frame, control.temp_offset);
  llvm::Value* combined = TempAt(b, frame, control.temp_offset + 64);
  llvm::Value* flag_table = Table(b, frame, {flag});
  llvm::Value* combined_table = Table(b, frame, {combined});
  llvm::Value* pair = Alloca(frame, ptr_, 2, "pair");
  llvm::Value* selected = Alloca(frame, i64_, 1, "selected");
  auto at = [&](llvm::Value* base, llvm::Value* element, int64_t bytes) {
    return b.CreateInBoundsGEP(b.getInt8Ty(), base,
                               b.CreateMul(element, b.getInt64(bytes)));
  };
  auto call = [&](llvm::Function* callee, llvm::Value* lhs, llvm::Value* rhs,
                  llvm::Value* results) {
    b.CreateStore(lhs, b.CreateConstInBoundsGEP1_64(ptr_, pair, 0));
    b.CreateStore(rhs, b.CreateConstInBoundsGEP1_64(ptr_, pair, 1));
    CallComputation(b, callee, pair, results, control, frame);
  };
  // The source element's index is the window position's, row-major.
  For(b, frame, b.getInt64(0), b.getInt64(Product(positions)), one,
      [&](llvm::Value* source_index) {
        std::vector<llvm::Value*> position =
            Unflatten(b, source_index, positions);
        b.CreateStore(b.getInt64(-1), selected);
        For(b, frame, b.getInt64(0), b.getInt64(Product(taps)), one,
            [&](llvm::Value* tap_flat) {
              std::vector<llvm::Value*> tap = Unflatten(b, tap_flat, taps);
              // semantics::WindowTapOffset: padding and base holes are skipped.
              llvm::Value* valid = b.getTrue();
              llvm::Value* element = b.getInt64(0);
              for (int64_t d = 0; d < rank; ++d) {
                const WindowDimension& w = control.window[d];
                llvm::Value* dilated = b.CreateAdd(
                    b.CreateSub(b.CreateMul(position[d], b.getInt64(w.stride)),
                                b.getInt64(w.padding_low)),
                    b.CreateMul(tap[d], b.getInt64(w.window_dilation)));
                valid =
                    b.CreateAnd(valid, b.CreateICmpSGE(dilated, b.getInt64(0)));
                llvm::Value* base_index = dilated;
                if (w.base_dilation != 1) {
                  valid = b.CreateAnd(
                      valid,
                      b.CreateICmpEQ(
                          b.CreateSRem(dilated, b.getInt64(w.base_dilation)),
                          b.getInt64(0)));
                  base_index =
                      b.CreateSDiv(dilated, b.getInt64(w.base_dilation));
                }
                valid = b.CreateAnd(
                    valid,
                    b.CreateICmpSLT(base_index, b.getInt64(control.dims[d])));
                element = b.CreateAdd(
                    element, b.CreateMul(base_index, b.getInt64(strides[d])));
              }
              auto* consider = llvm::BasicBlock::Create(context_, "select.tap",
                                                        frame.function);
              auto* compare = llvm::BasicBlock::Create(
                  context_, "select.compare", frame.function);
              auto* take = llvm::BasicBlock::Create(context_, "select.take",
                                                    frame.function);
              auto* next = llvm::BasicBlock::Create(context_, "select.next",
                                                    frame.function);
              b.CreateCondBr(valid, consider, next);
              b.SetInsertPoint(consider);
              llvm::Value* current = b.CreateLoad(i64_, selected);
              b.CreateCondBr(b.CreateICmpSLT(current, b.getInt64(0)), take,
                             compare);
              b.SetInsertPoint(compare);
              // The selected element stays unless select(selected, tap) is
              // false.
              call(select, at(operand, current, operand_bytes),
                   at(operand, element, operand_bytes), flag_table);
              b.CreateCondBr(b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), flag),
                                            b.getInt8(0)),
                             next, take);
              b.SetInsertPoint(take);
              b.CreateStore(element, selected);
              b.CreateBr(next);
              b.SetInsertPoint(next);
            });
        llvm::Value* chosen = b.CreateLoad(i64_, selected);
        auto* apply =
            llvm::BasicBlock::Create(context_, "scatter.apply", frame.function);
        auto* done =
            llvm::BasicBlock::Create(context_, "scatter.next", frame.function);
        b.CreateCondBr(b.CreateICmpSGE(chosen, b.getInt64(0)), apply, done);
        b.SetInsertPoint(apply);
        llvm::Value* slot = at(result, chosen, result_bytes);
        call(scatter, slot, at(source, source_index, source_bytes),
             combined_table);
        b.CreateMemCpy(slot, llvm::MaybeAlign(1), combined, llvm::MaybeAlign(1),
                       result_bytes);
        b.CreateBr(done);
        b.SetInsertPoint(done);
      });
}

}  // namespace mxla::codegen
