#include "codegen/transposed_pack.h"

#include "codegen/loop_emitter.h"

namespace mxla::codegen {

std::vector<llvm::Value*> TransposeSquare(
    llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  std::vector<llvm::Value*> m = rows;
  // Swap the off-diagonal h x h blocks of every 2h x 2h block, for h from
  // n/2 down to 1: rows i and i + h (bit h of i clear) exchange the
  // columns whose bit h differs from their row's.
  for (int64_t h = n / 2; h >= 1; h /= 2) {
    std::vector<int> low(n), high(n);
    for (int64_t c = 0; c < n; ++c) {
      const bool upper = (c & h) != 0;
      low[c] = static_cast<int>(upper ? n + c - h : c);
      high[c] = static_cast<int>(upper ? n + c : c + h);
    }
    for (int64_t i = 0; i < n; ++i) {
      if ((i & h) != 0) continue;
      llvm::Value* upper_left = m[i];
      llvm::Value* lower = m[i + h];
      m[i] = b.CreateShuffleVector(upper_left, lower, low);
      m[i + h] = b.CreateShuffleVector(upper_left, lower, high);
    }
  }
  return m;
}

namespace {

llvm::Value* I64(llvm::IRBuilder<>& b, int64_t value) {
  return b.getInt64(value);
}

llvm::Value* ElementAt(llvm::IRBuilder<>& b, llvm::Type* element,
                       llvm::Value* base, llvm::Value* index) {
  return b.CreateInBoundsGEP(element, base, index);
}

// The matrix's element offset of (row, step k of the slice).
llvm::Value* SourceOffset(llvm::IRBuilder<>& b, const TransposedPanels& where,
                          llvm::Value* row, llvm::Value* k) {
  return b.CreateAdd(b.CreateMul(row, I64(b, where.row_stride)),
                     b.CreateAdd(where.k_start, k));
}

// The panels' element offset of (panel p, step k, lane).
llvm::Value* PackedOffset(llvm::IRBuilder<>& b, const TransposedPanels& where,
                          llvm::Value* p, llvm::Value* k, llvm::Value* lane) {
  return b.CreateAdd(
      b.CreateMul(b.CreateAdd(b.CreateMul(p, where.kc), k),
                  I64(b, where.width)),
      lane);
}

// One block: `lanes` rows from `row` by `lanes` steps from `k`, into
// panel p's steps at lane `lane`.
void PackBlock(llvm::IRBuilder<>& b, const TransposedPanels& where,
               llvm::Value* p, llvm::Value* row, llvm::Value* lane,
               llvm::Value* k) {
  auto* vector = llvm::FixedVectorType::get(where.element, where.lanes);
  const llvm::Align align(where.element->getPrimitiveSizeInBits() / 8);
  std::vector<llvm::Value*> rows;
  for (int64_t i = 0; i < where.lanes; ++i) {
    rows.push_back(b.CreateAlignedLoad(
        vector,
        ElementAt(b, where.element, where.source,
                  SourceOffset(b, where, b.CreateAdd(row, I64(b, i)), k)),
        align));
  }
  const std::vector<llvm::Value*> steps = TransposeSquare(b, rows);
  for (int64_t j = 0; j < where.lanes; ++j) {
    b.CreateAlignedStore(
        steps[j],
        ElementAt(b, where.element, where.packed,
                  PackedOffset(b, where, p, b.CreateAdd(k, I64(b, j)), lane)),
        align);
  }
}

}  // namespace

absl::Status EmitTransposedPack(llvm::IRBuilder<>& b,
                                const TransposedPanels& where,
                                llvm::Value* panels, llvm::Value* k_from,
                                llvm::Value* k_to) {
  const int64_t lanes = where.lanes;
  const llvm::Align align(where.element->getPrimitiveSizeInBits() / 8);
  llvm::Value* blocks =
      b.CreateUDiv(b.CreateSub(k_to, k_from), I64(b, lanes));
  llvm::Value* blocked_end =
      b.CreateAdd(k_from, b.CreateMul(blocks, I64(b, lanes)));
  return EmitForLoop(b, I64(b, 0), panels, "tpack_panel", [&](llvm::Value* p) {
    llvm::Value* panel_row =
        b.CreateAdd(where.first_row, b.CreateMul(p, I64(b, where.width)));
    absl::Status blocked = EmitForLoop(
        b, I64(b, 0), blocks, "tpack_block", [&](llvm::Value* q) {
          llvm::Value* k = b.CreateAdd(k_from, b.CreateMul(q, I64(b, lanes)));
          return EmitForLoop(
              b, I64(b, 0), I64(b, where.width / lanes), "tpack_group",
              [&](llvm::Value* g) {
                llvm::Value* lane = b.CreateMul(g, I64(b, lanes));
                PackBlock(b, where, p, b.CreateAdd(panel_row, lane), lane, k);
                return absl::OkStatus();
              },
              LoopHints::kKeepAsWritten);
        },
        LoopHints::kKeepAsWritten);
    if (!blocked.ok()) return blocked;
    // The last steps, fewer than a block.
    return EmitForLoop(b, blocked_end, k_to, "tpack_k", [&](llvm::Value* k) {
      return EmitForLoop(b, I64(b, 0), I64(b, where.width), "tpack_lane",
                         [&](llvm::Value* lane) {
        llvm::Value* value = b.CreateAlignedLoad(
            where.element,
            ElementAt(b, where.element, where.source,
                      SourceOffset(b, where, b.CreateAdd(panel_row, lane), k)),
            align);
        b.CreateAlignedStore(
            value,
            ElementAt(b, where.element, where.packed,
                      PackedOffset(b, where, p, k, lane)),
            align);
        return absl::OkStatus();
      }, LoopHints::kKeepAsWritten);
    }, LoopHints::kKeepAsWritten);
  }, LoopHints::kKeepAsWritten);
}

}  // namespace mxla::codegen
