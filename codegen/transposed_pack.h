// Packing a matrix stored with k contiguous ([rows, k], row-major: a
// transposed rhs, such as a PyTorch Linear's [out, in] weights) into the
// dot kernel's k-major panels (codegen/gemm_emitter.h): element (row r,
// step k) of panel p goes to packed[(p * kc + k) * width + r]. Read lane
// by lane, a panel's step is `width` elements of `width` rows, which the
// loop vectorizer turns into gathers. Here each block of `lanes` rows x
// `lanes` steps is read as `lanes` contiguous vector loads, transposed in
// registers by shuffles, and stored as `lanes` vectors of the panel.
#ifndef MXLA_CODEGEN_TRANSPOSED_PACK_H_
#define MXLA_CODEGEN_TRANSPOSED_PACK_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

// A square block of vectors, transposed: result[j][i] = rows[i][j]. The
// count of rows must equal their lanes, a power of two.
std::vector<llvm::Value*> TransposeSquare(llvm::IRBuilder<>& b,
                                          const std::vector<llvm::Value*>& rows);

// Where the matrix and its panels are.
struct TransposedPanels {
  llvm::Type* element = nullptr;
  int64_t lanes = 0;  // elements per vector, a power of two dividing width
  int64_t width = 0;  // panel width (rows per panel)
  // Element (row 0, step 0) of the matrix, and the elements between rows.
  llvm::Value* source = nullptr;
  int64_t row_stride = 0;
  llvm::Value* first_row = nullptr;  // the first panel's first row
  llvm::Value* k_start = nullptr;    // the slice's first step
  llvm::Value* kc = nullptr;         // the slice's steps
  llvm::Value* packed = nullptr;
};

// Packs steps [k_from, k_to) of panels [0, panels), all of whose rows
// exist: whole blocks of `lanes` steps by transposes, the rest element by
// element.
absl::Status EmitTransposedPack(llvm::IRBuilder<>& b,
                                const TransposedPanels& where,
                                llvm::Value* panels, llvm::Value* k_from,
                                llvm::Value* k_to);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_TRANSPOSED_PACK_H_
