// Software prefetch: asks the cache hierarchy for the line holding an
// address ahead of a load the hardware prefetchers would not foresee (a
// next row, a strided block). A prefetch never faults, so the address may
// lie past a buffer's end.
#ifndef MXLA_CODEGEN_PREFETCH_H_
#define MXLA_CODEGEN_PREFETCH_H_

#include "llvm/IR/IRBuilder.h"

namespace mxla::codegen {

// A read prefetch of `address` (a pointer) into the data cache; locality 3
// keeps the line as close as L1, 2 as L2, 0 marks it streamed.
void EmitPrefetch(llvm::IRBuilder<>& b, llvm::Value* address, int locality);

}  // namespace mxla::codegen

#endif  // MXLA_CODEGEN_PREFETCH_H_
